"""`homeclaw` entry point: the root Typer app, global options and the one error boundary."""

from __future__ import annotations

import errno
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from typer._click import core as click  # typer carries its own click; its errors come from it
from typer._click.exceptions import UsageError as ClickUsageError
from typer._click.formatting import HelpFormatter
from typer.core import TyperGroup, TyperOption

from homeclaw_cli import __version__
from homeclaw_cli.errors import (
    ExitCode,
    HomeclawError,
    InterruptError,
    UsageError,
    index_store_error,
    missing_path,
)
from homeclaw_cli.surfaces.cli import (
    audit,
    chat,
    config,
    doctor,
    logs,
    mcp,
    models,
    own_eval,
    plugin,
    plugin_call,
    plugin_install,
    serve,
    skill,
    skill_lifecycle,
    sync,
)
from homeclaw_cli.surfaces.cli import eval as eval_
from homeclaw_cli.surfaces.cli.completions import (
    InstallCompletionOpt,
    ShowCompletionOpt,
    name_the_current_shell,
    register_shell_completion,
)
from homeclaw_cli.surfaces.cli.debug_log import show_debug_log
from homeclaw_cli.surfaces.cli.help_style import style_command
from homeclaw_cli.surfaces.cli.search import index_app
from homeclaw_cli.surfaces.cli.state import AppState
from homeclaw_cli.surfaces.render import Output, envelope_scope, open_envelope, write_envelope

_NO_ROOM = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}  # where the output goes is full


class _ErrorBoundary(TyperGroup):
    """Turns HomeclawError into `error: ...` + `hint: ...` on stderr and its exit code.

    Under `--json` it also writes the command's one envelope to stdout when the command ends:
    its data with `ok` from the exit status, or the error that stopped it, including bad flags
    and arguments, which stop it before its own `--json` is read.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run one invocation, which starts without a `--json` envelope or the --debug log and
        leaves none behind."""
        style_command(self)
        register_shell_completion()
        argv = kwargs.get("args", args[0] if args else None)
        argv = hoist_global_flags(sys.argv[1:] if argv is None else list(argv))
        argv = name_the_current_shell(argv)
        if args:
            args = (argv, *args[1:])
        else:
            kwargs["args"] = argv
        as_json = json_requested(self, argv)
        # typer draws a usage error in a box with this mode: on a terminal only; a script or
        # a log gets click's plain `Error: ...` lines (format_help keeps the help as it is)
        self.rich_markup_mode = "rich" if sys.stderr.isatty() and not as_json else None
        try:
            with envelope_scope():
                if as_json:
                    open_envelope(command_words(self, argv))
                return super().main(*args, **kwargs)
        finally:
            show_debug_log(False)  # an in-process caller's next command starts without it

    def format_help(self, ctx: click.Context, formatter: HelpFormatter) -> None:
        plain_errors, self.rich_markup_mode = self.rich_markup_mode, "rich"
        try:
            super().format_help(ctx, formatter)
        finally:
            self.rich_markup_mode = plain_errors

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except ClickUsageError as exc:  # the root's own flags
            _envelope_usage_error(exc)
            raise

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            result = super().invoke(ctx)
        except typer.Exit as exc:  # before RuntimeError, which typer.Exit is
            write_envelope(exc.exit_code)
            raise
        except ClickUsageError as exc:  # a command's flags or arguments; click prints it
            _envelope_usage_error(exc)
            raise
        except HomeclawError as exc:
            _fail(ctx, exc)
        except KeyboardInterrupt:
            write_envelope(int(ExitCode.INTERRUPTED), InterruptError("interrupted"))
            sys.stderr.write("interrupted\n")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except (RuntimeError, OSError, ValueError) as exc:
            state = ctx.obj if isinstance(ctx.obj, AppState) else AppState()
            try:
                uri = state.settings().index_uri
            except HomeclawError:
                uri = "the index folder"
            error = index_store_error(uri, exc)
            if error is None or state.debug:
                raise
            _fail(ctx, error)
        write_envelope(int(ExitCode.OK))
        return result


def _envelope_usage_error(exc: ClickUsageError) -> None:
    where = exc.ctx.command_path if exc.ctx is not None else "homeclaw"
    write_envelope(
        int(ExitCode.USAGE), UsageError(exc.format_message(), hint=f"see `{where} --help`")
    )


def command_words(group: TyperGroup, argv: list[str]) -> str:
    """The command `argv` names, as its envelope calls it ("plugin list")."""
    return " ".join(read_argv(group, argv)[0]) or "homeclaw"


def json_requested(group: TyperGroup, argv: list[str]) -> bool:
    """Whether `argv` gives the `--json` flag (not `--json` as an option's value: `logs -q
    --json` searches for that text)."""
    return "--json" in read_argv(group, argv)[1]


