"""Run a ReadPlan against Bigtable: ReadRows on the connection's channel → CellFrame + figures.

Why it is built this way:

* Fast path: ``ReadRowsResponse`` messages are the package's raw protobufs, read on the
  connection's own channel (no receive limit: rows over 4 MiB are readable) and their
  chunks are decoded straight into CellFrame columns, not into the client's per-row
  Python objects (bench/bench_read.py measures the difference).
* The plan's ``CellFilter`` becomes one ``RowFilter`` chain (families, qualifier regex,
  row-key regex, timestamp range, latest N per column). Regexes are RE2 and match the
  whole name, like :meth:`CellFilter.cell_mask`.
* GC rules are stored but enforced lazily by the emulator (and eventually by Cloud
  Bigtable), so by default the read applies the equivalent filter per family (G13/G18):
  max versions → ``cells_per_column_limit``, max age → a timestamp range relative to
  ``gc_now_us``. :func:`gc_live_cells` applies the same rules to a CellFrame so the
  modelled figures (``plan.evaluate``) describe the same cells.
* One ReadRows request per plan listing every key range and row key (``plan.scans`` counts them)
  (salted keys need one scan per bucket, G08). The emulator refuses reverse scans
  (UNIMPLEMENTED): the range is then read forward and reversed here, said in ``notes``.
* The emulator does not report rows/cells *seen*: those come from the model
  (``plan.evaluate`` on the cells written), kept next to the measured figures.

Why one module: the filter translation and the chunk decoder are one contract with
``ReadPlan.evaluate`` (the figures measured here must equal the model's), so they change together.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import numpy as np
import pandas as pd
from google.cloud.bigtable_v2.types import bigtable as _bt
from google.cloud.bigtable_v2.types import data as _data

from ..cells import CellFrame
from ..errors import EmulatorUnavailable, SchemaError, WorkbenchError
from ..schema.families import Family, GcRule, Intersection, MaxAge, MaxVersions, Union_
from ..schema.plan import CellFilter, PlanResult, ReadPlan, family_regex
from .connection import Connection
from .net import speaks_grpc
from .writer import routing_metadata

ReadRowsRequest = _bt.ReadRowsRequest.pb()
ReadRowsResponse = _bt.ReadRowsResponse.pb()
RowFilter = _data.RowFilter.pb()
RowSet = _data.RowSet.pb()
READ_ROWS = "/google.bigtable.v2.Bigtable/ReadRows"
US_PER_MS = 1000
STREAM_TIMEOUT = 120.0  # s for one scan's whole stream (a refused connection still fails at once)
# s a read may go without a single response message before it is cancelled: a frozen emulator
# (SIGSTOP) keeps its socket open and never answers; an in-memory scan of ten million rows that
# keeps none sends nothing for a few seconds
READ_IDLE_TIMEOUT = 15.0


class _Stalled(Exception):
    """The server sent nothing for ``idle`` seconds; the read was cancelled."""

    def __init__(self, idle: float) -> None:
        super().__init__(f"no response for {idle:.1f} s")
        self.idle = idle


def _watched(
    call: Any, idle_s: float, answers: Callable[[], bool | None] | None = None
) -> Iterator[Any]:
    """The call's responses, cancelling it when none arrives for ``idle_s`` seconds and
    ``answers()`` (a 1 s HTTP/2 knock on the emulator's port) does not say the server is alive:
    a slow scan of a live server goes on, to the stream's own deadline."""
    last = [time.monotonic()]
    stalled = threading.Event()
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.25):
            if time.monotonic() - last[0] > idle_s:
                if answers is not None and answers() is True:
                    last[0] = time.monotonic()  # alive and working: give it another period
                    continue
                stalled.set()
                call.cancel()
                return

    threading.Thread(target=watch, name="wb-read-watchdog", daemon=True).start()
    try:
        for msg in call:
            last[0] = time.monotonic()
            yield msg
    except grpc.RpcError:
        if stalled.is_set():
            raise _Stalled(time.monotonic() - last[0]) from None
        raise
    finally:
        done.set()


