"""The named sample datasets: which generator builds each, and ``load_dataset``.

Each generator module exposes ``ENTITY``, ``TIME``, ``MEASURES``, ``UNITS``,
``OPTIONS`` (its keyword arguments and defaults), ``DESCRIPTION`` and
``generate(n_events, rng, **options) -> (frame, queries)``; the frame goes through
the same validation as a user's data (:func:`workbench.datasets.validate.build_dataset`).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from workbench.datasets._frames import rng_for
from workbench.datasets.model import Dataset
from workbench.datasets.sizes import resolve_size
from workbench.datasets.validate import build_dataset, suggestion
from workbench.errors import DatasetError

_MODULES = {
    "garden_temperature": "workbench.datasets.garden_temperature",
    "game_scores": "workbench.datasets.game_scores",
    "weather_balloons": "workbench.datasets.weather_balloons",
    "fx_prices": "workbench.datasets.fx_prices",
    "server_metrics": "workbench.datasets.server_metrics",
    "energy_meters": "workbench.datasets.energy_meters",
}


def dataset_names() -> list[str]:
    """The names ``load_dataset`` accepts, in workshop order."""
    return list(_MODULES)


def generator(name: str) -> ModuleType:
    """The module that generates dataset ``name`` (DatasetError listing the known names otherwise)."""
    if not isinstance(name, str) or name not in _MODULES:
        hint = suggestion(name, _MODULES) if isinstance(name, str) else ""
        raise DatasetError(
            f"Unknown dataset {name!r}.{hint} Known datasets: {', '.join(_MODULES)}. "
            "For your own data use from_dataframe(...) or from_csv(...)."
        )
    return importlib.import_module(_MODULES[name])


def load_dataset(name: str, size: str | int = "workshop", seed: int = 0, **kwargs: Any) -> Dataset:
    """A sample dataset, generated deterministically: the same name, size, seed and options give
    byte-identical frames.

    Parameters
    ----------
    name : str
        One of ``wb.dataset_names()``.
    size : str or int, default "workshop"
        ``"tiny"`` (tests), ``"small"``, ``"workshop"`` (fits the emulator and the widgets),
        ``"large"`` (analysis only) or a number of events.
    seed : int, default 0
        The generator's seed.
    **kwargs
        The dataset's options (e.g. ``freq="1h"`` for garden_temperature).

    Returns
    -------
    Dataset
        The events with their units and default queries.
    """
    module = generator(name)
    label, n_events = resolve_size(size)
    unknown = [k for k in kwargs if k not in module.OPTIONS]
    if unknown:
        accepted = ", ".join(f"{k}={v!r}" for k, v in module.OPTIONS.items()) or "none"
        raise DatasetError(
            f"{name} has no option {', '.join(map(repr, unknown))}."
            f"{suggestion(unknown[0], module.OPTIONS)} Its options: {accepted}."
        )
    rng = rng_for(name, seed)
    frame, queries = module.generate(n_events, rng, **kwargs)
    options = {**module.OPTIONS, **kwargs}
    description = module.DESCRIPTION
    if kwargs:
        description += " Options: " + ", ".join(f"{k}={v!r}" for k, v in options.items()) + "."
    return build_dataset(
        frame,
        entity=module.ENTITY,
        time=module.TIME,
        measures=module.MEASURES,
        attributes=[],
        units=dict(module.UNITS),
        name=name,
        queries=queries,
        description=description,
        size=label,
        seed=seed,
        empty_ok=getattr(module, "EMPTY_OK", ()),
    )
