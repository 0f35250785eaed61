"""The Schema: a row key, a layout, families + GC, optional extra tables and aggregates.

A Schema is pure data (a frozen dataclass): it prints, compares by value and can
be tweaked with ``dataclasses.replace``. It turns a Dataset into exactly the
cells Bigtable would store (``to_cells``), turns cells back into the events
(``from_cells``) and compiles a query intent into a read plan (``plan``).

Contract with the analysis and the writer: every event cell's ``timestamp_us`` is
the event time truncated to milliseconds (so writes can be replayed in time
order); aggregate cells carry their bucket start.

Why one module: ``to_cells``, ``from_cells`` and ``plan`` all work from one binding of key,
layout and dataset shape (``Schema.bind``). The plan compiler itself lives in ``planner.py``.
"""

from __future__ import annotations

import html
import math
import re
import textwrap
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..cells import DEFAULT_TABLE, CellFrame
from ..errors import SchemaError
from .families import Family, MaxVersions
from .keys import RowKey
from .layouts import BuildInput, Layout, Tall
from .limits import Finding, LimitWarning, LossReport, check_limits, check_parts, raise_collisions
from .plan import ReadCosts, ReadPlan
from .planner import plan_query
from .segments import Literal, RenderContext, Segment, unknown_name_message
from .shape import Shape
from .time_segments import Timestamp
from .time_text import US_PER_MS, floor_us, time_us
from .value_text import decode_text, encode_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset, QueryIntent

ATTR_SHAPE = "workbench.shape"
ATTR_LOSS = "workbench.loss"
ATTR_FINDINGS = "workbench.findings"
ATTR_CELLS = "workbench.cells"  # how many cells to_cells made: the same count is every cell


# A printed description fits the output area of a notebook at 1280 px (about 105 characters of
# monospace) without wrapping: a longer line is wrapped here under its value column, never by
# the browser at column 0 or inside a word.
DESCRIBE_WIDTH = 100


def wrap_line(line: str, width: int = DESCRIBE_WIDTH) -> str:
    """``line`` wrapped at ``width``, continuations aligned under its value: after a label
    padded with two or more spaces (``  layout    one row…``), else two past its indent."""
    lead = len(line) - len(line.lstrip(" "))
    label = re.match(r" *\S+(?: \S+)?  +", line)
    hang = label.end() if label else lead + 2
    if len(line) <= width:
        return line
    return textwrap.fill(
        line, width=width, subsequent_indent=" " * hang, break_long_words=False,
        break_on_hyphens=False,
    )  # fmt: skip


@dataclass(frozen=True)
class Table:
    """A second copy of the events under another row key: one table per query (G05)."""

    name: str
    key: RowKey


@dataclass(frozen=True)
class Aggregates:
    """Pre-aggregated summary rows under their own prefix and family (G29, G30).

    Rows ``agg#hourly#<entity>#<bucket>`` hold ``<measure>_<stat>`` cells stamped with
    the bucket start. They are derived data: ``from_cells`` ignores them; plans for
    intents whose ``aggregate`` starts with ``name`` (e.g. ``"hourly:sum"``) read them."""

    bucket: str = "hour"
    name: str = "hourly"
    prefix: str = "agg"
    stats: tuple[str, ...] = ("count", "min", "max", "sum", "mean")
    family: Family = Family("s", gc=MaxVersions(1))

    _STATS = ("count", "min", "max", "sum", "mean")

    def __post_init__(self) -> None:
        bad = [s for s in self.stats if s not in self._STATS]
        if bad:
            raise SchemaError(f"Unknown aggregate stats {bad}; use some of {self._STATS}.")
        object.__setattr__(self, "stats", tuple(self.stats))

    def lead(self, delimiter: str) -> str:
        return f"{self.prefix}{delimiter}{self.name}"

    def key(self, main: RowKey) -> RowKey:
        ents = [s for s in main.segments if s.recovers()]
        fmt = {
            "hour": "%Y%m%d%H",
            "day": "%Y%m%d",
            "minute": "%Y%m%d%H%M",
            "month": "%Y%m",
            "week": "%Y%m%d",
        }
        return RowKey(
            (
                Literal(self.lead(main.delimiter)),
                *ents,
                Timestamp(self.bucket, fmt.get(self.bucket)),
            ),
            main.delimiter,
        )

    def applies_to(self, intent: QueryIntent) -> bool:
        return (intent.aggregate or "").split(":")[0] == self.name

    def qualifiers(self, intent: QueryIntent, measures: tuple[str, ...]) -> tuple[str, ...] | None:
        """The ``<measure>_<stat>`` cells a summary query needs: the statistics after the colon
        (``"hourly:sum"``, ``"hourly:sum,count"``) of the measures it names (``measures``: the
        design's, for a query that names none). None when it names no statistic this design keeps:
        every cell of the row is read."""
        _, _, tail = (intent.aggregate or "").partition(":")
        stats = [s.strip() for s in tail.split(",") if s.strip()]
        if not stats or any(s not in self.stats for s in stats):
            return None
        ms = [m for m in measures if intent.measures is None or m in intent.measures]
        return tuple(f"{m}_{s}" for m in ms for s in stats) or None


