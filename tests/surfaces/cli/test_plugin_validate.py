"""Every validation rule, proven through `homeclaw plugin validate`."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload

VALID = """\
id: demo
name: Demo
description: A demo plugin.
type: subprocess
config:
  command: python3
  args: [main.py]
capabilities:
  - id: greet
    name: Greet
    description: Say hello.
    examples: [say hello to Ada]
    parameters:
      - name: who
        type: string
        required: false
        default: world
"""


def write_plugin(root: Path, text: str, name: str = "plugin.yaml", folder: str = "demo") -> Path:
    plugin = root / folder
    plugin.mkdir(parents=True, exist_ok=True)
    (plugin / name).write_text(textwrap.dedent(text))
    if not (plugin / "main.py").exists():
        (plugin / "main.py").write_text("print('{}')\n")  # VALID's script
    return plugin


def validate_json(cli: Any, *paths: Path, strict: bool = False) -> tuple[int, dict[str, Any]]:
    args = ["plugin", "validate", *map(str, paths), "--json"] + (["--strict"] if strict else [])
    result = cli(*args)
    return result.exit_code, payload(result)


def only_plugin(report: dict[str, Any]) -> dict[str, Any]:
    assert len(report["plugins"]) == 1
    plugin: dict[str, Any] = report["plugins"][0]
    return plugin


def test_valid_plugin_exits_zero(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID)
    result = cli("plugin", "validate", str(folder))
    assert result.exit_code == 0, result.output
    assert "demo" in result.stdout


@pytest.mark.parametrize("name", ["plugin.yml", "plugin.json"])
def test_alternative_manifest_names(cli: Any, tmp_path: Path, name: str) -> None:
    import yaml

    text = VALID if name.endswith("yml") else json.dumps(yaml.safe_load(VALID), indent=2)
    folder = write_plugin(tmp_path, text, name=name)
    code, report = validate_json(cli, folder)
    assert code == 0
    assert only_plugin(report)["id"] == "demo"


def test_a_second_manifest_in_the_folder_is_named_as_ignored(cli: Any, tmp_path: Path) -> None:
    import yaml

    folder = write_plugin(tmp_path, VALID)
    edited = {**yaml.safe_load(VALID), "description": "The description I edited."}
    (folder / "plugin.json").write_text(json.dumps(edited), encoding="utf-8")
    code, report = validate_json(cli, folder)
    assert code == 0
    (warning,) = only_plugin(report)["warnings"]
    assert warning["file"].endswith("plugin.json") and warning["code"] == "ignored-manifest"
    assert warning["message"].startswith("plugin.json is ignored: plugin.yaml in the same folder")
    assert "delete plugin.json" in warning["hint"]
    assert validate_json(cli, folder, strict=True)[0] == 1
    (folder / "plugin.json").unlink()
    assert only_plugin(validate_json(cli, folder, strict=True)[1])["warnings"] == []


def test_yaml_syntax_error_has_line_and_column(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, "id: demo\nname: [unclosed\ndescription: x\n")
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["code"] == "syntax"
    assert error["line"] == 3 and error["column"] is not None


def test_json_syntax_error_has_line_and_column(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, '{\n  "id": "demo",\n  "name": \n}\n', name="plugin.json")
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["code"] == "syntax" and error["line"] == 4 and error["column"] == 1


def test_schema_error_names_field_path_and_line(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID.replace("type: string", "type: str"))
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "capabilities[0].parameters[0].type"
    assert error["line"] == 15
    assert "'string'" in error["message"] and "'str'" in error["message"]


SCHEMA_PARAM = """\
      - name: who
        type: {kind}
        json_schema: {schema}
