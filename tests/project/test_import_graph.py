"""Imports point down the layers listed in docs/architecture.md, and no module cycle exists.

The ```layers block of docs/architecture.md is the one source: ``tests/import_contracts.py``
turns it into import-linter contracts (layers with independent peers and every module covered,
no import of the root package from below, no cycles) and ``lint-imports`` checks them. Every
``import`` counts, including those inside functions; only ``if TYPE_CHECKING:`` blocks are left
out, because they never run. A toy package shows each kind of break is caught.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from import_contracts import ARCHITECTURE, config, read_layers

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "workbench"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
LAYERS = {name: level for level, names in read_layers(ARCHITECTURE.read_text()) for name in names}


def lint_imports(text: str, where: Path, root: str = "workbench") -> tuple[int, str]:
    """(exit code, report) of ``lint-imports`` on the contracts of the ```layers block in ``text``,
    with ``where`` first on the import path."""
    cfg = where / "contracts.ini"
    cfg.write_text(config(text, root))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(where), str(REPO)])}
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(cfg)],
        capture_output=True,
        text=True,
        cwd=where,
        env=env,
        timeout=300,
    )
    return run.returncode, run.stdout + run.stderr


def module_names() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = module_names()


def test_the_package_keeps_the_layer_contracts(tmp_path):
    code, report = lint_imports(ARCHITECTURE.read_text(encoding="utf-8"), tmp_path)
    assert code == 0, report
    assert report.count(" KEPT") == 3, report


TOY_LAYERS = """```layers
0  toy.low toy.pkg
1  toy.left toy.right
2  toy toy.high
```"""
TOY_CLEAN = {
    "toy/__init__.py": "from toy import high\n",
    "toy/low.py": "X = 1\n",
    "toy/pkg/__init__.py": "",
    "toy/pkg/a.py": "from toy.pkg import b\n",
    "toy/pkg/b.py": "X = 2\n",
    "toy/left.py": "from toy import low\n",
    "toy/right.py": "import toy.pkg.a\n",
    "toy/high.py": "from toy import left, right\n",
}


@pytest.mark.slow  # one lint-imports run per case
@pytest.mark.parametrize(
    ("case", "files", "broken"),
    [
        # each case changes the clean toy package (all three contracts kept) in one way; left
        # imports low, so low importing left also closes a ring
        ("clean", {}, set()),
        (
            "up, inside a function",
            {"toy/low.py": "def f():\n    from toy import left\n"},
            {"imports point down", "no import cycles"},
        ),
        ("between peers", {"toy/left.py": "from toy import right\n"}, {"imports point down"}),
        ("a module no line covers", {"toy/extra.py": ""}, {"imports point down"}),
        # the root imports high: low -> toy -> high also goes up, indirectly
        (
            "the root from below",
            {"toy/low.py": "import toy\n"},
            {"only the top layer", "imports point down"},
        ),
        ("a cycle in a package", {"toy/pkg/b.py": "from toy.pkg import a\n"}, {"no import cycles"}),
        (
            "up, for type checking only",
            {
                "toy/low.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toy import high\n"
            },
            set(),
        ),
    ],
)
def test_each_kind_of_break_is_caught(tmp_path, case, files, broken):
    for name, text in {**TOY_CLEAN, **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    code, report = lint_imports(TOY_LAYERS, tmp_path, root="toy")
    names = ("imports point down", "only the top layer", "no import cycles")
    found = {
        n for n in names if any(ln.startswith(n) and "BROKEN" in ln for ln in report.splitlines())
    }
    assert found == broken, f"{case}:\n{report}"
    assert (code == 0) == (not broken)


def test_results_do_not_draw_themselves():
    """Statistics know nothing of drawing: ``analysis`` sits below ``plots`` (so the layers
    contract refuses any import of ``plots`` from ``analysis``, even inside a function), and the
    display layer that puts results and figures together sits above both."""
    assert LAYERS["workbench.analysis"] < LAYERS["workbench.plots"] < LAYERS["workbench.display"]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(modules: dict[str, Path]) -> list[str]:
    """Private names (``_x``) one module takes from another: ``from m import _x``, ``m._x`` on an
    imported module, or a private module (``_render.py``) imported from outside its package."""
    found = []
    for name, path in sorted(modules.items()):
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                if not src.startswith("workbench"):
                    continue
                for a in node.names:
                    full = f"{src}.{a.name}"
                    if full in modules:
                        aliases[a.asname or a.name] = full
                        if _private(a.name) and src != package:
                            found.append(f"{name}:{node.lineno} imports the private module {full}")
                    elif _private(a.name):
                        found.append(f"{name}:{node.lineno} from {src} import {a.name}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in modules and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
            ):
                found.append(f"{name}:{node.lineno} uses {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_is_used_across_modules():
    """What another module needs is public (a name without ``_``), so a private name can change
    without looking elsewhere."""
    found = private_uses(MODULES)
    assert not found, "private names used across modules:\n  " + "\n  ".join(found)
