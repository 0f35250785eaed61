"""Read plans: what a schema sends to Bigtable to answer one query intent.

A plan is row ranges and/or row keys plus one server-side filter and an
optional rows limit. The same plan object is (a) executed against the emulator
by ``workbench.bigtable.reader`` and (b) evaluated on a CellFrame by
:meth:`ReadPlan.evaluate`, so the modelled rows/cells seen and returned can be
checked to agree exactly with what the emulator returns.

Semantics follow Bigtable's ReadRows: ranges are [start, end) on the raw key
order; the filter is a chain (families, qualifier regex, row-key regex,
timestamp range, latest N cells per column); a row with no cell left after the
filter is not returned; ``rows_limit`` stops the scan after that many returned rows.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from ..cells import CellFrame

# A leading key segment whose values the query leaves open is read as one row range per value
# (one ReadRows request with many ranges, G11) when the dataset's values form a small known set:
# a client can list a few dozen currency pairs or sites; a player or device ID set is open-ended
# and grows in production, so above this a scan is planned and the plan says why.
ENUMERATE_VALUES_MAX = 64
# Row ranges the planner lists in the sample's plan (entity values x time buckets) without
# costs to compare; with costs, more ranges are sent as several requests (``ReadCosts``).
RANGES_MAX = 1000

PlanKind = Literal["point", "prefix", "range", "multi-range", "full-table scan"]


@dataclass(frozen=True)
class ReadCosts:
    """Node-seconds one read spends per unit of work (calibrated by ``analysis.settings.Settings.read_costs``)."""

    request_s: float  # one ReadRows request
    seek_s: float  # one row range or row key located in the tablet's files
    row_s: float  # one row visited
    cell_s: float  # one cell visited
    byte_s: float  # one byte visited (key, family, qualifier, timestamp and value)
    # row ranges (or keys) one ReadRows request carries: more are sent as several requests run
    # side by side, as the client's sharded reads do. The API documents no count
    # (``ReadRowsRequest.rows``); an assumption (``Settings.ranges_per_request``)
    ranges_per_request: int = 1000

    def requests_for(self, ranges: float, requests: int = 1) -> int:
        """Requests a plan of ``ranges`` ranges sends: its own (one per range when a rows
        limit counts per range), at least one per ``ranges_per_request`` ranges."""
        per = max(int(self.ranges_per_request), 1)
        # a count made of shares (production ÷ sample) carries float noise: 50,000.00000000002
        whole = math.ceil(round(ranges, 6))
        return max(int(requests), -(-whole // per), 1)

    def node_seconds(
        self, *, requests: int, seeks: int, rows: int, cells: int, nbytes: int
    ) -> float:
        return (
            requests * self.request_s
            + seeks * self.seek_s
            + rows * self.row_s
            + cells * self.cell_s
            + nbytes * self.byte_s
        )


@dataclass(frozen=True)
class PlanCost:
    """What one run of a plan does at production and the node time it costs: the one read-cost
    figure the planner ranks plans with and every view shows (capacity, advisor, compare, the
    designer, the production sheet). Counts are production's (the workload's series, rate and
    retention); ``returned`` the rows the answer holds."""

    requests: int  # ReadRows requests sent (side by side)
    seeks: float  # row ranges and keys located
    rows: float  # rows visited
    cells: float  # cells visited
    nbytes: float  # bytes visited
    returned: float  # rows returned
    node_s: float  # node-seconds of one run

    @classmethod
    def of(
        cls,
        costs: ReadCosts,
        *,
        requests: int,
        seeks: float,
        rows: float,
        cells: float,
        nbytes: float,
        returned: float,
    ) -> PlanCost:
        """The cost of these counts with ``costs``' unit prices."""
        node_s = (
            requests * costs.request_s
            + seeks * costs.seek_s
            + rows * costs.row_s
            + cells * costs.cell_s
            + nbytes * costs.byte_s
        )
        return cls(requests, seeks, rows, cells, nbytes, min(returned, rows), node_s)


def family_regex(names: Sequence[str]) -> str:
    """A family-name regex matching exactly these families (RE2, full match on the server)."""
    return "|".join(re.escape(n) for n in names)


