"""Write throughput: the workbench writer vs `cbt import`, the client's batcher and per-row commit().

Same data (100,000 rows × 4 cells), same emulator, same run, alternated over rounds (best of\neach, the machine is shared and noisy); prints rows/s and ratios.
Target: workbench ≥ 1.0× `cbt import` (best of 1 and 4 workers, batch 5000).

    .venv/bin/python bench/bench_write.py [--rows 100000] [--commit-slice 5000]
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb  # noqa: E402
from workbench.bigtable import admin, writer  # noqa: E402
from workbench.cells import CellFrame  # noqa: E402
from workbench.schema.families import Family  # noqa: E402

QUALS = ("temp", "hum", "pres", "wind")
TS = 1_425_168_000_000_000


def make_data(n: int) -> tuple[list[str], list[list[bytes]], CellFrame]:
    rng = np.random.default_rng(7)
    keys = [f"sensor{i % 997:04d}#{1425168000 + i:012d}" for i in range(n)]
    vals = [[f"{v:.3f}".encode() for v in row] for row in rng.normal(20, 5, size=(n, 4))]
    cells = CellFrame.from_columns(
        row_key=np.repeat(np.array(keys, dtype=object), 4),
        family="cf",
        qualifier=np.tile(np.array(QUALS, dtype=object), n),
        timestamp_us=np.full(4 * n, TS),
        value=[v for row in vals for v in row],
    )
    return keys, vals, cells


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--commit-slice", type=int, default=5_000)
    ap.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="alternating rounds; best of each (the machine is shared)",
    )
    args = ap.parse_args(argv)
    n = args.rows
    keys, vals, cells = make_data(n)
    results: dict[str, float] = {}
    with wb.Emulator(reuse=False) as emu, tempfile.TemporaryDirectory() as tmp:
        conn = emu.connection()
        env = {**os.environ, **emu.env()}

        def fresh() -> str:
            tid = admin.unique_table_id("bench")
            admin.ensure_table(conn, tid, [Family("cf")])
            return tid

        # --- cbt import (Go) and the workbench writer, alternated over rounds (best of each) ---
        path = Path(tmp) / "data.csv"
        with open(path, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["", *QUALS])
            for k, row in zip(keys, vals, strict=True):
                w.writerow([k, *(f"{v.decode()}@{TS}" for v in row)])
        for _ in range(args.rounds):
            for workers in (1, 4):
                tid = fresh()
                cmd = [
                    "cbt",
                    "-project",
                    conn.project,
                    "-instance",
                    conn.instance,
                    "import",
                    tid,
                    str(path),
                    "column-family=cf",
                    f"workers={workers}",
                    "batch-size=5000",
                    "timestamp=value-encoded",
                ]
                dt = timed(lambda: subprocess.run(cmd, env=env, check=True, capture_output=True))
                key = f"cbt import workers={workers}"
                results[key] = max(results.get(key, 0.0), n / dt)
                admin.drop_table(conn, tid)
            for threads in (1, 2):
                tid = fresh()
                dt = timed(
                    lambda: writer.write_cells(conn, cells, tid, progress=False, threads=threads)
                )
                key = f"workbench writer threads={threads}"
                results[key] = max(results.get(key, 0.0), n / dt)
                admin.drop_table(conn, tid)

        # --- the official client: MutationsBatcher and per-row commit() -----------------------
        from google.cloud import bigtable

        # the client reads BIGTABLE_EMULATOR_HOST at construction
        os.environ["BIGTABLE_EMULATOR_HOST"] = emu.host or ""
        client = bigtable.Client(project=conn.project, admin=True)
        instance = client.instance(conn.instance)

        def rows_for(table, lo: int, hi: int) -> list:
            out = []
            for k, row in zip(keys[lo:hi], vals[lo:hi], strict=True):
                r = table.direct_row(k.encode())
                for q, v in zip(QUALS, row, strict=True):
                    r.set_cell("cf", q.encode(), v, timestamp=_dt(TS))
                out.append(r)
            return out

        tid = fresh()
        table = instance.table(tid)

        def batcher() -> None:
            with table.mutations_batcher(flush_count=5000) as b:
                b.mutate_rows(rows_for(table, 0, n))

        results["client MutationsBatcher"] = n / timed(batcher)
        admin.drop_table(conn, tid)

        tid = fresh()
        table = instance.table(tid)
        m = min(args.commit_slice, n)

        def commit() -> None:
            for r in rows_for(table, 0, m):
                r.commit()

        results[f"client per-row commit() ({m:,}-row slice)"] = m / timed(commit)
        admin.drop_table(conn, tid)

    cbt_best = max(v for k, v in results.items() if k.startswith("cbt import"))
    ours = max(v for k, v in results.items() if k.startswith("workbench"))
    print(f"write {n:,} rows × 4 cells to the emulator ({emu.source})")
    for k, v in results.items():
        print(f"  {k:45s} {v:>10,.0f} rows/s   {v / cbt_best:5.2f}× cbt import")
    print(
        f"workbench writer vs cbt import (best of 1/4 workers): {ours / cbt_best:.2f}×  (target ≥ 1.0×)"
    )
    print(
        f"workbench writer vs client MutationsBatcher:          {ours / results['client MutationsBatcher']:.1f}×"
    )
    commit_key = next(k for k in results if "commit" in k)
    print(
        f"workbench writer vs per-row commit():                 {ours / results[commit_key]:.0f}×"
    )


def _dt(us: int):
    from datetime import datetime, timezone

    return datetime.fromtimestamp(us / 1e6, tz=timezone.utc)


if __name__ == "__main__":
    main()
