"""Tiered storage (Preview): which rows sit in the infrequent-access tier, by cell timestamp.

Cells older than ``Settings.tiered_after_days`` (by *cell timestamp*, not write time) move to the
infrequent-access tier. A row counts as cold when its newest cell is older than that before the
dataset's newest cell: a query whose rows are cold reads at the cold tier's per-node rate. The
emulator cannot run tiers (it silently drops ``tiered_storage_config``): this is a model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._index import CellIndex
from .retention import FamilyRetention


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


@dataclass(frozen=True)
class TierSplit:
    """What tiering moves: ``cold_bytes`` of the kept bytes (uncompressed, per cluster), each
    query's cold share (``query_tiers``) and the nodes its cold reads need (``cold_read_nodes``,
    at the cold tier's per-node read rate)."""

    cold_bytes: float = 0.0
    query_tiers: Mapping[str, float] | None = None
    cold_read_nodes: float = 0.0


def tier_split(
    index: CellIndex,
    fams: Sequence[FamilyRetention],
    kept: Mapping[str, float],
    *,
    after_days: float,
    days_per_month: float,
    seen_rows: Mapping[str, np.ndarray],
    reads_per_s: Mapping[str, float],
    cold_reads_per_s_per_node: float,
) -> TierSplit:
    """The cold part of each family's kept bytes and of each query's reads.

    ``kept``: bytes each family keeps (``"table/family"`` → bytes over its retention months).
    Cells the sample already dates past ``after_days`` are cold from the start; the rest age
    through the family's kept months like the projection's uniform writes, so the cold share of
    a family kept ``m`` months is ``old + (1 - old) · max(0, m - after) / m``. A query's cold
    reads are the rows it reads a second at production (``reads_per_s``: its stated rate at the
    peak × the rows its plan passes, the figure capacity sizes its CPU with) times the cold
    share of the rows it sees in the sample, served at ``cold_reads_per_s_per_node``."""
    n = index.n_cells
    after_months = after_days / days_per_month
    q_cold, cold_row = cold_shares(index, seen_rows, after_days * 86_400)
    old_cells = cold_row[index.row] if n else np.zeros(0, bool)
    tab = index.row_table[index.row] if n else np.zeros(0, np.int32)
    cold = 0.0
    for f in fams:
        m = (tab == index.tables.index(f.table)) & (index.families[index.family] == f.family)
        old = float(index.nbytes[m & old_cells].sum()) / max(f.bytes, 1)
        ageing = max(0.0, f.months - after_months) / f.months if f.months > 0 else 0.0
        cold += kept[f"{f.table}/{f.family}"] * (old + (1 - old) * ageing)
    read_nodes = 0.0
    for q, share in q_cold.items():
        read_nodes += reads_per_s.get(q, 0.0) * share / cold_reads_per_s_per_node
    return TierSplit(cold_bytes=cold, query_tiers=q_cold, cold_read_nodes=read_nodes)


__all__ = ["TierSplit", "cold_shares", "tier_split", "tier_text"]
