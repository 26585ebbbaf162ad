"""Unit conversion with a table of factors to one base unit per dimension."""

from __future__ import annotations

from typing import Any

from homeclaw_cli.sdk import BasePlugin, PluginError

# unit -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, float]] = {
    # length, base metre
    "m": ("length", 1.0),
    "km": ("length", 1000.0),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "um": ("length", 1e-6),
    "mi": ("length", 1609.344),
    "yd": ("length", 0.9144),
    "ft": ("length", 0.3048),
    "in": ("length", 0.0254),
    "nmi": ("length", 1852.0),
    # mass, base kilogram
    "kg": ("mass", 1.0),
    "g": ("mass", 0.001),
    "mg": ("mass", 1e-6),
    "t": ("mass", 1000.0),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "st": ("mass", 6.35029318),
    # volume, base litre
    "l": ("volume", 1.0),
    "ml": ("volume", 0.001),
    "cl": ("volume", 0.01),
    "m3": ("volume", 1000.0),
    "gal": ("volume", 3.785411784),
    "qt": ("volume", 0.946352946),
    "pt": ("volume", 0.473176473),
    "cup": ("volume", 0.2365882365),
    "floz": ("volume", 0.0295735295625),
    "tbsp": ("volume", 0.01478676478125),
    "tsp": ("volume", 0.00492892159375),
    # speed, base metre per second
    "m/s": ("speed", 1.0),
    "km/h": ("speed", 1 / 3.6),
    "mph": ("speed", 0.44704),
    "kn": ("speed", 0.514444),
    # area, base square metre
    "m2": ("area", 1.0),
    "km2": ("area", 1e6),
    "ha": ("area", 1e4),
    "acre": ("area", 4046.8564224),
    "ft2": ("area", 0.09290304),
    "mi2": ("area", 2589988.110336),
    # data, base byte
    "b": ("data", 1.0),
    "kb": ("data", 1e3),
    "mb": ("data", 1e6),
    "gb": ("data", 1e9),
    "tb": ("data", 1e12),
    "kib": ("data", 1024.0),
    "mib": ("data", 1024.0**2),
    "gib": ("data", 1024.0**3),
    "bit": ("data", 0.125),
    # time, base second
    "s": ("time", 1.0),
    "ms": ("time", 0.001),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
    "day": ("time", 86400.0),
    "week": ("time", 604800.0),
    "year": ("time", 31557600.0),
}
TEMPERATURES = {"c", "f", "k"}

ALIASES = {
    "meter": "m",
    "metre": "m",
    "meters": "m",
    "metres": "m",
    "kilometer": "km",
    "kilometre": "km",
    "kilometers": "km",
    "kilometres": "km",
    "centimeter": "cm",
    "centimeters": "cm",
    "millimeter": "mm",
    "millimeters": "mm",
    "mile": "mi",
    "miles": "mi",
    "yard": "yd",
    "yards": "yd",
    "foot": "ft",
    "feet": "ft",
    "inch": "in",
    "inches": "in",
    "kilogram": "kg",
    "kilograms": "kg",
    "kilo": "kg",
    "kilos": "kg",
    "gram": "g",
    "grams": "g",
    "pound": "lb",
    "pounds": "lb",
    "lbs": "lb",
    "ounce": "oz",
    "ounces": "oz",
    "stone": "st",
    "tonne": "t",
    "tonnes": "t",
    "liter": "l",
    "litre": "l",
    "liters": "l",
    "litres": "l",
    "milliliter": "ml",
    "millilitre": "ml",
    "milliliters": "ml",
    "gallon": "gal",
    "gallons": "gal",
    "quart": "qt",
    "pint": "pt",
    "pints": "pt",
    "cups": "cup",
    "tablespoon": "tbsp",
    "teaspoon": "tsp",
    "fl oz": "floz",
    "kph": "km/h",
    "kmh": "km/h",
    "knots": "kn",
    "knot": "kn",
    "hectare": "ha",
    "hectares": "ha",
    "acres": "acre",
    "sqm": "m2",
    "sqft": "ft2",
    "byte": "b",
    "bytes": "b",
    "kilobyte": "kb",
    "megabyte": "mb",
    "gigabyte": "gb",
    "terabyte": "tb",
    "bits": "bit",
    "second": "s",
    "seconds": "s",
    "sec": "s",
    "minute": "min",
    "minutes": "min",
    "hour": "h",
    "hours": "h",
    "hr": "h",
    "days": "day",
    "weeks": "week",
    "years": "year",
    "celsius": "c",
    "°c": "c",
    "fahrenheit": "f",
    "°f": "f",
    "kelvin": "k",
}


