"""The exported reads run by hand return what the workbench's reader returns (G04, G11).

For every preset of every dataset (tiny size) and every query, the plan as the emulator runs it
(``plan.on_emulator()``: no reverse scans) is exported as ``cbt read``/``cbt lookup`` commands and
as Python with the official client. Both are run against the real emulator and must return the
same row keys as ``read_plan`` on the same table:

* Python carries every filter, so its rows equal the reader's exactly;
* cbt has no timestamp filter, so where the plan filters cell timestamps, cbt's rows equal the
  reader's rows of the same plan without that filter (and include every row of the plan's answer).

And every Python read the export *prints* for the emulator runs there: a "latest" query's
reverse scan (which the emulator refuses) is printed beside its emulator form, and that form
returns the rows the reverse scan returns on Cloud Bigtable (``plan.evaluate`` of the reversed
plan on the cells written).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
from waits import HANG_S

import workbench as wb
from workbench.advisor.read_export import cbt_read_argv, python_read
from workbench.bigtable.reader import read_plan

pytestmark = pytest.mark.slow  # a cbt process per range

CBT = shutil.which("cbt")


def _cbt_rows(argvs: list[list[str]], host: str) -> set[str]:
    env = {**os.environ, "BIGTABLE_EMULATOR_HOST": host}

    def run(argv: list[str]) -> set[str]:
        out = subprocess.run(
            [CBT or "cbt", *argv[1:], "keys-only=true"],
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_S,
            check=True,
        ).stdout.splitlines()
        # a dashed separator line, then the row key (empty when ``lookup`` finds no row)
        return {out[i + 1] for i, line in enumerate(out[:-1]) if set(line) == {"-"}} - {""}

    with ThreadPoolExecutor(4) as pool:  # each command is a process: overlap their start-up
        return set().union(*pool.map(run, argvs))


# each cbt command is a process (~0.5 s): a plan is checked on its first few ranges and keys,
# which exercises the same export code as all of them
MAX_COMMANDS = 6


def _first_ranges(plan):
    if plan.n_ranges <= MAX_COMMANDS or plan.full_scan:
        return plan
    ranges = tuple(sorted(plan.ranges, key=lambda r: (r.start or "").encode()))[:MAX_COMMANDS]
    keys = tuple(sorted(set(plan.keys)))[: MAX_COMMANDS - len(ranges)]
    return dataclasses.replace(plan, ranges=ranges, keys=keys)


def _reader_rows(conn, table_id, plan) -> set[str]:
    cells = read_plan(conn, table_id, plan, apply_gc=False).cells.frame
    return set(cells["row_key"].tolist())


def _python_rows(client, handle, plan, text: str | None = None) -> set[str]:
    table = client.instance(handle.instance).table(handle.tables[plan.table])
    scope: dict = {"table": table}
    exec(compile(text or python_read(plan), "<exported read>", "exec"), scope)
    return {k.decode("utf-8") for k in scope["row_keys"]}


def test_cbt_is_installed():
    assert CBT, "cbt (Google Cloud SDK component) is needed to check the exported reads"


@pytest.mark.parametrize("name", wb.dataset_names())
def test_exported_reads_return_the_readers_rows(emulator, name, monkeypatch):
    from google.cloud import bigtable

    ds = wb.load_dataset(name, size="tiny")
    host = emulator.connection().host
    # the official client reads the variable when it is made; set it (not setdefault): an earlier
    # test on this worker may have left it naming an emulator that has since stopped, and the
    # client would retry UNAVAILABLE against it for its whole 600 s deadline
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", host)
    client = bigtable.Client(project=emulator.connection().project, admin=False)
    checked = reversed_checked = 0
    # the official client says where it connects, on its first read: this test's own emulator
    where = f"Connecting to Bigtable emulator at {re.escape(host)}$"
    with pytest.warns(RuntimeWarning, match=where):
        for pattern in wb.pattern_names(name):
            schema = wb.preset(name, pattern)
            try:
                schema.to_cells(ds)
            except wb.errors.CollisionError:
                continue  # a design that loses events is never loaded
            handle = emulator.load(ds, schema, table_id=f"t-exp-{name}-{pattern}", progress=False)
            try:
                conn = handle.conn
                exp = wb.export(schema.bind(ds), ds)
                printed, on_emulator = exp.python_reads(), exp.python_reads(emulator=True)
                for qname, plan in exp.plans().items():
                    # the emulator's form is printed as it runs here (below its header line)
                    text = on_emulator[qname]
                    assert text.split("\n", 1)[1] in printed[qname], (name, pattern, qname)
                    got_py = _python_rows(client, handle, plan, text)
                    if plan.reversed:  # what the reverse scan returns on Cloud Bigtable
                        model = plan.evaluate(handle.cells).cells.frame["row_key"]
                        assert got_py == set(model), (name, pattern, qname)
                        assert "On Cloud Bigtable: a reverse scan" in printed[qname]
                        reversed_checked += 1
                    else:
                        want_all = _reader_rows(conn, handle.tables[plan.table], plan)
                        assert got_py == want_all, (name, pattern, qname)
                    emu = _first_ranges(plan.on_emulator())
                    tid = handle.tables[emu.table]
                    want = _reader_rows(conn, tid, emu)
                    argvs, notes = cbt_read_argv(emu, tid, handle.project, handle.instance)
                    got = _cbt_rows(argvs, host)
                    if emu.filter.time_range_us is None:
                        assert got == want, (name, pattern, qname)
                    else:
                        assert any("timestamp" in n for n in notes)
                        untimed = dataclasses.replace(
                            emu, filter=dataclasses.replace(emu.filter, time_range_us=None)
                        )
                        assert got == _reader_rows(conn, tid, untimed), (name, pattern, qname)
                        assert want <= got
                    assert _python_rows(client, handle, emu) == want, (name, pattern, qname)
                    checked += 1
            finally:
                handle.drop()
    assert checked >= 4 * len(ds.queries)  # at least four designs of the dataset were checked
    # every dataset has a "latest" query, and some design of it answers with a reverse scan
    assert any(q.kind == "latest" for q in ds.queries)
    assert reversed_checked >= 1
