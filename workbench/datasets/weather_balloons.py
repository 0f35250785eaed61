"""weather_balloons: radiosonde flights reporting once a minute (the time-series patterns page).

Each location (a Google Cloud region name) launches a few balloons at the
synoptic times (launch ≈ 11:15 and 23:15 UTC, so the sounding reaches the
upper air by 00:00/12:00), each with its own zero-padded ID. A flight rises at
~5 m/s to a burst altitude of 25–33 km, then falls under its parachute
(fast in thin air, ~5 m/s near the ground) until it lands. Every minute it reports:

* ``altitude`` (m above sea level),
* ``temperature`` (°C): the surface temperature minus the standard lapse rate
  (6.5 K/km) up to 11 km, isothermal to 20 km, warming 1 K/km above,
* ``pressure`` (Pa): the barometric formula for that temperature profile from the
  day's surface pressure, so pressure always falls as altitude rises,
* ``humidity`` (% relative): moist near the ground, drying with height, near zero
  in the stratosphere.

Queries mirror the page's patterns: one balloon over an hour, the latest reading,
one location at one minute, and a week of one location (G12/G13 time buckets).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datasets._frames import US_PER_DAY, US_PER_MIN, US_PER_S, strings, ts, us, utc
from workbench.datasets.model import QueryIntent

ENTITY = ["location", "balloon_id"]
TIME = "time"
MEASURES = ["pressure", "temperature", "humidity", "altitude"]
UNITS = {"pressure": "Pa", "temperature": "°C", "humidity": "%", "altitude": "m"}
OPTIONS: dict[str, object] = {}
DESCRIPTION = (
    "Radiosonde flights from Google Cloud region sites, one reading a minute: altitude, "
    "temperature (standard lapse rate), pressure (barometric formula) and humidity."
)

START = "2015-03-01"
# (region, station elevation m, mean surface temperature °C in March)
LOCATIONS = [
    ("us-west2", 90, 16.0),
    ("us-central1", 300, 4.0),
    ("europe-west1", 60, 7.0),
    ("asia-northeast1", 40, 9.0),
    ("australia-southeast1", 20, 21.0),
    ("southamerica-east1", 760, 22.0),
    ("us-east4", 100, 8.0),
    ("europe-north1", 30, -3.0),
    ("asia-south1", 10, 27.0),
    ("northamerica-northeast1", 60, -6.0),
    ("europe-west3", 110, 6.0),
    ("asia-east1", 20, 17.0),
    ("us-west1", 60, 9.0),
    ("me-west1", 30, 17.0),
    ("africa-south1", 1750, 19.0),
    ("asia-southeast1", 15, 27.0),
    ("europe-southwest1", 650, 10.0),
    ("us-south1", 150, 15.0),
    ("europe-west2", 20, 8.0),
    ("asia-northeast3", 40, 5.0),
]
LAUNCH_HOURS = (11.25, 23.25)  # UTC, 45 minutes before the synoptic hour

G, M, R = 9.80665, 0.0289644, 8.31446  # gravity, molar mass of air, gas constant (SI)
GMR = G * M / R  # K/m
ASCENT = 5.0  # m/s, typical radiosonde ascent
DESCENT_SEA_LEVEL = 5.0  # m/s under the parachute near the ground
SCALE_HEIGHT = 7_400.0  # m; descent speed ∝ 1/sqrt(density)


def _temperature(alt: np.ndarray, t0: np.ndarray, z0: np.ndarray) -> np.ndarray:
    """°C: the standard-atmosphere shape anchored at the station's surface temperature."""
    t_trop = t0 - 6.5e-3 * (np.minimum(alt, 11_000) - z0)
    strato = np.clip(alt - 20_000, 0, None) * 1e-3
    return t_trop + strato


def _pressure(alt: np.ndarray, t0: np.ndarray, z0: np.ndarray, p0: np.ndarray) -> np.ndarray:
    """Pa: the barometric formula, layer by layer, for the profile of :func:`_temperature`."""
    tk0 = t0 + 273.15
    L = 6.5e-3
    h1 = np.minimum(alt, 11_000)
    tk1 = tk0 - L * (h1 - z0)
    p = p0 * (tk1 / tk0) ** (GMR / L)  # troposphere: lapse rate L
    tk11 = tk0 - L * (11_000 - z0)
    h2 = np.clip(alt, 11_000, 20_000)
    p = np.where(alt > 11_000, p * np.exp(-GMR * (h2 - 11_000) / tk11), p)  # isothermal layer
    p20 = p0 * (tk11 / tk0) ** (GMR / L) * np.exp(-GMR * 9_000 / tk11)
    L3 = -1e-3
    h3 = np.clip(alt, 20_000, None)
    p3 = p20 * ((tk11 - L3 * (h3 - 20_000)) / tk11) ** (GMR / L3)  # warming layer
    return np.where(alt > 20_000, p3, p)


