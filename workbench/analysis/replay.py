"""The replay: the sample's writes and the query workload, step by step, over tablets on nodes.

Each window is cut into balancer steps. In each step the tablets carry the step's writes (CPU
per write: its bytes against one node's writes/s at 1 KB rows) and the reads of the rows that
exist; the nodes carry their tablets. At the end of a step, busy tablets split by load and large
ones by size (tablets.py), and when a node is over the best it could be the balancer plans a
move that lands ``lag`` steps later (``settings.rebalance_minutes``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from .load_metrics import bucket_node, loaded_extent, tablet_load
from .load_windows import Writes, time_ids
from .settings import Settings
from .tablets import (
    apply_cuts,
    frontier_allowed,
    load_split_cuts,
    size_split_cuts,
    step_rows,
)


def balancer_steps(win_s: float, n: int, windows: int, st: Settings) -> tuple[int, int]:
    """(steps per window, steps a move takes to land).

    Steps are about ``rebalance_minutes`` long, but never so short that a step holds fewer than
    ``min_writes_per_step`` of the sample's writes (the balancer would chase sampling noise the
    production rate does not have), and at most ``max_steps`` in all (the designer's budget)."""
    sub = max(1, int(np.ceil(win_s / 60.0 / max(st.rebalance_minutes, 1e-9) - 1e-9)))
    sub = max(
        1, min(sub, int(n / windows / max(st.min_writes_per_step, 1)), st.max_steps // windows)
    )
    step_us = win_s * 1e6 / sub
    lag = max(1, int(np.ceil(st.rebalance_minutes * 60e6 / step_us - 1e-9)))
    return sub, lag


def assign_by_load(load: np.ndarray, current: np.ndarray, nodes: int) -> np.ndarray:
    """Node per tablet: loaded tablets heaviest first onto the least-loaded node (longest
    processing time first) for the heaviest few per node, the light rest dealt in that order
    onto the nodes from the least loaded up; tablets without load stay where they are."""
    out = current.copy()
    loaded = np.flatnonzero(load > 0)
    order = loaded[np.argsort(-load[loaded], kind="stable")]
    heap = [(0.0, i) for i in range(nodes)]
    head, tail = order[: 4 * nodes], order[4 * nodes :]
    for t in head.tolist():
        lo, i = heapq.heappop(heap)
        out[t] = i
        heapq.heappush(heap, (lo + float(load[t]), i))
    if len(tail):
        by_load = np.array([i for _, i in sorted(heap)])
        p = np.arange(len(tail))
        lap, pos = np.divmod(p, nodes)
        out[tail] = by_load[np.where(lap % 2 == 0, pos, nodes - 1 - pos)]
    return out


def needs_rebalance(
    t_load: np.ndarray,
    node: np.ndarray,
    nodes: int,
    loads: tuple[float, float],
    tolerance: float,
) -> bool:
    """Whether the busiest node is more than ``tolerance`` over the best any placement could do
    (the fair share, or the busiest tablet when that is more), and busy against the cluster's
    typical load per node (a near-idle step's imbalance does not matter).

    ``t_load`` is the load per tablet, ``loads`` (the step's total, the typical step's)."""
    total, typical = loads
    if total <= 0 or nodes <= 1:
        return False
    nl = np.bincount(node, weights=t_load, minlength=nodes)
    floor = max(total / nodes, float(t_load.max()))
    busiest = float(nl.max())
    return busiest > (1 + tolerance) * floor and busiest > typical / nodes


@dataclass
class Replay:
    """What the replay recorded, per window (summed over its steps) and in all."""

    node_cpu: np.ndarray  # (windows, nodes)
    node_writes: np.ndarray  # (windows, nodes): sample writes
    top_cpu: np.ndarray  # (windows,): busiest tablet's CPU
    top_writes: np.ndarray  # (windows,): busiest tablet's sample writes
    bucket_cpu: np.ndarray  # (windows, buckets): busiest node serving part of each bucket
    bucket_read: np.ndarray  # (windows, buckets): the reads' part of that node's CPU
    starts: np.ndarray  # final tablets
    steps_per_window: int
    lag: int
    hot: list[tuple[int, float, int, int]] = field(default_factory=list)
    found: dict = field(default_factory=dict)  # hot rows and frontiers no split relieves
    # busiest tablet after warm-up: (CPU, window, first row, last row, share of its step's load)
    best: tuple[float, int, int, int, float] = (0.0, -1, 0, 0, 0.0)
    best_any: tuple[float, int, int, int, float] = (0.0, -1, 0, 0, 0.0)  # ... at any time

    @property
    def warmup_windows(self) -> int:
        """Windows before the first rebalance could take effect."""
        W = len(self.top_cpu)
        return min(int(np.ceil(self.lag / self.steps_per_window)), max(W - 1, 0))


def read_schedule(
    rcpu: np.ndarray, first: np.ndarray, step: np.ndarray, S: int, n: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """(read rows in the order they come to exist, where each step's newcomers start, the reads'
    CPU summed over all steps): a row is read from the step it is first written in (reads of
    rows not yet written would place read-driven cuts among a write frontier's future keys)."""
    read_rows = np.flatnonzero(rcpu > 0).astype(first.dtype)
    read_step = step[first[read_rows]] if n else np.zeros(len(read_rows), dtype=np.int32)
    read_order = np.argsort(read_step, kind="stable")
    read_born = read_rows[read_order]
    del read_rows
    read_step = read_step[read_order]
    born_at = np.searchsorted(read_step, np.arange(S + 1), "left")
    r_all = S * float(rcpu.sum(dtype=np.float64)) - float(
        np.dot(rcpu[read_born], read_step.astype(np.float32))
    )
    return read_born, born_at, r_all


def replay(
    w: Writes,
    *,
    grid: tuple[int, int, int],
    first: np.ndarray,
    rcpu: np.ndarray,
    tablets: tuple[np.ndarray, np.ndarray],
    nodes: int,
    buckets: int,
    scale: float,
    split_bytes: float,
    st: Settings,
) -> Replay:
    """Replay the writes (in time order) and reads over tablets on ``nodes`` nodes.

    ``grid`` is (first µs, window µs, windows); ``first`` each row's first write; ``rcpu`` each
    row's read CPU per second once it exists; ``tablets`` the initial (starts, nodes); ``wcost``
    ``scale`` production writes per sample write; ``split_bytes`` the split size in the sample's
    bytes. Why one function: the steps share the evolving tablets, their nodes and sizes, the
    rows that exist and a pending move; each step below is a named function."""
    t0, win_us, W = grid
    n, R = w.n, len(rcpu)
    B = buckets
    prb = float(st.planning_row_bytes)
    win_s = win_us / 1e6
    # a sample write's CPU (1 KB or less) in nodes, summed over a window: `scale` writes at
    # one node's writes/s
    wcost = scale / (st.node_rates()[1] * win_s) if win_s > 0 else 0.0
    win = time_ids(w.ts, t0, win_us, 1)
    sub, lag = balancer_steps(win_us / 1e6, n, W, st)
    S = W * sub
    step = np.minimum(time_ids(w.ts, t0, win_us, sub), S - 1, dtype=np.int32) if n else win
    sstart = np.searchsorted(step, np.arange(S + 1), "left")
    read_born, read_born_at, r_all = read_schedule(rcpu, first, step, S, n)
    # the cluster's typical step load: splits and moves answer load that matters against it, not
    # the relative imbalance of a near-idle step (a row is read from its step to the last)
    w_all = wcost / prb * float(w.cost_bytes(prb).sum(dtype=np.float64)) if n else 0.0
    typical = (w_all + r_all / sub) / max(S, 1)
    starts, node = tablets
    size = np.zeros(len(starts))
    t_read = np.zeros(len(starts))  # read CPU per tablet of the rows that exist
    live = np.zeros(R, dtype=np.float32)  # read CPU of the rows written so far
    first_rows = (np.arange(B, dtype=np.int64) * R + B - 1) // B  # first row of each bucket
    last_rows = np.r_[first_rows[1:], R] - 1
    out = Replay(
        node_cpu=np.zeros((W, nodes)),
        node_writes=np.zeros((W, nodes)),
        top_cpu=np.zeros(W),
        top_writes=np.zeros(W),
        bucket_cpu=np.zeros((W, B)),
        bucket_read=np.zeros((W, B)),
        starts=starts,
        steps_per_window=sub,
        lag=lag,
    )
    plan: tuple[int, np.ndarray, np.ndarray] | None = None
    idle: tuple[np.ndarray, float, np.ndarray, np.ndarray] | None = (
        None  # a step without writes repeats
    )
    for j in range(S):
        k = j // sub
        if plan is not None and plan[0] <= j:  # a rebalance decided `lag` steps ago lands
            idx = np.searchsorted(plan[1], starts, "right") - 1
            node = plan[2][np.maximum(idx, 0)]
            plan, idle = None, None
        a, b = sstart[j], sstart[j + 1]
        if read_born_at[j + 1] > read_born_at[j]:  # rows written now start being read
            born_now = read_born[read_born_at[j] : read_born_at[j + 1]]
            live[born_now] = rcpu[born_now] / sub
            t_read += np.bincount(
                np.searchsorted(starts, born_now, "right") - 1,
                weights=live[born_now],
                minlength=len(starts),
            )
            idle = None
        if a == b and idle is not None:
            out.node_cpu[k] += idle[0]
            out.top_cpu[k] += idle[1]
            out.bucket_cpu[k] += idle[2]
            out.bucket_read[k] += idle[3]
            continue
        rr, bb = w.row[a:b], w.nbytes[a:b]
        cpu_of = partial(w.cpu_by, (a, b), wcost, prb)  # per tablet, per row
        tab, t_cpu = tablet_load(starts, rr, cpu_of, t_read)
        nc = np.bincount(node, weights=t_cpu, minlength=nodes)
        bn = bucket_node(starts, node, nc, first_rows, last_rows)
        bvec = nc[bn]
        # the reads' part of the serving node's CPU: which kind of pressure it is
        bread = np.bincount(node, weights=t_read, minlength=nodes)[bn]
        out.bucket_read[k] += bread
        total = float(t_cpu.sum())
        ends = np.append(starts[1:], R)
        _record(
            out,
            (j, k, sub, lag),
            (starts, ends, node),
            (t_cpu, total, nc, bvec, tab),
            (rr, w.weights(a, b)),
            live,
        )
        if a == b:
            idle = (nc, float(t_cpu.max()) if len(t_cpu) else 0.0, bvec, bread)
        else:
            idle = None
            size += np.bincount(tab, weights=bb, minlength=len(starts))
        # splits: by load (what this step carried) and by size
        thr = st.load_split_share * max(total, typical) / nodes
        cuts = _load_cuts(
            (rr, cpu_of, k),
            (win, first, w.ts),
            (starts, ends),
            (t_cpu, t_read, total),
            thr,
            live,
            out.found,
        )
        per_row = None
        if (size > split_bytes).any():
            per_row = np.bincount(w.row[:b], weights=w.nbytes[:b], minlength=R)
            cuts += size_split_cuts(starts, size, split_bytes, per_row)
        if cuts:
            starts, node = apply_cuts(starts, node, cuts)
            # sizes of the new tablets: the sample's bytes written so far per row range
            if per_row is None:
                per_row = np.bincount(w.row[:b], weights=w.nbytes[:b], minlength=R)
            size = np.add.reduceat(per_row, starts)
            del per_row
            t_read = np.add.reduceat(live, starts, dtype=np.float64)
            tab, t_cpu = tablet_load(starts, rr, cpu_of, t_read)
        # rebalance by load: decided now, in effect `lag` steps later
        if plan is None and needs_rebalance(
            t_cpu, node, nodes, (total, typical), st.rebalance_tolerance
        ):
            plan = (j + lag, starts.copy(), assign_by_load(t_cpu, node, nodes))
    out.starts = starts
    return out


def _load_cuts(
    step: tuple[np.ndarray, Callable[[np.ndarray, int], np.ndarray], int],
    when: tuple[np.ndarray, np.ndarray, np.ndarray],
    tablets: tuple[np.ndarray, np.ndarray],
    loads: tuple[np.ndarray, np.ndarray, float],
    thr: float,
    live: np.ndarray,
    found: dict,
) -> list[int]:
    """Load split points after a step (its writes' rows, their CPU per bin, its window): the step's rows
    and where a cut may fall are worked out only when a tablet of several rows is over ``thr``.
    ``when`` is (each write's window, each row's first write, each write's time), ``tablets``
    (starts, ends), ``loads`` (CPU per tablet, reads per tablet, the step's total)."""
    rr, cpu_of, k = step
    win, first, ts = when
    starts, ends = tablets
    t_cpu, t_read, total = loads
    R = len(live)
    if total <= 0:
        return []
    if ((t_cpu > thr) & (ends - starts > 1)).any():
        lrows, wcum = step_rows(rr, cpu_of)
        allowed = frontier_allowed(lrows, win[first[lrows]] == k, ts[first[lrows]])
    else:
        lrows, wcum, allowed = rr[:0], np.zeros(1), np.ones(0, dtype=bool)
    return load_split_cuts(starts, t_cpu, t_read, thr, R, (lrows, wcum, allowed), live, found)


def _record(
    out: Replay,
    when: tuple[int, int, int, int],
    tablets: tuple[np.ndarray, np.ndarray, np.ndarray],
    loads: tuple[np.ndarray, float, np.ndarray, np.ndarray, np.ndarray],
    written: tuple[np.ndarray, np.ndarray | None],
    live: np.ndarray,
) -> None:
    """Add step ``j`` (window ``k``) to the window totals, the hot-tablet list and the busiest
    tablet seen (after warm-up, ``lag`` steps, and at any time). ``when`` is (j, k, steps per
    window, lag), ``tablets`` (starts, ends, node), ``loads`` (CPU per tablet, its total, per
    node, per key bucket, each write's tablet); ``written`` the step's rows and mutations per
    entry (None: one each)."""
    rr, counts = written
    j, k, sub, lag = when
    starts, ends, node = tablets
    t_cpu, total, nc, bvec, tab = loads
    out.node_cpu[k] += nc
    out.bucket_cpu[k] += bvec
    if len(rr):
        t_wr = np.bincount(tab, weights=counts, minlength=len(starts))
        out.node_writes[k] += np.bincount(node, weights=t_wr, minlength=len(nc))
        out.top_writes[k] += t_wr.max()
    if total <= 0:
        return
    order = np.argsort(-t_cpu)[:3]
    out.top_cpu[k] += t_cpu[order[0]]
    out.hot.extend(
        (j, float(t_cpu[t]) * sub, int(starts[t]), int(ends[t])) for t in order if t_cpu[t] > 0
    )
    top = int(order[0])
    cpu_top = float(t_cpu[top]) * sub
    settled = j >= lag
    if cpu_top > out.best_any[0] or (settled and cpu_top > out.best[0]):
        ext = loaded_extent(rr, live, int(starts[top]), int(ends[top]))
        if ext is not None:
            entry = (cpu_top, k, ext[0], ext[1], float(t_cpu[top]) / total)
            out.best_any = entry if cpu_top > out.best_any[0] else out.best_any
            out.best = entry if settled and cpu_top > out.best[0] else out.best
