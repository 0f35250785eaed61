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
    ReversedDomain,
    ReversedId,
    ReversedTimestamp,
    RowKey,
    Salt,
    Tags,
    TimeBucket,
    Timestamp,
)
from workbench.schema.hashing import register_crc32
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
    # Heroic's base: 1,709,787,967,890 ms = 398 × 2^32 (4,294,967,296) + 390,984,082
    (BaseTimestamp(), "1709396983808"),
]


def _sql_texts(sql: str, frame: pd.DataFrame | None = None) -> list[str | None]:
    """``sql`` over ``frame`` (default: one event, metric m01, n 42, at ``T_US``), in order."""
    import duckdb

    if frame is None:
        frame = pd.DataFrame({"metric": ["m01"], "n": [42], "t": [T_US]})
    con = duckdb.connect()
    register_crc32(con)  # a salt's bucket, as the engine path's connection has it
    con.register("frame", frame)
    return [r[0] for r in con.execute(f"SELECT {sql} FROM frame").fetchall()]


def _rendered(seg_or_key, columns: dict, delimiter: str = "#", t_us=None) -> list[str]:
    """``render``'s texts of the events ``columns`` (the in-memory path's key text)."""
    n = len(next(iter(columns.values())))
    t = np.asarray(t_us if t_us is not None else [T_US] * n, dtype=np.int64)
    ctx = RenderContext({c: pd.Series(v) for c, v in columns.items()}, t, delimiter)
    return list(seg_or_key.render(ctx))


@pytest.mark.parametrize(("seg", "want"), SQL_CASES, ids=[repr(s) for s, _ in SQL_CASES])
def test_each_segment_writes_its_key_text_in_sql(seg, want):
    """Each segment kind's SQL gives the text written by hand above, the text ``render``
    gives the same event (the in-memory path's key)."""
    cols = {"metric": "metric", "n": "CAST(n AS VARCHAR)"}
    assert _sql_texts(seg.key_sql(cols, "t")) == [want]
    ctx = RenderContext({"metric": pd.Series(["m01"]), "n": pd.Series([42])}, np.array([T_US]), "#")
    assert list(seg.render(ctx)) == [want]


def test_a_key_joins_its_segments_in_sql_and_leaves_unwritten_what_it_is_not_given():
    key = RowKey((Field("metric"), Literal("x"), Timestamp("ms")))
    cols = {"metric": "metric"}
    assert _sql_texts(key.key_sql(cols, "t")) == ["m01#x#20240307050607890"]
    # a measure's name without the measures (``held``): the engine path then replays the
    # sample (and says so)
    assert Metric(("value",)).key_sql(cols, "t") is None
    assert RowKey((Field("metric"), Metric(("value",)))).key_sql(cols, "t") is None
    # a column the caller gives no text for (a float entity) leaves the key unwritten
    assert RowKey((Field("host"),)).key_sql(cols, "t") is None


# the texts SQL sees: a column's key text is ``trim(column)`` (``file_writes._key_text``), the
# value the loaded events hold once ``from_parquet`` strips the spaces around it
TEXT = {"name": "trim(name)", "n": "CAST(n AS VARCHAR)"}


def test_a_hash_is_the_md5_prefix_of_the_texts_utf8_bytes_in_sql():
    """G22: ``left(md5(text), length)``. RFC 1321's test suite gives md5("abc") =
    900150983cd24fb0d6963f7d28e17f72 and md5("") = d41d8cd98f00b204e9800998ecf8427e; " abc "
    is "abc" once its spaces are trimmed; "é" hashes its two UTF-8 bytes C3 A9 (hashlib over
    those very bytes); a NULL value has no key (the loaded events refuse a missing one)."""
    import hashlib

    frame = pd.DataFrame({"name": ["abc", " abc ", "é", "", None]})
    e_acute = hashlib.md5(bytes([0xC3, 0xA9])).hexdigest()
    want = ["90015098", "90015098", e_acute[:8], "d41d8cd9", None]
    assert _sql_texts(Hashed("name", 8).key_sql(TEXT, "t"), frame) == want
    assert _sql_texts(Hashed("name", 3).key_sql(TEXT, "t"), frame)[:2] == ["900", "900"]
    held = ["abc", "abc", "é", ""]  # as loaded: stripped
    assert _rendered(Hashed("name", 8), {"name": held}) == want[:4]
    with pytest.raises(SchemaError, match="missing"):
        _rendered(Hashed("name", 8), {"name": [None]})


