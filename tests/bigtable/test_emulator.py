"""The emulator process: found, started on a free port, reused, stopped exactly."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from workbench.bigtable import emulator as emu_mod
from workbench.bigtable.connection import Connection
from workbench.bigtable.emulator import Emulator
from workbench.errors import EmulatorError, EmulatorNotFound, EmulatorUnavailable


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_emulator_is_installed_here():
    """CI must have the real emulator: a missing one is a failure, never a skip."""
    cmd = emu_mod.find_emulator_command()
    assert os.path.exists(cmd.argv[0]), cmd


def test_starts_answers_and_stops_its_own_process(monkeypatch):
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    with Emulator(reuse=False) as emu:
        assert emu.owned and emu.alive()
        assert emu.host.startswith("127.0.0.1:")
        assert emu.connection().list_tables() == []  # a real RPC answered
        pid = emu.pid
    assert not _pid_alive(pid) or os.waitpid(pid, os.WNOHANG)
    assert not emu.alive()


def test_two_emulators_at_once_are_independent(monkeypatch):
    from google.cloud.bigtable_admin_v2.types import CreateTableRequest, Table

    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    with Emulator(reuse=False) as a, Emulator(reuse=False) as b:
        assert a.host != b.host
        conn = a.connection()
        conn.admin.create_table(
            request=CreateTableRequest(
                parent=conn.instance_path, table_id="only_in_a", table=Table()
            )
        )
        assert a.connection().list_tables() == ["only_in_a"]
        assert b.connection().list_tables() == []


def test_reused_emulator_is_never_stopped(monkeypatch):
    with Emulator(reuse=False) as owner:
        monkeypatch.setenv(emu_mod.ENV_HOST, owner.host)
        reused = Emulator().start()
        assert not reused.owned and reused.host == owner.host
        assert "reused" in reused.source
        reused.stop()
        assert owner.alive(), "stopping a reused emulator must leave it running"


def test_env_host_pointing_at_nothing_is_a_clear_error(monkeypatch):
    port = emu_mod.free_port()
    monkeypatch.setenv(emu_mod.ENV_HOST, f"127.0.0.1:{port}")
    with pytest.raises(EmulatorError) as err:
        Emulator().start()
    msg = str(err.value)
    assert f"127.0.0.1:{port}" in msg and "workbench emulator start" in msg


def test_malformed_env_host_is_named(monkeypatch):
    monkeypatch.setenv(emu_mod.ENV_HOST, "localhost")
    with pytest.raises(EmulatorError, match="host:port"):
        Emulator().start()


def test_port_already_taken_is_a_clear_error(monkeypatch):
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        with pytest.raises(EmulatorError, match=f"Port {port}.*already taken"):
            Emulator(port=port, reuse=False).start()


def test_no_emulator_anywhere_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    monkeypatch.delenv(emu_mod.ENV_BINARY, raising=False)
    monkeypatch.delenv("CLOUDSDK_ROOT_DIR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no cbtemulator, no gcloud
    monkeypatch.setattr(emu_mod, "_SDK_GUESSES", ())
    with pytest.raises(EmulatorNotFound) as err:
        Emulator(reuse=False).start()
    msg = str(err.value)
    for hint in (
        "gcloud components install bigtable",
        "google-cloud-cli-bigtable-emulator",
        "go install cloud.google.com/go/bigtable/cmd/emulator@latest",
        "still works",
    ):
        assert hint in msg


def test_emulator_killed_while_in_use_fails_with_the_connections_deadline(monkeypatch):
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    emu = Emulator(reuse=False).start()
    conn = Connection.emulator(emu.host, timeout=3.0)
    assert conn.list_tables() == []
    os.killpg(emu.pid, signal.SIGKILL)
    _wait_until_closed(emu.host)  # the state the test is about: nothing listens any more
    with pytest.raises(EmulatorUnavailable) as err:
        conn.list_tables()
    # The call gave up under the connection's own 3 s deadline (not a default 60 s one); how
    # long failing takes is measured in bench/bench_failures.py.
    assert "(deadline 3 s)" in str(err.value)
    # Killed, nothing listens on its port: the message says it stopped (not that it is frozen).
    assert "the emulator has stopped" in str(err.value) and "wb.setup()" in str(err.value)
    emu.stop()
    conn.close()


def _wait_until_closed(host: str, timeout: float = 60.0) -> None:
    """Return once nothing listens at ``host``; fail only if it still listens after a minute."""
    deadline = time.monotonic() + timeout
    while emu_mod.port_is_open(host):
        assert time.monotonic() < deadline, f"{host} still listens {timeout:.0f} s on"
        time.sleep(0.05)


def test_background_emulator_via_state_file(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv(emu_mod.ENV_HOST, raising=False)
    info = emu_mod.start_background()
    try:
        assert not info["reused"] and emu_mod.port_is_open(info["host"])
        again = emu_mod.start_background()
        assert again["reused"] and again["host"] == info["host"]
        reused = Emulator().start()  # found through the state file
        assert reused.host == info["host"] and not reused.owned
    finally:
        emu_mod.stop_background()
    _wait_until_closed(info["host"])
    assert emu_mod.read_state() is None