def _as_key(key: Any) -> RowKey:
    if isinstance(key, RowKey):
        return key
    if isinstance(key, Segment):
        return RowKey((key,))
    return RowKey(tuple(key))


@dataclass(frozen=True)
class Schema:
    """A Bigtable design for one dataset shape: key + layout + families (+ tables, aggregates)."""

    name: str
    key: RowKey
    layout: Layout = Tall()
    tables: tuple[Table, ...] = ()
    aggregates: Aggregates | None = None
    shape: Shape | None = None
    table: str = DEFAULT_TABLE
    dataset: str | None = None
    description: str = ""
    guidelines: tuple[str, ...] = ()
    # A missing value (NaN, None, NaT) of a measure or attribute: None (the default) writes no
    # cell, Bigtable's sparse model (an absent cell costs nothing and reads back as nothing; a
    # serialized event leaves the field out; an event with no value at all has no cells, so no
    # row). A text (e.g. "NaN", "") writes that text as the cell's value instead (in the
    # qualifier for NewColumns, as a JSON string for serialized JSON; protobuf refuses it: its
    # fields are typed). ``from_cells`` reads either back as missing. Aggregate rows never store a
    # statistic of no values (min/max/mean of an all-missing bucket): no cell.
    missing: str | None = None
    # the node costs the planner compares candidate plans with (None: it ranks them by the
    # key alone); ``analyze`` and ``load`` bind the settings' costs
    costs: ReadCosts | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", _as_key(self.key))
        object.__setattr__(self, "tables", tuple(self.tables))
        object.__setattr__(self, "guidelines", tuple(self.guidelines))
        names = [self.table, *(t.name for t in self.tables)]
        if len(set(names)) != len(names):
            raise SchemaError(f"Table names must differ; got {names}.")
        if self.missing is not None and not isinstance(self.missing, str):
            raise SchemaError(
                f"missing must be None (no cell for a missing value) or the text to write for "
                f"one, e.g. missing='NaN'; got {self.missing!r}."
            )
        if self.missing is not None and getattr(self.layout, "format", None) == "protobuf":
            raise SchemaError(
                f"missing={self.missing!r}: a protobuf payload's fields are typed, so a missing "
                "value is an unset field, never a text. Use missing=None with serialized protobuf."
            )

    # ------------------------------------------------------------------ helpers
    def bind(
        self,
        ds: Dataset,
        costs: ReadCosts | None = None,
        entities: Mapping[str, int] | None = None,
        *,
        rate_factor: float | None = None,
        retention_s: float | None = None,
        own_skew: bool | None = None,
    ) -> Schema:
        """The same schema knowing the dataset's columns (for decoding cells read back from
        Bigtable, and for the planner's estimates), and optionally the read costs its plans are
        compared with and production as the planner weighs its plans: the entity counts
        (``{"meter_id": 10_000}``: a read of every meter plans for that many), each series'
        events per second over the sample's (``rate_factor``) and how long events are kept
        (``retention_s``: a read bounding no time reads all of it), and whether a series a query
        names writes its own share of the events (``own_skew``: the workload's spread is the
        sample's own skew) or the mean's. What is not given is kept from an earlier bind."""
        shape = Shape.of(ds)
        old = self.shape
        if entities:
            unknown = sorted(set(entities) - set(ds.entity))
            if unknown:
                raise SchemaError(
                    f"entities names {unknown}, which are not entity columns of {ds.name!r}; "
                    f"entity columns: {list(ds.entity)}."
                )
            shape = replace(shape, production=tuple((c, int(n)) for c, n in entities.items()))
        elif old is not None and old.production:
            shape = replace(shape, production=old.production)
        for what, v in (("rate_factor", rate_factor), ("retention_s", retention_s)):
            if v is not None and not (v > 0 and math.isfinite(v)):
                raise SchemaError(f"{what} must be a positive number; got {v!r}.")
        shape = replace(
            shape,
            rate_factor=float(rate_factor)
            if rate_factor is not None
            else (old.rate_factor if old is not None else 1.0),
            retention_us=round(retention_s * 1e6)
            if retention_s is not None
            else (old.retention_us if old is not None else None),
            own_skew=own_skew if own_skew is not None else (old.own_skew if old else True),
        )
        return replace(self, shape=shape, costs=costs or self.costs)

    def all_tables(self) -> list[tuple[str, RowKey]]:
        return [(self.table, self.key), *((t.name, t.key) for t in self.tables)]

    def measure_names(self, shape: Shape | None = None) -> tuple[str, ...]:
        """The design's measures: the dataset's (``shape``, default the bound one), else the
        key's measure segment's own list."""
        shape = shape if shape is not None else self.shape
        if shape is not None:
            return shape.measures
        m = self.key.metric
        return m.measures if m is not None else ()

    def carried_columns(self, key: RowKey, shape: Shape | None = None) -> tuple[str, ...]:
        """Entity and attribute columns the key does not recover: carried in cells."""
        shape = shape if shape is not None else self.shape
        if shape is None:
            return ()
        rec = set(key.recovers())
        return tuple(c for c in (*shape.entity, *shape.attributes) if c not in rec)

    def table_families(self) -> dict[str, tuple[Family, ...]]:
        """Families (with GC rules) to create per table."""
        ms = self.measure_names(self.shape)
        out: dict[str, tuple[Family, ...]] = {}
        for name, _ in self.all_tables():
            fams = list(self.layout.families(ms))
            if self.aggregates is not None and name == self.table:
                fams.append(self.aggregates.family)
            uniq: dict[str, Family] = {}
            for f in fams:
                uniq.setdefault(f.name, f)
            out[name] = tuple(uniq.values())
        return out

    def _validate(self, ds: Dataset, shape: Shape) -> None:
        if self.shape is not None:
            for what in ("entity", "time", "measures"):
                if getattr(self.shape, what) != getattr(shape, what):
                    raise SchemaError(
                        f"Schema {self.name!r} was made for {what}={getattr(self.shape, what)!r}, "
                        f"but dataset {ds.name!r} has {getattr(shape, what)!r}."
                    )
        cols = list(ds.frame.columns)
        for tname, key in self.all_tables():
            for c in key.columns():
                if c not in cols:
                    raise SchemaError(
                        unknown_name_message(c, cols).replace(
                            "a key segment", f"a key segment of table {tname!r}"
                        )
                    )
            m = key.metric
            if m is not None and m.measures and set(m.measures) != set(shape.measures):
                raise SchemaError(
                    f"The Metric segment lists {list(m.measures)} but the dataset's measures are "
                    f"{list(shape.measures)}."
                )
            self.layout.check(key, self.carried_columns(key, shape))
            if not key.time_segments and not self.layout.versioned:
                pass  # every event of an entity shares one row: collisions explain it

    # ------------------------------------------------------------------ to_cells
    def to_cells(self, ds: Dataset, *, accept_loss: bool = False) -> CellFrame:
        """The cells Bigtable would store for ``ds`` (vectorized over events).

        Raises :class:`CollisionError` when events would overwrite each other and
        :class:`SchemaError` when times would be rounded, unless ``accept_loss=True``:
        then the newest event of each collision is kept and ``cells.frame.attrs
        ["workbench.loss"]`` (also :func:`loss_report`) says what was dropped."""
        if not isinstance(accept_loss, bool):  # "no" must not mean yes
            raise SchemaError(f"accept_loss must be True or False, got {accept_loss!r}.")
        from ..datasets.model import require_dataset

        require_dataset(ds, "to_cells")
        shape = Shape.of(ds)
        self._validate(ds, shape)
        frame = ds.frame.reset_index(drop=True)
        t = time_us(frame[ds.time])
        columns = {c: frame[c] for c in frame.columns}
        ctx = RenderContext(columns, t)
        parts, dups, events, found = [], [], [], []
        valueless = None if self.missing is not None else _valueless(frame, shape)
        for tname, key in self.all_tables():
            b = BuildInput(
                key, ctx, shape.measures, self.carried_columns(key, shape), missing=self.missing
            )
            built = self.layout.build(b)
            d, fnd = check_parts(built, tname, self.layout.versioned, b.coded)
            part, ev = built.frame(tname, events=False), built.events()
            absent = _absent_cells(built, ev, valueless)
            if absent is not None:  # a missing value has no cell (Bigtable is sparse)
                part, d, ev = part[~absent].reset_index(drop=True), d[~absent], ev[~absent]
            parts.append(part)
            events.append(ev)
            dups.append(d)
            found += fnd
        f = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        dup = np.concatenate(dups)

        loss = LossReport(kept_precision="us" if self.key.keeps_microseconds() else "ms")
        lost_pos = np.zeros(0, dtype=np.int64)
        if dup.any():
            event = np.concatenate(events)  # each cell's event (row of frame)
            hint = (
                "Use a finer time precision in the key (G31), promote another field (G07), "
                "or pass accept_loss=True to keep the newest event of each collision."
            )
            if not accept_loss:
                raise_collisions(
                    frame, frame[ds.columns], f.assign(_event=event), dup, ds.time, hint
                )
            lost_pos = _losers(f.assign(_event=event), dup, t)
            f = f[~np.isin(event, lost_pos)].reset_index(drop=True)
            loss = replace(
                loss,
                lost=frame.iloc[lost_pos][ds.columns],
                reason="events mapped to the same cell; the newest was kept",
            )
        if loss.kept_precision == "ms":
            sub = np.mod(t, US_PER_MS) != 0
            sub[lost_pos] = False
            if sub.any():
                if not accept_loss:
                    ex = frame.loc[sub, [*ds.entity, ds.time]].head(3).to_dict("records")
                    raise SchemaError(
                        f"{int(sub.sum()):,} events have sub-millisecond times that this schema "
                        f"cannot store (cell timestamps keep ms and the key has no µs segment), "
                        f"e.g. {ex}. Use Timestamp(precision='us') (G31) or accept_loss=True."
                    )
                loss = replace(
                    loss,
                    truncated=frame.loc[sub, ds.columns],
                    reason=(loss.reason + "; " if loss.reason else "") + "times rounded down to ms",
                )
        if self.aggregates is not None:
            lead = self.aggregates.lead(self.key.delimiter) + self.key.delimiter
            clash = f["row_key"].str.startswith(lead)
            if clash.any():
                raise SchemaError(
                    f"Raw row key {f['row_key'][clash].iloc[0]!r} starts with the aggregate prefix "
                    f"{lead!r}; choose another aggregate prefix."
                )
            keep = np.ones(len(frame), dtype=bool)
            keep[lost_pos] = False
            empty = _valueless(frame, shape)  # no value to summarise: no summary row from it
            if empty is not None:
                keep &= ~empty
            agg = self._aggregate_cells(frame[keep], t[keep], shape)
            found += check_limits(CellFrame(agg), warn=False)
            f = pd.concat([f, agg], ignore_index=True)
        cells = CellFrame(f)
        findings = found
        if findings:
            warnings.warn(
                "; ".join(str(x) for x in findings[:3]) + (" …" if len(findings) > 3 else ""),
                LimitWarning,
                stacklevel=2,
            )
        cells.frame.attrs[ATTR_SHAPE] = shape
        cells.frame.attrs[ATTR_LOSS] = loss
        cells.frame.attrs[ATTR_FINDINGS] = tuple(findings)
        cells.frame.attrs[ATTR_CELLS] = len(cells.frame)
        return cells

    def _aggregate_cells(self, frame: pd.DataFrame, t: np.ndarray, shape: Shape) -> pd.DataFrame:
        agg = self.aggregates
        assert agg is not None
        akey = agg.key(self.key)
        ents = [c for c in akey.columns()]
        nums = [m for m in shape.measures if frame[m].dtype.kind in "fiu"]
        if not nums:
            raise SchemaError("Aggregate rows need at least one numeric measure.")
        g = frame[ents + nums].copy()
        g["_bucket"] = floor_us(t, agg.bucket)
        stats = g.groupby(ents + ["_bucket"], sort=True)[nums].agg(list(agg.stats))
        keys_df = stats.index.to_frame(index=False)
        ctx = RenderContext(
            {c: keys_df[c] for c in ents}, keys_df["_bucket"].to_numpy(dtype=np.int64)
        )
        rk = akey.render(ctx)
        out = []
        for m in nums:
            for s in agg.stats:
                vals = stats[(m, s)]
                if s == "count":  # pandas counts the present values
                    vals = vals.astype(np.int64)
                elif vals.dtype.kind != "f":
                    vals = vals.astype(np.float64)
                has = vals.notna().to_numpy()  # min/max/mean of no values: no cell
                k = int(has.sum())
                out.append(
                    pd.DataFrame(
                        {
                            "table": pd.Series([self.table] * k, dtype=object),
                            "row_key": pd.Series(np.asarray(rk, dtype=object)[has], dtype=object),
                            "family": pd.Series([agg.family.name] * k, dtype=object),
                            "qualifier": pd.Series([f"{m}_{s}"] * k, dtype=object),
                            "timestamp_us": keys_df["_bucket"].to_numpy(dtype=np.int64)[has],
                            "value": pd.Series(
                                encode_bytes(vals[has].reset_index(drop=True)), dtype=object
                            ),
                        }
                    )
                )
        return pd.concat(out, ignore_index=True)

    # ------------------------------------------------------------------ from_cells
    def _shape_for(self, cells: CellFrame) -> Shape:
        shape = cells.frame.attrs.get(ATTR_SHAPE) or self.shape
        if shape is None:
            raise SchemaError(
                "from_cells needs the dataset's columns: use cells made by to_cells, or "
                "schema.bind(ds) first."
            )
        return shape

    def from_cells(self, cells: CellFrame) -> pd.DataFrame:
        """The events back from cells: equal to ``ds.canonical()`` after a lossless ``to_cells``.

        Reads the main table (or, when only another table's cells are given, that one: a
        plan may read the second table, G05). Aggregate rows are ignored; measures absent from the cells
        (a read that filtered them out) are absent from the result, unless the cells are all that
        ``to_cells`` made: then the column's every value was missing. An event's missing value
        (no cell, or the ``missing`` text) comes back missing (NaN, NaT)."""
        shape = self._shape_for(cells)
        f = cells.frame
        # all of to_cells' cells (none filtered out): a column with no cell is all missing
        complete = f.attrs.get(ATTR_CELLS) == len(f)
        tables = dict(self.all_tables())
        present = [t for t in tables if (f["table"] == t).any()]
        table = self.table if (self.table in present or not present) else present[0]
        key = tables[table]
        f = f[f["table"] == table]
        if self.aggregates is not None:
            lead = self.aggregates.lead(self.key.delimiter) + self.key.delimiter
            f = f[~f["row_key"].str.startswith(lead)]
        f = f.reset_index(drop=True)
        if len(f) == 0:
            return _empty(shape)
        rk, uniq = pd.factorize(f["row_key"])
        parsed = key.parse(pd.Series(uniq, dtype=object))
        er_codes, _ = pd.factorize(parsed["_event_row"])
        tt = f["timestamp_us"].to_numpy(dtype=np.int64)
        if "_subms" in parsed:
            tt = tt - np.mod(tt, US_PER_MS) + parsed["_subms"].to_numpy(dtype=np.int64)[rk]
        work = f.assign(_rk=rk, _er=er_codes[rk], _t=tt)
        carried = self.carried_columns(key, shape)
        payload = tuple((c, shape.dtype(c) or "object") for c in (*shape.measures, *carried))
        long = self.layout.decode(work, parsed, payload)
        long = long.drop_duplicates(["_er", "_t", "column"], keep="first")
        wide = long.pivot(index=["_er", "_t"], columns="column", values="text")
        if self.missing is not None:  # every value has a cell: a gap means cells were lost
            gaps = [c for c in wide.columns if c in shape.columns and wide[c].isna().any()]
            if gaps:
                raise SchemaError(
                    f"Some events have no cell for {gaps[0]!r}, and this schema writes one for "
                    f"every value (missing={self.missing!r}): the cells are incomplete."
                )
            wide = wide.where(wide != self.missing)  # the sentinel reads back as missing
        er = wide.index.get_level_values(0).to_numpy()
        t_out = wide.index.get_level_values(1).to_numpy()
        first_rk = pd.Series(np.arange(len(parsed))).groupby(er_codes).first().to_numpy()
        out: dict[str, pd.Series] = {}
        recovered = set(key.recovers())
        for c in shape.columns:
            dt = shape.dtype(c)
            if c == shape.time:
                out[c] = pd.Series(pd.to_datetime(t_out, unit="us", utc=True)).astype(
                    dt or "datetime64[us, UTC]"
                )
            elif c in recovered and c in parsed:
                out[c] = decode_text(parsed[c].to_numpy()[first_rk[er]], dt)
            elif c in wide.columns:  # no cell (or the sentinel): a missing value
                out[c] = decode_text(wide[c].to_numpy(), dt)
            elif complete and c not in recovered:  # every value of the column is missing
                out[c] = decode_text(np.full(len(wide), None, dtype=object), dt)
        res = pd.DataFrame(out)
        return res.sort_values([*shape.entity, shape.time], kind="stable").reset_index(drop=True)

    def expected_events(self, ds: Dataset) -> pd.DataFrame:
        """The events a full read-back of this design gives, what verification compares with:
        ``ds.canonical()``, which leaves out the events with no value to store (every measure
        and attribute missing: no cell, no row), or with them when this schema writes the
        ``missing`` text for a missing value."""
        return ds.canonical(valueless=self.missing is not None)

    def aggregates_from_cells(self, cells: CellFrame) -> pd.DataFrame:
        """The pre-aggregated rows as a frame: entity columns, bucket start (``time``), ``<measure>_<stat>``."""
        if self.aggregates is None:
            raise SchemaError(f"Schema {self.name!r} has no aggregate rows.")
        shape = self._shape_for(cells)
        akey = self.aggregates.key(self.key)
        lead = self.aggregates.lead(self.key.delimiter) + self.key.delimiter
        f = cells.frame
        f = f[(f["table"] == self.table) & f["row_key"].str.startswith(lead)].reset_index(drop=True)
        if len(f) == 0:
            return pd.DataFrame()
        rk, uniq = pd.factorize(f["row_key"])
        parsed = akey.parse(pd.Series(uniq, dtype=object))
        wide = pd.DataFrame(
            {
                "_rk": rk,
                "_t": f["timestamp_us"].to_numpy(),
                "q": f["qualifier"].to_numpy(),
                "v": _texts(f["value"]),
            }
        ).pivot(index=["_rk", "_t"], columns="q", values="v")
        idx = wide.index.get_level_values(0).to_numpy()
        out = {c: decode_text(parsed[c].to_numpy()[idx], shape.dtype(c)) for c in akey.columns()}
        out[shape.time] = pd.Series(
            pd.to_datetime(wide.index.get_level_values(1).to_numpy(), unit="us", utc=True)
        )
        order = [f"{m}_{st}" for m in shape.measures for st in self.aggregates.stats]
        for q in [c for c in order if c in wide.columns] + [
            c for c in wide.columns if c not in order
        ]:
            out[q] = decode_text(wide[q].to_numpy(), "int64" if q.endswith("_count") else "float64")
        return (
            pd.DataFrame(out)
            .sort_values([*akey.columns(), shape.time], kind="stable")
            .reset_index(drop=True)
        )

    def summarize(self, events: pd.DataFrame, shape: Shape | None = None) -> pd.DataFrame:
        """Ground truth for the aggregate rows: the same stats computed directly on events."""
        if self.aggregates is None:
            raise SchemaError(f"Schema {self.name!r} has no aggregate rows.")
        shape = shape or self.shape
        if shape is None:
            raise SchemaError("summarize needs the dataset's columns: schema.bind(ds) first.")
        agg = self.aggregates
        ents = list(agg.key(self.key).columns())
        nums = [m for m in shape.measures if events[m].dtype.kind in "fiu"]
        g = events[ents + nums].copy()
        g[shape.time] = pd.to_datetime(
            floor_us(time_us(events[shape.time]), agg.bucket), unit="us", utc=True
        )
        stats = g.groupby(ents + [shape.time], sort=True)[nums].agg(list(agg.stats))
        stats.columns = [f"{m}_{s}" for m, s in stats.columns]
        stats = stats.reset_index()
        for c in stats.columns:
            if c.endswith("_count"):
                stats[c] = stats[c].astype(np.int64)
            elif c not in ents and c != shape.time:
                stats[c] = stats[c].astype(np.float64)
        return stats

    # ------------------------------------------------------------------ plans
    def plan(self, intent: QueryIntent) -> ReadPlan:
        """Compile a query intent into the read plan this design needs (ranges, keys, filter)."""
        return plan_query(self, intent)

    # ------------------------------------------------------------------ display
    def example_key(self, ds: Dataset) -> str:
        """The row key of the dataset's first event (what a user would see in the table)."""
        if len(ds.frame) == 0:
            raise SchemaError(f"Dataset {ds.name!r} is empty: no example key.")
        head = ds.frame.head(1).reset_index(drop=True)
        ctx = RenderContext({c: head[c] for c in head.columns}, time_us(head[ds.time]))
        m = self.key.metric
        ctx.metric = ds.measures[0] if m is not None else None
        return str(self.key.render(ctx)[0])

    def layout_text(self) -> str:
        """The layout as the key makes it: a layout gathering events in rows holds one time
        bucket a row, or, with no time in the key, every event of the key in one row (G24)."""
        text = f"{self.layout.describe()} [{self.layout.guideline}]"
        if self.layout.multi_event and not self.key.time_segments:
            text = text.replace("time buckets", "one row per key for all time (no time in it)", 1)
        return text

    def describe(self, ds: Dataset | None = None) -> str:
        lines = [f"Schema {self.name!r}" + (f" for {self.dataset}" if self.dataset else "")]
        if self.description:
            lines.append(f"  {self.description}")
        lines.append(f"  row key   {self.key.template()}")
        if ds is not None:
            lines.append(f"  e.g.      {self.example_key(ds)}")
        lines.append(f"  layout    {self.layout_text()}")
        for tname, fams in self.table_families().items():
            lines.append(f"  table {tname}: " + "; ".join(str(f) for f in fams))
        for t in self.tables:
            lines.append(f"  table {t.name} key {t.key.template()}")
        if self.aggregates is not None:
            a = self.aggregates
            lines.append(
                f"  aggregates {a.lead(self.key.delimiter)}… per {a.bucket}: {', '.join(a.stats)} "
                f"in family {a.family}"
            )
        if self.missing is not None:
            lines.append(f"  missing   written as {self.missing!r}")
        if self.guidelines:
            lines.append(f"  guidelines {', '.join(self.guidelines)}")
        return "\n".join(wrap_line(line) for line in lines)

    def __str__(self) -> str:
        return self.describe()

    def _repr_html_(self) -> str:
        rows = [
            ("row key", f"<code>{html.escape(self.key.template())}</code>"),
            ("layout", html.escape(self.layout_text())),
        ]
        for tname, fams in self.table_families().items():
            rows.append(
                (f"table {html.escape(tname)}", "<br>".join(html.escape(str(f)) for f in fams))
            )
        for t in self.tables:
            rows.append(
                (
                    f"table {html.escape(t.name)} key",
                    f"<code>{html.escape(t.key.template())}</code>",
                )
            )
        if self.aggregates is not None:
            rows.append(
                (
                    "aggregates",
                    html.escape(
                        f"{self.aggregates.lead(self.key.delimiter)}… per "
                        f"{self.aggregates.bucket}: {', '.join(self.aggregates.stats)}"
                    ),
                )
            )
        if self.guidelines:
            rows.append(("guidelines", html.escape(", ".join(self.guidelines))))
        body = "".join(
            f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>"
            for k, v in rows
        )
        title = html.escape(self.name) + (f" ({html.escape(self.dataset)})" if self.dataset else "")
        desc = f"<br><i>{html.escape(self.description)}</i>" if self.description else ""
        return f"<div><b>Schema {title}</b>{desc}<table>{body}</table></div>"


