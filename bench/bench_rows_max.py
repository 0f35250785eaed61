"""The engine path's key distribution past ``Settings.rows_max``: ranges of consecutive rows
against the exact path, on a row-per-event key (``entity_first``: a second in the key).

A Parquet file of ``--series`` hosts × ``--readings`` (the first every second, the others
every ``--every`` s, 10 by default), read as a shape sample (``shape_events`` 100,000) so ``keyspace`` keys every event
of the file by DuckDB (``analysis/file_writes.py``). Each run is a fresh process (VmHWM,
bench/_memory.py): ``keyspace`` at 100,000 events/s with ``rows_max`` 2,000,000 (the exact
path: a row each) and each ``--bounds`` (ranges), its time, the process's peak RSS (the load of
the file included; DuckDB runs in it) and the figures the two paths share.

    PYTHONPATH=. python bench/bench_rows_max.py [--series 1000] [--readings 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from _memory import peak_rss_mb, run_step


def write(path: str, series: int, readings: int, every: int) -> None:
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    host = np.repeat([f"host{i:05d}" for i in range(series)], readings)
    secs = np.tile(np.arange(readings), series) * np.where(host == "host00000", 1, every)
    df = pd.DataFrame(
        {
            "host": host,
            "time": pd.Timestamp("2024-03-04", tz="UTC") + pd.to_timedelta(secs, unit="s"),
            "value": np.arange(len(host)) % 9000 + 1000.0,
        }
    )
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)


def child(path: str, rows_max: int) -> dict:
    import workbench as wb
    from workbench.analysis.overview import keyspace
    from workbench.analysis.settings import DEFAULT

    ds = wb.from_parquet(
        path, shape_events=100_000, entity="host", time="time", measures="value", progress=False
    )
    before = peak_rss_mb()
    t = time.perf_counter()
    kd = keyspace(
        ds,
        wb.preset(ds, "entity_first"),
        workload=wb.Workload(events_per_s=100_000),
        settings=DEFAULT.replace(rows_max=rows_max),
    )
    figures = ("n_writes", "n_rows", "n_tablets", "mean_write_share", "mean_tablet_write_share")
    return {
        "rows_max": rows_max,
        "keyspace_s": round(time.perf_counter() - t, 2),
        "peak_mb": round(peak_rss_mb()),
        "peak_before_keyspace_mb": round(before),
        "note": kd.source_note,
        **{f: getattr(kd, f) for f in (*figures, "hotspot_factor", "busiest_node_cpu")},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", type=int, default=1_000)
    ap.add_argument("--readings", type=int, default=1_000)
    ap.add_argument("--every", type=int, default=10, help="seconds between readings")
    ap.add_argument("--bounds", type=int, nargs="*", default=[500_000, 100_000])
    ap.add_argument("--child")
    ap.add_argument("--path")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.path, int(a.child))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "hosts.parquet")
        write(path, a.series, a.readings, a.every)
        for bound in [2_000_000, *a.bounds]:
            print(json.dumps(run_step(__file__, str(bound), path, [])))


if __name__ == "__main__":
    main()
