"""The bundled skills: valid OpenClaw SKILL.md files whose scripts work offline via run_skill."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.runtime.skill_run import run_skill
from homeclaw_cli.settings import Settings, load_settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return load_settings(env={"HOMECLAW_HOME": str(tmp_path / "home")}, cwd=tmp_path)


def run(settings: Settings, skill: str, script: str, *args: str) -> tuple[int, str, str]:
    result = run_skill(settings, skill, script, list(args), registry=scan_skills(settings))
    return result.exit_code, result.stdout, result.stderr


def test_bundled_skills_load_clean_with_scripts_and_tests(settings: Settings) -> None:
    registry = scan_skills(settings)
    bundled = {s.id: s for s in registry.skills.values() if s.source == "bundled"}
    assert set(bundled) >= {"disk-usage", "data-inspect", "git-summary", "organize-files"}
    for skill in bundled.values():
        assert skill.warnings == [], skill.id
        assert skill.scripts, skill.id
        assert (skill.folder / "tests.yaml").is_file()
        assert skill.requirements.namespace == "openclaw"
    assert {Path(s).suffix for s in [*bundled["git-summary"].scripts]} == {".sh"}


def test_disk_usage(settings: Settings, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "big").mkdir(parents=True)
    (tree / "big" / "movie.mkv").write_bytes(b"x" * 300_000)
    (tree / "notes.txt").write_text("hello")
    code, out, _ = run(settings, "disk-usage", "du.py", "tree", "--top", "2")
    assert code == 0
    assert "2 files, 1 folders" in out
    assert out.index("big") < out.index("notes.txt")
    assert ".mkv" in out
    code, out, _ = run(settings, "disk-usage", "du.py", str(tree), "--json")
    data = json.loads(out)
    assert data["files"] == 2 and data["largest_files"][0][1] == "big/movie.mkv"
    code, _, err = run(settings, "disk-usage", "du.py", "does-not-exist")
    assert code == 2 and "is not a folder" in err


def test_data_inspect_csv_json_jsonl(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "people.csv").write_text("name;age;joined\nAna;31;2024-01-02\nBo;;2023-05-06\n")
    code, out, _ = run(settings, "data-inspect", "inspect.py", "people.csv")
    assert code == 0
    assert "2 records" in out and "delimiter: ';'" in out
    assert "age: int, 1 missing, range 31 .. 31" in out and "joined: date" in out
    (tmp_path / "doc.json").write_text(json.dumps({"meta": 1, "items": [{"a": 1}, {"a": 2.5}]}))
    code, out, _ = run(settings, "data-inspect", "inspect.py", "doc.json", "--json")
    report = json.loads(out)
    assert report["records_at"] == "items" and report["fields"]["a"]["type"] in (
        "int/float",
        "float/int",
    )
    (tmp_path / "log.jsonl").write_text('{"x": 1}\n\n{"x": "y"}\n')
    code, out, _ = run(settings, "data-inspect", "inspect.py", "log.jsonl")
    assert code == 0 and "2 records" in out
    (tmp_path / "bad.jsonl").write_text('{"x": 1}\n{oops\n')
    code, _, err = run(settings, "data-inspect", "inspect.py", "bad.jsonl")
    assert code == 1 and "line 2 is not JSON" in err


def test_data_inspect_names_the_file_a_shortened_path_meant(
    settings: Settings, tmp_path: Path
) -> None:
    (tmp_path / "work" / "examples").mkdir(parents=True)
    (tmp_path / "work" / "examples" / "cities.csv").write_text("name\nOslo\n")
    code, _, err = run(settings, "data-inspect", "inspect.py", "examples/cities.csv")
    assert code == 2 and "did you mean work/examples/cities.csv?" in err
    code, _, err = run(settings, "data-inspect", "inspect.py", "nowhere.csv")
    assert code == 2 and "did you mean" not in err


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_summary(settings: Settings, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=Ada", "-c", "user.email=a@x", *args],
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")
    (repo / "a.txt").write_text("1")
    git("add", "a.txt")
    git("commit", "-qm", "first commit")
    (repo / "a.txt").write_text("2")
    (repo / "new.txt").write_text("n")
    code, out, err = run(settings, "git-summary", "summary.sh", "repo", "5")
    assert code == 0, err
    assert "branch: main" in out and "commits: 1" in out
    assert "working tree: 0 staged, 1 modified, 1 untracked" in out
    assert "Ada: first commit" in out and "1\tAda" in out
    code, _, err = run(settings, "git-summary", "summary.sh", str(tmp_path))
    assert code == 2 and "not inside a git repository" in err
    code, _, err = run(settings, "git-summary", "summary.sh", "repo", "5; rm -rf /")
    assert code == 2 and "must be a number" in err


def test_organize_files_is_a_dry_run(settings: Settings, tmp_path: Path) -> None:
    mess = tmp_path / "Downloads"
    mess.mkdir()
    for name in ("a.jpg", "b.PDF", "c.tar.gz", "d.unknown", ".hidden"):
        (mess / name).write_text("x")
    (mess / "sub").mkdir()
    code, out, _ = run(settings, "organize-files", "plan.py", "Downloads", "--json")
    assert code == 0
    moves = {m["file"]: m["to"] for m in json.loads(out)["moves"]}
    assert moves == {
        "a.jpg": "Images",
        "b.PDF": "Documents",
        "c.tar.gz": "Archives",
        "d.unknown": "Other",
    }
    code, out, _ = run(settings, "organize-files", "plan.py", str(mess))
    assert "dry run, nothing moved" in out and "mv -n" in out
    assert sorted(p.name for p in mess.iterdir()) == [
        ".hidden",
        "a.jpg",
        "b.PDF",
        "c.tar.gz",
        "d.unknown",
        "sub",
    ]
