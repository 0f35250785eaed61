"""The dataset's columns and dtypes as the schema engine sees them (what ``from_cells`` rebuilds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from ..datasets.model import Dataset


@dataclass(frozen=True)
class Shape:
    """The dataset's columns and dtypes: what ``from_cells`` must rebuild exactly."""

    entity: tuple[str, ...]
    time: str
    measures: tuple[str, ...]
    attributes: tuple[str, ...] = ()
    dtypes: tuple[tuple[str, str], ...] = ()
    # entity columns whose distinct values form a small, known set (currency pairs, sites): the
    # planner may read one row range per value instead of scanning (``plan.ENUMERATE_VALUES_MAX``)
    values: tuple[tuple[str, tuple[object, ...]], ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, ds: Dataset) -> Shape:
        from .plan import ENUMERATE_VALUES_MAX

        f = ds.frame
        cols = [*ds.entity, ds.time, *ds.measures, *ds.attributes]
        values = []
        for c in ds.entity:
            if c not in f.columns:
                continue
            u = pd.unique(f[c].to_numpy())
            if 0 < len(u) <= ENUMERATE_VALUES_MAX:
                values.append((c, tuple(u.tolist())))
        return cls(
            tuple(ds.entity),
            ds.time,
            tuple(ds.measures),
            tuple(ds.attributes),
            tuple((c, str(f[c].dtype)) for c in cols if c in f.columns),
            tuple(values),
        )

    @property
    def columns(self) -> list[str]:
        return [*self.entity, self.time, *self.measures, *self.attributes]

    def known_values(self, col: str) -> tuple[object, ...] | None:
        """The column's distinct values when they form a small known set, else None."""
        return dict(self.values).get(col)

    def dtype(self, col: str) -> str | None:
        return dict(self.dtypes).get(col)

    def __deepcopy__(self, memo: dict) -> Shape:  # immutable: pandas attrs copy it on every op
        return self
