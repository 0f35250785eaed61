"""One production workload behind every figure: the answer follows what a team states, never how
much of a file was loaded (G06, G07, G08, G10, G04).

Every expectation is derived by hand from the documented per-node figures (14,000 1 KB writes/s
per SSD node, 70 % CPU target) and from the data's own counts, not from the code's output.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
from pathlib import Path

import numpy as np
import pytest

import workbench as wb
from workbench.analysis import analyze
from workbench.analysis.settings import DEFAULT, Settings
from workbench.errors import RemovedKeyword, SettingsError, WorkbenchError

F = Path(__file__).parents[1] / "fixtures" / "owndata"
NODE_WRITES, TARGET = 14_000.0, 0.70
SECONDS_PER_MONTH = 730 * 3600


def _stocks_csv() -> Path:
    import vega_datasets

    return Path(vega_datasets.__file__).parent / "_data" / "stocks.csv"


def _series_subset(ds, column: str, share: float, seed: int = 3, keep=()):
    """``share`` of the dataset's series kept whole (a seeded draw; ``keep`` always kept)."""
    values = np.array(sorted(ds.frame[column].unique()))
    if share >= 1:
        chosen = set(values)
    else:
        n = max(1, round(len(values) * share))
        chosen = set(np.random.default_rng(seed).choice(values, n, replace=False)) | set(keep)
    frame = ds.frame[ds.frame[column].isin(chosen)].reset_index(drop=True)
    return dataclasses.replace(ds, frame=frame)


def _close(values, rel=0.15):
    lo, hi = min(values), max(values)
    return hi <= lo * (1 + rel) if lo > 0 else hi == lo


# ----------------------------------------------------------------------------- the object


def test_workload_refuses_what_it_cannot_mean():
    cases = [
        (dict(events_per_s=-1), "events_per_s must be a finite number ≥ 0"),
        (dict(events_per_s="fast"), "events_per_s must be a finite number"),
        (dict(peak_factor=0.5), "peak_factor is the peak over the mean rate, so at least 1"),
        (dict(growth="more"), "growth must be 'fixed'"),
        (dict(entities={"sensor": 0}), r"entities\['sensor'\] must be a whole number ≥ 1"),
        (dict(entities=5000), "entities must map an entity column"),
        (dict(spread="pareto"), "Spread kind must be one of"),
        (dict(queries={"q": "often"}), r"queries\['q'\] must be a QueryLoad"),
    ]
    for kwargs, message in cases:
        with pytest.raises(WorkbenchError, match=message):
            wb.Workload(**kwargs)
    with pytest.raises(WorkbenchError, match="Unknown workload input"):
        wb.Workload().replace(rate=1)
    ds = wb.load_dataset("energy_meters")
    with pytest.raises(WorkbenchError, match=r"entities names \['meters'\].*entity columns"):
        analyze(
            ds, wb.preset(ds, "reversed_id_hourly"), workload=wb.Workload(entities={"meters": 10})
        )


# one way to state production (issue 47): the old shorthands are refused with the line to write
@pytest.mark.parametrize("entry", ["analyze", "compare", "advise"])
@pytest.mark.parametrize(
    ("old", "value", "field"),
    [
        ("events_per_s", 20, "events_per_s=..."),
        ("entities", {"meter": 10}, "entities={...}"),
        ("queries_per_s", 2, "queries_per_s=..."),
        ("target_writes_per_s", 20, "events_per_s=..."),  # mutations/s: stated as events now
    ],
)
def test_old_production_keywords_say_how_to_write_them_with_a_workload(entry, old, value, field):
    ds = wb.load_dataset("energy_meters")
    design = wb.preset(ds, "reversed_id_hourly")
    fn, designs = getattr(wb, entry), ([design] if entry == "compare" else design)
    said = f"{entry}() takes workload=wb.Workload({field}) instead of {old}="
    # also beside a workload: no second place to state the same figure
    for extra in ({}, {"workload": wb.Workload(events_per_s=10)}):
        with pytest.raises(RemovedKeyword) as e:
            fn(ds, designs, **{old: value}, **extra)
        assert str(e.value).startswith(said)
        assert isinstance(e.value, TypeError)  # what Python raises for a keyword not taken
    params = inspect.signature(fn).parameters
    assert old not in params and "workload" in params
    assert all(p.kind is not p.VAR_KEYWORD for p in params.values())  # named, mypy sees them


