"""A Parquet file of 10M events, your own data end to end: from_parquet (pyarrow, a progress bar
per row group) -> default queries -> analyze of the recommended design. Target: < 2 GB peak RSS.

Each step runs in a fresh process so its peak RSS is its own. Ratios: from_parquet's time
(validation, default queries) against pandas.read_parquet of the same file in the same process;
the peak against the named dataset of the same events (load_dataset, the design with the same
key) analysed in its own fresh process: "the same memory budget as the named datasets".

    PYTHONPATH=. python bench/bench_parquet.py [--events 10000000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _memory import peak_rss_mb


def write(path: str, events: int) -> dict:
    import workbench as wb

    ds = wb.load_dataset("energy_meters", size=events)
    frame = ds.frame  # the generator's columns as they are (meter_id int64)
    frame.to_parquet(path, row_group_size=1_000_000, index=False)
    return {
        "events": len(frame),
        "columns": list(frame.columns),
        "bytes": Path(path).stat().st_size,
    }


def analyse(path: str) -> dict:
    import pandas as pd

    import workbench as wb
    from workbench.analysis import analyze

    t0 = time.perf_counter()
    # every event (sample=1): the in-memory path's budget; by default a file over
    # parquet.SHAPE_ABOVE events is a shape sample
    ds = wb.from_parquet(
        path, entity="meter_id", time="time", measures=["kwh", "voltage"], sample=1
    )
    load_s = time.perf_counter() - t0
    rss_load = peak_rss_mb()
    schema = wb.preset(ds, wb.pattern_names(ds)[0])
    t0 = time.perf_counter()
    a = analyze(ds, schema)
    analyse_s = time.perf_counter() - t0
    peak = peak_rss_mb()
    timings = {k: round(v) for k, v in a.timings_ms.items()}
    verdict = a.keyspace.verdict()
    queries = repr(ds.queries)
    n = len(ds)
    del a, ds
    # the baseline last, so the peak above is the workbench's own
    t0 = time.perf_counter()
    base = pd.read_parquet(path)
    read_s = time.perf_counter() - t0
    del base
    return {
        "events": n,
        "queries": queries,
        "design": schema.name,
        "read_parquet_s": read_s,
        "from_parquet_s": load_s,
        "ratio": load_s / read_s,
        "analyze_s": analyse_s,
        "peak_rss_mb_after_load": rss_load,
        "peak_rss_mb": peak,
        "timings_ms": timings,
        "verdict": verdict,
    }


def named(events: int) -> dict:
    import workbench as wb
    from workbench.analysis import analyze

    ds = wb.load_dataset("energy_meters", size=events)
    # the named gallery's design closest to entity_first: meter id, then the time
    a = analyze(ds, wb.preset("energy_meters", "sequential_id"))
    return {"events": len(ds), "peak_rss_mb": peak_rss_mb(), "verdict": a.keyspace.verdict()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=10_000_000)
    ap.add_argument("--child", choices=["write", "analyse", "named"], help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "write":
        print(json.dumps(write(args.path, args.events)))
        return
    if args.child == "analyse":
        print(json.dumps(analyse(args.path)))
        return
    if args.child == "named":
        print(json.dumps(named(args.events)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "events.parquet")
        outs = {}
        for step in ("write", "analyse", "named"):
            cmd = [
                sys.executable,
                __file__,
                "--child",
                step,
                "--path",
                path,
                "--events",
                str(args.events),
            ]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                print(res.stderr[-3000:])
                raise SystemExit(f"{step} failed (exit {res.returncode})")
            sys.stderr.write(res.stderr[-400:])  # the progress bar's last state
            outs[step] = out = json.loads(res.stdout.strip().splitlines()[-1])
            print(step, json.dumps(out, indent=1))
        out, base = outs["analyse"], outs["named"]
        peak = out["peak_rss_mb"]
        print(f"peak RSS {peak:,.0f} MB (target < 2,048 MB): {'OK' if peak < 2048 else 'OVER'}")
        print(
            f"peak RSS / the named dataset's ({base['peak_rss_mb']:,.0f} MB): "
            f"{peak / base['peak_rss_mb']:.2f}"
        )
        print(f"from_parquet / read_parquet time ratio: {out['ratio']:.2f}")


if __name__ == "__main__":
    main()
