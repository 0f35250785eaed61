"""One message-format test per error class: the whole sentence a person reads, pinned once.

Every other test asserts what a message carries (the error type, the column, row, limit or
figure: `pytest.raises(SettingsError, match="clusters")`), so rewording a message changes
this file only. Each message here names the thing, the limit or value, and what to do
(docs/architecture.md, `workbench/errors.py`); the figures in them are derived in the comments.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from google.api_core import exceptions as api_exceptions
from google.cloud.bigtable_v2.types import bigtable as _bt

import workbench as wb
from workbench.analysis.settings import Settings
from workbench.bigtable import emulator as emu_mod
from workbench.bigtable.chunks import decode, new_columns
from workbench.bigtable.connection import Connection
from workbench.cells import CellFrame
from workbench.datasets.queries import with_queries
from workbench.errors import (
    CollisionError,
    ConfirmationRequired,
    DatasetError,
    EmulatorError,
    EmulatorNotFound,
    EmulatorUnavailable,
    ExtraMissing,
    LimitError,
    ProductionNotAllowed,
    ReadStreamError,
    ReportError,
    SchemaError,
    SettingsError,
    WorkbenchError,
    WriteError,
    require_lab,
)
from workbench.schema import Field, RowKey, Schema, Timestamp


def _message(error: type[BaseException], call, *args, **kwargs) -> str:
    with pytest.raises(error) as e:
        call(*args, **kwargs)
    assert type(e.value) is error, type(e.value)  # this class, not a subclass or a base
    return str(e.value)


def test_workbench_error():
    ds = wb.load_dataset("garden_temperature", size="tiny")
    msg = _message(WorkbenchError, wb.compare, ds, wb.preset(ds, "tall"))
    assert msg == (
        "compare takes a list of schemas, e.g. wb.compare(ds, [a, b]); for one design use "
        "wb.analyze(ds, schema)."
    )


def test_settings_error():
    # reads_per_s_per_node's default: 17,000 rows/s a node (docs/architecture.md, its source)
    msg = _message(SettingsError, Settings, reads_per_s_per_node=0)
    assert msg == (
        "reads_per_s_per_node must be a finite number > 0, got 0; the default is 17000.0."
    )


def test_dataset_error():
    msg = _message(DatasetError, wb.load_dataset, "garden_temperatur")
    assert msg == (
        "Unknown dataset 'garden_temperatur'. Did you mean 'garden_temperature'? Known datasets: "
        "garden_temperature, game_scores, weather_balloons, fx_prices, server_metrics, "
        "energy_meters. For your own data use from_dataframe(...) or from_csv(...)."
    )


def test_query_syntax_error():
    from workbench.datasets.queries import QuerySyntaxError

    ds = wb.load_dataset("fx_prices", size="tiny")
    msg = _message(QuerySyntaxError, with_queries, ds, ["latest per pair"])
    assert msg == (
        "Query 'latest per pair': write 'latest N per COLUMN' (e.g. 'latest 1 per pair') or "
        "'latest N for COLUMN=VALUE'."
    )


def test_schema_error():
    ds = wb.load_dataset("game_scores", size="tiny")
    schema = Schema("s", RowKey((Field("playr"), Timestamp("ms"))))
    msg = _message(SchemaError, schema.to_cells, ds)
    assert msg == (
        "Unknown column 'playr' in a key segment of table 'main'; the dataset has "
        "['game', 'player', 'time', 'win', 'kda']. Did you mean 'player'?"
    )


def _events(s: list[str], t: list[str]) -> wb.Dataset:
    frame = pd.DataFrame({"s": s, "t": pd.to_datetime(t, utc=True), "v": range(1, len(s) + 1)})
    return wb.from_dataframe(frame, entity="s", time="t", measures="v", name="tiny")


def test_collision_error():
    # a at 10:00:00.1 and 10:00:00.7 share second 10:00:00: 2 events, one cell m:v of row
    # 'a#20240101100000'; b's event is alone in its row
    ds = _events(
        ["a", "a", "b"], ["2024-01-01 10:00:00.1", "2024-01-01 10:00:00.7", "2024-01-01 10:00:00.2"]
    )
    schema = Schema("s", RowKey((Field("s"), Timestamp("second"))))
    msg = _message(CollisionError, schema.to_cells, ds)
    assert msg == (
        "2 events collide: they map to the same cell, so Bigtable would keep only one.\n"
        "  row 'a#20240101100000' cell m:v ← s=a, t=2024-01-01 10:00:00.100000+00:00, v=1; "
        "s=a, t=2024-01-01 10:00:00.700000+00:00, v=2\n"
        "Use a finer time precision in the key (G31), promote another field (G07), or pass "
        "accept_loss=True to keep the newest event of each collision."
    )


def test_limit_error():
    # the key: 5,000 × 'x', '#', then 14 digits of the second (20240101100000): 5,015 bytes
    ds = _events(["x" * 5000], ["2024-01-01 10:00:00"])
    schema = Schema("s", RowKey((Field("s"), Timestamp("second"))))
    msg = _message(LimitError, schema.to_cells, ds)
    assert msg == (
        f"Row key of 5,015 bytes is over Cloud Bigtable's 4 KiB limit (G20): {'x' * 80!r}…. "
        "Shorten or drop key segments."
    )


def test_write_error():
    from workbench.bigtable import batches

    cells = CellFrame(
        pd.DataFrame(
            [("other", "r", "m", "q", 1000, b"v")],
            columns=["table", "row_key", "family", "qualifier", "timestamp_us", "value"],
        )
    )
    msg = _message(WriteError, batches.prepare, cells, {"main": "t"})
    assert msg == (
        "Cells for logical table(s) ['other'] have no target table; known: ['main']. "
        "Nothing was written."
    )


def test_production_not_allowed():
    msg = _message(ProductionNotAllowed, Connection.cloud, "p", "", allow_production=True)
    assert msg == "Name both the project and the instance of the Cloud Bigtable target."


def test_confirmation_required():
    prod = Connection(project="p", instance="i", host="bigtable.googleapis.com", is_production=True)
    msg = _message(ConfirmationRequired, prod.check_delete_allowed, "metrics", confirm=None)
    assert msg == (
        "Table 'metrics' is on the real Cloud Bigtable bigtable.googleapis.com (p/i). To delete "
        "it, pass confirm='metrics'. Nothing was deleted."
    )


def test_removed_keyword():
    from workbench.errors import RemovedKeyword

    ds = wb.load_dataset("energy_meters", size="tiny")
    msg = _message(RemovedKeyword, wb.analyze, ds, wb.preset(ds, "sequential_id"), events_per_s=5)
    assert msg == "analyze() takes workload=wb.Workload(events_per_s=...) instead of events_per_s=."


def test_extra_missing():
    msg = _message(ExtraMissing, require_lab, "figures", "no_such_module_xyz")
    assert msg == (
        "figures needs the workbench's lab extra (no_such_module_xyz not installed: this "
        "install has only the runtime the cell, analysis and Bigtable paths use). Install it "
        'with:  pip install "bigtable-ts-workbench[lab]"'
    )


def test_emulator_error():
    msg = _message(EmulatorError, emu_mod.Emulator, host="nope")
    assert msg == (
        "BIGTABLE_EMULATOR_HOST='nope' is not of the form host:port (e.g. 127.0.0.1:8086)."
    )


def test_emulator_not_found(monkeypatch, tmp_path):
    for name in (emu_mod.ENV_HOST, emu_mod.ENV_BINARY, "CLOUDSDK_ROOT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no cbtemulator, no gcloud
    monkeypatch.setattr(emu_mod, "_SDK_GUESSES", ())
    msg = _message(EmulatorNotFound, emu_mod.Emulator(reuse=False).start)
    assert msg == (
        "No Bigtable emulator was found.\n"
        "Install one of:\n"
        "  * gcloud components install bigtable            (Google Cloud SDK)\n"
        "  * apt-get install google-cloud-cli-bigtable-emulator  (Google's apt repository)\n"
        "  * go install cloud.google.com/go/bigtable/cmd/emulator@latest  (Go; put it on PATH "
        "as cbtemulator)\n"
        "or point the workbench at a running one with BIGTABLE_EMULATOR_HOST=host:port,\n"
        "or at a binary with WORKBENCH_CBTEMULATOR=/path/to/cbtemulator.\n"
        "Without an emulator everything that needs no table still works: datasets, schemas,\n"
        "to_cells/from_cells, key-distribution, row-size, query-cost and capacity analysis,\n"
        "comparisons, the advisor and the designer's figures."
    )


def test_emulator_unavailable():
    # port 1 on this machine: nothing listens there (the diagnosis a dead emulator gets); the
    # call fails at once, so the time waited is the only figure not fixed by the inputs
    conn = Connection(project="p", instance="i", host="127.0.0.1:1", is_production=False)

    def unavailable(**_):
        raise api_exceptions.ServiceUnavailable("down")

    msg = _message(EmulatorUnavailable, conn.call, "ListTables", unavailable)
    waited = r"\d+\.\d"
    assert re.fullmatch(
        re.escape("ListTables failed: no answer from the emulator 127.0.0.1:1 (p/i) after ")
        + waited
        + re.escape(
            " s (deadline 10 s). Nothing listens at 127.0.0.1:1 any more: the emulator has "
            "stopped. wb.setup() starts a new one (a restarted emulator is empty: load the "
            "data again).\n(ServiceUnavailable: 503 down)"
        ),
        msg,
    ), msg


def test_read_stream_error():
    response = _bt.ReadRowsResponse.pb()

    def chunk(key: bytes) -> object:
        return response.CellChunk(
            row_key=key,
            family_name={"value": "f"},
            qualifier={"value": b"q"},
            timestamp_micros=1000,
            value=b"1",
            commit_row=True,
        )

    # one response of two rows, b"b" then b"a": the second chunk breaks the key order
    stream = [response(chunks=[chunk(b"b"), chunk(b"a")])]
    msg = _message(ReadStreamError, decode, stream, new_columns())
    assert msg == (
        "Invalid ReadRows stream: response 1, chunk 2 starts row b'a': row keys must be "
        "increasing (open row none, last committed row b'b'). The read was stopped; only the 1 "
        "rows committed before it are kept. This is a fault of the server or of a proxy "
        "between: read again, and report it if it repeats."
    )


def test_report_error(tmp_path):
    from workbench.report.build import build_report

    missing = tmp_path / "none.ipynb"
    msg = _message(ReportError, build_report, missing, tmp_path / "out")
    assert msg == f"No notebook at {missing}: give the path of an .ipynb file."
