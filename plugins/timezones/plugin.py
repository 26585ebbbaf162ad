"""Time zones from the IANA database (zoneinfo), with city- and country-name lookup.

A place is read however a model or a person writes it: `Tokyo`, `new york`, `New_York`,
`NYC`, `america/new_york`, `Paris, France`, `São Paulo`, `EST`, and countries: `Spain`,
`the Netherlands`, `South Korea`, `USA`. A country with one clock (or a mainland one)
resolves to it; for one with several, the error names its zones so that a city is asked for.
Countries come from the tz database's zone.tab and iso3166.tab (the tzdata package, else
the system's zoneinfo folders); without them only cities and zones are known.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
import zoneinfo
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from homeclaw_cli.sdk import BasePlugin, PluginError

CITY_ALIASES = {
    "utc": "UTC",
    "gmt": "UTC",
    "nyc": "America/New_York",
    "new york": "America/New_York",
    "la": "America/Los_Angeles",
    "san francisco": "America/Los_Angeles",
    "sf": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "boston": "America/New_York",
    "washington": "America/New_York",
    "miami": "America/New_York",
    "beijing": "Asia/Shanghai",
    "shenzhen": "Asia/Shanghai",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "mumbai": "Asia/Kolkata",
    "bangalore": "Asia/Kolkata",
    "munich": "Europe/Berlin",
    "frankfurt": "Europe/Berlin",
    "barcelona": "Europe/Madrid",
    "milan": "Europe/Rome",
    "geneva": "Europe/Zurich",
    "osaka": "Asia/Tokyo",
    "kyoto": "Asia/Tokyo",
    "hanoi": "Asia/Bangkok",
    "rio": "America/Sao_Paulo",
    "rio de janeiro": "America/Sao_Paulo",
    "new york city": "America/New_York",
    "ny": "America/New_York",
    "washington dc": "America/New_York",
    "dc": "America/New_York",
    "philadelphia": "America/New_York",
    "atlanta": "America/New_York",
    "dallas": "America/Chicago",
    "houston": "America/Chicago",
    "austin": "America/Chicago",
    "las vegas": "America/Los_Angeles",
    "san diego": "America/Los_Angeles",
    "portland": "America/Los_Angeles",
    "hong kong": "Asia/Hong_Kong",
    "bengaluru": "Asia/Kolkata",
    "kolkata": "Asia/Kolkata",
    "st petersburg": "Europe/Moscow",
    "saint petersburg": "Europe/Moscow",
    "est": "America/New_York",
    "edt": "America/New_York",
    "eastern": "America/New_York",
    "cst": "America/Chicago",
    "cdt": "America/Chicago",
    "central": "America/Chicago",
    "mst": "America/Denver",
    "mdt": "America/Denver",
    "pst": "America/Los_Angeles",
    "pdt": "America/Los_Angeles",
    "pacific": "America/Los_Angeles",
    "bst": "Europe/London",
    "cet": "Europe/Paris",
    "cest": "Europe/Paris",
    "ist": "Asia/Kolkata",
    "jst": "Asia/Tokyo",
    "aest": "Australia/Sydney",
    "aedt": "Australia/Sydney",
}

# Country names people write that iso3166.tab spells otherwise (`Britain (UK)`, `Korea
# (South)`, `Czech Republic`). Bare ISO codes are not read: `LA` or `NY` mean cities.
COUNTRY_ALIASES = {
    "usa": "US",
    "us": "US",
    "america": "US",
    "united states of america": "US",
    "uk": "GB",
    "united kingdom": "GB",
    "great britain": "GB",
    "england": "GB",
    "scotland": "GB",
    "wales": "GB",
    "northern ireland": "GB",
    "south korea": "KR",
    "korea": "KR",
    "north korea": "KP",
    "uae": "AE",
    "czechia": "CZ",
    "holland": "NL",
    "the netherlands": "NL",
    "burma": "MM",
    "swaziland": "SZ",
    "turkiye": "TR",
    "ivory coast": "CI",
    "cabo verde": "CV",
    "timor leste": "TL",
    "vatican": "VA",
}

# zone.tab lists Xinjiang's unofficial clock (Asia/Urumqi) beside Beijing Time, China's one
# official zone, with no "mainland" or "most of" to tell them apart.
MAIN_ZONES = {"CN": "Asia/Shanghai"}
# "Santa Cruz de Tenerife, Canary Islands, Spain" is 7 words; a copied description is longer.
MAX_PLACE_WORDS = 8


@cache
def _zones_by_key() -> dict[str, str]:
    """Lower-case city (`new york`) and whole zone names (`america/new york`) -> zone."""
    table: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        table.setdefault(_key(zone), zone)
        table.setdefault(_key(zone.rsplit("/", 1)[-1]), zone)
    return table


def _key(text: str) -> str:
    """`São_Paulo ` -> `sao paulo`: accents, underscores, dots and case folded away."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(plain.replace("_", " ").replace(".", "").lower().split())


