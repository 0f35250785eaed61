"""A compact, sorted, integer-coded copy of a CellFrame that every analysis shares.

Building it costs one factorize per string column and one lexsort; after that
each analysis is numpy over int arrays (searchsorted / bincount), which is what
keeps all analyses of a workshop dataset well under a widget's 250 ms budget
and lets a 10-million-event dataset fit in 2 GB (strings are kept once per
distinct row key, family and qualifier, never per cell).

Order is Bigtable's: table, row key, family, qualifier, newest timestamp first.
Row keys are kept as UTF-8 ``bytes`` in a numpy "S" array (about a tenth of the
memory of Python strings), whose byte order is exactly Bigtable's key order.
(numpy "S" drops trailing NUL bytes; a key ending in NUL is not representable.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cells import TIMESTAMP_OVERHEAD, CellFrame
from ..errors import WorkbenchError
from ..memory import large_arrays_from_mmap as _large_arrays_from_mmap
from ..memory import release_freed_memory
from ..schema.value_text import factorize as _factorize  # a run of one value hashed once


def _str_lengths(values: np.ndarray) -> np.ndarray:
    return np.fromiter(
        (len(v.encode("utf-8")) if not v.isascii() else len(v) for v in values),
        dtype=np.int64,
        count=len(values),
    )


def _value_lengths(values: np.ndarray) -> np.ndarray:
    # map(len) runs in C: a generator calling len per value took 3 s per million cells
    return np.fromiter(map(len, values), dtype=np.int64, count=len(values))


def _check_strings(col: str, uniques: np.ndarray) -> None:
    head = uniques[:100_000]
    if pd.api.types.infer_dtype(head, skipna=False) == "string":  # in C: the usual case
        return
    bad = [u for u in head if not isinstance(u, str)]
    if bad:
        raise WorkbenchError(
            f"CellFrame column {col!r} must hold str values; found {type(bad[0]).__name__} {bad[0]!r}."
        )


def _cell_order(
    row: np.ndarray, family: np.ndarray, qualifier: np.ndarray, ts: np.ndarray, n_rows: int
) -> np.ndarray:
    """Bigtable's cell order (row, family, qualifier, newest first). With a cell per row the
    row ids are a permutation, and its inverse is the order (no four-key lexsort)."""
    n = len(row)
    if n_rows == n:
        order = np.empty(n, dtype=np.int64)
        order[row] = np.arange(n)
        return order
    return np.lexsort((np.negative(ts), qualifier, family, row))


def _mostly_distinct(keys: np.ndarray, head: int = 4096) -> bool:
    """Whether nine in ten of the first ``head`` keys are distinct (a row per cell, near enough)."""
    first = keys[:head]
    try:
        return len(set(first)) > 0.9 * len(first)
    except TypeError:  # an unhashable value: the factorize path names it
        return False


def _code_chunk(
    f: pd.DataFrame, tab_u: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, ...]]:
    """One chunk of cells as integer codes: its row keys as UTF-8 bytes with their table ids
    (distinct, or every cell's where nearly all are; ``tab_u`` gives each new table the next
    id), its distinct families and
    qualifiers, and per cell (key, family, qualifier codes into those, timestamp, value length).
    The chunk's Python objects die when this returns (the 10-million-event path's memory)."""
    tcode_local, tuniq = _factorize(f["table"].to_numpy(dtype=object))
    _check_strings("table", tuniq)
    tmap = np.array([tab_u.setdefault(t, len(tab_u)) for t in tuniq], dtype=np.int32)
    rk = f["row_key"].to_numpy(dtype=object)
    if _mostly_distinct(rk):
        # a key per cell, nearly all distinct (a row per event): the merge's sort of every
        # (table, key) finds the rows, so hashing them here first would only repeat that work
        kuniq, kcode, kt = rk, np.arange(len(rk)), tmap[tcode_local]
    elif len(tuniq) > 1:  # a row is (table, key): keys of different tables are distinct rows
        kcode = np.empty(len(rk), dtype=np.int64)
        ku_parts, kt_parts, off = [], [], 0
        for ti in range(len(tuniq)):
            m = tcode_local == ti
            kc, ku = pd.factorize(rk[m])
            kcode[m] = kc + off
            off += len(ku)
            ku_parts.append(np.asarray(ku, dtype=object))
            kt_parts.append(np.full(len(ku), tmap[ti], dtype=np.int32))
        kuniq, kt = np.concatenate(ku_parts), np.concatenate(kt_parts)
    else:
        kcode, kuniq = pd.factorize(rk)
        kt = np.full(len(kuniq), tmap[0], dtype=np.int32)
    _check_strings("row_key", kuniq)
    try:  # ASCII keys (the usual case) convert in C without a Python object per key
        kbytes = kuniq.astype(bytes)
    except UnicodeEncodeError:
        kbytes = np.array([k.encode("utf-8", "surrogateescape") for k in kuniq], dtype=bytes)
    fcode, funiq = _factorize(f["family"].to_numpy(dtype=object))
    _check_strings("family", funiq)
    qcode, quniq = _factorize(f["qualifier"].to_numpy(dtype=object))
    _check_strings("qualifier", quniq)
    ts = f["timestamp_us"].to_numpy()
    if ts.dtype.kind not in "iu":
        raise WorkbenchError(
            f"CellFrame column 'timestamp_us' must be int64 microseconds, got dtype {ts.dtype}."
        )
    vals = f["value"].to_numpy(dtype=object)
    if pd.api.types.infer_dtype(vals, skipna=False) != "bytes":
        i = int(np.flatnonzero([not isinstance(v, bytes) for v in vals])[0])
        raise WorkbenchError(
            f"CellFrame column 'value' must hold bytes; row {f['row_key'].iloc[i]!r} has "
            f"{type(vals[i]).__name__} {vals[i]!r}."
        )
    vlen = _value_lengths(vals)
    codes = (
        kcode.astype(np.int32 if len(kuniq) < 2**31 else np.int64),
        fcode.astype(np.int32),
        qcode.astype(np.int32),
        ts.astype(np.int64, copy=False),
        vlen.astype(np.int32),
    )
    return kbytes, kt, funiq, quniq, codes


@dataclass
class CellIndex:
    """Cells as integer codes in Bigtable order, plus per-row totals.

    ``rows`` are global row ids sorted by (table, row key); ``row_keys[i]`` is the
    key of row ``i`` and ``row_table[i]`` its table code. Per cell: ``row``,
    ``family``, ``qualifier`` (codes into the sorted ``families``/``qualifiers``),
    ``ts`` (µs) and ``nbytes`` (key + family + qualifier + 8 + value, as
    :meth:`CellFrame.cell_bytes` counts them).
    """

    tables: list[str]
    row_keys: np.ndarray  # UTF-8 bytes ("S" dtype: compact), sorted within each table
    row_table: np.ndarray  # int32
    families: np.ndarray  # object, sorted
    qualifiers: np.ndarray  # object, sorted
    row: np.ndarray  # int32/int64 per cell
    family: np.ndarray
    qualifier: np.ndarray
    ts: np.ndarray  # int64
    nbytes: np.ndarray  # int64
    key_bytes: np.ndarray  # per row
    family_bytes: np.ndarray  # per family code
    qualifier_bytes: np.ndarray  # per qualifier code
    value_bytes_total: int
    # rows each key stands for where the keys are ranges of consecutive rows, each its first
    # row's key (the engine path past ``Settings.rows_max``, ``analysis/file_writes.py``); None:
    # a key is a row
    key_rows: np.ndarray | None = None
    # row-key regex → (rows decided, rows matching), filled as plans ask (``key_matches``)
    _key_matches: dict[str, tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False, compare=False
    )

    # -- construction --------------------------------------------------------------------
    @classmethod
    def build(cls, cells: CellFrame) -> CellIndex:
        return cls.from_parts([cells])

    @classmethod
    def from_parts(cls, parts: Iterable[CellFrame]) -> CellIndex:
        """Build from CellFrames produced chunk by chunk (the 10-million-event path).

        Each chunk is reduced at once to integer codes (row keys to UTF-8
        ``bytes``), so at most one chunk's Python objects are alive at a time.

        Each chunk is coded by ``_code_chunk``; what follows here is the merge: global row ids
        (distinct (table, key) pairs sorted), then the cells in Bigtable order. Those steps stay
        in this function because they share a dozen large arrays that are freed one by one as
        soon as they are used (the 10-million-event path's peak, tests/datasets/test_parquet_memory.py);
        helper calls would keep each handed-on array alive in their caller's frame.
        """
        _large_arrays_from_mmap()
        tab_u: dict[str, int] = {}
        key_chunks: list[tuple[np.ndarray, np.ndarray]] = []
        fam_chunks, qual_chunks = [], []
        codes: list[tuple[np.ndarray, ...]] = []
        for part in parts:
            if not isinstance(part, CellFrame):
                raise WorkbenchError(f"analysis needs CellFrames, got {type(part).__name__}.")
            if len(part.frame) == 0:
                continue
            kbytes, kt, funiq, quniq, chunk_codes = _code_chunk(part.frame, tab_u)
            key_chunks.append((kbytes, kt))
            fam_chunks.append(funiq)
            qual_chunks.append(quniq)
            codes.append(chunk_codes)
        if not codes:
            return cls._empty()
        release_freed_memory()
        tables = sorted(tab_u)
        table_rank = np.empty(len(tab_u), dtype=np.int32)
        for name, i in tab_u.items():
            table_rank[i] = tables.index(name)
        # global row ids: sort the distinct (table, key) pairs, table-major
        sizes = [len(k) for k, _ in key_chunks]
        all_keys = np.concatenate([k for k, _ in key_chunks])
        all_tab = table_rank[np.concatenate([t for _, t in key_chunks])]
        del key_chunks  # the keys live on in all_keys: don't hold them twice through the sort
        order = np.lexsort((all_keys, all_tab))
        sk = all_keys[order]
        del all_keys
        st = all_tab[order]
        del all_tab
        first = np.ones(len(sk), dtype=bool)
        first[1:] = sk[1:] != sk[:-1]
        first[1:] |= st[1:] != st[:-1]
        gid = np.empty(len(order), dtype=np.int32 if len(order) < 2**31 else np.int64)
        gid[order] = np.cumsum(first) - 1
        del order
        row_keys = sk[first]
        del sk
        row_table = st[first].astype(np.int32)
        del st, first
        offsets = np.cumsum([0] + sizes)
        families = np.array(sorted(set().union(*[set(x) for x in fam_chunks])), dtype=object)
        qualifiers = np.array(sorted(set().union(*[set(x) for x in qual_chunks])), dtype=object)
        fam_pos = {f: i for i, f in enumerate(families)}
        qual_pos = pd.Series(np.arange(len(qualifiers)), index=pd.Index(qualifiers, dtype=object))
        small = np.int32 if len(row_keys) < 2**31 else np.int64
        n = sum(len(c[0]) for c in codes)
        row = np.empty(n, dtype=small)
        family = np.empty(n, dtype=np.int16 if len(families) < 2**15 else np.int32)
        qualifier = np.empty(n, dtype=np.int32)
        ts = np.empty(n, dtype=np.int64)
        vlen = np.empty(n, dtype=np.int32)
        a = 0
        for i in range(len(codes)):
            kcode, fcode, qcode, t, vl = codes[i]
            b = a + len(kcode)
            row[a:b] = gid[offsets[i] : offsets[i + 1]][kcode]
            family[a:b] = np.array([fam_pos[x] for x in fam_chunks[i]], dtype=np.int32)[fcode]
            qualifier[a:b] = qual_pos.reindex(pd.Index(qual_chunks[i], dtype=object)).to_numpy(
                dtype=np.int64
            )[qcode]
            ts[a:b] = t
            vlen[a:b] = vl
            codes[i] = ()  # free the chunk's codes as we go
            a = b
        del gid, codes
        order = _cell_order(row, family, qualifier, ts, len(row_keys))
        # permute one array at a time so only one extra copy is alive (memory of the 10M path)
        row = row[order]
        family = family[order]
        qualifier = qualifier[order]
        ts = ts[order]
        vlen = vlen[order]
        del order
        key_bytes = (
            np.char.str_len(row_keys).astype(np.int32) if len(row_keys) else np.zeros(0, np.int32)
        )
        family_bytes = _str_lengths(families)
        qualifier_bytes = _str_lengths(qualifiers)
        vtotal = int(vlen.sum(dtype=np.int64))
        nbytes = vlen  # reuse: value + key + family + qualifier + timestamp, in place
        nbytes += key_bytes[row]
        nbytes += family_bytes[family].astype(np.int32)
        nbytes += qualifier_bytes[qualifier].astype(np.int32)
        nbytes += TIMESTAMP_OVERHEAD
        del vlen
        release_freed_memory()
        return cls(
            tables=tables,
            row_keys=row_keys,
            row_table=row_table,
            families=families,
            qualifiers=qualifiers,
            row=row,
            family=family,
            qualifier=qualifier,
            ts=ts,
            nbytes=nbytes,
            key_bytes=key_bytes,
            family_bytes=family_bytes,
            qualifier_bytes=qualifier_bytes,
            value_bytes_total=vtotal,
        )

    @classmethod
    def _empty(cls) -> CellIndex:
        z = np.zeros(0, dtype=np.int64)
        return cls.keys_only([], np.zeros(0, dtype="S1"), z)

    @classmethod
    def keys_only(
        cls,
        tables: list,
        row_keys: np.ndarray,
        key_bytes: np.ndarray,
        key_rows: np.ndarray | None = None,
    ) -> CellIndex:
        """An index of rows and no cells (the engine path's file rows or ranges of them, with
        ``key_rows``; an empty index)."""
        z = np.zeros(0, dtype=np.int64)
        o = np.zeros(0, dtype=object)
        return cls(
            tables=tables,
            row_keys=row_keys,
            row_table=np.zeros(len(row_keys), dtype=np.int32),
            families=o,
            qualifiers=o,
            row=z,
            family=z,
            qualifier=z,
            ts=z,
            nbytes=z,
            key_bytes=key_bytes,
            family_bytes=z,
            qualifier_bytes=z,
            value_bytes_total=0,
            key_rows=key_rows,
        )

    # -- derived -------------------------------------------------------------------------
    def key(self, i: int) -> str:
        """Row key ``i`` as text."""
        return bytes(self.row_keys[i]).decode("utf-8", "surrogateescape")

    def one_row(self, i: int) -> bool:
        """Whether key ``i`` is a single row (not a range of several: ``key_rows``)."""
        return self.key_rows is None or int(self.key_rows[i]) == 1

    def keys(self, rows: np.ndarray) -> np.ndarray:
        """Row keys of ``rows`` as an object array of str."""
        return np.array(
            [bytes(k).decode("utf-8", "surrogateescape") for k in self.row_keys[rows]], dtype=object
        )

    def key_matches(self, pattern: str, rows: np.ndarray) -> np.ndarray:
        """Per row id (indexable by every row id): does the row key fully match ``pattern``?
        Decided for ``rows`` at least. Each key is matched once per pattern and kept (a plan
        with one request per range and its emulator form ask for the same keys again; one
        Python regex per key is seconds at millions of rows)."""
        done, ok = self._key_matches.setdefault(
            pattern, (np.zeros(self.n_rows, dtype=bool), np.zeros(self.n_rows, dtype=bool))
        )
        todo = rows[~done[rows]]
        if not len(todo):
            return ok
        # ASCII keys and an ASCII pattern match the same as bytes, without decoding each key
        # (\s and \S differ: str's also match \x1c-\x1f, so those patterns take the str path)
        raw = pattern.isascii() and not re.search(r"\\[sSuUN]", pattern)
        raw = raw and int(np.ascontiguousarray(self.row_keys).view(np.uint8).max(initial=0)) < 128
        rx = re.compile(pattern.encode() if raw else pattern, re.DOTALL)
        for i in range(0, len(todo), 500_000):  # decode in blocks: bounded memory on huge scans
            blk = todo[i : i + 500_000]
            keys = self.row_keys[blk].tolist() if raw else self.keys(blk)
            ok[blk] = np.fromiter(map(bool, map(rx.fullmatch, keys)), dtype=bool, count=len(blk))
            done[blk] = True
        return ok

    @property
    def n_cells(self) -> int:
        return len(self.row)

    @property
    def n_rows(self) -> int:
        return len(self.row_keys)

    def row_offsets(self) -> np.ndarray:
        """Cell offsets per row: cells of row i are [off[i], off[i+1])."""
        # the cells are in row order: a count per row, summed (O(n), where a searchsorted per
        # row was O(n log n), 8 ms per call at 516,000 rows)
        off = np.zeros(self.n_rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.row, minlength=self.n_rows), out=off[1:])
        return off

    def row_cells(self) -> np.ndarray:
        return np.bincount(self.row, minlength=self.n_rows)

    def row_bytes(self) -> np.ndarray:
        off = self.row_offsets()
        if self.n_cells == 0:
            return np.zeros(self.n_rows, dtype=np.int64)
        return np.add.reduceat(
            self.nbytes.astype(np.int64), off[:-1]
        )  # every row has at least one cell

    def table_rows(self, table: str) -> tuple[int, int]:
        """[lo, hi) of the row ids of one table (rows are sorted table-major)."""
        if table not in self.tables:
            return 0, 0
        t = self.tables.index(table)
        return int(np.searchsorted(self.row_table, t, "left")), int(
            np.searchsorted(self.row_table, t, "right")
        )


__all__ = ["CellIndex"]
