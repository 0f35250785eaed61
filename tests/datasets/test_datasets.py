"""The named sample datasets: determinism, shape, physics/market/behaviour sanity, queries, samples.

Guidelines these datasets exist to demonstrate are cited where a check pins the
property a demonstration relies on (e.g. G02 month rows, G16 Heroic points, G23
sequential meter IDs, G31 sub-second FX times).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.datasets import MAX_EVENTS, MIN_EVENTS, SIZES
from workbench.datasets.samples import sample_csv, sample_frame
from workbench.errors import DatasetError

NAMES = [
    "garden_temperature",
    "game_scores",
    "weather_balloons",
    "fx_prices",
    "server_metrics",
    "energy_meters",
]
REPO = Path(__file__).resolve().parents[2]
REQUIRED_QUERIES = {
    "garden_temperature": {"garden_month", "latest_reading"},
    "game_scores": {"corrie_lol_march", "lol_march"},
    "weather_balloons": {"balloon_hour", "latest_reading", "location_minute"},
    "fx_prices": {"usdjpy_moving_averages", "all_pairs_minute", "latest_quote"},
    "server_metrics": {"host_cpu_15min", "site_cpu_dashboard"},
    "energy_meters": {"meter_day", "latest_reading", "all_meters_hour"},
}

_cache: dict[tuple[str, str, int], wb.Dataset] = {}


def load(name: str, size: str = "tiny", seed: int = 0) -> wb.Dataset:
    key = (name, size, seed)
    if key not in _cache:
        _cache[key] = wb.load_dataset(name, size=size, seed=seed)
    return _cache[key]


def test_names() -> None:
    assert wb.dataset_names() == NAMES


# -- determinism -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_same_name_size_seed_gives_byte_identical_frames(name: str) -> None:
    a = wb.load_dataset(name, size="tiny", seed=11)
    b = wb.load_dataset(name, size="tiny", seed=11)
    assert a.frame.to_csv(index=False).encode() == b.frame.to_csv(index=False).encode()
    assert pd.util.hash_pandas_object(a.frame, index=True).equals(
        pd.util.hash_pandas_object(b.frame, index=True)
    )
    assert list(a.frame.dtypes) == list(b.frame.dtypes)
    assert [q.describe() for q in a.queries] == [q.describe() for q in b.queries]
    c = wb.load_dataset(name, size="tiny", seed=12)
    assert not a.frame.equals(c.frame), "another seed must give other data"


@pytest.mark.parametrize("name", NAMES)
def test_workshop_size_is_deterministic_too(name: str) -> None:
    a = load(name, "workshop")
    b = wb.load_dataset(name, size="workshop", seed=0)
    assert (
        pd.util.hash_pandas_object(a.frame).to_numpy().tobytes()
        == pd.util.hash_pandas_object(b.frame).to_numpy().tobytes()
    )


# -- the contract every dataset keeps ----------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", ["tiny", "workshop"])
def test_contract(name: str, size: str) -> None:
    ds = load(name, size)
    f = ds.frame
    assert ds.name == name and ds.size == size and ds.seed == 0
    assert list(f.columns) == ds.columns
    assert ds.time == "time"
    assert isinstance(f["time"].dtype, pd.DatetimeTZDtype) and str(f["time"].dt.tz) == "UTC"
    for m in ds.measures:
        assert pd.api.types.is_numeric_dtype(f[m]) or pd.api.types.is_bool_dtype(f[m]), m
        assert m in ds.units and ds.units[m]
    for e in ds.entity:
        if name == "energy_meters":
            assert f[e].dtype == np.int64
        else:
            assert pd.api.types.is_string_dtype(f[e]), (e, f[e].dtype)
    # sorted by entity then time, one event per entity and time
    assert f.equals(ds.canonical())
    assert not f.duplicated([*ds.entity, "time"]).any()
    assert f.notna().all().all()
    assert ds.dropped_duplicates == 0 and ds.notes == []
    assert ds.description
    assert REQUIRED_QUERIES[name] <= {q.name for q in ds.queries}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", ["tiny", "workshop"])
def test_every_query_finds_data(name: str, size: str) -> None:
    ds = load(name, size)
    for q in ds.queries:
        hit = q.answer(ds.frame, ds.time)
        assert len(hit) >= 1, f"{name}/{size}: query {q.describe()} returns nothing"
        if q.kind == "latest":
            ent = q.matches(ds.frame, ds.time)
            assert hit[ds.time].iloc[0] == ds.frame.loc[ent, ds.time].max()


@pytest.mark.parametrize("name", NAMES)
def test_custom_sizes_keep_every_query_answerable(name: str) -> None:
    variants = [{}] + ([{"freq": "1h"}] if name == "garden_temperature" else [])
    for size in (MIN_EVENTS, 777, 3_333):
        for kw in variants:
            ds = wb.load_dataset(name, size=size, seed=5, **kw)
            assert len(ds) >= 100
            for q in ds.queries:
                assert len(q.answer(ds.frame, ds.time)) >= 1, (name, size, kw, q.name)


def test_sizes_land_where_promised() -> None:
    for name in NAMES:
        tiny, small, workshop = (len(load(name, s)) for s in ("tiny", "small", "workshop"))
        assert 200 <= tiny <= 2_500, (name, tiny)
        assert tiny < small < workshop, name
        assert 20_000 <= workshop <= 100_000, (name, workshop)
    assert SIZES["large"] >= 1_000_000
    large = wb.load_dataset("energy_meters", size="large")
    assert 1_000_000 <= len(large) <= 10_000_000
    custom = wb.load_dataset("energy_meters", size=5_000)
    assert custom.size == "5000" and 4_000 <= len(custom) <= 6_000


@pytest.mark.parametrize(
    "size, words",
    [
        ("huge", ["'huge'", "tiny", "workshop", "large"]),
        ("Workshop", ["Did you mean 'workshop'"]),
        (-5, ["negative"]),
        (MAX_EVENTS + 1, ["over the limit", f"{MAX_EVENTS:,}"]),
        (MIN_EVENTS - 1, ["too few", f"{MIN_EVENTS:,}"]),
        (2.5, ["not a size"]),
        (True, ["not a size"]),
    ],
)
def test_absurd_sizes_are_refused(size: object, words: list[str]) -> None:
    with pytest.raises(DatasetError) as err:
        wb.load_dataset("fx_prices", size=size)  # type: ignore[arg-type]
    for w in words:
        assert w in str(err.value)


def test_unknown_dataset_seed_and_option() -> None:
    with pytest.raises(DatasetError) as err:
        wb.load_dataset("garden_temp")
    msg = str(err.value)
    assert "mean 'garden_temperature'" in msg and all(n in msg for n in NAMES)
    with pytest.raises(DatasetError, match="Known datasets"):
        wb.load_dataset("stock_prices")
    with pytest.raises(DatasetError, match="seed"):
        wb.load_dataset("fx_prices", seed=-1)
    with pytest.raises(DatasetError, match="seed"):
        wb.load_dataset("fx_prices", seed="one")  # type: ignore[arg-type]
    with pytest.raises(DatasetError, match=r"no option 'frq'.*mean 'freq'"):
        wb.load_dataset("garden_temperature", size="tiny", frq="1h")
    with pytest.raises(DatasetError, match="'1D'.*'1h'"):
        wb.load_dataset("garden_temperature", size="tiny", freq="5min")


# -- each dataset behaves like its real counterpart ------------------------------------------------
def test_garden_seasons_days_and_the_papers_month_row() -> None:
    ds = load("garden_temperature", "workshop")
    f = ds.frame
    month = f["time"].dt.month
    assert (
        f.loc[month == 7, "temp_f"].mean() > f.loc[month == 1, "temp_f"].mean() + 10
    )  # seasonal cycle
    assert f["time"].dt.hour.eq(7).all()  # each morning
    veg = ds.query("garden_month").answer(f, "time")
    assert len(veg) == 31
    by_day = dict(zip(veg["time"].dt.day, veg["temp_f"], strict=True))
    assert [by_day[d] for d in (1, 2, 3, 4, 5, 31)] == [
        60.4,
        61.2,
        61.0,
        65.1,
        62.2,
        60.4,
    ]  # G02 paper row
    hourly = wb.load_dataset("garden_temperature", size="tiny", freq="1h")
    h = hourly.frame["time"].dt.hour
    assert set(h.unique()) == set(range(24))
    assert (
        hourly.frame.loc[h == 15, "temp_f"].mean()
        > hourly.frame.loc[h.between(3, 5), "temp_f"].mean() + 8
    )
    assert "freq='1h'" in hourly.description


def test_game_activity_is_skewed_and_the_papers_games_are_there() -> None:
    ds = load("game_scores", "workshop")
    f = ds.frame
    per_player = f.groupby("player").size().sort_values(ascending=False)
    top = per_player.iloc[: max(1, len(per_player) // 10)].sum() / per_player.sum()
    assert top > 0.5, f"top 10% of players play only {top:.0%} of games"
    assert {"Corrie", "Jo", "Sam", "Eriko"} <= set(per_player.index)
    assert f["win"].dtype == bool and 0.35 < f["win"].mean() < 0.65
    assert (f["kda"] >= 0).all()
    corrie = ds.query("corrie_lol_march").answer(f, "time")
    first = corrie[corrie["time"].dt.strftime("%Y%m%d") == "20150301"]
    assert (first["kda"] == 4.25).any() and not first.loc[first["kda"] == 4.25, "win"].iloc[0]
    assert set(f["game"]) >= {"LoL", "Starcraft"}
    # second precision or finer, never two games of one player and title at the same instant
    assert not f.duplicated(["game", "player", "time"]).any()


def test_balloon_physics() -> None:
    ds = load("weather_balloons", "workshop")
    f = ds.frame
    assert np.corrcoef(f["altitude"], f["pressure"])[0, 1] < -0.8
    for _, flight in list(f.groupby("balloon_id"))[:20]:
        # within one flight, pressure falls whenever altitude rises (barometric formula)
        assert flight["altitude"].rank().corr(flight["pressure"].rank()) < -0.99  # Spearman
        assert (
            flight["time"].diff().dropna() == pd.Timedelta(minutes=1)
        ).all()  # one reading a minute
    trop = f[(f["altitude"] > 1_000) & (f["altitude"] < 10_000)]
    slope = np.polyfit(trop["altitude"], trop["temperature"], 1)[0] * 1000
    assert -7.5 < slope < -5.0, f"lapse rate {slope:.2f} K/km"
    near_ground = f.loc[f["altitude"] < 500, "pressure"]
    assert near_ground.between(90_000, 106_000).all()
    mid = f.loc[f["altitude"].between(5_400, 5_600), "pressure"]
    assert mid.between(45_000, 56_000).all()  # ~half at 5.5 km
    assert f["humidity"].between(0, 100).all()
    assert f.loc[f["altitude"] > 20_000, "humidity"].mean() < 5
    assert f["location"].str.fullmatch(r"[a-z]+-[a-z]+\d").all()  # Cloud region names
    assert "us-west2" in set(f["location"])
    assert f["balloon_id"].str.fullmatch(r"b\d{5}").all()


def test_fx_quotes() -> None:
    ds = load("fx_prices", "workshop")
    f = ds.frame
    assert (f["ask"] > f["bid"]).all()
    assert "USD/JPY" in set(f["pair"]) and f["pair"].nunique() >= 5
    gaps = f.groupby("pair")["time"].diff().dropna().dt.total_seconds()
    assert gaps.median() < 1.0, "quotes arrive in sub-second bursts"
    assert (f["time"].astype("int64") % 1000 != 0).mean() > 0.9, "microsecond precision (G31)"
    assert not f["time"].dt.day_of_week.eq(5).any(), "no quotes on Saturdays"
    jpy = f[f["pair"] == "USD/JPY"].set_index("time")
    assert jpy["bid"].between(100, 140).all()
    spread_pips = (jpy["ask"] - jpy["bid"]) / 0.01
    assert spread_pips.between(0.09, 20).all() and 0.3 < spread_pips.median() < 3
    daily = np.log(jpy["bid"].resample("1D").last().dropna()).diff().dropna()
    assert 0.03 < daily.std() * np.sqrt(260) < 0.25, "annualised volatility"
    q = ds.query("usdjpy_moving_averages")
    assert q.aggregate == "moving_average:5D,10D,30D" and (q.end - q.start) >= pd.Timedelta(days=30)
    span = q.answer(f, "time")["time"]
    assert span.max() - span.min() >= pd.Timedelta(days=30)
    assert set(ds.query("all_pairs_minute").answer(f, "time")["pair"]) == set(f["pair"])


def test_server_metrics_are_heroic_shaped() -> None:
    ds = load("server_metrics", "workshop")
    f = ds.frame
    assert ds.entity == [
        "key",
        "cpu-type",
        "site",
        "system-component",
        "unit",
        "what",
        "host",
        "podname",
    ]
    assert f["host"].nunique() >= 20
    ex = f[(f["host"] == "database.example.com") & (f["what"] == "cpu-idle-percentage")]
    at = dict(zip(ex["time"].astype("int64") // 1000, ex["value"], strict=True))  # ms → value
    assert at[1_300_000_000_000] == 42.0 and at[1_300_001_000_000] == 84.0  # G16 ground truth
    row = ex.iloc[0]
    assert (
        row["key"],
        row["site"],
        row["system-component"],
        row["cpu-type"],
        row["unit"],
        row["podname"],
    ) == ("system", "gew", "cpu", "idle", "%", "pod-example-123-abc")
    assert (f.loc[f["system-component"] == "memory", "cpu-type"] == "").all()  # absent tag
    pct = f.loc[f["unit"] == "%", "value"]
    assert pct.between(0, 100).all()
    steps = f.groupby(ds.entity)["time"].diff().dropna()
    assert (steps == pd.Timedelta(seconds=10)).all()
    for q in ("heroic_point_1", "heroic_point_2"):
        assert len(ds.query(q).answer(f, "time")) == 1


def test_energy_meters_report_every_15_minutes() -> None:
    ds = load("energy_meters", "workshop")
    f = ds.frame
    ids = np.sort(f["meter_id"].unique())
    assert ids[0] == 100_001 and (np.diff(ids) == 1).all()  # sequential (G23)
    steps = f.groupby("meter_id")["time"].diff().dropna()
    assert (steps == pd.Timedelta(minutes=15)).all()  # no gaps
    assert f["time"].dt.minute.isin([0, 15, 30, 45]).all() and f["time"].dt.second.eq(0).all()
    assert f["voltage"].between(207, 253).all() and abs(f["voltage"].mean() - 230) < 3
    assert (f["kwh"] > 0).all()
    hour = f["time"].dt.hour
    assert f.loc[hour.between(18, 20), "kwh"].mean() > 1.5 * f.loc[hour.between(1, 4), "kwh"].mean()
    assert f["meter_id"].nunique() >= 20


def test_repr_html_shows_shape_span_entities_and_queries() -> None:
    ds = load("fx_prices")
    page = ds._repr_html_()
    assert f"{len(ds):,} events" in page and "USD/JPY" in page and "usdjpy_moving_averages" in page
    assert "bid (quote currency)" in page and "2015-03" in page


# -- the committed samples and data cards ------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_committed_sample_equals_todays_generator(name: str) -> None:
    path = REPO / "datasets" / f"{name}.csv"
    assert path.read_text(encoding="utf-8") == sample_csv(name), (
        f"{path} is stale: run python datasets/regenerate.py"
    )
    assert 100 <= len(sample_frame(name)) <= 500


@pytest.mark.parametrize("name", NAMES)
def test_data_card_names_every_column_unit_and_query(name: str) -> None:
    card = (REPO / "datasets" / f"{name}.md").read_text(encoding="utf-8")
    ds = load(name)
    for col in ds.columns:
        assert f"`{col}`" in card, f"{name}.md does not describe column {col}"
    for unit in ds.units.values():
        assert unit in card, f"{name}.md does not give unit {unit}"
    for q in ds.queries:
        assert f"`{q.name}`" in card, f"{name}.md does not describe query {q.name}"
    assert "G0" in card or "G1" in card or "G2" in card or "G3" in card


@pytest.mark.parametrize("name", NAMES)
def test_committed_sample_loads_back_through_from_csv(name: str) -> None:
    ds = load(name)
    dtype = {"meter_id": "int64"} if name == "energy_meters" else None
    kwargs = {"dtype": dtype} if dtype else {}
    back = wb.from_csv(
        REPO / "datasets" / f"{name}.csv",
        entity=ds.entity,
        time=ds.time,
        measures=ds.measures,
        units=ds.units,
        empty_ok=[
            c for c in ds.entity if c in ("cpu-type", "site", "system-component", "unit", "what")
        ],
        **kwargs,
    )
    expected = sample_frame(name)
    pd.testing.assert_frame_equal(back.frame, expected, check_dtype=False)
    assert back.notes == []


def test_query_intents_are_checked_when_made():
    from workbench.errors import DatasetError

    with pytest.raises(DatasetError, match="kind 'lastest'.*range, latest"):
        wb.QueryIntent("q", "lastest", "typo")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(DatasetError, match="limit .*whole number"):
            wb.QueryIntent("q", "latest", "newest", entity={"pair": "USD/JPY"}, limit=bad)
    with pytest.raises(DatasetError, match="start='yesterday'.*not a time"):
        wb.QueryIntent("q", "range", "r", start="yesterday")