@pytest.mark.parametrize(
    ("old", "says"),
    [
        ("write_rate_per_s", "events_per_s=..."),
        ("queries_per_s", "queries_per_s=..."),
        ("entities_grow", 'growth="grow"'),
        ("retention_months", "retention_months=..."),
    ],
)
def test_settings_hold_no_production(old, says):
    assert old not in {f.name for f in dataclasses.fields(Settings)}
    for make in (Settings, DEFAULT.replace):
        with pytest.raises(SettingsError, match=re.escape(f"workload=wb.Workload({says})")):
            make(**{old: 1})


def test_each_figure_says_which_inputs_are_the_users():
    ds = wb.load_dataset("energy_meters")
    a = analyze(ds, wb.preset(ds, "reversed_id_hourly"), workload=wb.Workload(events_per_s=10_000))
    line = a.capacity.production.inputs_line()
    yours, defaults = line.split(" · defaults: ")
    assert "10,000 events/s" in yours and "retention" not in yours
    assert "retention 12 months" in defaults and "peak 1×" in defaults
    # no query rate stated: none sizes the nodes, and the line says how to state one
    assert "none stated" in defaults and "queries_per_s=" in defaults
    assert a.capacity.read_cpu == 0
    stated = analyze(
        ds,
        wb.preset(ds, "reversed_id_hourly"),
        workload=wb.Workload(events_per_s=10_000, retention_months=3, queries_per_s=2),
    )
    yours = stated.capacity.production.inputs_line().split(" · defaults: ")[0]
    assert "retention 3 months" in yours and "2.00 queries/s" in yours


# ----------------------------------------------------------------------------- sample invariance


def test_stocks_at_5000_symbols_size_the_same_whatever_share_of_the_file_is_loaded():
    full = wb.from_csv(
        _stocks_csv(),
        entity="symbol",
        time="date",
        measures="price",
        naive_tz="UTC",
        queries=["latest 1 per symbol", "all over 30 days"],
    )
    results = []
    for share in (0.2, 0.4, 1.0):
        ds = _series_subset(full, "symbol", share)
        a = analyze(
            ds,
            wb.preset(ds, "entity_first"),
            workload=wb.Workload(events_per_s=50_000, entities={"symbol": 5_000}),
        )
        results.append(a)
    caps = [a.capacity for a in results]
    assert _close([c.nodes_needed for c in caps])
    assert _close([c.stored_bytes for c in caps])  # logical: compression is measured per sample
    for q in ("latest_1_per_symbol", "all_over_30_days"):
        assert _close([a.queries.table.loc[q, "production_node_ms"] for a in results]), q
    # 5,000 symbols at 50,000 events/s: 10 events/s each, a frontier each; the busiest of 5,000
    # equal symbols takes 1/5,000 of the writes, so the ceiling is 5,000 × 9,800 ≈ 49 M events/s
    for c in caps:
        assert not c.hotspot_limited
        assert c.ceiling_events_per_s == pytest.approx(5_000 * TARGET * NODE_WRITES, rel=0.01)


def test_weather_balloons_size_the_same_on_a_fifth_two_fifths_or_all_of_the_balloons():
    full = wb.load_dataset("weather_balloons")
    for pattern in ("timestamp_first", "single_timestamp", "bucket_new_cells"):
        runs = [
            analyze(
                _series_subset(full, "balloon_id", share, keep=("b00001",)),
                wb.preset(full, pattern),
                workload=wb.Workload(
                    events_per_s=100_000, entities={"balloon_id": 5_000, "location": 9}
                ),
            )
            for share in (0.2, 0.4, 1.0)
        ]
        caps = [a.capacity for a in runs]
        assert _close([c.nodes_needed for c in caps]), (pattern, [c.nodes_needed for c in caps])
        assert _close([c.ceiling_events_per_s for c in caps]), pattern
        assert _close([c.stored_gib for c in caps]), pattern
        if pattern == "bucket_new_cells":
            continue  # a week row's cells outside a query's minute follow the sample's flights
        for q in full.queries:
            ms = [a.queries.table.loc[q.name, "production_node_ms"] for a in runs]
            assert _close(ms), (pattern, q.name, ms)


