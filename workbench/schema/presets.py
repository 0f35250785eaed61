"""The gallery: named schema designs per dataset, good ones and instructive anti-patterns.

``pattern_names(dataset)`` lists the recommended design first. ``preset(dataset,
pattern, **params)`` builds one; each preset is a small function whose keyword
parameters (salt buckets, precision, names…) can be overridden.

Why one module: the gallery is read side by side, every dataset's designs (good and
instructive) a few lines each in one place; splitting it by dataset would scatter that comparison.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace

from ..errors import SchemaError
from .families import Family, max_age, max_versions, union
from .keys import RowKey, heroic_key
from .layouts import NewCells, NewColumns, Serialized, Tall
from .schema import Aggregates, Schema, Table
from .segments import Field, Hashed, Int, Literal, Metric, PaddedInt, ReversedId, Salt
from .shape import Shape
from .time_segments import ReversedTimestamp, TimeBucket, Timestamp
from .wide_layouts import HeroicOffsets, Wide


class _Shapes(Mapping[str, Shape]):
    """Each named dataset's columns and dtypes, derived from its generator (a tiny sample, made
    once on first use) so the presets can never drift from the data they are built for."""

    def __init__(self) -> None:
        self._cache: dict[str, Shape] = {}

    def __getitem__(self, name: str) -> Shape:
        if name not in self._cache:
            from ..datasets.registry import dataset_names, load_dataset

            if name not in dataset_names():
                raise KeyError(name)
            # columns and dtypes only: the value sets of a sample are not the user's data (a
            # plan lists known values only once ``schema.bind(ds)`` has seen the real ones)
            shape = Shape.of(load_dataset(name, size="tiny", seed=0))
            self._cache[name] = replace(shape, values=(), series=None)
        return self._cache[name]

    def __iter__(self) -> Iterator[str]:
        from ..datasets.registry import dataset_names

        return iter(dataset_names())

    def __len__(self) -> int:
        from ..datasets.registry import dataset_names

        return len(dataset_names())


SHAPES: Mapping[str, Shape] = _Shapes()


_REGISTRY: dict[str, dict[str, Callable[..., Schema]]] = {name: {} for name in SHAPES}


def _preset(dataset: str, name: str):
    def deco(fn: Callable[..., Schema]) -> Callable[..., Schema]:
        _REGISTRY[dataset][name] = fn
        return fn

    return deco


def _key(*segments, delimiter: str = "#") -> RowKey:
    return RowKey(tuple(segments), delimiter)


# ----------------------------------------------------------------------------- garden


@_preset("garden_temperature", "tall")
def _garden_tall(precision: str = "second", family: str = "t", qualifier: str = "TEMP") -> Schema:
    return Schema(
        "tall",
        _key(Field("garden"), Timestamp(precision)),
        Tall(Family(family), {"temp_f": qualifier}),
        description="One reading per row, garden first: tall and narrow (G02), no hotspot (G07).",
        guidelines=("G02", "G07", "G15"),
    )


@_preset("garden_temperature", "month_rows")
def _garden_month(family: str = "TEMP", pad: int = 0) -> Schema:
    return Schema(
        "month_rows",
        _key(Field("garden"), TimeBucket("month")),
        Wide("day", {"temp_f": family}, pad=pad),
        description="The paper's VEGGIEGARDEN#20150301 row: a month of daily readings, qualifier = day "
        "of month. Bounded, so acceptable when whole months are read (G02). Collides if "
        "there is more than one reading a day.",
        guidelines=("G02", "G19"),
    )


@_preset("garden_temperature", "daily_rows")
def _garden_daily(qualifier: str = "TEMP") -> Schema:
    return Schema(
        "daily_rows",
        _key(Field("garden"), Timestamp("day")),
        Tall(Family("t"), {"temp_f": qualifier}),
        description="One row per garden per day (the paper's tall table); collides for hourly data.",
        guidelines=("G02",),
    )


@_preset("garden_temperature", "timestamp_first")
def _garden_ts_first() -> Schema:
    return Schema(
        "timestamp_first",
        _key(Timestamp("second"), Field("garden")),
        Tall(Family("t"), {"temp_f": "TEMP"}),
        description="Anti-pattern: the timestamp leads the key, so every write hits the last tablet (G06).",
        guidelines=("G06",),
    )


@_preset("garden_temperature", "unbounded_row")
def _garden_unbounded() -> Schema:
    return Schema(
        "unbounded_row",
        _key(Field("garden")),
        NewCells(Family("t"), {"temp_f": "TEMP"}),
        description="Anti-pattern: one row per garden, each reading a new version of TEMP; the row "
        "grows without bound (G24, G03, G10).",
        guidelines=("G24", "G03", "G10"),
    )


@_preset("garden_temperature", "serialized_json")
def _garden_json() -> Schema:
    return Schema(
        "serialized_json",
        _key(Field("garden"), Timestamp("second")),
        Serialized("json", Family("t")),
        description="One JSON cell per reading (G14).",
        guidelines=("G14",),
    )


# ----------------------------------------------------------------------------- games


_GAME = {"win": "WIN", "kda": "KDA", "player": "PLAYER"}


@_preset("game_scores", "game_player_time")
def _game_player(precision: str = "ms", family: str = "GAME") -> Schema:
    return Schema(
        "game_player_time",
        _key(Field("game"), Field("player"), Timestamp(precision)),
        Tall(Family(family), _GAME),
        description="The paper's LoL#Corrie#… key: 'Corrie's LoL games in March' is one range (G04, G07).",
        guidelines=("G04", "G07", "G15"),
    )


@_preset("game_scores", "two_tables")
def _game_two_tables(precision: str = "ms") -> Schema:
    return Schema(
        "two_tables",
        _key(Field("game"), Field("player"), Timestamp(precision)),
        Tall(Family("GAME"), _GAME),
        tables=(Table("by_game", _key(Field("game"), Timestamp(precision), Field("player"))),),
        description="Two tables, each keyed for one query: by player (main) and by game+time "
        "(by_game). Each query reads a range; writes double (G05).",
        guidelines=("G05", "G04"),
    )


@_preset("game_scores", "game_time_player")
def _game_time(precision: str = "ms") -> Schema:
    return Schema(
        "game_time_player",
        _key(Field("game"), Timestamp(precision), Field("player")),
        Tall(Family("GAME"), _GAME),
        description="LoL#20150301…#player: 'all LoL games in March' is a range, but Corrie's games need "
        "a filtered scan of all LoL games (query and filter, G05).",
        guidelines=("G04", "G05"),
    )


@_preset("game_scores", "timestamp_first")
def _game_ts_first(precision: str = "ms") -> Schema:
    return Schema(
        "timestamp_first",
        _key(Timestamp(precision), Field("game"), Field("player")),
        Tall(Family("GAME"), _GAME),
        description="Anti-pattern: time leads the key, every write lands on one tablet (G06).",
        guidelines=("G06",),
    )


@_preset("game_scores", "hashed_player")
def _game_hashed(length: int = 8) -> Schema:
    return Schema(
        "hashed_player",
        _key(Field("game"), Hashed("player", length), Timestamp("ms")),
        Tall(Family("GAME"), _GAME),
        description="Anti-pattern: a hash of the player spreads writes but is unreadable and the "
        "player must ride along in a cell (G22).",
        guidelines=("G22",),
    )


@_preset("game_scores", "salted")
def _game_salted(n: int = 4) -> Schema:
    return Schema(
        "salted",
        _key(Salt(n, ("time",)), Field("game"), Field("player"), Timestamp("ms")),
        Tall(Family("GAME"), _GAME),
        description=f"crc32(time) mod {n} first: spreads writes, but every range read needs {n} scans (G08).",
        guidelines=("G08",),
    )


@_preset("game_scores", "serialized_protobuf")
def _game_pb() -> Schema:
    return Schema(
        "serialized_protobuf",
        _key(Field("game"), Field("player"), Timestamp("ms")),
        Serialized("protobuf", Family("GAME")),
        description="One protobuf cell per game (G14, G28).",
        guidelines=("G14", "G28"),
    )


# ----------------------------------------------------------------------------- balloons


_BALLOON_SHORT = {"pressure": "p", "temperature": "t", "humidity": "h", "altitude": "a"}


@_preset("weather_balloons", "single_timestamp")
def _balloon_tall(precision: str = "second", family: str = "m") -> Schema:
    return Schema(
        "single_timestamp",
        _key(Field("location"), Field("balloon_id"), Timestamp(precision)),
        Tall(Family(family), _BALLOON_SHORT),
        description="A row per reading, a cell per measure with short names (G15, G01).",
        guidelines=("G15", "G01", "G07"),
    )


@_preset("weather_balloons", "long_names")
def _balloon_long() -> Schema:
    return Schema(
        "long_names",
        _key(Field("location"), Field("balloon_id"), Timestamp("second")),
        Tall(Family("measurements")),
        description="The same rows with long family/qualifier names: more bytes per cell (G01).",
        guidelines=("G01",),
    )


@_preset("weather_balloons", "serialized_json")
def _balloon_json() -> Schema:
    return Schema(
        "serialized_json",
        _key(Field("location"), Field("balloon_id"), Timestamp("second")),
        Serialized("json", Family("m")),
        description="One JSON cell per reading: compact, but no per-measure reads (G14).",
        guidelines=("G14", "G28"),
    )


@_preset("weather_balloons", "serialized_protobuf")
def _balloon_pb() -> Schema:
    return Schema(
        "serialized_protobuf",
        _key(Field("location"), Field("balloon_id"), Timestamp("second")),
        Serialized("protobuf", Family("m")),
        description="One protobuf cell per reading: the most compact single-timestamp form (G14).",
        guidelines=("G14", "G28"),
    )


@_preset("weather_balloons", "bucket_new_columns")
def _balloon_columns(bucket: str = "week") -> Schema:
    return Schema(
        "bucket_new_columns",
        _key(
            Field("location"),
            Field("balloon_id"),
            Metric(("pressure", "temperature", "humidity", "altitude")),
            TimeBucket(bucket),
        ),
        NewColumns(Family("m")),
        description=f"A row per balloon, measure and {bucket}; each reading is a new column whose "
        "qualifier is the value (G12).",
        guidelines=("G12", "G19"),
    )


@_preset("weather_balloons", "bucket_new_cells")
def _balloon_cells(bucket: str = "week", retention: str = "90D") -> Schema:
    return Schema(
        "bucket_new_cells",
        _key(TimeBucket(bucket), Field("location"), Field("balloon_id")),
        NewCells(Family("measurements", gc=max_age(retention)), ()),
        description=f"The patterns page's {bucket}#location#balloon rows: each reading adds a cell version "
        "to each measure column; needs a GC rule (G13). The week leads the key (G06).",
        guidelines=("G13", "G06"),
    )


@_preset("weather_balloons", "tall_per_metric")
def _balloon_per_metric() -> Schema:
    return Schema(
        "tall_per_metric",
        _key(
            Field("location"),
            Field("balloon_id"),
            Metric(("pressure", "temperature", "humidity", "altitude")),
            Timestamp("second"),
        ),
        Tall(Family("m")),
        description="A row per measure per reading (the blog's tall schema): reading all measures "
        "needs one range per measure (G11).",
        guidelines=("G11", "G02"),
    )


@_preset("weather_balloons", "reversed_timestamp")
def _balloon_reversed() -> Schema:
    return Schema(
        "reversed_timestamp",
        _key(Field("location"), Field("balloon_id"), ReversedTimestamp("s")),
        Tall(Family("m"), _BALLOON_SHORT),
        description="Newest first within a balloon: 'latest reading' is a one-row read (G09).",
        guidelines=("G09",),
    )


@_preset("weather_balloons", "timestamp_first")
def _balloon_ts_first() -> Schema:
    return Schema(
        "timestamp_first",
        _key(Timestamp("second"), Field("location"), Field("balloon_id")),
        Tall(Family("m"), _BALLOON_SHORT),
        description="Anti-pattern: time leads the key (G06).",
        guidelines=("G06",),
    )


# ----------------------------------------------------------------------------- fx


@_preset("fx_prices", "pair_microseconds")
def _fx_us() -> Schema:
    return Schema(
        "pair_microseconds",
        _key(Field("pair"), Timestamp("us")),
        Tall(Family("q"), {"bid": "b", "ask": "a"}),
        description="Pair first, microsecond time: sub-second quotes never collide (G31, G07).",
        guidelines=("G31", "G07", "G15"),
    )


@_preset("fx_prices", "second_precision")
def _fx_seconds() -> Schema:
    return Schema(
        "second_precision",
        _key(Field("pair"), Timestamp("second")),
        Tall(Family("q"), {"bid": "b", "ask": "a"}),
        description="Anti-pattern: quotes in the same second share a row and overwrite each other "
        "(to_cells refuses unless accept_loss=True, G31).",
        guidelines=("G31",),
    )


@_preset("fx_prices", "reversed_timestamp")
def _fx_reversed() -> Schema:
    return Schema(
        "reversed_timestamp",
        _key(Field("pair"), ReversedTimestamp("us", 9_999_999_999_999_999, 16)),
        Tall(Family("q"), {"bid": "b", "ask": "a"}),
        description="Newest quote first (the blog's high-frequency key): latest quote is one row; "
        "time ranges are reversed (G09).",
        guidelines=("G09", "G31"),
    )


@_preset("fx_prices", "timestamp_first")
def _fx_ts_first() -> Schema:
    return Schema(
        "timestamp_first",
        _key(Timestamp("us"), Field("pair")),
        Tall(Family("q"), {"bid": "b", "ask": "a"}),
        description="Anti-pattern: time first (G06); 'all pairs at one minute' is a range, though.",
        guidelines=("G06",),
    )


@_preset("fx_prices", "salted")
def _fx_salted(n: int = 4) -> Schema:
    return Schema(
        "salted",
        _key(Salt(n, ("time",)), Timestamp("us"), Field("pair")),
        Tall(Family("q"), {"bid": "b", "ask": "a"}),
        description=f"Time-first key salted into {n} buckets: writes spread, reads need {n} scans (G08).",
        guidelines=("G08", "G06"),
    )


@_preset("fx_prices", "serialized_protobuf")
def _fx_pb() -> Schema:
    return Schema(
        "serialized_protobuf",
        _key(Field("pair"), Timestamp("us")),
        Serialized("protobuf", Family("q")),
        description="One protobuf cell per quote (G14).",
        guidelines=("G14",),
    )


# ----------------------------------------------------------------------------- server metrics

_TAGS = ("cpu-type", "site", "system-component", "unit", "what")


@_preset("server_metrics", "heroic")
def _heroic(bits: int = 32, family: str = "p") -> Schema:
    return Schema(
        "heroic",
        heroic_key("key", _TAGS, ("host", "podname"), bits),
        HeroicOffsets(families_={"value": Family(family)}, bits=bits),
        description="Heroic's schema: sorted tags and a 2^32 ms base in the key, the offset in the "
        "qualifier; ~50 days of a series per row (G16).",
        guidelines=("G16", "G02"),
    )


@_preset("server_metrics", "host_metric_time")
def _host_time() -> Schema:
    return Schema(
        "host_metric_time",
        _key(Field("host"), Field("what"), Timestamp("ms", "epoch_ms")),
        Tall(Family("m")),
        description="machine#metric#epoch-ms rows (the best-practices page's machine_4223421#1425330757685); "
        "the other tags ride along as cells.",
        guidelines=("G15", "G07"),
    )


@_preset("server_metrics", "one_row_per_series")
def _series_row() -> Schema:
    return Schema(
        "one_row_per_series",
        _key(Field("host"), Field("podname"), Field("what")),
        NewCells(Family("m", gc=max_versions(1000000))),
        description="Anti-pattern: one row per series updated for every reading (4c410523#memusage, G24).",
        guidelines=("G24", "G13"),
    )


@_preset("server_metrics", "timestamp_first")
def _metrics_ts_first() -> Schema:
    return Schema(
        "timestamp_first",
        _key(Timestamp("ms", "epoch_ms"), Field("host"), Field("what")),
        Tall(Family("m")),
        description="Anti-pattern: the time leads (G06).",
        guidelines=("G06",),
    )


# ----------------------------------------------------------------------------- energy


_AGG = Aggregates(
    "hour",
    "hourly",
    "agg",
    ("count", "min", "max", "sum", "mean"),
    Family("s", gc=union(max_age("730D"), max_versions(1))),
)


@_preset("energy_meters", "reversed_id_hourly")
def _energy_best(retention: str = "90D") -> Schema:
    return Schema(
        "reversed_id_hourly",
        _key(ReversedId("meter_id"), Timestamp("minute")),
        Tall(Family("r", gc=max_age(retention)), {"kwh": "k", "voltage": "v"}),
        aggregates=_AGG,
        description="Reversed meter IDs spread new meters (G23); hourly summaries under agg#hourly# in "
        "their own family feed dashboards (G29, G30).",
        guidelines=("G23", "G29", "G30"),
    )


@_preset("energy_meters", "sequential_id")
def _energy_seq() -> Schema:
    return Schema(
        "sequential_id",
        _key(PaddedInt("meter_id", 8), Timestamp("minute")),
        Tall(Family("r"), {"kwh": "k", "voltage": "v"}),
        description="Padded sequential IDs: sorted numerically (G21) but new meters cluster (G23).",
        guidelines=("G21", "G23"),
    )


@_preset("energy_meters", "unpadded_id")
def _energy_unpadded() -> Schema:
    return Schema(
        "unpadded_id",
        _key(Int("meter_id"), Timestamp("minute")),
        Tall(Family("r"), {"kwh": "k", "voltage": "v"}),
        description="Anti-pattern: IDs without padding sort as text (99 after 100, G21).",
        guidelines=("G21",),
    )


@_preset("energy_meters", "hourly_aggregates")
def _energy_agg() -> Schema:
    return Schema(
        "hourly_aggregates",
        _key(PaddedInt("meter_id", 8), Timestamp("minute")),
        Tall(Family("r"), {"kwh": "k", "voltage": "v"}),
        aggregates=_AGG,
        description="Raw rows plus agg#hourly# summary rows (G29).",
        guidelines=("G29",),
    )


@_preset("energy_meters", "timestamp_first")
def _energy_ts_first() -> Schema:
    return Schema(
        "timestamp_first",
        _key(Timestamp("minute"), PaddedInt("meter_id", 8)),
        Tall(Family("r"), {"kwh": "k", "voltage": "v"}),
        description="Anti-pattern: time first (G06).",
        guidelines=("G06",),
    )


@_preset("energy_meters", "unbounded_row")
def _energy_unbounded() -> Schema:
    return Schema(
        "unbounded_row",
        _key(PaddedInt("meter_id", 8), Literal("kwh")),
        NewCells(Family("r"), {"kwh": "k", "voltage": "v"}),
        description="Anti-pattern: one row per meter, every reading a new version (G24).",
        guidelines=("G24", "G03"),
    )


# ----------------------------------------------------------------------------- API


def _datasets() -> list[str]:
    return list(_REGISTRY)


def _check_dataset(dataset: str) -> dict[str, Callable[..., Schema]]:
    if dataset not in _REGISTRY:
        close = difflib.get_close_matches(dataset, _datasets(), n=1)
        raise SchemaError(
            f"No presets for dataset {dataset!r}; known datasets: {', '.join(_datasets())}."
            + (f" Did you mean {close[0]!r}?" if close else "")
        )
    return _REGISTRY[dataset]


def pattern_names(dataset: str) -> list[str]:
    """The preset names for a dataset, the recommended design first."""
    return list(_check_dataset(dataset))


def preset(dataset: str, pattern: str, **params) -> Schema:
    """Build a named preset (parameters override the preset's defaults, e.g. ``n=8`` salt buckets)."""
    table = _check_dataset(dataset)
    if pattern not in table:
        close = difflib.get_close_matches(pattern, list(table), n=1)
        raise SchemaError(
            f"Unknown pattern {pattern!r} for {dataset}; known: {', '.join(table)}."
            + (f" Did you mean {close[0]!r}?" if close else "")
        )
    fn = table[pattern]
    accepted = list(inspect.signature(fn).parameters)
    bad = [p for p in params if p not in accepted]
    if bad:
        raise SchemaError(
            f"Preset {dataset}/{pattern} has no parameter {bad[0]!r}; it accepts {accepted or 'none'}."
        )
    schema = fn(**params)
    from dataclasses import replace

    return replace(schema, dataset=dataset, shape=SHAPES[dataset])


def presets(dataset: str) -> dict[str, Schema]:
    """Every preset of a dataset with its default parameters, in gallery order."""
    return {name: preset(dataset, name) for name in pattern_names(dataset)}
