"""Your own data: real public CSV excerpts, the query mini-language, the whole gallery, bad files."""

from pathlib import Path

import pandas as pd
import pytest

import workbench as wb
from workbench.datasets.queries import with_queries
from workbench.errors import CollisionError, DatasetError, SchemaError

pytestmark = pytest.mark.slow  # real files through every design

F = Path(__file__).parents[1] / "fixtures" / "owndata"


def _real():
    return [
        wb.from_csv(
            F / "stocks.csv", entity="symbol", time="date", measures="price", naive_tz="UTC"
        ),
        wb.from_csv(F / "seattle_temps.csv", time="date", measures="temp", naive_tz="UTC"),
        wb.from_csv(F / "co2.csv", time="date", measures="co2"),
        wb.from_csv(
            F / "grunfeld.csv", entity="firm", time="year", measures=["invest", "value", "capital"]
        ),
    ]


def test_real_files_load_with_default_queries_and_every_design_round_trips():
    for ds in _real():
        assert ds.queries, ds.name  # a default workload, shown by repr
        assert "latest 1 per" in repr(ds.queries)
        names = wb.pattern_names(ds)
        # 12 families (one entity column: no other entity order); Heroic's unsigned base
        # cannot hold co2 (1958) or grunfeld (1935) times, so those two get 11
        pre_1970 = ds.name in ("co2", "grunfeld")
        assert len(names) == 12 - pre_1970 and names[0] == "entity_first", names
        if pre_1970:
            with pytest.raises(SchemaError, match=r"1970.*starts 19"):
                wb.preset(ds, "heroic")
        for n in names:
            s = wb.preset(ds, n)
            try:
                cells = s.to_cells(ds)
            except CollisionError:
                continue  # a clear refusal is allowed; silent loss is not
            pd.testing.assert_frame_equal(s.from_cells(cells), ds.canonical(), obj=f"{ds.name}/{n}")
            for q in ds.queries:
                got = q.answer(s.from_cells(s.plan(q).evaluate(cells).cells), ds.time)
                want = q.answer(ds.frame, ds.time)
                assert len(got) == len(want), (ds.name, n, q.name)


def test_yyyymmdd_and_year_are_dates_not_epoch_seconds():
    co2 = wb.from_csv(F / "co2.csv", time="date", measures="co2")
    # first line of the file: 19580329,316.1 -> 29 March 1958
    assert co2.frame["date"].iloc[0] == pd.Timestamp("1958-03-29", tz="UTC")
    g = wb.from_csv(F / "grunfeld.csv", entity="firm", time="year", measures="invest")
    assert g.frame["year"].min() == pd.Timestamp("1935-01-01", tz="UTC")
    assert g.n_entities() == 11  # Grunfeld's 11 firms


def test_query_lines_become_intents_and_errors_name_the_column_or_value():
    ds = wb.from_csv(
        F / "stocks.csv",
        entity="symbol",
        time="date",
        measures="price",
        naive_tz="UTC",
        queries=["latest 3 for symbol=IBM", "msft: symbol=MSFT from 2000-01-01 to 2000-07-01"],
    )
    q0, q1 = ds.queries
    assert (q0.kind, q0.limit, q0.entity) == ("latest", 3, {"symbol": "IBM"})
    # MSFT rows are monthly from Jan 2000: Jan..Jun = 6 events in [2000-01-01, 2000-07-01)
    assert q1.name == "msft" and len(q1.answer(ds.frame, ds.time)) == 6
    with pytest.raises(DatasetError, match=r"'symbl'.*mean 'symbol'"):
        wb.from_csv(
            F / "stocks.csv",
            entity="symbol",
            time="date",
            measures="price",
            naive_tz="UTC",
            queries=["symbl=IBM over 1 day"],
        )
    with pytest.raises(DatasetError, match=r"symbol='IMB'.*mean 'IBM'"):
        wb.from_csv(
            F / "stocks.csv",
            entity="symbol",
            time="date",
            measures="price",
            naive_tz="UTC",
            queries=["latest 1 for symbol=IMB"],
        )


