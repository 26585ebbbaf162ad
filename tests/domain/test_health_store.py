"""HealthStore: N consecutive failures make a plugin unhealthy; one success heals it."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.domain.health import HealthStatus, HealthStore


def test_unhealthy_after_n_failures_and_back_after_one_success(tmp_path: Path) -> None:
    store = HealthStore.in_state_dir(tmp_path)
    assert store.get("p") is None
    first = store.record("p", False, "HTTP 500", unhealthy_after=3)
    assert (first.ok, first.failures) == (True, 1)
    store.record("p", False, "HTTP 500", unhealthy_after=3)
    third = store.record("p", False, "timeout", unhealthy_after=3)
    assert (third.ok, third.failures, third.detail) == (False, 3, "timeout")
    assert store.get("p") == third
    healed = store.record("p", True, "HTTP 200", unhealthy_after=3)
    assert (healed.ok, healed.failures) == (True, 0)


def test_set_remove_and_a_garbled_file(tmp_path: Path) -> None:
    store = HealthStore(tmp_path / "health.json")
    store.set("a", HealthStatus(ok=False, checked_at="2026-01-01T00:00:00+00:00"))
    store.set("b", HealthStatus(ok=True, checked_at="2026-01-01T00:00:00+00:00"))
    store.remove("a")
    assert set(store.all()) == {"b"}
    (tmp_path / "health.json").write_text("{garbage")
    assert store.all() == {}
    assert store.get("b") is None
