"""The world clock reads country names, from the tz database's zone.tab and iso3166.tab."""

from __future__ import annotations

import zoneinfo
from collections.abc import Iterator
from pathlib import Path

import pytest

from homeclaw_cli.sdk import PluginError
from tests.plugins.bundled_module import bundled_module

PLUGIN_DIR = Path(__file__).resolve().parents[2] / "plugins" / "timezones"


tz = bundled_module("timezones")


@pytest.fixture(autouse=True)
def fresh_tables() -> Iterator[None]:
    """The tables are cached per process: each test reads them the way it set them up."""
    for cached in (tz._country_names, tz._country_zones, tz._countries):
        cached.cache_clear()
    yield
    for cached in (tz._country_names, tz._country_zones, tz._countries):
        cached.cache_clear()


@pytest.mark.parametrize(
    ("place", "zone"),
    [
        ("Spain", "Europe/Madrid"),
        ("spain", "Europe/Madrid"),
        ("Valencia, Spain", "Europe/Madrid"),
        ("the Netherlands", "Europe/Amsterdam"),
        ("Holland", "Europe/Amsterdam"),
        ("UK", "Europe/London"),
        ("England", "Europe/London"),
        ("United Kingdom", "Europe/London"),
        ("South Korea", "Asia/Seoul"),
        ("Korea, South", "Asia/Seoul"),
        ("Czechia", "Europe/Prague"),
        ("Côte d'Ivoire", "Africa/Abidjan"),
        ("Trinidad and Tobago", "America/Port_of_Spain"),
        # a city or zone name comes first: these are cities and countries both
        ("Singapore", "Asia/Singapore"),
        ("Luxembourg", "Europe/Luxembourg"),
        ("Paris, France", "Europe/Paris"),
        ("new york, usa", "America/New_York"),
    ],
)
def test_a_country_or_city_names_its_zone(place: str, zone: str) -> None:
    assert tz.zone_name(place) == zone


@pytest.mark.parametrize("name", ["Japan", "japan", "JAPAN time"])
def test_a_country_with_one_zone_is_that_zone(name: str) -> None:
    assert tz.country_zone(name) == "Asia/Tokyo"


def test_a_country_with_several_clocks_asks_for_a_city() -> None:
    with pytest.raises(PluginError) as raised:
        tz.resolve_zone("USA")
    message = str(raised.value)
    assert message.startswith("'United States' has several time zones (America/New_York, ")
    assert "America/Los_Angeles" in message and message.endswith("; name a city")
    # one zone per clock: Detroit keeps New York's time, so it is not offered as well
    assert "Detroit" not in message and message.count("/") <= 5


def test_a_country_whose_zones_keep_one_time_is_answered() -> None:
    assert tz.zone_name("Ukraine") == "Europe/Kyiv"  # "most of Ukraine", second in zone.tab
    assert tz.zone_name("China") == "Asia/Shanghai"
    assert tz.zone_name("Malaysia") == "Asia/Kuala_Lumpur"  # two zones, one clock


def test_australia_names_its_zones() -> None:
    with pytest.raises(PluginError, match=r"'Australia' has several time zones \(Australia/"):
        tz.resolve_zone("Australia")


def test_two_letter_codes_are_not_countries() -> None:
    with pytest.raises(PluginError, match="unknown city or time zone 'ES'"):
        tz.resolve_zone("ES")


def test_current_time_in_a_country() -> None:
    plugin = tz.TimezonesPlugin(plugin_id="timezones", folder=PLUGIN_DIR)
    text = plugin.current_time(place="Japan")
    assert text.startswith("Japan: ") and "JST (UTC+0900)" in text
    assert "CET" in plugin.convert_time("2026-01-15 09:00", "Japan", "Spain")


def test_without_the_tables_a_country_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tz, "_table_folders", list)
    with pytest.raises(PluginError, match="unknown city or time zone 'Spain'"):
        tz.resolve_zone("Spain")
    # the database's own link zone `Japan` needs no table
    assert tz.zone_name("Japan") == "Japan"


def test_the_tables_are_read_from_the_system_without_tzdata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "iso3166.tab").write_text("# codes\nES\tSpain\n", encoding="utf-8")
    rows = "ES\t+4024-00341\tEurope/Madrid\tSpain (mainland)\nES\t+3553-00519\tAfrica/Ceuta\n"
    (tmp_path / "zone.tab").write_text(rows, encoding="utf-8")

    def no_tzdata(package: str) -> None:
        raise ModuleNotFoundError(package)

    monkeypatch.setattr(tz, "files", no_tzdata)
    zoneinfo.reset_tzpath(to=[str(tmp_path / "missing"), str(tmp_path)])
    try:
        assert tz.zone_name("Spain") == "Europe/Madrid"
        assert tz.country_zone("Japan") is None
    finally:
        zoneinfo.reset_tzpath()


def test_a_sentence_naming_cities_is_no_place() -> None:
    copied = (
        "anywhere in the world, including cities, countries, or IANA time zones, such as "
        "New York, London, Tokyo, or UTC"
    )
    assert tz.zone_name(copied) is None
    with pytest.raises(PluginError, match="unknown city or time zone"):
        tz.resolve_zone(copied)
    assert tz.zone_name("Santa Cruz de Tenerife, Canary Islands, Spain") == "Europe/Madrid"
