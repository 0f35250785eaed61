"""Bigtable time-series schema workbench.

One import for notebooks::

    import workbench as wb
    wb.setup()
    ds = wb.load_dataset("fx_prices", size="workshop")
    schema = wb.preset("fx_prices", wb.pattern_names("fx_prices")[0])

Names are resolved lazily so ``import workbench`` stays fast and a notebook's
setup cell does not pay for matplotlib or the Bigtable client until used. The public names are
the imports of ``__init__.pyi`` (``lazy_loader.attach_stub`` reads them): mypy and IDEs see the
real signatures there.
"""

from __future__ import annotations

import lazy_loader

__version__ = "0.1.0"

# how each result shows itself in a notebook (its figures): registered once, here, so the
# analyses never import the figures (workbench/reprs.py); light, it imports no figure module
from . import display as display  # noqa: E402

__getattr__, __dir__, _names = lazy_loader.attach_stub(__name__, __file__)
__all__ = [*_names, "__version__"]
