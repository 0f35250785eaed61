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

pytestmark = pytest.mark.slow  # ruff and mypy over the package

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


# a function past this many lines says in its docstring why it is one function (or is split)
LONG_FUNCTION_LINES = 120
LONG_FUNCTION_REASON = "Why one function:"


def test_long_functions_state_why():
    import ast

    unexplained = []
    for path in sorted((REPO / "workbench").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                doc = ast.get_docstring(node) or ""
                if n > LONG_FUNCTION_LINES and LONG_FUNCTION_REASON not in doc:
                    unexplained.append(
                        f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({n} lines)"
                    )
    assert not unexplained, (
        f"functions over {LONG_FUNCTION_LINES} lines whose docstring has no "
        f"'{LONG_FUNCTION_REASON}' sentence; split them into named steps or say why: {unexplained}"
    )


def test_no_dead_private_definitions():
    """A module's private function or class that nothing uses is dead code: delete it. (Public
    names are the package's API; decorated functions are registered by their decorator.)"""
    import ast
    import re

    texts = {p: p.read_text(encoding="utf-8") for p in (REPO / "workbench").rglob("*.py")}
    from collections import Counter

    words = Counter(re.findall(r"\w+", "\n".join(texts.values())))
    dead = []
    for path, text in sorted(texts.items()):
        for node in ast.parse(text).body:
            if (
                isinstance(node, (ast.FunctionDef, ast.ClassDef))
                and node.name.startswith("_")
                and not node.name.startswith("__")
                and not node.decorator_list
                and words[node.name] < 2
            ):
                dead.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert not dead, f"private definitions nothing uses: {dead}"


def test_no_dead_public_definitions():
    """A public function, class or method that nothing calls — not the package, its tests,
    notebooks, benchmarks or tools — is dead code too, however public its name (a figure
    function still advertised but never drawn misleads more than a private one). Decorated
    definitions are registered by their decorator; dunder methods are called by Python."""
    import ast
    import re

    own = {p: p.read_text(encoding="utf-8") for p in (REPO / "workbench").rglob("*.py")}
    users = dict(own)
    for pattern in ("tests/*.py", "notebooks/*.py", "bench/*.py", "datasets/*.py", "tools/*"):
        for p in REPO.glob(pattern):
            if p.is_file():
                users[p] = p.read_text(encoding="utf-8", errors="ignore")
    from collections import Counter

    words = Counter(w for t in users.values() for w in re.findall(r"\w+", t))
    dead = []
    for path, text in sorted(own.items()):
        defs = []
        for node in ast.parse(text).body:
            defs.append(node)
            if isinstance(node, ast.ClassDef):
                defs.extend(node.body)
        for node in defs:
            if (
                isinstance(node, (ast.FunctionDef, ast.ClassDef))
                and not node.name.startswith("_")
                and not node.decorator_list
            ):
                if words[node.name] < 2:  # the definition itself is one
                    dead.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert not dead, f"public definitions nothing uses: {dead}"
