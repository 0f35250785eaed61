"""Every command and statement the workbench prints runs as printed against the table it names.

* ``cbt`` lines (the table summary's ``cbt … count``, the designer's *Schema & cbt* script) are
  run through a shell, exactly as printed, against the session's real emulator.
* GoogleSQL (exports, row-key-schema SQL, continuous materialized views) cannot run on the
  emulator (``ExecuteQuery`` answers 501), so every statement is parsed with sqlglot's BigQuery
  dialect (GoogleSQL) and held to the documented rules, checked on the parse tree:
  - "Table functions (built in)": with ``with_history => TRUE`` a column is
    ``MAP<key, ARRAY<STRUCT<timestamp, value>>>``, so no scalar CAST may take ``family['q']``
    there; ``UNPACK`` gives one row per version first.
  - "Create an asynchronous secondary index": the ORDER BY holds the source table's unmodified
    row key (``_key`` or a plain alias of it), every ORDER BY column is selected.
* The row-key-schema ``gcloud`` lines (notebook 08's, the designer's) run as printed: the real
  ``gcloud`` (Cloud SDK) against a local stand-in for the admin REST API (its endpoint override),
  which records a PATCH of the table the line and the SQL name, with the YAML file's schema.
"""

from __future__ import annotations

import html
import http.server
import json
import os
import re
import subprocess
import threading
import uuid

import pytest
import sqlglot
from sqlglot import exp
from waits import HANG_S

import workbench as wb
from workbench.advisor.export import export
from workbench.bigtable import admin
from workbench.errors import SchemaError
from workbench.schema.rowkey_schema import row_key_schemas
from workbench.schema.views import view_designs

pytestmark = pytest.mark.slow  # emulator tables, cbt processes, every preset's SQL

NAMES = wb.dataset_names()


@pytest.fixture(scope="module")
def data() -> dict:
    return {n: wb.load_dataset(n, size="tiny") for n in NAMES}


def _shell(line: str, host: str) -> subprocess.CompletedProcess:
    """A printed line run by a shell, with the emulator exported as the printout says."""
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": host}
    return subprocess.run(
        ["sh", "-c", line], env=env, capture_output=True, text=True, timeout=HANG_S
    )


# ----------------------------------------------------------------------------- cbt


def test_the_table_summary_cbt_count_runs_as_printed(emulator, data):
    ds = data["garden_temperature"]
    tid = f"printed-{uuid.uuid4().hex[:8]}"
    table = emulator.load(ds, wb.preset("garden_temperature", "month_rows"), table_id=tid)
    try:
        line = table.cbt_command("count", table.table_id)
        assert line in table._repr_html_()  # the line the notebook shows
        r = _shell(line, emulator.host)
        assert r.returncode == 0, r.stderr
        # month_rows: one row per garden and calendar month, counted from the events by hand
        months = ds.frame[ds.time].dt.strftime("%Y%m")
        rows = len(set(zip(ds.frame["garden"], months, strict=True)))
        assert int(r.stdout.strip()) == rows
    finally:
        table.drop()
    # after the cleanup (what 01's last cell does) the same line finds no table
    r = _shell(line, emulator.host)
    assert r.returncode != 0 and "not found" in (r.stderr + r.stdout).lower()


