"""What the load model reports: Key Visualizer's metrics, hot tablets and node shares.

Pure steps over the replay's arrays. A share is always of ONE window's total load (so it is at
most 100 %), and a tablet's share is never above its node's (the node serves the tablet).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._index import CellIndex

if TYPE_CHECKING:  # pragma: no cover
    from .keyspace import KeyDistribution


def tablet_load(
    starts: np.ndarray,
    rows: np.ndarray,
    wcpu: np.ndarray | Callable[[np.ndarray, int], np.ndarray],
    t_read: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(tablet of each write, CPU per tablet): the writes' CPU plus the reads' per tablet.
    ``wcpu``: each write's CPU, or what sums it per bin (``Writes.cpu_by``)."""
    tab = np.searchsorted(starts, rows, "right") - 1
    if callable(wcpu):
        return tab, wcpu(tab, len(starts)) + t_read
    return tab, np.bincount(tab, weights=wcpu, minlength=len(starts)) + t_read


def bucket_node(
    starts: np.ndarray,
    node: np.ndarray,
    node_load: np.ndarray,
    first_rows: np.ndarray,
    last_rows: np.ndarray,
) -> np.ndarray:
    """Per key bucket (rows ``first_rows[i]``..``last_rows[i]``), the busiest node serving one
    of its tablets (by ``node_load``): the node whose load Key Visualizer reports for the
    bucket, and whose read and write parts say which kind of pressure it is."""
    pair = np.empty(2 * len(first_rows), dtype=np.int64)
    pair[0::2] = np.searchsorted(starts, first_rows, "right") - 1
    pair[1::2] = np.searchsorted(starts, last_rows, "right")
    # the busiest node by its rank (a maximum of ranks names the node, a maximum of loads not)
    order = np.argsort(node_load, kind="stable")
    rank = np.empty(len(node_load), dtype=np.int64)
    rank[order] = np.arange(len(node_load))
    top = np.maximum.reduceat(np.append(rank[node], 0), pair)[0::2]
    return order[top]