# ----------------------------------------------------------------------------- internals


def _valueless(frame: pd.DataFrame, shape: Shape) -> np.ndarray | None:
    """Events whose every measure and attribute is missing (None when there are none)."""
    from ..datasets.model import valueless_events

    return valueless_events(frame, [*shape.measures, *shape.attributes])


def _absent_cells(
    built: Any, events: np.ndarray, valueless: np.ndarray | None
) -> np.ndarray | None:
    """Cells not to store: missing values, and every cell of an event with no value at all."""
    absent = built.absent()
    if valueless is not None:
        absent = valueless[events] if absent is None else absent | valueless[events]
    return absent


def _texts(values: pd.Series) -> np.ndarray:
    return np.asarray([v.decode("utf-8") for v in values], dtype=object)


def _empty(shape: Shape) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=shape.dtype(c) or "object") for c in shape.columns})


def _losers(f: pd.DataFrame, dup: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Events that lose a collision: all but the newest (then last written) event of each cell."""
    d = f.loc[dup, ["table", "row_key", "family", "qualifier", "_event"]].copy()
    d["_t"] = t[d["_event"].to_numpy()]
    d = d.sort_values(["_t", "_event"], kind="stable")
    winners = d.groupby(["table", "row_key", "family", "qualifier"], sort=False)[
        "_event"
    ].transform("last")
    return np.unique(d.loc[d["_event"] != winners, "_event"].to_numpy())


def loss_report(cells: CellFrame) -> LossReport:
    """What ``to_cells(..., accept_loss=True)`` dropped (an empty report when nothing was lost)."""
    return cells.frame.attrs.get(ATTR_LOSS) or LossReport()


def findings(cells: CellFrame) -> tuple[Finding, ...]:
    """Advisory limit findings recorded by ``to_cells``."""
    return tuple(cells.frame.attrs.get(ATTR_FINDINGS, ()))