def test_bad_files_are_refused_naming_line_column_or_value(tmp_path):
    p = tmp_path / "extra.csv"
    p.write_text("id,time,v\nA,2024-01-01T00:00:00Z,1,9\nA,2024-01-02T00:00:00Z,2\n")
    with pytest.raises(DatasetError, match=r"line 2.*4 fields.*header.*3.*Fix that"):
        wb.from_csv(p, entity="id", time="time", measures="v")
    p.write_text("id,time,v\nA,2024-01-01T00:00:00Z,1\nA,2024-01-02T00:00:00Z,2,9\n")
    with pytest.raises(DatasetError, match=r"line 3.*Fix that line"):
        wb.from_csv(p, entity="id", time="time", measures="v")
    p.write_text("id,time,v\nA,01/02/2024,1\nA,03/04/2024,2\n")
    with pytest.raises(DatasetError, match=r"'time'.*'01/02/2024'.*dayfirst=True"):
        wb.from_csv(p, entity="id", time="time", measures="v", naive_tz="UTC")
    ds = wb.from_csv(p, entity="id", time="time", measures="v", naive_tz="UTC", dayfirst=True)
    assert ds.frame["time"].iloc[0] == pd.Timestamp("2024-02-01", tz="UTC")  # 01/02 day first
    with pytest.raises(DatasetError, match=r"'id'.*1.*'1'.*astype\(str\)"):
        wb.from_dataframe(
            pd.DataFrame({"id": [1, "1"], "t": ["2024-01-01Z", "2024-01-02Z"], "v": [1, 2]}),
            entity="id",
            time="t",
            measures="v",
        )


def test_na_names_bom_semicolons_and_epoch_ms(tmp_path):
    p = tmp_path / "countries.csv"
    # a BOM, ';' separators, Namibia's code NA and the name None: names, not missing values
    p.write_bytes("\ufeffcountry;time;v\nNA;1704067200000;1\nNone;1704067200000;2\n".encode())
    ds = wb.from_csv(p, entity="country", time="time", measures="v")
    assert sorted(ds.frame["country"]) == ["NA", "None"]
    # 1704067200000 ms = 1,704,067,200 s = 2024-01-01T00:00Z
    assert ds.frame["time"].iloc[0] == pd.Timestamp("2024-01-01", tz="UTC")


def test_whole_gallery_is_ranked_on_default_and_stated_queries():
    for ds in _real():
        c = wb.compare(ds, wb.presets(ds))
        assert list(c.analyses) == wb.pattern_names(ds)
        # 4 design criteria (hotspot, ceiling, bytes/event, largest row) + one per default query
        assert len(c.criteria) == 4 + len(ds.queries), (ds.name, c.criteria)
    stocks = _real()[0]
    c = wb.compare(stocks, wb.presets(stocks), queries=["latest 1 per symbol"])
    assert len(c.criteria) == 5
    # latest-1 of one symbol is a one-row read when the symbol leads the key: newest first
    # (G09), or a reverse scan with a rows limit on Cloud Bigtable; time-first keys (G06) and
    # salted ones (G08) must scan every symbol's rows, so they rank last
    ranking = c.rankings.loc["query latest_1_per_symbol (node-ms per run)", "ranking"]
    best = ranking.split(" < ")[0].split(" ≈ ")
    assert "reversed_timestamp" in best and "entity_first" in best, ranking
    assert ranking.split(" < ")[-2:] == ["timestamp_first", "salted"], ranking
    verdict = wb.advise(stocks, wb.preset(stocks, "timestamp_first"))
    assert any(f.guideline == "G06" for f in verdict)


