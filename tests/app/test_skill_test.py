"""skill test: query ranking against the retrieval contract (fake retriever) and tests.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.app import skill_test
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.catalog.skill_tests import load_tests_file
from homeclaw_cli.errors import ManifestError, NotFoundError, UnavailableError
from tests.fakes.skill_retriever import FakeSkillRetriever
from tests.skill_helpers import make_skill, settings_for

TABLE = {
    "measure disk": [("du", 0.8), ("other", 0.6)],
    "tidy": [("other", 0.7), ("du", 0.5)],
    "weather": [("other", 0.2), ("du", 0.1)],
}


def setup(tmp_path: Path, tests_yaml: str | None):  # type: ignore[no-untyped-def]
    user = tmp_path / "home" / "data" / "skills"
    folder = make_skill(
        user, "du", scripts={"du.py": "import sys\nprint('total', *sys.argv[1:])\n"}
    )
    make_skill(user, "other")
    if tests_yaml is not None:
        (folder / "tests.yaml").write_text(tests_yaml)
    context = AppContext(settings_for(tmp_path))
    return context, context.skill_registry.skills["du"]


def test_check_query_reports_rank_score_and_skills_above(tmp_path: Path) -> None:
    _context, skill = setup(tmp_path, None)
    fake = FakeSkillRetriever(TABLE)
    first = skill_test.check_query(fake, skill, "measure disk", expect_rank=1)
    assert first.passed and first.rank == 1 and first.above == []
    second = skill_test.check_query(fake, skill, "tidy", expect_rank=1)
    assert not second.passed and second.rank == 2 and second.kept
    assert second.above == [{"id": "other", "rank": 1, "score": 0.7, "kept": True}]
    assert "expected rank 1 or better" in second.message
    assert skill_test.check_query(fake, skill, "tidy").passed  # offered is enough by default
    low = skill_test.check_query(fake, skill, "weather")
    assert not low.passed and "would not be offered (below threshold)" in low.message
    missing = skill_test.check_query(fake, skill, "unknown")
    assert not missing.passed and missing.rank is None and "not retrieved at all" in missing.message


def test_tests_yaml_runs_scripts_and_queries(tmp_path: Path) -> None:
    context, skill = setup(
        tmp_path,
        "queries:\n  - query: measure disk\n    expect_rank: 1\n  - query: tidy\n"
        "scripts:\n  - script: du.py\n    args: [a, b]\n    expect_stdout: total a b\n"
        "  - script: du.py\n    expect_exit: 1\n",
    )
    report = skill_test.run_tests_file(
        context, skill, retriever_factory=lambda _s: FakeSkillRetriever(TABLE)
    )
    assert [q.passed for q in report.queries] == [True, True]
    assert [s.passed for s in report.scripts] == [True, False]
    assert report.scripts[1].failures == ["exit code 0, expected 1"]
    assert not report.passed
    assert report.to_json()["passed"] is False


def test_queries_fail_with_reason_when_retrieval_is_unavailable(tmp_path: Path) -> None:
    context, skill = setup(tmp_path, "queries: [{query: x}]\nscripts: [{script: du.py}]\n")

    def unavailable(_s: object) -> FakeSkillRetriever:
        raise UnavailableError("no index here")

    report = skill_test.run_tests_file(context, skill, retriever_factory=unavailable)
    assert report.scripts[0].passed
    assert (
        not report.queries[0].passed and "not checked: no index here" in report.queries[0].message
    )


def test_missing_and_invalid_tests_yaml(tmp_path: Path) -> None:
    context, skill = setup(tmp_path, None)
    with pytest.raises(NotFoundError, match=r"no tests\.yaml"):
        skill_test.run_tests_file(context, skill)
    bad = skill.folder / "tests.yaml"
    bad.write_text("queries:\n  - query: x\n    expect_rank: 0\n")
    with pytest.raises(ManifestError, match=r"tests\.yaml:3:5: queries\[0\]\.expect_rank"):
        load_tests_file(bad)
    bad.write_text("scripts:\n  - script: a\n    unknown: 1\n")
    with pytest.raises(ManifestError, match="unknown"):
        load_tests_file(bad)


def test_refused_script_is_a_failed_check(tmp_path: Path) -> None:
    context, skill = setup(tmp_path, "scripts: [{script: ../SKILL.md}]\n")
    report = skill_test.run_tests_file(context, skill)
    assert report.scripts[0].failures[0].startswith("refused: script '../SKILL.md' contains")