def window_shares(busiest: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Per window, the busiest unit's share of that window's total (nan: no load); at most 1
    when ``busiest`` is one of the parts of ``totals``."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, busiest / totals, np.nan)


def tablet_shares(top: np.ndarray, node_top: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Per window, the busiest tablet's share of that window's total, never above the busiest
    node's: ``top`` adds the busiest tablet of each step, and when that tablet moved between
    nodes within the window the sum can pass any one node's window total (``node_top``)."""
    return window_shares(np.minimum(top, node_top), totals)


def pressure(
    bucket_cpu: np.ndarray, cpu_target: float, writes: np.ndarray, reads: np.ndarray
) -> np.ndarray:
    """Key Visualizer's read/write pressure index: 100 × the serving node's CPU ÷ the CPU
    target, in the (window, bucket) cells that had operations (0 elsewhere)."""
    return 100.0 * bucket_cpu / max(cpu_target, 1e-9) * ((writes > 0) | (reads > 0))


def pressure_kinds(
    pressure_index: np.ndarray, read_share: np.ndarray, poor: float
) -> dict[str, np.ndarray]:
    """Where the pressure is the reads' and where the writes' ((window, bucket) masks).

    Key Visualizer's Warnings metrics ("Key Visualizer metrics": Read pressure index, Write
    pressure index) and its "High read pressure" / "High write pressure" diagnostics
    (https://cloud.google.com/bigtable/docs/keyvis-diagnostics) name the kind of operation
    that loads the serving node. The model's rule: a cell whose serving node is at or over
    ``poor`` (index of its whole CPU) is read pressure when the reads' CPU on that node is
    itself at or over ``poor``, or is the larger part of the node's CPU; likewise write
    pressure. So a bucket read a little on a node saturated by a write frontier is write
    pressure only; a node over the target with both reads and writes each over it has both.
    ``read_share`` is the reads' part of the serving node's CPU (0..1, per cell)."""
    hot = pressure_index >= poor
    r = np.clip(read_share, 0.0, 1.0)
    return {
        "read": hot & ((pressure_index * r >= poor) | (r > 0.5)),
        "write": hot & ((pressure_index * (1 - r) >= poor) | (r <= 0.5)),
    }


def hot_table(
    index: CellIndex, hot: list[tuple[int, float, int, int]], t0: int, step_us: float
) -> pd.DataFrame:
    """The busiest tablets as ListHotTablets reports them: time range, the share of its node's CPU
    the tablet used, start and end key (a single-row tablet ends at its start key + ``\\x00``).

    ``hot`` holds (step, CPU in nodes, first row, end row) of the busiest tablets of each step;
    where the index's keys are ranges of rows (``key_rows``), a tablet's rows are theirs."""
    cols = ["start_time", "end_time", "node_cpu_usage_percent", "start_key", "end_key", "rows"]
    if not hot:
        return pd.DataFrame(columns=cols)
    hot = sorted(hot, key=lambda h: -h[1])[:20]
    R = index.n_rows
    recs = []
    for k, cpu, s, e in hot:
        rows = e - s if index.key_rows is None else int(index.key_rows[s:e].sum())
        sk = index.key(s)
        ek = sk + "\x00" if rows == 1 else (index.key(e) if e < R else "")
        recs.append(
            {
                "start_time": pd.Timestamp(int(t0 + k * step_us), unit="us", tz="UTC"),
                "end_time": pd.Timestamp(int(t0 + (k + 1) * step_us), unit="us", tz="UTC"),
                "node_cpu_usage_percent": 100.0 * min(cpu, 1.0),
                "start_key": sk,
                "end_key": ek,
                "rows": rows,
            }
        )
    return pd.DataFrame(recs, columns=cols)


def loaded_extent(rows: np.ndarray, live: np.ndarray, s: int, e: int) -> tuple[int, int] | None:
    """(first, last) row of tablet [s, e) that carries load (written in ``rows`` or read per
    ``live``), or None."""
    loaded = rows[(rows >= s) & (rows < e)]
    rd = np.flatnonzero(live[s:e]) + s
    if not (len(loaded) or len(rd)):
        return None
    big = e + 1
    lo = int(min(loaded.min() if len(loaded) else big, rd.min() if len(rd) else big))
    hi = int(max(loaded.max() if len(loaded) else -1, rd.max() if len(rd) else -1))
    return lo, hi


def diagnostics(kd: KeyDistribution) -> list[dict[str, str]]:
    """Key Visualizer's diagnostic messages, in its words, where the model shows them: High
    read/write pressure (danger when single rows cause it; read vs write by the serving node's
    read and write CPU, see ``pressure_kinds``), Large rows, Key space not to scale, No data
    scanned."""
    st, out = kd.settings, []
    if kd.n_writes == 0 and not kd.reads.any():
        return [{"message": "No data scanned", "severity": "info", "detail": "no load at all"}]
    kinds = pressure_kinds(kd.pressure, kd.read_share, st.pressure_poor)
    single = bool(kd.hot_rows)
    for kind in ("write", "read"):
        hit = kinds[kind]
        if hit.any():
            out.append(
                {
                    "message": f"High {kind} pressure",
                    "severity": "danger" if single else "warning",
                    "detail": f"{int(hit.any(axis=0).sum()):,} key bucket(s) on a node over "
                    f"{st.cpu_target:.0%} CPU" + (" (caused by single rows)" if single else ""),
                }
            )
    last_rows = kd.rows[-1] if kd.rows.size else np.zeros(0)
    last_data = kd.data_bytes[-1] if kd.data_bytes.size else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = np.where(last_rows > 0, last_data / np.maximum(last_rows, 1), 0)
    if kd.large_rows.any() or (avg > st.large_row_range_avg_bytes).any():
        out.append(
            {
                "message": "Large rows",
                "severity": "warning",
                "detail": f"rows over {st.large_row_bytes / 1e6:,.0f} MB or key ranges "
                f"averaging over {st.large_row_range_avg_bytes / 1e6:,.0f} MB per row",
            }
        )
    if kd.n_rows < st.key_buckets:
        out.append(
            {
                "message": "Key space not to scale",
                "severity": "info",
                "detail": f"{kd.n_rows:,} rows cannot fill {st.key_buckets:,} key buckets",
            }
        )
    return out
