"""Export: the cbt commands, run with the real ``cbt`` against the emulator, create exactly the
schema's families and GC rules (read back with ``cbt ls`` and the admin API); the Python snippet
runs against the emulator; GoogleSQL follows the read plans."""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
import sys
import uuid

import pytest
from waits import HANG_S

import workbench as wb
from workbench.advisor.export import Export, cbt_gc, export, sql_string
from workbench.analysis.settings import DEFAULT
from workbench.bigtable import admin
from workbench.errors import SchemaError, WorkbenchError
from workbench.schema import (
    Family,
    MaxAge,
    MaxVersions,
    Union_,
    intersection,
    max_age,
    max_versions,
    pattern_names,
    preset,
    union,
)

pytestmark = pytest.mark.slow  # cbt processes create and read every design's tables

NAMES = wb.dataset_names()


@pytest.fixture(scope="module")
def data() -> dict:
    return {n: wb.load_dataset(n, size="tiny") for n in NAMES}


def _tid(prefix: str = "exp") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _run_cbt(emulator, exp: Export, table_id: str) -> None:
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": emulator.host}
    for line in exp.cbt_commands(emulator.project, emulator.instance, table_id):
        argv = shlex.split(line)  # the shell lines, exactly as a user would paste them
        assert argv[0] == "cbt"
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=HANG_S)
        assert r.returncode == 0, f"{line}: {r.stderr}"


def _cbt_ls(emulator, table_id: str) -> dict[str, str]:
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": emulator.host}
    r = subprocess.run(
        ["cbt", "-project", emulator.project, "-instance", emulator.instance, "ls", table_id],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert r.returncode == 0, r.stderr
    out = {}
    for line in r.stdout.splitlines()[2:]:  # header and dashes
        parts = [p for p in line.split("\t") if p]
        if parts:
            out[parts[0]] = (
                parts[1] if len(parts) > 2 else ("" if parts[-1].startswith("{") else parts[1])
            )
    return out


def _ls_text(rule) -> str:
    """How ``cbt ls`` prints a rule: age() > 90d, versions() > 1, (a || b), (a && b)."""
    if rule is None:
        return ""
    if isinstance(rule, MaxAge):
        return "age() > " + rule.cbt().split("=", 1)[1]
    if isinstance(rule, MaxVersions):
        return f"versions() > {rule.n}"
    op = " || " if isinstance(rule, Union_) else " && "
    return "(" + op.join(_ls_text(r) for r in rule.rules) + ")"


def _assert_created_exactly(
    emulator, conn, exp: Export, table_id: str, *, check_ls: bool = True
) -> None:
    ids = exp.table_ids(table_id)
    for logical, fams in exp.families().items():
        got = admin.get_families(conn, ids[logical])
        assert got is not None, f"table {ids[logical]} was not created"
        assert set(got) == {f.name for f in fams}
        for f in fams:
            want = admin.column_family_pb(f)
            assert type(want.gc_rule).pb(got[f.name].gc_rule) == type(want.gc_rule).pb(
                want.gc_rule
            ), f.name
            assert ("sum" in got[f.name].value_type.aggregate_type) == (f.aggregate == "sum")
        if check_ls:
            ls = _cbt_ls(emulator, ids[logical])
            assert ls == {f.name: _ls_text(f.gc) for f in fams}


DESIGNS = [(n, pattern_names(n)[0]) for n in NAMES] + [
    ("game_scores", "two_tables"),
    ("weather_balloons", "bucket_new_cells"),
]


@pytest.mark.parametrize("name,pattern", DESIGNS)
def test_cbt_commands_create_exactly_the_schema(emulator, conn, data, name, pattern):
    exp = export(preset(name, pattern), data[name])
    tid = _tid()
    _run_cbt(emulator, exp, tid)
    _assert_created_exactly(emulator, conn, exp, tid)


def test_unions_intersections_and_sum_families(emulator, conn, data):
    ds = data["energy_meters"]
    base = preset("energy_meters", "reversed_id_hourly")
    s = dataclasses.replace(
        base,
        layout=dataclasses.replace(
            base.layout, family=Family("r", gc=intersection(max_age("7D"), max_versions(3)))
        ),
        aggregates=dataclasses.replace(
            base.aggregates, family=Family("s", gc=union(max_age("36h"), max_versions(2)))
        ),
    )
    exp = export(s, ds)
    lines = exp.cbt_commands("p", "i", "t")
    assert "cbt -project p -instance i setgcpolicy t r maxage=7d and maxversions=3" in lines
    assert "cbt -project p -instance i setgcpolicy t s maxage=36h or maxversions=2" in lines
    tid = _tid()
    _run_cbt(emulator, exp, tid)
    _assert_created_exactly(emulator, conn, exp, tid)
    # a sum (aggregate) family gets its type at createtable
    summed = dataclasses.replace(
        s,
        aggregates=dataclasses.replace(
            base.aggregates, family=Family("c", gc=max_age("30D"), aggregate="sum")
        ),
    )
    exp2 = export(summed, ds)
    assert any("families=c:maxage=30d:intsum" in x for x in exp2.cbt_commands())
    tid2 = _tid()
    _run_cbt(emulator, exp2, tid2)
    _assert_created_exactly(emulator, conn, exp2, tid2, check_ls=False)


def test_nested_rules_are_refused_by_cbt_but_created_by_python(emulator, conn, data):
    ds = data["garden_temperature"]
    nested = union(intersection(max_age("7D"), max_versions(2)), max_versions(10))
    s = dataclasses.replace(
        preset("garden_temperature", "tall"),
        layout=dataclasses.replace(
            preset("garden_temperature", "tall").layout, family=Family("t", gc=nested)
        ),
    )
    exp = export(s, ds)
    with pytest.raises(SchemaError, match="Python snippet"):
        exp.cbt_commands()
    assert "cbt cannot create this design" in exp._repr_html_()
    tid = _tid()
    _run_snippet(emulator, exp, tid)
    _assert_created_exactly(emulator, conn, exp, tid, check_ls=False)


def _run_snippet(emulator, exp: Export, table_id: str) -> str:
    code = exp.python_snippet(emulator.project, emulator.instance, table_id)
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": emulator.host}
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=HANG_S
    )
    assert r.returncode == 0, f"snippet failed:\n{code}\n{r.stderr[-2000:]}"
    return r.stdout