def _own_csv(name: str, **kwargs):
    """A fixture file as ``from_csv`` reads it, no ``entities=`` anywhere (the file decides)."""
    opts = {
        "stocks": dict(entity="symbol", time="date", measures="price", naive_tz="UTC"),
        "grunfeld": dict(entity="firm", time="year", measures=["invest", "value", "capital"]),
    }[name]
    return wb.from_csv(F / f"{name}.csv", progress=False, **opts, **kwargs)


@pytest.mark.parametrize("events_per_s", [None, 50_000])
def test_a_sample_of_stocks_sizes_as_the_whole_file_without_entities(events_per_s):
    """``from_csv(sample=0.4)`` keeps IBM alone (CRC-32 of "IBM" ÷ 2^32 = 0.29 < 0.4; the other
    four draw 0.67-0.93), yet production has the file's 5 symbols, counted in the read: the
    same series, ceiling and nodes as the whole file. Each symbol has 24 monthly prices, so the
    busiest writes the mean, 1/5 of the writes (the file's own skew while production has its
    series), and the ceiling is 5 × 70 % × 14,000 1 KB writes/s ÷ the write units per event."""
    import zlib

    assert [
        s for s in ("MSFT", "AMZN", "IBM", "GOOG", "AAPL") if zlib.crc32(s.encode()) < 0.4 * 2**32
    ] == ["IBM"]
    runs = {}
    for share in (0.4, None):
        ds = _own_csv("stocks", sample=share)
        assert len(ds) == 24 * (1 if share else 5)
        runs[share] = analyze(
            ds, wb.preset(ds, "entity_first"), workload=wb.Workload(events_per_s=events_per_s)
        )
    caps = [a.capacity for a in runs.values()]
    for c in caps:
        assert c.production.series.production == 5
        upe = c.production.units_per_event
        assert c.ceiling_events_per_s == pytest.approx(5 * TARGET * NODE_WRITES / upe, rel=1e-6)
    assert _close([c.ceiling_events_per_s for c in caps])
    assert _close([c.nodes_needed for c in caps])
    if events_per_s:  # the writes' CPU: 50,000 1 KB rows/s ÷ (70 % × 14,000) → 6 nodes
        want = math.ceil(50_000 / (TARGET * NODE_WRITES))
        assert [c.nodes_fair for c in caps] == [want, want]
    sampled = caps[0].production.inputs_line()
    assert re.search(r"series 5 \(symbol 5; fixed; the file's", sampled), sampled
    assert events_per_s or re.search(r"file's: 120 events", sampled)  # the rate, when not stated
    assert "sample's own skew" in sampled and "(the default" in sampled, sampled


def test_the_derived_queries_follow_the_whole_file_not_the_share_drawn():
    """With no queries given, the derived ones read the file's shape: 5 symbols over 2000-01 to
    2001-12 (730 days: a tenth is 30 days on the nice scale), so a 40 % sample keeping IBM alone
    still gets "all over …" (several series) and the same window as the whole file; only the
    series a query names is one the sample holds."""
    whole, part = _own_csv("stocks"), _own_csv("stocks", sample=0.4)

    def lines(ds):
        return [(q.text or q.name).replace("IBM", "S").replace("AAPL", "S") for q in ds.queries]

    assert lines(whole) == lines(part)
    assert "all over 30 days" in lines(part) and "symbol=S over 30 days" in lines(part)


def test_a_sample_that_keeps_no_series_is_refused_with_the_share_that_would():
    import zlib

    # the lowest draw of the five symbols is IBM's, 0.2897: 0.29 is the least two-decimal
    # share that keeps it
    lowest = min(zlib.crc32(s.encode()) / 2**32 for s in ("MSFT", "AMZN", "IBM", "GOOG", "AAPL"))
    need = (math.floor(lowest * 100) + 1) / 100
    assert need == 0.29
    with pytest.raises(
        WorkbenchError,
        match=r"sample=0\.2 keeps none.*5 series.*"
        r"0\.2897 \(IBM\).*sample=0\.29 or more",
    ):
        _own_csv("stocks", sample=0.2)
    assert len(_own_csv("stocks", sample=need)) == 24  # and that share keeps IBM