def normalize(unit: str) -> str:
    """The unit's key: an alias resolved, and a plural a model writes ("mins", "hrs", "kgs")."""
    key = unit.strip().lower()
    key = ALIASES.get(key, key)
    if key not in UNITS and key not in TEMPERATURES and key.endswith("s"):
        single = ALIASES.get(key[:-1], key[:-1])
        if single in UNITS or single in TEMPERATURES:
            return single
    return key


# Words of a currency a model puts where a unit goes ("yen", "us_dollars", "GBP"); "pound"
# alone stays the unit of mass, "british pounds" is money.
CURRENCY_WORDS = frozenset(
    {"usd", "eur", "gbp", "jpy", "cny", "rmb", "inr", "cad", "aud", "chf", "mxn", "brl"}
    | {"krw", "rub", "sek", "nok", "dkk", "pln", "zar", "hkd", "sgd", "nzd", "btc", "$", "€"}
    | {"£", "¥", "dollar", "euro", "yen", "yuan", "renminbi", "rupee", "peso", "franc"}
    | {"krona", "krone", "won", "ruble", "rouble", "lira", "rand", "sterling", "bitcoin"}
)


def _unknown(unit: str) -> PluginError:
    """Why `unit` cannot be converted: a currency is not a unit of measure."""
    words = {w.removesuffix("s") for w in unit.lower().replace("_", " ").replace("-", " ").split()}
    if words & CURRENCY_WORDS or {"pound", "british"} <= words or {"pound", "uk"} <= words:
        return PluginError(
            f"{unit!r} is a currency: this plugin converts units of measure, not money "
            "(exchange rates change daily and need an online source)"
        )
    return PluginError(f"unknown unit {unit!r}")


def _to_kelvin(value: float, unit: str) -> float:
    return {"c": value + 273.15, "f": (value - 32) * 5 / 9 + 273.15, "k": value}[unit]


def _from_kelvin(value: float, unit: str) -> float:
    return {"c": value - 273.15, "f": (value - 273.15) * 9 / 5 + 32, "k": value}[unit]


def convert_value(value: float, from_unit: str, to_unit: str) -> float:
    src, dst = normalize(from_unit), normalize(to_unit)
    if src in TEMPERATURES or dst in TEMPERATURES:
        if not (src in TEMPERATURES and dst in TEMPERATURES):
            raise PluginError(
                f"cannot convert {from_unit} to {to_unit}: only C, F and K are temperatures"
            )
        return _from_kelvin(_to_kelvin(value, src), dst)
    for name, original in ((src, from_unit), (dst, to_unit)):
        if name not in UNITS:
            raise _unknown(original)
    (src_dim, src_factor), (dst_dim, dst_factor) = UNITS[src], UNITS[dst]
    if src_dim != dst_dim:
        raise PluginError(f"cannot convert {src_dim} ({from_unit}) to {dst_dim} ({to_unit})")
    return value * src_factor / dst_factor


class UnitsPlugin(BasePlugin):
    def convert(self, value: float, from_unit: str, to_unit: str) -> dict[str, Any]:
        result = convert_value(value, from_unit, to_unit)
        shown = f"{result:.6g}" if abs(result) < 1e15 else f"{result:.6e}"
        return {
            "text": f"{value:g} {from_unit} = {shown} {to_unit}",
            "value": result,
            "unit": to_unit,
        }