def test_python_snippet_writes_and_reads_back(emulator, conn, data):
    """Every recommended design's snippet, each run as written (exec'd in one fresh interpreter to save start-ups)."""
    exps = {n: export(preset(n, pattern_names(n)[0]), data[n]) for n in NAMES}
    tids = {n: _tid("py") for n in NAMES}
    codes = {n: exps[n].python_snippet(emulator.project, emulator.instance, tids[n]) for n in NAMES}
    driver = (
        "import sys\ncodes = " + repr(codes) + "\nfor name, code in codes.items():\n"
        "    print('=== ' + name)\n    exec(compile(code, name, 'exec'), {'__name__': '__main__'})\n"
    )
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": emulator.host}
    r = subprocess.run(
        [sys.executable, "-c", driver], env=env, capture_output=True, text=True, timeout=HANG_S
    )
    assert r.returncode == 0, r.stderr[-3000:]
    parts = dict(re.findall(r"=== (\w+)\n(.*?)(?==== |\Z)", r.stdout, re.S))
    for n in NAMES:
        ds, exp = data[n], exps[n]
        key = exp._example()[0]
        assert key in parts[n] and re.search(r"read back [1-9]\d* row", parts[n]), parts[n]
        _assert_created_exactly(
            emulator,
            conn,
            Export(dataclasses.replace(exp.schema, tables=()), ds),
            tids[n],
            check_ls=False,
        )
        # the row it wrote is the schema's first row for the first event
        cells = exp.schema.to_cells(dataclasses.replace(ds, frame=ds.frame.head(1))).frame
        assert key == cells["row_key"].iloc[0]


def test_snippet_after_cbt_reuses_the_table(emulator, conn, data):
    ds = data["game_scores"]
    exp = export(preset("game_scores", "salted"), ds)
    tid = _tid()
    _run_cbt(emulator, exp, tid)
    out = _run_snippet(emulator, exp, tid)
    assert "read back" in out


# ----------------------------------------------------------------------------- SQL