def test_a_parquet_sample_counts_the_whole_file_too(tmp_path):
    """The same file as Parquet: ``from_parquet(sample=)`` counts every batch as it draws the
    share, so two fifths of stocks (IBM) has production's 5 symbols, and a fifth is refused
    naming the share that keeps one."""
    import pandas as pd

    p = tmp_path / "stocks.parquet"
    pd.read_csv(F / "stocks.csv").to_parquet(p, row_group_size=50)  # several batches
    kw = dict(entity="symbol", time="date", measures="price", naive_tz="UTC", progress=False)
    ds = wb.from_parquet(p, sample=0.4, batch_rows=50, **kw)
    assert sorted(ds.frame["symbol"].unique()) == ["IBM"]
    assert ds.aggregates is not None and ds.aggregates.events == 120
    assert ds.notes[0].startswith("sampled: 24 of 120 events (5 series in the file")
    cap = analyze(ds, wb.preset(ds, "entity_first")).capacity
    assert cap.production.series.production == 5
    with pytest.raises(WorkbenchError, match=r"sample=0\.2 keeps none.*Give sample=0\.29"):
        wb.from_parquet(p, sample=0.2, **kw)


@pytest.mark.parametrize(
    ("name", "pattern"), [("grunfeld", "entity_first"), ("stocks", "entity_first")]
)
def test_storage_is_the_same_whatever_share_of_a_file_is_loaded(name, pattern):
    """Compressed storage from a fifth, two fifths or all of a file (grunfeld: 3, 7 and 11 of 11
    firms; stocks: 1 and 5 of 5, a fifth keeps none) within 15 %: the ratio is measured on at
    least ``compression_sample_bytes`` (256 KiB) of cells shaped like the sample's, never on
    the few kB a small sample holds, and the rate and series are the file's."""
    from workbench.analysis.overview import _compression_cells

    shares = (0.2, 0.4, None) if name == "grunfeld" else (0.4, None)
    caps = []
    for share in shares:
        ds = _own_csv(name, sample=share)
        design = wb.preset(ds, pattern)
        cells = design.to_cells(ds)
        caps.append(analyze(ds, design, cells=cells).capacity)
        measured = _compression_cells(ds, design, cells, DEFAULT, cells.total_bytes / len(ds))
        assert measured.total_bytes >= DEFAULT.compression_sample_bytes, share
    assert _close([c.stored_gib for c in caps]), [c.stored_gib for c in caps]


# ----------------------------------------------------------------------------- ceilings at scale


def test_a_one_series_file_told_ten_thousand_series_sizes_as_ten_thousand():
    co2 = wb.from_csv(F / "co2.csv", time="date", measures="co2").shifted()
    design = wb.preset(co2, "entity_first")
    alone = analyze(co2, design, workload=wb.Workload(events_per_s=50_000)).capacity
    many = analyze(
        co2, design, workload=wb.Workload(events_per_s=50_000, entities={"series": 10_000})
    ).capacity
    # one series: every write at one frontier, 9,800 events/s at most (of 1 KB planning rows)
    upe = alone.production.units_per_event
    assert alone.hotspot_limited
    assert alone.ceiling_events_per_s == pytest.approx(TARGET * NODE_WRITES / upe, rel=1e-6)
    # 10,000 like it: each 5 events/s, the busiest 1/10,000 of the writes
    assert many.production.series.production == 10_000
    assert many.ceiling_events_per_s == pytest.approx(10_000 * TARGET * NODE_WRITES / upe, rel=1e-6)
    assert not many.hotspot_limited
    # the file's one series is the column "series": another name is refused, naming it
    with pytest.raises(WorkbenchError, match=r"entities names \['sensor'\].*\['series'\]"):
        analyze(co2, design, workload=wb.Workload(entities={"sensor": 10}))


def test_game_player_time_is_limited_by_one_generated_player_only_when_players_are_fixed():
    ds = wb.load_dataset("game_scores")
    design = wb.preset(ds, "game_player_time")
    sizes = ds.frame.groupby(["game", "player"]).size()
    p = sizes.max() / sizes.sum()  # the sample's busiest player's share of the scores
    skewed = analyze(
        ds, design, workload=wb.Workload(events_per_s=100_000, spread=wb.Spread("sample"))
    ).capacity
    upe = skewed.production.units_per_event
    assert skewed.hotspot_limited
    assert skewed.ceiling_events_per_s == pytest.approx(TARGET * NODE_WRITES / (p * upe), rel=0.01)
    grown = analyze(
        ds,
        design,
        workload=wb.Workload(events_per_s=100_000, growth="grow", spread=wb.Spread("sample")),
    ).capacity
    assert not grown.write_limited and math.isinf(grown.ceiling_events_per_s)