def _city_zone(candidate: str) -> str | None:
    """The zone a city, alias or zone name means: `new york`, `NYC`, `Tokyo time`."""
    table = _zones_by_key()
    key = _key(candidate)
    for variant in (key, key.removeprefix("the ").removesuffix(" time")):
        zone = CITY_ALIASES.get(variant) or table.get(variant)
        if zone:
            return zone
    return None


def zone_name(place: str) -> str | None:
    """The IANA zone a place means, or None. `Paris, France` is tried as `Paris` too.

    In each part a city or zone comes before a country: `Singapore` is the city's zone.
    A sentence is no place, even one naming cities: small models copy a parameter's
    description ("anywhere in the world, such as New York, London, ...") into the call.
    """
    if len(place.split()) > MAX_PLACE_WORDS:
        return None
    for candidate in [place, *place.split(",")]:
        zone = _city_zone(candidate) or country_zone(candidate)
        if zone:
            return zone
    return None


def _table_folders() -> list[Traversable]:
    """Where the tz database's tables are: the tzdata package, then the system's zoneinfo."""
    try:
        package = [files("tzdata") / "zoneinfo"]
    except ModuleNotFoundError:
        package = []
    return [*package, *(Path(folder) for folder in zoneinfo.TZPATH)]


def _table_text(name: str) -> str | None:
    """An IANA table such as zone.tab, or None if no folder has it."""
    for folder in _table_folders():
        try:
            return (folder / name).read_text(encoding="utf-8")
        except (OSError, ValueError):
            continue
    return None


def _rows(name: str) -> Iterator[list[str]]:
    """The tab-separated columns of a table's lines, comments left out."""
    for line in (_table_text(name) or "").splitlines():
        if line.strip() and not line.startswith("#"):
            yield line.split("\t")


@cache
def _country_names() -> dict[str, str]:
    """ISO code -> the table's name: `GB` -> `Britain (UK)`."""
    return {row[0]: row[1] for row in _rows("iso3166.tab") if len(row) > 1}


@cache
def _country_zones() -> dict[str, list[tuple[str, str]]]:
    """ISO code -> its (zone, comment) rows of zone.tab, main zones first as the table has them."""
    zones: dict[str, list[tuple[str, str]]] = {}
    for row in _rows("zone.tab"):
        if len(row) > 2:
            zones.setdefault(row[0], []).append((row[2], row[3] if len(row) > 3 else ""))
    return zones


def _country_key(text: str) -> str:
    """`the Côte d'Ivoire` -> `cote divoire`, `Saint Kitts & Nevis` -> `st kitts and nevis`."""
    plain = re.sub(r"[^a-z0-9 ]", "", _key(text.replace("&", " and ").replace("-", " ")))
    words = ["st" if word == "saint" else word for word in plain.split()]
    return " ".join(words[1:] if words[:1] == ["the"] else words)


def _name_keys(name: str) -> set[str]:
    """`Korea (South)` -> `korea south`, `korea`, `south korea`."""
    keys = {_country_key(name)}
    base, paren, rest = name.partition("(")
    if paren:
        inner, _, tail = rest.partition(")")
        keys |= {_country_key(base + tail), _country_key(f"{inner} {base}{tail}")}
    return keys


@cache
def _countries() -> dict[str, str]:
    """Country key -> ISO code, from iso3166.tab's names and COUNTRY_ALIASES."""
    names = _country_names()
    codes: dict[str, set[str]] = {}
    for code, name in names.items():
        for key in _name_keys(name):
            codes.setdefault(key, set()).add(code)
    table = {key: found.pop() for key, found in codes.items() if len(found) == 1}  # not `congo`
    table.update({_country_key(a): code for a, code in COUNTRY_ALIASES.items() if code in names})
    return table


def _clock(zone: str) -> tuple[dt.timedelta | None, ...] | None:
    """A zone's UTC offsets in January and July: zones with the same ones show the same time."""
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    year = dt.date.today().year
    return tuple(dt.datetime(year, month, 1, tzinfo=tz).utcoffset() for month in (1, 7))


