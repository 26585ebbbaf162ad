"""`homeclaw chat` (REPL or one-shot), `homeclaw logs` and `homeclaw doctor`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from homeclaw_cli.errors import ExitCode, UsageError
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output
from homeclaw_cli.surfaces.trace import trace_lines

if TYPE_CHECKING:
    from homeclaw_cli.settings import Settings


def _settings(ctx: typer.Context, model: str | None, host: str | None) -> Settings:
    flags = {"llm.model": model, "llm.host": host}
    return get_state(ctx).settings(**{k: v for k, v in flags.items() if v})


def chat(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Option("-q", "--query", help="Ask one question and exit (stdin when piped)."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Chat model.")] = None,
    host: Annotated[str | None, typer.Option("--host", help="LLM server URL.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One-shot: print answer, trace and timings as JSON.")
    ] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Show the trace on stderr.")] = False,
    no_log: Annotated[bool, typer.Option("--no-log", help="Do not log this conversation.")] = False,
    no_watch: Annotated[
        bool, typer.Option("--no-watch", help="REPL: do not hot-reload plugin changes.")
    ] = False,
) -> None:
    """Chat with your local model; plugins and skills are retrieved for every message.

    With -q, or a question piped on stdin, it answers once:
    only the answer goes to stdout, everything else to stderr.
    Exit 1 when a tool failed for good, 5 when the model is unreachable.
    """
    settings = _settings(ctx, model, host)
    if query is None and not sys.stdin.isatty():
        query = sys.stdin.read()
    if query is not None:
        if not query.strip():
            raise UsageError("the question is empty", hint='homeclaw chat -q "your question"')
        import asyncio

        code = asyncio.run(_one_shot(settings, query.strip(), as_json, trace, not no_log))
        if code:
            raise typer.Exit(code)
        return
    if as_json:
        raise UsageError("--json needs a question", hint='homeclaw chat -q "..." --json')
    from homeclaw_cli.surfaces.repl.chat_repl import run_repl

    run_repl(settings, trace=trace, log=not no_log, watch=not no_watch, debug=get_state(ctx).debug)


async def _one_shot(settings: Settings, query: str, as_json: bool, trace: bool, log: bool) -> int:
    from homeclaw_cli.app.chat import ChatSession

    out = Output(json_mode=as_json)
    session = ChatSession(settings, log=log)
    streamed: list[str] = []

    def emit(piece: str) -> None:
        streamed.append(piece)
        sys.stdout.write(piece)
        sys.stdout.flush()

    try:
        await session.start()
        result = await session.ask(query, on_text=None if as_json else emit)
    finally:
        await session.aclose()
    for warning in session.take_warnings():
        out.warning(warning)
    if as_json:
        out.json({"model": session.model, **result.to_json()})
    elif streamed and not "".join(streamed).endswith("\n"):
        sys.stdout.write("\n")
        sys.stdout.flush()
    if trace and not as_json:
        for line in trace_lines(result):
            out.info(line)
    if not result.ok:
        out.error(result.error or "the turn failed")
        return int(ExitCode.FAILURE)
    return 0


def logs(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many turns.", min=1)] = 20,
    session: Annotated[str | None, typer.Option("--session", help="Session id prefix.")] = None,
    failed: Annotated[bool, typer.Option("--failed", help="Only failed turns.")] = False,
    clear: Annotated[bool, typer.Option("--clear", help="Delete every logged turn.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Show logged conversations and tool calls (newest last)."""
    from homeclaw_cli.state.conversations import clear_log, log_path, read_turns

    settings = get_state(ctx).settings()
    if clear:
        count = clear_log(log_path(settings.state_dir))
        Output().info(f"deleted {count} logged turns")
        return
    turns = read_turns(
        log_path(settings.state_dir), limit=limit, session=session, failed_only=failed
    )
    out = Output(json_mode=as_json)
    if as_json:
        out.json(turns)
        return
    if not turns:
        out.info("no conversations logged yet (they are logged by `homeclaw chat`)")
        return
    rows: list[list[Any]] = []
    for turn in turns:
        tools = ", ".join(f"{c['name']}{'' if c['ok'] else '!'}" for c in turn["tool_calls"])
        rows.append(
            [
                turn["id"],
                turn["session"],
                turn["model"],
                "ok" if turn["ok"] else "FAILED",
                f"{turn['seconds']:.2f}s",
                turn["message"][:60],
                tools,
                (turn["answer"] or turn["error"] or "")[:80].replace("\n", " "),
            ]
        )
    out.table(
        ["ID", "SESSION", "MODEL", "STATUS", "TIME", "MESSAGE", "TOOLS", "ANSWER"],
        rows,
        styles={"ID": "dim", "SESSION": "dim", "TOOLS": "cyan"},
    )


def doctor(
    ctx: typer.Context,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Chat model.")] = None,
    host: Annotated[str | None, typer.Option("--host", help="LLM server URL.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check the LLM server, the model, the index, the embedding model and plugin health."""
    from rich.markup import escape

    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.app.doctor import run_checks

    settings = _settings(ctx, model, host)
    import asyncio

    checks = asyncio.run(run_checks(AppContext(settings)))
    out = Output(json_mode=as_json)
    if as_json:
        out.json([c.to_json() for c in checks])
    else:
        marks = {
            "ok": "[green]ok[/green]",
            "warn": "[yellow]warn[/yellow]",
            "fail": "[red]FAIL[/red]",
        }
        if out.rich:
            for check in checks:
                # Details quote plugin output and manifests: brackets there are not markup.
                name, detail = escape(check.name), escape(check.detail)
                out.markup(f"{marks[check.status]}  [bold]{name}[/bold]: {detail}")
                if check.fix:
                    out.markup(f"      [dim]fix:[/dim] {escape(check.fix)}")
        else:
            out.table(
                ["CHECK", "STATUS", "DETAIL", "FIX"],
                [[c.name, c.status, c.detail, c.fix] for c in checks],
            )
    if any(c.status == "fail" for c in checks):
        raise typer.Exit(int(ExitCode.FAILURE))
