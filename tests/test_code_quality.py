"""The package passes its own linters: ruff (lint and format) and mypy, with zero findings.

Settings live in pyproject.toml ([tool.ruff], [tool.mypy]); `make test` runs these like any
other test, so a change that breaks them fails the suite with the tool's own report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]' (it is in the test extra)")
    return str(path)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_lint_is_clean():
    r = _run(_tool("ruff"), "check", "--no-cache", "workbench")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean():
    r = _run(_tool("ruff"), "format", "--check", "--no-cache", "workbench")
    assert r.returncode == 0, "run `ruff format workbench`:\n" + r.stdout + r.stderr


def test_mypy_is_clean():
    r = _run(_tool("mypy"), "--no-incremental", "--cache-dir", "/dev/null")
    assert r.returncode == 0, r.stdout + r.stderr