def test_reversed_digits_and_domains_in_sql_are_renders():
    """G23: 100042 → "240001", 120 → "021" (the zero leads), 7 → "7"; G27: maps.google.com →
    com.google.maps, a name without a dot stays itself, "a..b" keeps its empty label."""
    ids = pd.DataFrame({"n": [100042, 120, 7]})
    assert _sql_texts(ReversedId("n").key_sql(TEXT, "t"), ids) == ["240001", "021", "7"]
    assert _rendered(ReversedId("n"), {"n": [100042, 120, 7]}) == ["240001", "021", "7"]
    names = ["maps.google.com", " localhost ", "a..b", "ü.example"]
    want = ["com.google.maps", "localhost", "b..a", "example.ü"]
    frame = pd.DataFrame({"name": names})
    assert _sql_texts(ReversedDomain("name").key_sql(TEXT, "t"), frame) == want
    held = [v.strip() for v in names]
    assert _rendered(ReversedDomain("name"), {"name": held}) == want


def test_tags_in_sql_are_sorted_pairs_each_ending_in_the_delimiter_an_empty_one_left_out():
    """G16, Heroic's key: ``name=value,`` per tag, sorted by name (dc before role), an empty
    tag writes nothing, no delimiter follows the tags (they wrote their own) and a key ending
    with them drops its last one. " x " is "x" once trimmed; "ü" stays itself; a NULL tag (a
    missing value, which the loaded events refuse) gives no key at all."""
    tags = Tags(("role", "dc"))
    frame = pd.DataFrame(
        {
            "host": ["h1", "h2", "h3", "h4"],
            "dc": [" x ", "", "", None],
            "role": ["db", "ü", "", "a"],
            "t": [T_US] * 4,
        }
    )
    text = {c: f"trim({c})" for c in ("host", "dc", "role")}
    held = {"host": ["h1", "h2", "h3"], "dc": ["x", "", ""], "role": ["db", "ü", ""]}
    mid = RowKey((Field("host"), tags, Timestamp("second")), ",")
    want = ["h1,dc=x,role=db,20240307050607", "h2,role=ü,20240307050607", "h3,20240307050607"]
    assert _sql_texts(mid.key_sql(text, "t"), frame) == [*want, None]
    assert _rendered(mid, held, ",") == want
    last = RowKey((Field("host"), tags), ",")  # the tags end the key: no trailing ","
    ends = ["h1,dc=x,role=db", "h2,role=ü", "h3"]
    assert _sql_texts(last.key_sql(text, "t"), frame) == [*ends, None]
    assert _rendered(last, held, ",") == ends
    # the segment alone writes its own delimiters, each pair ending in the one it is given
    assert _sql_texts(tags.key_sql(text, "t", "#"), frame)[:2] == ["dc=x#role=db#", "role=ü#"]
    with pytest.raises(SchemaError, match="missing"):
        _rendered(mid, {"host": ["h4"], "dc": [None], "role": ["a"]}, ",")


def test_heroics_base_before_1970_floors_as_render_does():
    """1 µs before the epoch is in the ms −1, whose 2^32 base is −4,294,967,296 (floored, not
    truncated toward zero as SQL's % and // are); 1,000 µs after it is the ms 1, base 0."""
    frame = pd.DataFrame({"t": [-1, 1_000]})
    assert _sql_texts(BaseTimestamp().key_sql({}, "t"), frame) == ["-4294967296", "0"]
    assert _rendered(BaseTimestamp(), {"x": [0, 0]}, t_us=[-1, 1_000]) == ["-4294967296", "0"]


