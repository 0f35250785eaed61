"""The public functions explain their keywords where ``help()`` shows them: a numpydoc
``Parameters`` section naming every parameter of the signature, and a ``Returns`` section."""

from __future__ import annotations

import inspect
import re

import pytest

import workbench as wb
from workbench.bigtable.io import TableHandle

PUBLIC = {
    "wb.analyze": wb.analyze,
    "wb.compare": wb.compare,
    "wb.advise": wb.advise,
    "wb.production_sheet": wb.production_sheet,
    "wb.preset": wb.preset,
    "wb.load_dataset": wb.load_dataset,
    "wb.from_csv": wb.from_csv,
    "wb.from_parquet": wb.from_parquet,
    "wb.from_dataframe": wb.from_dataframe,
    "Emulator.load": wb.Emulator.load,
    "TableHandle.run": TableHandle.run,
}


def _section(doc: str, title: str) -> str:
    """The text of a numpydoc section: from its underlined title to the next one."""
    m = re.search(
        rf"^{title}\n-{{{len(title)}}}\n(.*?)(?=^\w[\w ]*\n-{{3,}}\n|\Z)", doc, re.M | re.S
    )
    return m.group(1) if m else ""


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_parameter_is_described(name):
    fn = PUBLIC[name]
    doc = inspect.getdoc(fn) or ""
    params = _section(doc, "Parameters")
    assert params, f"{name} has no Parameters section"
    assert _section(doc, "Returns"), f"{name} has no Returns section"
    # a parameter line: "name : type", "name", "a, b, c" or "**kwargs", at the section's margin
    described = {
        word.lstrip("*")
        for line in params.splitlines()
        if line and not line.startswith(" ")
        for word in re.split(r"[,\s]+", line.split(" : ")[0])
        if word
    }
    expected = {p for p in inspect.signature(fn).parameters if p != "self"}
    assert expected <= described, f"{name}: {sorted(expected - described)} not described"
