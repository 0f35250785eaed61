"""The advisor: every rule fires on a design that breaks its guideline, stays quiet on the
recommended preset of every dataset, and its suggested schema makes the finding go away."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.advisor import Advice, Finding, advise, pii_kind, rule_names
from workbench.analysis import DEFAULT
from workbench.schema import (
    Family,
    Field,
    ReversedTimestamp,
    RowKey,
    Schema,
    Tall,
    TimeBucket,
    Timestamp,
    Wide,
    pattern_names,
    preset,
)
from workbench.schema import limits as schema_limits

TINY = "tiny"


@pytest.fixture(scope="module")
def data() -> dict:
    return {name: wb.load_dataset(name, size=TINY) for name in wb.dataset_names()}


def _rebuild(ds, frame, **kw):
    """A bring-your-own dataset with the sample's columns and queries (crafted values)."""
    return wb.from_dataframe(
        frame,
        entity=list(ds.entity),
        time=ds.time,
        measures=kw.pop("measures", list(ds.measures)),
        queries=kw.pop("queries", ds.queries),
        name=kw.pop("name", ds.name + "_crafted"),
        **kw,
    )


def _fired(adv: Advice, rule: str, severity: str | None = None) -> list[Finding]:
    out = [f for f in adv.by_rule(rule) if f.severity != "info"]
    return [f for f in out if severity is None or f.severity == severity]


def _assert_fix_removes(ds, finding: Finding, **kw) -> None:
    assert finding.suggestion is not None, f"{finding.rule} offers no schema"
    again = advise(ds, finding.suggestion, **kw)
    same = [f for f in _fired(again, finding.rule) if f.title == finding.title]
    assert not same, f"applying {finding.suggestion.name} left {[str(f) for f in same]}"


# ----------------------------------------------------------------------------- quiet on good designs


@pytest.mark.parametrize("name", wb.dataset_names())
@pytest.mark.parametrize("size", ["tiny", "small"])
def test_quiet_on_every_recommended_preset(name, size):
    ds = wb.load_dataset(name, size=size)
    adv = advise(ds, preset(name, pattern_names(name)[0]))
    assert adv.problems == [], str(adv)
    assert "No problems" in adv.headline()


# ----------------------------------------------------------------------------- each rule fires


def _fires(ds, schema, rule, severity=None, **kw) -> Finding:
    adv = advise(ds, schema, **kw)
    got = _fired(adv, rule, severity)
    assert got, f"{rule} did not fire on {schema.name}: {adv}"
    return got[0]


@pytest.mark.parametrize("name", wb.dataset_names())
def test_timestamp_first_is_a_hotspot_error_with_measured_shares(data, name):
    ds = data[name]
    # an error at a rate one frontier cannot take (over 9,800 1 KB writes/s at 70 % of a node)
    f = _fires(
        ds,
        preset(name, "timestamp_first"),
        "time_first",
        "error",
        workload=wb.Workload(events_per_s=20_000),
    )
    assert f.guideline == "G06" and "G07" in f.guidelines
    assert f.data["busiest_share"] > 0.55 and f.data["fair_share"] == pytest.approx(1 / 3)
    assert any("fair 33%" in e for e in f.evidence)
    _assert_fix_removes(ds, f)
    new_lead = f.suggestion.key.segments[0]
    assert not hasattr(new_lead, "precision"), "the suggestion must not start with a time"


def test_hotspot_limited_fires_when_no_node_count_serves_the_stated_rate(data):
    # 4 salt buckets of fx prices take at most 4 × 9,800 = 39,200 events/s; 100,000 needs
    # 100,000 ÷ 9,800 = 10.2, so 11 buckets
    f = _fires(
        data["fx_prices"],
        preset("fx_prices", "salted"),
        "hotspot_limited",
        "error",
        workload=wb.Workload(events_per_s=100_000),
    )
    # even buckets would need 11; this sample's few pairs fill 4 buckets unevenly, so more
    buckets = int(re.search(r"Salt\(n=(\d+)\)", f.fix).group(1))
    assert buckets >= 11 and f.guideline == "G08"
    assert f.data["ceiling_events_per_s"] < 100_000
    assert buckets == math.ceil(4 * 100_000 / f.data["ceiling_events_per_s"])
    assert not _fired(
        advise(
            data["fx_prices"],
            preset("fx_prices", "salted"),
            workload=wb.Workload(events_per_s=20_000),
        ),
        "hotspot_limited",
        None,
    )


