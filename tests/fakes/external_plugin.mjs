// The same external plugin as external_plugin.py, in Node (no npm packages): proves the
// registration API works for any language.
//   node external_plugin.mjs --port 0 --homeclaw URL --token-file F --id node-echo
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, value, i, all) => {
    if (value.startsWith("--")) pairs.push([value.slice(2), all[i + 1]]);
    return pairs;
  }, []),
);

const server = createServer((req, res) => {
  const send = (status, body) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.method === "GET" && req.url === "/health") return send(200, { ok: true });
  let raw = "";
  req.on("data", (chunk) => (raw += chunk));
  req.on("end", () => {
    const request = raw ? JSON.parse(raw) : {};
    // /reverse is a REST capability (body = parameters); /run gets a PluginRequest.
    const params = req.url === "/reverse" ? request : (request.parameters ?? {});
    const text = String(params.text ?? request.user_input ?? "");
    send(200, {
      request_id: request.request_id ?? "",
      plugin_id: request.plugin_id ?? "",
      success: true,
      text: text.split("").reverse().join(""),
    });
  });
});

server.listen(Number(args.port ?? 0), "127.0.0.1", async () => {
  const port = server.address().port;
  const base = `http://127.0.0.1:${port}`;
  let status = "-";
  if (args.homeclaw) {
    const token = args["token-file"] ? readFileSync(args["token-file"], "utf8").trim() : "";
    const response = await fetch(`${args.homeclaw}/api/plugins/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({
        plugin_id: args.id ?? "node-echo",
        name: "Reverse",
        description: "Reverse a message.",
        health_check_url: `${base}/health`,
        type: "http",
        config: { base_url: base, path: "/run", timeout_sec: 5 },
        capabilities: [
          {
            id: "reverse",
            name: "Reverse",
            description: "Reverse the characters of a message.",
            parameters: [{ name: "text", type: "string" }],
            method: "POST",
            path: "/reverse",
          },
        ],
      }),
    });
    status = String(response.status);
  }
  console.log(`ready ${port} ${status}`);
});