"""


@pytest.mark.parametrize(
    ("kind", "schema", "field", "said"),
    [
        ("object", "{properties: 5}", "json_schema.properties", "properties must map each"),
        ("object", "{type: objct}", "json_schema.type", "json_schema type 'objct' differs"),
        (
            "object",
            "{properties: {city: {type: strng}}}",
            "json_schema.properties.city.type",
            "type 'strng' is not a JSON Schema type",
        ),
        (
            "object",
            "{properties: {city: {type: string}}, required: [cty]}",
            "json_schema.required",
            "required names 'cty', which is not in properties",
        ),
        ("array", "{items: [1]}", "json_schema.items[0]", "a schema must be a mapping"),
        ("array", "{items: {type: string, enum: []}}", "json_schema.items.enum", "non-empty"),
    ],
)
def test_a_broken_json_schema_is_named_with_its_path(
    cli: Any, tmp_path: Path, kind: str, schema: str, field: str, said: str
) -> None:
    head = VALID[: VALID.index("    parameters:\n")] + "    parameters:\n"
    folder = write_plugin(tmp_path, head + SCHEMA_PARAM.format(kind=kind, schema=schema))
    code, report = validate_json(cli, folder)
    assert code == 1
    (error,) = only_plugin(report)["errors"]
    assert error["field"] == f"capabilities[0].parameters[0].{field}", error
    assert said in error["message"] and error["line"] is not None
    good = "{properties: {city: {type: string}}}" if kind == "object" else "{items: {type: string}}"
    fixed = write_plugin(tmp_path, head + SCHEMA_PARAM.format(kind=kind, schema=good), folder="ok")
    assert validate_json(cli, fixed, strict=True)[0] == 0


def test_required_may_name_properties_a_composed_schema_brings(cli: Any, tmp_path: Path) -> None:
    head = VALID[: VALID.index("    parameters:\n")] + "    parameters:\n"
    schema = "{properties: {city: {type: string}}, additionalProperties: true, required: [zip]}"
    folder = write_plugin(tmp_path, head + SCHEMA_PARAM.format(kind="object", schema=schema))
    assert validate_json(cli, folder, strict=True)[0] == 0


def test_an_empty_enum_is_an_error(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(
        tmp_path, VALID.replace("default: world", "default: world\n        enum: []")
    )
    code, report = validate_json(cli, folder)
    assert code == 1
    (error,) = only_plugin(report)["errors"]
    assert error["field"] == "capabilities[0].parameters[0].enum"
    assert "empty enum allows no value" in error["message"]


def test_missing_required_field(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID.replace("name: Demo\n", ""))
    code, report = validate_json(cli, folder)
    assert code == 1
    assert only_plugin(report)["errors"][0]["message"] == "missing required field `name`"


def test_unknown_field_suggests_the_right_one(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(
        tmp_path, VALID.replace("    description: Say hello.", "    descripton: Say hello.")
    )
    result = cli("plugin", "validate", str(folder))
    assert result.exit_code == 1
    assert "unknown field `descripton` (did you mean `description`?)" in result.stdout
    assert "capabilities[0].descripton" in result.stdout
    assert "plugin.yaml:11:" in result.stdout


def test_unknown_config_field_suggests_from_that_type(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID.replace("  args: [main.py]", "  arg: [main.py]"))
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "config.arg" and "did you mean `args`" in error["message"]


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("id: demo", "id: Demo Plugin", "id"),
        ("  - id: greet", "  - id: -greet", "capabilities[0].id"),
    ],
)
def test_ids_must_match_the_pattern(
    cli: Any, tmp_path: Path, old: str, new: str, field: str
) -> None:
    folder = write_plugin(tmp_path, VALID.replace(old, new))
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == field and "[a-z0-9][a-z0-9_-]*" in error["message"]


@pytest.mark.parametrize(
    ("plugin_id", "said"),
    [
        ("my__notes", "must not contain '__', which separates a plugin from its capability"),
        ("skill", "`homeclaw mcp serve` names the skills' tools skill__<skill id>"),
    ],
)
def test_ids_that_would_make_tool_names_ambiguous_are_refused(
    cli: Any, tmp_path: Path, plugin_id: str, said: str
) -> None:
    """`a__b` + capability `c` and `a` + capability `b__c` would both be the tool `a__b__c`,
    and a plugin `skill` would stand in for the skills' tools over MCP."""
    folder = write_plugin(tmp_path, VALID.replace("id: demo", f"id: {plugin_id}"))
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "id" and said in error["message"], error


def test_duplicate_capability_ids(cli: Any, tmp_path: Path) -> None:
    extra = "  - id: greet\n    name: Again\n    description: Duplicate.\n"
    folder = write_plugin(tmp_path, VALID + extra)
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "capabilities[1].id" and error["line"] == 18
    assert "duplicate capability id 'greet'" in error["message"]


def test_duplicate_parameter_names(cli: Any, tmp_path: Path) -> None:
    extra = "      - name: who\n        type: number\n"
    folder = write_plugin(tmp_path, VALID + extra)
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "capabilities[0].parameters[1].name"
    assert "duplicate parameter name 'who'" in error["message"]


def test_default_must_match_parameter_type(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID.replace("default: world", "default: 42"))
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "capabilities[0].parameters[0].default" and error["line"] == 17
    assert "is not a string" in error["message"]