def test_query_cost_fires_when_a_query_sets_the_cluster_size(data):
    # timestamp-first balloons at 100,000 events/s and 10 queries/s stated: a week of one
    # location is a range through every balloon's rows of that week (6e10), far more CPU at
    # its share of the rate than every write
    ds = data["weather_balloons"]
    design = preset("weather_balloons", "timestamp_first")
    adv = advise(ds, design, workload=wb.Workload(events_per_s=100_000, queries_per_s=10))
    f = next(
        f for f in _fired(adv, "query_cost", "error") if f.data["query"] == "location_pressure_week"
    )
    assert f.data["production_cpu"] >= 10 * f.data["write_cpu"]
    # at the sample's own rate every query is a sliver of a node: silent
    assert not _fired(advise(ds, design), "query_cost", None)
    _fires(ds, design, "query_cost", workload=wb.Workload(events_per_s=100_000, queries_per_s=10))


def test_a_query_whose_rate_nobody_stated_sizes_nothing_but_is_named(data):
    # the same week read with no query rate stated: it sizes no node (a warning, not an error)
    # and the finding says how often the nodes the writes need can run it
    ds = data["weather_balloons"]
    adv = advise(
        ds,
        preset("weather_balloons", "timestamp_first"),
        workload=wb.Workload(events_per_s=100_000),
    )
    assert not _fired(adv, "query_cost", "error")
    f = next(
        f
        for f in _fired(adv, "query_cost", "warning")
        if f.data["query"] == "location_pressure_week"
    )
    assert f.data["production_cpu"] == 0 and f.data["servable_per_s"] < 1 / 60
    assert "times an hour" in f.title


def test_reversed_timestamp_first_cites_g09(data):
    ds = data["garden_temperature"]
    s = Schema(
        "rev_first",
        RowKey((ReversedTimestamp("s"), Field("garden"))),
        Tall(Family("t"), {"temp_f": "T"}),
    )
    f = _fires(ds, s, "time_first", "error", workload=wb.Workload(events_per_s=20_000))
    assert f.guidelines[:2] == ("G09", "G06")
    assert "reversed" in f.evidence[0]
    _assert_fix_removes(ds, f)
    assert isinstance(f.suggestion.key.segments[-1], ReversedTimestamp)


def test_sequential_ids_first(data):
    # meters installed one after another: meter 100001 reports in its first hour, 100002 in the
    # next, ... so each window's writes all go to the newest, highest ID (a write frontier)
    ds = data["energy_meters"]
    t0 = pd.Timestamp("2015-03-01", tz="UTC")
    rows = [
        (100001 + m, t0 + pd.Timedelta(hours=m, minutes=k), 0.05, 235.0)
        for m in range(48)
        for k in range(0, 60, 2)
    ]
    frame = pd.DataFrame(rows, columns=["meter_id", "time", "kwh", "voltage"])
    installed = _rebuild(ds, frame, queries=[], name="installed")
    f = _fires(installed, preset("energy_meters", "sequential_id"), "sequential_id", "warning")
    assert f.data["distinct_first_chars"] == 1 and f.data["distinct_first_chars_reversed"] > 1
    _assert_fix_removes(installed, f)


def test_sequential_ids_that_write_evenly_are_a_note_not_a_warning(data):
    # the sample's meters all report every 15 minutes: the newest IDs write no more than the
    # others, and the load model measures the spread even (under 1.5x): the measurement wins
    ds = data["energy_meters"]
    adv = advise(ds, preset("energy_meters", "sequential_id"))
    assert not _fired(adv, "sequential_id")
    (note,) = adv.by_rule("sequential_id")
    assert note.severity == "info"
    assert any("not apply" in e and "fair share" in e for e in note.evidence)


def test_hashed_key_segment(data):
    ds = data["game_scores"]
    f = _fires(ds, preset("game_scores", "hashed_player"), "hashed_key", "warning")
    assert "readable" in f.evidence[0] and "extra cells" in f.evidence[1]
    _assert_fix_removes(ds, f)


