"""A fresh machine: `make test` installs what the suite needs, or stops before running anything.

``tools/check-system`` decides from the environment alone (PATH and PYTHON), so each machine
is built here as a directory of stand-ins on PATH, with the real Chromium of this machine left
alone: a PATH without ``chromium``; an ``id`` that says uid 1000 (not root); a ``sudo`` that
wants a password (or one that works); an ``apt-get`` that only writes down how it was called
(or finds its lock taken); a ``python3`` without ``venv``. Every stand-in logs its calls, so a test can see that nothing
was installed or run when the script said it would stop.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waits import HANG_S

pytestmark = pytest.mark.slow  # make and the system check in stand-in machines

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "tools" / "check-system"


def _stub(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f'#!/bin/sh\necho "{name} $*" >> "$CALLS"\n{body}\n')
    path.chmod(0o755)


def _machine(
    tmp_path: Path,
    *,
    root: bool,
    apt: bool = True,
    sudo: str | None = None,
    chromium: bool = False,
    venv_module: bool = True,
) -> dict[str, str]:
    """A PATH of stand-ins (plus sh, cat, env and true, which the script and sudo use) and its environment."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "cat", "env", "true"):
        os.symlink(shutil.which(tool) or f"/bin/{tool}", bin_dir / tool)
    _stub(bin_dir, "id", f"echo {0 if root else 1000}")
    if apt:
        _stub(bin_dir, "apt-get", "exit 0")
    if sudo == "password":  # sudo -n fails when a password would be needed
        _stub(bin_dir, "sudo", 'echo "sudo: a password is required" >&2; exit 1')
    elif sudo == "works":
        _stub(bin_dir, "sudo", '[ "$1" = -n ] && shift; exec "$@"')
    if chromium:
        _stub(bin_dir, "chromium", "exit 0")
    real_python = os.path.realpath(sys.executable)  # a real interpreter, not a PATH shim
    if venv_module:
        _stub(bin_dir, "python3", f'exec {real_python} "$@"')
    else:  # Debian's python3 without the python3-venv package
        _stub(bin_dir, "python3", "echo \"No module named 'ensurepip'\" >&2; exit 1")
    calls = tmp_path / "calls.log"
    calls.touch()
    return {"PATH": str(bin_dir), "CALLS": str(calls), "HOME": str(tmp_path)}


