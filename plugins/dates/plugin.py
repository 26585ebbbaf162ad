"""Calendar arithmetic on this computer's calendar: a day's date, weekday and distance.

A day is read however a person says it, so a model can pass the user's words on rather than
work the date out (small models get that arithmetic wrong): `tomorrow`, `in 5 days`, `2 weeks
ago`, `3 days after March 1`, `the day after tomorrow`, `next friday`, `Christmas`,
`2027-03-01`, `1st of March 2027`, `Dec 25th`. Without a year a date is the next such day
(today included), since people ask how long *until* a day; a year given is kept, so "how long
since 2026-07-04" counts back.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

from homeclaw_cli.sdk import BasePlugin, PluginError

# Holidays on the same day every year; a movable one (Easter, Thanksgiving) needs its date.
FIXED_HOLIDAYS = {
    "christmas": (12, 25),
    "christmas day": (12, 25),
    "xmas": (12, 25),
    "christmas eve": (12, 24),
    "boxing day": (12, 26),
    "new year": (1, 1),
    "new years": (1, 1),
    "new years day": (1, 1),
    "new years eve": (12, 31),
    "halloween": (10, 31),
    "valentines day": (2, 14),
    "valentines": (2, 14),
}
RELATIVE_DAYS = {
    "today": 0,
    "now": 0,
    "tomorrow": 1,
    "yesterday": -1,
    "the day after tomorrow": 2,
    "day after tomorrow": 2,
    "the day before yesterday": -2,
    "day before yesterday": -2,
}
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen")
NUMBER_WORDS = {word: n for n, word in enumerate((*_ONES, *_TEENS, "eighteen", "nineteen"))}
NUMBER_WORDS |= {"twenty": 20, "a": 1, "an": 1}
UNIT_DAYS = {"day": 1, "week": 7}
UNIT_MONTHS = {"month": 1, "year": 12}
_COUNT = r"(\d+|" + "|".join(NUMBER_WORDS) + r")\s+(day|week|month|year)s?"
# `in 5 days`, `5 days from now`, `5 days` (ahead); `2 weeks ago`; `3 days after march 1`
_AHEAD = re.compile(rf"^(?:in\s+)?{_COUNT}(?:\s+(?:from\s+(?:now|today)|later|ahead|time))?$")
_AGO = re.compile(rf"^{_COUNT}\s+(?:ago|back|before\s+today|earlier)$")
_FROM_DAY = re.compile(rf"^{_COUNT}\s+(after|from|before)\s+(.+)$")
_POSSESSIVE_DAY = re.compile(r"\b(today|tomorrow|yesterday)s\b")
_DATE_WORDS = re.compile(
    r"^\s*(?:the\s+)?dates?(?:\s+(?:of|for|on))?\s+|\s+dates?\s*$", re.IGNORECASE
)
_NEXT_UNIT = re.compile(r"^(next|last|this)\s+(week|month|year)$")
WEEKDAYS = [name.lower() for name in calendar.day_name]
# Beyond this a count is a mistake (a year or a timestamp passed as days), not a question.
MAX_DAYS = 100 * 366
_WEEKDAY_PHRASE = re.compile(r"^(?:(next|this|coming|last)\s+)?(" + "|".join(WEEKDAYS) + r")$")
_ISO = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")
# A day of the month said in words, as people dictate it: "april sixteenth", "twenty third march".
_ORDINALS = {
    word: n
    for n, word in enumerate(
        re.findall(
            r"\w+",
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth",
        ),
        start=1,
    )
} | {"twentieth": 20, "thirtieth": 30}
_MONTH = "(?:" + "|".join(name.lower() for name in calendar.month_name if name) + ")"


def _day_words(n: int) -> str:
    return rf"(?:the\s+)?(?:(?P<tens{n}>twenty|thirty)[\s-]+)?(?P<day{n}>{'|'.join(_ORDINALS)})"


# only next to a month: "the second monday of may" is no day of the month
_SPOKEN_DAY = re.compile(
    rf"\b{_day_words(1)}(?:\s+of)?(?=\s+{_MONTH}\b)|\b(?P<month>{_MONTH})\s+{_day_words(2)}\b",
    re.IGNORECASE,
)
# `5 clock`, `8pm`, `at 7:00 pm`, `noon`: an hour, which names no day
_TIME_OF_DAY = re.compile(
    r"^(?:at\s+)?(?:\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'?\s*clock|clock|h)"
    r"|\d{1,2}:\d{2}|noon|midnight)$",
    re.IGNORECASE,
)


def today() -> dt.date:
    return dt.date.today()


def _key(text: str) -> str:
    """`New Year's Day!` -> `new years day`; `today's date`, `the date in 5 days`, `date of
    tomorrow` -> `today`, `in 5 days`, `tomorrow` (the words around a day, as models copy them)."""
    key = " ".join(re.sub(r"[^a-z0-9 ]", "", text.lower().replace("-", " ")).split())
    key = _POSSESSIVE_DAY.sub(r"\1", key)
    return _DATE_WORDS.sub("", key).strip()


def _weekday_date(when: str, base: dt.date) -> dt.date | None:
    """`friday`, `next friday` (the coming one: a week on when `base` is a Friday), `last
    friday` (a week back when `base` is one), counted from `base`."""
    found = _WEEKDAY_PHRASE.match(when)
    if not found:
        return None
    which, name = found.groups()
    ahead = (WEEKDAYS.index(name) - base.weekday()) % 7
    if which == "last":
        return base - dt.timedelta(days=(7 - ahead) % 7 or 7)
    if which == "next" and ahead == 0:
        ahead = 7
    return base + dt.timedelta(days=ahead)


def _next_occurrence(month: int, day: int, base: dt.date) -> dt.date:
    """The first `month`/`day` on or after `base` (29 February waits for a leap year)."""
    for year in range(base.year, base.year + 9):
        try:
            candidate = dt.date(year, month, day)
        except ValueError:
            continue
        if candidate >= base:
            return candidate
    raise PluginError(f"there is no day {day} in month {month}")


def _calendar_date(text: str, base: dt.date, said: str) -> dt.date:
    """A written date (`March 1`, `1 March 2027`, `12/25/2026`), via dateutil's parser;
    `said` is how the user wrote it, which the errors quote."""
    from dateutil import parser  # only a call that reads a written date pays for the import

    first = dt.datetime(1904, 1, 1)  # two defaults tell a year given from a year filled in
    second = dt.datetime(1908, 2, 2)
    try:
        parsed = parser.parse(text, default=first).date()
        check = parser.parse(text, default=second).date()
    except (ValueError, OverflowError):
        raise PluginError(
            f"cannot read the date {said!r}; write it as YYYY-MM-DD (e.g. 2027-03-01) "
            "or with the month's name (e.g. March 1)"
        ) from None
    if parsed.year == check.year:
        return parsed
    if parsed.day != check.day:  # a month alone ("March"): no day to count to
        raise PluginError(f"{said!r} names no day; add one, e.g. {said.strip()} 1")
    if parsed.month != check.month:  # a day alone ("5th"): which month is a guess
        raise PluginError(f"{said!r} names no month; write it as YYYY-MM-DD, e.g. 2027-03-01")
    return _next_occurrence(parsed.month, parsed.day, base)


def read_date(text: str, base: dt.date) -> dt.date:
    """The day `text` means, counted from `base` when it is relative."""
    when = _key(text)
    if not when:
        raise PluginError("no date given; write it as YYYY-MM-DD, e.g. 2027-03-01")
    if when in RELATIVE_DAYS:
        return base + dt.timedelta(days=RELATIVE_DAYS[when])
    if (counted := _counted_day(when, base)) is not None:
        return counted
    if when in FIXED_HOLIDAYS:
        return _next_occurrence(*FIXED_HOLIDAYS[when], base)
    if (weekday := _weekday_date(when, base)) is not None:
        return weekday
    written = _DATE_WORDS.sub("", text).strip()  # "the date 12/25/2027": punctuation kept
    if _TIME_OF_DAY.match(written):
        # no example day here: a model told "e.g. today" asks for today, whatever was meant
        raise PluginError(f"{written!r} is a time of day, not a day: find_date reads days only")
    if _ISO.match(written):
        try:
            return dt.date.fromisoformat("-".join(p.zfill(2) for p in written.split("-")))
        except ValueError:
            raise PluginError(f"{written!r} is no calendar date") from None
    return _calendar_date(_SPOKEN_DAY.sub(_day_number, written), base, written)


def _day_number(match: re.Match[str]) -> str:
    """The digits of a day said in words ("twenty third": 23), which dateutil reads."""
    n = 1 if match.group("day1") else 2
    tens = {"twenty": 20, "thirty": 30}.get((match.group(f"tens{n}") or "").lower(), 0)
    day = str(tens + _ORDINALS[match.group(f"day{n}").lower()])
    return day if n == 1 else f"{match.group('month')} {day}"


def _shifted(day: dt.date, count: int, unit: str) -> dt.date:
    """`day` moved by `count` days, weeks, months or years (back when negative)."""
    at_most_days = UNIT_DAYS[unit] if unit in UNIT_DAYS else 31 * UNIT_MONTHS[unit]
    if abs(count) * at_most_days > MAX_DAYS:
        raise PluginError(f"{abs(count)} {unit}s is more than a century; give a nearer day")
    if unit in UNIT_MONTHS:
        return _add_months(day, count * UNIT_MONTHS[unit])
    try:
        return day + dt.timedelta(days=count * UNIT_DAYS[unit])
    except OverflowError:
        raise PluginError("that day is outside the calendar") from None


def _count(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _counted_day(when: str, base: dt.date) -> dt.date | None:
    """A day counted from today or from another day: `in 5 days`, `2 weeks ago`, `next
    month`, `3 days after march 1`; None for any other wording."""
    if found := _AHEAD.match(when):
        return _shifted(base, _count(found[1]), found[2])
    if found := _AGO.match(when):
        return _shifted(base, -_count(found[1]), found[2])
    if found := _NEXT_UNIT.match(when):
        return _shifted(base, {"next": 1, "last": -1, "this": 0}[found[1]], found[2])
    if found := _FROM_DAY.match(when):
        origin = read_date(found[4], base)
        sign = -1 if found[3] == "before" else 1
        return _shifted(origin, sign * _count(found[1]), found[2])
    return None


def _add_months(day: dt.date, months: int) -> dt.date:
    """Calendar months: 31 January + 1 month is the last day of February."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    if not dt.MINYEAR <= year <= dt.MAXYEAR:
        raise PluginError(f"{months} months from {day.isoformat()} is outside the calendar")
    return day.replace(
        year=year, month=month, day=min(day.day, calendar.monthrange(year, month)[1])
    )


