"""The bundled skills with the real model (slow): what the skills' threshold shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload


@pytest.mark.slow
def test_a_skill_is_shown_for_its_task_and_not_for_a_general_question(
    run_cli: Any, hc_home: Path
) -> None:
    synced = run_cli("sync", "--json", timeout=300)
    assert synced.returncode == 0, synced.stderr

    # dense 0.28, under the skills' 0.3: both words in git-summary's text lift it over
    found = payload(run_cli("skill", "search", "do i have uncommitted changes?", "--json"))
    assert [h["id"] for h in found["hits"]] == ["git-summary"]

    # dense 0.26, close to disk-usage's example "largest files in this folder": one shared
    # word ("largest") is no reason to show the model a disk-usage workflow
    args = ["skill", "search", "largest planet in the solar system?", "--explain", "--json"]
    general = payload(run_cli(*args))
    assert general["hits"] == []
    reasons = {c["id"]: c["reason"] for c in general["candidates"]}
    assert reasons["disk-usage"].startswith("below threshold")
