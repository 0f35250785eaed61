"""The production model's aggregates of a Parquet file: DuckDB over the file
(``datasets/file_aggregates.py``) against the pandas path (``from_parquet`` then the same
figures on the loaded events), time and peak memory, in the same run.

Each step runs in a fresh process so its peak RSS (VmHWM, bench/_memory.py) is its own. The
file: ``--series`` sensors, ``--events`` readings in all, one a minute each. Above
``--pandas-max`` events the pandas step is left out (it would not fit: 100 M events load as
~3.2 GB of columns) and DuckDB runs alone, within its memory limit.

    PYTHONPATH=. python bench/bench_file_aggregates.py [--events 10000000] [--series 10000]
    PYTHONPATH=. python bench/bench_file_aggregates.py --events 100000000 --series 100000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _memory import peak_rss_mb, run_step

T0 = "2026-01-01"


def write(path: str, events: int, series: int, first_minute: int = 0) -> dict:
    """``series`` sensors, ``events`` readings in all, one a minute each from ``first_minute``
    minutes after T0 (a later part of a Parquet set starts where the one before ended)."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    per = events // series
    rng = np.random.default_rng(7)
    start = pd.Timestamp(T0, tz="UTC").value // 1000 + first_minute * 60_000_000
    schema = pa.schema(
        [("sensor_id", pa.int64()), ("time", pa.timestamp("us", tz="UTC")), ("value", pa.float64())]
    )
    with pq.ParquetWriter(path, schema) as w:
        step = max(1, 2_000_000 // per)  # sensors per row group: bounded memory while writing
        for a in range(0, series, step):
            ids = np.arange(a, min(a + step, series))
            n = len(ids) * per
            w.write_table(
                pa.table(
                    {
                        "sensor_id": np.repeat(ids + 1, per),
                        "time": pa.array(
                            start + np.tile(np.arange(per, dtype=np.int64) * 60_000_000, len(ids)),
                            pa.timestamp("us", tz="UTC"),
                        ),
                        "value": np.round(rng.normal(20, 5, n), 2),
                    },
                    schema=schema,
                )
            )
    return {"events": per * series, "bytes": Path(path).stat().st_size}


def _windows() -> dict:
    import pandas as pd

    t0 = pd.Timestamp(T0, tz="UTC")
    day = pd.Timedelta(days=1)
    return {  # a series' day, every series' hour, with an hour's pad (bucket rows)
        "sensor_1_day": (t0, t0 + day, {"sensor_id": 1}, 3600.0),
        "all_hour": (t0 + day / 2, t0 + day / 2 + pd.Timedelta(hours=1), {}, 0.0),
    }


def duck(path: str) -> dict:
    from workbench.datasets.file_aggregates import file_aggregates

    t = time.perf_counter()
    agg = file_aggregates(
        path, entity=["sensor_id"], time="time", lead=["sensor_id"], windows=_windows()
    )
    took = time.perf_counter() - t
    return {"s": took, "peak_rss_mb": peak_rss_mb(), "figures": _figures(agg)}


def _figures(agg) -> list:
    ws = [
        [w.answer_active, w.answer_events, w.other_active, w.other_events]
        for w in agg.windows.values()
    ]
    return [agg.events, agg.span_s, agg.series, agg.lead_sizes[0], ws]


def pandas_path(path: str) -> dict:
    import workbench as wb
    from workbench.analysis.production_reads import series_codes, window_counts
    from workbench.analysis.series import sample_span_s, series_counts
    from workbench.datasets.model import QueryIntent
    from workbench.datasets.workload import Workload

    t = time.perf_counter()
    ds = wb.from_parquet(path, entity="sensor_id", time="time", measures=["value"])
    codes = series_codes(ds)
    ws = []
    for name, (a, b, ent, pad) in _windows().items():
        q = QueryIntent(name, "range", name, entity=dict(ent), start=a, end=b)
        w = window_counts(ds, q, pad, codes)
        ws.append([w.answer_active, w.answer_events, w.other_active, w.other_events])
    sizes = ds.frame.groupby(["sensor_id"], sort=False).size()
    figures = [
        len(ds),
        sample_span_s(ds),
        series_counts(ds, Workload(), 1.0).sample,
        len(sizes),
        ws,
    ]
    took = time.perf_counter() - t
    return {"s": took, "peak_rss_mb": peak_rss_mb(), "figures": figures}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--series", type=int, default=10_000)
    ap.add_argument("--pandas-max", type=int, default=20_000_000)
    ap.add_argument("--child", choices=["write", "duckdb", "pandas"], help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.child == "write":
            out = write(args.path, args.events, args.series)
        else:
            out = (duck if args.child == "duckdb" else pandas_path)(args.path)
        print(json.dumps(out))
        return
    steps = ["write", "duckdb"] + (["pandas"] if args.events <= args.pandas_max else [])
    outs = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "events.parquet")
        for step in steps:
            extra = ["--events", str(args.events), "--series", str(args.series)]
            outs[step] = out = run_step(__file__, step, path, extra)
            print(step, json.dumps(out), flush=True)
    d = outs["duckdb"]
    print(f"DuckDB: {d['s']:.1f} s, peak {d['peak_rss_mb']:,.0f} MB")
    if "pandas" in outs:
        p = outs["pandas"]
        print(f"pandas path: {p['s']:.1f} s, peak {p['peak_rss_mb']:,.0f} MB")
        print(f"same figures: {p['figures'] == d['figures']}")
        print(f"DuckDB / pandas, time: {d['s'] / p['s']:.2f}×")
        print(f"DuckDB / pandas, peak: {d['peak_rss_mb'] / p['peak_rss_mb']:.2f}×")


if __name__ == "__main__":
    main()
