"""Run a ReadPlan against Bigtable: ReadRows on the connection's channel → CellFrame + figures.

Why it is built this way:

* Fast path: ``ReadRowsResponse`` messages are the package's raw protobufs, read on the
  connection's own channel (no receive limit: rows over 4 MiB are readable) and their
  chunks are decoded straight into CellFrame columns (``chunks.decode``: the ReadRows state
  machine, held to Bigtable's own acceptance cases), not into the client's per-row Python
  objects (bench/bench_read.py measures the difference).
* Deadlines are on progress, never on the whole scan: a read is cancelled only when it has
  waited ``READ_IDLE_TIMEOUT`` for its next response and the emulator's port does not answer
  (frozen, hung), or after ``READ_SILENT_LIMIT`` of silence; a transient error resumes the read
  after its last committed row under the connection's one retry policy (``Connection.retry``).
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
from ..errors import EmulatorUnavailable, ReadStreamError, SchemaError, WorkbenchError
from ..schema.families import Family, GcRule, Intersection, MaxAge, MaxVersions, Union_
from ..schema.plan import CellFilter, PlanResult, ReadPlan, family_regex
from .chunks import decode, new_columns
from .connection import TRANSIENT_CODES, Connection
from .lease import LEASE_FAMILY, LEASE_KEY_BYTES
from .net import speaks_grpc
from .writer import routing_metadata

ReadRowsRequest = _bt.ReadRowsRequest.pb()
ReadRowsResponse = _bt.ReadRowsResponse.pb()
RowFilter = _data.RowFilter.pb()
RowSet = _data.RowSet.pb()
READ_ROWS = "/google.bigtable.v2.Bigtable/ReadRows"
US_PER_MS = 1000
# A read has no deadline for the whole scan (a 2-million-event read-back on a busy machine
# outlasts any fixed one); its deadlines are on progress. READ_IDLE_TIMEOUT: s the read may wait
# for its next response before it knocks on the emulator's port (a 1 s HTTP/2 handshake): no
# answer (SIGSTOP, a hung process) cancels the read; an answer gives it another period, since an
# in-memory scan of ten million rows that keeps none sends nothing for a while. READ_SILENT_LIMIT:
# s without a response after which the read is cancelled even though the server answers.
# Time the workbench spends on a response it was given (decoding on a busy machine) never counts.
READ_IDLE_TIMEOUT = 15.0
READ_SILENT_LIMIT = 300.0


class _Stalled(Exception):
    """The server sent nothing for ``idle`` seconds; the read was cancelled. ``alive``: the
    server still answered on its port (the silent limit, not the idle one, was reached)."""

    def __init__(self, idle: float, alive: bool) -> None:
        super().__init__(f"no response for {idle:.1f} s")
        self.idle = idle
        self.alive = alive


def _watched(
    call: Any,
    idle_s: float,
    answers: Callable[[], bool | None] | None = None,
    progress: list[float] | None = None,
) -> Iterator[Any]:
    """The call's responses, cancelling it when the reader has waited ``idle_s`` seconds for
    the next one and ``answers()`` does not say the server is alive, or after
    ``READ_SILENT_LIMIT`` seconds of waiting whatever it says. ``progress[0]`` is set to the
    time of each response. Only waiting counts: not the time the caller holds a response."""
    waiting: list[float | None] = [time.monotonic()]  # None while the caller holds a response
    knocked = [0.0]
    stalled: list[tuple[float, bool]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.25):
            since = waiting[0]
            if since is None:
                continue
            now = time.monotonic()
            silenced = now - since > READ_SILENT_LIMIT  # reached only while knocks answer
            if not silenced and now - max(since, knocked[0]) <= idle_s:
                continue
            if not silenced and answers is not None and answers() is True:
                knocked[0] = time.monotonic()  # alive and working: give it another period
                continue
            stalled.append((time.monotonic() - since, silenced))
            call.cancel()
            return

    threading.Thread(target=watch, name="wb-read-watchdog", daemon=True).start()
    try:
        it = iter(call)
        while True:
            waiting[0] = time.monotonic()
            try:
                msg = next(it)
            except StopIteration:
                return
            waiting[0] = None
            if progress is not None:
                progress[0] = time.monotonic()
            yield msg
    except grpc.RpcError:
        if stalled:
            raise _Stalled(*stalled[0]) from None
        raise
    finally:
        done.set()


def _stalled_message(conn: Connection, table_id: str, exc: _Stalled, rows: int) -> str:
    """Why a read was cancelled: a server silent on its port too (frozen, hung), or one that
    answers but sent nothing on this read for the silent limit."""
    got = f"{rows:,} rows received before" if rows else "no row received before"
    if exc.alive:
        return (
            f"Reading {table_id!r} was cancelled: the {conn.target} still answers on its port "
            f"but sent nothing on this read for {exc.idle:.1f} s ({got}; the limit is "
            f"{READ_SILENT_LIMIT:.0f} s without a response). A filtered scan over very many rows "
            "that keeps none sends nothing while it scans: narrow the read, or read again."
        )
    return (
        f"Reading {table_id!r} failed: the {conn.target} sent nothing for {exc.idle:.1f} s "
        f"while the read waited for its next response ({got}; cancelled after "
        f"{READ_IDLE_TIMEOUT:.0f} s without a response when the emulator's port does not "
        "answer either). " + conn.diagnose()
    )


def _resumed(req: Any, after: bytes, rows_read: int) -> Any | None:
    """``req`` for the rows it has not returned yet: after ``after`` (before it, reversed),
    ``rows_read`` fewer under a rows limit; None when nothing is left to read (an empty RowSet
    would read the whole table)."""
    out = ReadRowsRequest()
    out.CopyFrom(req)
    if req.rows_limit:
        if req.rows_limit <= rows_read:
            return None
        out.rows_limit = req.rows_limit - rows_read
    rev = req.reversed
    out.rows.Clear()
    if not req.rows.row_keys and not req.rows.row_ranges:  # the whole table
        rr = out.rows.row_ranges.add()
        if rev:
            rr.end_key_open = after
        else:
            rr.start_key_open = after
        return out
    out.rows.row_keys.extend(k for k in req.rows.row_keys if (k < after if rev else k > after))
    for r in req.rows.row_ranges:
        start = getattr(r, r.WhichOneof("start_key") or "start_key_closed")
        end = getattr(r, r.WhichOneof("end_key") or "end_key_open")
        if rev:
            if start and start >= after:  # every row of it is read
                continue
            nr = out.rows.row_ranges.add()
            nr.CopyFrom(r)
            if not end or end >= after:  # a closed end at ``after``: that row is read
                nr.end_key_open = after
        else:
            if end and end <= after:
                continue
            nr = out.rows.row_ranges.add()
            nr.CopyFrom(r)
            if not start or start <= after:
                nr.start_key_open = after
    return out if (out.rows.row_keys or out.rows.row_ranges) else None


def _read_stream(
    conn: Connection,
    req: Any,
    md: Any,
    cols: dict[str, list[Any]],
    knock: Callable[[], bool | None] | None,
) -> None:
    """One ReadRows request's rows into ``cols``. A stream broken by a transient error is read
    again from the row after the last one committed, under the connection's one retry policy
    (its budget counted from the last response); a reset or a half-sent row is never kept."""
    call = conn.stream_call(READ_ROWS, ReadRowsRequest, ReadRowsResponse)
    rows0 = len(cols["row_key"])
    progress = [time.monotonic()]

    def attempt() -> None:
        got = len(cols["row_key"]) - rows0
        after = cols["row_key"][-1] if got else None
        todo = req if after is None else _resumed(req, after, got)
        if todo is None:
            return
        stream = _watched(call(todo, metadata=md), READ_IDLE_TIMEOUT, knock, progress)
        decode(stream, cols, reverse=req.reversed, after=after)

    conn.retry(last_progress=lambda: progress[0])(attempt)()


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


def _without_lease(cols: dict[str, list[Any]]) -> None:
    """Leave out the table's lease row (``lease.py``: a load writing the table holds it, a
    killed one left it): no count, verification or analysis sees it."""
    try:
        i = cols["row_key"].index(LEASE_KEY_BYTES)
    except ValueError:
        return
    start, n = sum(cols["n"][:i]), cols["n"][i]
    if any(f != LEASE_FAMILY for f in cols["family"][start : start + n]):
        return  # a row of data that happens to have that key: kept
    for k in ("family", "qualifier", "timestamp_us", "value"):
        del cols[k][start : start + n]
    del cols["row_key"][i], cols["n"][i]


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


# what the "—" in a read's measured column means: it was run, the emulator just never says
SEEN_LEGEND = (
    "— not reported: a read returns what it keeps, not what the server scanned; "
    "the seen figures are the model's"
)


def figures_html(figures: pd.DataFrame) -> str:
    """A read's figures (measured beside modelled) as a notebook table, each figure in its unit
    (bytes as kB/MB, counts with separators), with the legend of its "—" (01-07 showed "—"
    under measured rows/cells/bytes seen with no word on why)."""
    from ..formatting import styled_rows  # a Styler (jinja2): only where HTML is shown

    absent = "measured" in figures.columns and bool(figures["measured"].isna().any())
    return styled_rows(figures, caption=SEEN_LEGEND if absent else "").to_html()


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
        return head + figures_html(self.figures()) + notes

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

    Why one function: one ReadRows request (resumed after transient errors, with the emulator's
    reverse-scan fallback) is sent, timed, its failures named and its rows trimmed in one place,
    with the counts a failure's message gives.
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
    path = conn.table_path(table_id)
    md = routing_metadata(path)
    cols = new_columns()
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
                    _read_stream(conn, request(True, plan.rows_limit), md, cols, knock)
                except grpc.RpcError as exc:
                    if exc.code() != grpc.StatusCode.UNIMPLEMENTED:
                        raise
                    conn.reverse_scans = False
                    emulate_reverse = True
                    for k, v in cols.items():
                        del v[mark[0] if k in ("row_key", "n") else mark[1] :]
            if not plan.reversed or emulate_reverse:
                limit = None if emulate_reverse else plan.rows_limit
                _read_stream(conn, request(False, limit), md, cols, knock)
        except _Stalled as exc:
            raise EmulatorUnavailable(
                _stalled_message(conn, table_id, exc, len(cols["row_key"]) - mark[0])
            ) from None
        except ReadStreamError as exc:
            raise ReadStreamError(f"Reading {table_id!r} from the {conn.target}: {exc}") from None
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.NOT_FOUND:
                raise WorkbenchError(
                    f"Table {table_id!r} does not exist on the {conn.target}: {exc.details()}."
                    + conn.why_missing(table_id)
                ) from None
            if code in TRANSIENT_CODES:  # the retry policy gave up
                raise EmulatorUnavailable(
                    f"Reading {table_id!r} failed: no answer from the {conn.target} after "
                    f"{time.perf_counter() - t0:.1f} s ({code.name}: {exc.details()}; "
                    f"{len(cols['row_key']) - mark[0]:,} rows read before). " + conn.diagnose()
                ) from None
            raise WorkbenchError(
                f"ReadRows on {table_id!r} failed: {code.name} {exc.details()}"
            ) from None
    elapsed = time.perf_counter() - t0
    if emulate_reverse:
        notes.append(
            "the emulator does not support reverse scans: the range was read forward and reversed here"
        )
    _without_lease(cols)
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