def test_raw_hash_values_in_a_field(data):
    ds = data["garden_temperature"]
    fr = ds.frame.copy()
    codes = {g: f"{abs(hash(g)):016x}{i:08x}" for i, g in enumerate(fr["garden"].unique())}
    fr["garden"] = fr["garden"].map(codes).astype(object)
    crafted = _rebuild(ds, fr, queries=[])
    f = _fires(crafted, preset("garden_temperature", "tall"), "hashed_key", "warning")
    assert "hash-like" in f.title


def test_unpadded_ids_latent_then_in_data(data):
    ds = data["energy_meters"]
    f = _fires(ds, preset("energy_meters", "unpadded_id"), "unpadded_number", "warning")
    a, b = f.data["pair"]
    assert a > b and str(a) < str(b) and not f.data["in_data"]
    _assert_fix_removes(ds, f)
    # IDs of different widths in the data: the wrong order is shown with two real keys
    fr = ds.frame.copy()
    ids = sorted(fr["meter_id"].unique())
    fr["meter_id"] = (
        fr["meter_id"]
        .map({m: v for m, v in zip(ids, [7, 9, 10, 11, 120][: len(ids)], strict=True)})
        .astype("int64")
    )
    crafted = _rebuild(ds, fr, queries=[])
    g = _fires(crafted, preset("energy_meters", "unpadded_id"), "unpadded_number", "warning")
    assert g.data["in_data"]
    a, b = g.data["pair"]
    assert a > b and str(a) < str(b)
    keys = crafted.frame["meter_id"].astype(str)
    assert str(a) in set(keys) and str(b) in set(keys)
    _assert_fix_removes(crafted, g)


def test_unpadded_numbers_inside_text_ids(data):
    ds = data["weather_balloons"]
    fr = ds.frame.copy()
    ids = sorted(fr["balloon_id"].unique())
    fr["balloon_id"] = (
        fr["balloon_id"].map({b: f"b{i * 7 + 3}" for i, b in enumerate(ids)}).astype(object)
    )
    crafted = _rebuild(ds, fr, queries=[])
    f = _fires(
        crafted, preset("weather_balloons", "single_timestamp"), "unpadded_number", "warning"
    )
    a, b = f.data["pair"]
    assert a < b and int(a[1:]) > int(b[1:])


def test_long_names_cost_bytes(data):
    ds = data["weather_balloons"]
    f = _fires(ds, preset("weather_balloons", "long_names"), "long_names", "warning")
    cells = preset("weather_balloons", "long_names").to_cells(ds)
    n = int((cells.frame["family"] == "measurements").sum())
    assert f.evidence[0].startswith(f"family name 'measurements' costs 12 bytes × {n:,} cells")
    assert f.data["saving_share"] >= 0.2
    _assert_fix_removes(ds, f)


def _garden_named(ds, width: int):
    fr = ds.frame.copy()
    fr["garden"] = fr["garden"].map(lambda g: (g + "X" * width)[:width]).astype(object)
    return _rebuild(ds, fr, queries=[])


def test_keys_near_and_over_the_limit(data):
    ds = data["garden_temperature"]
    tall = preset("garden_temperature", "tall")
    near = _fires(_garden_named(ds, 2500), tall, "limits", "warning")
    assert near.guideline == "G20" and near.data["max_key_bytes"] > 2048
    over = _fires(_garden_named(ds, 5000), tall, "limits", "error")
    assert over.guideline == "G20" and "4 KiB" in over.evidence[0]


def test_qualifiers_near_and_over_the_limit(data):
    ds = data["garden_temperature"]
    near = Schema(
        "long_q",
        RowKey((Field("garden"), Timestamp("second"))),
        Tall(Family("t"), {"temp_f": "q" * 9000}),
    )
    f = _fires(ds, near, "limits", "warning")
    assert f.guideline == "G19" and f.data["max_qualifier_bytes"] == 9000
    over = dataclasses.replace(
        near, layout=Tall(Family("t"), {"temp_f": "q" * (schema_limits.QUALIFIER_MAX + 1)})
    )
    g = _fires(ds, over, "limits", "error")
    assert g.guideline == "G19"


