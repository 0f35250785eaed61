"""Row-key segment kinds that no other unit test writes, each on a hand-made two-row dataset:
the key text, the text parsed back, the row-key schema field and the SQL condition, written by
hand from the segment's rule (a sampled mutation run found them unchecked, docs/architecture.md
"Mutation testing")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.datasets.model import Dataset
from workbench.errors import SchemaError
from workbench.schema import Family, RowKey, Schema, Tall, Timestamp
from workbench.schema.rowkey_schema import row_key_schema
from workbench.schema.segments import (
    KeyQuery,
    Metric,
    PaddedInt,
    RenderContext,
    ReversedDomain,
    ReversedId,
    Salt,
    Tags,
    join_sized,
)

T0 = pd.Timestamp("2024-01-01 00:00", tz="UTC")


def _design(column: str, values: list, segment, delimiter: str = "#") -> tuple[Schema, list[str]]:
    f = pd.DataFrame({column: values, "time": [T0] * len(values), "v": [1.0] * len(values)})
    f["time"] = f["time"].astype("datetime64[us, UTC]")
    ds = Dataset(name="hand", frame=f, entity=[column], time="time", measures=["v"])
    key = RowKey((segment, Timestamp("second")), delimiter=delimiter)
    schema = Schema("hand", key, Tall(Family("m"))).bind(ds)
    return schema, list(schema.to_cells(ds).frame["row_key"].unique())


def test_a_reversed_domain_key_holds_the_labels_backwards_and_parses_back():
    # G27: maps.google.com -> com.google.maps, so one domain's hosts sit side by side
    schema, keys = _design("host", ["maps.google.com", "mail.google.com"], ReversedDomain("host"))
    assert sorted(keys) == ["com.google.mail#20240101000000", "com.google.maps#20240101000000"]
    parsed = schema.key.parse(pd.Series(sorted(keys)))
    assert list(parsed["host"]) == ["mail.google.com", "maps.google.com"]
    # the row-key schema names the field after the column and says what it holds
    field = row_key_schema(schema.key).fields[0]
    assert (field.name, field.note) == ("host", "labels reversed")


def test_a_reversed_domain_refuses_the_dot_delimiter():
    # the labels are joined by '.', so '.' between segments could not be told from them
    with pytest.raises(SchemaError, match="ReversedDomain"):
        _design("host", ["maps.google.com"], ReversedDomain("host"), delimiter=".")


def test_a_reversed_id_key_holds_the_digits_backwards_and_parses_back():
    # G23: 100042 -> 240001 (sequential IDs spread), 7 -> 7, and 0 (non-negative) -> 0
    schema, keys = _design("id", [100042, 7, 0], ReversedId("id"))
    assert sorted(keys) == ["0#20240101000000", "240001#20240101000000", "7#20240101000000"]
    parsed = schema.key.parse(pd.Series(sorted(keys)))
    assert list(parsed["id"].astype(int)) == [0, 100042, 7]
    with pytest.raises(SchemaError, match="non-negative"):
        _design("id", [5, -1], ReversedId("id"))
    rks = row_key_schema(schema.key)
    assert (rks.fields[0].name, rks.fields[0].note) == ("id", "digits written backwards")
    # SQL compares the reversed text: equality works, a numeric range does not
    assert any("G23" in n and "equality" in n for n in rks.notes)


def test_a_metric_segment_asks_sql_for_the_measure_only_when_the_read_names_one():
    q = KeyQuery(values={}, t0=None, t1=None, measure=None, delimiter="#")
    assert Metric().sql_where(q, "measure") == ([], ())
    # a named measure is compared by its key text (short names, G01)
    named = q._replace(measure="temp")
    short = Metric(names={"temp": "t"})  # a mapping is kept as pairs: the segment stays hashable
    assert short.names == (("temp", "t"),) and hash(short) == hash(Metric(names=(("temp", "t"),)))
    assert short.sql_where(named, "measure") == ([("=", "t")], ())
    assert Metric().sql_where(named, "measure") == ([("=", "temp")], ())


def test_a_padded_int_too_wide_for_its_digits_names_the_column():
    # 1234 needs 4 digits, the segment keeps 3 (G21): the error names the column and the value
    ctx = RenderContext({"num": pd.Series([7, 1234])}, np.zeros(2, np.int64))
    with pytest.raises(SchemaError, match=r"^num 1234 .*3 zero-padded digits"):
        PaddedInt("num", 3).coded(ctx)


def test_a_salt_over_no_events_renders_no_key_and_shows_its_rule():
    # no event: no bucket code, but the n bucket texts 0…n-1 are still the segment's (G08)
    ctx = RenderContext({"host": pd.Series([], dtype=object)}, np.zeros(0, np.int64))
    codes, texts = Salt(4, ("host",)).coded(ctx)
    assert len(codes) == 0 and codes.dtype.kind == "i"  # codes index the texts
    assert list(texts) == ["0", "1", "2", "3"]
    assert Salt(4, ("host",)).template() == "{crc32(host) % 4}"


def test_tags_leave_an_empty_tag_out_of_the_known_prefix_and_say_so():
    # columns sort by name (dc, host); dc is empty, so the prefix is host's pair alone (G16)
    tags = Tags(("host", "dc"))
    assert tags.known_prefix({"dc": "", "host": "a"}, ",") == "host=a,"
    assert tags.known_prefix({"dc": "x", "host": "a"}, ",") == "dc=x,host=a,"
    _, (note,) = tags.key_fields(",")
    assert "'name=value'" in note and "(G16)" in note


def test_joining_one_text_to_many_adds_the_byte_lengths():
    # "ab" (2 bytes) + "#" (1) + "x" (1) = 4 bytes; + "éé" (2 × 2 bytes in UTF-8) = 7 bytes
    ab = (np.array([0, 0]), np.array(["ab"], dtype=object))
    right = (np.array([0, 1]), np.array(["x", "éé"], dtype=object))
    codes, texts, lens = join_sized(ab, np.array([2]), right, np.array([1, 4]), "#")
    assert list(texts[codes]) == ["ab#x", "ab#éé"]
    assert list(lens[codes]) == [4, 7] == [len(t.encode("utf-8")) for t in texts[codes]]
