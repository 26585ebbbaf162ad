"""The task file of `homeclaw eval chat` (and a plugin's `eval.yaml`): what to ask, what to expect.

YAML (a list of tasks, or `tasks:` holding one) or JSONL (one task per line)::

    - request: 5 miles in km pls          # or a list of turns: [first message, follow-up]
      plugin: units                       # the plugin the LAST turn must call (or a list:
                                          # any of them)
      capability: convert                 # optional: that capability of it
      args: {value: 5, to_unit: [km, kilometers]}  # optional subset; a list gives alternatives
      answer: ["8.04"]                    # optional: any of these fragments, case-insensitive
    - request: 5 miles in km and 17 times 23
      needs: [units, calculator]          # a request with several needs: each plugin called
                                          # (an item may be a list: any of them serves it)
    - request: whats the capital of australia
      no_plugin: true                     # answered without calling any tool
      answer: [canberra]
    - request: how big is my downloads folder
      skill: disk-usage                   # read_skill or run_skill with this skill
    - request: what's the weather like
      asks: city                          # no call runs: the user is asked for this parameter

`allow` lists the plugins or `plugin.capability` whose non-read calls are approved during the
task (default: the expected capability, else the expected plugin); everything else that needs
approval is declined, as a user would. Read-only calls always run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from homeclaw_cli.app.jsonl_file import read_jsonl_lines
from homeclaw_cli.document import DocumentError, FieldPath, read_document
from homeclaw_cli.errors import NotFoundError, UsageError, problems_error
from homeclaw_cli.suggest import did_you_mean

EVAL_FILE = "eval.yaml"  # a plugin's (or skill's) own tasks, next to tests.yaml
FORMAT_HINT = "see `homeclaw eval chat --help` for the task format"
# What each field takes, in the words an error uses (pydantic would say `answer.str: Input
# should be a valid string`, naming a branch of the type instead of the fix).
EXPECTS = {
    "id": "a string",
    "request": "the user's message, or a list of messages (turns)",
    "plugin": "a plugin id, or a list of alternatives",
    "needs": "a list of plugin ids (an item may be a list of alternatives)",
    "capability": "a capability id",
    "skill": "a skill id",
    "args": "a mapping of parameter: expected value, e.g. {value: 5}",
    "answer": "a string or a list of strings",
    "no_plugin": "true or false",
    "asks": "the parameter the user is asked for instead of a call, e.g. city",
    "allow": "a list of plugin or plugin.capability ids",
    "tags": "a list of strings",
}
ITEM_EXPECTS = {"needs": "a plugin id, or a list of alternatives"}
QUOTED = {"answer", "request", "plugin", "needs", "capability", "skill", "id", "asks"}  # strings


class ChatTask(BaseModel):
    """One task: the user's message(s) and what a right turn does."""

    model_config = ConfigDict(extra="forbid")
    id: str = ""
    request: str | list[str]
    plugin: str | list[str] | None = None
    needs: list[str | list[str]] = Field(default_factory=list)
    capability: str | None = None
    skill: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    answer: str | list[str] = Field(default_factory=list)
    no_plugin: bool = False
    asks: str | None = None
    allow: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    line: int = Field(default=0, exclude=True)
    source: str = Field(default="", exclude=True)
    # The line of each field (`plugin`, `needs`, ...), so a later check can point at it.
    lines: dict[str, int] = Field(default_factory=dict, exclude=True)

    @model_validator(mode="after")
    def _consistent(self) -> ChatTask:
        if not self.turns or not all(t.strip() for t in self.turns):
            raise ValueError("`request` must be a non-empty message or list of messages")
        if self.no_plugin and (self.plugin or self.skill):
            raise ValueError("give either `plugin`/`skill` or `no_plugin: true`, not both")
        if self.no_plugin and self.needs:
            raise ValueError("give either `needs` or `no_plugin: true`, not both")
        if self.asks and (self.no_plugin or self.plugin or self.needs or self.skill):
            raise ValueError("`asks` means no call runs: give it without a plugin to call")
        expects = self.no_plugin or self.plugin or self.needs or self.skill or self.asks
        if not (expects or self.answers):
            raise ValueError(
                "expect something: `plugin`, `needs`, `skill`, `no_plugin: true`, `asks` "
                "or `answer`"
            )
        if self.capability and not isinstance(self.plugin, str):
            raise ValueError("`capability` needs the one `plugin` it belongs to")
        if self.args and not self.capability:
            raise ValueError("`args` needs the `capability` they are sent to")
        return self

    @property
    def turns(self) -> list[str]:
        return [self.request] if isinstance(self.request, str) else list(self.request)

    @property
    def plugins(self) -> list[str]:
        """The expected plugin, or its alternatives (any of them is right)."""
        if self.plugin is None:
            return []
        return [self.plugin] if isinstance(self.plugin, str) else list(self.plugin)

    @property
    def need_plugins(self) -> list[list[str]]:
        """Each need's plugin, or its alternatives."""
        return [[need] if isinstance(need, str) else list(need) for need in self.needs]

    @property
    def answers(self) -> list[str]:
        return [self.answer] if isinstance(self.answer, str) else list(self.answer)

    @property
    def label(self) -> str:
        """How reports name the task: its id, else `file:line`."""
        return self.id or f"{self.source}:{self.line}"

    def allowed(self) -> set[str]:
        """Rule keys (`plugin`, `plugin.capability`, `run_skill.<skill>`) whose approval the
        task grants: the expected skill's scripts, never every skill's."""
        if self.allow:
            return set(self.allow)
        if self.plugin and self.capability:
            return {f"{self.plugin}.{self.capability}"}
        skill = {f"run_skill.{self.skill}"} if self.skill else set()
        return set(self.plugins) | {p for need in self.need_plugins for p in need} | skill

    def expected(self) -> dict[str, Any]:
        """The expectations as reports show them."""
        data: dict[str, Any] = {"no_plugin": True} if self.no_plugin else {}
        for key in ("plugin", "needs", "capability", "skill", "asks"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.args:
            data["args"] = self.args
        if self.answers:
            data["answer"] = self.answers
        return data


def read_tasks(path: Path) -> list[ChatTask]:
    """Parse a task file (.yaml/.yml/.json list, or .jsonl); one error names every bad task's
    file, line and field, so one edit fixes them all."""
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "no such file"
        raise NotFoundError(f"{path}: {what}", hint="pass a .yaml or .jsonl file of chat tasks")
    problems: list[str] = []
    tasks = _read_jsonl(path, problems) if path.suffix == ".jsonl" else _read_yaml(path, problems)
    if problems:
        raise problems_error(f"{path}: {len(problems)} problems", problems, FORMAT_HINT)
    if not tasks:
        raise UsageError(f"{path}: no tasks in the file", hint=FORMAT_HINT)
    return tasks


class _Locate(Protocol):
    def __call__(self, loc: FieldPath) -> int: ...


def _read_yaml(path: Path, problems: list[str]) -> list[ChatTask]:
    try:
        doc = read_document(path)
    except DocumentError as exc:
        where = f"{path}:{exc.line}" if exc.line else str(path)
        raise UsageError(f"{where}: {exc.message}", hint=FORMAT_HINT) from None
    items: Any = doc.data
    prefix: FieldPath = ()
    if isinstance(items, dict) and set(items) == {"tasks"}:
        items, prefix = items["tasks"], ("tasks",)
    if items is None:
        return []
    if not isinstance(items, list):
        raise UsageError(
            f"{path}: the file must hold a list of tasks (or `tasks:` with one)", hint=FORMAT_HINT
        )
    tasks = []
    for index, item in enumerate(items):
        pos = doc.position((*prefix, index))
        line = pos[0] if pos else 0

        def locate(loc: FieldPath, index: int = index, line: int = line) -> int:
            field_pos = doc.position((*prefix, index, *loc))
            return field_pos[0] if field_pos else line

        tasks += _task(path, item, line, locate, problems)
    return tasks


def _read_jsonl(path: Path, problems: list[str]) -> list[ChatTask]:
    tasks = []
    for number, text in enumerate(read_jsonl_lines(path, FORMAT_HINT), start=1):
        if not text.strip():
            continue
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{number}: not valid JSON ({exc.msg})")
            continue
        tasks += _task(path, item, number, lambda _loc, n=number: n, problems)
    return tasks


def _task(path: Path, item: Any, line: int, locate: _Locate, problems: list[str]) -> list[ChatTask]:
    """Validate one task: [the task], or [] with its problems added, each naming the line,
    the task and the field."""
    if not isinstance(item, dict):
        problems.append(f"{path}:{line}: each task must be a mapping with a `request`")
        return []
    try:
        task = ChatTask.model_validate(item)
    except ValidationError as exc:
        name = f" (task {item['id']!r})" if isinstance(item.get("id"), str) else ""
        for loc, message in _plain_errors(exc):
            problems.append(f"{path}:{locate(loc)}{name}: {message}")
        return []
    task.line, task.source = line, path.name
    task.lines = {key: locate((key,)) for key in item if isinstance(key, str)}
    return [task]


def _plain_errors(exc: ValidationError) -> list[tuple[FieldPath, str]]:
    """Each bad field once, in words: what it takes, not which branch of its type failed."""
    out: dict[str, tuple[FieldPath, str]] = {}
    for err in exc.errors():
        loc = tuple(p for p in err["loc"] if isinstance(p, int) or p in ChatTask.model_fields)
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
        if field in out:
            continue  # a union's other branch: the same mistake
        if err["type"] == "extra_forbidden":
            key = str(err["loc"][-1])
            fix = did_you_mean(key, EXPECTS) or f" (the fields: {', '.join(EXPECTS)})"
            out[key] = ((key,), f"unknown field `{key}`{fix}")
        elif err["type"] == "missing":
            out[field] = (loc, f"{field}: missing; give {EXPECTS.get(field, 'a value')}")
        elif not loc:
            out["task"] = (loc, f"task: {str(err['msg']).removeprefix('Value error, ')}")
        else:
            out[field] = (loc, _wrong_type(loc, err.get("input")))
    return list(out.values())


def _wrong_type(loc: FieldPath, value: Any) -> str:
    head = str(loc[0])
    expects = ITEM_EXPECTS.get(head, "a string") if len(loc) > 1 else EXPECTS[head]
    field = head + "".join(f"[{p}]" for p in loc[1:])
    message = f"{field}: must be {expects}, not {json.dumps(value, default=str)}"
    if isinstance(value, int | float) and not isinstance(value, bool) and head in QUOTED:
        message += f' (quote numbers: {head}: ["{value}"])'
    return message
