"""Live mode: the ``@jupyter-widgets/html-manager`` bundle inlined so widgets run offline."""

from __future__ import annotations

from ._scrub import REDACTED  # noqa: F401  (keeps the package import graph simple)


def bundle_script() -> str:
    from . import ReportError

    raise ReportError("Live mode is not available yet: build the static report (the default).")