@pytest.mark.parametrize(
    ("name", "pattern", "query", "requests"),
    [
        # the newest reading of one balloon of 234 on a time-first key: a reverse scan with
        # rows limit 1 passes the other balloons' rows interleaved with it
        ("weather_balloons", "timestamp_first", "latest_reading", 1),
        # the newest quote of one pair of 8 in each of 4 salt buckets
        ("fx_prices", "salted", "latest_quote", 4),
    ],
)
def test_a_limited_scan_passes_rows_by_interleaving_not_by_retention(
    name, pattern, query, requests
):
    """A scan that stops at its rows limit passes rows_limit ÷ (the share of the scanned rows
    that match) rows per request, whatever the table's size: the same at 1 and 12 months. At
    the default spread (the sample's own skew) the match is the named series' own share of the
    events (USD/JPY: 6,255 of fx's 28,629 quotes, so 4 × 28,629 ÷ 6,255 = 18.3 rows, not 4 × 8),
    by hand: requests × events ÷ the named series' events."""
    ds = wb.load_dataset(name)
    q = ds.query(query)
    named = np.ones(len(ds), dtype=bool)
    for c, v in q.entity.items():
        named &= (ds.frame[c] == v).to_numpy()
    rows = requests * len(ds) / int(named.sum())
    if name == "fx_prices":
        assert int(named.sum()) == 6_255 and rows == pytest.approx(18.3, abs=0.01)
    rc = DEFAULT.read_costs()
    costs = []
    for months in (1, 12):
        a = analyze(
            ds,
            wb.preset(ds, pattern),
            workload=wb.Workload(events_per_s=100_000, retention_months=months),
        )
        t = a.queries.table.loc[query]
        assert t["production_rows_seen"] == pytest.approx(rows, rel=1e-6), months
        assert t["production_requests"] == requests
        # node time: the requests, their seeks and the rows' cells at the model's unit costs
        per_row = t["production_cells_seen"] / t["production_rows_seen"]
        node_s = (
            requests * rc.request_s
            + t["production_ranges"] * rc.seek_s
            + rows * (rc.row_s + per_row * (rc.cell_s + 64 * rc.byte_s))
        )
        assert t["production_node_ms"] / 1e3 == pytest.approx(node_s, rel=1e-6)
        costs.append(node_s)
    assert costs[1] == pytest.approx(costs[0], rel=0.10)


def test_an_unbounded_row_reaches_256_mb_when_a_hand_derivation_says():
    ds = wb.load_dataset("garden_temperature")
    a = analyze(ds, wb.preset(ds, "unbounded_row"), workload=wb.Workload(events_per_s=50_000))
    rs = a.rowsizes
    # a row per garden for ever, the gardens a fixed set: at 50,000 events/s each garden writes
    # 50,000 × span ÷ events times faster than in the sample, so its row grows by its bytes so
    # far ÷ the span, that many times over: bytes × 50,000 ÷ events per second
    row_bytes = float(rs.bytes.max())
    growth = row_bytes * 50_000 / len(ds)
    expected_s = (256e6 - row_bytes) / growth
    assert rs.seconds_to(256e6) == pytest.approx(expected_s, rel=0.05)
    assert 3_600 <= rs.seconds_to(256e6) <= 4 * 3_600  # about two hours


def test_spreads_give_the_busiest_series_share_a_hand_derivation_gives():
    assert wb.Spread("uniform").busiest_share(4) == pytest.approx(1 / 4)
    # the sample's busiest series writes 3× the mean: of 300 such series it takes 3/300
    assert wb.Spread("sample").busiest_share(300, 3.0) == pytest.approx(0.01)
    # Zipf s=1 over 3: 1 / (1 + 1/2 + 1/3) = 6/11
    assert wb.Spread("zipf", s=1.0).busiest_share(3) == pytest.approx(6 / 11)
    # past 10,000 terms the harmonic tail is integrated: 1/H(20,000) against the exact sum
    exact = 1 / sum(1 / k for k in range(1, 20_001))
    assert wb.Spread("zipf", s=1.0).busiest_share(20_000) == pytest.approx(exact, rel=1e-6)
    # 1 % of 1,000 series take half: 10 series at 5 % each
    assert wb.Spread("hot", series_share=0.01, load_share=0.5).busiest_share(
        1_000
    ) == pytest.approx(0.05)
    # a query asked of any of 5,000 series alike hits one of them 1/5,000 of the time
    assert wb.QueryLoad().hit_share(5_000) == pytest.approx(1 / 5_000)
    assert wb.QueryLoad(hits="fixed").hit_share(5_000) == 1.0


