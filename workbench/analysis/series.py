"""Series: how many distinct entity values the sample holds and production has (G07).

The sample's series are counted from its entity columns; production's are the stated counts
(``Workload.entities``), or grown with the rate (``growth="grow"``), or the sample's own.
Nested columns (a balloon belongs to one location) count as their finest.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..datasets.workload import Workload
from ..errors import WorkbenchError

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset

SERIES = "series"  # the name a file of one series is given counts by ("N series like this")


@dataclass(frozen=True)
class SeriesCounts:
    """Distinct series in the sample and in production, per entity column and in all."""

    sample: int
    production: float
    sample_by_column: dict[str, int]
    production_by_column: dict[str, float]
    stated: tuple[str, ...]  # the columns whose production count the user gave
    nested: bool = False  # one column (the finest) names every series: the others group it

    @property
    def factor(self) -> float:
        return self.production / max(self.sample, 1)

    def count(self, columns: Iterable[str]) -> tuple[float, float]:
        """(sample, production) distinct values of ``columns`` together. Nested columns (a
        balloon belongs to one location) count as their finest; independent ones multiply."""
        cols = [c for c in columns if c in self.sample_by_column]
        if not cols:
            return 1.0, 1.0
        if self.nested:
            fine = max(cols, key=lambda c: self.sample_by_column[c])
            return float(self.sample_by_column[fine]), float(self.production_by_column[fine])
        return (
            float(math.prod(self.sample_by_column[c] for c in cols)),
            float(math.prod(self.production_by_column[c] for c in cols)),
        )

    def split(self, fixed: Iterable[str]) -> tuple[float, float]:
        """(k_fixed, k_open) for a query that names the ``fixed`` columns: how many more values
        of them production has (other series the plan may pass), and how many more series each
        named value groups (its answer grows by that); their product is ``factor``."""
        fixed = [c for c in fixed if c in self.sample_by_column]
        s, p = self.count(fixed)
        k_fixed = p / s if fixed else 1.0
        return k_fixed, self.factor / k_fixed


def sample_span_s(ds: Dataset) -> float:
    """The sample's time span in seconds (at least one: a single instant is one second)."""
    if not len(ds):
        return 1.0
    t0, t1 = ds.time_span
    return max(float((t1 - t0).total_seconds()), 1.0)


def sample_rate_factor(ds: Dataset, wl: Workload) -> float:
    """Production's mean event rate over the sample's own (1 when no rate is stated)."""
    if wl.events_per_s is None or not len(ds):
        return 1.0
    return float(wl.events_per_s) * sample_span_s(ds) / len(ds)


def with_file_counts(ds: Dataset, wl: Workload) -> Workload:
    """``wl`` with what it leaves unstated taken from the whole file when ``ds`` holds a shape
    sample (``Dataset.aggregates``, every event counted at load): the mean rate is the file's events
    over its span, and each entity column has the file's distinct values (unless series grow with
    a stated rate: then they grow from the file's rate). The sample keeps giving the shape; the
    production figures are one product of the two, so they are the whole file's."""
    agg = ds.aggregates
    if agg is None or not agg.events:
        return wl
    changes: dict = {}
    if wl.events_per_s is None:
        changes["events_per_s"] = agg.events / agg.span_s
    grow = wl.growth == "grow" and wl.events_per_s is not None
    if wl.entities is None and ds.entity and not grow:
        changes["entities"] = {c: agg.by_column[c] for c in ds.entity if c in agg.by_column}
    return dataclasses.replace(wl, **changes) if changes else wl


