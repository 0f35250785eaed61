"""What a report states about how it was made: versions, emulator binary, git commit, time (UTC)."""

from __future__ import annotations

import datetime as _dt
import importlib.metadata as md
import platform
import subprocess
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


_VERSIONED = (
    "bigtable-ts-workbench",
    "google-cloud-bigtable",
    "pandas",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "nbconvert",
)


# -- facts for the header -------------------------------------------------------------------
def report_versions() -> dict[str, str]:
    """Python and the package versions a report states it was made with."""
    out = {"python": platform.python_version()}
    for dist in _VERSIONED:
        try:
            out["workbench" if dist == "bigtable-ts-workbench" else dist] = md.version(dist)
        except md.PackageNotFoundError:
            out["workbench" if dist == "bigtable-ts-workbench" else dist] = "not installed"
    return out


def emulator_description(emulator: Any | None, started_here: bool = False) -> str:
    """Where the emulator came from, e.g. "cbtemulator from Google Cloud SDK 528.0.0 (started for this report)"."""
    from ..bigtable.emulator import find_emulator_command

    binary = "Bigtable emulator"
    try:
        cmd = find_emulator_command(search_gcloud=False)
        binary = f"{Path(cmd.argv[0]).name} ({cmd.source.split(' at ')[0]})"
        sdk = Path(cmd.argv[0]).resolve().parents[2] / "VERSION"
        if "Google Cloud SDK" in cmd.source and sdk.is_file():
            binary = f"{Path(cmd.argv[0]).name} from Google Cloud SDK {sdk.read_text().strip()}"
    except Exception:  # no binary here: the report still says which emulator it used
        pass
    if emulator is None:
        return binary
    how = (
        "started for this report run (each notebook's setup cell reuses it)"
        if started_here
        else "an emulator already running, reused"
    )
    return f"{binary}, {how}"


def git_commit(root: Path = REPO_ROOT) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    commit = out.stdout.strip() if out.returncode == 0 else ""
    return f"{commit}+changes" if commit and dirty else commit


def now_utc() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
