"""How a write is cut into MutateRows requests (``bigtable/batches.py``), on hand-made cells.

Each expectation is derived by hand from the rules the module states: pieces change where the
table, the row or the cell kind changes; a row longer than ``batch_mutations`` is cut every
``batch_mutations`` cells (or, on the emulator, into pieces that shrink as the row deepens);
an aggregate cell costs two mutations (delete at its timestamp, then AddToCell); a row over the
request limit is refused before anything is built.
"""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.bigtable import batches
from workbench.cells import CellFrame
from workbench.errors import LimitError, WriteError


def _cells(rows: list[tuple[str, str, str, str, int, bytes]]) -> CellFrame:
    return CellFrame(
        pd.DataFrame(
            rows, columns=["table", "row_key", "family", "qualifier", "timestamp_us", "value"]
        )
    )


def _int(v: int) -> bytes:
    return int(v).to_bytes(8, "big", signed=True)


def test_pieces_follow_rows_and_batches_hold_at_most_the_mutation_limit() -> None:
    # rows b (2 cells) and a (3 cells), given out of order: sorted a, b; 5 cells in 2 pieces
    cells = _cells(
        [
            ("main", "b", "m", "x", 1000, b"1"),
            ("main", "a", "m", "x", 1000, b"1"),
            ("main", "b", "m", "y", 1000, b"1"),
            ("main", "a", "m", "y", 1000, b"1"),
            ("main", "a", "m", "z", 1000, b"1"),
        ]
    )
    p = batches.prepare(cells, {"main": "t1"}, batch_mutations=4)
    assert p.keys == [b"a", b"b"]
    assert (p.starts, p.ends) == ([0, 3], [3, 5])
    # 3 + 2 mutations > 4: one request per row
    assert p.batches == [(0, 1), (1, 2)]
    assert (p.n_rows, p.n_cells) == (2, 5)
    assert p.tables == ["t1", "t1"]


def test_a_long_row_is_cut_every_batch_mutations_cells_in_production() -> None:
    cells = _cells([("main", "r", "m", f"q{i:02d}", 1000, b"v") for i in range(10)])
    p = batches.prepare(cells, {"main": "t"}, batch_mutations=4)
    # 10 cells of one row: pieces of 4, 4, 2; only the last ends the row
    assert (p.starts, p.ends) == ([0, 4, 8], [4, 8, 10])
    assert p.ends_row.tolist() == [False, False, True]
    assert p.depth == [0, 4, 8]
    assert p.batches == [(0, 1), (1, 2), (2, 3)]
    plan = batches.schedule(p, paced=False)
    # production: no pacing, no order between the row's requests
    assert plan.expected_s == [0.0, 0.0, 0.0] and plan.after == [None, None, None]
    assert plan.cells == [4, 4, 2] and plan.rows == [0, 0, 1]
    assert plan.row_cells == [10, 10, 10]


def test_row_cuts_on_the_emulator_shrink_as_the_row_deepens() -> None:
    # cell_depth_s = 1e-6: the piece at depth d holds DEEP_REQUEST_S / (1e-6 * d) cells,
    # at least MIN_DEEP_PIECE (500) and at most `most`
    cuts = batches.row_cuts(0, 10_000, 4_000, 1e-6).tolist()
    # d=0 → min(4000, max(500, 2/1e-6)) = 4000; d=4000 → 2/(1e-6*4000) = 500; then 500 each
    assert cuts[:4] == [0, 4_000, 4_500, 5_000]
    assert cuts == [0, *range(4_000, 10_000, 500)]
    assert batches.row_cuts(100, 10, 4, None).tolist() == [100, 104, 108]


def test_a_deep_rows_requests_are_paced_and_ordered_on_the_emulator() -> None:
    cells = _cells([("main", "r", "m", f"q{i:05d}", 1000, b"v") for i in range(2_000)])
    p = batches.prepare(cells, {"main": "t"}, batch_mutations=1_000, cell_depth_s=1e-3)
    # d=0 → min(1000, max(500, 2/1e-3·1)) = 1000 cells; d=1000 → max(500, 0.002) = 500
    assert p.starts == [0, 1_000, 1_500]
    plan = batches.schedule(p, paced=True)
    # a piece's time: cell_depth_s · m · (d + m/2)
    want = [1e-3 * 1_000 * 500, 1e-3 * 500 * (1_000 + 250), 1e-3 * 500 * (1_500 + 250)]
    assert plan.expected_s == pytest.approx(want)
    # each later request waits for the one before it in the same row
    assert plan.after == [None, 0, 1]


def test_aggregate_cells_are_combined_and_added_without_a_delete() -> None:
    cells = _cells(
        [
            ("main", "r", "s", "kwh", 1000, _int(5)),
            ("main", "r", "s", "kwh", 1000, _int(3)),
            ("main", "r", "lo", "kwh", 1000, _int(5)),
            ("main", "r", "lo", "kwh", 1000, _int(3)),
            ("main", "r", "m", "x", 1000, b"plain"),
        ]
    )
    p = batches.prepare(cells, {"main": "t"}, reducers={"main": {"s": "sum", "lo": "min"}})
    # the plain cell first, then the aggregate piece of the same row
    assert p.is_sum == [False, True]
    agg = dict(zip(p.fam[1:], p.val[1:], strict=True))
    assert agg == {"s": 8, "lo": 3}
    req = batches.build_request(p, "projects/p/instances/i/tables/t", 0, 2)
    kinds = [m.WhichOneof("mutation") for e in req.entries for m in e.mutations]
    # one AddToCell per aggregate cell and nothing else: a delete first would drop what
    # earlier writes (batches) added to the cell
    assert kinds == ["set_cell", "add_to_cell", "add_to_cell"]
    assert p.batches == [(0, 2)] and len(req.entries) == 2


def test_a_bad_aggregate_value_and_an_oversized_row_are_refused_before_anything_is_built() -> None:
    bad = _cells([("main", "r", "s", "kwh", 1000, b"12")])
    with pytest.raises(WriteError, match=r"'s' is an aggregate \(sum\).*has 2 bytes"):
        batches.prepare(bad, {"main": "t"}, reducers={"main": {"s": "sum"}})
    big = _cells([("main", "r", "m", f"q{i}", 1000, b"x" * 600) for i in range(2)])
    with pytest.raises(LimitError, match=r"Row 'r' of table 'main' needs 1,\d{3} bytes"):
        batches.prepare(big, {"main": "t"}, max_row_bytes=1_000)
    with pytest.raises(WriteError, match=r"\['other'\] have no target table"):
        batches.prepare(_cells([("other", "r", "m", "q", 1, b"v")]), {"main": "t"})


def test_resume_from_skips_the_rows_before_the_key() -> None:
    cells = _cells([("main", k, "m", "q", 1000, b"v") for k in "abcd"])
    p = batches.prepare(cells, {"main": "t"}, resume_from=("main", "c"))
    assert p.keys == [b"c", b"d"]
    # what the write reports counts the rows and cells it sends, not those skipped
    assert (p.n_rows, p.n_cells) == (2, 2)