def _distinct_clocks(zones: list[str]) -> list[str]:
    """One zone per clock, in the table's order.

    A clock is named by its first zone in the country's own region: Australia/Hobart rather
    than Antarctica/Macquarie, which keeps the same time.
    """
    groups: dict[tuple[dt.timedelta | None, ...], list[str]] = {}
    for zone in zones:
        if (clock := _clock(zone)) is not None:
            groups.setdefault(clock, []).append(zone)
    region = zones[0].split("/")[0] + "/"
    return [next((z for z in group if z.startswith(region)), group[0]) for group in groups.values()]


def _main_zone(code: str) -> str | None:
    """The zone a whole country means (None if zone.tab has none for it).

    A PluginError naming one zone per clock if the country keeps several times.
    """
    rows = _country_zones().get(code, [])
    main = [zone for zone, comment in rows if "mainland" in comment or "most of" in comment]
    if code in MAIN_ZONES:
        return MAIN_ZONES[code]
    if main:
        return main[0]
    if len(rows) <= 1:
        return rows[0][0] if rows else None
    clocks = _distinct_clocks([zone for zone, _ in rows])
    if len(clocks) <= 1:  # several zones that keep one time (Malaysia)
        return rows[0][0]
    more = ", ..." if len(clocks) > 5 else ""
    raise PluginError(
        f"{_country_names()[code]!r} has several time zones ({', '.join(clocks[:5])}{more}); "
        "name a city"
    )


def country_zone(name: str) -> str | None:
    """The zone of the country a name means (`Spain`, `the UK`), or None if it is no country.

    A PluginError naming its zones if the country keeps several times (`USA`).
    """
    code = _countries().get(_country_key(name).removesuffix(" time"))
    return _main_zone(code) if code else None


def resolve_zone(place: str) -> ZoneInfo:
    key = place.strip()
    if not key:
        raise PluginError("no place given")
    try:
        return ZoneInfo(zone_name(key) or key)
    except IsADirectoryError:  # a zone region such as `Europe` or `Indian`
        raise PluginError(
            f"{place!r} has several time zones; name a city in it, e.g. its capital"
        ) from None
    except (ZoneInfoNotFoundError, ValueError):
        raise PluginError(
            f"unknown city or time zone {place!r}; try an IANA name such as Europe/Paris"
        ) from None


# What this plugin's own answers put around a time, which a model copies into the next call:
# `Tuesday 2026-11-24 22:51 CST (UTC-0600)`.
_WEEKDAY = re.compile(r"^(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+", re.IGNORECASE)
_OFFSET = re.compile(r"\s*\((?:UTC|GMT)\s*[+-]\d{1,2}:?\d{2}\)$", re.IGNORECASE)
_ZONE_ABBREVIATION = re.compile(r"(?<=\d)\s+(?!(?:am|pm)$)[a-z]{2,5}$", re.IGNORECASE)


def _bare_time(text: str) -> str:
    """`Tuesday 2026-11-24 22:51 CST (UTC-0600)` -> `2026-11-24 22:51` (the place says the zone)."""
    text = _OFFSET.sub("", _WEEKDAY.sub("", text.strip()))
    return _ZONE_ABBREVIATION.sub("", text).strip()


def _parse_time(text: str, zone: ZoneInfo) -> dt.datetime:
    now = dt.datetime.now(zone)
    text = _bare_time(text)
    formats = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%H:%M", "%H:%M:%S")
    for fmt in (*formats, "%I:%M %p", "%I %p", "%H"):
        try:
            parsed = dt.datetime.strptime(
                text.strip().upper() if "%p" in fmt else text.strip(), fmt
            )
        except ValueError:
            continue
        if fmt.startswith("%Y"):
            return parsed.replace(tzinfo=zone)
        return now.replace(
            hour=parsed.hour, minute=parsed.minute, second=parsed.second, microsecond=0
        )
    raise PluginError(f"cannot read time {text!r}; use HH:MM or YYYY-MM-DD HH:MM")


def _fmt(moment: dt.datetime) -> str:
    return moment.strftime("%A %Y-%m-%d %H:%M %Z (UTC%z)")


class TimezonesPlugin(BasePlugin):
    def current_time(self, place: str = "UTC") -> str:
        zone = resolve_zone(place)
        return f"{place}: {_fmt(dt.datetime.now(zone))}"

    def convert_time(self, time: str, from_place: str, to_place: str) -> str:
        source = _parse_time(time, resolve_zone(from_place))
        target = source.astimezone(resolve_zone(to_place))
        return f"{_fmt(source)} in {from_place} is {_fmt(target)} in {to_place}"
