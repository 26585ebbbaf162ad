"""`homeclaw plugin call` on inline (in-process Python) plugins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeclaw_cli.errors import ExitCode
from tests.json_output import payload
from tests.plugin_factory import workspace_plugins, write_plugin


def inline_plugin(
    plugin_id: str, code: str, capabilities: list[dict[str, Any]], **files: str
) -> Path:
    manifest = {
        "id": plugin_id,
        "name": plugin_id,
        "description": "A test plugin.",
        "type": "inline",
        "capabilities": capabilities,
    }
    return write_plugin(workspace_plugins(), manifest, {"plugin.py": code, **files})


def cap(cap_id: str, *params: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": cap_id,
        "name": cap_id,
        "description": "A capability.",
        "parameters": list(params),
        **extra,
    }


GREETER = """
from homeclaw_cli.sdk import BasePlugin, PluginError

class Greeter(BasePlugin):
    def initialize(self):
        print("initializing (kept off the terminal while it runs)")
        self.greeting = self.config.get("greeting", "Hello")

    def greet(self, name, times=1):
        print("noisy plugin output")
        return " ".join([f"{self.greeting}, {name}!"] * times)

    async def shout(self, name):
        return {"text": name.upper(), "length": len(name)}

    def fail_politely(self):
        raise PluginError("the greeting service is closed on Sundays")

    def crash(self):
        return {}["missing"]
