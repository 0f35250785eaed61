"""Bulk load (Apache Beam, DirectRunner) vs `load`, end to end, on the same Parquet file.

Both start from the file and end with every cell acknowledged by the same emulator:
`load` = `wb.from_parquet` (or `wb.from_csv`, `--format csv`) + `load(verify=False)`; bulk =
`workbench bulk-load` (checks, reading, design, tables, pipeline, counts). Rows/s = the table's
rows ÷ wall time; rounds alternate load and bulk-load in this one process, each round's ratio
printed and the best of each (the machine is shared and noisy). Goal: bulk ≥ 0.8× load on
every design, three rounds.

    .venv/bin/python bench/bench_bulk_load.py [--sensors 200] [--events 1000] [--rounds 3]
        [--design entity_first | a,b | all] [--format parquet|csv]
        [--beam-args="--direct_num_workers=2"] [--profile]

``--design all``: every design the gallery offers for these events (``patterns_for``).

A grouped design (``--design pre_aggregated``) prints its summary groups: (entity, buckets)
groups and the most events one held (bounded by a few buckets, not an entity's history).

Measured 2026-11-29 (2-core machine, load average 1.6-6.3, nothing else running), split
points from a bounded share of the sample (``beam/splits.SPLIT_EVENTS``), three separate
invocations of ``PYTHONPATH=$PWD .venv/bin/python bench/bench_bulk_load.py --sensors 200
--events 1000 --rounds 3 --design all``, bulk-load / load best of 3 per run: entity_first 0.88,
0.96, 0.92; timestamp_first 0.96, 0.91, 0.95; salted 0.99, 0.97, 1.01; reversed_timestamp 1.02,
0.99, 0.91; bucket_new_columns 0.82, 0.83, 0.91; bucket_new_cells 0.84, 0.86, 0.85; wide_rows
0.91, 0.90, 0.91; serialized_json 0.93, 0.94, 0.96; serialized_protobuf 0.91, 0.93, 0.89;
heroic 0.89, 0.90, 0.90; pre_aggregated 0.89, 0.87, 0.83; two_tables 1.06, 1.07, 1.01: every
design >= 0.8x in all three. Again from 20:53 UTC on this code, twice: the day- and Heroic-row
designs (2,200-4,400 rows, under a second) at 0.76-0.81, where Beam's fixed cost decides; on a
million events (``--sensors 1000``, three invocations) every design 0.97-1.37x. How it got
there: docs/architecture.md ("Bulk load with Apache Beam", Speed).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb  # noqa: E402
from workbench.bigtable import admin  # noqa: E402
from workbench.bigtable.emulator import ENV_HOST  # noqa: E402
from workbench.bigtable.io import load  # noqa: E402
from workbench.cli import main as cli  # noqa: E402


def write_events(path: Path, sensors: int, events: int) -> None:
    """Parquet (row groups of 100,000) or CSV (by the name), the same events."""
    rng = np.random.default_rng(3)
    t = pd.date_range("2015-03-01", periods=events, freq="15min", tz="UTC")
    n = sensors * events
    frame = pd.DataFrame(
        {
            "sensor": np.repeat([f"m{i:05d}" for i in range(sensors)], events),
            "time": np.tile(t, sensors),
            "kwh": rng.gamma(2.0, 0.05, n).round(3),
            "volts": rng.normal(235, 2, n).round(1),
        }
    )
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False, row_group_size=100_000)


def drop(conn, table_id: str, schema) -> None:
    ids = admin.table_ids(table_id, list(schema.table_families()), admin.main_table(schema))
    for p in ids.values():
        admin.drop_table(conn, p)


COLS = {"entity": "sensor", "time": "time", "measures": ["kwh", "volts"], "name": "meters"}


@contextlib.contextmanager
def _profiled(on: bool):
    """cProfile around the block when ``on``: the 25 costliest calls by cumulative time."""
    if not on:
        yield
        return
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    try:
        yield
    finally:
        prof.disable()
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)


def one_round(
    conn, path: Path, design: str, beam_args: str, profile: bool = False
) -> tuple[float, float, int, list]:
    """(load's seconds, bulk-load's seconds, the table's rows, bulk-load's summary lines) of one
    round: ``load`` then ``workbench bulk-load``, each from the file, each table dropped after;
    ``profile``: the bulk-load's cProfile on stderr."""
    read = wb.from_csv if path.suffix == ".csv" else wb.from_parquet
    t0 = time.perf_counter()
    ds = read(path, progress=False, **COLS)
    schema = wb.preset(ds, design)
    tid = admin.unique_table_id("bench-load")
    h = load(conn, ds, schema, table_id=tid, verify=False, progress=False)
    t_load = time.perf_counter() - t0
    assert h.write_report is not None
    rows = h.write_report.rows
    drop(conn, tid, schema)
    del ds, h
    tid = admin.unique_table_id("bench-bulk")
    t0 = time.perf_counter()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), _profiled(profile):
        rc = cli(
            [
                "bulk-load",
                str(path),
                "--entity=sensor",
                "--time=time",
                "--measures=kwh,volts",
                "--name=meters",
                f"--design={design}",
                f"--project={conn.project}",
                f"--instance={conn.instance}",
                f"--table={tid}",
                *shlex.split(beam_args),
            ]
        )
    t_bulk = time.perf_counter() - t0
    drop(conn, tid, schema)
    if rc != 0 or "✔ equal" not in out.getvalue():
        raise SystemExit(f"bulk-load of {design} failed (rc {rc}):\n{out.getvalue()}")
    groups = [ln for ln in out.getvalue().splitlines() if ln.startswith("summary groups")]
    return t_load, t_bulk, rows, groups


