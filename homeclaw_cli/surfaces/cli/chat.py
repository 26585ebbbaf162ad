"""`homeclaw chat`: the REPL, or one answer for -q or a question piped on stdin."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from homeclaw_cli.errors import ExitCode, UsageError
from homeclaw_cli.surfaces.cli.options import HostOpt, ModelOpt
from homeclaw_cli.surfaces.cli.state import get_state, llm_settings
from homeclaw_cli.surfaces.render import Output
from homeclaw_cli.surfaces.trace import trace_lines

if TYPE_CHECKING:
    from homeclaw_cli.settings import Settings

app = typer.Typer()


@app.command("chat")
def chat(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Option("-q", "--query", help="Ask one question and exit (stdin when piped)."),
    ] = None,
    model: ModelOpt = None,
    host: HostOpt = None,
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
    Exit 1 when a tool failed for good, 5 when the model is unreachable, 130 on Ctrl-C.
    """
    settings = llm_settings(ctx, model, host)
    if query is None and not sys.stdin.isatty():
        query = sys.stdin.read()
    if query is not None:
        if not query.strip():
            raise UsageError("the question is empty", hint='homeclaw chat -q "your question"')
        import asyncio

        out = Output(json_mode=as_json)
        try:
            code = asyncio.run(_one_shot(settings, out, query.strip(), trace=trace, log=not no_log))
        except KeyboardInterrupt:  # asyncio.run cancelled the turn (it is logged as cancelled)
            out.info("cancelled")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        if code:
            raise typer.Exit(code)
        return
    if as_json:
        raise UsageError("--json needs a question", hint='homeclaw chat -q "..." --json')
    from homeclaw_cli.surfaces.repl.chat_repl import run_repl

    run_repl(settings, trace=trace, log=not no_log, watch=not no_watch, debug=get_state(ctx).debug)


async def _one_shot(settings: Settings, out: Output, query: str, *, trace: bool, log: bool) -> int:
    """Answer once; Ctrl-C cancels the turn (asyncio.run then raises KeyboardInterrupt)."""
    import asyncio

    from homeclaw_cli.app.chat import ChatSession

    session = ChatSession(settings, log=log)
    streamed: list[str] = []
    try:
        await session.start()
        with out.stream() as show:

            def show_text(piece: str) -> None:
                streamed.append(piece)
                show(piece)

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
        out.json({"model": session.model, **result.to_json()})
    elif trace:
        for line in trace_lines(result):
            out.info(line)
    if not result.ok:
        out.error(result.error or "the turn failed")
        return int(ExitCode.FAILURE)
    return 0