"""


def greeter() -> Path:
    return inline_plugin(
        "greeter",
        GREETER,
        [
            cap(
                "greet",
                {"name": "name", "type": "string"},
                {"name": "times", "type": "number", "required": False, "default": 1},
                post_process=True,
                post_process_prompt="Make it warmer.",
            ),
            cap("shout", {"name": "name", "type": "string"}),
            cap("fail-politely"),
            cap("crash"),
        ],
        **{"config.yml": "greeting: Bonjour\n"},
    )


def test_sync_method_gets_parameters_and_config_and_prints_on_stderr(cli: Any) -> None:
    greeter()
    result = cli("plugin", "call", "greeter", "greet", "-p", "name=Ada", "-p", "times=2")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Bonjour, Ada! Bonjour, Ada!\n"
    assert (
        "initializing (kept off the terminal while it runs)\nnoisy plugin output\n" in result.stderr
    )


def test_json_outcome_carries_post_process_and_captured_prints(cli: Any) -> None:
    greeter()
    outcome = payload(cli("plugin", "call", "greeter", "greet", "-p", "name=Ada", "--json"))
    assert outcome["post_process"] is True
    assert outcome["post_process_prompt"] == "Make it warmer."
    assert "noisy plugin output" in outcome["result"]["metadata"]["printed"]


def test_async_method_returning_a_dict(cli: Any) -> None:
    greeter()
    outcome = payload(cli("plugin", "call", "greeter", "shout", "-p", "name=ada", "--json"))
    assert outcome["result"]["text"] == "ADA"
    assert outcome["result"]["metadata"]["length"] == 3


def test_an_empty_answer_is_warned_about(cli: Any) -> None:
    code = "from homeclaw_cli.sdk import BasePlugin\n\nclass Quiet(BasePlugin):\n"
    inline_plugin("quiet", code + "    def hush(self):\n        return ''\n", [cap("hush")])
    result = cli("plugin", "call", "quiet")
    assert result.exit_code == 0, result.output
    assert "warning: plugin quiet returned an empty answer" in result.stderr


def test_plugin_error_and_exceptions_become_error_results(cli: Any) -> None:
    greeter()
    polite = cli("plugin", "call", "greeter", "fail-politely")
    assert polite.exit_code == ExitCode.FAILURE
    assert "plugin greeter: the greeting service is closed on Sundays" in polite.stderr
    crash = cli("plugin", "call", "greeter", "crash")
    assert crash.exit_code == ExitCode.FAILURE
    assert "plugin greeter raised KeyError at plugin.py:19 in crash: 'missing'" in crash.stderr


def test_import_errors_are_reported_not_raised(cli: Any) -> None:
    inline_plugin(
        "broken-import",
        """
        import no_such_module_xyz
        from homeclaw_cli.sdk import BasePlugin

        class P(BasePlugin):
            def go(self):
                return 1
        """,
        [cap("go")],
    )
    result = cli("plugin", "call", "broken-import")
    assert result.exit_code == ExitCode.UNAVAILABLE
    assert "could not be loaded: importing plugin.py raised ModuleNotFoundError" in result.stderr


def test_two_plugins_with_the_same_module_names_do_not_collide(cli: Any) -> None:
    for plugin_id, word in (("left", "LEFT"), ("right", "RIGHT")):
        inline_plugin(
            plugin_id,
            """
            from homeclaw_cli.sdk import BasePlugin
            from .helpers import WORD

            class P(BasePlugin):
                def which(self):
                    return WORD
            """,
            [cap("which")],
            **{"helpers.py": f"WORD = {word!r}\n"},
        )
    assert cli("plugin", "call", "left").stdout == "LEFT\n"
    assert cli("plugin", "call", "right").stdout == "RIGHT\n"


def test_legacy_run_plugin_gets_user_input(cli: Any) -> None:
    folder = workspace_plugins() / "legacy"
    folder.mkdir()
    (folder / "config.yml").write_text("id: legacy\ndescription: An old-style plugin.\n")
    (folder / "legacy.py").write_text(
        "from homeclaw_cli.sdk import BasePlugin\n"
        "class Legacy(BasePlugin):\n"
        "    async def run(self):\n"
        "        return 'you said: ' + self.user_input\n"
    )
    result = cli("plugin", "call", "legacy", "--input", "hello there")
    assert result.exit_code == 0, result.output
    assert result.stdout == "you said: hello there\n"
    by_param = cli("plugin", "call", "legacy", "run", "-p", "input=via param")
    assert by_param.stdout == "you said: via param\n"


def test_slow_inline_plugin_times_out(cli: Any, tmp_path: Path) -> None:
    inline_plugin(
        "slowpoke",
        """
        import asyncio
        from homeclaw_cli.sdk import BasePlugin

        class P(BasePlugin):
            async def wait(self):
                await asyncio.Event().wait()
        """,
        [cap("wait")],
    )
    config = tmp_path / "config.yaml"
    config.write_text("plugins:\n  inline_timeout_sec: 0.3\n")
    result = cli("--config", str(config), "plugin", "call", "slowpoke")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin slowpoke did not finish within 0.3 s" in result.stderr


def test_sys_exit_in_a_plugin_does_not_end_homeclaw(cli: Any) -> None:
    inline_plugin(
        "quitter",
        """
        import sys
        from homeclaw_cli.sdk import BasePlugin

        class P(BasePlugin):
            def leave(self):
                sys.exit(7)
        """,
        [cap("leave")],
    )
    result = cli("plugin", "call", "quitter")
    assert result.exit_code == ExitCode.FAILURE
    assert "plugin quitter called sys.exit(7)" in result.stderr


def test_sys_exit_while_a_plugin_loads_does_not_end_homeclaw(cli: Any) -> None:
    inline_plugin(
        "early",
        """
        import sys
        from homeclaw_cli.sdk import BasePlugin

        sys.exit(3)

        class P(BasePlugin):
            def go(self):
                return "never"
        """,
        [cap("go")],
    )
    inline_plugin(
        "creator",
        """
        import sys
        from homeclaw_cli.sdk import BasePlugin

        class P(BasePlugin):
            def __init__(self, **kwargs):
                sys.exit(4)

            def go(self):
                return "never"
        """,
        [cap("go")],
    )
    early = cli("plugin", "call", "early")
    assert early.exit_code == ExitCode.UNAVAILABLE, early.output
    assert "plugin early could not be loaded: importing plugin.py called sys.exit(3)" in (
        early.stderr
    )
    assert f"hint: fix its code in {workspace_plugins() / 'early'}" in early.stderr
    assert "start its server" not in early.stderr
    creator = cli("plugin", "call", "creator")
    assert creator.exit_code == ExitCode.FAILURE, creator.output
    assert "plugin creator called sys.exit(4)" in creator.stderr
