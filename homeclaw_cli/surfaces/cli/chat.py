"""`homeclaw chat`: the REPL, or one answer for -q or a question piped on stdin."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.errors import HomeclawError, InterruptError, UsageError, missing_path
from homeclaw_cli.surfaces.cli.options import HostOpt, ModelOpt, json_requested
from homeclaw_cli.surfaces.cli.state import get_state, llm_settings
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.settings import Settings


class ApproveMode(StrEnum):
    ask = "ask"
    auto = "auto"
    never = "never"


app = typer.Typer()

ApproveOpt = Annotated[
    ApproveMode | None,
    typer.Option(
        "--approve", help="Model calls that are not read-only: ask (default), auto (run), never."
    ),
]
ApproveRuleOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--approve-rule",
        metavar="ID=MODE",
        help="Per plugin or capability, e.g. notes=auto or notes.delete_note=never.",
    ),
]
AllowDirOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--allow-dir",
        metavar="DIR",
        help="A folder read_file/list_dir may read (repeatable; none: no file tools).",
    ),
]

ContinueOpt = Annotated[
    bool, typer.Option("--continue", "-c", help="Continue the last conversation.")
]
SessionOpt = Annotated[
    str | None,
    typer.Option(
        "--session", metavar="ID", help="Continue this conversation (`homeclaw logs sessions`)."
    ),
]


@app.command("chat")
def chat(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Option(
            "-q",
            "--query",
            help="Ask one question and exit; `-q -` (or piping it in) reads it from stdin.",
        ),
    ] = None,
    model: ModelOpt = None,
    host: HostOpt = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="One-shot: print answer, trace and timings as JSON.",
            callback=json_requested,
        ),
    ] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Show the trace on stderr.")] = False,
    no_log: Annotated[bool, typer.Option("--no-log", help="Do not log this conversation.")] = False,
    no_watch: Annotated[
        bool, typer.Option("--no-watch", help="REPL: do not hot-reload plugin changes.")
    ] = False,
    approve: ApproveOpt = None,
    approve_rules: ApproveRuleOpt = None,
    allow_dirs: AllowDirOpt = None,
    resume_last: ContinueOpt = False,
    session: SessionOpt = None,
) -> None:
    """Chat with your local model; plugins and skills are retrieved for every message.

    With -q (`-q -` reads the question from stdin), or a question piped on stdin, it answers once:
    only the answer goes to stdout, everything else to stderr.
    -c / --session ID pick a logged conversation up again (with -q too).
    Exit 1 when a tool failed for good, 4 for a model or session not found, 5 when the server is
    unreachable, 130 on Ctrl-C.
    """
    flags = approval_flags(approve, approve_rules or [], allow_dirs or [])
    settings = llm_settings(ctx, model, host, **flags)
    resume = resumed_session(settings, resume_last, session)
    query = stdin_question(query)
    if query is not None:
        out = Output(json_mode=as_json)
        _answer_once(settings, out, query, trace=trace, log=not no_log, resume=resume)
        return
    if as_json:
        raise UsageError("--json needs a question", hint='homeclaw chat -q "..." --json')
    from homeclaw_cli.surfaces.repl.chat_repl import run_repl

    run_repl(
        settings,
        trace=trace,
        log=not no_log,
        watch=not no_watch,
        debug=get_state(ctx).debug,
        resume=resume,
    )


def stdin_question(query: str | None) -> str | None:
    """The question of -q: `-` reads it from stdin, as does no -q with stdin piped."""
    if query == "-":
        question = sys.stdin.read().rstrip("\n")
        if not question.strip():
            raise UsageError(
                "-q - found no question on stdin",
                hint='pipe one in: echo "your question" | homeclaw chat -q -',
            )
        return question
    if query is None and not sys.stdin.isatty():
        return sys.stdin.read()
    return query


def _answer_once(
    settings: Settings, out: Output, query: str, *, trace: bool, log: bool, resume: str | None
) -> None:
    """`chat -q`: one answer; exits with the turn's code (130 on Ctrl-C)."""
    if not query.strip():
        raise UsageError("the question is empty", hint='homeclaw chat -q "your question"')
    import asyncio

    try:
        code = asyncio.run(
            _one_shot(settings, out, query.strip(), trace=trace, log=log, resume=resume)
        )
    except KeyboardInterrupt:  # asyncio.run cancelled the turn (it is logged as cancelled)
        out.info("cancelled")
        interrupted = InterruptError("the turn was cancelled")
        out.json_error(interrupted)
        raise typer.Exit(int(interrupted.exit_code)) from None
    if code:
        raise typer.Exit(code)