def bench_design(
    conn, path: Path, design: str, rounds: int, beam_args: str, profile: bool = False
) -> float:
    """Rounds of one design, each round's ratio and the best-of ratio; returns the latter."""
    best_load = best_bulk = float("inf")
    ratios, rows = [], 0
    for r in range(rounds):
        t_load, t_bulk, rows, groups = one_round(conn, path, design, beam_args, profile)
        best_load, best_bulk = min(best_load, t_load), min(best_bulk, t_bulk)
        ratios.append(t_load / t_bulk)
        print(
            f"  {design} round {r + 1}: load {t_load:.1f} s ({rows / t_load:,.0f} rows/s), "
            f"bulk-load {t_bulk:.1f} s ({rows / t_bulk:,.0f} rows/s): {t_load / t_bulk:.2f}×",
            *groups,
            sep="\n    ",
            flush=True,
        )
    ratio = best_load / best_bulk
    print(
        f"{design}: {rows:,} rows, load {rows / best_load:,.0f} rows/s, bulk-load "
        f"{rows / best_bulk:,.0f} rows/s (best of {rounds}); bulk-load / load = {ratio:.2f}× "
        f"(rounds {', '.join(f'{x:.2f}' for x in ratios)}; goal ≥ 0.8×)",
        flush=True,
    )
    return ratio


def _loadavg() -> str:
    """The machine's 1-, 5- and 15-minute load averages (``uptime``'s): a shared machine's
    other work moves every figure here."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sensors", type=int, default=200)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--design", default="entity_first", help="a design, several (a,b) or 'all' (every preset)"
    )
    ap.add_argument("--beam-args", default="")
    ap.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    ap.add_argument("--profile", action="store_true", help="each bulk-load's cProfile (stderr)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d, wb.Emulator(reuse=False) as emu:
        path = Path(d) / f"meters.{args.format}"
        write_events(path, args.sensors, args.events)
        if args.design == "all":
            from workbench.schema.gallery import patterns_for

            read = wb.from_csv if path.suffix == ".csv" else wb.from_parquet
            designs = patterns_for(read(path, progress=False, **COLS))
        else:
            designs = args.design.split(",")
        conn = emu.connection()
        os.environ[ENV_HOST] = conn.host
        print(
            f"{args.sensors * args.events:,} events ({args.format}), {len(designs)} design(s), "
            f"{args.rounds} rounds each (load, then bulk-load, in this process); "
            f"load average {_loadavg()}",
            flush=True,
        )
        got = {
            d: bench_design(conn, path, d, args.rounds, args.beam_args, args.profile)
            for d in designs
        }
        below = [d for d, r in got.items() if r < 0.8]
        print(
            "summary: "
            + ", ".join(f"{d} {r:.2f}×" for d, r in got.items())
            + (f"; below 0.8×: {', '.join(below)}" if below else "; every design ≥ 0.8×")
            + f" (load average {_loadavg()})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