def _read_rows_call(conn: Connection) -> Any:
    cache = conn.__dict__.setdefault("_wb_rpc_cache", {})
    call = cache.get("ReadRows")
    if call is None:
        call = conn.channel.unary_stream(
            READ_ROWS,
            request_serializer=ReadRowsRequest.SerializeToString,
            response_deserializer=ReadRowsResponse.FromString,
        )
        cache["ReadRows"] = call
    return call


def _key(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


# ----------------------------------------------------------------------------- filters


def _chain(filters: Sequence[Any]) -> Any | None:
    filters = [f for f in filters if f is not None]
    if not filters:
        return None
    if len(filters) == 1:
        return filters[0]
    out = RowFilter()
    out.chain.filters.extend(filters)
    return out


def _ts_filter(lo: int | None, hi: int | None) -> Any:
    f = RowFilter()
    f.timestamp_range_filter.start_timestamp_micros = int(lo or 0)
    f.timestamp_range_filter.end_timestamp_micros = int(hi or 0)  # 0: no upper bound
    return f


def cell_filter_pb(flt: CellFilter) -> Any | None:
    """A plan's CellFilter → one raw ``RowFilter`` chain (None when it keeps everything)."""
    parts: list[Any] = []
    if flt.families is not None:
        if not flt.families:
            parts.append(RowFilter(block_all_filter=True))
        else:
            parts.append(RowFilter(family_name_regex_filter=family_regex(flt.families)))
    if flt.qualifier_regex is not None:
        parts.append(RowFilter(column_qualifier_regex_filter=_key(flt.qualifier_regex)))
    if flt.row_key_regex is not None:
        parts.append(RowFilter(row_key_regex_filter=_key(flt.row_key_regex)))
    if flt.time_range_us is not None:
        parts.append(_ts_filter(*flt.time_range_us))
    if flt.latest_versions is not None:
        parts.append(RowFilter(cells_per_column_limit_filter=int(flt.latest_versions)))
    return _chain(parts)


def _age_cutoff(rule: MaxAge, now_us: int) -> int:
    """Cells with timestamps below this are garbage (ms granularity, like the server)."""
    cut = now_us - rule.seconds * 1_000_000
    return max(0, cut - cut % US_PER_MS)


def _gc_keep_filter(rule: GcRule, now_us: int) -> Any:
    """A filter passing exactly the cells the rule keeps, within one family."""
    if isinstance(rule, MaxVersions):
        return RowFilter(cells_per_column_limit_filter=rule.n)
    if isinstance(rule, MaxAge):
        return _ts_filter(_age_cutoff(rule, now_us), None)
    if isinstance(rule, Union_):  # garbage if any says so: keep only what every rule keeps
        versions = [r for r in rule.rules if isinstance(r, MaxVersions)]
        others = [r for r in rule.rules if not isinstance(r, MaxVersions)]
        # versions count every stored cell, so they go first in the chain
        return _chain([_gc_keep_filter(r, now_us) for r in (*versions, *others)])
    if isinstance(
        rule, Intersection
    ):  # garbage only if every rule says so: keep what any rule keeps
        ages = [r for r in rule.rules if isinstance(r, MaxAge)]
        rest = [r for r in rule.rules if not isinstance(r, MaxAge)]
        if ages:
            cutoff = min(_age_cutoff(a, now_us) for a in ages)  # the longest age keeps the most
            young = _ts_filter(cutoff, None)
            if not rest:
                return young
            inner = (
                _gc_keep_filter(rest[0], now_us)
                if len(rest) == 1
                else _gc_keep_filter(Intersection(tuple(rest)), now_us)
            )
            out = RowFilter()  # young cells, or old cells some other rule keeps: disjoint branches
            out.interleave.filters.extend(
                [
                    young,
                    _chain(
                        [
                            inner,
                            _ts_filter(0, cutoff) if cutoff else RowFilter(block_all_filter=True),
                        ]
                    ),
                ]
            )
            return out
        if all(isinstance(r, MaxVersions) for r in rest):
            return RowFilter(cells_per_column_limit_filter=max(r.n for r in rest))  # type: ignore[union-attr]
        raise SchemaError(
            f"GC rule {rule.cbt()} cannot be applied on read: nest intersections only around "
            "max_age/max_versions rules."
        )
    raise SchemaError(f"Unknown GC rule {rule!r}.")


def gc_filter_pb(families: Sequence[Family], now_us: int) -> Any | None:
    """Per-family filter equivalent to the families' GC rules (None when none has a rule)."""
    ruled = [(f.name, f.gc) for f in families if f.gc is not None]
    if not ruled:
        return None
    branches = [
        _chain(
            [
                RowFilter(family_name_regex_filter=family_regex([name])),
                _gc_keep_filter(gc, now_us),
            ]
        )
        for name, gc in ruled
    ]
    rest = [f.name for f in families if f.gc is None]
    if (
        rest
    ):  # families without a rule pass unchanged (a family the schema does not name is not read)
        branches.append(RowFilter(family_name_regex_filter=family_regex(rest)))
    if len(branches) == 1:
        return branches[0]
    out = RowFilter()  # branches select disjoint families: no cell comes out twice
    out.interleave.filters.extend(branches)
    return out


def gc_live_cells(
    cells: CellFrame, families: Mapping[str, Sequence[Family]] | Sequence[Family], now_us: int
) -> CellFrame:
    """The cells a GC pass at ``now_us`` would keep (the model of GC-on-read)."""
    fams: dict[str, dict[str, Family]]
    if isinstance(families, Mapping):
        fams = {t: {f.name: f for f in fs} for t, fs in families.items()}
    else:
        fams = {t: {f.name: f for f in families} for t in (cells.tables or ["main"])}
    f = cells.sorted().frame
    keep = np.ones(len(f), dtype=bool)
    for table, by_name in fams.items():
        for name, fam in by_name.items():
            if fam.gc is None:
                continue
            sel = ((f["table"] == table) & (f["family"] == name)).to_numpy()
            if sel.any():
                keep[np.flatnonzero(sel)] = _gc_keep_mask(f[sel], fam.gc, now_us)
    return CellFrame(f[keep].reset_index(drop=True))


def _gc_keep_mask(f: pd.DataFrame, rule: GcRule, now_us: int) -> np.ndarray:
    if isinstance(rule, MaxVersions):
        return (
            f.groupby(["row_key", "family", "qualifier"], sort=False).cumcount().to_numpy() < rule.n
        )
    if isinstance(rule, MaxAge):
        return f["timestamp_us"].to_numpy() >= _age_cutoff(rule, now_us)
    if isinstance(rule, Union_):
        m = np.ones(len(f), dtype=bool)
        for r in rule.rules:
            m &= _gc_keep_mask(f, r, now_us)
        return m
    if isinstance(rule, Intersection):
        m = np.zeros(len(f), dtype=bool)
        for r in rule.rules:
            m |= _gc_keep_mask(f, r, now_us)
        return m
    raise SchemaError(f"Unknown GC rule {rule!r}.")


# ----------------------------------------------------------------------------- decoding


def _decode(responses: Any, cols: dict[str, list[Any]]) -> tuple[int, int]:
    """Chunks → column lists; returns (rows, cells) committed. Handles split cells and resets.

    ``cols`` holds per-row ``row_key``/``n`` (cells in the row) and per-cell ``family``,
    ``qualifier``, ``timestamp_us``, ``value``; repeating the row key per cell is left to numpy."""
    keys, counts = cols["row_key"], cols["n"]
    fam, qual, ts, val = cols["family"], cols["qualifier"], cols["timestamp_us"], cols["value"]
    fa, qa, ta, va = fam.append, qual.append, ts.append, val.append
    rows = 0
    row_start = len(val)
    key = b""
    family = ""
    q = b""
    parts: list[bytes] | None = None
    t_split = 0
    for resp in responses:
        for c in resp.chunks:
            if c.row_key:
                key = c.row_key
            if c.HasField("family_name"):
                family = c.family_name.value
            if c.HasField("qualifier"):
                q = c.qualifier.value
            if c.value_size > 0 or parts is not None:  # a cell split over chunks: collect its parts
                if parts is None:
                    parts, t_split = [], c.timestamp_micros
                parts.append(c.value)
                if c.value_size > 0:
                    continue
                fa(family)
                qa(q)
                ta(t_split)
                va(b"".join(parts))  # noqa: E702
                parts = None
            elif c.reset_row:
                del fam[row_start:], qual[row_start:], ts[row_start:], val[row_start:]
                parts = None
                continue
            else:
                fa(family)
                qa(q)
                ta(c.timestamp_micros)
                va(c.value)  # noqa: E702
            if c.commit_row:
                rows += 1
                keys.append(key)
                counts.append(len(val) - row_start)
                row_start = len(val)
    return rows, len(val)


def _texts(values: list[bytes]) -> list[str]:
    """Decode with one decode per distinct value (qualifiers and keys repeat a lot)."""
    table = {u: u.decode("utf-8", "surrogateescape") for u in set(values)}
    return [table[v] for v in values]


def _raw_bytes(cols: dict[str, list[Any]]) -> int:
    """Bytes as CellFrame.cell_bytes counts them (key + family + qualifier + 8 + value), from the raw lists."""
    keys = sum(len(k) * n for k, n in zip(cols["row_key"], cols["n"], strict=True))
    fams = sum(len(x.encode("utf-8")) * c for x, c in _counts(cols["family"]).items())
    quals = sum(len(x) * c for x, c in _counts(cols["qualifier"]).items())
    return int(keys + fams + quals + sum(map(len, cols["value"])) + 8 * len(cols["value"]))


def _counts(values: list[Any]) -> dict[Any, int]:
    from collections import Counter

    return Counter(values)


def _new_cols() -> dict[str, list[Any]]:
    return {k: [] for k in ("row_key", "n", "family", "qualifier", "timestamp_us", "value")}


def _to_cellframe(cols: dict[str, list[Any]], table: str) -> CellFrame:
    n = len(cols["value"])
    keys = np.asarray([k.decode("utf-8", "surrogateescape") for k in cols["row_key"]], dtype=object)
    frame = pd.DataFrame(
        {
            "table": np.full(n, table, dtype=object),
            "row_key": np.repeat(keys, np.asarray(cols["n"], dtype=np.int64))
            if n
            else np.zeros(0, dtype=object),
            "family": np.asarray(cols["family"], dtype=object) if n else np.zeros(0, dtype=object),
            "qualifier": np.asarray(_texts(cols["qualifier"]), dtype=object)
            if n
            else np.zeros(0, dtype=object),
            "timestamp_us": np.asarray(cols["timestamp_us"], dtype=np.int64),
            "value": pd.Series(cols["value"], dtype=object),
        }
    )
    return CellFrame(frame)


# ----------------------------------------------------------------------------- running a plan


@dataclass
class ReadResult:
    """Cells a plan returned and the figures: measured next to modelled."""

    plan: ReadPlan
    cells: CellFrame
    rows_returned: int
    cells_returned: int
    bytes_returned: int
    scans: int
    elapsed_s: float
    table_id: str
    modelled: PlanResult | None = None
    notes: list[str] = field(default_factory=list)
    # what the server streamed before a client-side trim (an emulated reverse scan reads the
    # range forward), and the model of the plan as the emulator runs it (``plan.on_emulator()``)
    rows_streamed: int | None = None
    cells_streamed: int | None = None
    bytes_streamed: int | None = None
    emulator_model: PlanResult | None = None

    @property
    def rows_seen(self) -> int | None:
        """What the server scanned (modelled: the emulator does not report it)."""
        return self.modelled.rows_seen if self.modelled else None

    @property
    def cells_seen(self) -> int | None:
        return self.modelled.cells_seen if self.modelled else None

    def figures(self) -> pd.DataFrame:
        m = self.modelled
        rows = [
            ("rows returned", self.rows_returned, m.rows_returned if m else None),
            ("cells returned", self.cells_returned, m.cells_returned if m else None),
            ("bytes returned", self.bytes_returned, m.bytes_returned if m else None),
            ("rows seen", None, m.rows_seen if m else None),
            ("cells seen", None, m.cells_seen if m else None),
            ("bytes seen", None, m.bytes_seen if m else None),
            ("scans", self.scans, m.scans if m else None),
        ]
        # whole numbers, "—" where a figure has no value (the emulator does not report rows seen)
        return (
            pd.DataFrame(rows, columns=["figure", "measured", "modelled"])
            .set_index("figure")
            .astype("Int64")
        )

    @property
    def agrees(self) -> bool | None:
        """Measured rows/cells/bytes returned equal the model's (None without a model)."""
        m = self.modelled
        if m is None:
            return None
        return (self.rows_returned, self.cells_returned, self.bytes_returned) == (
            m.rows_returned,
            m.cells_returned,
            m.bytes_returned,
        )

    def _repr_html_(self) -> str:
        head = (
            f"<p><b>ReadPlan</b> {html.escape(self.plan.describe())} on <code>{html.escape(self.table_id)}"
            f"</code>: {self.elapsed_s * 1000:.1f} ms</p>"
        )
        notes = "".join(f"<br><i>{html.escape(n)}</i>" for n in self.notes)
        return head + self.figures().to_html(na_rep="—") + notes

    def __repr__(self) -> str:
        return (
            f"<ReadResult {self.rows_returned:,} rows, {self.cells_returned:,} cells, {self.bytes_returned:,} "
            f"bytes in {self.scans} scan(s), {self.elapsed_s * 1000:.1f} ms>"
        )


def _row_sets(plan: ReadPlan) -> list[Any | None]:
    """The plan's one RowSet (None: the whole table): every range and key in ONE ReadRows
    request, in key order, as Cloud Bigtable reads a multi-range request."""
    if plan.full_scan:
        return [None]
    rs = RowSet()
    for r in sorted(plan.ranges, key=lambda r: _key(r.start) if r.start is not None else b""):
        rr = rs.row_ranges.add()
        if r.start is not None:
            rr.start_key_closed = _key(r.start)
        if r.end is not None:
            rr.end_key_open = _key(r.end)
    if plan.keys:
        rs.row_keys.extend(_key(k) for k in sorted(set(plan.keys)))
    return [rs]


def read_plan(
    conn: Connection,
    table_id: str,
    plan: ReadPlan,
    *,
    families: Sequence[Family] = (),
    apply_gc: bool = True,
    gc_now_us: int | None = None,
    model_cells: CellFrame | None = None,
) -> ReadResult:
    """Run ``plan`` on ``table_id``: decoded cells, measured figures, modelled figures if ``model_cells``.

    ``families`` (with GC rules) enable GC-on-read; ``gc_now_us`` is the clock the rules use
    (default: now). ``model_cells`` are the cells written (all tables): the model runs
    ``plan.evaluate`` on their GC-live part.

    Why one function: one ReadRows stream is consumed, decoded, timed and watched by the idle
    watchdog in one loop; split, the watchdog would no longer see the whole stream.
    """
    now = int(time.time() * 1_000_000) if gc_now_us is None else int(gc_now_us)
    if plan.requests > 1:
        return _read_parts(
            conn,
            table_id,
            plan,
            families=families,
            apply_gc=apply_gc,
            gc_now_us=now,
            model_cells=model_cells,
        )
    gc = gc_filter_pb(families, now) if (apply_gc and families) else None
    user = cell_filter_pb(plan.filter)
    flt = _chain([gc, user])
    call = _read_rows_call(conn)
    path = conn.table_path(table_id)
    md = routing_metadata(path)
    cols = _new_cols()
    notes: list[str] = []
    row_sets = _row_sets(plan)
    emulate_reverse = plan.reversed and not conn.reverse_scans
    knock = None if conn.is_production else (lambda: speaks_grpc(conn.host, timeout=1.0))
    t0 = time.perf_counter()
    for rs in row_sets:

        def request(reverse: bool, limit: int | None, rs: Any = rs) -> Any:
            req = ReadRowsRequest(table_name=path)
            if rs is not None:
                req.rows.CopyFrom(rs)
            if flt is not None:
                req.filter.CopyFrom(flt)
            if limit:
                req.rows_limit = int(limit)
            if reverse:
                req.reversed = True
            return req

        mark = (len(cols["row_key"]), len(cols["value"]))
        try:
            if plan.reversed and not emulate_reverse:
                try:
                    _decode(
                        _watched(
                            call(
                                request(True, plan.rows_limit),
                                timeout=max(conn.timeout, STREAM_TIMEOUT),
                                metadata=md,
                            ),
                            READ_IDLE_TIMEOUT,
                            knock,
                        ),
                        cols,
                    )
                except grpc.RpcError as exc:
                    if exc.code() != grpc.StatusCode.UNIMPLEMENTED:
                        raise
                    conn.reverse_scans = False
                    emulate_reverse = True
                    for k, v in cols.items():
                        del v[mark[0] if k in ("row_key", "n") else mark[1] :]
            if not plan.reversed or emulate_reverse:
                limit = None if emulate_reverse else plan.rows_limit
                _decode(
                    _watched(
                        call(
                            request(False, limit),
                            timeout=max(conn.timeout, STREAM_TIMEOUT),
                            metadata=md,
                        ),
                        READ_IDLE_TIMEOUT,
                        knock,
                    ),
                    cols,
                )
        except _Stalled as exc:
            raise EmulatorUnavailable(
                f"Reading {table_id!r} failed: the {conn.target} sent nothing for "
                f"{exc.idle:.1f} s after the request (cancelled after {READ_IDLE_TIMEOUT:.0f} s "
                f"without a response; {time.perf_counter() - t0:.1f} s in all). " + conn.diagnose()
            ) from None
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.NOT_FOUND:
                raise WorkbenchError(
                    f"Table {table_id!r} does not exist on the {conn.target}: {exc.details()}."
                    + conn.why_missing(table_id)
                ) from None
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise EmulatorUnavailable(
                    f"Reading {table_id!r} failed: no answer from the {conn.target} after "
                    f"{time.perf_counter() - t0:.1f} s ({code.name}: {exc.details()}). "
                    + conn.diagnose()
                ) from None
            raise WorkbenchError(
                f"ReadRows on {table_id!r} failed: {code.name} {exc.details()}"
            ) from None
    elapsed = time.perf_counter() - t0
    if emulate_reverse:
        notes.append(
            "the emulator does not support reverse scans: the range was read forward and reversed here"
        )
    cells = _to_cellframe(cols, plan.table)
    f = cells.frame
    n_rows, n_bytes = len(cols["row_key"]), _raw_bytes(cols)
    streamed = (n_rows, len(f), n_bytes)  # what the server sent, before any client-side trim
    if len(row_sets) > 1 or emulate_reverse:
        # several scans (overlap possible) or a client-side reverse: one row once, in scan order, limit applied
        f = f.drop_duplicates(["row_key", "family", "qualifier", "timestamp_us"]).reset_index(
            drop=True
        )
        if plan.rows_limit is not None or emulate_reverse:
            order = pd.unique(np.sort(pd.unique(f["row_key"].to_numpy(dtype=object))))
            if plan.reversed:
                order = order[::-1]
            if plan.rows_limit is not None:
                order = order[: plan.rows_limit]
            f = f[f["row_key"].isin(set(order))].reset_index(drop=True)
        cells = CellFrame(f)
        n_rows, n_bytes = (
            int(f["row_key"].nunique()),
            int(cells.cell_bytes().sum()) if len(f) else 0,
        )
    modelled, emulator_model = _models(
        plan, model_cells, families, apply_gc, now, emulated=emulate_reverse
    )
    return ReadResult(
        plan=plan,
        cells=cells,
        rows_returned=n_rows,
        cells_returned=len(f),
        bytes_returned=n_bytes,
        scans=plan.scans,
        rows_streamed=streamed[0],
        cells_streamed=streamed[1],
        bytes_streamed=streamed[2],
        emulator_model=emulator_model,
        elapsed_s=elapsed,
        table_id=table_id,
        modelled=modelled,
        notes=notes,
    )


def _models(
    plan: ReadPlan,
    model_cells: CellFrame | None,
    families: Sequence[Family],
    apply_gc: bool,
    now_us: int,
    *,
    emulated: bool,
) -> tuple[PlanResult | None, PlanResult | None]:
    """The model of ``plan`` on the GC-live written cells, and (``emulated``: the emulator read
    a reversed plan forward) the model of the plan as the emulator runs it."""
    if model_cells is None:
        return None, None
    live = (
        gc_live_cells(model_cells, {plan.table: tuple(families)}, now_us)
        if (apply_gc and families)
        else model_cells
    )
    return plan.evaluate(live), (plan.on_emulator().evaluate(live) if emulated else None)


def _read_parts(
    conn: Connection,
    table_id: str,
    plan: ReadPlan,
    *,
    families: Sequence[Family],
    apply_gc: bool,
    gc_now_us: int,
    model_cells: CellFrame | None,
) -> ReadResult:
    """A plan whose rows limit applies per range: one ReadRows per range, merged here."""
    parts = [
        read_plan(
            conn,
            table_id,
            p,
            families=families,
            apply_gc=apply_gc,
            gc_now_us=gc_now_us,
            model_cells=model_cells,
        )
        for p in plan.parts()
    ]
    frames = [r.cells.frame for r in parts]
    cells = CellFrame(pd.concat(frames, ignore_index=True))
    modelled, emulator_model = _models(
        plan,
        model_cells,
        families,
        apply_gc,
        gc_now_us,
        emulated=any(r.emulator_model is not None for r in parts),
    )

    def total(name: str) -> int:
        return sum(int(getattr(r, name) or 0) for r in parts)

    notes = list(dict.fromkeys(n for r in parts for n in r.notes))
    notes.append(f"{len(parts)} requests, one per range, each with rows limit {plan.rows_limit}")
    return ReadResult(
        plan=plan,
        cells=cells,
        rows_returned=total("rows_returned"),
        cells_returned=total("cells_returned"),
        bytes_returned=total("bytes_returned"),
        scans=plan.scans,
        rows_streamed=total("rows_streamed"),
        cells_streamed=total("cells_streamed"),
        bytes_streamed=total("bytes_streamed"),
        emulator_model=emulator_model,
        elapsed_s=sum(r.elapsed_s for r in parts),
        table_id=table_id,
        modelled=modelled,
        notes=notes,
    )


def read_table(
    conn: Connection,
    table_id: str,
    *,
    table: str = "main",
    families: Sequence[Family] = (),
    apply_gc: bool = False,
    gc_now_us: int | None = None,
) -> CellFrame:
    """Every cell of a table (no GC filter by default: what is stored)."""
    plan = ReadPlan(intent="read all", table=table)
    return read_plan(
        conn, table_id, plan, families=families, apply_gc=apply_gc, gc_now_us=gc_now_us
    ).cells
