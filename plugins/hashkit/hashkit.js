// hashkit: a homeclaw subprocess plugin in Node.js.
// Reads one PluginRequest JSON from stdin, writes one PluginResult JSON line to stdout.
"use strict";
const crypto = require("node:crypto");

const ALGORITHMS = ["sha256", "sha1", "sha512", "md5"];

const handlers = {
  hash({ text, algorithm = "sha256" }) {
    const algo = String(algorithm).toLowerCase().replace("-", "");
    if (!ALGORITHMS.includes(algo)) {
      throw new Error(`unknown algorithm '${algorithm}'; use one of: ${ALGORITHMS.join(", ")}`);
    }
    const digest = crypto.createHash(algo).update(String(text), "utf8").digest("hex");
    return { text: `${algo}: ${digest}`, metadata: { algorithm: algo, digest } };
  },
  base64({ text, decode = false }) {
    if (decode) {
      const clean = String(text).trim();
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean)) throw new Error("the text is not Base64");
      return { text: Buffer.from(clean, "base64").toString("utf8") };
    }
    return { text: Buffer.from(String(text), "utf8").toString("base64") };
  },
  uuid({ count = 1 }) {
    const n = Math.trunc(Number(count));
    if (!(n >= 1 && n <= 100)) throw new Error("count must be between 1 and 100");
    const ids = Array.from({ length: n }, () => crypto.randomUUID());
    return { text: ids.join("\n"), metadata: { uuids: ids } };
  },
};

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  let request = {};
  const reply = { success: false, plugin_id: "hashkit", request_id: "" };
  try {
    request = JSON.parse(input.split("\n")[0] || "{}");
    reply.request_id = request.request_id || "";
    const handler = handlers[request.capability_id];
    if (!handler) throw new Error(`unknown capability '${request.capability_id}'`);
    Object.assign(reply, { success: true, metadata: {} }, handler(request.parameters || {}));
  } catch (err) {
    reply.success = false;
    reply.error = err.message;
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