def test_the_designer_cbt_script_runs_as_printed(emulator, data):
    from workbench.ui.emulator_tab import table_id_for
    from workbench.ui.schema_tab import cbt_commands

    ds = data["energy_meters"]
    schema = wb.preset("energy_meters", "hourly_aggregates")  # an aggregate family too
    script = cbt_commands(schema, ds, emulator)
    tid = table_id_for(ds, schema)
    assert "export BIGTABLE_EMULATOR_HOST=" in script  # the printout says how to point cbt
    lines = [x for x in script.splitlines() if x.strip() and not x.startswith("#")]
    assert lines and all(f" {tid}" in x for x in lines)
    try:
        for line in lines:
            r = _shell(line, emulator.host)
            assert r.returncode == 0, f"{line}: {r.stderr}"
        fams = {f.name for fs in schema.bind(ds).table_families().values() for f in fs}
        r = _shell(
            f"cbt -project {emulator.project} -instance {emulator.instance} ls {tid}",
            emulator.host,
        )
        assert r.returncode == 0, r.stderr
        listed = {line.split()[0] for line in r.stdout.splitlines()[2:] if line.strip()}
        assert listed == fams
    finally:
        conn = emulator.connection()
        if tid in conn.list_tables():
            admin.drop_table(conn, tid, confirm=tid)


def test_the_designer_gcloud_line_and_sql_name_the_designers_table(data):
    from workbench.ui.schema_tab import example_sql, rowkey_html

    ds = data["game_scores"]
    schema = wb.preset("game_scores", "two_tables")
    analysis = wb.analyze(ds, schema)
    page = rowkey_html(schema, ds, analysis.index, "scores-abc")
    gcloud = re.findall(r"gcloud beta bigtable tables update (\S+) ", page)
    # the main table and the second table, by the IDs load() gives them
    assert gcloud == ["scores-abc", "scores-abc--by_game"]
    for rks in row_key_schemas(schema, "scores-abc").values():
        assert rks.table in gcloud
        assert f"FROM `{rks.table}`" in example_sql(rks, ds)
    assert " main " not in page and "`main`" not in page