def test_unused_post_process_prompt_is_a_warning_and_an_error_under_strict(
    cli: Any, tmp_path: Path
) -> None:
    # Turning post-processing off must not break a working plugin: the prompt is just unused.
    folder = write_plugin(tmp_path, VALID + "    post_process_prompt: Summarize.\n")
    code, report = validate_json(cli, folder)
    assert code == 0
    warning = only_plugin(report)["warnings"][0]
    assert warning["field"] == "capabilities[0].post_process_prompt"
    assert "post_process: true" in warning["hint"]
    code, report = validate_json(cli, folder, strict=True)
    assert code == 1


def test_method_and_path_only_on_http_plugins(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID + "    method: POST\n")
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "capabilities[0].method" and "only http plugins" in error["message"]


def test_http_base_url_must_be_a_url(cli: Any, tmp_path: Path) -> None:
    text = VALID.replace("type: subprocess", "type: http").replace(
        "  command: python3\n  args: [main.py]", "  base_url: localhost:3100"
    )
    folder = write_plugin(tmp_path, text)
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["field"] == "config.base_url" and "not an http(s) URL" in error["message"]


def test_inline_capability_needs_a_matching_method(cli: Any, tmp_path: Path) -> None:
    text = VALID.replace("type: subprocess", "type: inline").replace(
        "config:\n  command: python3\n  args: [main.py]\n", ""
    )
    folder = write_plugin(tmp_path, text)
    (folder / "plugin.py").write_text(
        "from homeclaw_cli.sdk import BasePlugin\n\n"
        "class Demo(BasePlugin):\n    def greeet(self, who='x'):\n        return who\n"
    )
    code, report = validate_json(cli, folder)
    assert code == 1
    error = only_plugin(report)["errors"][0]
    assert error["code"] == "inline-method" and "did you mean `greeet`" in error["message"]
    (folder / "plugin.py").write_text(
        "from homeclaw_cli.sdk import BasePlugin\n\nclass Demo(BasePlugin):\n"
        "    async def greet(self, who='x'):\n        raise SystemExit('never imported')\n"
    )
    assert validate_json(cli, folder)[0] == 0


def test_missing_command_is_a_warning_and_strict_makes_it_an_error(
    cli: Any, tmp_path: Path
) -> None:
    folder = write_plugin(
        tmp_path, VALID.replace("command: python3", "command: no-such-binary-xyz")
    )
    code, report = validate_json(cli, folder)
    assert code == 0
    assert only_plugin(report)["warnings"][0]["code"] == "command-not-found"
    code, report = validate_json(cli, folder, strict=True)
    assert code == 1 and report["valid"] is False


def test_long_description_warns_with_token_count(cli: Any, tmp_path: Path) -> None:
    long = "Does many things for many people in many situations. " * 12
    folder = write_plugin(
        tmp_path, VALID.replace("description: A demo plugin.", f"description: {long}")
    )
    code, report = validate_json(cli, folder)
    assert code == 0
    warning = only_plugin(report)["warnings"][0]
    assert warning["code"] == "description-length" and "tokens" in warning["message"]


def test_alias_bomb_is_refused_quickly(cli: Any, tmp_path: Path) -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    folder = write_plugin(tmp_path, "\n".join(lines) + "\n")
    started = time.perf_counter()
    code, report = validate_json(cli, folder)
    assert time.perf_counter() - started < 2
    assert code == 1 and "alias" in only_plugin(report)["errors"][0]["message"]


