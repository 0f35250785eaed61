"""Reading a row key back into its fields: a key with a field too few or too many for the
template ``{site}#{sensor}#{time}`` is refused, naming the key (never silently misread). And
the key written in DuckDB SQL, segment by segment, as ``render`` writes it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.errors import SchemaError
from workbench.schema import (
    BaseTimestamp,
    Field,
    Hashed,
    Literal,
    Metric,
    PaddedInt,
    ReversedTimestamp,
    RowKey,
    Salt,
    Tags,
    TimeBucket,
    Timestamp,
)
from workbench.schema.segments import RenderContext

KEY = RowKey((Field("site"), Field("sensor"), Timestamp("second")))


def test_a_key_parses_into_its_fields():
    got = KEY.parse(pd.Series(["a#s1#20240101000000"]))
    assert (got["site"].iloc[0], got["sensor"].iloc[0]) == ("a", "s1")


def test_a_key_with_a_field_missing_or_extra_is_refused_by_name():
    # one good key and one without its sensor: the short one is named
    with pytest.raises(SchemaError, match="'b#20240101000000'"):
        KEY.parse(pd.Series(["a#s1#20240101000000", "b#20240101000000"]))
    # every key with one field too many: four parts where the template has three
    with pytest.raises(SchemaError, match="'a#s1#x#20240101000000'"):
        KEY.parse(pd.Series(["a#s1#x#20240101000000"]))


def test_a_key_with_a_part_too_many_is_named_after_a_good_one():
    # a good key read first: the one with the extra part (4 for 3) is named, not the first
    with pytest.raises(SchemaError, match="'a#s1#x#20240101000000'"):
        KEY.parse(pd.Series(["a#s1#20240101000000", "a#s1#x#20240101000000"]))


def test_a_misfit_key_is_named_not_the_first_key_when_tags_vary_the_width():
    # Heroic's tags write their own delimiters, so the parts around them are split from the
    # left (host) and from the right (time); "h2" has no time part: it is the key named (G16)
    good = ["h1#dc=x#20240101000000", "h3#20240101000000"]  # "h3": no tags, still fits
    mid = RowKey((Field("host"), Tags(("dc",)), Timestamp("second")))
    assert mid.parse(pd.Series(good))["host"].tolist() == ["h1", "h3"]
    with pytest.raises(SchemaError, match="'h2'"):
        mid.parse(pd.Series([*good, "h2"]))
    # the tags first: both fixed parts are split from the right
    first = RowKey((Tags(("dc",)), Field("host"), Timestamp("second")))
    assert first.parse(pd.Series(["dc=x#h1#20240101000000"]))["dc"].tolist() == ["x"]
    with pytest.raises(SchemaError, match="'h2'"):
        first.parse(pd.Series(["dc=x#h1#20240101000000", "h2"]))
    # only the fixed part before the tags, and no key has it: the first key is the one named
    with pytest.raises(SchemaError, match="'h9'"):
        mid.parse(pd.Series(["h9", "h8"]))


def test_a_key_of_the_measure_alone_leaves_an_empty_event_row():
    # "memusage": the measure's name is the whole key (one row per measure, its events as
    # versions, G03), so nothing but the measure identifies an event's row
    got = RowKey((Metric(),)).parse(pd.Series(["memusage", "cpu"]))
    assert got["_metric"].tolist() == ["memusage", "cpu"]
    assert got["_event_row"].tolist() == ["", ""]


# -- the key as DuckDB SQL (the engine path's writes, analysis/file_writes.py; G06) --------------

# 2024-03-07 (a Thursday) 05:06:07.890123 UTC: 2024-03-04 00:00 is 1,709,510,400 s after the
# epoch, plus 3 days (259,200 s) and 5 h 6 min 7 s (18,367 s) = 1,709,787,967 s
T_US = 1_709_787_967_890_123
SQL_CASES = [
    (Literal("agg"), "agg"),
    (Field("metric"), "m01"),
    (PaddedInt("n", 6), "000042"),
    (Timestamp("second"), "20240307050607"),
    (Timestamp("ms"), "20240307050607890"),  # the ms digits follow the seconds
    (Timestamp("us"), "20240307050607890123"),
    (TimeBucket("hour"), "2024030705"),
    (TimeBucket("day"), "20240307"),
    (TimeBucket("week"), "20240304"),  # weeks start on Monday
    (TimeBucket("month"), "20240301"),
    (Timestamp("second", "epoch_s"), "1709787967"),
    (Timestamp("ms", "epoch_ms"), "1709787967890"),
    (ReversedTimestamp(), "8290212032"),  # 9,999,999,999 - 1,709,787,967
    # Heroic's base: 1,709,787,967,890 ms less its remainder by 2^32 = 4,294,967,296:
    # 398 × 4,294,967,296 = 1,709,396,983,808 (the remainder 390,984,082 < 2^32)
    (BaseTimestamp(), "1709396983808"),
]


def _sql_texts(sql: str) -> list[str]:
    import duckdb

    frame = pd.DataFrame({"metric": ["m01"], "n": [42], "t": [T_US]})  # noqa: F841 (DuckDB reads it)
    con = duckdb.connect()
    return [r[0] for r in con.execute(f"SELECT {sql} FROM frame").fetchall()]


@pytest.mark.parametrize(("seg", "want"), SQL_CASES, ids=[repr(s) for s, _ in SQL_CASES])
def test_each_segment_writes_its_key_text_in_sql(seg, want):
    """Each segment kind's SQL gives the text written by hand above, the text ``render``
    gives the same event (the in-memory path's key)."""
    cols = {"metric": "metric", "n": "CAST(n AS VARCHAR)"}
    assert _sql_texts(seg.key_sql(cols, "t")) == [want]
    ctx = RenderContext({"metric": pd.Series(["m01"]), "n": pd.Series([42])}, np.array([T_US]), "#")
    assert list(seg.render(ctx)) == [want]


def test_a_key_joins_its_segments_in_sql_and_a_hash_is_not_written():
    key = RowKey((Field("metric"), Literal("x"), Timestamp("ms")))
    cols = {"metric": "metric"}
    assert _sql_texts(key.key_sql(cols, "t")) == ["m01#x#20240307050607890"]
    # texts SQL does not write here: the engine path then replays the sample (and says so)
    for seg in (Hashed("metric"), Salt(4), Metric(("value",))):
        assert seg.key_sql(cols, "t") is None, seg
        assert RowKey((Field("metric"), seg)).key_sql(cols, "t") is None
    # a column the caller gives no text for (a float entity) leaves the key unwritten
    assert RowKey((Field("host"),)).key_sql(cols, "t") is None


def test_heroics_base_floors_an_event_before_1970_as_render_does():
    """1,500 µs before the epoch is ms -2 (floored, not -1); its 2^24 base is the multiple
    of 16,777,216 at or below it: -16,777,216."""
    import duckdb

    seg = BaseTimestamp(24)
    got = duckdb.connect().execute(f"SELECT {seg.key_sql({}, 'CAST(-1500 AS BIGINT)')}").fetchone()
    assert got == ("-16777216",)
    ctx = RenderContext({}, np.array([-1_500]), "#")
    assert list(seg.render(ctx)) == ["-16777216"]
