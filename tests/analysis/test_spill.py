"""compare on millions of events keeps each design's arrays in memory-mapped files
(``analysis/spill.py``), and the index matches a row-key regex once per key (``key_matches``).

Both change where values live or how often they are computed, never a value: every figure is
compared with the path that keeps everything in memory and matches each key with ``re`` on text.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.analysis import comparison
from workbench.analysis._index import CellIndex


@pytest.fixture(scope="module")
def small():
    return wb.load_dataset("energy_meters", size=4_000)


def test_spilled_compare_equals_the_in_memory_one(small, monkeypatch):
    designs = [wb.preset(small, p) for p in ("reversed_id_hourly", "timestamp_first")]
    kept = wb.compare(small, designs)
    monkeypatch.setattr(comparison, "SPILL_EVENTS", 0)  # 4,000 events take the large path
    monkeypatch.setattr("workbench.analysis.spill._MIN_BYTES", 0)  # every array, however small
    spilled = wb.compare(small, designs, workers=1)  # spill itself, in this process
    pd.testing.assert_frame_equal(spilled.table, kept.table)
    pd.testing.assert_frame_equal(spilled.rankings, kept.rankings)
    for lab, a in spilled.analyses.items():
        # the arrays are files now (np.memmap), read-only, with the very values of the kept ones
        _assert_same_mapped(a, kept.analyses[lab])


def _assert_same_mapped(a, b) -> None:
    """``a``'s arrays mapped read-only from files, with ``b``'s values, and its figures ``b``'s."""
    assert isinstance(a.index.row, np.memmap) and not a.index.row.flags.writeable
    assert isinstance(a.rowsizes.bytes, np.memmap)
    for name in ("row_keys", "row", "family", "qualifier", "ts", "nbytes", "key_bytes"):
        np.testing.assert_array_equal(getattr(a.index, name), getattr(b.index, name))
    for name in ("bytes", "cells", "span_s", "projected_bytes"):
        np.testing.assert_array_equal(getattr(a.rowsizes, name), getattr(b.rowsizes, name))
    for q, rows in b.queries.seen_rows.items():
        np.testing.assert_array_equal(a.queries.seen_rows[q], rows)
    for name in ("writes", "rows", "pressure"):
        np.testing.assert_array_equal(getattr(a.keyspace, name), getattr(b.keyspace, name))
    # what reads the arrays after the comparison still works on them
    pd.testing.assert_frame_equal(a.rowsizes.limits(), b.rowsizes.limits())
    assert a.summary() == b.summary()
    # the model re-runs on the mapped writes (the designer's node slider)
    assert a.keyspace.at_nodes(3).n_tablets == b.keyspace.at_nodes(3).n_tablets


def test_workers_give_the_figures_and_arrays_of_one_process(small, monkeypatch):
    """compare's designs analysed in forked worker processes (``analysis/workers.py``), their
    arrays handed back as files (``spill.saved``/``restored``): the same as one process."""
    designs = [
        wb.preset(small, p) for p in ("reversed_id_hourly", "timestamp_first", "sequential_id")
    ]
    monkeypatch.setattr(comparison, "SPILL_EVENTS", 0)
    monkeypatch.setattr("workbench.analysis.spill._MIN_BYTES", 0)
    here = wb.compare(small, designs, workers=1)
    there = wb.compare(small, designs, workers=2)
    pd.testing.assert_frame_equal(there.table, here.table)
    pd.testing.assert_frame_equal(there.rankings, here.rankings)
    assert list(there.analyses) == list(here.analyses)  # the designs' order, not the finishing
    for lab, a in there.analyses.items():
        assert isinstance(a.keyspace.inputs["writes"].ts, np.memmap)
        _assert_same_mapped(a, here.analyses[lab])


def test_key_matches_equals_re_on_each_key(small):
    idx = CellIndex.build(wb.preset(small, "reversed_id_hourly").to_cells(small))
    rows = np.arange(idx.n_rows)
    keys = idx.keys(rows)
    # \d on ASCII bytes and on text, (?i), a class, \s (taken on text), an escape
    some = 0  # patterns that match some keys and not others (the check can tell them apart)
    for pattern in (r"1000\d+#.*", r".*\d{4}.*", r"(?i)[A-Z0-9#]*", r".*\s.*", r"\x31.*"):
        want = np.array([re.fullmatch(pattern, k, re.DOTALL) is not None for k in keys])
        some += 0 < want.sum() < len(keys)
        half = rows[::2]  # decided for the rows asked, then for the rest on a second call
        assert (idx.key_matches(pattern, half)[half] == want[half]).all()
        assert (idx.key_matches(pattern, rows) == want).all()
    assert some >= 2
