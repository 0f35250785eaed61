"""Row-key schemas (structured row keys): export for every preset, conformance of the keys each
design writes, hand-written SQL, and what the emulator does with a table's row_key_schema."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace

import pytest
import yaml
from google.cloud.bigtable_admin_v2 import types as at

import workbench as wb
from workbench.bigtable import admin
from workbench.errors import SchemaError
from workbench.notes import EMULATOR_NOTES
from workbench.schema import Field, RowKey, Salt, Timestamp
from workbench.schema.key_conformance import check_keys, conformance, design_keys, key_conformance
from workbench.schema.rowkey_schema import row_key_schema, row_key_schemas
from workbench.schema.segments import Segment

pytestmark = pytest.mark.slow  # every preset's keys checked one by one

# The preset tables whose keys do not all conform, and why (everything else must conform):
# a table has one row-key schema, so aggregate rows sharing it break it (G29), and Heroic's key
# leaves empty tags out (G16).
EXPECTED_NONCONFORMING = {
    ("server_metrics", "heroic", "main"): "Tags leaves an empty tag out",
    ("energy_meters", "reversed_id_hourly", "main"): "It is an aggregate row",
    ("energy_meters", "hourly_aggregates", "main"): "It is an aggregate row",
}


@pytest.fixture(scope="module")
def datasets():
    return {n: wb.load_dataset(n, size="workshop") for n in wb.dataset_names()}


def test_every_preset_builds_as_the_clients_struct_and_conforms(datasets):
    seen = 0
    for name, ds in datasets.items():
        for pattern, schema in wb.presets(name).items():
            results = conformance(schema, ds)
            for table, result in results.items():
                seen += 1
                pb = result.schema.to_proto()
                assert isinstance(pb, at.Type.Struct)
                assert [f.field_name for f in pb.fields] == list(result.schema.names)
                assert pb.encoding.delimited_bytes.delimiter == schema.key.delimiter.encode()
                assert all(f.type_.string_type.encoding.utf8_bytes is not None for f in pb.fields)
                expected = EXPECTED_NONCONFORMING.get((name, pattern, table))
                if expected is None:
                    assert result.ok, f"{name}/{pattern}/{table}: {result}"
                    assert result.keys > 0
                else:
                    assert not result.ok and expected in result.reason, str(result)
    assert seen >= 39  # every table of every preset was checked


def test_struct_round_trips_through_the_json_and_yaml_files():
    rks = row_key_schemas(wb.preset("fx_prices", "pair_microseconds"))["main"]
    as_json = json.loads(rks.to_json())
    assert as_json == yaml.safe_load(rks.to_yaml())
    assert as_json == {
        "encoding": {"delimitedBytes": {"delimiter": "Iw=="}},  # base64 of '#'
        "fields": [
            {"fieldName": "pair", "type": {"stringType": {"encoding": {"utf8Bytes": {}}}}},
            {"fieldName": "ts", "type": {"stringType": {"encoding": {"utf8Bytes": {}}}}},
        ],
    }
    # the file says what the base64 is, as a YAML comment the loader drops (checked above)
    assert '"Iw=="  # "#" as base64' in rks.to_yaml()
    # the protobuf's own JSON form is the same message
    pb_json = at.Type.Struct.to_json(rks.to_proto())
    assert json.loads(pb_json)["fields"][0]["fieldName"] == "pair"
    assert json.loads(pb_json)["encoding"]["delimitedBytes"]["delimiter"] == "Iw=="
    # every field of it: each one a UTF-8 string, as in the file
    assert json.loads(pb_json) == as_json
    # without a table ID the line names a placeholder, never the design's logical name "main"
    assert rks.table == "TABLE_ID" and " update TABLE_ID " in rks.gcloud_command()
    named = row_key_schemas(wb.preset("fx_prices", "pair_microseconds"), table_id="prices")
    assert named["main"].gcloud_command("my-instance") == (
        "gcloud beta bigtable tables update prices --instance=my-instance "
        "--row-key-schema-definition-file=row_key_schema.yaml --row-key-schema-pre-encoded-bytes"
    )
    # the gcloud line and the SQL name the same table
    assert "FROM `prices`" in named["main"].sql({"pair": "EUR/USD"})


def test_fx_prices_sql_by_hand():
    rks = replace(
        row_key_schemas(wb.preset("fx_prices", "pair_microseconds"))["main"], table="prices"
    )
    # one hour of EUR/USD: key text of 09:00:00.000000 up to that of 09:59:59.999999
    assert rks.sql({"pair": "EUR/USD"}, "2015-03-02 09:00", "2015-03-02 10:00") == (
        "SELECT pair, ts, q\n"
        "FROM `prices`\n"
        "WHERE pair = 'EUR/USD'\n"
        "  AND ts >= '20150302090000000000'\n"
        "  AND ts <= '20150302095959999999'"
    )
    rev = row_key_schemas(wb.preset("fx_prices", "reversed_timestamp"))["main"]
    # 9_999_999_999_999_999 − µs: 10:00 − 1 µs is the low bound, 09:00 the high one
    t9 = 1425286800 * 10**6  # 2015-03-02 09:00 UTC in µs
    assert rev.where({"pair": "EUR/USD"}, "2015-03-02 09:00", "2015-03-02 10:00") == [
        "pair = 'EUR/USD'",
        f"ts_reversed >= '{9_999_999_999_999_999 - (t9 + 3600 * 10**6 - 1)}'",
        f"ts_reversed <= '{9_999_999_999_999_999 - t9}'",
    ]
    salted = row_key_schemas(wb.preset("fx_prices", "salted"))["main"]
    assert salted.where({"pair": "EUR/USD"})[0] == "salt IN ('0', '1', '2', '3')"


def test_server_metrics_sql_by_hand():
    rks = replace(
        row_key_schemas(wb.preset("server_metrics", "host_metric_time"))["main"],
        table="metrics",
    )
    # epoch-ms text: 2011-03-13 07:00 UTC = 1300000000000 ms − 1,600,000 ms … by hand below
    start_ms = 1299999600000  # 2011-03-13 07:00:00 UTC
    assert rks.sql(
        {"host": "api-0004.ash.example.com", "what": "memory-used"},
        "2011-03-13 07:00",
        "2011-03-13 08:00",
    ) == (
        "SELECT host, what, ts, m\n"
        "FROM `metrics`\n"
        "WHERE host = 'api-0004.ash.example.com'\n"
        "  AND what = 'memory-used'\n"
        f"  AND ts >= '{start_ms}'\n"
        f"  AND ts <= '{start_ms + 3_600_000 - 1}'"
    )
    heroic = row_key_schemas(wb.preset("server_metrics", "heroic"))["main"]
    assert heroic.names == (
        "key", "cpu_type", "site", "system_component", "unit", "what", "base_ms", "host", "podname"
    )  # fmt: skip
    assert heroic.where({"site": "ash", "key": "system"}) == ["key = 'system'", "site = 'site=ash'"]
    with pytest.raises(SchemaError, match="'time' is not"):
        rks.where({"time": 1})


def test_sql_literals_are_escaped():
    rks = row_key_schema(RowKey((Field("name"),)), "t")
    assert rks.where({"name": "O'Brien\\x"}) == ["name = 'O\\'Brien\\\\x'"]


def test_what_the_schema_cannot_express_is_explained():
    # one note per segment SQL cannot use as the column it stands for: the segment's field, the
    # column or figure at stake and the guideline, in the text explain() prints
    hashed = row_key_schemas(wb.preset("game_scores", "hashed_player"))["main"]
    (note,) = hashed.notes
    assert note.startswith("player_hash:") and "'player'" in note and "(G22)" in note
    assert note in hashed.explain()
    # the text lists the fields (game, the hash, the time), then the note
    lines = hashed.explain().splitlines()
    assert lines[0].startswith("Row-key schema") and "'#'" in lines[0]
    assert [ln.split(":")[0].strip() for ln in lines[1:4]] == ["game", "player_hash", "ts"]
    assert lines[4] == f"  • {note}"
    design = wb.preset("fx_prices", "salted")
    buckets = next(seg.n for seg in design.key.segments if isinstance(seg, Salt))
    salted = row_key_schemas(design)["main"]
    (note,) = salted.notes
    # a time range reads each of the design's salt buckets: one scan per bucket (G08)
    assert note.startswith("salt:") and f" {buckets} scans " in note and "(G08)" in note
    rev = row_key_schemas(wb.preset("fx_prices", "reversed_timestamp"))["main"]
    (note,) = rev.notes
    assert note.startswith("ts_reversed:") and "(G09)" in note
    assert {"STRING", "TIMESTAMP"} <= set(re.findall(r"\b[A-Z]{6,}\b", note))
    assert note in rev.explain() and EMULATOR_NOTES["rowkey_schema"] in rev.explain()

    class Odd(Segment):
        def template(self) -> str:
            return "{odd}"

    with pytest.raises(SchemaError, match="workbench can describe"):
        row_key_schema(RowKey((Field("a"), Odd())))


def test_delimiter_inside_a_value_names_the_first_key(datasets):
    ds = datasets["fx_prices"]
    design = wb.Schema("slash", RowKey((Field("pair"), Timestamp("us")), "/"))
    with pytest.raises(SchemaError, match="key delimiter"):
        design.to_cells(ds)  # the writer refuses; the check still names the key
    result = conformance(design, ds)["main"]
    assert not result.ok and result.bad == result.keys == ds.frame.shape[0]
    first_pair = sorted(ds.frame["pair"].unique())[0]
    assert result.first_bad.startswith(f"{first_pair}/")
    # EUR/USD/<ts>: the pair's own '/' makes 3 fields where the schema declares 2
    assert re.search(r"3 fields at '/'.*declares 2 \(pair, ts\).*delimiter '/'", result.reason)


def test_heroic_empty_tag_and_aggregate_rows_are_pinned(datasets):
    heroic = conformance(wb.preset("server_metrics", "heroic"), datasets["server_metrics"])["main"]
    assert heroic.reason.startswith("it splits into 8 fields at ',', the schema declares 9 (key,")
    assert ",site=ash," in heroic.first_bad and "cpu-type=" not in heroic.first_bad
    energy = conformance(wb.preset("energy_meters", "hourly_aggregates"), datasets["energy_meters"])
    e = energy["main"]
    assert e.first_bad.startswith("agg#hourly#") and e.reason.startswith(
        "it splits into 4 fields at '#', the schema declares 2 (meter_id, ts). It is an aggregate row"
    )
    # the aggregate rows are exactly the non-conforming ones: one per meter and hour
    keys = design_keys(wb.preset("energy_meters", "hourly_aggregates"), datasets["energy_meters"])
    assert e.bad == int(keys["main"].str.startswith("agg#").sum()) > 0


def test_salted_keys_against_the_unsalted_schema(datasets):
    """A table salted after its schema was declared: the check names the first salted key."""
    ds = datasets["fx_prices"]
    plain = row_key_schema(RowKey((Field("pair"), Timestamp("us"))), "prices")
    salted_keys = design_keys(wb.preset("fx_prices", "salted"), ds)["main"]
    result = check_keys(salted_keys, plain)
    assert result.bad == len(salted_keys)
    assert result.first_bad.startswith("0#") and result.reason.startswith(
        "it splits into 3 fields at '#', the schema declares 2 (pair, ts)."
    )
    ok = row_key_schema(RowKey((Salt(4, ("time",)), Timestamp("us"), Field("pair"))), "prices")
    assert check_keys(salted_keys, ok).ok


def test_emulator_drops_row_key_schema(conn):
    """Measured: CreateTable with row_key_schema succeeds; GetTable returns no schema."""
    rks = row_key_schemas(wb.preset("fx_prices", "pair_microseconds"))["main"]
    table_id = admin.unique_table_id("wbrks")
    conn.admin.create_table(
        parent=conn.instance_path,
        table_id=table_id,
        table=at.Table(column_families={"q": at.ColumnFamily()}, row_key_schema=rks.to_proto()),
    )
    try:
        got = conn.admin.get_table(
            request=at.GetTableRequest(name=conn.table_path(table_id), view=at.Table.View.FULL)
        )
        assert "q" in got.column_families
        assert len(got.row_key_schema.fields) == 0  # dropped silently
    finally:
        conn.admin.delete_table(name=conn.table_path(table_id))


def test_own_data_a_delimiter_in_an_entity_value():
    """Your own data: a sensor named with the delimiter is named as the first bad key."""
    import pandas as pd

    t = pd.date_range("2024-01-01", periods=4, freq="1min", tz="UTC")
    frame = pd.DataFrame(
        {"sensor": ["hall", "lab#2", "hall", "lab#2"], "time": t, "temp": [20.5, 21.0, 20.7, 21.2]}
    )
    ds = wb.from_dataframe(frame, name="rooms", entity=["sensor"], time="time", measures=["temp"])
    design = wb.Schema("rooms", RowKey((Field("sensor"), Timestamp("second"))))
    result = key_conformance(design, ds)["main"]
    assert (result.keys, result.bad) == (4, 2)
    assert result.first_bad == "lab#2#20240101000100"
    assert "delimiter '#'" in result.reason
    assert html.escape(EMULATOR_NOTES["rowkey_schema"]) in result._repr_html_()


def test_field_names_are_unique_sql_identifiers_whatever_the_columns_are_called():
    # SQL names compare without case: TS and the time's ts collide, so the time is ts_2;
    # _key is the row key's own name; an identifier cannot start with a digit
    key = RowKey((Field("TS"), Field("_key"), Field("9lives"), Timestamp("second")))
    assert [f.name for f in row_key_schema(key).fields] == ["TS", "_key_2", "f_9lives", "ts_2"]
