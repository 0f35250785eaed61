"""server_metrics: Heroic-shaped series — a key, tags and resource identifiers, many hosts.

Columns are Heroic's names: ``key``; the tags ``cpu-type``, ``site``,
``system-component``, ``unit``, ``what``; the resources ``host`` and
``podname``. A tag holding ``""`` is absent from that series (memory series
have no ``cpu-type``), so Heroic's row key leaves it out. Every host reports
every 10 seconds from Heroic's own example time (1300000000000 ms,
2011-03-13 07:06:40 UTC): CPU idle and user percentages (a daily-ish load
cycle, per-host load, spikes), memory used (slowly growing, with GC drops)
and network bytes received per second (heavy-tailed). Heroic's example series
(system / gew / cpu-idle-percentage on database.example.com,
pod-example-123-abc) is included with its two documented points, 42.0 at
1300000000000 and 84.0 at 1300001000000, so the base-timestamp + offset layout
(G16) can be checked against the page exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.datasets._frames import US_PER_S, split, strings, ts, utc
from workbench.datasets.model import QueryIntent

TAGS = ["cpu-type", "site", "system-component", "unit", "what"]
RESOURCES = ["host", "podname"]
ENTITY = ["key", *TAGS, *RESOURCES]
EMPTY_OK = TAGS  # "" = this tag is absent from the series (Heroic's key leaves it out)
TIME = "time"
MEASURES = ["value"]
UNITS = {"value": "per series: the 'unit' tag (%, B, B/s)"}
OPTIONS: dict[str, object] = {}
DESCRIPTION = (
    "Heroic-shaped server metrics every 10 s from 2011-03-13 07:06:40 UTC: key, tags "
    "(cpu-type, site, system-component, unit, what) and resources (host, podname), many hosts."
)

START_MS = 1_300_000_000_000  # Heroic's example timestamp
INTERVAL_S = 10
SITES = ["gew", "lon", "ash", "sfo", "sto", "sin"]
ROLES = ["web", "api", "db", "cache", "queue", "batch"]
# (key, cpu-type, system-component, unit, what)
METRICS = [
    ("system", "idle", "cpu", "%", "cpu-idle-percentage"),
    ("system", "user", "cpu", "%", "cpu-user-percentage"),
    ("system", "", "memory", "B", "memory-used"),
    ("system", "", "network", "B/s", "rx-bytes"),
]
EXAMPLE = {
    "key": "system",
    "cpu-type": "idle",
    "site": "gew",
    "system-component": "cpu",
    "unit": "%",
    "what": "cpu-idle-percentage",
    "host": "database.example.com",
    "podname": "pod-example-123-abc",
}
EXAMPLE_POINTS = {
    1_300_000_000_000: 42.0,
    1_300_001_000_000: 84.0,
}  # ms → value, from Heroic's page
_POD_CHARS = np.array(list("bcdfghjklmnpqrstvwxz2456789"))


def hosts(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(host, podname, site) for n hosts; the first is Heroic's example host."""
    site = rng.choice(len(SITES), n)
    site[0] = 0
    role = rng.choice(len(ROLES), n)
    suffix = rng.choice(_POD_CHARS, (n, 5))
    names = [
        f"{ROLES[r]}-{i:04d}.{SITES[s]}.example.com"
        for i, (r, s) in enumerate(zip(role, site, strict=True))
    ]
    pods = [
        f"{ROLES[r]}-{i:04x}-{''.join(c)}"
        for i, (r, c) in enumerate(zip(role, suffix, strict=True))
    ]
    names[0], pods[0] = EXAMPLE["host"], EXAMPLE["podname"]
    return (
        np.array(names, dtype=object),
        np.array(pods, dtype=object),
        np.array(SITES, dtype=object)[site],
    )


