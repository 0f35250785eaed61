"""Named dataset sizes and the limits on custom ones.

Why these numbers: the emulator keeps ~400 bytes of RAM per cell and a widget
change re-analyses the whole dataset (budget ~250 ms), so ``workshop`` stays
around 30k events (~120k cells for four measures, ~50 MB in the emulator);
``large`` is for analysis without the emulator.
"""

from __future__ import annotations

from workbench.errors import DatasetError

SIZES: dict[str, int] = {
    "tiny": 1_000,  # tests
    "small": 5_000,  # quick looks
    "workshop": 30_000,  # what the emulator and the widgets handle comfortably
    "large": 2_000_000,  # analysis without the emulator
}
"""Target number of events per size name (generators land near it, not exactly on it)."""

MIN_EVENTS = 200
MAX_EVENTS = 10_000_000
"""Custom sizes (an int) must lie in [MIN_EVENTS, MAX_EVENTS]: below, the named queries
cannot all find data; above, a laptop runs out of memory building the frame."""


def resolve_size(size: str | int) -> tuple[str, int]:
    """(label, target events) for a size name or a custom event count."""
    accepted = (
        f"one of {list(SIZES)} or an int number of events in [{MIN_EVENTS:,}, {MAX_EVENTS:,}]"
    )
    if isinstance(size, bool):
        raise DatasetError(f"size={size!r} is not a size; use {accepted}.")
    if isinstance(size, str):
        if size in SIZES:
            return size, SIZES[size]
        from workbench.datasets.validate import suggestion

        raise DatasetError(f"Unknown size {size!r}; use {accepted}.{suggestion(size, SIZES)}")
    if isinstance(size, (int,)) or (hasattr(size, "__index__") and not isinstance(size, float)):
        n = int(size)
        if n < 0:
            raise DatasetError(f"size={n:,} is negative; use {accepted}.")
        if n < MIN_EVENTS:
            raise DatasetError(
                f"size={n:,} events is too few for the dataset's queries to find data; "
                f"use {accepted}."
            )
        if n > MAX_EVENTS:
            raise DatasetError(
                f"size={n:,} events is over the limit of {MAX_EVENTS:,} (memory); use {accepted}."
            )
        return str(n), n
    raise DatasetError(f"size={size!r} ({type(size).__name__}) is not a size; use {accepted}.")