def test_cells_and_rows_over_the_advice(data):
    ds = data["garden_temperature"]
    st = DEFAULT.replace(cell_advisory_bytes=4, row_advisory_bytes=1000)
    f = _fires(ds, preset("garden_temperature", "month_rows"), "limits", "warning", settings=st)
    titles = {
        x.title
        for x in advise(ds, preset("garden_temperature", "month_rows"), settings=st).by_rule(
            "limits"
        )
    }
    assert any("Cells over" in t for t in titles) and any("Rows over" in t for t in titles)
    assert f.guideline == "G10"


def test_unbounded_rows(data):
    ds = data["garden_temperature"]
    f = _fires(ds, preset("garden_temperature", "unbounded_row"), "unbounded_rows")
    assert {"G02", "G12"} <= set(f.guidelines)
    assert (
        f.data["projected_max_bytes"]
        > wb.analyze(ds, preset("garden_temperature", "unbounded_row")).rowsizes.max_bytes
    )
    assert isinstance(f.suggestion.key.segments[-1], TimeBucket)
    _assert_fix_removes(ds, f)
    big = _fires(
        data["server_metrics"],
        preset("server_metrics", "one_row_per_series"),
        "unbounded_rows",
        "error",
    )
    assert big.data["projected_max_bytes"] > DEFAULT.row_hard_bytes


def test_versions_without_gc(data):
    ds = data["garden_temperature"]
    f = _fires(ds, preset("garden_temperature", "unbounded_row"), "versions_without_gc", "warning")
    assert f.data["max_versions"] > 100 and {"G03", "G13"} <= set(f.guidelines)
    _assert_fix_removes(ds, f)
    fam = f.suggestion.layout.family
    assert fam.gc is not None and fam.gc.cbt().startswith("maxage=")


def test_too_many_families():
    t = pd.date_range("2015-03-01 07:00", periods=31, freq="D", tz="UTC")
    cols = {f"sensor_{i:03d}": np.arange(31, dtype=float) + i for i in range(105)}
    fr = pd.DataFrame({"garden": pd.Series(["G1"] * 31, dtype=object), "time": t, **cols})
    ds = wb.from_dataframe(
        fr, entity=["garden"], time="time", measures=list(cols), name="many_measures"
    )
    s = Schema("wide_many", RowKey((Field("garden"), TimeBucket("month"))), Wide("day"))
    f = _fires(ds, s, "families", "warning")
    assert f.data["n_families"] == 105 and f.guideline == "G18"
    _assert_fix_removes(ds, f)


def test_aggregates_sharing_the_raw_family(data):
    ds = data["energy_meters"]
    good = preset("energy_meters", "reversed_id_hourly")
    bad = dataclasses.replace(
        good, aggregates=dataclasses.replace(good.aggregates, family=Family("r", gc=None))
    )
    f = _fires(ds, bad, "families", "error")
    assert f.guideline == "G30" and "maxage=90d" in f.evidence[0]
    _assert_fix_removes(ds, f)


def test_personal_data_in_the_key(data):
    ds = data["game_scores"]
    fr = ds.frame.copy()
    fr["player"] = (fr["player"].str.lower() + "@example.com").astype(object)
    crafted = _rebuild(ds, fr, queries=[])
    f = _fires(crafted, preset("game_scores", "game_player_time"), "personal_data", "warning")
    assert f.data["kind"] == "e-mail address" and f.data["column"] == "player"
    assert "@example.com" in f.evidence[0] and "•••" in f.evidence[0]
    _assert_fix_removes(crafted, f)
    # the hash the fix introduces is deliberate: the G22 rule notes it without a warning
    after = advise(crafted, f.suggestion)
    assert after.by_rule("hashed_key") and all(
        x.severity == "info" for x in after.by_rule("hashed_key")
    )


@pytest.mark.parametrize(
    "value,kind",
    [
        ("corrie@example.com", "e-mail address"),
        ("+1 415 555 0100", "phone number"),
        ("(415) 555-0100", "phone number"),
        ("07700 900123", "phone number"),
        ("Corrie", None),
        ("2015-03-01", None),
        ("192.168.100.200", None),
        ("b00042", None),
        ("100001", None),
        ("us-west2", None),
    ],
)
def test_pii_detector(value, kind):
    assert pii_kind(value) == kind


