"""One deep row on the emulator: the per-request cost against the row's depth, and a whole
write sized by depth vs the flat 20,000-mutation sizing (baseline, same process, same data).

    .venv/bin/python bench/bench_deep_row.py [--events 15000]

Prints each 3,000-cell request's time with the cells already in its column: the emulator's
cost per cell per cell already there (``checks.EMULATOR_CELL_DEPTH_S`` models it per row, 8 ns
from the 100,000-cells-in-40-s curve), then the two whole writes and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb  # noqa: E402
from workbench.bigtable import admin, batches, writer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=15_000)
    n = ap.parse_args().events
    df = pd.DataFrame(
        {
            "meter_id": 1,
            "time": pd.date_range("2024-01-01", periods=n, freq="1s", tz="UTC"),
            "kwh": 1.0,
            "voltage": 230.0,
        }
    )
    ds = wb.from_dataframe(df, entity=["meter_id"], time="time", measures=["kwh", "voltage"])
    schema = wb.preset("energy_meters", "unbounded_row").bind(ds)
    cells = schema.to_cells(ds)
    emu = wb.Emulator(reuse=False).start()
    try:
        conn = emu.connection()
        tables = admin.ensure_tables(conn, schema, "probe")
        p = batches.prepare(cells, tables, batch_mutations=3000)
        depth: dict[str, int] = {}
        for lo, hi in p.batches:
            col = p.qual[p.starts[lo]].decode()
            b = p.ends[hi - 1] - p.starts[lo]
            req = batches.build_request(p, conn.table_path(p.tables[lo]), lo, hi)
            t = time.perf_counter()
            writer.send_request(conn, req, "probe", p.key_text[lo:hi], 120, threading.Event(), 30.0)
            s = time.perf_counter() - t
            d = depth.get(col, 0)
            k = s / (b * (d + b / 2)) if d else float("nan")
            print(f"{col:8s} {b:6,} cells into {d:6,}: {s:6.3f} s  ({k:.2e} s per cell·cell)")
            depth[col] = d + b
        times = {}
        for name, kw in (
            ("flat", dict(batch_mutations=20_000, retry_budget_s=600)),
            ("depth", {}),
        ):
            tables = admin.ensure_tables(conn, schema, f"deep-{name}")
            t = time.perf_counter()
            saved = writer.EMULATOR_CELL_DEPTH_S
            if name == "flat":  # the old sizing: no depth model, 10 s per request
                writer.EMULATOR_CELL_DEPTH_S = 0.0
            try:
                rep = writer.write_cells(conn, cells, tables, progress=False, **kw)
                print(f"{name:6s}: {rep!r}")
            except wb.WriteError as exc:  # the flat sizing outlives its deadline on deep rows
                print(f"{name:6s}: failed after {time.perf_counter() - t:.1f} s: {exc}"[:400])
            finally:
                writer.EMULATOR_CELL_DEPTH_S = saved
            times[name] = time.perf_counter() - t
        print(f"depth-sized / flat time: {times['depth'] / times['flat']:.2f}x")
    finally:
        emu.stop()


if __name__ == "__main__":
    main()
