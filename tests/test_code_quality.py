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
    # the package and the notebooks' percent-format sources (their per-file ignores in pyproject)
    r = _run(_tool("ruff"), "check", "--no-cache", "workbench", "notebooks")
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean():
    r = _run(_tool("ruff"), "format", "--check", "--no-cache", "workbench")
    assert r.returncode == 0, "run `ruff format workbench`:\n" + r.stdout + r.stderr


def test_mypy_is_clean():
    r = _run(_tool("mypy"), "--no-incremental", "--cache-dir", "/dev/null")
    assert r.returncode == 0, r.stdout + r.stderr


# "about 500 lines": a module past this states in its docstring why it is one module
LONG_MODULE_LINES = 550
LONG_MODULE_REASON = "Why one module:"


def test_long_modules_state_why():
    import ast

    unexplained = []
    for path in sorted((REPO / "workbench").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        n = text.count("\n")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if n > LONG_MODULE_LINES and LONG_MODULE_REASON not in doc:
            unexplained.append(f"{path.relative_to(REPO)} ({n} lines)")
    assert not unexplained, (
        f"modules over {LONG_MODULE_LINES} lines whose docstring has no '{LONG_MODULE_REASON}' "
        f"paragraph; split them by job or say why they are one: {unexplained}"
    )