def _run(
    env: dict[str, str], *args: str, cwd: Path = REPO, command: list[str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        command or ["/bin/sh", str(SCRIPT), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


def _calls(env: dict[str, str], *prefixes: str) -> list[str]:
    lines = Path(env["CALLS"]).read_text().splitlines()
    return [line for line in lines if line.startswith(prefixes)]


def test_no_chromium_not_root_sudo_wants_a_password_stops_with_the_exact_command(tmp_path):
    env = _machine(tmp_path, root=False, sudo="password")
    venv = tmp_path / "venv"
    result = _run(env, "--browser", "--venv", str(venv))
    assert result.returncode == 1
    assert result.stdout == ""
    message = result.stderr
    assert "    sudo apt-get update && sudo apt-get install -y chromium\n" in message, message
    assert "not root, and sudo asks for a password" in message
    assert "Nothing was installed or run." in message
    assert _calls(env, "apt-get") == [], "nothing may be installed"
    assert not venv.exists()


def test_no_chromium_and_no_venv_module_one_message_one_command(tmp_path):
    env = _machine(tmp_path, root=False, sudo=None, venv_module=False)
    result = _run(env, "--browser", "--venv", str(tmp_path / "venv"))
    assert result.returncode == 1
    # one command installs both, in the order they were found
    assert "    sudo apt-get update && sudo apt-get install -y python3-venv chromium\n" in (
        result.stderr
    ), result.stderr
    assert result.stderr.count("Run:") == 1
    assert _calls(env, "apt-get") == []


def test_no_apt_get_says_so(tmp_path):
    env = _machine(tmp_path, root=True, apt=False)
    result = _run(env, "--browser")
    assert result.returncode == 1
    assert "there is no apt-get on this machine" in result.stderr
    assert "install chromium with this system's package manager" in result.stderr


def test_root_with_apt_installs_debian_chromium_itself(tmp_path):
    env = _machine(tmp_path, root=True)
    result = _run(env, "--browser", "--venv", str(tmp_path / "venv"))
    assert result.returncode == 0, result.stderr
    assert _calls(env, "apt-get") == [
        "apt-get update -qq",
        "apt-get install -y -qq chromium",
    ]
    assert "Installing what this machine lacks: chromium (apt-get)" in result.stdout


LOCKED = "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 42 (apt-get)"


def test_apt_lock_held_by_another_apt_get_waits_then_installs(tmp_path):
    """A fresh machine's first-boot update, or `make lab` beside `make test`, holds the lock."""
    env = _machine(tmp_path, root=True)
    bin_dir = Path(env["PATH"])
    # the first two calls find the lock taken; `sleep` only writes down that it was asked
    _stub(
        bin_dir,
        "apt-get",
        f"""for n in 1 2; do
  if [ ! -e "$HOME/locked$n" ]; then : > "$HOME/locked$n"; echo "{LOCKED}" >&2; exit 100; fi
done
exit 0""",
    )
    _stub(bin_dir, "sleep", "exit 0")
    result = _run(env, "--browser", "--venv", str(tmp_path / "venv"))
    assert result.returncode == 0, result.stderr
    assert _calls(env, "apt-get", "sleep") == [
        "apt-get update -qq",
        "sleep 5",
        "apt-get update -qq",
        "sleep 5",
        "apt-get update -qq",
        "apt-get install -y -qq chromium",
    ]
    assert result.stdout.count("Waiting for another apt-get or dpkg to finish") == 1, result.stdout


def test_apt_failure_other_than_the_lock_stops_at_once_with_its_message(tmp_path):
    env = _machine(tmp_path, root=True)
    bin_dir = Path(env["PATH"])
    _stub(bin_dir, "apt-get", 'echo "E: Unable to locate package chromium" >&2; exit 100')
    _stub(bin_dir, "sleep", "exit 0")
    result = _run(env, "--browser", "--venv", str(tmp_path / "venv"))
    assert result.returncode == 100
    assert "E: Unable to locate package chromium" in result.stderr
    assert _calls(env, "apt-get", "sleep") == ["apt-get update -qq"]


def test_passwordless_sudo_installs_through_sudo(tmp_path):
    env = _machine(tmp_path, root=False, sudo="works", venv_module=False)
    result = _run(env, "--browser", "--venv", str(tmp_path / "venv"))
    assert result.returncode == 0, result.stderr
    assert _calls(env, "sudo", "apt-get") == [
        "sudo -n true",
        "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq",
        "apt-get update -qq",
        "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv chromium",
        "apt-get install -y -qq python3-venv chromium",
    ]


def test_everything_present_does_nothing(tmp_path):
    env = _machine(tmp_path, root=False, chromium=True)
    result = _run(env, "--browser", "--venv", str(tmp_path / "venv"))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert _calls(env, "apt-get", "sudo") == []


def test_lab_does_not_need_chromium(tmp_path):
    env = _machine(tmp_path, root=False, sudo="password")
    assert _run(env, "--venv", str(tmp_path / "venv")).returncode == 0


def test_make_test_stops_before_creating_or_running_anything(tmp_path):
    """The README's command itself, on a machine without chromium where nobody may install it."""
    env = _machine(tmp_path, root=False, sudo="password")
    venv = tmp_path / "venv"
    make = shutil.which("make")
    assert make, "GNU make is a requirement of the README"
    result = _run(
        env,
        command=[make, "--no-print-directory", "test", f"VENV={venv}", "PYTEST_ARGS=-x"],
    )
    assert result.returncode != 0
    assert "sudo apt-get update && sudo apt-get install -y chromium" in result.stderr
    # python3 was asked only whether it can make a venv: no venv, no pip, no pytest
    assert _calls(env, "python3") == ["python3 -c import venv, ensurepip"], _calls(env)
    assert not venv.exists()
    assert _calls(env, "apt-get") == []


def test_readme_starts_with_exactly_the_two_commands():
    lines = (REPO / "README.md").read_text().splitlines()
    assert lines[0].startswith("# ")
    block = lines[lines.index("```bash") + 1 :]
    block = block[: block.index("```")]
    assert lines.index("```bash") == 2, "the commands come right after the title"
    assert [line.split("#")[0].strip() for line in block] == ["make lab", "make test"], block


def _dry_run(target: str, **env: str) -> list[str]:
    """``make -n TARGET``: the commands make would run, nothing run (the recursive make too)."""
    # make's own variables may come from the environment (and `make test VAR=...` exports them)
    ours = ("PYTEST_ARGS", "VENV", "PYTHON")
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MAKE", "CONDA_")) and k not in ours
    }
    out = subprocess.run(
        [shutil.which("make") or "make", "-n", "--no-print-directory", target],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_inside_the_conda_environment_make_installs_into_it(tmp_path):
    prefix = str(tmp_path / "envs" / "bigtable-workbench")
    commands = _dry_run("test", CONDA_DEFAULT_ENV="bigtable-workbench", CONDA_PREFIX=prefix)
    assert commands[0] == f"PYTHON=python3 sh tools/check-system --venv {prefix} --browser"
    assert (
        f'{prefix}/bin/python -m pip install --quiet -e ".[lab,test]" '
        "--config-settings editable_mode=compat"
    ) in commands
    assert commands[-1].strip().startswith(f"{prefix}/bin/python -m pytest ")
    assert not any(".venv" in c for c in commands), commands


def test_outside_it_make_uses_dot_venv_even_in_another_conda_environment(tmp_path):
    commands = _dry_run("test", CONDA_DEFAULT_ENV="base", CONDA_PREFIX=str(tmp_path))
    assert commands[0] == "PYTHON=python3 sh tools/check-system --venv .venv --browser"
    assert commands[-1].strip().startswith(".venv/bin/python -m pytest ")
    # make lab checks the machine too, but needs no chromium
    lab = _dry_run("lab")
    assert lab[0] == "PYTHON=python3 sh tools/check-system --venv .venv"
    assert lab[-1] == ".venv/bin/python -m workbench lab"


def test_make_test_asks_for_the_emulator_before_the_suite(tmp_path):
    """``workbench emulator find``: the binary, or exit 1 with the install help."""
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_CBTEMULATOR"}
    found = subprocess.run(
        [sys.executable, "-m", "workbench", "emulator", "find"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0 and found.stdout.startswith("Emulator binary: "), found
    missing = subprocess.run(
        [sys.executable, "-m", "workbench", "emulator", "find"],
        cwd=REPO,
        env={**env, "WORKBENCH_CBTEMULATOR": str(tmp_path / "no-such-emulator")},
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 1
    assert "need the Bigtable emulator" in missing.stderr
    assert "gcloud components install bigtable" in missing.stderr
    assert _dry_run("test")[-2].endswith("-m workbench emulator find")  # just before pytest