class _AdminApi(http.server.BaseHTTPRequestHandler):
    """Stands in for bigtableadmin.googleapis.com: records each request and answers a
    finished operation / the table, as the REST API does."""

    seen: list[tuple[str, str, str]] = []

    def _reply(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode() if n else ""
        self.seen.append((self.command, self.path, body))
        name = self.path.split("?")[0].split("/v2/")[-1]
        done = {"name": "operations/1", "done": True, "response": {"name": name}}
        data = json.dumps(done if self.command == "PATCH" else {"name": name}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PATCH = _reply

    def log_message(self, *args: object) -> None:  # quiet
        pass


def _run_gcloud(line: str, rks, cwd) -> list[tuple[str, str, str]]:
    """The printed gcloud line, run by a shell as printed, against a local stand-in for the
    admin REST API (gcloud's own endpoint override): the requests it sent."""
    (cwd / "row_key_schema.yaml").write_text(rks.to_yaml())  # the file the line names
    server = http.server.HTTPServer(("127.0.0.1", 0), _AdminApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _AdminApi.seen = []
    env = {
        **os.environ,
        "CLOUDSDK_CONFIG": str(cwd / "gcloud-config"),
        "CLOUDSDK_API_ENDPOINT_OVERRIDES_BIGTABLEADMIN": f"http://127.0.0.1:{server.server_port}/",
        "CLOUDSDK_AUTH_ACCESS_TOKEN": "not-a-token",
        "CLOUDSDK_CORE_PROJECT": "my-project",
        "CLOUDSDK_CORE_DISABLE_PROMPTS": "1",
    }
    try:
        r = subprocess.run(
            ["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_S
        )
    finally:
        server.shutdown()
        server.server_close()
    assert r.returncode == 0, r.stderr
    return _AdminApi.seen


def test_the_gcloud_lines_run_as_printed_against_the_table_they_name(tmp_path, data):
    from workbench.ui.schema_tab import rowkey_html

    # notebook 08's line: the table its SQL reads
    rks = row_key_schemas(wb.preset("fx_prices", "pair_microseconds"), table_id="prices")["main"]
    # the designer's line for a second table (an HTML page: unescape it)
    ds = data["game_scores"]
    schema = wb.preset("game_scores", "two_tables")
    page = rowkey_html(schema, ds, wb.analyze(ds, schema).index, "scores-abc")
    lines = re.findall(r"<pre data-rowkey-gcloud[^>]*>(.*?)</pre>", page, flags=re.S)
    second = row_key_schemas(schema, "scores-abc")["by_game"]
    for line, schema_of, instance in (
        (rks.gcloud_command("my-instance"), rks, "my-instance"),
        (html.unescape(lines[1]), second, "INSTANCE_ID"),
    ):
        sent = _run_gcloud(line, schema_of, tmp_path)
        patch = [x for x in sent if x[0] == "PATCH"]
        assert len(patch) == 1, sent
        path, body = patch[0][1], json.loads(patch[0][2])
        table = f"/v2/projects/my-project/instances/{instance}/tables/{schema_of.table}"
        assert path.startswith(f"{table}?") and "updateMask=rowKeySchema" in path
        assert body["rowKeySchema"] == schema_of.to_dict()  # the YAML as gcloud read it
        assert f"FROM `{schema_of.table}`" in schema_of.sql()


def test_row_key_schema_names_follow_the_loaders_table_ids():
    from workbench.bigtable.admin import table_ids

    schema = wb.preset("game_scores", "two_tables")
    named = {n: r.table for n, r in row_key_schemas(schema, "g-1").items()}
    assert named == table_ids("g-1", list(named), schema.table)
    with pytest.raises(SchemaError, match="not a segment"):
        row_key_schemas(schema, "g-1")["main"].sql({"nope": 1})


# ----------------------------------------------------------------------------- SQL


def _with_history(select: exp.Select) -> bool:
    src = select.args.get("from_") or select.args.get("from")
    if src is None or not isinstance(src.this, exp.Table):
        return False
    fn = src.this.this
    return isinstance(fn, exp.Anonymous) and any(
        isinstance(a, exp.Kwarg) and a.this.name.lower() == "with_history" and a.expression.this
        for a in fn.expressions
    )


def _history_casts(tree: exp.Expression) -> list[str]:
    """Scalar CASTs of a family's cell (``family['q']``) in a SELECT that reads history."""
    bad = []
    for select in tree.find_all(exp.Select):
        if not _with_history(select):
            continue
        for e in select.expressions:
            for cast in e.find_all(exp.Cast):
                if cast.find(exp.Bracket) is not None:
                    bad.append(cast.sql("bigquery"))
    return bad


def _parse(sql: str) -> exp.Expression:
    body = "\n".join(x for x in sql.splitlines() if not x.startswith("--"))
    return sqlglot.parse_one(body, read="bigquery")


def _statements(sql: str) -> list[exp.Expression]:
    """Every statement of an export (one per range when each range has its own limit)."""
    body = "\n".join(x for x in sql.splitlines() if not x.startswith("--"))
    return [t for t in sqlglot.parse(body, read="bigquery") if t is not None]


def _unsupported(tree: exp.Expression) -> list[str]:
    """What "GoogleSQL for Bigtable overview" lists as unsupported query syntax: UNION, JOIN,
    CTEs and subqueries (UNPACK's argument is the one documented subquery)."""
    bad = [type(n).__name__ for n in tree.find_all(exp.Union, exp.Join, exp.With)]
    for sub in tree.find_all(exp.Subquery):
        fn = sub.parent
        if not (isinstance(fn, exp.Anonymous) and fn.name.upper() == "UNPACK"):
            bad.append("Subquery")
    return bad


def test_every_exported_statement_parses_and_casts_no_history_array(data):
    seen = unpacked = multi = 0
    for name in NAMES:
        ds = data[name]
        for pattern in wb.pattern_names(name):
            for q, sql in export(wb.preset(name, pattern), ds, table_id="t").sql().items():
                if sql.startswith("-- ") and "cannot serve" in sql.splitlines()[0]:
                    continue
                # raises sqlglot.ParseError on a statement that is not SQL
                for tree in _statements(sql):
                    assert _history_casts(tree) == [], f"{name}/{pattern}/{q}:\n{sql}"
                    assert _unsupported(tree) == [], f"{name}/{pattern}/{q}:\n{sql}"
                    seen += 1
                multi += sql.count(";\n\nSELECT")
                unpacked += "UNPACK((" in sql
    assert seen > 100 and unpacked > 0 and multi > 0
    # what the export wrote before for a per-range limit is what the rule refuses
    union = "(SELECT _key FROM t WHERE _key < 'a' LIMIT 1) UNION ALL (SELECT _key FROM t LIMIT 1)"
    assert "Union" in _unsupported(sqlglot.parse_one(union, read="bigquery"))


def test_a_history_read_unpacks_before_it_casts():
    # at workshop size LoL has 510 players: the key stops at the game, the month is a cell
    # timestamp filter, so the read needs the cells' history (see test_export.test_sql_details)
    big = wb.load_dataset("game_scores", size="workshop")
    sql = export(wb.preset("game_scores", "game_player_time"), big, table_id="t").sql()
    text = sql["lol_march"]
    tree = _parse(text)
    outer = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    assert [c.alias_or_name for c in outer.expressions][:2] == ["_key", "_timestamp"]
    fn = (outer.args.get("from_") or outer.args.get("from")).this.this
    assert isinstance(fn, exp.Anonymous) and fn.name.upper() == "UNPACK"
    inner = fn.find(exp.Select)
    assert _with_history(inner) and not inner.find(exp.Cast)  # raw version arrays inside
    # and the casts outside name the unpacked columns, not the family
    casts = [c.sql("bigquery") for c in outer.find_all(exp.Cast)]
    assert casts and all("GAME" not in c for c in casts)
    # the pre-fix form, a scalar cast over the history column, is what the rule catches
    before = "SELECT _key, CAST(CAST(`GAME`['KDA'] AS STRING) AS FLOAT64) AS kda FROM `t`(with_history => TRUE)"
    assert _history_casts(sqlglot.parse_one(before, read="bigquery"))


def test_row_key_schema_sql_parses_for_every_preset(data):
    for name in NAMES:
        for pattern in wb.pattern_names(name):
            for rks in row_key_schemas(wb.preset(name, pattern), "t").values():
                tree = _parse(rks.sql())
                assert tree.find(exp.Table).name in ("t", f"t--{rks.table.partition('--')[2]}")


def _index_order_ok(tree: exp.Expression) -> bool:
    """The documented async-index rule on the parse tree: the ORDER BY holds ``_key`` itself
    or a SELECT alias whose expression is the bare ``_key``, and every ORDER BY column is
    selected."""
    select = tree.find(exp.Select)
    aliases = {e.alias: e.this for e in select.expressions if isinstance(e, exp.Alias)}
    outputs = {e.alias_or_name for e in select.expressions}
    order = [o.this.name for o in select.args["order"].expressions]
    key_names = {a for a, e in aliases.items() if isinstance(e, exp.Column) and e.name == "_key"}
    key_names |= {"_key"} & outputs
    return bool(key_names & set(order)) and set(order) <= outputs


def test_view_statements_parse_and_the_index_orders_by_the_source_key():
    for ds_name in ("game_scores", "energy_meters", "server_metrics"):
        for d in view_designs(ds_name).values():
            if not hasattr(d, "create_sql"):
                continue
            for stmt in d.create_sql("src").values():
                tree = sqlglot.parse_one(stmt, read="bigquery")
                assert isinstance(tree, exp.Create)
                if tree.find(exp.Order) is not None:
                    assert _index_order_ok(tree), stmt
    index = view_designs("game_scores")["async_index"].view_sql("scores")["by_game"]
    assert index.endswith("ORDER BY game, ts, player, source_key")
    # what the workbench generated before: no source key in the ORDER BY
    old = index.removesuffix(", source_key")
    assert not _index_order_ok(sqlglot.parse_one(old, read="bigquery"))