def test_phone_numbers_as_meter_labels(data):
    ds = data["weather_balloons"]
    fr = ds.frame.copy()
    ids = sorted(fr["balloon_id"].unique())
    fr["balloon_id"] = (
        fr["balloon_id"].map({b: f"+44 7700 900{i:03d}" for i, b in enumerate(ids)}).astype(object)
    )
    crafted = _rebuild(ds, fr, queries=[])
    f = _fires(crafted, preset("weather_balloons", "single_timestamp"), "personal_data")
    assert f.data["kind"] == "phone number"


def test_one_row_updated_per_reading(data):
    ds = data["energy_meters"]
    f = _fires(ds, preset("energy_meters", "unbounded_row"), "row_per_device", "warning")
    assert f.data["writes_per_row"] == pytest.approx(len(ds) / ds.n_entities())
    _assert_fix_removes(ds, f)
    assert f.suggestion.key.time_segments


@pytest.mark.parametrize("name", ["game_scores", "fx_prices"])
def test_salting_fans_out_reads(data, name):
    ds = data[name]
    f = _fires(ds, preset(name, "salted"), "salting", "warning")
    # every read of a salted key lists each of the 4 buckets: 4 ranges per entity prefix, and a
    # slice over a small known entity set (8 games) lists 4 x 8 = 32 in its one request
    scans = set(f.data["scans"].values())
    assert 4 in scans and all(s % 4 == 0 for s in scans)
    assert any("4 scans" in e for e in f.evidence)
    _assert_fix_removes(ds, f)


def test_collisions_at_second_precision(data):
    ds = data["fx_prices"]
    f = _fires(ds, preset("fx_prices", "second_precision"), "collisions", "error")
    assert f.data["lost"] > 0
    loss = wb.Schema.to_cells(preset("fx_prices", "second_precision"), ds, accept_loss=True)
    from workbench.schema import loss_report

    assert f.data["lost"] == loss_report(loss).n_lost
    _assert_fix_removes(ds, f)
    assert f.suggestion.key.keeps_microseconds()


def test_collisions_in_month_rows_with_hourly_data():
    ds = wb.load_dataset("garden_temperature", size=TINY, freq="1h")
    f = _fires(ds, preset("garden_temperature", "month_rows"), "collisions", "error")
    _assert_fix_removes(ds, f)


def test_full_table_scan_names_the_query(data):
    ds = data["garden_temperature"]
    f = _fires(ds, preset("garden_temperature", "timestamp_first"), "full_scan", "warning")
    # time#garden, latest reading of one garden: no key range. Cloud Bigtable reads backwards
    # from the table's end until the garden's newest row (this garden wrote last: 1 row); a garden
    # that stopped writing would cost every row, which is what the emulator always reads
    assert "latest_reading" in f.title
    assert f.data["rows_returned"] == 1 and f.data["rows_seen"] < len(ds)
    assert f.data["worst_rows_seen"] == len(ds)
    assert f"up to all {len(ds):,} rows" in " ".join(f.evidence)
    _assert_fix_removes(ds, f)
    # the site dashboard on host#metric#time is no full scan: the 31 hosts are a small known set,
    # so one request lists a range per host (G11) and reads exactly the rows it returns
    sm = data["server_metrics"]
    a = wb.analyze(sm, preset("server_metrics", "host_metric_time"))
    row = a.queries.table.loc["site_cpu_dashboard"]
    assert row["kind"] == "multi-range" and row["rows_seen"] == row["rows_returned"]


def test_every_warning_rule_has_a_firing_test():
    import ast

    here = __import__("pathlib").Path(__file__).parent  # tests/advisor/: the advisor's tests
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in here.glob("test_*.py")]
    tested = {
        n.args[2].value
        for tree in trees
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and getattr(n.func, "id", "") == "_fires"
        and len(n.args) > 2
        and isinstance(n.args[2], ast.Constant)
    }
    missing = (
        set(rule_names()) - {"reversed_time_use"} - tested
    )  # reversed_time_use only ever notes (info)
    assert not missing, f"rules without a firing test: {sorted(missing)}"