def test_recommended_design_round_trips_on_the_emulator(emulator):
    stocks, seattle, co2, grunfeld = _real()
    # cells carry the event time and Bigtable timestamps cannot be negative: co2 starts on
    # 1958-03-29, so the load is refused before the first request, naming the row and the date
    with pytest.raises(
        DatasetError,
        match=r"1958-03-29.*before 1970.*Nothing was written.*wb.analyze.*ds.shifted\(\)",
    ):
        emulator.load(co2, wb.preset(co2, "entity_first"), table_id="t-own-co2", progress=False)
    conn = emulator.connection()
    assert "t-own-co2" not in conn.list_tables()
    # what the message offers works: the analysis needs no table ...
    a = wb.analyze(co2, wb.preset(co2, "entity_first"))
    # entity_first: one row per event (series#time) that has a value; the 19 events whose co2
    # is empty have no cell, so no row (160 − 19)
    assert a.index.n_rows == len(co2) - 19 == 141
    # the fix the message names: whole weeks forward, so 1958-03-29 (a Saturday) lands on the
    # first Saturday on or after 1970-01-01, which is 1970-01-03: 614 weeks (4,298 days) later
    moved = co2.shifted()
    assert moved.time_span[0] == pd.Timestamp("1970-01-03", tz="UTC")
    assert (moved.frame[moved.time] - co2.frame[co2.time]).eq(pd.Timedelta(days=4298)).all()
    assert "614 weeks" in moved.notes[-1]
    for q, m in zip(co2.queries, moved.queries, strict=True):
        assert (q.start is None) == (m.start is None) and len(q.answer(co2.frame, co2.time)) == len(
            m.answer(moved.frame, moved.time)
        )
    for ds in (stocks, seattle, moved, grunfeld.shifted()):
        schema = wb.preset(ds, wb.pattern_names(ds)[0])
        table = emulator.load(ds, schema, table_id=f"t-own-{ds.name}", progress=False)
        try:
            assert table.verification is not None and table.verification.equal, ds.name
            for q in ds.queries:
                run = table.run(q)
                assert run.result.agrees, (ds.name, q.name, run.figures())
        finally:
            table.drop()


def test_every_query_form_and_its_answer():
    g = wb.from_csv(
        F / "grunfeld.csv",
        entity="firm",
        time="year",
        measures=["invest", "value"],
        queries=[
            "gm: firm=General Motors from 1935 to 1940",
            "firm=IBM at 1950-01-01",
            "all at 1940-01-01",
            "total: sum invest for firm=IBM over 5 years",
            "everything",
            "latest 2 per firm",
        ],
    )
    gm, ibm, all40, total, every, latest = g.queries
    # yearly rows 1935..1939 fall in [1935, 1940): 5 events
    assert gm.kind == "range" and len(gm.answer(g.frame, g.time)) == 5
    assert ibm.kind == "point" and len(ibm.answer(g.frame, g.time)) == 1
    # the file has 11 firms, each with a 1940 row
    assert all40.kind == "slice" and len(all40.answer(g.frame, g.time)) == 11
    assert total.aggregate == "sum:invest" and total.measures == ("invest",)
    assert every.kind == "scan"
    # 'per firm' is costed on the busiest firm; all have 20 years, so the first in order
    assert latest.limit == 2 and latest.entity == {"firm": "American Steel"}
    assert "gm: firm=General Motors from 1935 to 1940  [range]" in repr(g.queries)
    for bad, words in [
        ("latest per firm", r"latest N per COLUMN"),
        ("firm=IBM over 3 fortnights", r"'3 fortnights' is not a duration"),
        ("mean invst for firm=IBM over 1 year", r"'invst' is not a measure.*'invest'"),
        ("firm=IBM from 1950 to 1940", r"'to'.*is not after 'from'"),
        ("show me IBM", r"not a form the workbench reads.*latest 1 per sensor"),
    ]:
        with pytest.raises(DatasetError, match=words):
            with_queries(g, [bad])


def test_parquet_reads_only_named_columns_with_a_progress_bar(tmp_path, capsys):
    df = pd.read_csv(F / "grunfeld.csv")
    p = tmp_path / "grunfeld.parquet"
    df.to_parquet(p, row_group_size=50)  # 220 rows -> 5 row groups
    ds = wb.from_parquet(p, entity="firm", time="year", measures="invest", attributes=[])
    assert len(ds) == 220 and ds.columns == ["firm", "year", "invest"]
    assert ds.frame["year"].min() == pd.Timestamp("1935-01-01", tz="UTC")
    assert "220/220" in capsys.readouterr().err  # tqdm counted every event read
    with pytest.raises(DatasetError, match="as Parquet"):
        wb.from_parquet(F / "co2.csv", time="date", measures="co2")
    # a dictionary-encoded firm (pandas category) and a firm written as the index are columns
    # like any other: all 220 events, and entity_first round-trips them
    df.assign(firm=df["firm"].astype("category")).to_parquet(p)
    cat = wb.from_parquet(p, entity="firm", time="year", measures="invest", progress=False)
    s = wb.preset(cat, "entity_first")
    pd.testing.assert_frame_equal(s.from_cells(s.to_cells(cat)), cat.canonical())
    df.set_index("firm").to_parquet(p)
    idx = wb.from_parquet(p, entity="firm", time="year", measures="invest", progress=False)
    assert len(idx) == 220 and idx.n_entities() == 11


