"""The connection layer: emulator by default, production only on explicit opt-in."""

from __future__ import annotations

import grpc
import pytest

import workbench as wb
from workbench.bigtable import connection as conn_mod
from workbench.bigtable.connection import Connection
from workbench.errors import ConfirmationRequired, ProductionNotAllowed


def test_production_without_opt_in_is_refused_before_any_network(monkeypatch):
    monkeypatch.delenv(conn_mod.ENV_ALLOW_PRODUCTION, raising=False)
    created = []
    real_secure = grpc.secure_channel
    monkeypatch.setattr(
        grpc, "secure_channel", lambda *a, **k: created.append(a) or real_secure(*a, **k)
    )
    with pytest.raises(ProductionNotAllowed) as err:
        wb.connect(project="my-prod", instance="serving")
    assert "my-prod/serving" in str(err.value)
    assert "WORKBENCH_ALLOW_PRODUCTION=1" in str(err.value)
    assert "No request was sent" in str(err.value)
    assert created == [], "no channel may be opened without the opt-in"


def test_env_opt_in_is_an_explicit_yes_only(monkeypatch):
    monkeypatch.setenv(conn_mod.ENV_ALLOW_PRODUCTION, "0")
    with pytest.raises(ProductionNotAllowed):
        Connection.cloud("p", "i")
    monkeypatch.setenv(conn_mod.ENV_ALLOW_PRODUCTION, "1")
    assert conn_mod._production_opt_in(None) is True
    assert conn_mod._production_opt_in(False) is False  # the argument wins over the env


def test_project_and_instance_both_required():
    with pytest.raises(ProductionNotAllowed, match="project and the instance"):
        Connection.cloud("p", "", allow_production=True)


def test_delete_on_production_needs_the_table_id_again():
    prod = Connection(project="p", instance="i", host="bigtable.googleapis.com", is_production=True)
    with pytest.raises(ConfirmationRequired, match="confirm='metrics'"):
        prod.check_delete_allowed("metrics", confirm=None)
    with pytest.raises(ConfirmationRequired):
        prod.check_delete_allowed("metrics", confirm="yes")
    prod.check_delete_allowed("metrics", confirm="metrics")
    local = Connection(project="p", instance="i", host="127.0.0.1:1", is_production=False)
    local.check_delete_allowed("metrics", confirm=None)  # the emulator needs no confirmation


def test_channel_has_no_receive_limit():
    opts = dict(conn_mod.CHANNEL_OPTIONS)
    assert opts["grpc.max_receive_message_length"] == -1


def test_connection_names_its_target():
    c = Connection.emulator("127.0.0.1:9")
    assert "emulator 127.0.0.1:9" in c.target
    assert c.table_path("t") == "projects/workbench/instances/workbench/tables/t"
    c.close()


def test_opt_in_argument_must_be_a_real_bool(monkeypatch):
    # "no", "false", "0" are truthy strings: they must be refused, never read as a yes
    monkeypatch.delenv(conn_mod.ENV_ALLOW_PRODUCTION, raising=False)
    for value in ("no", "false", "0", "yes", 1):
        with pytest.raises(ProductionNotAllowed, match="True or False"):
            Connection.cloud("p", "i", allow_production=value)
