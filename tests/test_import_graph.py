"""Imports point down the layers listed in docs/architecture.md, and no module cycle exists.

The layers are read from the ```layers block of docs/architecture.md (one line per layer,
bottom first: a number, then the modules or packages in it). Every ``import`` in the package
counts, including those inside functions (a lazy import is still a dependency); only imports
under ``if TYPE_CHECKING:`` are left out, because they never run.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "workbench"
ARCHITECTURE = REPO / "docs" / "architecture.md"

# Upward imports tolerated while being removed (each entry must still occur: once it is fixed,
# the test fails until the entry is deleted here). None now: the notebook session
# (workbench/session.py) registers tables; the emulator process manager knows nothing of it.
KNOWN_UPWARD: set[tuple[str, str]] = set()


def read_layers(text: str) -> dict[str, int]:
    """``{"workbench.schema": 2, ...}`` from the ```layers block."""
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    assert block, f"{ARCHITECTURE} has no ```layers block"
    entries: dict[str, int] = {}
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        level, *names = line.split()
        for name in names:
            assert name not in entries, f"{name} is listed twice in the layers"
            entries[name] = int(level)
    return entries


def module_names() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for child in node.body:
                    lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def import_edges(modules: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module → {imported workbench module: line}; ``from pkg import mod`` names the module."""
    edges: dict[str, dict[str, int]] = defaultdict(dict)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                targets = [
                    f"{src}.{a.name}" if f"{src}.{a.name}" in modules else src for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t in modules and t != name:
                    edges[name].setdefault(t, node.lineno)
    return edges


def entry_of(module: str, layers: dict[str, int]) -> str | None:
    """The longest layer entry that is the module or a package containing it."""
    hits = [e for e in layers if module == e or module.startswith(e + ".")]
    return max(hits, key=len) if hits else None


LAYERS = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
MODULES = module_names()
EDGES = import_edges(MODULES)


def test_every_module_has_a_layer():
    missing = sorted(m for m in MODULES if entry_of(m, LAYERS) is None)
    assert not missing, f"modules no layer in docs/architecture.md covers: {missing}"


def layer_violations(edges: dict[str, dict[str, int]]) -> list[tuple[str, str, str]]:
    found = []
    for src, targets in edges.items():
        a = entry_of(src, LAYERS)
        for dst, line in targets.items():
            b = entry_of(dst, LAYERS)
            if a is None or b is None or a == b:
                continue
            if LAYERS[b] > LAYERS[a]:
                found.append((a, b, f"{src}:{line} imports {dst}"))
            elif LAYERS[b] == LAYERS[a]:
                found.append((a, b, f"{src}:{line} imports its peer {dst}"))
    return found


def test_imports_point_down_the_layers():
    found = layer_violations(EDGES)
    unexpected = [w for a, b, w in found if (a, b) not in KNOWN_UPWARD]
    assert not unexpected, "imports up (or across) the layers:\n  " + "\n  ".join(unexpected)
    stale = KNOWN_UPWARD - {(a, b) for a, b, _ in found}
    assert not stale, f"fixed, so delete from KNOWN_UPWARD: {sorted(stale)}"


def strongly_connected(nodes: list[str], edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the groups of modules that import each other in a ring."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        group.append(w)
                        if w == v:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups


def test_no_import_cycles():
    known = {m for a, b in KNOWN_UPWARD for m in MODULES if entry_of(m, LAYERS) in (a, b)}
    cycles = [g for g in strongly_connected(list(MODULES), EDGES) if not set(g) <= known]
    assert not cycles, f"modules that import each other in a ring: {cycles}"


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        # hand-made graphs: a ring of three; a pair with a module hanging off it; a chain
        ({"a": ["b"], "b": ["c"], "c": ["a"]}, [["a", "b", "c"]]),
        ({"a": ["b"], "b": ["a"], "c": ["a"]}, [["a", "b"]]),
        ({"a": ["b"], "b": ["c"], "c": []}, []),
    ],
)
def test_cycle_finder_on_small_graphs(graph, expected):
    edges = {k: dict.fromkeys(v, 1) for k, v in graph.items()}
    assert strongly_connected(list(graph), edges) == expected


def test_an_upward_or_sideways_import_is_reported():
    # schema (layer 2) importing analysis (3) goes up; bigtable importing analysis (both 3)
    # couples two peers; analysis importing schema goes down and is fine
    edges = {
        "workbench.schema.keys": {"workbench.analysis.keyspace": 7},
        "workbench.bigtable.io": {"workbench.analysis": 9},
        "workbench.analysis.keyspace": {"workbench.schema": 3},
    }
    assert [w for _, _, w in layer_violations(edges)] == [
        "workbench.schema.keys:7 imports workbench.analysis.keyspace",
        "workbench.bigtable.io:9 imports its peer workbench.analysis",
    ]


def test_results_do_not_draw_themselves():
    """Statistics know nothing of drawing: no module of ``analysis`` imports ``plots`` (not even
    inside a function), and the display layer that puts results and figures together sits
    above both."""
    assert LAYERS["workbench.analysis"] < LAYERS["workbench.plots"] < LAYERS["workbench.display"]
    drawing = sorted(
        f"{src}:{line} imports {dst}"
        for src, targets in EDGES.items()
        if entry_of(src, LAYERS) == "workbench.analysis"
        for dst, line in targets.items()
        if entry_of(dst, LAYERS) == "workbench.plots"
    )
    assert not drawing, drawing


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
