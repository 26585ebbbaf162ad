"""textkit: a homeclaw subprocess plugin (one PluginRequest JSON on stdin, one PluginResult out).

Standard library only, so it runs on any Python 3.8+.
"""

import json
import math
import re
import sys
import unicodedata


def stats(text, words_per_minute=230):
    words = re.findall(r"\w+(?:['’-]\w+)*", text)
    sentences = [s for s in re.split(r"[.!?]+(?:\s|$)", text) if s.strip()]
    minutes = len(words) / max(float(words_per_minute), 1.0)
    reading = "under a minute" if minutes < 1 else f"about {math.ceil(minutes)} min"
    counts = {
        "words": len(words),
        "characters": len(text),
        "characters_no_spaces": len(re.sub(r"\s", "", text)),
        "lines": len(text.splitlines()) or (1 if text else 0),
        "sentences": len(sentences),
    }
    summary = (
        f"{counts['words']} words, {counts['characters']} characters, {counts['lines']} lines, "
        f"{counts['sentences']} sentences; reading time {reading}."
    )
    return summary, counts


def words_of(text):
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", ascii_text)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def slugify(text, separator="-"):
    slug = separator.join(w.lower() for w in words_of(text))
    return slug, {"slug": slug}


CASES = {
    "upper": lambda t: t.upper(),
    "lower": lambda t: t.lower(),
    "title": lambda t: t.title(),
    "snake": lambda t: "_".join(w.lower() for w in words_of(t)),
    "kebab": lambda t: "-".join(w.lower() for w in words_of(t)),
    "camel": lambda t: "".join(
        w.lower() if i == 0 else w.capitalize() for i, w in enumerate(words_of(t))
    ),
}


def change_case(text, case):
    convert = CASES.get(case.strip().lower())
    if convert is None:
        raise ValueError(f"unknown case {case!r}; use one of: {', '.join(CASES)}")
    result = convert(text)
    return result, {"case": case, "result": result}


HANDLERS = {"stats": stats, "slugify": slugify, "change-case": change_case}


def main():
    request = json.loads(sys.stdin.readline() or "{}")
    answer = {"request_id": request.get("request_id", ""), "plugin_id": "textkit"}
    handler = HANDLERS.get(request.get("capability_id"))
    try:
        if handler is None:
            raise ValueError(f"unknown capability {request.get('capability_id')!r}")
        text, data = handler(**request.get("parameters", {}))
        answer.update(success=True, text=text, metadata=data)
    except (TypeError, ValueError) as exc:
        answer.update(success=False, error=str(exc))
    sys.stdout.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