def test_sampling_keeps_whole_series_and_says_so(tmp_path):
    import zlib

    firms = pd.read_csv(F / "grunfeld.csv")["firm"].unique()
    # the rule stated in the note: a firm is kept when crc32(name) / 2**32 < 0.5
    want = sorted(f for f in firms if zlib.crc32(f.encode()) / 2**32 < 0.5)
    assert 0 < len(want) < len(firms)  # the sample is a real subset of the 11 firms
    ds = wb.from_csv(F / "grunfeld.csv", entity="firm", time="year", measures="invest", sample=0.5)
    assert sorted(ds.frame["firm"].unique()) == want
    assert len(ds) == 20 * len(want)  # each kept firm whole: 20 years, 1935..1954
    assert any(n.startswith("sampled:") and "of 220 events" in n for n in ds.notes)
    p = tmp_path / "g.parquet"
    pd.read_csv(F / "grunfeld.csv").to_parquet(p, row_group_size=100)
    pq_ds = wb.from_parquet(p, entity="firm", time="year", measures="invest", sample=0.5)
    assert sorted(pq_ds.frame["firm"].unique()) == want  # same series from either file
    with pytest.raises(DatasetError, match=r"sample=2.*0 < .*<= 1"):
        wb.from_csv(F / "grunfeld.csv", entity="firm", time="year", measures="invest", sample=2)


def test_numeric_and_day_month_times_refused_naming_column_value_and_fix(tmp_path):
    p = tmp_path / "t.csv"
    # 5000 and 90000 are neither YYYYMMDD, years (1000..2999) nor one epoch band: the message
    # names the column, the range and every unit it could be
    p.write_text("id,t,v\nA,5000,1\nA,90000,2\n")
    with pytest.raises(
        DatasetError,
        match=r"'t' holds numbers.*5000 to 90000.*told apart.*time_unit=",
    ):
        wb.from_csv(p, entity="id", time="t", measures="v")
    # ... and the stated unit reads them: 5000 s after the epoch = 1970-01-01T01:23:20Z
    ds = wb.from_csv(p, entity="id", time="t", measures="v", time_unit="s")
    assert ds.frame["t"].iloc[0] == pd.Timestamp("1970-01-01T01:23:20", tz="UTC")
    # 20240231: an 8-digit date that does not exist (31 February), on the file's line 3
    p.write_text("id,t,v\nA,20240101,1\nA,20240231,2\n")
    with pytest.raises(DatasetError, match=r"'t': line 3 holds 20240231.*YYYYMMDD"):
        wb.from_csv(p, entity="id", time="t", measures="v", time_unit="date")
    # fractional numbers cannot be dates or years: the message names the first one (line
    # 2: 1.5) and the units that fit
    p.write_text("id,t,v\nA,1.5,1\nA,2.5,2\n")
    with pytest.raises(DatasetError, match=r"'t' holds fractional.*\(line 2: 1.5\).*time_unit='s'"):
        wb.from_csv(p, entity="id", time="t", measures="v")
    # a stated unit with a text time names the file line and the value, and the way out
    p.write_text("id,t,v\nA,1704067200,1\nA,2024-01-02,2\n")
    with pytest.raises(
        DatasetError, match=r"time_unit='s' needs numbers.*'t'.*line 3.*'2024-01-02'"
    ):
        wb.from_csv(p, entity="id", time="t", measures="v", time_unit="s")
    # 13/01/2024 is day first, 01/13/2024 month first: one column cannot be both
    p.write_text("id,t,v\nA,13/01/2024,1\nA,01/13/2024,2\n")
    with pytest.raises(
        DatasetError, match=r"'t' mixes.*day-first \('13/01/2024'\).*month-first \('01/13/2024'\)"
    ):
        wb.from_csv(p, entity="id", time="t", measures="v", naive_tz="UTC")
    # one series (no entity) in a file that already has a 'series' column: name it
    p.write_text("series,t,v\nA,2024-01-01T00:00:00Z,1\n")
    with pytest.raises(DatasetError, match=r"already has.*'series'.*entity='series'"):
        wb.from_csv(p, time="t", measures="v")
