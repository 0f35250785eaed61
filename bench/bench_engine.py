"""Analysis by the engine, ratios in one run: a Parquet file (or a Parquet set) of
``--events`` readings analysed as the README does (``from_parquet`` with no
``shape_events``: above ``parquet.SHAPE_ABOVE`` a shape sample plus DuckDB's one scan of every
event) against DuckDB alone computing the same aggregates over the same files
(``file_aggregates(entity=, time=, lead=, keys=True)``, what ``from_parquet`` asks of it).
Each step imports its modules before its clock starts (``_imported``).

Steps, each a fresh process so its time and peak RSS (VmHWM, bench/_memory.py) are its own,
each including its read of the files (``--rounds N``: the steps alternate N times and the best
time of each is compared, as bench_bulk_load.py does on this shared machine): ``duckdb`` (the aggregates alone), ``one`` (load +
``analyze`` of entity_first), ``compare`` (load + ``compare(ds, presets(ds))``, its designs
analysed side by side in worker processes, ``analysis/workers.py``), then one more compare,
``compare:memory``, whose peak counts the workers too (``_memory.TreePeak``: their sampling
slows the workers, so it is not a timed round). Targets
(issue #46): one design <= 1.3x DuckDB alone, peak <= 1.5 GB, at 100 M events; every design
<= 2x one design; 1 B events within 4 GB, time recorded. The files are
bench_file_aggregates.py's (``--series`` sensors, a reading a minute each); ``--parts`` writes
a Parquet set of that many files, each part's readings after the one before.

    PYTHONPATH=. python bench/bench_engine.py --events 100000000 --series 100000 --rounds 2
    PYTHONPATH=. python bench/bench_engine.py --events 1000000000 --series 1000000 --parts 10 \
        --no-compare
    PYTHONPATH=. python bench/bench_engine.py --files a.parquet,b.parquet ...  # files kept from before
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
from functools import partial
from pathlib import Path

from _memory import TreePeak, peak_rss_mb, run_step
from bench_file_aggregates import write

DESIGN = "entity_first"


def _imported() -> None:
    """Every module a step uses, imported before its clock starts: each step times its work,
    not the imports (``import workbench`` alone defers pandas, pyarrow, DuckDB and the analysis
    modules; the load imported ~300 modules, ~1 s, inside one design's time and not DuckDB's)."""
    import duckdb  # noqa: F401
    import pyarrow.dataset  # noqa: F401

    import workbench.analysis  # noqa: F401
    import workbench.analysis.overview  # noqa: F401
    import workbench.datasets.parquet  # noqa: F401
    import workbench.schema  # noqa: F401


def _load(paths: list[str]):
    import workbench as wb

    return wb.from_parquet(
        paths, entity="sensor_id", time="time", measures=["value"], progress=False
    )


def duck(paths: list[str]) -> dict:
    from workbench.datasets.file_aggregates import file_aggregates

    _imported()
    t0 = time.perf_counter()
    # keys=True: the series listed too, as ``from_parquet`` asks (its shape sample draws them)
    agg = file_aggregates(paths, entity=["sensor_id"], time="time", lead=["sensor_id"], keys=True)
    return {
        "total_s": round(time.perf_counter() - t0, 1),
        "events": agg.events,
        "series": agg.series,
        "peak_rss_mb": round(peak_rss_mb()),
    }


def one(paths: list[str]) -> dict:
    import workbench as wb

    _imported()
    t0 = time.perf_counter()
    ds = _load(paths)
    load_s = time.perf_counter() - t0
    a = wb.analyze(ds, wb.preset(ds, DESIGN))
    c = a.capacity
    return {
        "events_in_memory": len(ds),
        "load_s": round(load_s, 1),
        "total_s": round(time.perf_counter() - t0, 1),
        "nodes": c.nodes_needed,
        "ceiling_events_per_s": c.ceiling_events_per_s,
        "largest_row_bytes": a.rowsizes.max_bytes,
        "peak_rss_mb": round(peak_rss_mb()),
    }


def compare(paths: list[str], sampled: bool = False) -> dict:
    """``sampled``: the peak of this process and compare's worker processes together
    (``TreePeak``); a run of its own, as its sampling slows the workers (~0.2 s here)."""
    import workbench as wb

    _imported()
    t0 = time.perf_counter()
    ds = _load(paths)
    load_s = time.perf_counter() - t0
    designs = wb.presets(ds)
    with TreePeak() if sampled else contextlib.nullcontext() as tree:
        c = wb.compare(ds, designs)
    out = {
        "designs": len(designs),
        "not_built": list(c.not_built),
        "load_s": round(load_s, 1),
        "total_s": round(time.perf_counter() - t0, 1),
        "peak_rss_mb": round(peak_rss_mb()),
    }
    return {**out, "with_workers_peak_pss_mb": round(tree.mb)} if tree else out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000_000)
    ap.add_argument("--series", type=int, default=100_000)
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--rounds", type=int, default=1, help="steps alternate; best time of each")
    ap.add_argument("--steps", default="duckdb,one,compare", help="which steps, in order")
    ap.add_argument("--dir", help="write the files here (default: a temporary directory)")
    ap.add_argument("--files", help="read these Parquet files (comma-separated) instead of writing")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        paths = args.path.split(",")
        if args.child.startswith("write"):
            i = int(args.child.partition(":")[2])
            per = args.events // args.parts
            out = write(paths[i], per, args.series, first_minute=i * (per // args.series))
        else:
            steps_of = {"duckdb": duck, "one": one, "compare": compare}
            steps_of["compare:memory"] = partial(compare, sampled=True)
            out = steps_of[args.child](paths)
        print(json.dumps(out))
        return
    steps = [s for s in args.steps.split(",") if s != "compare" or not args.no_compare]
    outs: dict = {}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        paths = [str(Path(tmp) / f"part-{i:03d}.parquet") for i in range(args.parts)]
        extra = ["--events", str(args.events), "--series", str(args.series)]
        extra += ["--parts", str(args.parts)]
        t0 = time.perf_counter()
        if args.files:  # files an earlier run wrote (bench_file_aggregates.write's)
            paths = args.files.split(",")
        for i in range(0 if args.files else args.parts):
            run_step(__file__, f"write:{i}", ",".join(paths), extra)
        size = sum(Path(p).stat().st_size for p in paths)
        print(
            f"wrote {args.parts} file(s), {size / 1e6:,.0f} MB, in {time.perf_counter() - t0:.0f} s"
        )
        for _ in range(args.rounds):  # alternating: a neighbour's burst hits every step alike
            for step in steps:
                out = run_step(__file__, step, ",".join(paths), extra)
                print(step, json.dumps(out), f"load average {os.getloadavg()[0]:.1f}", flush=True)
                if step not in outs or out["total_s"] < outs[step]["total_s"]:
                    outs[step] = out
        if "compare" in outs:  # its memory with the workers', in a run of its own
            mem = run_step(__file__, "compare:memory", ",".join(paths), extra)
            print("compare:memory", json.dumps(mem), flush=True)
            outs["compare"]["with_workers_peak_pss_mb"] = mem["with_workers_peak_pss_mb"]
    _report(args.events, outs)


def _report(events: int, outs: dict) -> None:
    if not {"duckdb", "one"} <= set(outs):
        return
    d, o = outs["duckdb"], outs["one"]
    print(
        f"{events:,} events: DuckDB alone {d['total_s']:.1f} s at {d['peak_rss_mb']:,} MB; "
        f"one design ({DESIGN}) {o['total_s']:.1f} s at {o['peak_rss_mb']:,} MB: "
        f"{o['total_s'] / d['total_s']:.2f}x DuckDB alone (target <= 1.3x, <= 1,536 MB)"
    )
    if "compare" in outs:
        c = outs["compare"]
        print(
            f"every design ({c['designs']}): {c['total_s']:.1f} s at {c['peak_rss_mb']:,} MB "
            f"({c['with_workers_peak_pss_mb']:,} MB with its workers): "
            f"{c['total_s'] / o['total_s']:.2f}x one design (target <= 2x)"
        )


if __name__ == "__main__":
    main()
