"""A script added to an installed skill (or a plugin's skill) after its install was approved
does not run, and `update` names it instead of only saying "up to date"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.chat_plugins import fast_retrieval
from tests.fakes.index import write_plugin
from tests.fakes.ollama_server import FakeOllama, fake_ollama, text, tool_call
from tests.json_output import payload

__all__ = ["fake_ollama", "fast_retrieval"]

SKILL_MD = (
    "---\nname: notes\ndescription: Keep short notes in a file.\neffects: read\n---\nUse it.\n"
)
ALLOW = {"HOMECLAW_SKILLS__SCRIPT_ALLOWLIST": '["*"]', "HOMECLAW_NO_BUNDLED": "1"}


def write_skill(folder: Path) -> Path:
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "scripts" / "list.py").write_text("print('the notes')\n")
    return folder


def test_a_script_added_to_an_installed_skill_is_refused_and_named_by_update(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_skill(tmp_path / "notes")
    assert cli("skill", "install", str(src), "--yes").exit_code == 0
    dest = hc_home / "data" / "skills" / "notes"
    marker = tmp_path / "ran"
    (dest / "scripts" / "wipe.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (dest / "node_modules").mkdir()  # what a process adds next to the source's files
    (dest / "node_modules" / "x.js").write_text("")

    refused = cli("skill", "test", "notes", "--script", "wipe.py", env=ALLOW)
    assert refused.exit_code == 1 and not marker.exists()
    assert "scripts/wipe.py of skill 'notes'" in refused.stderr
    assert "was not part of what `homeclaw skill install` installed" in refused.stderr
    assert "(skill 'notes' has these scripts: list.py)" in refused.stderr
    assert "homeclaw skill update notes" in refused.stderr
    ran = cli("skill", "test", "notes", "--script", "list.py", env=ALLOW)
    assert ran.exit_code == 0 and ran.stdout == "the notes\n"
    assert payload(cli("skill", "show", "notes", "--json"))["scripts"] == ["list.py"]

    update = cli("skill", "update", "notes")
    assert update.exit_code == 0, update.output
    assert "notes: up to date" in update.stdout
    assert "scripts/wipe.py in " in update.stderr and "run_skill refuses them" in update.stderr
    assert "node_modules" not in update.stderr
    as_json = payload(cli("skill", "update", "notes", "--json"))
    assert as_json[0]["added_scripts"] == ["scripts/wipe.py"]


def test_chat_refuses_a_script_added_to_an_installed_skill(
    cli: Callable[..., Any],
    fake_ollama: FakeOllama,
    hc_home: Path,
    tmp_path: Path,
    fast_retrieval: object,
) -> None:
    assert cli("skill", "install", str(write_skill(tmp_path / "notes")), "--yes").exit_code == 0
    marker = tmp_path / "ran"
    added = hc_home / "data" / "skills" / "notes" / "scripts" / "wipe.py"
    added.write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    fake_ollama.add_model("llama3.2")
    call = {"skill_name": "notes", "script": "wipe.py", "args": []}
    fake_ollama.script(tool_call("run_skill", call), text("It was refused."))
    result = cli(
        "chat", "--host", fake_ollama.host, "-q", "list my short notes", "--json", env=ALLOW
    )
    assert result.exit_code == 0, result.stderr
    assert not marker.exists()
    shown = fake_ollama.chat_requests[0]["messages"][0]["content"]
    assert "<scripts>list.py</scripts>" in shown and "wipe.py" not in shown
    told = [m["content"] for m in fake_ollama.chat_requests[1]["messages"] if m["role"] == "tool"]
    assert "was not part of what `homeclaw skill install` installed" in told[0]
    assert [s["ok"] for s in payload(result)["trace"] if s["kind"] == "tool"] == [False]


def test_a_script_added_to_an_installed_plugins_skill_is_refused(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src", "jot", "Jot", "Jot down short notes in a file.")
    write_skill(src / "skills" / "notes")
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    dest = hc_home / "data" / "plugins" / "jot"
    (dest / "skills" / "notes" / "scripts" / "wipe.py").write_text("print('wiped')\n")
    refused = cli("skill", "test", "notes", "--script", "wipe.py", env=ALLOW)
    assert refused.exit_code == 1, refused.output
    assert "skills/notes/scripts/wipe.py of plugin 'jot'" in refused.stderr
    assert cli("skill", "test", "notes", "--script", "list.py", env=ALLOW).exit_code == 0
    update = cli("plugin", "update", "jot")
    assert "skills/notes/scripts/wipe.py in " in update.stderr


def test_update_records_the_scripts_of_an_entry_written_before_they_were(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    """A lockfile entry without `scripts` refuses nothing; the first update of an unchanged
    source records them, and from then on an added script is refused."""
    import json

    assert cli("skill", "install", str(write_skill(tmp_path / "notes")), "--yes").exit_code == 0
    lock_path = hc_home / "data" / "homeclaw-lock.json"
    lock = json.loads(lock_path.read_text())
    del lock["skills"]["notes"]["scripts"]  # as an older homeclaw wrote it
    lock_path.write_text(json.dumps(lock))
    (hc_home / "data" / "skills" / "notes" / "scripts" / "wipe.py").write_text("print('w')\n")
    assert cli("skill", "test", "notes", "--script", "wipe.py", env=ALLOW).exit_code == 0
    assert cli("skill", "update", "notes").exit_code == 0
    assert json.loads(lock_path.read_text())["skills"]["notes"]["scripts"] == ["scripts/list.py"]
    assert cli("skill", "test", "notes", "--script", "wipe.py", env=ALLOW).exit_code == 1
