"""Example requests: what a user would type to reach a plugin, a capability or a skill.

Authors write them in plugin.yaml (`examples:` on the plugin and on each capability) and in
SKILL.md frontmatter; `sync --expand` may add generated ones where an author gave none. Each
example is embedded as its own vector and added to the keyword text, so a request phrased
the way people type ("7 factorial pls") finds the plugin even when the description does not
use those words.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from homeclaw_cli.core.manifest import Capability, PluginManifest

MAX_EXAMPLES = 10
MIN_CHARS = 3
MAX_CHARS = 200
# What `plugin validate` and `skill validate` say of a plugin, capability or skill without any.
WHY_EXAMPLES = "retrieval finds it by its examples more often than by its description"


def examples_fix(where: str) -> str:
    """How to give `where` example requests (the hint of the missing-examples warnings)."""
    return (
        f"add `examples:` to {where} with 3-5 requests people would type, or run "
        "`homeclaw sync --expand` to have your chat model write them"
    )


ExampleSource = Literal["author", "generated"]


class ExampleError(ValueError):
    """One rule an `examples` list breaks; `index` is the offending item, when there is one."""

    def __init__(self, reason: str, index: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.index = index


@dataclass(frozen=True)
class Example:
    """One example request of an indexed descriptor.

    `capability` is the capability id it belongs to (None: the plugin or skill as a whole);
    `source` tells an author's example from one `sync --expand` generated.
    """

    text: str
    source: ExampleSource = "author"
    capability: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Example:
        source: ExampleSource = "generated" if data.get("source") == "generated" else "author"
        return cls(str(data["text"]), source, data.get("capability"))


def request_key(text: str) -> str:
    """What tells two requests apart: case and spacing do not."""
    return " ".join(text.casefold().split())


def check_examples(value: Any, field: str = "examples", item: str = "example") -> list[str]:
    """The examples with surrounding space trimmed, or ExampleError naming the rule broken.

    `field` and `item` name the list and one of its requests in the messages (`not_for`
    lists follow the same rules)."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list):
        raise ExampleError(f'{field} must be a list of requests, e.g. {field}: ["7 factorial pls"]')
    if len(value) > MAX_EXAMPLES:
        raise ExampleError(
            f"{len(value)} {item}s; keep at most {MAX_EXAMPLES} (the most typical requests)"
        )
    seen: dict[str, int] = {}
    out: list[str] = []
    for index, entry in enumerate(value):
        if not isinstance(entry, str):
            raise ExampleError(
                f"{item} {entry!r} is {_kind(entry)}; write it as text in quotes", index
            )
        text = " ".join(entry.split())
        if not MIN_CHARS <= len(text) <= MAX_CHARS:
            raise ExampleError(
                f"{item} {text[:40]!r} is {len(text)} characters; write {MIN_CHARS} to {MAX_CHARS}",
                index,
            )
        key = request_key(text)
        if key in seen:
            raise ExampleError(f"{item} {text!r} repeats {item} {seen[key] + 1}; remove one", index)
        seen[key] = index
        out.append(text)
    return out


def check_not_for(value: Any, examples: list[str]) -> list[str]:
    """A plugin's not_for requests, checked as examples are, none of them one of `examples`."""
    requests = check_examples(value, "not_for", "not_for request")
    taken = {request_key(text) for text in examples}
    for index, text in enumerate(requests):
        if request_key(text) in taken:
            raise ExampleError(
                f"{text!r} is both an example and a not_for request; keep it in one", index
            )
    return requests


def _kind(value: Any) -> str:
    """What YAML made of an unquoted example, in words ("a number", not "a int")."""
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping (a colon followed by a space makes one)"
    return "empty" if value is None else f"a {type(value).__name__}"


def merge_examples(*groups: list[Example]) -> list[Example]:
    """All examples in order, without repeats (an author's wins over a generated twin)."""
    seen: set[tuple[str | None, str]] = set()
    out: list[Example] = []
    for group in groups:
        for example in group:
            key = (example.capability, request_key(example.text))
            if key not in seen:
                seen.add(key)
                out.append(example)
    return out


def examples_hash(examples: list[Example]) -> str:
    """A short stable hash of `examples`, part of an index row's hash."""
    payload = json.dumps([e.to_json() for e in examples], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def capabilities_without_examples(manifest: PluginManifest) -> list[Capability]:
    """The callable capabilities no author example speaks for. A capability's own examples
    do; the plugin's own speak for its capability only when it has just one (with several they
    do not say which one they are for)."""
    capabilities = manifest.callable_capabilities()
    if manifest.examples and len(capabilities) == 1:
        return []
    return [c for c in capabilities if not (manifest.capabilities and c.examples)]
