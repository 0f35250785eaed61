"""Full read-back: the workbench reader (raw ReadRows chunks → CellFrame) vs the client's read_rows().

Same table (100,000 rows × 4 cells), same run, alternated over rounds (best of each);
prints rows/s and the ratio. Target: ≥ 2× the client's ``table.read_rows()``.

    .venv/bin/python bench/bench_read.py [--rows 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_write import make_data  # noqa: E402

import workbench as wb  # noqa: E402
from workbench.bigtable import admin, writer  # noqa: E402
from workbench.bigtable.reader import read_table  # noqa: E402
from workbench.schema.families import Family  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    n = args.rows
    _, _, cells = make_data(n)
    with wb.Emulator(reuse=False) as emu:
        conn = emu.connection()
        tid = admin.unique_table_id("bench")
        admin.ensure_table(conn, tid, [Family("cf")])
        writer.write_cells(conn, cells, tid, progress=False)
        os.environ["BIGTABLE_EMULATOR_HOST"] = emu.host or ""
        from google.cloud import bigtable

        table = bigtable.Client(project=conn.project).instance(conn.instance).table(tid)
        best = {"workbench reader": 0.0, "client read_rows()": 0.0}
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            got = read_table(conn, tid)
            best["workbench reader"] = max(best["workbench reader"], n / (time.perf_counter() - t0))
            assert len(got) == len(cells), (len(got), len(cells))
            t0 = time.perf_counter()
            k = c = 0
            for row in table.read_rows():
                k += 1
                c += sum(len(v) for fam in row.cells.values() for v in fam.values())
            best["client read_rows()"] = max(
                best["client read_rows()"], n / (time.perf_counter() - t0)
            )
            assert (k, c) == (n, len(cells)), (k, c)
        admin.drop_table(conn, tid)
    print(
        f"full read-back of {n:,} rows × 4 cells from the emulator (best of {args.rounds} alternated rounds)"
    )
    for name, v in best.items():
        print(f"  {name:25s} {v:>10,.0f} rows/s")
    print(
        f"workbench reader (into a CellFrame) vs client read_rows(): "
        f"{best['workbench reader'] / best['client read_rows()']:.1f}×  (target ≥ 2×)"
    )


if __name__ == "__main__":
    main()
