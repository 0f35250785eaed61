"""The production a team states: what every figure is computed for (the sample gives the shape).

A sample of a few series over a few days says how a design lays events out: bytes per event,
keys, rows, which rows a query reads. It cannot say how busy production is. A
:class:`Workload` says that, once, and every view reads it: the event rate (and how much
higher the peak is), how long data is kept, how many series there are per entity column and
whether more rate means more series (``growth="grow"``) or the same series writing faster
(``growth="fixed"``), how the rate spreads over the series, and how often each query runs and
which series it hits.

The spread, unless stated, follows the series: while production has the data's own series (none
stated, none grown with the rate) each writes as much busier than the mean as it does in the
sample (``Spread("sample")``: fx_prices' EUR/USD takes its 29.9 % of the quotes), and once more
series are stated or grown, nothing says which of them is busy, so the rate spreads evenly
(``Spread("uniform")``). :func:`default_spread` says which; every view reads the one result.

Each input is either the user's or a default, and :meth:`Workload.inputs_line` says which, so
a figure can state under itself what it assumed.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Literal, ParamSpec, TypeVar

from ..errors import RemovedKeyword, WorkbenchError

# how long data is kept when a workload states no retention: the planning horizon storage,
# row growth and the reads bounding no time are projected over (a model default, not a Bigtable
# figure; a family's GC rule may keep less)
RETENTION_MONTHS = 12.0

P = ParamSpec("P")
R = TypeVar("R")
Growth = Literal["fixed", "grow"]
HitKind = Literal["uniform", "fixed", "hot"]

_SPREADS = ("uniform", "sample", "zipf", "hot")


def _positive(name: str, value: object, *, allow_zero: bool = False) -> float:
    need = "≥ 0" if allow_zero else "> 0"
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise WorkbenchError(f"Workload {name} must be a finite number {need}, got {value!r}.")
    v = float(value)
    if not math.isfinite(v) or (v < 0 if allow_zero else v <= 0):
        raise WorkbenchError(f"Workload {name} must be a finite number {need}, got {value!r}.")
    return v


@dataclass(frozen=True)
class Spread:
    """How the event rate spreads over the series.

    * ``Spread("uniform")``: every series writes at the same rate (the default once production
      has more series than the data: :func:`default_spread`);
    * ``Spread("sample")``: the sample's own skew, its busiest series as much busier than the
      mean as it is in the sample (the default while production has the data's own series);
    * ``Spread("zipf", s=1.0)``: the series ranked, the k-th writing ∝ 1/k^s;
    * ``Spread("hot", series_share=0.01, load_share=0.5)``: 1 % of the series take half of it.
    """

    kind: str = "uniform"
    s: float = 1.0
    series_share: float = 0.01
    load_share: float = 0.5

    def __post_init__(self) -> None:
        if self.kind not in _SPREADS:
            raise WorkbenchError(
                f"Spread kind must be one of {', '.join(map(repr, _SPREADS))}, got {self.kind!r}."
            )
        _positive("zipf exponent s", self.s)
        for name in ("series_share", "load_share"):
            v = getattr(self, name)
            if not (isinstance(v, numbers.Real) and 0 < float(v) <= 1):
                raise WorkbenchError(f"Spread {name} must be in (0, 1], got {v!r}.")

    def busiest_share(self, series: float, sample_busiest_ratio: float = 1.0) -> float:
        """The busiest series' share of the rate when there are ``series`` of them;
        ``sample_busiest_ratio`` is the sample's busiest series rate over its mean (for
        ``"sample"``)."""
        n = max(float(series), 1.0)
        if self.kind == "uniform":
            return 1.0 / n
        if self.kind == "sample":
            return min(1.0, max(sample_busiest_ratio, 1.0) / n)
        if self.kind == "zipf":
            return 1.0 / _harmonic(n, self.s)
        # hot set: the hot series share load_share evenly; at least one series is hot
        hot = max(1.0, self.series_share * n)
        return min(1.0, max(self.load_share / hot, (1 - self.load_share) / max(n - hot, 1.0)))

    def text(self) -> str:
        if self.kind == "zipf":
            return f"Zipf (s={self.s:g})"
        if self.kind == "hot":
            return f"{self.series_share:.0%} of the series take {self.load_share:.0%}"
        return {"uniform": "uniform", "sample": "the sample's own skew"}[self.kind]

    def at(self) -> str:
        """The spread after "at", for a share that depends on it ("takes 29.9 % of the writes at
        the sample's own skew")."""
        if self.kind == "sample":
            return self.text()
        if self.kind == "hot":
            return f"a hot set ({self.text()})"
        return f"a {self.text()} spread"


def _harmonic(n: float, s: float) -> float:
    """Σ_{k=1..n} k^-s, exact up to 10,000 terms, then the Euler–Maclaurin tail."""
    m = int(min(n, 10_000))
    total = sum(k**-s for k in range(1, m + 1))
    if n > m:  # ∫_m^n x^-s dx + the end correction
        if abs(s - 1.0) < 1e-12:
            total += math.log(n / m)
        else:
            total += (n ** (1 - s) - m ** (1 - s)) / (1 - s)
        total += (n**-s - m**-s) / 2
    return total


@dataclass(frozen=True)
class QueryLoad:
    """How often one query runs in production and which series it hits.

    ``per_s``: runs per second (None: the workload's query rate split by the queries' weights);
    ``hits``: ``"uniform"`` (each run asks for any series alike: the literal in the query line
    is an example, the default), ``"fixed"`` (always the series named in the query), or
    ``"hot"`` (``hot_series_share`` of the series take ``hot_load_share`` of the runs);
    ``data_boost``: the query is sent to Data Boost (serverless, "Data Boost overview"): it
    takes no node CPU and is billed in SPU-hours from its node-seconds (a batch scan's place;
    not meant for point reads)."""

    per_s: float | None = None
    hits: str = "uniform"
    hot_series_share: float = 0.01
    hot_load_share: float = 0.5
    data_boost: bool = False

    def __post_init__(self) -> None:
        if self.per_s is not None:
            _positive("query per_s", self.per_s, allow_zero=True)
        if self.hits not in ("uniform", "fixed", "hot"):
            raise WorkbenchError(
                f"QueryLoad hits must be 'uniform', 'fixed' or 'hot', got {self.hits!r}."
            )
        if not isinstance(self.data_boost, bool):
            raise WorkbenchError(
                f"QueryLoad data_boost must be True (send the query to Data Boost) or False, "
                f"got {self.data_boost!r}."
            )

    def hit_share(self, series: float) -> float:
        """The share of this query's runs that read the most-asked series."""
        n = max(float(series), 1.0)
        if self.hits == "fixed":
            return 1.0
        if self.hits == "hot":
            return Spread("hot", 1.0, self.hot_series_share, self.hot_load_share).busiest_share(n)
        return 1.0 / n


@dataclass(frozen=True)
class Workload:
    """The production a team states; the sample only supplies the shape.

    Parameters
    ----------
    events_per_s : float, optional
        Mean production events per second (None: the sample's own rate).
    peak_factor : float
        The busiest hour's rate over the mean; nodes are sized for the peak, storage for the
        mean (default 1: the stated rate is sustained).
    retention_months : float
        How long data is kept, the planning horizon (default ``RETENTION_MONTHS``, 12); a
        family's GC rule may keep less.
    entities : mapping of column → count, optional
        Production's distinct values per entity column (``{"sensor_id": 50_000}``); a file of
        one series takes ``{"series": N}`` ("N series like this one"). Unnamed columns keep the
        sample's count (``growth="fixed"``) or grow with the rate (``growth="grow"``).
    growth : {"fixed", "grow"}
        Without a stated count, does a higher rate mean the sample's series each write faster
        (``"fixed"``, the default: a fixed set such as currency pairs or salt buckets) or more
        series like the sample's, each at the sample's own rate (``"grow"``)?
    spread : Spread, optional
        How the rate spreads over the series (None: :func:`default_spread`, the sample's own
        skew while production has the data's own series, uniform once more are stated or grown).
    queries_per_s : float, optional
        All queries together per second, split by their weights (None: no query rate is
        stated, so no query sizes nodes or draws read load; each shows its cost per run).
    queries : mapping of query name → QueryLoad
        Per-query rates and hit patterns (default: weights, uniform hits).
    """

    events_per_s: float | None = None
    peak_factor: float = 1.0
    retention_months: float = RETENTION_MONTHS
    entities: Mapping[str, int] | None = None
    growth: str = "fixed"
    spread: Spread | None = None
    queries_per_s: float | None = None
    queries: Mapping[str, QueryLoad] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.events_per_s is not None:
            _positive("events_per_s", self.events_per_s, allow_zero=True)
        if _positive("peak_factor", self.peak_factor) < 1.0:
            raise WorkbenchError(
                f"Workload peak_factor is the peak over the mean rate, so at least 1; got "
                f"{self.peak_factor!r}."
            )
        _positive("retention_months", self.retention_months)
        if self.growth not in ("fixed", "grow"):
            raise WorkbenchError(
                f"Workload growth must be 'fixed' (the sample's series write faster) or 'grow' "
                f"(more series like them), got {self.growth!r}."
            )
        if isinstance(self.spread, str):
            object.__setattr__(self, "spread", Spread(self.spread))
        elif self.spread is not None and not isinstance(self.spread, Spread):
            raise WorkbenchError(
                f"Workload spread must be a wb.Spread (or its kind, e.g. 'uniform'), got "
                f"{self.spread!r}."
            )
        if self.queries_per_s is not None:
            _positive("queries_per_s", self.queries_per_s, allow_zero=True)
        if self.entities is not None:
            if not isinstance(self.entities, Mapping):
                raise WorkbenchError(
                    "Workload entities must map an entity column to its production count, e.g. "
                    f"{{'sensor_id': 50_000}}; got {self.entities!r}."
                )
            for col, n in self.entities.items():
                if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                    raise WorkbenchError(
                        f"Workload entities[{col!r}] must be a whole number ≥ 1 (how many "
                        f"distinct {col} production has), got {n!r}."
                    )
            object.__setattr__(self, "entities", dict(self.entities))
        loads = {}
        for name, ql in dict(self.queries).items():
            if isinstance(ql, numbers.Real) and not isinstance(ql, bool):
                ql = QueryLoad(per_s=float(ql))
            elif not isinstance(ql, QueryLoad):
                raise WorkbenchError(
                    f"Workload queries[{name!r}] must be a QueryLoad or a rate per second, got "
                    f"{ql!r}."
                )
            loads[str(name)] = ql
        object.__setattr__(self, "queries", loads)

    # -- what the user said, what is a default --------------------------------------------
    def stated(self) -> list[str]:
        """The inputs the user gave (the others are defaults)."""
        default = Workload()
        return [f.name for f in fields(self) if getattr(self, f.name) != getattr(default, f.name)]

    def replace(self, **changes: object) -> Workload:
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise WorkbenchError(
                f"Unknown workload input(s) {sorted(unknown)}; known: {', '.join(sorted(known))}."
            )
        return replace(self, **changes)  # type: ignore[arg-type]

    def query_load(self, name: str) -> QueryLoad:
        return self.queries.get(name, QueryLoad())


def spread_of(wl: Workload, stated: bool) -> Spread:
    """The spread production's figures are at: the workload's, else :func:`default_spread`, the
    data's own series meaning no count ``stated`` and none grown with a stated rate."""
    own = not stated and not (wl.growth == "grow" and wl.events_per_s is not None)
    return wl.spread or default_spread(own)


def default_spread(own_series: bool) -> Spread:
    """The spread a workload that states none is at: the sample's own skew while production has
    the data's own series (``own_series``: no count stated, none grown with the rate: the busiest
    series keeps its share, fx_prices' EUR/USD 29.9 %), uniform once there are more (which of
    the new series are busy, the sample cannot say)."""
    return Spread("sample") if own_series else Spread("uniform")


# the keywords the analyses took before a Workload was the one way to state production: each
# is refused with the Workload field that says it (one number, stated once)
REMOVED_KEYWORDS = {
    "events_per_s": "events_per_s=...",
    "entities": "entities={...}",
    "queries_per_s": "queries_per_s=...",
    "target_writes_per_s": "events_per_s=...",
}


def refuse_shorthands(caller: str, given: Mapping[str, object]) -> None:
    """Refuse a production keyword ``caller`` no longer takes, saying how to write it with a
    :class:`Workload` (``target_writes_per_s`` was mutations per second: the workload states
    events, each design turns them into its own mutations)."""
    old = [k for k in REMOVED_KEYWORDS if k in given]
    if not old:
        return
    k = old[0]
    why = (
        " (a rate in events per second: each design turns an event into its own mutations)"
        if k == "target_writes_per_s"
        else ""
    )
    raise RemovedKeyword(
        f"{caller}() takes workload=wb.Workload({REMOVED_KEYWORDS[k]}) instead of {k}={why}."
    )


def workload_only(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with its old production keywords refused by :func:`refuse_shorthands` (a plain
    ``TypeError`` would not say what to write instead); its signature is unchanged."""

    @functools.wraps(fn)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        refuse_shorthands(fn.__name__, kwargs)
        return fn(*args, **kwargs)

    return checked


def require_workload(workload: Workload | None) -> Workload:
    """``workload`` checked (None: ``Workload()``, the sample's own production)."""
    if workload is None:
        return Workload()
    if not isinstance(workload, Workload):
        raise WorkbenchError(
            f"workload must be a wb.Workload (e.g. wb.Workload(events_per_s=1000)), got "
            f"{type(workload).__name__}."
        )
    return workload


__all__ = [
    "REMOVED_KEYWORDS",
    "RETENTION_MONTHS",
    "QueryLoad",
    "Spread",
    "Workload",
    "default_spread",
    "spread_of",
    "refuse_shorthands",
    "require_workload",
    "workload_only",
]
