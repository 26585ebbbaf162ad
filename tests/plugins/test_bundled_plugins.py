"""The bundled inline plugins, called the way users call them: `homeclaw plugin call`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.ollama_server import unused_port_host
from tests.json_output import payload


def call(cli: Any, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    result = cli("plugin", "call", *args, "--json", env=env)
    return result.exit_code, payload(result)["result"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (["value=5", "from_unit=mi", "to_unit=km"], "5 mi = 8.04672 km"),
        (["value=212", "from_unit=F", "to_unit=celsius"], "212 F = 100 celsius"),
        (["value=2", "from_unit=cups", "to_unit=ml"], "2 cups = 473.176 ml"),
        (["value=90", "from_unit=mins", "to_unit=hours"], "90 mins = 1.5 hours"),
        (["value=3", "from_unit=hrs", "to_unit=secs"], "3 hrs = 10800 secs"),
    ],
)
def test_units_convert(cli: Any, params: list[str], expected: str) -> None:
    code, result = call(cli, "units", "convert", *[f"-p{p}" for p in params])
    assert code == 0 and result["text"] == expected


def test_units_refuses_mixed_dimensions(cli: Any) -> None:
    code, result = call(cli, "units", "convert", "-pvalue=1", "-pfrom_unit=kg", "-pto_unit=km")
    assert code == 1 and "cannot convert mass (kg) to length (km)" in result["error"]


@pytest.mark.parametrize(
    ("from_unit", "to_unit", "error"),
    [
        ("yen", "usd", "'yen' is a currency: this plugin converts units of measure, not money"),
        ("british_pounds", "us_dollars", "'british_pounds' is a currency"),
        ("lb", "EUR", "'EUR' is a currency"),
        ("furlongs", "km", "unknown unit 'furlongs'"),
    ],
)
def test_units_says_a_currency_is_no_unit(
    cli: Any, from_unit: str, to_unit: str, error: str
) -> None:
    params = ["-pvalue=20", f"-pfrom_unit={from_unit}", f"-pto_unit={to_unit}"]
    code, result = call(cli, "units", "convert", *params)
    assert code == 1 and error in result["error"]


@pytest.mark.parametrize(
    ("expression", "shown"),
    [
        ("17.5% of 240", "42"),
        ("(3+4)*2^10", "7168"),
        ("sqrt(2)", "1.41421356237"),
        # the way small models write them (seen with a 1.5B model)
        ("7!", "5040"),
        ("7 factorial", "5040"),
        ("square root of 1764", "42"),
        ("15 percent of 80", "12"),
        ("1234 times 5678", "7006652"),
        ("$62.40 * 18%", "11.232"),
        ("log base 10 of 1000", "3"),
        ("2 to the power of 16", "65536"),
    ],
)
def test_calculator(cli: Any, expression: str, shown: str) -> None:
    code, result = call(cli, "calculator", "evaluate", "-p", f"expression={expression}")
    assert code == 0 and result["text"] == f"{expression} = {shown}"


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        ("__import__('os').system('true')", "unsupported syntax (Call)"),
        ("open('/etc/passwd')", "unknown function 'open'"),
        ("9**99999", "too large"),
        ("1/0", "division by zero"),
    ],
)
def test_calculator_refuses_unsafe_or_bad_input(cli: Any, expression: str, error: str) -> None:
    code, result = call(cli, "calculator", "evaluate", "-p", f"expression={expression}")
    assert code == 1 and error in result["error"]


def test_timezones(cli: Any) -> None:
    code, result = call(
        cli,
        "timezones",
        "convert_time",
        "-ptime=2026-01-15 09:00",
        "-pfrom_place=Paris",
        "-pto_place=new york",
    )
    assert code == 0 and "2026-01-15 03:00 EST" in result["text"]
    # seconds, as a model copies them from a clock it just read
    for when in ("2026-01-15 09:00:25", "2026-01-15T09:00:25"):
        args = [f"-ptime={when}", "-pfrom_place=Paris", "-pto_place=new york"]
        code, result = call(cli, "timezones", "convert_time", *args)
        assert code == 0 and "2026-01-15 03:00 EST" in result["text"], when
    # the time as this plugin's own answer wrote it, copied into a follow-up call
    for when in ("Thursday 2026-01-15 09:00 CET (UTC+0100)", "2026-01-15 09:00 CET"):
        args = [f"-ptime={when}", "-pfrom_place=Paris", "-pto_place=new york"]
        code, result = call(cli, "timezones", "convert_time", *args)
        assert code == 0 and "03:00 EST" in result["text"], when
    code, result = call(
        cli, "timezones", "convert_time", "-ptime=20:45:25", "-pfrom_place=UTC", "-pto_place=UTC"
    )
    assert code == 0 and "20:45" in result["text"]
    code, result = call(  # "pm" is no zone abbreviation
        cli, "timezones", "convert_time", "-ptime=9 pm", "-pfrom_place=UTC", "-pto_place=UTC"
    )
    assert code == 0 and "21:00" in result["text"]
    for place in ("New_York", "new york", "NYC", "America/New_York", "new york, usa", "EST"):
        code, result = call(cli, "timezones", "current_time", f"-pplace={place}")
        assert code == 0 and ("EST" in result["text"] or "EDT" in result["text"]), place
    code, result = call(cli, "timezones", "current_time", "-pplace=Atlantis")
    assert code == 1 and "unknown city or time zone 'Atlantis'" in result["error"]
    # a region of the zone database is a folder, not a zone: a clear error, not a crash
    code, result = call(cli, "timezones", "current_time", "-pplace=Australia")
    assert code == 1 and "'Australia' has several time zones" in result["error"]


def test_notes_round_trip(cli: Any) -> None:
    assert call(cli, "notes", "add_note", "-ptext=buy oat milk", '-ptags:=["shopping"]')[0] == 0
    assert call(cli, "notes", "add_note", "-ptext=call the dentist")[0] == 0
    code, result = call(cli, "notes", "search_notes", "-pquery=milk")
    assert code == 0 and "#1" in result["text"] and "[shopping]" in result["text"]
    assert call(cli, "notes", "delete_note", "-pnote_id=1")[0] == 0
    code, result = call(cli, "notes", "list_notes")
    assert "dentist" in result["text"] and "milk" not in result["text"]
    code, result = call(cli, "notes", "delete_note", "-pnote_id=1")
    assert code == 1 and "there is no note #1" in result["error"]


def test_weather_without_network_says_so(cli: Any) -> None:
    proxy = unused_port_host()  # every request fails to connect, as with no network
    env = {"HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "ALL_PROXY": proxy}
    code, result = call(cli, "weather", "fetch_weather", "-pcity=Paris", env=env)
    assert code == 1 and "could not reach geocoding-api.open-meteo.com" in result["error"]


def test_news_without_key_says_how_to_get_one(cli: Any) -> None:
    code, result = call(cli, "news", "fetch_latest_news", env={"NEWSAPI_KEY": ""})
    assert code == 1 and "NEWSAPI_KEY" in result["error"]


def test_news_names_its_categories_for_an_unknown_one(cli: Any) -> None:
    code, result = call(
        cli, "news", "fetch_latest_news", "-pcategory=weather", env={"NEWSAPI_KEY": "k"}
    )
    assert code == 1 and "unknown news category 'weather'" in result["error"]
    assert "business, entertainment, general" in result["error"]