def read_argv(group: TyperGroup, argv: list[str]) -> tuple[list[str], list[str]]:
    """The subcommand names in `argv` and its option tokens, read without parsing it: the
    values of options that take one are skipped, and nothing after `--` is read."""
    words: list[str] = []
    options: list[str] = []
    command: click.Command | None = group  # None after a name no group knows
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            break
        if token.startswith("-") and token != "-":
            options.append(token)
            params = command.params if command is not None else []
            option = next((p for p in params if token.split("=")[0] in p.opts), None)
            if isinstance(option, TyperOption) and not option.is_flag and "=" not in token:
                next(tokens, None)
            continue
        if not isinstance(command, TyperGroup):
            continue  # an argument of the command, or after an unknown name
        command = command.get_command(click.Context(command), token)
        if command is not None:
            words.append(token)
    return words, options


GLOBAL_FLAGS = ("--debug", "--trust-workspace")


def hoist_global_flags(argv: list[str]) -> list[str]:
    """Move the root's value-less flags to the front, so `homeclaw plugin list --debug` works
    as `homeclaw --debug plugin list` does. Nothing after `--` is touched."""
    end = argv.index("--") if "--" in argv else len(argv)
    flags = [a for a in argv[:end] if a in GLOBAL_FLAGS]
    rest = [a for a in argv[:end] if a not in GLOBAL_FLAGS]
    return flags + rest + argv[end:]


def _fail(ctx: typer.Context, error: HomeclawError) -> NoReturn:
    """Report `error` on stderr (and in the envelope under --json); exit with its code."""
    state = ctx.obj if isinstance(ctx.obj, AppState) else AppState()
    if state.debug:
        traceback.print_exc()
    write_envelope(int(error.exit_code), error)
    Output().error(error.message, error.hint)
    raise typer.Exit(int(error.exit_code)) from None


def _group(help_text: str, *parts: typer.Typer) -> typer.Typer:
    """A command group made of the commands of `parts`, in their order."""
    group = typer.Typer(help=help_text, no_args_is_help=True)
    for part in parts:
        group.add_typer(part)
    return group


app = typer.Typer(
    name="homeclaw",
    cls=_ErrorBoundary,
    help="Local-first plugins and skills for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,  # its flags ignore a shell named after them; root() has ours
    context_settings={"help_option_names": ["-h", "--help"]},
)
# Every module holds its commands on its own Typer app; this is the one place that joins them.
# A part added without a name contributes its commands directly (Typer's one-file-per-command).
for command in (sync, audit, chat):
    app.add_typer(command.app)
app.add_typer(logs.app, name="logs")  # a group: logs, logs sessions, logs show ID
for command in (models, doctor, serve):
    app.add_typer(command.app)
app.add_typer(
    _group(
        "Write, inspect and run plugins.",
        plugin.app,
        plugin_install.app,
        plugin_call.app,
        own_eval.plugin_app,
        index_app("plugin"),
    ),
    name="plugin",
)
app.add_typer(_group("Show the effective configuration.", config.app), name="config")
app.add_typer(
    _group(
        "Write, inspect, test and install skills (folders with a SKILL.md).",
        skill.app,
        index_app("skill"),
        skill_lifecycle.app,
        own_eval.skill_app,
    ),
    name="skill",
)
app.add_typer(_group("Measure homeclaw (retrieval, whole chat turns).", eval_.app), name="eval")
app.add_typer(_group("Use homeclaw's plugins and skills from any MCP client.", mcp.app), name="mcp")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"homeclaw {__version__}")
        raise typer.Exit()


@app.callback()
def root(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", metavar="FILE", help="Config file (default: platform config dir)."
        ),
    ] = None,
    plugins_dir: Annotated[
        list[Path] | None,
        typer.Option(
            "--plugins-dir",
            metavar="DIR",
            help="Extra plugin folder, highest precedence. Repeatable.",
        ),
    ] = None,
    trust_workspace: Annotated[
        bool,
        typer.Option(
            "--trust-workspace",
            help="Load ./plugins and ./skills of the current folder (off: listed, not loaded).",
        ),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks, and what plugins write to stderr.")
    ] = False,
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = None,
    show_completion: ShowCompletionOpt = None,
    install_completion: InstallCompletionOpt = None,
) -> None:
    for folder in plugins_dir or []:
        hint = "give a folder that holds plugin folders"
        if not folder.expanduser().exists():
            raise missing_path(f"--plugins-dir {folder}", hint=hint)
        if not folder.expanduser().is_dir():
            raise UsageError(f"--plugins-dir {folder} is not a folder", hint=hint)
    # from ctx.params, as get_state does for shell completion, which skips this callback
    ctx.obj = AppState.from_global_options(ctx.params)
    show_debug_log(debug)


def main() -> None:
    """Console-script entry point. Output that cannot be written (`> /dev/full`, a full disk
    or quota) is one error line instead of a traceback, unless --debug asks for it."""
    try:
        try:
            app(prog_name="homeclaw")
        finally:
            sys.stdout.flush()  # what is still buffered, before the interpreter's exit would
    except OSError as exc:
        if exc.errno not in _NO_ROOM or "--debug" in sys.argv:
            raise
        sys.stderr.write(
            f"error: cannot write the output: {exc.strerror}\n"
            "hint: free some space (or send the output elsewhere), then run the command again\n"
        )
        sys.exit(int(ExitCode.FAILURE))
