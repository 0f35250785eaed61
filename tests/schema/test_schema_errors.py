"""Bad schemas and bad data get clear errors naming the problem."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.cells import CellFrame
from workbench.datasets.model import Dataset
from workbench.errors import CollisionError, LimitError, SchemaError
from workbench.schema import (
    Family,
    Field,
    Literal,
    NewColumns,
    RowKey,
    Salt,
    Schema,
    Tall,
    Timestamp,
    check_limits,
    pattern_names,
    preset,
)


def _ds(
    players=("Corrie", "Jo"), times=("2015-03-01 12:00:00.100", "2015-03-01 12:00:00.200")
) -> Dataset:
    df = pd.DataFrame(
        {
            "player": pd.Series(players, dtype="str"),
            "time": pd.to_datetime(list(times), utc=True).astype("datetime64[us, UTC]"),
            "score": np.arange(len(players), dtype=np.float64),
        }
    )
    return Dataset(name="t", frame=df, entity=["player"], time="time", measures=["score"])


def test_unknown_column_suggests_the_closest():
    schema = Schema("s", RowKey((Field("playr"), Timestamp("ms"))))
    with pytest.raises(SchemaError, match=r"Unknown column 'playr'.*mean 'player'"):
        schema.to_cells(_ds())


def test_unknown_column_with_no_close_name_lists_the_columns_and_guesses_none():
    schema = Schema("s", RowKey((Field("zzz"), Timestamp("ms"))))
    with pytest.raises(SchemaError, match=r"the dataset has \['player', 'time', 'score'\]\.$"):
        schema.to_cells(_ds())


def test_salt_needs_at_least_one_bucket():
    with pytest.raises(SchemaError, match="n >= 1"):
        Salt(0)


def test_precision_that_collides_lists_examples():
    ds = _ds(players=("Corrie", "Corrie"))
    schema = Schema("s", RowKey((Field("player"), Timestamp("second"))))
    with pytest.raises(CollisionError) as err:
        schema.to_cells(ds)
    msg = str(err.value)
    assert (
        "2 events collide" in msg
        and "Corrie#20150301120000" in msg
        and "12:00:00.1" in msg
        and "12:00:00.2" in msg
    )


def test_sub_millisecond_times_need_microsecond_keys():
    ds = _ds(times=("2015-03-01 12:00:00.000100", "2015-03-01 12:00:00.000200"), players=("A", "B"))
    with pytest.raises(SchemaError, match="sub-millisecond"):
        Schema("s", RowKey((Field("player"), Timestamp("ms")))).to_cells(ds)
    cells = Schema("s", RowKey((Field("player"), Timestamp("us")))).to_cells(ds)
    assert cells.frame["row_key"].str.endswith(("000100", "000200")).all()


def test_key_over_4_kib_names_the_limit():
    ds = _ds(players=("x" * 5000, "Jo"))
    with pytest.raises(LimitError, match="4 KiB"):
        Schema("s", RowKey((Field("player"), Timestamp("ms")))).to_cells(ds)


def test_qualifier_over_16_kib_names_the_row():
    ds = _ds()
    ds.frame["score"] = [1.0, 2.0]
    big = pd.DataFrame(
        {
            "table": ["main"],
            "row_key": ["r1"],
            "family": ["m"],
            "qualifier": ["q" * 17000],
            "timestamp_us": np.array([0], dtype=np.int64),
            "value": [b""],
        }
    )
    with pytest.raises(LimitError, match=r"16 KiB.*'r1'|'r1'.*16 KiB"):
        check_limits(CellFrame(big))


def test_delimiter_inside_a_value_is_refused():
    ds = _ds(players=("Cor#rie", "Jo"))
    with pytest.raises(SchemaError, match="delimiter '#'.*Cor#rie"):
        Schema("s", RowKey((Field("player"), Timestamp("ms")))).to_cells(ds)


def test_layout_constraints_are_explained():
    with pytest.raises(SchemaError, match="Metric segment"):
        Schema("s", RowKey((Field("player"), Timestamp("ms"))), NewColumns()).to_cells(_ds())
    with pytest.raises(SchemaError, match="precision"):
        Timestamp("fortnight")
    with pytest.raises(SchemaError, match="%q"):
        Timestamp("day", "%Y%q")


def test_unknown_preset_and_dataset_names():
    with pytest.raises(SchemaError, match="known:.*game_player_time"):
        preset("game_scores", "nope")
    with pytest.raises(SchemaError, match="mean 'fx_prices'"):
        pattern_names("fx_price")
    with pytest.raises(SchemaError, match="accepts"):
        preset("game_scores", "salted", buckets=3)


def test_from_cells_needs_the_dataset_shape():
    ds = _ds()
    schema = Schema(
        "s", RowKey((Literal("G"), Field("player"), Timestamp("ms"))), Tall(Family("m"))
    )
    cells = schema.to_cells(ds)
    bare = CellFrame(cells.frame.copy())
    bare.frame.attrs.clear()
    with pytest.raises(SchemaError, match="bind"):
        schema.from_cells(bare)
    pd.testing.assert_frame_equal(schema.bind(ds).from_cells(bare), ds.canonical())


def test_gc_rules_refuse_values_that_would_collect_everything():
    from workbench.schema import max_age, max_versions

    # numbers are seconds, text needs a unit; nothing below one second (a 0 s rule deletes every cell)
    assert max_age(86400.0).cbt() == max_age(np.int64(86400)).cbt() == "maxage=1d"
    for bad, words in [
        ("30", "has no unit"),
        ("500ms", "whole seconds"),
        ("-5d", "at least 1 second"),
        (0, "at least 1 second"),
        ("forever", "is not a duration"),
        (True, "whole number"),
        (1.5, "whole number"),
    ]:
        with pytest.raises(SchemaError, match=words):
            max_age(bad)
    for bad in (0, 1.5, "2", True):
        with pytest.raises(SchemaError, match="max-versions|whole number"):
            max_versions(bad)
    assert max_versions(3.0).n == 3


def test_family_names_follow_bigtables_rule():
    for bad in ("", "my fam", "ü", "x" * 65, None):
        with pytest.raises(SchemaError, match="Family name"):
            Family(bad)
    assert Family("raw-1.v_2").name == "raw-1.v_2"
    with pytest.raises(SchemaError, match="gc must be"):
        Family("m", gc="maxage=90d")
    with pytest.raises(SchemaError, match="aggregate .*None.*'sum',.*'min',.*'max',.*'hll'"):
        Family("m", aggregate="avg")


def test_delimiters_that_could_not_split_the_key_back_are_refused():
    with pytest.raises(SchemaError, match="non-empty string"):
        RowKey((Field("player"), Timestamp("ms")), delimiter="")
    # an ISO time format writes '-' and ':'; digits write '0'…'9': such delimiters are ambiguous
    for d, fmt in (("-", "%Y-%m-%dT%H:%M:%S"), (":", "%Y-%m-%dT%H:%M:%S"), ("0", None)):
        with pytest.raises(SchemaError, match=f"delimiter {d!r} can occur inside"):
            RowKey((Field("player"), Timestamp("second", fmt)), delimiter=d)
    # the same format with a delimiter it never writes is fine and round trips
    schema = Schema(
        "iso", RowKey((Field("player"), Timestamp("ms", "%Y-%m-%dT%H:%M:%S")), delimiter="#")
    )
    ds = _ds()
    pd.testing.assert_frame_equal(schema.from_cells(schema.to_cells(ds)), ds.canonical())
    with pytest.raises(SchemaError, match="sequence of segments"):
        RowKey("player")
    with pytest.raises(SchemaError, match="key segments"):
        RowKey(["player"])


def test_accept_loss_must_be_a_real_yes():
    with pytest.raises(SchemaError, match="accept_loss .*True or False"):
        Schema("s", RowKey((Field("player"), Timestamp("second")))).to_cells(
            _ds(), accept_loss="no"
        )
