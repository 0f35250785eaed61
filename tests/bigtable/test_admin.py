"""Admin from a schema: families, GC rules, sum families, idempotence, drop/truncate (real emulator)."""

from __future__ import annotations

import pytest
from google.cloud.bigtable_admin_v2 import types as at

from workbench.bigtable import admin, writer
from workbench.bigtable.connection import Connection
from workbench.cells import CellFrame
from workbench.errors import ConfirmationRequired, SchemaError
from workbench.schema.families import (
    Family,
    MaxAge,
    MaxVersions,
    intersection,
    max_age,
    max_versions,
    union,
)


def _gc(conn, table_id, family):
    return admin.get_families(conn, table_id)[family].gc_rule


def test_physical_names():
    assert admin.physical_table_id("fx", "main") == "fx"
    assert admin.physical_table_id("fx", "by_time") == "fx--by_time"
    assert admin.table_ids("t", ["main", "b"], "main") == {"main": "t", "b": "t--b"}
    with pytest.raises(SchemaError, match="not valid"):
        admin.physical_table_id("bad name!", "main")


def test_table_id_tags_never_read_as_a_number():
    """A tag is read by people: 969e80 (a hex tag once drawn) reads as 969×10^80, and a
    notebook's number check flagged it. Tags start with a letter and have no vowels."""
    import re

    from notebooks.test_notebooks import SCIENTIFIC

    tags = [admin.readable_tag(6) for _ in range(5_000)]
    tags += [admin.unique_table_id().split("-")[-1] for _ in range(1_000)]
    assert len(set(tags)) > 5_900  # random: 6 characters of 27 are ~3.9e8 tags
    for t in tags:
        assert re.fullmatch(r"[b-z][b-z2-9]+", t) and not re.search(r"[aeiou01]", t), t
        assert not SCIENTIFIC.search(f"table-{t} "), t
    # the same seed, the same tag (the designer's table per design)
    assert admin.readable_tag(8, b"design") == admin.readable_tag(8, b"design")
    assert len(admin.readable_tag(8, b"ab")) == 8


def test_gc_rules_convert_to_admin_protobufs():
    assert admin.gc_rule_pb(MaxVersions(3)) == at.GcRule(max_num_versions=3)
    assert admin.gc_rule_pb(MaxAge(7200)).max_age.total_seconds() == 7200
    u = admin.gc_rule_pb(union(max_age("30D"), max_versions(1)))
    assert [r.max_num_versions for r in u.union.rules] == [0, 1]
    assert u.union.rules[0].max_age.total_seconds() == 30 * 86400
    i = admin.gc_rule_pb(intersection(max_age("1h"), max_versions(2)))
    assert len(i.intersection.rules) == 2
    assert admin.gc_rule_pb(None) is None


def test_create_is_idempotent_adds_families_and_updates_gc(conn):
    tid = admin.unique_table_id("wbtest")
    try:
        spec = admin.ensure_table(conn, tid, [Family("m", gc=max_versions(1))])
        assert spec.created and spec.added == ("m",)
        assert _gc(conn, tid, "m").max_num_versions == 1
        again = admin.ensure_table(conn, tid, [Family("m", gc=max_versions(1))])
        assert not again.created and again.added == () and again.updated == ()
        changed = admin.ensure_table(
            conn, tid, [Family("m", gc=max_versions(5)), Family("n", gc=max_age("90D"))]
        )
        assert changed.added == ("n",) and changed.updated == ("m",)
        fams = admin.get_families(conn, tid)
        assert fams["m"].gc_rule.max_num_versions == 5
        assert fams["n"].gc_rule.max_age.total_seconds() == 90 * 86400
    finally:
        assert admin.drop_table(conn, tid)
    assert tid not in conn.list_tables()
    assert admin.drop_table(conn, tid) is False  # already gone: fine


