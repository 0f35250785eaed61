"""fx_prices: bid/ask quotes of currency pairs at irregular sub-second times (the paper's USD/JPY).

Quotes arrive in bursts, as on a real feed: bursts start at random moments of the
trading week (Sunday 22:00 to Friday 22:00 UTC; nothing at weekends), more often
in the London and New York sessions, and the quotes inside a burst are tens to
hundreds of milliseconds apart (exponential gaps, microsecond timestamps: G31).
The mid price is a geometric random walk in trading time with each pair's annual
volatility (7–12 %) and fat-tailed steps; the spread is each pair's typical spread
in pips, wider in thin hours and around the 22:00 rollover, never below 0.1 pip,
so ask > bid always. US non-farm payrolls on Friday 2015-03-06 13:30 UTC makes
every pair burst at once and the dollar jump, which the "all pairs at one
minute" query looks at. The moving-average query needs six weeks of USD/JPY.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datasets._frames import US_PER_DAY, US_PER_S, strings, ts, us, utc
from workbench.datasets.model import QueryIntent

ENTITY = ["pair"]
TIME = "time"
MEASURES = ["bid", "ask"]
UNITS = {"bid": "quote currency", "ask": "quote currency"}
OPTIONS: dict[str, object] = {}
DESCRIPTION = (
    "Bid/ask quotes of currency pairs in sub-second bursts during trading hours (Sunday 22:00 to "
    "Friday 22:00 UTC, weeks on end) from 2015-03-01 22:00 UTC: geometric random walk, realistic "
    "volatility and spreads."
)

START = "2015-03-01T22:00:00Z"  # Sunday: the FX week opens
NEWS = "2015-03-06T13:30:00Z"  # US non-farm payrolls
TRADING_WEEK_S = 5 * 86_400
# pair → (mid on 2015-03-01, annual volatility, decimals, pip, typical spread in pips, liquidity weight)
PAIRS: dict[str, tuple[float, float, int, float, float, float]] = {
    "USD/JPY": (119.70, 0.09, 3, 0.01, 0.8, 0.20),
    "EUR/USD": (1.1195, 0.09, 5, 0.0001, 0.3, 0.25),
    "GBP/USD": (1.5430, 0.08, 5, 0.0001, 0.6, 0.12),
    "AUD/USD": (0.7810, 0.11, 5, 0.0001, 0.5, 0.08),
    "USD/CHF": (0.9530, 0.10, 5, 0.0001, 0.8, 0.06),
    "USD/CAD": (1.2510, 0.08, 5, 0.0001, 0.8, 0.06),
    "EUR/JPY": (134.00, 0.10, 3, 0.01, 1.0, 0.06),
    "NZD/USD": (0.7545, 0.11, 5, 0.0001, 1.0, 0.04),
    "EUR/GBP": (0.7255, 0.07, 5, 0.0001, 0.7, 0.04),
    "GBP/JPY": (184.70, 0.10, 3, 0.01, 1.5, 0.03),
    "AUD/JPY": (93.50, 0.12, 3, 0.01, 1.2, 0.03),
    "EUR/CHF": (1.0670, 0.08, 5, 0.0001, 1.2, 0.03),
}
# relative quote activity per UTC hour: Asia quiet, London busy, London/New York overlap busiest
_HOURLY = np.array(
    [3, 3, 3, 3, 3, 3, 4, 7, 9, 9, 9, 9, 10, 10, 10, 10, 8, 6, 5, 4, 3, 3, 1, 2], dtype=float
)
_BURST_MEAN = 8  # quotes per burst (geometric)
_GAP_MEAN_S = 0.15  # seconds between quotes inside a burst
_NEWS_QUOTES = 20


def _to_wall(u: np.ndarray, start_us: int) -> np.ndarray:
    """Trading-week seconds (µs) → wall-clock µs: each 5-day trading week is followed by a weekend."""
    week_us = TRADING_WEEK_S * US_PER_S
    return start_us + (u // week_us) * 7 * US_PER_DAY + u % week_us


def _to_trading(wall_us: int, start_us: int) -> int:
    d = wall_us - start_us
    return int((d // (7 * US_PER_DAY)) * TRADING_WEEK_S * US_PER_S + d % (7 * US_PER_DAY))


def generate(n_events: int, rng: np.random.Generator) -> tuple[pd.DataFrame, list[QueryIntent]]:
    n_pairs = int(np.clip(round(np.log2(n_events / 100)), 3, len(PAIRS)))
    names = sorted(list(PAIRS)[:n_pairs])  # sorted: the frame comes out in key order
    spec = np.array([PAIRS[p] for p in names])
    n_weeks = int(
        np.clip(np.ceil(n_events / 700_000 * 6), 6, 52)
    )  # ≥ 6 weeks for the 30-day average
    start_us = us(START)
    span_us = n_weeks * TRADING_WEEK_S * US_PER_S

    # bursts: (pair, start in trading time), sized so the total lands near n_events
    liquidity = spec[:, 5] / spec[:, 5].sum()
    n_regular = max(n_events - n_pairs * _NEWS_QUOTES, n_pairs * 20)
    n_bursts = max(n_pairs, n_regular // _BURST_MEAN)
    b_pair = np.sort(rng.choice(n_pairs, size=n_bursts, p=liquidity))
    hour_of_week = np.arange(n_weeks * 120)
    w = _HOURLY[(22 + hour_of_week) % 24]
    b_hour = rng.choice(len(w), size=n_bursts, p=w / w.sum())
    b_start = b_hour * 3_600 * US_PER_S + rng.integers(0, 3_600 * US_PER_S, n_bursts)
    # the payrolls burst: every pair, same moment
    news_u = _to_trading(us(NEWS), start_us)
    b_pair = np.concatenate([b_pair, np.arange(n_pairs)])
    b_start = np.concatenate([b_start, news_u + rng.integers(20_000, 80_000, n_pairs)])
    sizes = np.concatenate(
        [rng.geometric(1 / _BURST_MEAN, n_bursts), np.full(n_pairs, _NEWS_QUOTES)]
    )

    pair = np.repeat(b_pair, sizes)
    gaps = np.maximum(rng.exponential(_GAP_MEAN_S * US_PER_S, len(pair)).astype(np.int64), 1)
    g = np.cumsum(gaps)
    first_of_burst = np.cumsum(sizes) - sizes
    u = (
        np.repeat(b_start, sizes) + g - np.repeat(g[first_of_burst], sizes)
    )  # burst start + gaps so far
    u = np.clip(u, 0, span_us - 1)
    # order by pair then time, and make each pair's times strictly increasing (1 µs nudges)
    big = np.int64(10) ** 16
    key = np.sort(pair.astype(np.int64) * big + u)
    idx = np.arange(len(key), dtype=np.int64)
    key = np.maximum.accumulate(key - idx) + idx
    pair, u = key // big, key % big
    n = len(u)

    # mid: geometric random walk in trading time, fat-tailed steps
    first = np.r_[True, pair[1:] != pair[:-1]]
    dt_years = np.where(first, 0, np.diff(u, prepend=0)) / (260 * 86_400 * US_PER_S)
    z = rng.standard_t(4, n) / np.sqrt(2.0)
    vol = spec[pair, 1]
    step = vol * np.sqrt(dt_years) * z - 0.5 * vol**2 * dt_years
    base, quote = np.array([p[:3] for p in names]), np.array([p[4:] for p in names])
    jump = np.where(base == "USD", 0.006, np.where(quote == "USD", -0.008, 0.0))
    step = step + np.where(
        np.r_[False, (u[1:] >= news_u) & (u[:-1] < news_u) & ~first[1:]], jump[pair], 0.0
    )
    cum = np.cumsum(step)
    starts = np.flatnonzero(first)
    cum -= np.repeat(cum[starts], np.diff(np.r_[starts, n]))
    mid = spec[pair, 0] * np.exp(cum)

    wall = _to_wall(u, start_us)
    hour = (wall // (3_600 * US_PER_S)) % 24
    thin = np.where(
        (hour >= 21) & (hour < 23), 3.0, np.where((hour < 7) & (spec[pair, 3] < 0.001), 1.7, 1.0)
    )
    pips = np.maximum(np.round(spec[pair, 4] * thin * rng.lognormal(0.0, 0.3, n), 1), 0.1)
    decimals = spec[pair, 2].astype(int)
    scale = 10.0**decimals
    bid = np.round((mid - pips * spec[pair, 3] / 2) * scale) / scale
    ask = np.round((bid + pips * spec[pair, 3]) * scale) / scale

    frame = pd.DataFrame(
        {
            "pair": strings(np.array(names, dtype=object)[pair]),
            "time": utc(wall),
            "bid": bid,
            "ask": ask,
        }
    )
    news = ts(us(NEWS))
    queries = [
        QueryIntent(
            "usdjpy_moving_averages",
            "range",
            "USD/JPY over six weeks for its 5-, 10- and 30-day moving averages",
            entity={"pair": "USD/JPY"},
            start="2015-03-01",
            end="2015-04-11",
            aggregate="moving_average:5D,10D,30D",
            weight=2.0,
        ),
        QueryIntent(
            "all_pairs_minute",
            "slice",
            "Every pair during the payrolls minute (13:30 UTC, 6 March 2015)",
            start=news,
            end=news + pd.Timedelta(minutes=1),
            weight=2.0,
        ),
        QueryIntent(
            "latest_quote",
            "latest",
            "The latest USD/JPY quote",
            entity={"pair": "USD/JPY"},
            limit=1,
            weight=5.0,
        ),
        QueryIntent(
            "usdjpy_day",
            "range",
            "USD/JPY on payrolls day",
            entity={"pair": "USD/JPY"},
            start="2015-03-06",
            end="2015-03-07",
            weight=1.0,
        ),
    ]
    return frame, queries
