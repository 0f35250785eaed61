"""garden_temperature: the paper's vegetable-garden thermometer (``VEGGIEGARDEN#20150301``).

One reading each morning (07:00 UTC) per garden from 2015-03-01, or one an hour
with ``freq="1h"``. Temperatures (°F) follow a seasonal cycle (warm, coastal
climate: ~58 °F March mornings, ~78 °F July mornings), a daily cycle for hourly
data (coolest before dawn, warmest mid-afternoon), weather that several gardens
share for days at a time, and each garden's own offset (the greenhouse is
warmer). VEGGIEGARDEN's first March mornings are the paper's own numbers
(60.4, 61.2, 61.0, 65.1, 62.2 … 60.4 on the 31st), so the month row
``VEGGIEGARDEN#20150301`` with qualifiers ``TEMP:1`` … ``TEMP:31`` can be checked
against the paper (G02: a bounded short-and-wide row).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datasets._frames import (
    US_PER_DAY,
    US_PER_H,
    smooth_noise,
    split,
    strings,
    ts,
    us,
    utc,
)
from workbench.datasets.model import QueryIntent
from workbench.errors import DatasetError

ENTITY = ["garden"]
TIME = "time"
MEASURES = ["temp_f"]
UNITS = {"temp_f": "°F"}
OPTIONS = {"freq": "1D"}
DESCRIPTION = (
    "Morning (or hourly) temperatures per garden from 2015-03-01: seasonal and daily "
    "cycles, shared weather, per-garden offsets; the paper's VEGGIEGARDEN example."
)

START = "2015-03-01"
MORNING_HOUR = 7
GARDENS = [
    "VEGGIEGARDEN",
    "HERBGARDEN",
    "ROSEGARDEN",
    "GREENHOUSE",
    "ORCHARD",
    "BERRYPATCH",
    "ROOFGARDEN",
    "POTAGER",
    "CACTUSGARDEN",
    "FERNERY",
]
# The paper's VEGGIEGARDEN#20150301 row: day of March → °F.
PAPER_MARCH = {1: 60.4, 2: 61.2, 3: 61.0, 4: 65.1, 5: 62.2, 31: 60.4}


def garden_names(n: int) -> np.ndarray:
    named = GARDENS[:n]
    extra = [
        f"PLOT{i:04d}" for i in range(1, n - len(named) + 1)
    ]  # zero-padded: sorts numerically (G21)
    return np.array(named + extra, dtype=object)


def generate(
    n_events: int, rng: np.random.Generator, freq: str = "1D"
) -> tuple[pd.DataFrame, list[QueryIntent]]:
    if freq not in ("1D", "1h"):
        raise DatasetError(
            f"garden_temperature: freq={freq!r} is not supported; use '1D' (one reading each "
            "morning) or '1h' (hourly)."
        )
    hourly = freq == "1h"
    per_day = 24 if hourly else 1
    # at least March (hourly) or March to May (daily) so the queries always find data; at most ten years
    n_gardens, n_days = split(
        n_events // per_day,
        entities=np.sqrt(n_events / (200 if hourly else 20)),
        lo_t=31 if hourly else 92,
        hi_t=3650,
        lo_e=2,
    )
    names = garden_names(n_gardens)
    start = us(START)
    day_us = start + np.arange(n_days, dtype=np.int64) * US_PER_DAY
    doy = pd.DatetimeIndex(day_us.astype("datetime64[us]")).day_of_year.to_numpy()

    offset = rng.normal(0.0, 2.5, n_gardens)
    offset[names == "VEGGIEGARDEN"] = 0.0
    offset[names == "GREENHOUSE"] = 9.0
    seasonal = 71.0 + 11.0 * np.cos(2 * np.pi * (doy - 200) / 365.25)  # °F, daily mean
    regional = 4.0 * smooth_noise(rng, (1, n_days), 5)  # weather shared by all
    local = 1.5 * smooth_noise(rng, (n_gardens, n_days), 2)  # garden's own weather
    daily_mean = seasonal[None, :] + regional + local + offset[:, None]  # (gardens, days)
    daily_range = 8.0 + 3.0 * np.cos(2 * np.pi * (doy - 200) / 365.25)  # wider in summer

    if hourly:
        hours = np.arange(24)
        cycle = np.cos(2 * np.pi * (hours - 15) / 24)  # max 15:00, min 03:00
        temp = (
            daily_mean[:, :, None]
            + daily_range[None, :, None] * cycle[None, None, :]
            + rng.normal(0, 0.6, (n_gardens, n_days, 24))
        )
        t_us = (day_us[:, None] + hours[None, :] * US_PER_H).ravel()
        temp = temp.reshape(n_gardens, -1)
    else:
        temp = daily_mean + daily_range[None, :] * np.cos(2 * np.pi * (MORNING_HOUR - 15) / 24)
        temp = temp + rng.normal(0, 0.8, temp.shape)
        t_us = day_us + MORNING_HOUR * US_PER_H
    temp = np.round(temp, 1)
    # the paper's numbers for VEGGIEGARDEN's March mornings
    veg = int(np.flatnonzero(names == "VEGGIEGARDEN")[0])
    for day, value in PAPER_MARCH.items():
        col = (day - 1) * per_day + (MORNING_HOUR if hourly else 0)
        temp[veg, col] = value

    n_t = len(t_us)
    frame = pd.DataFrame(
        {
            "garden": strings(np.repeat(names, n_t)),
            "time": utc(np.tile(t_us, n_gardens)),
            "temp_f": temp.ravel(),
        }
    )
    last = ts(t_us[-1])
    queries = [
        QueryIntent(
            "garden_month",
            "range",
            "VEGGIEGARDEN's readings for March 2015 (the paper's month row)",
            entity={"garden": "VEGGIEGARDEN"},
            start="2015-03-01",
            end="2015-04-01",
            weight=3.0,
        ),
        QueryIntent(
            "latest_reading",
            "latest",
            "The newest reading of VEGGIEGARDEN",
            entity={"garden": "VEGGIEGARDEN"},
            limit=1,
            weight=5.0,
        ),
        QueryIntent(
            "all_gardens_day",
            "slice",
            "Every garden on 15 March 2015",
            start="2015-03-15",
            end="2015-03-16",
            weight=1.0,
        ),
        QueryIntent(
            "garden_last_week",
            "range",
            "HERBGARDEN over the last 7 days of data",
            entity={"garden": "HERBGARDEN"},
            start=last.normalize() - pd.Timedelta(days=6),
            end=last.normalize() + pd.Timedelta(days=1),
            weight=1.0,
        ),
    ]
    return frame, queries