def test_a_salt_in_sql_is_the_crc32_bucket_of_its_columns_text():
    """G08: ``crc32(text) mod n``, zero-padded to the digits of n − 1. CRC-32's check value:
    crc32("123456789") = 0xCBF43926 = 3,421,780,262, so mod 4 it is 2 (0x26 = 38 = 4 × 9 + 2)
    and mod 16 it is 6 (its last hex digit; written "06"); " 123456789 " once trimmed is the
    same text; "é" hashes its UTF-8 bytes C3 A9 (zlib over those bytes); a NULL has no key."""
    import zlib

    frame = pd.DataFrame({"name": ["123456789", " 123456789 ", "é", None], "n": [42] * 4})
    e_acute = zlib.crc32(bytes([0xC3, 0xA9]))
    assert _sql_texts(Salt(4, "name").key_sql(TEXT, "t"), frame) == [
        "2",
        "2",
        str(e_acute % 4),
        None,
    ]
    assert _sql_texts(Salt(16, "name").key_sql(TEXT, "t"), frame)[:2] == ["06", "06"]
    held = {"name": ["123456789", "123456789", "é"], "n": [42] * 3}
    assert _rendered(Salt(4, "name"), held) == ["2", "2", str(e_acute % 4)]
    # two columns: their texts joined by "|", as ``coded`` joins them
    both = zlib.crc32(b"123456789|42") % 7
    assert _sql_texts(Salt(7, ("name", "n")).key_sql(TEXT, "t"), frame)[:2] == [str(both)] * 2
    assert _rendered(Salt(7, ("name", "n")), held)[:2] == [str(both)] * 2


def test_a_salt_of_the_time_hashes_the_keys_time_text_written_after_it():
    """The salt leads the key but hashes the text of the time segment after it (it renders
    last): "20240307050607890" for the ms of ``T_US``; a key with no time segment has no
    text to hash (render refuses it)."""
    import zlib

    key = RowKey((Salt(8), Timestamp("ms"), Field("metric")))
    bucket = zlib.crc32(b"20240307050607890") % 8
    want = [f"{bucket}#20240307050607890#m01"]
    assert _sql_texts(key.key_sql({"metric": "metric"}, "t")) == want
    assert _rendered(key, {"metric": ["m01"]}) == want
    timeless = RowKey((Salt(8), Field("metric")))
    assert timeless.key_sql({"metric": "metric"}, "t") is None
    with pytest.raises(SchemaError, match="time segment"):
        _rendered(timeless, {"metric": ["m01"]})


def test_sqls_crc32_is_zlibs_on_many_texts_at_once():
    """Past 63 distinct texts ``hashing.crc32`` runs its table over the bytes, not zlib: the
    SQL function's buckets still equal zlib's over each text's UTF-8 bytes."""
    import zlib

    names = [f"sensor-{i}-ü" * (1 + i % 3) for i in range(200)]
    frame = pd.DataFrame({"name": names})
    want = [str(zlib.crc32(v.encode("utf-8")) % 1000).zfill(3) for v in names]
    assert _sql_texts(Salt(1000, "name").key_sql(TEXT, "t"), frame) == want


def test_a_key_naming_the_measure_writes_a_key_per_measure_with_a_value_in_sql():
    """G03's tall-per-metric row: an event writes one key per measure it has a value of, the
    measure's short name in it ("value" → "v"). h1 has both (2 keys), h2 neither (its value
    NULL, its temp NaN: no cell, so no key), h3 only its value (1 key): 3 keys, in order."""
    key = RowKey((Field("host"), Metric(names={"value": "v"}), Timestamp("second")))
    frame = pd.DataFrame(
        {
            "host": ["h1", "h2", "h3"],
            "value": pd.array([5, None, 7], dtype="Int64"),
            "temp": [1.5, np.nan, None],
            "t": [T_US] * 3,
        }
    )
    held = {"value": "value IS NOT NULL", "temp": "temp IS NOT NULL AND NOT isnan(temp)"}
    sec = "20240307050607"
    want = [f"h1#v#{sec}", f"h1#temp#{sec}", f"h3#v#{sec}"]
    assert _sql_texts(key.key_sql({"host": "host"}, "t", held), frame) == want
    hosts = pd.Series(["h1", "h2", "h3"])
    by = {m: key.render(RenderContext({"host": hosts}, np.array([T_US] * 3), "#", m)) for m in held}
    has = {"value": [True, False, True], "temp": [True, False, False]}  # as the frame holds
    kept = [by[m][i] for i in range(3) for m in held if has[m][i]]
    assert kept == want
    assert key.key_sql({"host": "host"}, "t") is None  # which measures have a value: not said
