"""The dataset's columns and dtypes as the schema engine sees them (what ``from_cells`` rebuilds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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

    @classmethod
    def of(cls, ds: Dataset) -> Shape:
        f = ds.frame
        cols = [*ds.entity, ds.time, *ds.measures, *ds.attributes]
        return cls(
            tuple(ds.entity),
            ds.time,
            tuple(ds.measures),
            tuple(ds.attributes),
            tuple((c, str(f[c].dtype)) for c in cols if c in f.columns),
        )

    @property
    def columns(self) -> list[str]:
        return [*self.entity, self.time, *self.measures, *self.attributes]

    def dtype(self, col: str) -> str | None:
        return dict(self.dtypes).get(col)

    def __deepcopy__(self, memo: dict) -> Shape:  # immutable: pandas attrs copy it on every op
        return self