# ----------------------------------------------------------------------------- objects and display


def test_advice_is_a_list_of_limit_findings_worst_first(data):
    ds = data["energy_meters"]
    adv = advise(ds, preset("energy_meters", "unbounded_row"))
    assert isinstance(adv, list) and all(isinstance(f, schema_limits.Finding) for f in adv)
    ranks = [("error", "warning", "info").index(f.severity) for f in adv]
    assert ranks == sorted(ranks)
    assert set(adv.guidelines()) >= {"G24", "G13", "G02"}
    assert len(adv.to_frame()) == len(adv)


def test_html_reads_well(data):
    ds = data["garden_temperature"]
    adv = advise(
        ds,
        preset("garden_temperature", "timestamp_first"),
        workload=wb.Workload(events_per_s=20_000),
    )
    h = adv._repr_html_()
    assert "#D55E00" in h and "ERROR" in h and "✖" in h  # colour, label and symbol
    assert "G06" in h and wb.GUIDELINES["G06"] in h
    assert "fair 33%" in h and "Suggested schema" in h and "{garden}" in h
    assert "<script" not in h
    weird = _rebuild(
        ds,
        ds.frame.assign(garden=ds.frame["garden"].map(lambda g: g + "<b>")).astype(
            {"garden": object}
        ),
        queries=[],
    )
    h2 = advise(weird, preset("garden_temperature", "timestamp_first"))._repr_html_()
    assert "<b>#" not in h2 and "&lt;b&gt;" in h2


def test_bad_input_is_named(data):
    with pytest.raises(wb.WorkbenchError, match="Schema"):
        advise(data["garden_temperature"], "tall")
    with pytest.raises(wb.WorkbenchError, match="Unknown advisor rule"):
        advise(data["garden_temperature"], preset("garden_temperature", "tall"), rules=["nope"])
    with pytest.raises(ValueError, match="guideline"):
        Finding(guideline="G99", message="x")
    with pytest.raises(wb.SchemaError, match="Unknown column"):
        advise(data["garden_temperature"], Schema("x", RowKey((Field("nope"), Timestamp()))))
    ds, tall = data["garden_temperature"], preset("garden_temperature", "tall")
    with pytest.raises(
        wb.DatasetError, match="advise takes a Dataset.*DataFrame.*wb.from_dataframe"
    ):
        advise(ds.frame, tall)
    assert [f.rule for f in advise(ds, tall, rules="limits")] == [
        f.rule for f in advise(ds, tall, rules=["limits"])
    ]
    with pytest.raises(wb.WorkbenchError, match="compare takes a list"):
        wb.compare(ds, tall)
    with pytest.raises(wb.WorkbenchError, match="got None"):
        wb.compare(ds, [tall, None])
    with pytest.raises(wb.DatasetError, match="analyze takes.*Dataset"):
        wb.analyze(ds.frame, tall)
    with pytest.raises(wb.SchemaError, match="over 1,024 buckets"):
        preset("fx_prices", "salted", n=16_000)


def test_public_surface():
    assert wb.advise is advise
    import workbench.analysis.comparison as comparison

    assert wb.compare is comparison.compare and callable(wb.compare)


def test_query_and_filter_over_a_prefix_is_flagged_with_its_waste():
    # game#player#time, "every LoL score in March": the game's prefix holds every LoL score of
    # every month; only March's are kept. Rows read / rows returned is the measured waste, and a
    # second table keyed game#time#... reads only March (the paper's LoL#20150301 key, G05)
    ds = wb.load_dataset("game_scores", size="workshop")
    f = _fires(ds, preset("game_scores", "game_player_time"), "query_filter", "warning")
    lol = ds.frame["game"] == "LoL"
    march = lol & (ds.frame["time"].dt.month == 3)
    assert f.data["rows_seen"] == int(lol.sum()) and f.data["rows_returned"] == int(march.sum())
    assert f.data["waste"] == pytest.approx(lol.sum() / march.sum())
    assert "lol_march" in f.title and "G05" in f.guidelines
    _assert_fix_removes(ds, f)
