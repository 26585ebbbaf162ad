"""How `--help` reads: TEXT / INTEGER / PATH placeholders, argument names such as PLUGIN_ID,
no type on a flag, and the commands of each group in the order a user meets them.

Typer 0.29 prints Python types (`<str>`, `<int>`, `<bool>`) and a command's parameters in
the order they were declared; this pass runs once over the built command tree (main.py's
_ErrorBoundary.main) and sets the placeholders and the order. Parsing is unaffected.
"""

from __future__ import annotations

from typing import Any, get_args

from typer.core import TyperArgument, TyperGroup, TyperOption

HELP_NAMES = ("-h", "--help")  # the root's context_settings; subcommands inherit them
_PLACEHOLDERS: dict[Any, str] = {str: "TEXT", int: "INTEGER", float: "FLOAT", bool: "BOOLEAN"}

# The order commands are listed in; a command not named here comes after these, as declared.
ORDER: dict[str, tuple[str, ...]] = {
    "": (
        "chat",
        "plugin",
        "skill",
        "sync",
        "doctor",
        "models",
        "config",
        "logs",
        "audit",
        "serve",
        "mcp",
        "eval",
    ),
    "plugin": (
        "new",
        "validate",
        "install",
        "list",
        "show",
        "search",
        "call",
        "health",
        "eval",
        "update",
        "enable",
        "disable",
        "remove",
        "register",
        "unregister",
        "mcp-import",
        "sync",
    ),
    "skill": (
        "new",
        "validate",
        "test",
        "install",
        "list",
        "show",
        "search",
        "update",
        "enable",
        "disable",
        "remove",
        "sync",
    ),
}


def placeholder(param: TyperArgument | TyperOption) -> str:
    """What a value of `param` looks like in help: TEXT, INTEGER, PATH, a|b|c; '' for a flag."""
    if isinstance(param, TyperOption) and (param.is_flag or param.count):
        return ""
    descriptor = param.type_descriptor
    if descriptor.choices is not None:
        return "|".join(str(getattr(c, "value", c)) for c in descriptor.choices)
    if descriptor.is_path:
        return "PATH"
    annotation = descriptor.annotation
    if descriptor.is_list:
        annotation = get_args(annotation)[0]
    return _PLACEHOLDERS.get(annotation, "TEXT")


def _usage_name(param: TyperArgument) -> str:
    name = param.display_name_raw
    name = name if param.required else f"[{name}]"
    return name + ("..." if param.nargs != 1 else "")


def style_command(command: Any, path: str = "") -> None:
    """Set help placeholders on every parameter below `command`, and order its subcommands."""
    for param in getattr(command, "params", []):
        if isinstance(param, TyperArgument):
            label = placeholder(param)
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
            # instance attributes: only the help text changes, not how values are parsed
            setattr(param, "display_type_rich", lambda ctx, label=label: label)  # noqa: B010
            setattr(param, "_usage_display_name", lambda param=param: _usage_name(param))  # noqa: B010
        elif isinstance(param, TyperOption) and param.metavar is None:
            param.metavar = placeholder(param)
    if getattr(command, "_help_option", False) is None and command.add_help_option:
        # made here, once, as Typer would on first use, so that it too shows no `<bool>`
        from typer._click.decorators import help_option

        help_option(list(HELP_NAMES))(command)
        command._help_option = command.params.pop()
        command._help_option.metavar = ""
    if isinstance(command, TyperGroup):
        order = ORDER.get(path, ())
        rank = {name: i for i, name in enumerate(order)}
        names = sorted(command.commands, key=lambda n: rank.get(n, len(order)))
        command.commands = {name: command.commands[name] for name in names}
        for name, sub in command.commands.items():
            style_command(sub, f"{path} {name}".strip())
