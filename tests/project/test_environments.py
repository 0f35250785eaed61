"""The three ways to install the workbench name the same packages with the same bounds.

pyproject.toml (pip, ``make``) is the source; ``environment.yml`` (conda) must list every
runtime, ``[lab]``, ``[test]``, ``[beam]`` and ``[dataflow]`` dependency with the same version
bounds (an extra's extras, ``apache-beam[gcp]``, by the package's name),
``binder/environment.yml`` (repo2docker) every runtime and ``[lab]`` one (a binder is the lab). Both files are read here, never a list kept in this test, so a
dependency added to pyproject.toml alone fails this test with the line to add.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import yaml  # type: ignore[import-untyped]
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
# conda-forge names where they differ from PyPI's (the conda-forge feedstock of the same project)
CONDA_FORGE_NAME = {
    "matplotlib": "matplotlib-base",
    "playwright": "playwright-python",
    "duckdb": "python-duckdb",
}
CONDA_ONLY = {"pip"}  # how make/postBuild install the package itself
BINDER_ONLY = {"go"}  # builds the emulator in binder/postBuild


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def _pip_requirements(extras: tuple[str, ...] = ()) -> dict[str, SpecifierSet]:
    """{conda-forge name: bounds} of the project's dependencies (and the given extras)."""
    project = _pyproject()["project"]
    lines = list(project["dependencies"])
    for extra in extras:
        lines += project["optional-dependencies"][extra]
    out: dict[str, SpecifierSet] = {}
    for line in lines:
        req = Requirement(line)
        name = canonicalize_name(req.name)
        # an environment marker (e.g. python_version < '3.11') does not exempt a package from
        # the conda file: conda cannot express it, and the package is harmless where unused
        out[canonicalize_name(CONDA_FORGE_NAME.get(name, name))] = req.specifier
    return out


def _conda_requirements(path: Path) -> tuple[dict[str, SpecifierSet], dict]:
    """{name: bounds} of a conda environment file, and the file itself."""
    doc = yaml.safe_load(path.read_text())
    out: dict[str, SpecifierSet] = {}
    for dep in doc["dependencies"]:
        assert isinstance(dep, str), f"{path.name}: a pip: section hides packages from conda: {dep}"
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", dep.strip())
        assert m, f"{path.name}: cannot read {dep!r}"
        name, spec = m.groups()
        if re.fullmatch(r"=\d[\d.]*", spec):  # conda's `python=3.11`: that minor version
            major, minor = spec[1:].split(".")[:2]
            spec = f">={major}.{minor},<{major}.{int(minor) + 1}"
        out[canonicalize_name(name)] = SpecifierSet(spec)
    return out, doc


def _diff(
    pip: dict[str, SpecifierSet], conda: dict[str, SpecifierSet], allowed: set[str]
) -> list[str]:
    problems = []
    for name, spec in sorted(pip.items()):
        if name not in conda:
            problems.append(f"missing: add `- {name}{spec}`")
        elif conda[name] != spec:
            problems.append(
                f"{name}: conda says {conda[name] or 'any'}, pyproject.toml says {spec or 'any'}"
            )
    for name in sorted(set(conda) - set(pip) - allowed - {"python"}):
        problems.append(f"{name}: not in pyproject.toml (add it there, or remove it here)")
    return problems


def _python_ok(conda: dict[str, SpecifierSet], *, exact: bool) -> None:
    requires = SpecifierSet(_pyproject()["project"]["requires-python"])
    assert "python" in conda
    if exact:
        assert conda["python"] == requires, (conda["python"], requires)
    else:  # a pinned minor version inside the supported range
        versions = [f"3.{minor}" for minor in range(8, 20)]
        allowed = [v for v in versions if v in conda["python"]]
        assert allowed and all(v in requires for v in allowed), (conda["python"], requires)


