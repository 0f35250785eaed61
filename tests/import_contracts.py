"""import-linter contracts generated from the ```layers block of docs/architecture.md.

The block stays the one source: one line per layer, bottom first, a number then the modules or
packages in it (the root package itself may stand in the top line). This module turns it into an
import-linter configuration with three contracts:

* ``layers`` (type ``layers``, container = the root package, ``exhaustive``): imports point down
  the list, entries of one line are independent peers (``|``), and every child of the root
  package is in some line;
* ``root`` (type ``forbidden``): no module below the top line imports the root package itself;
* ``cycles`` (type ``acyclic_siblings``): no two modules or packages under one parent import
  each other, directly or through others, at any depth.

import-linter (grimp) counts every import, including those inside functions;
``exclude_type_checking_imports`` leaves out ``if TYPE_CHECKING:`` blocks, which never run.

Run it by hand: ``python tests/import_contracts.py > /tmp/contracts.ini && lint-imports
--config /tmp/contracts.ini`` (``tests/project/test_import_graph.py`` does the same).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def read_layers(text: str) -> list[tuple[int, list[str]]]:
    """``[(0, ["workbench.errors", ...]), ...]`` from the ```layers block, bottom first."""
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    if block is None:
        raise ValueError("no ```layers block")
    layers: list[tuple[int, list[str]]] = []
    seen: set[str] = set()
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        level, *names = line.split()
        twice = seen.intersection(names)
        if twice:
            raise ValueError(f"{sorted(twice)} listed twice in the layers")
        seen.update(names)
        layers.append((int(level), names))
    return sorted(layers)


def config(text: str, root: str = "workbench") -> str:
    """The import-linter configuration (INI) for the ```layers block in ``text``."""
    layers = read_layers(text)
    top = layers[-1][0]
    lines = [
        "[importlinter]",
        f"root_package = {root}",
        "exclude_type_checking_imports = True",
        "",
        "[importlinter:contract:layers]",
        "name = imports point down the layers; peers in a layer are independent",
        "type = layers",
        f"containers = {root}",
        "exhaustive = True",
        "layers =",
    ]
    for _, names in reversed(layers):  # import-linter lists the top layer first
        children = [n.removeprefix(root + ".") for n in names if n != root]
        if children:
            lines.append("    " + " | ".join(children))
    lines += [
        "",
        "[importlinter:contract:root]",
        f"name = only the top layer imports {root} itself",
        "type = forbidden",
        "as_packages = False",
        f"forbidden_modules = {root}",
        "source_modules =",
    ]
    for level, names in layers:
        if level < top:
            lines += [f"    {n}\n    {n}.**" for n in names]
    lines += [
        "",
        "[importlinter:contract:cycles]",
        "name = no import cycles",
        "type = acyclic_siblings",
        f"ancestors = {root}",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(config(ARCHITECTURE.read_text(encoding="utf-8")))