def prefix_end(prefix: str) -> str | None:
    """The first key after every key that starts with ``prefix`` (None: no upper bound).

    The next code point after the last one (UTF-8 sorts bytes in code-point order, so this is
    the first valid key past the prefix in Bigtable's byte order too): "ab" → "ac", "¿" → "À".
    Adding one to the last *byte* instead made "¿" (C2 BF) end at the invalid C2 C0, which
    Python held as a surrogate that sorts after "À…", where Bigtable sorts it before."""
    chars = list(prefix)
    while chars and chars[-1] == "\U0010ffff":  # the last code point: nothing follows it
        chars.pop()
    if not chars:
        return None
    nxt = ord(chars[-1]) + 1
    chars[-1] = chr(0xE000 if 0xD800 <= nxt <= 0xDFFF else nxt)  # no key holds a surrogate
    return "".join(chars)


@dataclass(frozen=True)
class KeyRange:
    """Row keys in [start, end); None on either side is open. ``prefix`` is kept for display."""

    start: str | None = None
    end: str | None = None
    prefix: str | None = None

    @classmethod
    def for_prefix(cls, prefix: str) -> KeyRange:
        return cls(start=prefix or None, end=prefix_end(prefix) if prefix else None, prefix=prefix)

    @property
    def is_full(self) -> bool:
        return self.start is None and self.end is None

    def mask(self, keys: pd.Series) -> np.ndarray:
        m = np.ones(len(keys), dtype=bool)
        if self.start is not None:
            m &= (keys >= self.start).to_numpy()
        if self.end is not None:
            m &= (keys < self.end).to_numpy()
        return m

    def __str__(self) -> str:
        if self.prefix is not None:
            return f"prefix {self.prefix!r}"
        return f"[{self.start or '(start)'!s} .. {self.end or '(end)'!s})"


@dataclass(frozen=True)
class CellFilter:
    """One chain of server-side filters; every field None means "all cells"."""

    families: tuple[str, ...] | None = None
    qualifier_regex: str | None = None
    row_key_regex: str | None = None
    time_range_us: tuple[int | None, int | None] | None = None  # [start, end)
    latest_versions: int | None = None  # cells per column

    @property
    def is_empty(self) -> bool:
        return all(
            v is None
            for v in (
                self.families,
                self.qualifier_regex,
                self.row_key_regex,
                self.time_range_us,
                self.latest_versions,
            )
        )

    def describe(self) -> str:
        parts = []
        if self.families is not None:
            parts.append("families " + ",".join(self.families))
        if self.qualifier_regex is not None:
            parts.append(f"qualifier ~ {self.qualifier_regex}")
        if self.row_key_regex is not None:
            parts.append(f"row key ~ {self.row_key_regex}")
        if self.time_range_us is not None:
            parts.append(f"timestamp in [{self.time_range_us[0]}, {self.time_range_us[1]})")
        if self.latest_versions is not None:
            parts.append(f"latest {self.latest_versions} per column")
        return "; ".join(parts) or "none"

    def cell_mask(self, f: pd.DataFrame) -> np.ndarray:
        """Which cells pass the filter (rows must be in Bigtable order for latest_versions)."""
        m = np.ones(len(f), dtype=bool)
        if self.families is not None:
            m &= f["family"].isin(self.families).to_numpy()
        if self.qualifier_regex is not None:
            rx = re.compile(self.qualifier_regex, re.DOTALL)
            m &= f["qualifier"].map(lambda q: rx.fullmatch(q) is not None).to_numpy(dtype=bool)
        if self.row_key_regex is not None:
            rx = re.compile(self.row_key_regex, re.DOTALL)
            uniq = pd.unique(f["row_key"].to_numpy())
            ok = {k for k in uniq if rx.fullmatch(k) is not None}
            m &= f["row_key"].isin(ok).to_numpy()
        if self.time_range_us is not None:
            lo, hi = self.time_range_us
            ts = f["timestamp_us"].to_numpy()
            if lo is not None:
                m &= ts >= lo
            if hi is not None:
                m &= ts < hi
        if self.latest_versions is not None:
            sub = f[m]
            rank = sub.groupby(["row_key", "family", "qualifier"], sort=False).cumcount().to_numpy()
            keep = np.zeros(len(f), dtype=bool)
            keep[np.flatnonzero(m)[rank < self.latest_versions]] = True
            m = keep
        return m


