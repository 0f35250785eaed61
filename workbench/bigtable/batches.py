"""The cells cut into MutateRows requests: sorted, checked against the limits, encoded once.

Nothing is sent here (``writer`` sends). The plan is a :class:`Prepared`: pieces (a row, or a
slice of one very long row) grouped into batches (one request each), with plain Python lists
that the request builder reads by index.

* Requests hold ≤ ``batch_mutations`` mutations and ≤ ``batch_bytes`` (far below the
  100,000-mutation and 256 MiB server limits); a row over 256 MiB is refused before
  anything is sent, naming the row (the emulator does not enforce it, G01/G16).
* Every cell carries its explicit ``timestamp_us``: a rerun rewrites the same cells
  instead of adding versions (no duplicates). Aggregate families are written with
  ``AddToCell`` only, never a delete first: Bigtable merges each input with what the cell holds
  ("Aggregate values at write time"), so a cell ends at the aggregate of every batch ever
  written into it, whatever the order. The inputs of one cell in one write are combined here by
  the family's aggregate and sent as one ``AddToCell`` (the same result: sum, min and max are
  associative). So a rerun of the same events adds them again, as it would on Cloud Bigtable.
* A deep row on the emulator (one row with very many cells) is cut into pieces that shrink as
  the row deepens, each request's estimated server time near ``DEEP_REQUEST_S``.
* The client's per-mutation Python objects cost ~5 s per 100k rows: each request is the
  package's own raw protobuf message (``MutateRowsRequest.pb()``), filled in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from google.cloud.bigtable_v2.types import bigtable as _bt

from ..cells import CellFrame
from ..errors import LimitError, WriteError

MutateRowsRequest = _bt.MutateRowsRequest.pb()

MAX_REQUEST_BYTES = 256 * 1024 * 1024  # Cloud Bigtable's request limit
MAX_MUTATIONS = 100_000  # per MutateRows request
# A deep row (one row with very many cells, written over several requests) on the emulator: each
# request is cut so its estimated time stays near this (the writer's deadline is a factor over
# the estimate, and the row's requests go one after another: never two into one row at once)
DEEP_REQUEST_S = 2.0
MIN_DEEP_PIECE = 500
_ENTRY_OVERHEAD = 16  # bytes of framing per entry (generous)
_CELL_OVERHEAD = 24  # bytes of framing per SetCell (tags, lengths, timestamp)


@dataclass
class Prepared:
    """The sorted cells as plain Python lists plus the pieces (row slices) and batches."""

    tables: list[str]  # physical table per piece
    logical: list[str]  # logical table per piece
    keys: list[bytes]  # row key per piece
    key_text: list[str]
    starts: list[int]  # first cell of each piece
    ends: list[int]
    is_sum: list[bool]  # piece holds sum-aggregate cells
    ends_row: np.ndarray  # piece is the last of its row
    fam: list[str]
    qual: list[bytes]
    ts: list[int]
    val: list[Any]  # bytes, or int for sum cells
    batches: list[tuple[int, int]]  # piece ranges
    piece_bytes: np.ndarray
    n_rows: int
    n_cells: int
    # cells of the same row written by earlier pieces (0 for a row's first piece)
    depth: list[int] = field(default_factory=list)
    # estimated server seconds per piece (a deep row on the emulator; 0 when not paced)
    piece_s: list[float] = field(default_factory=list)


CELL_KEYS = ["table", "row_key", "family", "qualifier", "timestamp_us"]


def aggregate_cells(f: pd.DataFrame, kinds: np.ndarray) -> pd.DataFrame:
    """Aggregate-family cells combined per cell by the family's aggregate, as Bigtable would.

    ``sum``/``min``/``max``: one value per (table, row, family, qualifier, timestamp), sent as
    one ``AddToCell`` that Bigtable merges with what the cell holds (so the emulator, which
    keeps the last input for min/max — measured —, gets one input per cell per write and holds
    the right value after a single write). ``hll``: each distinct input stays, one
    ``AddToCell`` each (a sketch of distinct values)."""
    bad = f["value"].map(lambda v: not isinstance(v, (bytes, bytearray)) or len(v) != 8)
    if bad.any():
        row = f[bad].iloc[0]
        raise WriteError(
            f"Family {row['family']!r} is an aggregate ({kinds[bad.to_numpy()][0]}): its cell "
            f"values must be 8-byte big-endian int64, but row {row['row_key']!r} qualifier "
            f"{row['qualifier']!r} has "
            f"{len(row['value']) if isinstance(row['value'], (bytes, bytearray)) else type(row['value']).__name__}"
            " bytes. Nothing was written."
        )
    ints = np.frombuffer(b"".join(f["value"].tolist()), dtype=">i8").astype(np.int64)
    f = f.assign(_v=ints, _kind=kinds)
    parts = []
    for kind, g in f.groupby("_kind", sort=False):
        if kind == "hll":
            out = g.drop_duplicates(CELL_KEYS + ["_v"])
        else:
            out = g.groupby(CELL_KEYS, sort=False)["_v"].agg(str(kind)).reset_index()
        parts.append(out[CELL_KEYS + ["_v"]])
    out = pd.concat(parts, ignore_index=True)
    out["value"] = out.pop("_v").astype(object).map(int)
    return out


def prepare(
    cells: CellFrame,
    tables: Mapping[str, str],
    *,
    sum_families: Mapping[str, set[str]] | None = None,
    reducers: Mapping[str, Mapping[str, str]] | None = None,
    batch_mutations: int = 20_000,
    batch_bytes: int = 32 * 1024 * 1024,
    max_row_bytes: int = MAX_REQUEST_BYTES,
    resume_from: tuple[str, str] | None = None,
    cell_depth_s: float | None = None,
) -> Prepared:
    """Sort, check limits, encode and cut the cells into requests (nothing is sent here).

    ``cell_depth_s``: what a cell costs the server per cell already in its row (the emulator's
    quadratic slowdown); a long row is then cut into pieces that shrink as the row deepens.
    ``reducers``: logical table → {family: "sum"|"min"|"max"|"hll"} (aggregate families);
    ``sum_families`` names sum families the same way.

    Why one function: it is one vectorised pass over the sorted cells (factorise keys, cut
    pieces, split long rows, estimate each request) whose arrays feed each other; each cut is a
    few NumPy lines with its reason in a comment.
    """
    f = cells.frame
    unknown = sorted(set(f["table"].unique()) - set(tables))
    if unknown:
        raise WriteError(
            f"Cells for logical table(s) {unknown} have no target table; known: {sorted(tables)}. "
            "Nothing was written."
        )
    if resume_from is not None:
        t0, k0 = resume_from
        f = f[(f["table"] > t0) | ((f["table"] == t0) & (f["row_key"] >= k0))]
    n_given = len(f)  # cells asked for (aggregate inputs count one each)
    kinds = np.full(len(f), None, dtype=object)
    by_table: dict[str, dict[str, str]] = {}
    for logical, fams in (sum_families or {}).items():
        by_table.setdefault(logical, {}).update({fam: "sum" for fam in fams})
    for logical, kind_of in (reducers or {}).items():
        by_table.setdefault(logical, {}).update(kind_of)
    for logical, kind_of in by_table.items():
        for fam, kind in kind_of.items():
            kinds[((f["table"] == logical) & (f["family"] == fam)).to_numpy()] = kind
    is_sum = kinds != None  # noqa: E711 - elementwise on an object array
    if is_sum.any():
        f = pd.concat(
            [
                f[~is_sum].assign(_sum=False),
                aggregate_cells(f[is_sum], kinds[is_sum]).assign(_sum=True),
            ],
            ignore_index=True,
        )
    else:
        f = f.assign(_sum=False)
    n = len(f)
    # one sorted factorization gives the key order *and* each distinct key encoded once
    kcodes, kuniq = pd.factorize(f["row_key"].to_numpy(dtype=object), sort=True)
    tcodes, tuniq = pd.factorize(f["table"].to_numpy(dtype=object), sort=True)
    sum_arr = f["_sum"].to_numpy(dtype=bool)
    if n and not (
        len(tuniq) == 1 and not sum_arr.any() and bool(np.all(kcodes[1:] >= kcodes[:-1]))
    ):
        order = np.lexsort((sum_arr, kcodes, tcodes))
        f = f.iloc[order].reset_index(drop=True)
        kcodes, tcodes, sum_arr = kcodes[order], tcodes[order], sum_arr[order]
    kenc = [u.encode("utf-8", "surrogateescape") for u in kuniq]
    klen = np.fromiter(map(len, kenc), dtype=np.int64, count=len(kenc))
    qcodes, quniq = pd.factorize(f["qualifier"].to_numpy(dtype=object))
    qenc = [u.encode("utf-8", "surrogateescape") for u in quniq]
    qlen = (
        np.fromiter(map(len, qenc), dtype=np.int64, count=len(qenc))[qcodes]
        if n
        else np.zeros(0, np.int64)
    )
    qual = [qenc[c] for c in qcodes.tolist()]
    fcodes, funiq = pd.factorize(f["family"].to_numpy(dtype=object))
    flen = np.array([len(x) for x in funiq], dtype=np.int64)[fcodes] if n else np.zeros(0, np.int64)
    val = f["value"].tolist()
    vlen = (
        np.fromiter(map(len, val), dtype=np.int64, count=n)
        if not sum_arr.any()
        else np.fromiter(
            (8 if isinstance(v, int) else len(v) for v in val), dtype=np.int64, count=n
        )
    )
    cell_bytes = qlen + vlen + flen + _CELL_OVERHEAD

    # pieces: a new piece where the table, key or kind changes, or a row exceeds the batch size
    change = np.ones(n, dtype=bool)
    row_change = np.ones(n, dtype=bool)
    if n:
        row_change[1:] = (kcodes[1:] != kcodes[:-1]) | (tcodes[1:] != tcodes[:-1])
        change[1:] = row_change[1:] | (sum_arr[1:] != sum_arr[:-1])
    row_starts = np.flatnonzero(row_change)
    row_ends = np.append(row_starts[1:], n)
    cum = np.concatenate([[0], np.cumsum(cell_bytes)])
    row_sizes = cum[row_ends] - cum[row_starts] + klen[kcodes[row_starts]]
    over = np.flatnonzero(row_sizes > max_row_bytes)
    if len(over):
        i = row_starts[over[0]]
        raise LimitError(
            f"Row {kuniq[kcodes[i]]!r} of table {tuniq[tcodes[i]]!r} needs {row_sizes[over[0]]:,} bytes in one "
            f"write, over the {max_row_bytes:,}-byte MutateRows request limit of Cloud Bigtable ({len(over)} such "
            "row(s)). Nothing was written: split the row with a time bucket in the key (G10/G16)."
        )
    starts = np.flatnonzero(change)
    # split pieces longer than batch_mutations (a row with very many cells: several entries)
    lengths = np.diff(np.append(starts, n))
    if len(lengths) and lengths.max() > batch_mutations:
        extra = [
            row_cuts(int(s), int(ln), batch_mutations, cell_depth_s)
            for s, ln in zip(starts, lengths, strict=True)
            if ln > batch_mutations
        ]
        starts = np.union1d(starts, np.concatenate(extra))
    ends = np.append(starts[1:], n).astype(np.int64)
    ends_row = np.isin(ends, np.append(row_starts[1:], n)) if n else np.zeros(0, dtype=bool)
    pk = kcodes[starts]
    piece_bytes = cum[ends] - cum[starts] + _ENTRY_OVERHEAD + klen[pk]
    piece_muts = ends - starts

    # the row each piece belongs to starts at the last row start at or before it
    first_of_row = (
        row_starts[np.searchsorted(row_starts, starts, side="right") - 1] if n else starts
    )
    depth = (starts - first_of_row).astype(np.int64)
    piece_s = (
        cell_depth_s * piece_muts * (depth + piece_muts / 2)
        if cell_depth_s
        else np.zeros(len(starts))
    )

    batches: list[tuple[int, int]] = []
    b0, m, b, est = 0, 0, 0, 0.0
    ptab = np.asarray(tuniq, dtype=object)[tcodes[starts]] if n else np.zeros(0, dtype=object)
    ptc = tcodes[starts].tolist()
    for i, (pm, pb, ps) in enumerate(
        zip(piece_muts.tolist(), piece_bytes.tolist(), piece_s.tolist(), strict=True)
    ):
        if i > b0 and (
            m + pm > batch_mutations
            or b + pb > batch_bytes
            or ptc[i] != ptc[i - 1]
            or (ps > 0 and est + ps > DEEP_REQUEST_S)  # a deep row: one paced piece per request
        ):
            batches.append((b0, i))
            b0, m, b, est = i, 0, 0, 0.0
        m += pm
        b += pb
        est += ps
    if len(starts):
        batches.append((b0, len(starts)))
    fam = f["family"].tolist()
    ts = f["timestamp_us"].to_numpy(dtype=np.int64).tolist()
    return Prepared(
        tables=[tables[t] for t in ptab],
        logical=list(ptab),
        keys=[kenc[c] for c in pk.tolist()],
        key_text=[kuniq[c] for c in pk.tolist()],
        starts=starts.tolist(),
        ends=ends.tolist(),
        is_sum=sum_arr[starts].tolist(),
        ends_row=ends_row,
        fam=fam,
        qual=qual,
        ts=ts,
        val=val,
        batches=batches,
        piece_bytes=piece_bytes,
        n_rows=len(row_starts),
        n_cells=int(n_given),
        depth=depth.tolist(),
        piece_s=piece_s.tolist(),
    )


def row_cuts(start: int, length: int, most: int, cell_depth_s: float | None) -> np.ndarray:
    """Where one long row is cut into pieces: every ``most`` cells, or (``cell_depth_s``) in
    pieces whose estimated time at the row's depth stays near ``DEEP_REQUEST_S``."""
    if not cell_depth_s:
        return np.arange(start, start + length, most)
    cuts, d = [], 0
    while d < length:
        cuts.append(start + d)
        d += int(min(most, max(MIN_DEEP_PIECE, DEEP_REQUEST_S / (cell_depth_s * max(d, 1)))))
    return np.asarray(cuts, dtype=np.int64)


