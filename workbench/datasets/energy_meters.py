"""energy_meters: smart electricity meters reporting every 15 minutes, many meters.

Meters have sequential numeric IDs (100001, 100002, …: the case G23 warns
about when such IDs lead the row key). Every meter reports at exactly :00, :15,
:30 and :45 from 2015-03-01 00:00 UTC, with no gaps:

* ``kwh`` — energy used in the interval. Homes (80 %) follow a residential load
  curve (night base load, a morning peak around 07:30, an evening peak around
  19:00, more at weekends and on cold days); businesses (20 %) use most on
  weekday working hours and little at night or at weekends. Each meter has its
  own scale (lognormal) and noise.
* ``voltage`` — line voltage (V) around the 230 V nominal, sagging slightly when
  the local load is high, within the ±10 % band.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datasets._frames import US_PER_MIN, smooth_noise, split, ts, us, utc
from workbench.datasets.model import QueryIntent

ENTITY = ["meter_id"]
TIME = "time"
MEASURES = ["kwh", "voltage"]
UNITS = {"kwh": "kWh per 15 min", "voltage": "V"}
OPTIONS: dict[str, object] = {}
DESCRIPTION = (
    "Smart meters (sequential int64 IDs from 100001) reporting every 15 minutes from "
    "2015-03-01: energy used (daily load curves, homes and businesses) and line voltage."
)

START = "2015-03-01"
FIRST_ID = 100_001
INTERVAL_MIN = 15
PER_DAY = 24 * 60 // INTERVAL_MIN


def _bump(hour: np.ndarray, centre: float, width: float) -> np.ndarray:
    d = (hour - centre + 12) % 24 - 12
    return np.exp(-0.5 * (d / width) ** 2)


def generate(n_events: int, rng: np.random.Generator) -> tuple[pd.DataFrame, list[QueryIntent]]:
    n_meters, n_days = split(
        n_events // PER_DAY, entities=(n_events / PER_DAY) ** 0.6, lo_t=2, hi_t=365
    )
    n_t = n_days * PER_DAY
    t_us = us(START) + np.arange(n_t, dtype=np.int64) * INTERVAL_MIN * US_PER_MIN
    hour = (np.arange(n_t) % PER_DAY) * INTERVAL_MIN / 60.0
    weekday = (pd.Timestamp(START).day_of_week + np.arange(n_t) // PER_DAY) % 7
    weekend = weekday >= 5

    home_shape = (
        0.25
        + 0.55 * _bump(hour, 7.5, 1.2)
        + 1.0 * _bump(hour, 19.0, 2.0)
        + 0.15 * _bump(hour, 13.0, 2.5) * (1 + weekend)
    )
    work_shape = 0.2 + 1.1 * ((hour >= 8) & (hour < 18)) * ~weekend
    business = rng.random(n_meters) < 0.2
    shape = np.where(business[:, None], work_shape[None, :], home_shape[None, :])
    scale = rng.lognormal(np.log(0.12), 0.45, n_meters) * np.where(business, 4.0, 1.0)
    cold = 1 + 0.15 * smooth_noise(rng, (1, n_days), 3).repeat(
        PER_DAY, axis=1
    )  # heating on cold days
    noise = rng.gamma(8.0, 1 / 8.0, (n_meters, n_t))  # mean 1, skewed
    kwh = np.round(scale[:, None] * shape * cold * noise, 3)

    area_load = kwh.mean(axis=0) / kwh.mean()
    voltage = (
        231.0
        - 3.0 * (area_load - 1)
        + rng.normal(0, 1.2, (n_meters, n_t))
        + rng.normal(0, 1.5, (n_meters, 1))
    )
    voltage = np.round(np.clip(voltage, 207.0, 253.0), 1)

    ids = np.arange(FIRST_ID, FIRST_ID + n_meters, dtype=np.int64)
    frame = pd.DataFrame(
        {
            "meter_id": np.repeat(ids, n_t),
            "time": utc(np.tile(t_us, n_meters)),
            "kwh": kwh.ravel(),
            "voltage": voltage.ravel(),
        }
    )
    start = ts(t_us[0])
    queries = [
        QueryIntent(
            "meter_day",
            "range",
            f"Meter {FIRST_ID} over 1 March 2015 (96 readings)",
            entity={"meter_id": FIRST_ID},
            start=start,
            end=start + pd.Timedelta(days=1),
            weight=3.0,
        ),
        QueryIntent(
            "latest_reading",
            "latest",
            f"The latest reading of meter {FIRST_ID}",
            entity={"meter_id": FIRST_ID},
            limit=1,
            weight=4.0,
        ),
        QueryIntent(
            "all_meters_hour",
            "slice",
            "Every meter from 18:00 to 19:00 on 1 March 2015 (evening peak)",
            start=start + pd.Timedelta(hours=18),
            end=start + pd.Timedelta(hours=19),
            weight=2.0,
        ),
        QueryIntent(
            "meter_billing_period",
            "range",
            f"Meter {FIRST_ID}'s usage over its first two days",
            entity={"meter_id": FIRST_ID},
            start=start,
            end=start + pd.Timedelta(days=2),
            measures=("kwh",),
            weight=1.0,
        ),
    ]
    return frame, queries
