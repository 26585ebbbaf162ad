"""Time zones from the IANA database (zoneinfo), with city-name lookup.

A place is read however a model or a person writes it: `Tokyo`, `new york`, `New_York`,
`NYC`, `america/new_york`, `Paris, France`, `São Paulo`, `EST`.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from functools import cache
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


def zone_name(place: str) -> str | None:
    """The IANA zone a place means, or None. `Paris, France` is tried as `Paris` too."""
    table = _zones_by_key()
    candidates = [place, *place.split(",")]
    for candidate in candidates:
        key = _key(candidate)
        for variant in (key, key.removeprefix("the ").removesuffix(" time")):
            zone = CITY_ALIASES.get(variant) or table.get(variant)
            if zone:
                return zone
    return None


def resolve_zone(place: str) -> ZoneInfo:
    key = place.strip()
    if not key:
        raise PluginError("no place given")
    try:
        return ZoneInfo(zone_name(key) or key)
    except IsADirectoryError:  # a zone region such as `Australia` or `America`
        raise PluginError(
            f"{place!r} has several time zones; name a city in it, e.g. its capital"
        ) from None
    except (ZoneInfoNotFoundError, ValueError):
        raise PluginError(
            f"unknown city or time zone {place!r}; try an IANA name such as Europe/Paris"
        ) from None


def _parse_time(text: str, zone: ZoneInfo) -> dt.datetime:
    now = dt.datetime.now(zone)
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