def test_huge_file_is_refused_without_reading_it(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "huge"
    folder.mkdir()
    with (folder / "plugin.yaml").open("wb") as handle:
        handle.truncate(100 * 1024 * 1024)
    code, report = validate_json(cli, folder)
    assert code == 1 and "limited to 1.0 MiB" in only_plugin(report)["errors"][0]["message"]


def test_binary_junk_is_refused(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "junk"
    folder.mkdir()
    (folder / "plugin.yaml").write_bytes(bytes(range(256)) * 10)
    code, report = validate_json(cli, folder)
    assert code == 1 and "binary" in only_plugin(report)["errors"][0]["message"]


def test_non_mapping_document(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, "- just\n- a list\n")
    code, report = validate_json(cli, folder)
    assert code == 1 and "must be a mapping" in only_plugin(report)["errors"][0]["message"]


def test_missing_path_is_not_found(cli: Any, tmp_path: Path) -> None:
    result = cli("plugin", "validate", str(tmp_path / "nope"))
    assert result.exit_code == 4
    assert "no such file or folder" in result.stderr


def test_folder_of_plugins_validates_each(cli: Any, tmp_path: Path) -> None:
    root = tmp_path / "many"
    write_plugin(root, VALID, folder="one")
    write_plugin(root, VALID.replace("id: demo", "id: two"), folder="two")
    write_plugin(root, "id: [", folder="broken")
    code, report = validate_json(cli, root)
    assert code == 1
    assert [p["valid"] for p in report["plugins"]] == [False, True, True]


def test_legacy_config_yml_plugin_loads_as_inline(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "legacy"
    folder.mkdir()
    (folder / "config.yml").write_text("id: legacy\ndescription: An old-style plugin.\napiKey: x\n")
    (folder / "legacy_plugin.py").write_text(
        "from base.BasePlugin import BasePlugin\n\nclass Legacy(BasePlugin):\n"
        "    async def run(self):\n        return 'hi'\n"
    )
    code, report = validate_json(cli, folder)
    assert code == 0
    assert only_plugin(report)["legacy"] is True and only_plugin(report)["id"] == "legacy"
    (folder / "config.yml").write_text("description: no id\n")
    code, report = validate_json(cli, folder)
    assert code == 1 and "`id`" in only_plugin(report)["errors"][0]["message"]


def test_bundled_plugins_are_valid(cli: Any) -> None:
    from tests.conftest import REPO_ROOT

    code, report = validate_json(cli, REPO_ROOT / "plugins", strict=True)
    assert code == 0, report


def test_examples_errors_name_the_item_line_and_fix(cli: Any, tmp_path: Path) -> None:
    text = VALID.replace("[say hello to Ada]", "[hi Bob, hi  bob, ok]")
    folder = write_plugin(
        tmp_path, text.replace("type: subprocess", "examples: x\ntype: subprocess")
    )
    code, report = validate_json(cli, folder)
    assert code == 1
    errors = {e["field"]: e for e in only_plugin(report)["errors"]}
    assert "must be a list" in errors["examples"]["message"]
    assert errors["capabilities[0].examples[1]"]["line"] == 13
    assert "repeats example 1; remove one" in errors["capabilities[0].examples[1]"]["message"]


def test_not_for_errors_name_the_item_line_and_fix(cli: Any, tmp_path: Path) -> None:
    """not_for follows the examples' rules, and a request may not be in both lists."""
    text = VALID.replace(
        "type: subprocess", "not_for: [set an alarm, Say hello to  ADA]\ntype: subprocess"
    )
    code, report = validate_json(cli, write_plugin(tmp_path, text))
    assert code == 1
    errors = {e["field"]: e for e in only_plugin(report)["errors"]}
    both = errors["not_for[1]"]
    assert both["line"] == 4
    assert "is both an example and a not_for request; keep it in one" in both["message"]
    listed = VALID.replace("type: subprocess", "not_for: set an alarm\ntype: subprocess")
    code, report = validate_json(cli, write_plugin(tmp_path, listed, folder="listed"))
    assert code == 1
    message = only_plugin(report)["errors"][0]["message"]
    assert message.startswith('not_for must be a list of requests, e.g. not_for: ["')
    repeated = VALID.replace("type: subprocess", "not_for: [a timer, A  timer]\ntype: subprocess")
    code, report = validate_json(cli, write_plugin(tmp_path, repeated, folder="repeated"))
    assert code == 1
    errors = {e["field"]: e for e in only_plugin(report)["errors"]}
    assert "repeats not_for request 1; remove one" in errors["not_for[1]"]["message"]


def test_strict_fails_a_subprocess_plugin_whose_script_is_missing(cli: Any, tmp_path: Path) -> None:
    folder = write_plugin(tmp_path, VALID.replace("args: [main.py]", "args: [-u, mian.py]"))
    (folder / "main.py").write_text("print('{}')\n")
    lenient = cli("plugin", "validate", str(folder))
    assert lenient.exit_code == 0, lenient.output
    assert "config.args[1]: script 'mian.py' does not exist" in lenient.stdout
    strict = cli("plugin", "validate", str(folder), "--strict", "--json")
    assert strict.exit_code == 1
    codes = [w["code"] for w in payload(strict)["plugins"][0]["warnings"]]
    assert codes == ["script-not-found"]
    (folder / "plugin.yaml").write_text(textwrap.dedent(VALID))
    assert cli("plugin", "validate", str(folder), "--strict").exit_code == 0


def test_a_plugin_dir_script_is_checked_where_the_runner_finds_it(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = '["{plugin_dir}/main.py", "{plugin_data}/state.py", "{plugin_dir}/mian.py"]'
    folder = write_plugin(tmp_path, VALID.replace("args: [main.py]", f"args: {args}"))
    monkeypatch.chdir(tmp_path)  # a relative folder, as `plugin validate demo` gives
    result = cli("plugin", "validate", "demo", "--strict", "--json")
    assert result.exit_code == 1
    warnings = payload(result)["plugins"][0]["warnings"]
    assert [(w["code"], w["field"]) for w in warnings] == [("script-not-found", "config.args[2]")]
    (folder / "mian.py").write_text("print('{}')\n")
    assert cli("plugin", "validate", "demo", "--strict").exit_code == 0


INLINE = """\
id: shop
name: Shop
description: A shop.
examples: [add milk to the shopping list]
type: inline
capabilities:
  - id: add-item
    name: Add item
    description: Add an item to the list.
    effects: write
    parameters:
      - {name: item, type: string}
      - {name: count, type: integer, required: false, default: 1}
"""


@pytest.mark.parametrize(
    ("signature", "problem"),
    [
        ("def add_item(self, item, count=1)", None),
        ("def add_item(self, item, **rest)", None),
        ("async def add_item(self, *, item: str, count: int = 1)", None),
        ("def add_item(self, item)", "does not accept declared parameter(s) count"),
        ("def add_item(self, item, count, shelf)", "requires shelf, which the capability"),
    ],
)
def test_strict_checks_an_inline_method_accepts_the_declared_parameters(
    cli: Any, tmp_path: Path, signature: str, problem: str | None
) -> None:
    folder = write_plugin(tmp_path, INLINE, folder="shop")
    (folder / "plugin.py").write_text(
        "from homeclaw_cli.sdk import BasePlugin\n\n\nclass Shop(BasePlugin):\n"
        f"    {signature}:\n        return 'ok'\n"
    )
    result = cli("plugin", "validate", str(folder), "--strict")
    if problem is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1
        assert "capabilities[0].parameters" in result.stdout and problem in result.stdout


def test_a_plugin_without_example_requests_is_warned_and_strict_fails_it(
    cli: Any, tmp_path: Path
) -> None:
    folder = write_plugin(tmp_path, VALID.replace("    examples: [say hello to Ada]\n", ""))
    code, report = validate_json(cli, folder)
    assert code == 0
    (warning,) = only_plugin(report)["warnings"]
    assert (warning["code"], warning["field"]) == ("examples-missing", "examples")
    assert "sync --expand" in warning["hint"]
    assert validate_json(cli, folder, strict=True)[0] == 1


def test_the_plugins_own_examples_speak_for_its_only_capability(cli: Any, tmp_path: Path) -> None:
    text = VALID.replace("    examples: [say hello to Ada]\n", "")
    folder = write_plugin(
        tmp_path, text.replace("type: subprocess", "examples: [hi Ada]\ntype: subprocess")
    )
    code, report = validate_json(cli, folder, strict=True)
    assert code == 0, report


def test_capabilities_without_examples_are_named(cli: Any, tmp_path: Path) -> None:
    two = VALID.replace("type: subprocess", "examples: [hi Ada]\ntype: subprocess") + (
        "  - id: wave\n    name: Wave\n    description: Wave at someone.\n"
    )
    code, report = validate_json(cli, write_plugin(tmp_path, two))
    assert code == 0
    (warning,) = only_plugin(report)["warnings"]
    assert warning["field"] == "capabilities"
    assert "1 capabilities have no example requests (wave)" in warning["message"]
    assert "do not say which capability" in warning["message"]


def test_a_tool_name_too_long_for_openai_compatible_servers_is_warned(
    cli: Any, tmp_path: Path
) -> None:
    long_id = "a" * 40
    text = VALID.replace("id: demo", f"id: {long_id}").replace("- id: greet", "- id: " + "g" * 23)
    folder = write_plugin(tmp_path, text)
    code, report = validate_json(cli, folder)
    assert code == 0
    (warning,) = only_plugin(report)["warnings"]
    assert warning["code"] == "tool-name-too-long" and warning["field"] == "capabilities[0].id"
    assert f"tool name '{long_id}__{'g' * 23}' is 65 characters" in warning["message"]
    assert warning["hint"] == "shorten the plugin id or the capability id by 1 character"
    assert validate_json(cli, folder, strict=True)[0] == 1
    fits = write_plugin(tmp_path, text.replace("g" * 23, "g" * 22), folder="fits")
    assert validate_json(cli, fits, strict=True)[0] == 0
