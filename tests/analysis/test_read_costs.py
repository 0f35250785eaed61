"""The read cost model: five unit costs calibrated on Bigtable's documented per-node figures.

Documented ("Understand performance"): an SSD node reads ~17,000 rows/s or scans ~220 MB/s,
rows of 1 KB. Stated assumptions (Settings): the 1 KB planning row has 10 cells, half of a
row's scan time is per row and per cell (split evenly), and a fifth of a lookup is the request.

Hand derivation, SSD:
  scanning one 1 KB row         = 1,000 B / 220e6 B/s              = 4.545455 µs
  per byte                      = 0.5 × 4.545455 µs / 1,000        = 2.272727 ns
  per row                       = 0.25 × 4.545455 µs               = 1.136364 µs
  per cell                      = 0.25 × 4.545455 µs / 10          = 0.113636 µs
  lookup (point read − its row) = 1/17,000 s − 4.545455 µs         = 54.278075 µs
  per request                   = 0.2 × 54.278075 µs               = 10.855615 µs
  per seek                      = 0.8 × 54.278075 µs               = 43.422460 µs
"""

from __future__ import annotations

import pandas as pd
import pytest

import workbench as wb
from workbench.analysis.settings import DEFAULT
from workbench.errors import WorkbenchError


def test_unit_costs_are_the_hand_derived_ones():
    c = DEFAULT.read_costs()
    assert c.byte_s == pytest.approx(2.272727e-9, rel=1e-6)
    assert c.row_s == pytest.approx(1.136364e-6, rel=1e-6)
    assert c.cell_s == pytest.approx(0.113636e-6, rel=1e-5)
    assert c.request_s == pytest.approx(10.855615e-6, rel=1e-6)
    assert c.seek_s == pytest.approx(43.422460e-6, rel=1e-6)


def test_calibration_points_are_the_documented_figures():
    c = DEFAULT.read_costs()
    # a point read of one 1 KB, 10-cell row: exactly 1/17,000 s
    point = c.node_seconds(requests=1, seeks=1, rows=1, cells=10, nbytes=1000)
    assert 1 / point == pytest.approx(17_000)
    # a long scan of 1 KB rows streams at 220 MB/s (one request and seek over a million rows)
    n = 1_000_000
    scan = c.node_seconds(requests=1, seeks=1, rows=n, cells=10 * n, nbytes=1000 * n)
    assert 1000 * n / scan == pytest.approx(220e6, rel=1e-4)  # the one lookup is 54 µs in 4.5 s


def test_hdd_uses_the_hdd_figures():
    c = DEFAULT.replace(storage="HDD").read_costs()
    # 500 reads/s and 180 MB/s: a point read of a planning row is 2 ms
    assert 1 / c.node_seconds(requests=1, seeks=1, rows=1, cells=10, nbytes=1000) == (
        pytest.approx(500)
    )


def test_many_small_rows_cost_more_than_the_same_bytes_in_few_rows():
    # 100 KB read as 1,000 rows of one 100-byte cell, or as 10 rows of 100 cells (time buckets):
    #   1,000 rows: 1,000 × 1.136364 + 1,000 × 0.113636 + 100,000 × 0.002272727 = 1,477.27 µs
    #      10 rows:    10 × 1.136364 + 1,000 × 0.113636 + 100,000 × 0.002272727 =   352.27 µs
    c = DEFAULT.read_costs()
    tall = c.node_seconds(requests=0, seeks=0, rows=1000, cells=1000, nbytes=100_000)
    buckets = c.node_seconds(requests=0, seeks=0, rows=10, cells=1000, nbytes=100_000)
    assert tall * 1e6 == pytest.approx(1477.27, abs=0.01)
    assert buckets * 1e6 == pytest.approx(352.27, abs=0.01)


def test_each_range_in_one_request_costs_a_seek_not_a_request():
    c = DEFAULT.read_costs()
    one = c.node_seconds(requests=1, seeks=1, rows=0, cells=0, nbytes=0)
    eight = c.node_seconds(requests=1, seeks=8, rows=0, cells=0, nbytes=0)
    assert (eight - one) == pytest.approx(7 * 43.422460e-6, rel=1e-6)


def test_bad_assumptions_are_refused_by_name():
    with pytest.raises(WorkbenchError, match="scan_fixed_share"):
        DEFAULT.replace(scan_fixed_share=1.5)
    with pytest.raises(WorkbenchError, match="planning_row_cells"):
        DEFAULT.replace(planning_row_cells=0)


def test_the_query_table_prices_a_plan_with_the_same_unit_costs():
    # fx all_pairs_minute on pair_microseconds: one request, 8 ranges (one per pair), and the
    # rows, cells and bytes the table reports; node_ms must be exactly the model's sum
    ds = wb.load_dataset("fx_prices")
    t = wb.analyze(ds, wb.preset("fx_prices", "pair_microseconds")).queries.table
    r = t.loc["all_pairs_minute"]
    c = DEFAULT.read_costs()
    want = c.node_seconds(
        requests=1,
        seeks=8,
        rows=int(r["rows_seen"]),
        cells=int(r["cells_seen"]),
        nbytes=int(r["bytes_seen"]),
    )
    assert int(r["ranges"]) == 8
    assert r["node_ms"] == pytest.approx(want * 1e3)
    assert isinstance(t, pd.DataFrame)
