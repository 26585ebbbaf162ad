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
        ("in 5 days", "2026-12-03"),
        ("3 weeks ago", "2026-11-07"),
        ("next month", "2026-12-28"),
        ("2 days before christmas", "2026-12-23"),
        ("the day after tomorrow", "2026-11-30"),
        ("today's date", "2026-11-28"),
        ("the date in 5 days", "2026-12-03"),
        ("date of tomorrow", "2026-11-29"),
        ("the date March 1", "2027-03-01"),
        ("Date of 12/25/2026", "2026-12-25"),
        ("the date 2027-3-1", "2027-03-01"),
        ("next saturday", "2026-12-05"),  # not today
        ("this saturday", "2026-11-28"),
        ("last saturday", "2026-11-21"),
        # a day said in words, as people dictate it (HWU64's "what is the day on twenty third
        # march" was refused)
        ("twenty third march", "2027-03-23"),
        ("march twenty-third", "2027-03-23"),
        ("april sixteenth", "2027-04-16"),
        ("the first of may", "2027-05-01"),
        ("the thirty first of december", "2026-12-31"),
        ("second of february 2028", "2028-02-02"),
        ("march the fifth", "2027-03-05"),
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
        ("the fifth", "cannot read the date 'the fifth'"),  # no month beside it
        # an ordinal that is no day of the month is not read as one (not 2 May)
        ("second monday of may", "cannot read the date 'second monday of may'"),
        ("5 clock", "'5 clock' is a time of day, not a day"),
        ("at 7:00pm", "'at 7:00pm' is a time of day"),
        ("8 PM", "'8 PM' is a time of day"),
        ("17:30", "'17:30' is a time of day"),
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
    ("when", "text"),
    [
        ("today", "Saturday 28 November 2026 (2026-11-28) is today."),
        ("tomorrow", "Sunday 29 November 2026 (2026-11-29) is tomorrow."),
        ("in 5 days", "Thursday 3 December 2026 (2026-12-03) is in 5 days."),
        ("five days from now", "Thursday 3 December 2026 (2026-12-03) is in 5 days."),
        ("2 weeks ago", "Saturday 14 November 2026 (2026-11-14) was 14 days (2 weeks) ago."),
        ("christmas", "Friday 25 December 2026 (2026-12-25) is in 27 days (3 weeks and 6 days)."),
        (
            "a month from now",
            "Monday 28 December 2026 (2026-12-28) is in 30 days (4 weeks and 2 days).",
        ),
        (
            "3 days after 2027-01-30",
            "Tuesday 2 February 2027 (2027-02-02) is in 66 days (9 weeks and 3 days).",
        ),
        ("1 month after 2027-01-31", "Sunday 28 February 2027 (2027-02-28) is in 92 days."),
        ("the day before yesterday", "Thursday 26 November 2026 (2026-11-26) was 2 days ago."),
    ],
)
def test_find_date_answers_as_asked(on_saturday: Any, when: str, text: str) -> None:
    assert on_saturday.find_date(when)["text"] == text


def test_find_date_gives_scripts_the_date_and_the_distance(on_saturday: Any) -> None:
    found = on_saturday.find_date("next friday")
    assert found["date"] == "2026-12-04" and found["days_from_today"] == 6
    assert on_saturday.find_date()["days_from_today"] == 0


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ("99999 days", "99999 days is more than a century"),
        ("400 years ago", "400 years is more than a century"),
    ],
)
def test_counts_that_are_mistakes_are_refused(on_saturday: Any, when: str, message: str) -> None:
    with pytest.raises(PluginError) as raised:
        on_saturday.find_date(when)
    assert message in str(raised.value)


def test_plugin_call_counts_from_this_computers_today(cli: Any) -> None:
    result = cli("plugin", "call", "dates", "find_date", "-pwhen=in 10 days", "--json")
    expected = dt.date.today() + dt.timedelta(days=10)
    assert result.exit_code == 0, result.output
    assert payload(result)["result"]["metadata"]["date"] == expected.isoformat()
    result = cli("plugin", "call", "dates", "find_date", "-pwhen=someday", "--json")
    assert result.exit_code == 1
    assert "cannot read the date 'someday'" in payload(result)["result"]["error"]