def long_date(day: dt.date) -> str:
    """`Sunday 29 November 2026`: the weekday and a date no reader misreads."""
    return f"{day:%A} {day.day} {day:%B %Y}"


def show(day: dt.date) -> str:
    """`Sunday 29 November 2026 (2026-11-29)`: the long date, and ISO for a script or a model."""
    return f"{long_date(day)} ({day.isoformat()})"


def _amount(count: int, unit: str) -> str:
    return f"{count} {unit}{'' if count == 1 else 's'}"


def _span(days: int) -> str:
    """`27 days`, or `45 days (6 weeks and 3 days)` when weeks help to read it."""
    text = _amount(days, "day")
    if 14 <= days <= 90:
        weeks, rest = divmod(days, 7)
        in_weeks = _amount(weeks, "week") + (f" and {_amount(rest, 'day')}" if rest else "")
        text += f" ({in_weeks})"
    return text


class DatesPlugin(BasePlugin):
    def find_date(self, when: str = "today") -> dict[str, object]:
        now = today()
        day = read_date(when, now)
        delta = (day - now).days
        if delta in (-1, 0, 1):
            distance = ("was yesterday", "is today", "is tomorrow")[delta + 1]
        elif delta > 0:
            distance = f"is in {_span(delta)}"
        else:
            distance = f"was {_span(-delta)} ago"
        return {
            "text": f"{show(day)} {distance}.",
            "date": day.isoformat(),
            "days_from_today": delta,
        }