def test_a_query_asked_of_one_series_only_is_read_limited_where_a_template_is_not():
    # balloons' one-balloon hour on the recommended design at 10,000 queries/s: asked of any
    # of 5,000 balloons alike, the busiest row gets 1/5,000 of them; always of b00001, all
    ds = wb.load_dataset("weather_balloons")
    design = wb.preset(ds, wb.pattern_names(ds)[0])
    base = dict(events_per_s=1_000, entities={"balloon_id": 5_000}, queries_per_s=10_000)
    spread = analyze(ds, design, workload=wb.Workload(**base)).capacity
    pinned = analyze(
        ds,
        design,
        workload=wb.Workload(**base, queries={"latest_reading": wb.QueryLoad(hits="fixed")}),
    ).capacity
    assert pinned.production.queries.busiest_row_cpu > spread.production.queries.busiest_row_cpu
    assert pinned.query_ceiling_per_s < spread.query_ceiling_per_s


# ----------------------------------------------------------------------------- one share per entity


def test_fx_pair_first_gives_eur_usd_one_share_everywhere():
    """The pair-first key writes one frontier per pair; with no series stated production has
    the sample's 8 pairs, so the busiest, EUR/USD, keeps its share of the sample's quotes
    (counted here by hand) in the keyspace's ceiling, capacity's limit and verdict, the
    designer's headline and the inputs line: one figure, the table of shares notebook 04 shows
    (G07). Stated more pairs, nothing says which is busy: uniform, and the line says so."""
    from workbench.ui.model import Workspace

    ds = wb.load_dataset("fx_prices", size="workshop")
    quotes = ds.frame.groupby("pair", observed=True).size()
    eur_usd = quotes["EUR/USD"] / quotes.sum()
    assert quotes.idxmax() == "EUR/USD" and f"{eur_usd:.1%}" == "29.9%"
    design = wb.preset(ds, "pair_microseconds")
    a = analyze(ds, design)
    kd, cap = a.keyspace, a.capacity
    assert kd.ceiling.unit_share == pytest.approx(eur_usd, rel=1e-9)
    assert cap.ceiling.share == pytest.approx(eur_usd, rel=1e-9)
    upe = cap.production.units_per_event
    # the ceiling: EUR/USD alone at 70 % of one node's 14,000 1 KB writes/s
    ceiling = TARGET * NODE_WRITES / (eur_usd * upe)
    assert cap.ceiling_events_per_s == pytest.approx(ceiling, rel=1e-9)
    assert kd.ceiling.writes_per_s == pytest.approx(ceiling * cap.mutations_per_event, rel=1e-9)
    said = "takes 29.9% of the writes at the sample's own skew"
    assert "(EUR/USD#" in kd.ceiling.text() and said in kd.ceiling.text()
    assert said in kd._repr_html_().replace("&#x27;", "'")  # what notebook 04 shows
    line = cap.production.inputs_line()
    assert "sample's own skew" in line and "(the default" in line, line
    # past the ceiling the verdict names the same share
    over = analyze(ds, design, workload=wb.Workload(events_per_s=100_000)).capacity
    assert over.hotspot_limited and re.search(r"29\.9% of the writes", over.verdict())
    # the designer's headline reads the same analysis
    ws = Workspace()
    d = wb.designer(ws.dataset("fx_prices", "workshop"), workspace=ws)
    d.set_schema(design)
    assert said in d.headline.value.replace("&#x27;", "'")
    # 800 pairs stated: the busiest of 800 alike takes 1/800 = 0.125 %, and the line says why
    many = analyze(ds, design, workload=wb.Workload(entities={"pair": 800}))
    assert many.capacity.ceiling.share == pytest.approx(1 / 800)
    assert re.search(r"0\.1% of the writes .*uniform", many.keyspace.ceiling.text())
    assert re.search(r"spread uniform \(the default", many.capacity.production.inputs_line())
    # a view at another spread than the default says which, in the same line
    uniform = analyze(ds, design, workload=wb.Workload(spread="uniform"))
    assert uniform.capacity.ceiling.share == pytest.approx(1 / 8)
    assert re.search(r"12\.5% of the writes .*uniform", uniform.keyspace.ceiling.text())
