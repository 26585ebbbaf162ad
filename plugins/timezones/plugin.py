"""Time zones from the IANA database (zoneinfo), with city-name lookup."""

from __future__ import annotations

import datetime as dt
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
}


@cache
def _zones_by_city() -> dict[str, str]:
    table: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        city = zone.rsplit("/", 1)[-1].replace("_", " ").lower()
        table.setdefault(city, zone)
    return table


def resolve_zone(place: str) -> ZoneInfo:
    key = place.strip()
    if not key:
        raise PluginError("no place given")
    name = CITY_ALIASES.get(key.lower()) or _zones_by_city().get(key.lower()) or key
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise PluginError(
            f"unknown city or time zone {place!r}; try an IANA name such as Europe/Paris"
        ) from None


def _parse_time(text: str, zone: ZoneInfo) -> dt.datetime:
    now = dt.datetime.now(zone)
    for fmt in ("%Y-%m-%d %H:%M", "%H:%M", "%I:%M %p", "%I %p", "%H"):
        try:
            parsed = dt.datetime.strptime(
                text.strip().upper() if "%p" in fmt else text.strip(), fmt
            )
        except ValueError:
            continue
        if fmt.startswith("%Y"):
            return parsed.replace(tzinfo=zone)
        return now.replace(hour=parsed.hour, minute=parsed.minute, second=0, microsecond=0)
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
