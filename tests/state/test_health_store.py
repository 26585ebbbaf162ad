"""HealthStore.record: N consecutive failures make a plugin unhealthy; one success heals it."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.state.health import HealthStore


def test_unhealthy_after_n_failures_and_back_after_one_success(tmp_path: Path) -> None:
    store = HealthStore(tmp_path)
    assert store.get("p") is None
    first = store.record("p", False, "HTTP 500", unhealthy_after=3)
    assert (first.ok, first.failures) == (True, 1)
    store.record("p", False, "HTTP 500", unhealthy_after=3)
    third = store.record("p", False, "timeout", unhealthy_after=3)
    assert (third.ok, third.failures, third.detail) == (False, 3, "timeout")
    assert store.get("p") == third
    assert store.unhealthy() == frozenset({"p"})
    healed = store.record("p", True, "HTTP 200", unhealthy_after=3)
    assert (healed.ok, healed.failures) == (True, 0)


def test_record_many_is_one_round(tmp_path: Path) -> None:
    store = HealthStore(tmp_path)
    store.set("b", False, "down")  # a failed call marks unhealthy at once
    statuses = store.record_many({"a": (True, "HTTP 200"), "b": (False, "down")}, unhealthy_after=3)
    assert statuses["a"].ok
    assert (statuses["b"].ok, statuses["b"].failures) == (False, 2)  # only a success heals
    assert store.all() == statuses
    assert statuses["a"].checked_at == statuses["b"].checked_at
    store.forget(["a", "b"])
    assert store.all() == {}