def series_counts(
    ds: Dataset, wl: Workload, rate_factor_if_grow: float, file_series: int | None = None
) -> SeriesCounts:
    """The sample's series and production's: stated column counts, else grown or fixed.
    ``file_series``: the whole file's distinct entity tuples, counted exactly (DuckDB's
    ``count(DISTINCT row(...))`` or from_csv's chunked read), production's series when the
    workload's column counts are the file's: a product of column ratios would miss the tuples
    the sample lacks (100 metrics × 1,000 hosts in a tenth of the series: every metric and host
    is in the sample, 10,000 of the 100,000 tuples)."""
    f = ds.frame
    cols = list(ds.entity)
    by_col = {c: max(int(f[c].nunique()), 1) for c in cols}
    if cols and len(f):  # distinct tuples, hashed in place (no copy of the columns)
        one = len(cols) == 1
        n = f[cols[0]].nunique() if one else f.groupby(cols, sort=False, observed=True).ngroups
        sample = max(int(n), 1)
    else:
        sample = 1
    stated = dict(wl.entities or {})
    if not cols:
        unknown = sorted(set(stated) - {SERIES})
        if unknown:
            raise WorkbenchError(
                f"entities names {unknown}, but {ds.name!r} is one series (no entity column): "
                f"say how many series like it production has with "
                f"wb.Workload(entities={{'{SERIES}': N}})."
            )
        n = float(stated.get(SERIES, 1))
        if SERIES not in stated and wl.growth == "grow":
            n = max(1.0, rate_factor_if_grow)
        return SeriesCounts(1, n, {}, {SERIES: n}, tuple(stated))
    unknown = sorted(set(stated) - set(cols))
    if unknown:
        raise WorkbenchError(
            f"entities names {unknown}, which are not entity columns of {ds.name!r}; entity "
            f"columns: {cols}."
        )
    prod = {c: float(stated.get(c, by_col[c])) for c in cols}
    if file_series is not None:  # the file's tuples, counted exactly: no product of ratios
        nested = len(cols) > 1 and file_series == max(prod.values())
        return SeriesCounts(sample, float(file_series), by_col, prod, tuple(stated), nested)
    fine = max(cols, key=lambda c: by_col[c])
    nested = len(cols) > 1 and sample == by_col[fine]  # the finest column names every series
    if not stated and wl.growth == "grow":
        prod[fine] = by_col[fine] * max(rate_factor_if_grow, 1e-12)  # new series: new values
    if nested:
        factor = prod[fine] / by_col[fine]
    else:
        factor = math.prod(prod[c] / by_col[c] for c in cols)
    return SeriesCounts(sample, sample * factor, by_col, prod, tuple(stated), nested)


@dataclass(frozen=True)
class SeriesRates:
    """Production's series and mean event rate against the sample's, per series (events/s)."""

    counts: SeriesCounts
    sample_events_per_s: float
    events_per_s: float  # production's mean
    sample_per_series: float
    production_per_series: float
    workload: Workload  # as counted: the user's, with a shape sample's file filling in the rest

    @property
    def rate_factor(self) -> float:
        """One series' events per second in production over the sample's."""
        return self.production_per_series / max(self.sample_per_series, 1e-300)


def series_rates(ds: Dataset, wl: Workload) -> SeriesRates:
    """The series counts and per-series rates of ``ds`` at ``wl`` (the file's counts filling
    in what a shape sample's workload leaves unstated; the stated columns stay the user's).
    Without a stated rate each series writes at the sample's own rate."""
    said = wl
    wl = with_file_counts(ds, wl)
    agg = ds.aggregates
    # the file's own series, counted exactly, when its column counts stand for the user's
    exact = agg.series if agg is not None and said.entities is None and wl.entities else None
    counts = series_counts(ds, wl, sample_rate_factor(ds, wl), exact)
    if wl is not said:  # the file's counts are not the user's
        counts = dataclasses.replace(counts, stated=tuple(said.entities or {}))
    sample_rate = len(ds) / sample_span_s(ds)
    mean = float(wl.events_per_s) if wl.events_per_s is not None else sample_rate * counts.factor
    return SeriesRates(
        counts,
        sample_rate,
        mean,
        sample_rate / counts.sample,
        mean / max(counts.production, 1e-300),
        wl,
    )


__all__ = [
    "SERIES",
    "SeriesCounts",
    "SeriesRates",
    "series_rates",
    "sample_rate_factor",
    "sample_span_s",
    "series_counts",
    "with_file_counts",
]
