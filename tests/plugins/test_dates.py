"""The dates plugin: the dates people and models write, and the answers a user reads."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from homeclaw_cli.sdk import PluginError
from tests.json_output import payload
from tests.plugins.bundled_module import PLUGINS, bundled_module

SATURDAY = dt.date(2026, 11, 28)
dates = bundled_module("dates")


@pytest.mark.parametrize(
    ("written", "day"),
    [
        ("2027-03-01", "2027-03-01"),
        ("2027-3-1", "2027-03-01"),
        ("March 1", "2027-03-01"),  # no year: the next one
        ("1st of March 2027", "2027-03-01"),
        ("Dec 25th", "2026-12-25"),
        ("Christmas", "2026-12-25"),
        ("New Year's Day", "2027-01-01"),
        ("november 28", "2026-11-28"),  # today is the next one
        ("july 4 2026", "2026-07-04"),  # a year given is kept, even past
        ("feb 29", "2028-02-29"),  # waits for a leap year
        ("12/25/2026", "2026-12-25"),
        ("tomorrow", "2026-11-29"),
        ("Yesterday", "2026-11-27"),
        ("friday", "2026-12-04"),
        ("next saturday", "2026-12-05"),  # not today
        ("this saturday", "2026-11-28"),
        ("last saturday", "2026-11-21"),
    ],
)
def test_a_written_date_is_the_day_it_means(written: str, day: str) -> None:
    assert dates.read_date(written, SATURDAY).isoformat() == day


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("banana", "cannot read the date 'banana'; write it as YYYY-MM-DD"),
        ("2027-02-30", "'2027-02-30' is no calendar date"),
        ("March", "'March' names no day; add one, e.g. March 1"),
        ("", "no date given"),
        ("5th", "'5th' names no month"),
    ],
)
def test_an_unreadable_date_says_how_to_write_it(written: str, message: str) -> None:
    with pytest.raises(PluginError) as raised:
        dates.read_date(written, SATURDAY)
    assert message in str(raised.value)


@pytest.fixture
def on_saturday(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(dates, "today", lambda: SATURDAY)
    return dates.DatesPlugin(plugin_id="dates", folder=PLUGINS / "dates")


@pytest.mark.parametrize(
    ("shift", "text"),
    [
        ({}, "Today is Saturday 28 November 2026 (2026-11-28)."),
        ({"days": 1}, "Tomorrow is Sunday 29 November 2026 (2026-11-29)."),
        ({"days": -1}, "Yesterday was Friday 27 November 2026 (2026-11-27)."),
        (
            {"days": 5},
            "5 days from today (Saturday 28 November 2026) is Thursday 3 December 2026 "
            "(2026-12-03).",
        ),
        (
            {"weeks": -2},
            "2 weeks before today (Saturday 28 November 2026) was Saturday 14 November 2026 "
            "(2026-11-14).",
        ),
        (
            {"months": 1, "start": "2027-01-31"},  # a calendar month: the end of February
            "1 month after Sunday 31 January 2027 is Sunday 28 February 2027 (2027-02-28).",
        ),
    ],
)
def test_add_days_answers_as_asked(on_saturday: Any, shift: dict[str, Any], text: str) -> None:
    assert on_saturday.add_days(**shift)["text"] == text


def test_date_info_counts_days_both_ways(on_saturday: Any) -> None:
    ahead = on_saturday.date_info("christmas")
    assert (
        ahead["text"] == "Friday 25 December 2026 (2026-12-25) is in 27 days (3 weeks and 6 days)."
    )
    assert ahead["days_from_today"] == 27
    assert on_saturday.date_info("2026-11-28")["text"].endswith("is today.")
    assert on_saturday.date_info("2026-11-29")["text"].endswith("is tomorrow.")
    assert on_saturday.date_info("2026-11-26")["text"].endswith("was 2 days ago.")


@pytest.mark.parametrize(
    ("shift", "message"),
    [
        ({"days": 99_999_999}, "99999999 days is more than a century"),
        ({"days": 2, "months": -1}, "count either forward or back"),
        ({"days": 3, "weeks": -1}, "count either forward or back"),
    ],
)
def test_add_days_refuses_counts_that_are_mistakes(
    on_saturday: Any, shift: dict[str, int], message: str
) -> None:
    with pytest.raises(PluginError) as raised:
        on_saturday.add_days(**shift)
    assert message in str(raised.value)


def test_plugin_call_counts_from_this_computers_today(cli: Any) -> None:
    result = cli("plugin", "call", "dates", "add_days", "-pdays=10", "--json")
    expected = dt.date.today() + dt.timedelta(days=10)
    assert result.exit_code == 0, result.output
    assert payload(result)["result"]["metadata"]["date"] == expected.isoformat()
    result = cli("plugin", "call", "dates", "date_info", "-pdate=someday", "--json")
    assert result.exit_code == 1
    assert "cannot read the date 'someday'" in payload(result)["result"]["error"]