def build_request(p: Prepared, table_path: str, lo: int, hi: int) -> Any:
    """One MutateRowsRequest for pieces [lo, hi): raw protobuf, filled in place (the fast path)."""
    req = MutateRowsRequest(table_name=table_path)
    add = req.entries.add
    fam, qual, ts, val = p.fam, p.qual, p.ts, p.val
    for i in range(lo, hi):
        s, e = p.starts[i], p.ends[i]
        madd = add(row_key=p.keys[i]).mutations.add
        if not p.is_sum[i]:
            for fa, q, t, v in zip(fam[s:e], qual[s:e], ts[s:e], val[s:e], strict=True):
                sc = madd().set_cell
                sc.family_name = fa
                sc.column_qualifier = q
                sc.timestamp_micros = t
                sc.value = v
        else:  # AddToCell only: Bigtable merges the input with what the cell holds already
            for fa, q, t, v in zip(fam[s:e], qual[s:e], ts[s:e], val[s:e], strict=True):
                a = madd().add_to_cell
                a.family_name = fa
                a.column_qualifier.raw_value = q
                a.timestamp.raw_timestamp_micros = t
                a.input.int_value = v
    return req


@dataclass
class Schedule:
    """The order and pace of a prepared write, per batch (one request each).

    ``expected_s``: the batch's estimated emulator time (a cell costs its row's depth so far;
    0 when not paced); ``after``: the batch that must finish first (a deep row's earlier cells:
    one writer per row), or None; ``rows``/``cells``: rows ended and cells in the batch (what a
    stopped write counts as acknowledged); ``row_cells``: per piece, the cells in its whole row
    (a deep row spans several pieces, and a timeout message names the row's size)."""

    expected_s: list[float]
    after: list[int | None]
    rows: list[int]
    cells: list[int]
    row_cells: list[int]


def schedule(p: Prepared, *, paced: bool) -> Schedule:
    """The :class:`Schedule` of ``p``; ``paced`` (the emulator) orders and times deep rows."""
    expected = [0.0] * len(p.batches)
    after: list[int | None] = [None] * len(p.batches)
    if paced:
        for i, (lo, hi) in enumerate(p.batches):
            expected[i] = float(sum(p.piece_s[lo:hi]))
            if p.depth[lo] > 0 and i > 0:
                after[i] = i - 1  # the row's earlier cells are in the batch just before
    row_cells = [0] * len(p.starts)
    first = 0
    for j in range(len(p.starts)):
        if p.ends_row[j]:
            total = p.depth[j] + p.ends[j] - p.starts[j]
            row_cells[first : j + 1] = [total] * (j + 1 - first)
            first = j + 1
    return Schedule(
        expected_s=expected,
        after=after,
        rows=[int(p.ends_row[lo:hi].sum()) for lo, hi in p.batches],
        cells=[p.ends[hi - 1] - p.starts[lo] for lo, hi in p.batches],
        row_cells=row_cells,
    )
