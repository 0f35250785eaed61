"""A new kind of row-key segment is one class (and this test): the key, the cells, the parsed
events, the row-key schema and the designer's label all come from the segment itself."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

import workbench as wb
from workbench.schema import Field, KeyPart
from workbench.schema.rowkey_schema import row_key_schemas
from workbench.schema.segments import Coded, RenderContext
from workbench.schema.value_text import merge_equal_texts
from workbench.ui.state import segment_labels


@dataclass(frozen=True)
class Upper(Field):
    """The column's text in capitals (a kind no module of the workbench knows)."""

    @property
    def label(self) -> str:
        return f"upper({self.column})"

    def key_fields(self, delimiter: str) -> tuple[list[KeyPart], list[str]]:
        return [KeyPart(self.column, note="in capitals")], [
            "{name}: stored in capitals; compare with upper-cased text."
        ]

    def coded(self, ctx: RenderContext) -> Coded:
        codes, texts = ctx.coded(self.column)  # once per distinct value; equal capitals merged
        return merge_equal_texts(codes, np.asarray([str(t).upper() for t in texts], dtype=object))

    def parse(self, text: pd.Series) -> dict[str, pd.Series]:
        return {}  # capitals cannot give the original text back

    def template(self) -> str:
        return "{upper(" + self.column + ")}"


def test_a_segment_kind_defined_outside_the_package_works_everywhere():
    ds = wb.load_dataset("game_scores", size="tiny")
    base = wb.preset("game_scores", wb.pattern_names("game_scores")[0])
    # the first column segment of the design, written in capitals instead
    i, col = next((i, s.column) for i, s in enumerate(base.key.segments) if isinstance(s, Field))
    segments = list(base.key.segments)
    segments[i] = Upper(col)
    schema = replace(base, key=replace(base.key, segments=tuple(segments)))

    cells = schema.to_cells(ds)
    values = ds.frame[col].astype(str)
    # every key holds the capitals of its event's value, in the segment's place
    parts = cells.frame["row_key"].str.split(schema.key.delimiter, regex=False).str[i]
    assert set(parts) == set(values.str.upper())
    assert "DOTA2" in set(parts) and "Dota2" not in set(parts)  # the game column holds 'Dota2'

    assert segment_labels(schema.key)[i] == f"upper({col})"
    fields = row_key_schemas(schema)[schema.table].fields
    field = next(f for f in fields if f.segment == Upper(col))
    assert field.name == col and field.note == "in capitals"
    assert f"{col}: stored in capitals" in " ".join(row_key_schemas(schema)[schema.table].notes)
