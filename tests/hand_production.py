"""A production workload stated by hand, for tests of ``capacity()``'s own arithmetic.

``capacity()`` has one CPU model: the design at its workload (``analysis/production.py``,
which ``analyze`` builds from a dataset). A test of what capacity does with it (storage per
family, the bill, nodes from a known CPU, a ceiling) states that workload here instead, so its
expectations follow by hand from a few numbers: events/s, write units per event (1: one 1 KB
planning row), the unsplittable unit and its share, the reads' CPU. Production is a plain
dataclass; the figures not named here are those of a sustained rate with no queries."""

from __future__ import annotations

import pandas as pd

from workbench.analysis.production import Production, WriteUnits
from workbench.analysis.production_reads import ProductionQueries
from workbench.analysis.series import SeriesCounts
from workbench.analysis.settings import DEFAULT, Settings
from workbench.datasets.workload import Workload

SAMPLE_EVENTS = 1000  # the sample the write figures are per-event shares of


def hand_production(
    events_per_s: float,
    *,
    settings: Settings = DEFAULT,
    mutations_per_event: float = 1.0,
    units_per_event: float = 1.0,
    unit_kind: str = "",
    units: int = 0,
    unit_share: float = 0.0,
    series: int = 1,
    queries_per_s: float = 0.0,
    read_cpu: float = 0.0,
    busiest_row_cpu: float = 0.0,
    read_query: str = "",
) -> Production:
    """``events_per_s`` sustained (peak = mean) over ``series`` series (uniform); each event
    ``mutations_per_event`` mutations costing ``units_per_event`` planning rows; the busiest
    unsplittable unit ``unit_kind`` ("" none, "salt bucket", "write frontier", "hot row") of
    ``units`` with ``unit_share`` of the writes; reads of ``read_cpu`` nodes at the peak, the
    most-read row (of query ``read_query``) ``busiest_row_cpu`` of them."""
    n = SAMPLE_EVENTS
    return Production(
        workload=Workload(events_per_s=events_per_s, queries_per_s=queries_per_s),
        settings=settings,
        series=SeriesCounts(series, float(series), {}, {}, ()),
        sample_events_per_s=events_per_s,
        events_per_s=events_per_s,
        peak_events_per_s=events_per_s,
        rate_factor=1.0,
        time_factor=1.0,
        writes=WriteUnits(
            events=n,
            mutations=round(n * mutations_per_event),
            write_units=n * units_per_event,
            unit_kind=unit_kind,
            unit_name="BATTERY#" if unit_kind else "",
            units=units,
            unit_share=unit_share,
            per_series=0.0,
            busiest_series_ratio=1.0,
        ),
        queries_per_s=queries_per_s,
        queries_default=False,
        queries=ProductionQueries(
            pd.DataFrame(columns=list(ProductionQueries.COLUMNS)),
            read_cpu=read_cpu,
            busiest_row_cpu=busiest_row_cpu,
            busiest_row_query=read_query,
        ),
        cpu_target=settings.replication_cpu_target,
        bucketed=False,
    )
