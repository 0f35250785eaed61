"""Query costs: the fast evaluator equals ReadPlan.evaluate; plans are classified; measured beside model."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.analysis import CellIndex, evaluate, query_costs
from workbench.analysis.querycost import node_seconds
from workbench.analysis.settings import DEFAULT
from workbench.cells import CellFrame
from workbench.errors import WorkbenchError
from workbench.schema.plan import CellFilter, KeyRange, ReadPlan

FIELDS = (
    "scans",
    "rows_seen",
    "cells_seen",
    "bytes_seen",
    "rows_returned",
    "cells_returned",
    "bytes_returned",
)


def _random_cells(rng, n):
    players = [f"p{i:02d}" for i in range(7)]
    keys = [
        f"{rng.choice(['LoL', 'SC'])}#{rng.choice(players)}#{rng.integers(20150301, 20150310)}"
        for _ in range(n)
    ]
    return CellFrame.from_columns(
        row_key=keys,
        family=list(rng.choice(["GAME", "M"], n)),
        qualifier=list(rng.choice(["WIN", "KDA", "x1"], n)),
        timestamp_us=rng.integers(0, 50, n) * 1000,
        value=[b"v" * int(k) for k in rng.integers(0, 5, n)],
        table=list(rng.choice(["main", "by_date"], n, p=[0.8, 0.2])),
    )


def _random_plan(rng, cf):
    prefixes = ["LoL#", "SC#p0", "LoL#p03#", "Z", ""]
    ranges = tuple(KeyRange.for_prefix(p) for p in rng.choice(prefixes, rng.integers(0, 3)))
    if rng.random() < 0.3:
        ranges += (KeyRange("LoL#p02", "SC#p01"),)
    keys = tuple(rng.choice(cf.frame["row_key"].tolist(), rng.integers(0, 3))) + (
        ("nope",) if rng.random() < 0.2 else ()
    )
    flt = CellFilter(
        families=("GAME",) if rng.random() < 0.3 else None,
        qualifier_regex="WIN|KDA" if rng.random() < 0.3 else None,
        row_key_regex=".*#p0[1-4]#.*" if rng.random() < 0.3 else None,
        time_range_us=(10_000, 30_000) if rng.random() < 0.3 else None,
        latest_versions=int(rng.integers(1, 3)) if rng.random() < 0.4 else None,
    )
    return ReadPlan(
        intent="q",
        table=str(rng.choice(["main", "by_date"])),
        ranges=ranges,
        keys=keys,
        filter=flt,
        rows_limit=int(rng.integers(1, 5)) if rng.random() < 0.4 else None,
        reversed=bool(rng.random() < 0.3),
    )


@pytest.mark.slow
def test_fast_evaluator_equals_the_contract_model_on_random_plans():
    rng = np.random.default_rng(7)
    for _ in range(250):
        cf = _random_cells(rng, int(rng.integers(1, 150)))
        idx = CellIndex.build(cf)
        plan = _random_plan(rng, cf)
        want, got = plan.evaluate(cf), evaluate(idx, plan)
        assert [getattr(got, f) for f in FIELDS] == [getattr(want, f) for f in FIELDS], plan


def test_index_built_in_chunks_equals_one_build():
    rng = np.random.default_rng(1)
    cf = _random_cells(rng, 400)
    parts = [CellFrame(cf.frame.iloc[a : a + 97].reset_index(drop=True)) for a in range(0, 400, 97)]
    one, many = CellIndex.build(cf), CellIndex.from_parts(parts)
    assert (one.row_keys == many.row_keys).all() and one.tables == many.tables
    for a in ("row", "family", "qualifier", "ts", "nbytes"):
        assert (getattr(one, a) == getattr(many, a)).all(), a
    assert one.row_bytes().sum() == cf.total_bytes


def _game_cells():
    # the paper's two game tables: LoL#Corrie#date (promoted) in "main", LoL#date in "by_date"
    rows = [
        ("LoL", "Corrie", "20150301", "false", "4.25"),
        ("LoL", "Jo", "20150302", "true", "7.00"),
        ("LoL", "Sam", "20150302", "true", "7.00"),
        ("LoL", "Corrie", "20150303", "true", "9.50"),
        ("Starcraft", "Eriko", "20150303", "true", "6.00"),
    ]
    keys, fams, quals, vals, tabs = [], [], [], [], []
    for g, p, d, win, kda in rows:
        for table, key in (("main", f"{g}#{p}#{d}"), ("by_date", f"{g}#{d}#{p}")):
            for q, v in (("WIN", win), ("KDA", kda)):
                (
                    keys.append(key),
                    fams.append("GAME"),
                    quals.append(q),
                    vals.append(v.encode()),
                    tabs.append(table),
                )
    return CellFrame.from_columns(
        row_key=keys,
        family=fams,
        qualifier=quals,
        timestamp_us=[1000] * len(keys),
        value=vals,
        table=tabs,
    )


def test_plan_kinds_scans_waste_and_modelled_cost():
    cf = _game_cells()
    idx = CellIndex.build(cf)
    plans = {
        "point": ReadPlan("point", keys=("LoL#Corrie#20150301",)),
        "prefix": ReadPlan("prefix", ranges=(KeyRange.for_prefix("LoL#Corrie#"),)),
        "range": ReadPlan(
            "range", ranges=(KeyRange("LoL#Corrie#20150301", "LoL#Corrie#20150401"),)
        ),
        "multi": ReadPlan("multi", ranges=tuple(KeyRange.for_prefix(f"{s}#LoL#") for s in "012")),
        "filtered_scan": ReadPlan(
            "filtered_scan", filter=CellFilter(row_key_regex="LoL#Corrie#.*")
        ),
    }
    qc = query_costs(idx, plans, settings=DEFAULT)
    t = qc.table
    assert t["kind"].to_dict() == {
        "point": "point",
        "prefix": "prefix",
        "range": "range",
        "multi": "multi-range",
        "filtered_scan": "full-table scan",
    }
    assert t.loc["multi", "scans"] == 3
    assert t.loc["prefix", "rows_returned"] == t.loc["filtered_scan", "rows_returned"] == 2
    assert t.loc["prefix", "waste"] == 1.0
    assert t.loc["filtered_scan", "rows_seen"] == 5 and t.loc["filtered_scan", "waste"] == 2.5
    # cost: one request + one seek per range/key + each row, cell and byte visited. The point
    # read visits 1 row of 2 cells; unit costs (SSD defaults, hand-derived in test_read_costs):
    # request 10.8556 µs, seek 43.4225 µs, row 1.13636 µs, cell 0.113636 µs, byte 2.27273 ns
    b = t.loc["point", "bytes_seen"]
    assert t.loc["point", "cells_seen"] == 2
    expected_us = 10.855614973 + 43.422459893 + 1.136363636 + 2 * 0.113636364 + b * 0.002272727
    assert t.loc["point", "node_ms"] == pytest.approx(expected_us / 1e3)
    assert t.loc["filtered_scan", "node_ms"] > t.loc["prefix", "node_ms"]
    assert qc["prefix"]["queries_per_s_per_node"] == pytest.approx(1e3 / t.loc["prefix", "node_ms"])
    # three ranges in one request: three seeks, one request
    multi = node_seconds(plans["multi"], evaluate(idx, plans["multi"]))
    assert multi >= (10.855614973 + 3 * 43.422459893) / 1e6


def test_measured_figures_are_shown_beside_the_model():
    idx = CellIndex.build(_game_cells())
    plans = {"corrie": ReadPlan("corrie", ranges=(KeyRange.for_prefix("LoL#Corrie#"),))}
    ok = {"rows_returned": 2, "cells_returned": 4, "bytes_returned": 999, "elapsed_s": 0.004}
    qc = query_costs(idx, plans, measured={"corrie": ok})
    assert qc.table.loc["corrie", "measured_ms"] == pytest.approx(4.0)
    assert bool(qc.table.loc["corrie", "measured_agrees"]) is True
    qc2 = query_costs(idx, plans, measured={"corrie": dict(ok, rows_returned=3)})
    assert bool(qc2.table.loc["corrie", "measured_agrees"]) is False
    html = qc._repr_html_()
    # the unit lives in the value (4 ms elapsed = 0.004 s), the header names what was timed
    assert ">measured time<" in html and ">4.00 ms<" in html and "measured ms" not in html
    assert "data:image/png;base64," in html and "No SQL" in html
    with pytest.raises(WorkbenchError, match="unknown queries"):
        query_costs(idx, plans, measured={"other": ok})


def test_bad_cells_name_the_column():
    cf = CellFrame.from_columns(
        row_key=["a"], family="F", qualifier="q", timestamp_us=[1000], value=["not bytes"]
    )
    with pytest.raises(WorkbenchError, match="'value' must hold bytes"):
        CellIndex.build(cf)
