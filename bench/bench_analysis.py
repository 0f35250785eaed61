"""Benchmark: every analysis of one schema.

1. Workshop size (~30k events): ``wb.analyze`` on a prebuilt CellFrame, per preset,
   against two baselines measured in the same process on the same data:
   ``schema.to_cells`` itself (what producing the cells costs) and the contract
   model ``ReadPlan.evaluate`` for the dataset's queries (a naive per-query sort).
   Target: all analyses < 250 ms.
2. A 10-million-event dataset analysed end to end (cells built chunk by chunk),
   in a fresh subprocess so its peak RSS is clean. Target: < 2 GB peak.

Run: .venv/bin/python bench/bench_analysis.py [--dataset game_scores] [--big-events 10000000] [--skip-big]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from _memory import peak_rss_mb


def _best_ms(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def workshop(dataset: str) -> list[dict]:
    import workbench as wb
    from workbench.analysis import analyze

    ds = wb.load_dataset(dataset, size="workshop")
    out = []
    from workbench.errors import SchemaError

    for pattern in wb.pattern_names(dataset):
        schema = wb.preset(dataset, pattern)
        try:
            cells = schema.to_cells(ds)
        except SchemaError as e:  # presets that teach a failure (e.g. key collisions, G31)
            out.append({"pattern": pattern, "error": str(e).splitlines()[0][:90]})
            continue
        to_cells_ms = _best_ms(lambda: schema.to_cells(ds), repeat=3)
        analyze(ds, schema, cells=cells)  # warm caches / imports
        analyze_ms = _best_ms(lambda: analyze(ds, schema, cells=cells))
        plans = [schema.plan(q) for q in ds.queries]
        naive_ms = _best_ms(lambda: [p.evaluate(cells) for p in plans], repeat=3)
        a = analyze(ds, schema, cells=cells)
        out.append(
            {
                "pattern": pattern,
                "events": len(ds),
                "cells": len(cells),
                "analyze_ms": analyze_ms,
                "to_cells_ms": to_cells_ms,
                "naive_query_model_ms": naive_ms,
                "breakdown_ms": {k: round(v, 1) for k, v in a.timings_ms.items()},
            }
        )
    return out


def big(dataset: str, events: int, pattern: str | None) -> dict:
    import workbench as wb
    from workbench.analysis import analyze

    t0 = time.perf_counter()
    ds = wb.load_dataset(dataset, size=events)
    load_s = time.perf_counter() - t0
    rss_after_load = peak_rss_mb()
    schema = wb.preset(dataset, pattern or wb.pattern_names(dataset)[0])
    t0 = time.perf_counter()
    a = analyze(ds, schema)
    analyse_s = time.perf_counter() - t0
    return {
        "dataset": dataset,
        "pattern": pattern or wb.pattern_names(dataset)[0],
        "events": len(ds),
        "cells": a.index.n_cells,
        "rows": a.index.n_rows,
        "load_s": load_s,
        "analyze_s": analyse_s,
        "timings_ms": {k: round(v) for k, v in a.timings_ms.items()},
        "peak_rss_mb_after_load": rss_after_load,
        "peak_rss_mb": peak_rss_mb(),
        "verdict": a.keyspace.verdict(),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default="game_scores")
    ap.add_argument("--big-dataset", default="energy_meters")
    ap.add_argument("--big-pattern", default="sequential_id")
    ap.add_argument("--big-events", type=int, default=10_000_000)
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--child-big", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_big:
        print(json.dumps(big(args.big_dataset, args.big_events, args.big_pattern)))
        return

    print(f"== all analyses of one schema, {args.dataset} (workshop size) ==")
    rows = workshop(args.dataset)
    for r in rows:
        if "error" in r:
            print(f"{r['pattern']:<28} cannot build its cells (by design): {r['error']}")
            continue
        print(
            f"{r['pattern']:<28} {r['events']:>7,} events {r['cells']:>8,} cells  analyze {r['analyze_ms']:7.1f} ms"
            f"  | to_cells {r['to_cells_ms']:7.1f} ms (ratio {r['analyze_ms'] / r['to_cells_ms']:.2f})"
            f"  | ReadPlan.evaluate × queries {r['naive_query_model_ms']:7.1f} ms"
            f" (ratio {r['analyze_ms'] / r['naive_query_model_ms']:.2f})  {r['breakdown_ms']}"
        )
    worst = max(r["analyze_ms"] for r in rows if "error" not in r)
    print(f"worst preset: {worst:.1f} ms (target < 250 ms): {'OK' if worst < 250 else 'OVER'}")

    if not args.skip_big:
        print(
            f"\n== {args.big_events:,} events of {args.big_dataset}, end to end in a fresh process =="
        )
        cmd = [
            sys.executable,
            __file__,
            "--child-big",
            "--big-dataset",
            args.big_dataset,
            "--big-events",
            str(args.big_events),
        ] + (["--big-pattern", args.big_pattern] if args.big_pattern else [])
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            print(res.stderr[-3000:])
            raise SystemExit(f"big run failed (exit {res.returncode})")
        r = json.loads(res.stdout.strip().splitlines()[-1])
        print(
            f"{r['events']:,} events → {r['cells']:,} cells in {r['rows']:,} rows ({r['pattern']}): "
            f"load {r['load_s']:.1f} s, analyze {r['analyze_s']:.1f} s {r['timings_ms']}"
        )
        print(
            f"peak RSS {r['peak_rss_mb']:,.0f} MB (after loading the events: {r['peak_rss_mb_after_load']:,.0f} MB; "
            f"target < 2048 MB): {'OK' if r['peak_rss_mb'] < 2048 else 'OVER'}"
        )
        print(f"analysis seconds per million events: {r['analyze_s'] / (r['events'] / 1e6):.2f}")


if __name__ == "__main__":
    main()