def test_environment_yml_has_every_runtime_lab_and_test_dependency_with_the_same_bounds():
    conda, doc = _conda_requirements(REPO / "environment.yml")
    assert doc["channels"] == ["conda-forge"]
    # the beam and dataflow extras too: apache-beam[gcp] is apache-beam with the same bounds
    problems = _diff(_pip_requirements(("lab", "test", "beam", "dataflow")), conda, CONDA_ONLY)
    assert problems == [], "environment.yml drifted from pyproject.toml:\n" + "\n".join(problems)
    _python_ok(conda, exact=True)


def test_binder_environment_has_every_runtime_and_lab_dependency_and_go():
    conda, doc = _conda_requirements(REPO / "binder" / "environment.yml")
    assert doc["channels"] == ["conda-forge"]
    problems = _diff(_pip_requirements(("lab",)), conda, CONDA_ONLY | BINDER_ONLY)
    assert problems == [], "binder/environment.yml drifted:\n" + "\n".join(problems)
    assert "go" in conda and "pip" in conda
    # repo2docker picks its base Python only from an exact `python=X.Y`
    assert any(re.fullmatch(r"python=3\.\d+", d) for d in doc["dependencies"])
    _python_ok(conda, exact=False)


def test_the_check_catches_drift():
    """A dependency only pyproject.toml names, and a bound that differs, are both reported."""
    pip = {"pandas": SpecifierSet(">=2.2,<4"), "pyarrow": SpecifierSet(">=15")}
    conda = {"pandas": SpecifierSet(">=2.2,<3"), "pip": SpecifierSet(), "extra": SpecifierSet()}
    assert _diff(pip, conda, CONDA_ONLY) == [
        "pandas: conda says <3,>=2.2, pyproject.toml says <4,>=2.2",
        "missing: add `- pyarrow>=15`",
        "extra: not in pyproject.toml (add it there, or remove it here)",
    ]


def test_binder_post_build_installs_the_package_and_builds_the_emulator():
    post_build = REPO / "binder" / "postBuild"
    text = post_build.read_text()
    lines = [line.strip() for line in text.splitlines()]
    assert lines[0] == "#!/bin/bash"
    # stops at the first failing step (an image without an emulator must not be built)
    first_command = next(i for i, line in enumerate(lines[1:], 1) if line and line[0] != "#")
    assert lines[first_command] == "set -euo pipefail", lines[first_command]
    assert os.access(post_build, os.X_OK)
    mode = subprocess.run(
        ["git", "ls-files", "-s", "binder/postBuild"], cwd=REPO, capture_output=True, text=True
    ).stdout.split()
    assert mode and mode[0] == "100755", f"git must record postBuild as executable: {mode}"
    assert stat.S_IMODE(post_build.stat().st_mode) & 0o111
    commands = [line for line in lines if line and not line.startswith("#")]
    assert "python -m pip install --no-deps -e ." in commands
    # the emulator: the Go program the Cloud SDK ships as cbtemulator, on PATH under that name
    assert any(
        "go install cloud.google.com/go/bigtable/cmd/emulator@" in c and "NB_PYTHON_PREFIX" in c
        for c in commands
    ), commands
    assert 'mv "${NB_PYTHON_PREFIX}/bin/emulator" "${NB_PYTHON_PREFIX}/bin/cbtemulator"' in commands
    # the same quiet settings as `workbench lab`, from files that exist
    for src in re.findall(r"(workbench/jupyter_config/\S+\.json)", text):
        assert (REPO / src).is_file(), src
    assert "share/jupyter/lab/settings/overrides.json" in text
    # bash can parse it
    assert subprocess.run(["bash", "-n", str(post_build)]).returncode == 0


def test_binder_start_runs_one_emulator_for_every_kernel_and_then_jupyter():
    start = REPO / "binder" / "start"
    lines = [line.strip() for line in start.read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    assert lines[0] == "#!/bin/bash" and os.access(start, os.X_OK)
    assert commands[0] == "python -m workbench emulator start \\"
    # repo2docker's start scripts must hand over to the server they were given
    assert commands[-1] == 'exec "$@"'
    assert "set -e" not in start.read_text(), "a missing emulator must not stop the lab starting"
    assert subprocess.run(["bash", "-n", str(start)]).returncode == 0
