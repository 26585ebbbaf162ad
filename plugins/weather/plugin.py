"""Weather from Open-Meteo (free, no key): geocode the city, then fetch current/daily data."""

from __future__ import annotations

from typing import Any

import httpx

from homeclaw_cli.sdk import BasePlugin, PluginError

GEOCODE_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"

# WMO weather interpretation codes, as documented by Open-Meteo.
WMO_CODES = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "depositing rime fog",
    51: "light drizzle",
    53: "drizzle",
    55: "dense drizzle",
    56: "freezing drizzle",
    57: "dense freezing drizzle",
    61: "light rain",
    63: "rain",
    65: "heavy rain",
    66: "freezing rain",
    67: "heavy freezing rain",
    71: "light snow",
    73: "snow",
    75: "heavy snow",
    77: "snow grains",
    80: "light showers",
    81: "showers",
    82: "violent showers",
    85: "snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with hail",
    99: "thunderstorm with heavy hail",
}


class WeatherPlugin(BasePlugin):
    def initialize(self) -> None:
        self.timeout = float(self.config.get("timeout_sec", 10))

    def _get(self, url: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            response = httpx.get(url, params=params, timeout=self.timeout)
        except httpx.HTTPError as exc:
            host = httpx.URL(url).host
            raise PluginError(
                f"could not reach {host} ({exc.__class__.__name__}); no network?"
            ) from None
        if response.status_code != 200:
            raise PluginError(f"{httpx.URL(url).host} answered HTTP {response.status_code}")
        data: dict[str, Any] = response.json()
        return data

    def _locate(self, city: str, district: str | None) -> dict[str, Any]:
        name = f"{district}, {city}" if district else city
        for query in [district, city] if district else [city]:
            found = self._get(GEOCODE_URL, {"name": query, "count": 1, "format": "json"})
            if found.get("results"):
                place: dict[str, Any] = found["results"][0]
                return place
        raise PluginError(f"no place called {name!r} was found; check the spelling")

    def fetch_weather(self, city: str, district: str | None = None) -> dict[str, Any]:
        place = self._locate(city, district)
        data = self._get(
            FORECAST_URL,
            {
                "latitude": place["latitude"],
                "longitude": place["longitude"],
                "current": "temperature_2m,apparent_temperature,relative_humidity_2m,"
                "weather_code,wind_speed_10m,precipitation",
                "timezone": "auto",
            },
        )
        now = data["current"]
        conditions = WMO_CODES.get(int(now["weather_code"]), f"code {now['weather_code']}")
        where = ", ".join(p for p in (place.get("name"), place.get("country")) if p)
        text = (
            f"{where}: {conditions}, {now['temperature_2m']}°C "
            f"(feels like {now['apparent_temperature']}°C), "
            f"humidity {now['relative_humidity_2m']}%, "
            f"wind {now['wind_speed_10m']} km/h, precipitation {now['precipitation']} mm."
        )
        return {
            "text": text,
            "temperature": now["temperature_2m"],
            "humidity": now["relative_humidity_2m"],
            "conditions": conditions,
            "wind_kmh": now["wind_speed_10m"],
        }

    def fetch_forecast(self, city: str, days: float = 3) -> str:
        if not 1 <= days <= 7:
            raise PluginError("days must be between 1 and 7")
        place = self._locate(city, None)
        data = self._get(
            FORECAST_URL,
            {
                "latitude": place["latitude"],
                "longitude": place["longitude"],
                "daily": "weather_code,temperature_2m_max,temperature_2m_min,"
                "precipitation_probability_max",
                "forecast_days": int(days),
                "timezone": "auto",
            },
        )
        daily = data["daily"]
        lines = [f"Forecast for {place.get('name')}, {place.get('country', '')}".rstrip(", ")]
        for i, day in enumerate(daily["time"]):
            conditions = WMO_CODES.get(int(daily["weather_code"][i]), "unknown")
            rain = daily["precipitation_probability_max"][i]
            low, high = daily["temperature_2m_min"][i], daily["temperature_2m_max"][i]
            lines.append(f"{day}: {conditions}, {low}–{high}°C, rain {rain}%")
        return "\n".join(lines)
