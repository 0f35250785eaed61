"""ReadRows chunk decoding: the workbench's state machine vs the official client's row merger.

The same 100,000-row stream (4 cells a row, one response per row as the emulator sends them,
parsed from bytes like a real read) is decoded by ``workbench.bigtable.chunks.decode`` (into
CellFrame column lists) and by python-bigtable's ``_ReadRowsOperation.chunk_stream`` +
``merge_rows`` (into ``Row``/``Cell`` objects, what ``Table.read_rows`` yields), alternated over
rounds; best CPU time of each (the machine is shared: CPU time is what load disturbs least).
No emulator needed. It is why the workbench keeps its own decoder (chunks.py's docstring).

    .venv/bin/python bench/bench_decode.py [--rows 100000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from google.cloud.bigtable.data._sync_autogen._read_rows import _ReadRowsOperation  # noqa: E402
from google.cloud.bigtable_v2 import ReadRowsResponse as WrappedResponse  # noqa: E402
from google.cloud.bigtable_v2.types import bigtable as _bt  # noqa: E402

from workbench.bigtable.chunks import decode, new_columns  # noqa: E402

ReadRowsResponse = _bt.ReadRowsResponse.pb()


def make_stream(n: int) -> list[Any]:
    """``n`` rows × 4 cells, serialized and parsed back (as the channel hands them over)."""
    out = []
    for i in range(n):
        chunks = []
        for j in range(4):
            c = ReadRowsResponse.CellChunk(
                qualifier={"value": b"m%d" % j}, timestamp_micros=1000 * i, value=b"%.3f" % (i + j)
            )
            if j == 0:
                c.row_key = b"sensor%04d#%012d" % (i // 1000, i)
                c.family_name.value = "cf"
            chunks.append(c)
        chunks[-1].commit_row = True
        out.append(ReadRowsResponse(chunks=chunks).SerializeToString())
    return [ReadRowsResponse.FromString(b) for b in out]


def with_client(responses: list[Any]) -> int:
    """The client's merger, as its own acceptance test drives it (an operation stand-in)."""
    metric = SimpleNamespace(active_attempt=None, end_with_success=lambda: None)
    op = SimpleNamespace(
        _last_yielded_row_key=None, _remaining_count=None, _operation_metric=metric
    )
    chunks = _ReadRowsOperation.chunk_stream(op, (WrappedResponse.wrap(r) for r in responses))
    return sum(len(row.cells) for row in _ReadRowsOperation.merge_rows(op, chunks))


def with_workbench(responses: list[Any]) -> int:
    cols = new_columns()
    return decode(responses, cols)[1]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    responses = make_stream(args.rows)
    best = {"workbench chunks.decode": float("inf"), "client merge_rows": float("inf")}
    fns = {"workbench chunks.decode": with_workbench, "client merge_rows": with_client}
    for _ in range(args.rounds):
        for name, fn in fns.items():
            t0 = time.process_time()
            cells = fn(responses)
            best[name] = min(best[name], time.process_time() - t0)
            assert cells == 4 * args.rows, (name, cells)
    print(f"decoding {args.rows:,} rows × 4 cells (best CPU time of {args.rounds} rounds)")
    for name, s in best.items():
        print(f"  {name:25s} {s:6.3f} s  {args.rows / s:>10,.0f} rows/s")
    ratio = best["client merge_rows"] / best["workbench chunks.decode"]
    print(f"workbench decoder vs the client's merger: {ratio:.1f}× faster")


if __name__ == "__main__":
    main()
