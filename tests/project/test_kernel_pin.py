"""The installed ipykernel satisfies pyproject's pin: ipykernel 7.4 stalled notebook execution
and the designer's dataset switch under load (issue 49, item 7) while the pin said ``<7``; an
environment that drifts from the pin fails here, not in a two-minute stall."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _pins(name: str) -> list[Requirement]:
    meta = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    lines = list(meta.get("dependencies", []))
    for extra in meta.get("optional-dependencies", {}).values():
        lines += extra
    return [r for r in map(Requirement, lines) if r.name.lower() == name]


def test_the_installed_ipykernel_satisfies_the_pin():
    pins = _pins("ipykernel")
    assert pins, "pyproject.toml pins no ipykernel"
    installed = version("ipykernel")
    for pin in pins:
        assert pin.specifier.contains(installed, prereleases=True), (
            f"ipykernel {installed} is installed but pyproject.toml says {pin}: reinstall with "
            f"pip install '{pin}'"
        )
    # the pin itself still keeps 7.x out (7.4 is the version that stalled)
    assert not any(p.specifier.contains("7.4.0") for p in pins)