def generate(n_events: int, rng: np.random.Generator) -> tuple[pd.DataFrame, list[QueryIntent]]:
    """Balloon flights: ``n_events`` readings and their queries, from ``rng``.

    Why one function: the draws from its one seeded generator must stay in this order (every
    value of the dataset, and the tests' hand-derived figures, depend on it), so it reads top to
    bottom as the data's story.
    """
    per_flight = int(
        29_000 / ASCENT / 60 + 40
    )  # readings of an average flight, to size the launch plan
    n_flights = max(4, n_events // per_flight)
    n_locations = int(np.clip(round(np.sqrt(n_flights / 3)), 2, len(LOCATIONS)))
    per_launch = int(np.clip(round(np.sqrt(n_flights / 60)), 2, 4))  # stations per region
    n_slots = max(1, -(-n_flights // (n_locations * per_launch)))  # launch times
    loc_idx = np.repeat(np.arange(n_locations), n_slots * per_launch)
    slot = np.tile(np.repeat(np.arange(n_slots), per_launch), n_locations)
    n_flights = len(loc_idx)

    launch_day, launch_half = slot // 2, slot % 2
    launch_us = (
        us(START)
        + launch_day * US_PER_DAY
        + (np.array(LAUNCH_HOURS)[launch_half] * 3600 * US_PER_S).astype(np.int64)
        + rng.integers(-10 * 60, 10 * 60, n_flights) * US_PER_S
    )  # to the second
    elevation = np.array([loc[1] for loc in LOCATIONS], float)[loc_idx] + rng.uniform(
        0, 40, n_flights
    )
    surface_t = (
        np.array([loc[2] for loc in LOCATIONS], float)[loc_idx]
        + rng.normal(0, 3, n_flights)
        + np.where(launch_half == 1, -2.0, 2.0)
    )
    surface_p = rng.normal(101_325, 900, n_flights) * np.exp(
        -GMR * elevation / (surface_t + 273.15)
    )
    surface_rh = rng.uniform(45, 95, n_flights)
    burst_alt = rng.uniform(25_000, 33_000, n_flights)
    ascent = rng.uniform(4.5, 5.5, n_flights)

    # minutes of each flight: ascent to burst, then parachute descent to the station's height
    t_up = (burst_alt - elevation) / ascent
    # closed form of dh/dt = -v0·exp(h/2H):  exp(-h/2H) = exp(-h_b/2H) + v0·t/2H
    k = 2 * SCALE_HEIGHT
    t_down = (np.exp(-elevation / k) - np.exp(-burst_alt / k)) * k / DESCENT_SEA_LEVEL
    n_readings = np.floor((t_up + t_down) / 60).astype(np.int64) + 1
    total = int(n_readings.sum())
    flight = np.repeat(np.arange(n_flights), n_readings)
    first = np.cumsum(n_readings) - n_readings
    minute = np.arange(total) - np.repeat(first, n_readings)
    secs = minute * 60.0

    up = secs <= t_up[flight]
    noise = rng.normal(0, 1.0, total)
    alt_up = elevation[flight] + ascent[flight] * secs + 25 * noise
    t_fall = np.clip(secs - t_up[flight], 0, None)
    alt_down = -k * np.log(np.exp(-burst_alt[flight] / k) + DESCENT_SEA_LEVEL * t_fall / k)
    altitude = np.maximum(np.where(up, alt_up, alt_down), elevation[flight])

    temperature = _temperature(altitude, surface_t[flight], elevation[flight]) + rng.normal(
        0, 0.3, total
    )
    pressure = _pressure(altitude, surface_t[flight], elevation[flight], surface_p[flight])
    pressure *= 1 + rng.normal(0, 2e-4, total)
    humidity = surface_rh[flight] * np.exp(-np.clip(altitude - elevation[flight], 0, None) / 5_000)
    humidity = np.clip(
        humidity + np.where(altitude < 12_000, rng.normal(0, 4, total), 0.2 * np.abs(noise)), 0, 100
    )

    locations = np.array([loc[0] for loc in LOCATIONS], dtype=object)
    ids = np.array(
        [f"b{i:05d}" for i in range(1, n_flights + 1)], dtype=object
    )  # zero-padded (G21)
    t_us = launch_us[flight] + minute * US_PER_MIN
    # flights in key order (location name, then ID): each flight's readings stay contiguous and in time order
    flight_order = np.lexsort(
        (np.arange(n_flights), np.argsort(np.argsort(locations[:n_locations]))[loc_idx])
    )
    rows = np.argsort(np.argsort(flight_order)[flight], kind="stable")
    frame = pd.DataFrame(
        {
            "location": strings(locations[loc_idx][flight][rows]),
            "balloon_id": strings(ids[flight][rows]),
            "time": utc(t_us[rows]),
            "pressure": np.round(pressure, 1)[rows],
            "temperature": np.round(temperature, 2)[rows],
            "humidity": np.round(humidity, 1)[rows],
            "altitude": np.round(altitude, 1)[rows],
        }
    )
    first_loc = str(locations[0])
    first_id = str(ids[0])
    launch0 = ts(launch_us[0])
    minute_start = (launch0 + pd.Timedelta(minutes=30)).floor("min")
    queries = [
        QueryIntent(
            "balloon_hour",
            "range",
            f"Balloon {first_id} over the first hour of its flight",
            entity={"location": first_loc, "balloon_id": first_id},
            start=launch0,
            end=launch0 + pd.Timedelta(hours=1),
            weight=3.0,
        ),
        QueryIntent(
            "latest_reading",
            "latest",
            f"The latest reading of balloon {first_id}",
            entity={"location": first_loc, "balloon_id": first_id},
            limit=1,
            weight=3.0,
        ),
        QueryIntent(
            "location_minute",
            "range",
            f"Every balloon over {first_loc} during one minute",
            entity={"location": first_loc},
            start=minute_start,
            end=minute_start + pd.Timedelta(minutes=1),
            weight=2.0,
        ),
        QueryIntent(
            "location_pressure_week",
            "range",
            f"Pressure of every balloon over {first_loc} for a week",
            entity={"location": first_loc},
            start=START,
            end=ts(us(START) + 7 * US_PER_DAY),
            measures=("pressure",),
            weight=1.0,
        ),
        QueryIntent(
            "all_locations_minute",
            "slice",
            "Every balloon everywhere during one minute",
            start=minute_start,
            end=minute_start + pd.Timedelta(minutes=1),
            weight=1.0,
        ),
    ]
    return frame, queries