@dataclass(frozen=True)
class PlanResult:
    """What a plan touches and returns on a CellFrame (modelled) or the emulator (measured)."""

    scans: int
    rows_seen: int
    cells_seen: int
    bytes_seen: int
    rows_returned: int
    cells_returned: int
    bytes_returned: int
    cells: CellFrame | None = field(default=None, repr=False, compare=False)

    @property
    def waste(self) -> float:
        """Rows seen per row returned (1.0 is perfect; a filtered full scan is far above)."""
        return self.rows_seen / max(self.rows_returned, 1)

    @classmethod
    def total(cls, parts: list[PlanResult], scans: int) -> PlanResult:
        """The figures of several requests of one plan added up (one request per range)."""
        frames = [p.cells.frame for p in parts if p.cells is not None]
        cells = None
        if frames:
            from ..cells import CellFrame

            cells = CellFrame(pd.concat(frames, ignore_index=True))
        return cls(
            scans=scans,
            rows_seen=sum(p.rows_seen for p in parts),
            cells_seen=sum(p.cells_seen for p in parts),
            bytes_seen=sum(p.bytes_seen for p in parts),
            rows_returned=sum(p.rows_returned for p in parts),
            cells_returned=sum(p.cells_returned for p in parts),
            bytes_returned=sum(p.bytes_returned for p in parts),
            cells=cells,
        )