def resumed_session(settings: Settings, last: bool, session: str | None) -> str | None:
    """The full id of the conversation -c / --session ID continue, None for a new one."""
    if not last and session is None:
        return None
    if last and session is not None:
        raise UsageError("--continue and --session both pick a conversation", hint="give one")
    from homeclaw_cli.state.conversations import log_path, resolve_session

    return resolve_session(log_path(settings.state_dir), session)


async def _one_shot(
    settings: Settings, out: Output, query: str, *, trace: bool, log: bool, resume: str | None
) -> int:
    """Answer once; Ctrl-C cancels the turn (asyncio.run then raises KeyboardInterrupt)."""
    import asyncio

    from homeclaw_cli.app.chat import ChatSession
    from homeclaw_cli.surfaces.approval_prompt import terminal_asker
    from homeclaw_cli.surfaces.trace import trace_lines

    session = ChatSession(settings, log=log, ask=terminal_asker(), resume=resume, notice=out.info)
    streamed: list[str] = []
    try:
        try:
            await session.start()
        except HomeclawError as exc:  # the server or model is not there: a failed turn
            session.log_unasked(query, exc)
            raise
        finally:
            # Before the turn, whose tool calls may act on what they warn about (a rule
            # that names nothing, a stale index); later ones follow the answer.
            for warning in session.take_warnings():
                out.warning(warning)
        session.retriever.on_warning = out.warning  # retrieval comes before the calls too
        with out.stream() as show:

            def show_text(piece: str) -> None:
                streamed.append(piece)
                try:
                    show(piece)
                except BrokenPipeError:  # a ConnectionError: the LLM adapter would blame it
                    raise HomeclawError("stdout was closed before the answer ended") from None

            result = await session.ask(query, on_text=None if out.json_mode else show_text)
    except asyncio.CancelledError:
        if streamed and not streamed[-1].endswith("\n"):
            out.text("")  # end the half-streamed answer before `cancelled` goes to stderr
        raise
    finally:
        await session.aclose()
    for warning in session.take_warnings():
        out.warning(warning)
    if out.json_mode:
        out.json({"model": session.model, "session": session.session_id, **result.to_json()})
    elif trace:
        for line in trace_lines(result):
            out.info(line)
    if not result.ok:
        failed = HomeclawError(result.error or "the turn failed")
        out.json_error(failed)
        out.error(failed.message)
        return int(failed.exit_code)
    return 0


def approval_flags(
    approve: ApproveMode | None, rules: list[str], allow_dirs: list[Path]
) -> dict[str, Any]:
    """--approve, --approve-rule ID=MODE and --allow-dir as settings overrides."""
    flags: dict[str, Any] = {}
    if approve is not None:
        flags["tools.approve"] = approve.value
    parsed: dict[str, str] = {}
    for rule in rules:
        key, sep, mode = rule.partition("=")
        if not sep or not key.strip() or mode.strip() not in ApproveMode.__members__:
            raise _bad_rule(rule, key.strip(), mode.strip() if sep else None)
        parsed[key.strip()] = mode.strip()
    if parsed:
        flags["tools.approve_rules"] = parsed
    for folder in allow_dirs:
        if not folder.expanduser().exists():
            raise missing_path(f"--allow-dir {folder}", hint="give an existing folder")
        if not folder.expanduser().is_dir():
            raise UsageError(
                f"--allow-dir {folder} is not a folder", hint="give an existing folder"
            )
    if allow_dirs:
        flags["tools.allowed_dirs"] = [folder.expanduser().resolve() for folder in allow_dirs]
    return flags


def _bad_rule(rule: str, key: str, mode: str | None) -> UsageError:
    """The usage error for an --approve-rule that is not ID=MODE, naming the valid modes."""
    modes = ", ".join(m.value for m in ApproveMode)
    example = f"{key or 'notes'}=auto"
    if mode is None:
        problem = "has no =MODE"
    elif not key:
        problem = "has no plugin or capability id before ="
    else:
        problem = f"has the mode {mode!r}, which is none of {modes}"
    return UsageError(
        f"--approve-rule {rule!r} is not ID=MODE: it {problem}",
        hint=f"MODE is one of {modes}, e.g. --approve-rule {example}",
    )