def generate(n_events: int, rng: np.random.Generator) -> tuple[pd.DataFrame, list[QueryIntent]]:
    """Heroic-shaped server metrics: ``n_events`` events and their queries, from ``rng``.

    Why one function: the draws from its one seeded generator must stay in this order (every
    value of the dataset, and the tests' hand-derived figures, depend on it), so it reads top to
    bottom as the data's story.
    """
    n_metrics = len(METRICS)
    # at least 20 minutes (Heroic's second point is 16m40s in), at most 30 days
    n_hosts, n_points = split(
        n_events // n_metrics,
        entities=float(np.clip(n_events / (4 * 240), 2, 500)),
        lo_t=120,
        hi_t=30 * 8640,
        lo_e=2,
    )
    host, pod, site = hosts(n_hosts, rng)
    steps = np.arange(n_points)
    t_us = START_MS * 1000 + steps * INTERVAL_S * US_PER_S
    hours = steps * INTERVAL_S / 3600.0

    load = rng.uniform(0.15, 0.6, n_hosts)[:, None]
    cycle = 0.25 * np.sin(2 * np.pi * (hours[None, :] - 6) / 24)  # daily load swing
    wander = (
        0.08
        * np.cumsum(rng.normal(0, 0.05, (n_hosts, n_points)), axis=1)
        / np.sqrt(n_points / 100 + 1)
    )
    spikes = (rng.random((n_hosts, n_points)) < 0.01) * rng.uniform(0.2, 0.5, (n_hosts, n_points))
    busy = np.clip(
        load + cycle * load + wander + spikes + rng.normal(0, 0.03, (n_hosts, n_points)), 0.01, 0.99
    )
    user = np.round(100 * busy * rng.uniform(0.6, 0.85, (n_hosts, 1)), 1)
    idle = np.round(100 * (1 - busy), 1)
    mem_total = rng.choice([8, 16, 32, 64], n_hosts)[:, None] * 2.0**30
    leak = np.cumsum(rng.exponential(1.0, (n_hosts, n_points)), axis=1)
    leak = leak - np.maximum.accumulate(
        np.where(rng.random((n_hosts, n_points)) < 0.005, leak, 0), axis=1
    )
    memory = np.round(mem_total * np.clip(0.35 + 0.002 * leak, 0.05, 0.97))
    rx = np.round(rng.lognormal(np.log(2e5), 1.0, (n_hosts, n_points)) * (0.5 + busy))
    # Heroic's documented points for its example series (host 0)
    for ms, value in EXAMPLE_POINTS.items():
        idx = (ms - START_MS) // (INTERVAL_S * 1000)
        idle[0, idx] = value

    values = np.stack([idle, user, memory, rx])  # (metric, host, point)
    series_metric = np.repeat(np.arange(n_metrics), n_hosts)
    series_host = np.tile(np.arange(n_hosts), n_metrics)
    metric = np.array(METRICS, dtype=object)
    series = pd.DataFrame(
        {
            "key": metric[series_metric, 0],
            "cpu-type": metric[series_metric, 1],
            "site": site[series_host],
            "system-component": metric[series_metric, 2],
            "unit": metric[series_metric, 3],
            "what": metric[series_metric, 4],
            "host": host[series_host],
            "podname": pod[series_host],
        }
    )
    # lay the series out in key order (a small sort), so the events come out sorted by entity then time
    order = series.sort_values(ENTITY, kind="stable").index.to_numpy()
    frame = pd.DataFrame(
        {c: strings(np.repeat(series[c].to_numpy(dtype=object)[order], n_points)) for c in ENTITY}
    )
    frame["time"] = utc(np.tile(t_us, len(order)))
    frame["value"] = (
        values.reshape(n_metrics * n_hosts, n_points)[order].reshape(-1).astype(np.float64)
    )

    end = ts(t_us[-1] + INTERVAL_S * US_PER_S)
    last15 = end - pd.Timedelta(minutes=15)
    dashboard = {k: EXAMPLE[k] for k in ["key", *TAGS]}
    queries = [
        QueryIntent(
            "host_cpu_15min",
            "range",
            "CPU idle % of database.example.com over the last 15 minutes",
            entity=dict(EXAMPLE),
            start=last15,
            end=end,
            weight=3.0,
        ),
        QueryIntent(
            "site_cpu_dashboard",
            "range",
            "CPU idle % of every host in site gew over the last 15 minutes (a dashboard panel)",
            entity=dashboard,
            start=last15,
            end=end,
            weight=3.0,
        ),
        QueryIntent(
            "heroic_point_1",
            "point",
            "Heroic's example series at its first documented point (42.0)",
            entity=dict(EXAMPLE),
            start=ts(1_300_000_000_000 * 1000),
            weight=0.5,
        ),
        QueryIntent(
            "heroic_point_2",
            "point",
            "Heroic's example series at its second documented point (84.0)",
            entity=dict(EXAMPLE),
            start=ts(1_300_001_000_000 * 1000),
            weight=0.5,
        ),
        QueryIntent(
            "host_latest",
            "latest",
            "The latest CPU idle % of database.example.com",
            entity=dict(EXAMPLE),
            limit=1,
            weight=2.0,
        ),
        QueryIntent(
            "fleet_minute",
            "slice",
            "Every series during the first minute (a fleet-wide snapshot)",
            start=ts(START_MS * 1000),
            end=ts(START_MS * 1000) + pd.Timedelta(minutes=1),
            weight=1.0,
        ),
    ]
    return frame, queries