@pytest.mark.parametrize("name", NAMES)
def test_sql_follows_the_read_plans(data, name):
    ds = data[name]
    schema = preset(name, pattern_names(name)[0])
    exp = export(schema, ds, table_id="tbl")
    sql = exp.sql()
    assert list(sql) == [q.name for q in sorted(ds.queries, key=lambda q: -q.weight)]
    for q in ds.queries:
        # the plans the export writes: planned at the default read costs, as the analysis does
        text, plan = sql[q.name], schema.bind(ds, costs=DEFAULT.read_costs()).plan(q)
        physical = exp.table_ids()[plan.table]
        # a history read with casts: UNPACK's inner SELECT reads the table, the outer casts
        unpacked = "FROM UNPACK((" in text
        assert text.count("SELECT _key") == 1 + unpacked and f"FROM `{physical}`" in text
        if plan.full_scan:
            assert "WHERE (_key" not in text and "_key >=" not in text and "full-table scan" in text
        for r in plan.ranges:
            if r.start is not None:
                assert f"_key >= {sql_string(r.start)}" in text
            if r.end is not None:
                assert f"_key < {sql_string(r.end)}" in text
        for k in plan.keys:
            assert f"_key = {sql_string(k)}" in text
        if plan.rows_limit:
            assert text.rstrip().removesuffix("))").rstrip().endswith(f"LIMIT {plan.rows_limit}")
        # a reverse scan (latest-N without a reversed key) reads the newest rows first
        assert ("ORDER BY _key DESC" in text) == plan.reversed


def test_sql_details(data):
    ds = data["game_scores"]
    sql = export(preset("game_scores", "game_player_time"), ds).sql()
    corrie = sql["corrie_lol_march"]
    assert "`GAME`['WIN']" in corrie and "count_where:win" in corrie
    assert "_key >= 'LoL#Corrie#2015030" in corrie
    # the tiny data has a few dozen LoL players: one range per player (the month inside each)
    # or the game's prefix, whichever the cost model finds cheaper; the SQL lists what the plan
    # reads
    plan = preset("game_scores", "game_player_time").bind(ds, costs=DEFAULT.read_costs())
    lol_plan = plan.plan(ds.query("lol_march"))
    assert sql["lol_march"].count("_key >= 'LoL#") == lol_plan.n_ranges
    # at workshop size LoL has 510 players: the key stops at the game (510 seeks cost more than
    # the game's rows) and the time goes to a temporal filter
    big = wb.load_dataset("game_scores", size="workshop")
    lol = export(preset("game_scores", "game_player_time"), big).sql()["lol_march"]
    assert (
        "with_history => TRUE" in lol
        and "after_or_equal => TIMESTAMP('2015-03-01T00:00:00+00:00')" in lol
    )
    assert sql_string("it's a \\ test\n") == "'it\\'s a \\\\ test\\u000a'"
    with pytest.raises(WorkbenchError, match="dataset"):
        export(preset("game_scores", "game_player_time")).sql()


# ----------------------------------------------------------------------------- safety and display


def test_gc_arguments():
    assert cbt_gc(None) == ["never"]
    assert cbt_gc(max_age("90D")) == ["maxage=90d"]
    assert cbt_gc(union(max_age("2h"), max_versions(1))) == ["maxage=2h", "or", "maxversions=1"]
    assert cbt_gc(intersection(max_age("90s"), max_versions(5))) == [
        "maxage=90s",
        "and",
        "maxversions=5",
    ]


def test_export_is_text_only_and_never_runs_on_production(data, monkeypatch):
    monkeypatch.delenv("BIGTABLE_EMULATOR_HOST", raising=False)
    ds = data["fx_prices"]
    exp = export(preset("fx_prices", pattern_names("fx_prices")[0]), ds)
    text = str(exp)
    assert "createtable fx_prices-pair_microseconds" in text and "SELECT _key" in text
    for bad in ("", "bigtable.googleapis.com", "https://bigtable.googleapis.com"):
        with pytest.raises(WorkbenchError, match="emulator"):
            exp.apply_to_emulator(bad)
    with pytest.raises(WorkbenchError, match="Schema"):
        export("pair_microseconds")


def test_apply_to_emulator_and_html(emulator, conn, data):
    ds = data["weather_balloons"]
    exp = export(preset("weather_balloons", "bucket_new_cells"), ds)
    tid = _tid()
    exp.apply_to_emulator(emulator.host, tid, project=emulator.project, instance=emulator.instance)
    _assert_created_exactly(emulator, conn, exp, tid)
    h = exp._repr_html_()
    assert "cbt -project my-project -instance my-instance createtable" in h and "google.cloud" in h
    assert "GoogleSQL" in h and "<script" not in h


def test_public_surface():
    assert wb.export is export