@dataclass(frozen=True)
class ReadPlan:
    """Row ranges and keys to read from one table, one filter, optional rows limit."""

    intent: str
    table: str = "main"
    ranges: tuple[KeyRange, ...] = ()
    keys: tuple[str, ...] = ()
    filter: CellFilter = CellFilter()
    rows_limit: int | None = None
    reversed: bool = False
    note: str = ""
    # rows of those returned that the client keeps, when the server cannot limit the read (the newest N
    # of an entity's range read forward); None: it keeps all. Only the waste figure uses it.
    client_keeps: int | None = None
    # rows_limit applies to each range, not to the whole read: a limit counts rows over one
    # request, so the client sends one ReadRows per range (the newest rows of each series or salt
    # bucket) and merges them
    limit_per_range: bool = False
    # entity columns read as one range per known value, with the value count the plan relies on
    # (the application must list every one; a production count given to the planner, else the
    # sample's)
    assumes: tuple[tuple[str, int], ...] = ()
    # the planner's estimate of this plan's node time at the entity counts it was given, and
    # the cheapest other plan it weighed (``planner.alternatives``): what it chose and why
    est_node_ms: float | None = field(default=None, compare=False)
    cost: PlanCost | None = field(default=None, compare=False)  # that estimate's counts
    runner_up: str = field(default="", compare=False)
    runner_up_node_ms: float | None = field(default=None, compare=False)

    def parts(self) -> tuple[ReadPlan, ...]:
        """The requests the client sends: the plan itself, or one plan per range/key when the
        rows limit applies to each range."""
        if not self.limit_per_range or self.n_ranges <= 1:
            return (self,)
        one = dataclasses.replace(self, limit_per_range=False, client_keeps=None)
        return tuple(dataclasses.replace(one, ranges=(r,), keys=()) for r in self.ranges) + tuple(
            dataclasses.replace(one, ranges=(), keys=(k,)) for k in self.keys
        )

    @property
    def requests(self) -> int:
        """ReadRows requests the client sends (one, unless the rows limit applies per range)."""
        return self.n_ranges if self.limit_per_range and self.n_ranges > 1 else 1

    def on_emulator(self) -> ReadPlan:
        """The same plan as the emulator can run it: it refuses reverse scans (``501 Client
        doesn't support reverse scans yet``), so a reversed read becomes a forward read of the
        same ranges, and the client keeps the newest ``rows_limit`` rows."""
        if not self.reversed:
            return self
        kept = (self.rows_limit or 0) * self.requests
        return dataclasses.replace(
            self, reversed=False, rows_limit=None, client_keeps=self.client_keeps or kept
        )

    @property
    def n_ranges(self) -> int:
        """Row ranges the one ReadRows request lists (a row key is a one-row range)."""
        return 1 if self.full_scan else len(self.ranges) + len(self.keys)

    @property
    def full_scan(self) -> bool:
        return (not self.ranges and not self.keys) or any(r.is_full for r in self.ranges)

    @property
    def scans(self) -> int:
        """Separate requests the client issues (salting needs one per bucket, G08)."""
        if self.full_scan:
            return 1
        return len(self.ranges) + (1 if self.keys else 0)

    @property
    def kind(self) -> PlanKind:
        if self.full_scan:
            return "full-table scan"
        if self.keys and not self.ranges:
            return "point" if len(self.keys) == 1 else "multi-range"
        if len(self.ranges) + (1 if self.keys else 0) > 1:
            return "multi-range"
        return "prefix" if self.ranges[0].prefix is not None else "range"

    def describe(self) -> str:
        what = [str(r) for r in self.ranges] + [f"key {k!r}" for k in self.keys]
        head = f"{self.kind}: " + (
            "whole table"
            if self.full_scan
            else ", ".join(what[:4]) + (" …" if len(what) > 4 else "")
        )
        tail = []
        if not self.filter.is_empty:
            tail.append("filter " + self.filter.describe())
        if self.rows_limit:
            tail.append(
                f"limit {self.rows_limit} rows"
                + (f" per range ({self.requests} requests)" if self.requests > 1 else "")
            )
        if self.reversed:
            tail.append("reversed")
        if self.scans > 1:
            tail.append(f"{self.scans} scans")
        return head + ("; " + "; ".join(tail) if tail else "")

    def row_mask(self, keys: pd.Series) -> np.ndarray:
        """Rows inside the plan's ranges/keys (before the filter)."""
        if self.full_scan:
            return np.ones(len(keys), dtype=bool)
        m = np.zeros(len(keys), dtype=bool)
        for r in self.ranges:
            m |= r.mask(keys)
        if self.keys:
            m |= keys.isin(self.keys).to_numpy()
        return m

    def evaluate(self, cells: CellFrame) -> PlanResult:
        """Model the plan on a CellFrame: exactly what the emulator would scan and return."""
        from ..cells import CellFrame

        if self.requests > 1:
            return PlanResult.total([p.evaluate(cells) for p in self.parts()], self.scans)
        f = cells.table(self.table).sorted().frame
        inside = f[self.row_mask(f["row_key"])]
        passed_mask = self.filter.cell_mask(inside)
        sizes = CellFrame(inside).cell_bytes()
        keys = inside["row_key"].to_numpy()
        # rows in key order (reversed scans walk from the end)
        row_order = pd.unique(keys)
        if self.reversed:
            row_order = row_order[::-1]
        passed_rows = pd.unique(keys[passed_mask])
        # the server stops once it has returned rows_limit rows: nothing after the last is read
        if self.rows_limit is not None and len(passed_rows) >= self.rows_limit:
            passed_set = set(passed_rows.tolist())
            ordered_passed = [k for k in row_order if k in passed_set]
            kept = ordered_passed[: self.rows_limit]
            last = kept[-1]
            pos = int(np.flatnonzero(row_order == last)[0])
            # numpy's isin on object arrays compares pairwise: pandas hashes
            key_s = pd.Series(keys)
            seen_mask = key_s.isin(set(row_order[: pos + 1].tolist())).to_numpy()
            ret_mask = passed_mask & key_s.isin(set(kept)).to_numpy()
        else:
            seen_mask = np.ones(len(keys), dtype=bool)
            ret_mask = passed_mask
        returned = CellFrame(inside[ret_mask].reset_index(drop=True))
        return PlanResult(
            scans=self.scans,
            rows_seen=int(len(pd.unique(keys[seen_mask]))),
            cells_seen=int(seen_mask.sum()),
            bytes_seen=int(sizes[seen_mask].sum()),
            rows_returned=int(len(pd.unique(keys[ret_mask]))),
            cells_returned=int(ret_mask.sum()),
            bytes_returned=int(sizes[ret_mask].sum()),
            cells=returned,
        )