def test_sum_family_is_an_int64_aggregate_and_each_write_adds(conn, table_factory):
    tid = table_factory([Family("s", aggregate="sum"), Family("m")])
    stored = admin.get_families(conn, tid)
    assert "sum" in stored["s"].value_type.aggregate_type
    assert "int64_type" in stored["s"].value_type.aggregate_type.input_type
    # two contributions to one cell (same row, column, timestamp) sum to 12; a second write of
    # them adds to the cell, as AddToCell does on Cloud Bigtable: 24
    cells = CellFrame.from_columns(
        row_key=["r", "r"],
        family="s",
        qualifier="n",
        timestamp_us=[5000, 5000],
        value=[(5).to_bytes(8, "big"), (7).to_bytes(8, "big")],
    )
    from workbench.bigtable.reader import read_table

    for total in (12, 24):
        writer.write_cells(conn, cells, tid, progress=False)
        got = read_table(conn, tid)
        assert got.frame["value"].tolist() == [total.to_bytes(8, "big")]
    # a family's type cannot change in place: a clear error
    with pytest.raises(SchemaError, match="value type"):
        admin.ensure_table(conn, tid, [Family("s")])


def test_tables_of_a_schema_and_throwaway_cleanup(conn):
    fams = {"main": (Family("a"),), "by_time": (Family("b", gc=max_versions(1)),)}
    with admin.throwaway_table(conn, fams) as tid:
        assert {tid, f"{tid}--by_time"} <= set(conn.list_tables())
        assert set(admin.get_families(conn, f"{tid}--by_time")) == {"b"}
    assert not {tid, f"{tid}--by_time"} & set(conn.list_tables())


def test_truncate_keeps_table_and_families(conn, table_factory):
    from workbench.bigtable.reader import read_table

    tid = table_factory([Family("m")])
    cells = CellFrame.from_columns(
        row_key=["a", "b", "c"],
        family="m",
        qualifier="q",
        timestamp_us=[1000, 1000, 1000],
        value=[b"1", b"2", b"3"],
    )
    writer.write_cells(conn, cells, tid, progress=False)
    assert len(read_table(conn, tid)) == 3
    admin.truncate_table(conn, tid, row_key_prefix="a")
    assert read_table(conn, tid).frame["row_key"].tolist() == ["b", "c"]
    admin.truncate_table(conn, tid)
    assert len(read_table(conn, tid)) == 0
    assert set(admin.get_families(conn, tid)) == {"m"}


def test_deleting_on_production_needs_the_table_id_again():
    prod = Connection(project="p", instance="i", host="bigtable.googleapis.com", is_production=True)
    with pytest.raises(ConfirmationRequired, match="confirm='events'"):
        admin.drop_table(prod, "events")
    with pytest.raises(ConfirmationRequired):
        admin.truncate_table(prod, "events", confirm="other")


def test_historical_data_keeps_its_cells_under_age_rules():
    day = 86_400 * 1_000_000
    fams = (
        Family("a", gc=max_age("90D")),
        Family("u", gc=union(max_age("30D"), max_versions(2))),
        Family("i", gc=intersection(max_age("30D"), max_versions(2))),
        Family("v", gc=max_versions(3)),
    )
    now = 20_000 * day
    old, notes = admin.storable_families(fams, oldest_us=now - 400 * day, now_us=now)
    assert [f.gc for f in old] == [None, MaxVersions(2), None, MaxVersions(3)]
    # one note for the table, naming each family whose stored rule lost its age part
    assert len(notes) == 1 and "older than these families' max-age rules" in notes[0]
    assert (
        all(
            part in notes[0]
            for part in (
                "a (maxage=90d → no rule)",
                "u (maxage=30d or maxversions=2 → maxversions=2)",
                "i (maxage=30d and maxversions=2 → no rule)",
            )
        )
        and "v (" not in notes[0]
    )
    recent, notes = admin.storable_families(fams, oldest_us=now - 10 * day, now_us=now)
    assert recent == fams and notes == []
