"""Tiered storage (Preview): which rows sit in the infrequent-access tier, by cell timestamp.

Cells older than ``Settings.tiered_after_days`` (by *cell timestamp*, not write time) move to the
infrequent-access tier. A row counts as cold when its newest cell is older than that before the
dataset's newest cell: a query whose rows are cold reads at the cold tier's per-node rate. The
emulator cannot run tiers (it silently drops ``tiered_storage_config``): this is a model.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._index import CellIndex


def tier_text(cold_share: float) -> str:
    """Which tier a query's rows come from, from the share of them that is cold."""
    if cold_share <= 0:
        return "hot (SSD)"
    if cold_share >= 1:
        return "cold (infrequent access)"
    return f"hot and cold ({cold_share:.0%} cold)"


def cold_shares(
    index: CellIndex,
    seen_rows: Mapping[str, np.ndarray],
    after_s: float,
) -> tuple[dict[str, float], np.ndarray]:
    """Per query, the share of the rows it sees whose newest cell is older than ``after_s``
    before the sample's newest cell; and per row, whether it is cold."""
    if not index.n_cells:
        return {q: 0.0 for q in seen_rows}, np.zeros(0, bool)
    newest = np.full(index.n_rows, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(newest, index.row, index.ts)
    cold_row = newest < int(index.ts.max()) - int(after_s * 1e6)
    out = {}
    for q, rows in seen_rows.items():
        r = np.asarray(rows, dtype=np.int64)
        out[q] = float(cold_row[r].mean()) if len(r) else 0.0
    return out, cold_row


__all__ = ["cold_shares", "tier_text"]
