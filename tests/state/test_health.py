from __future__ import annotations

from pathlib import Path

from homeclaw_cli.state.health import HealthStore


def test_failures_count_consecutive_failed_checks_and_reset_on_success(tmp_path: Path) -> None:
    store = HealthStore(tmp_path / "state")
    assert store.get("web") is None
    store.set("web", False, "down")
    second = store.set("web", False, "still down")
    assert (second.ok, second.failures, second.detail) == (False, 2, "still down")
    assert store.unhealthy() == {"web"}
    healed = store.set("web", True, "GET /health -> 200")
    assert (healed.ok, healed.failures) == (True, 0)
    assert HealthStore(tmp_path / "state").get("web") == healed


def test_a_corrupt_health_file_reads_as_empty_and_is_rewritten(tmp_path: Path) -> None:
    store = HealthStore(tmp_path)
    store.path.write_text("{not json")
    assert store.all() == {}
    store.set("a", True)
    assert set(store.all()) == {"a"}


def test_forget_removes_entries(tmp_path: Path) -> None:
    store = HealthStore(tmp_path)
    store.set("a", False)
    store.set("b", True)
    store.forget(["a"])
    assert set(store.all()) == {"b"}
