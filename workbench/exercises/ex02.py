"""Notebook 02's exercises (game_scores): problem objects the notebook's answer cells check."""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, design_name

__all__ = ["____", "game_both"]


def _game_both(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

    if (why := design_name(choice, "game_scores")) is not None:
        return False, why, {}
    q = analyze(ds, preset("game_scores", choice)).queries
    a, b = q["corrie_lol_march"]["waste"], q["lol_march"]["waste"]
    return (
        max(a, b) <= 1.5,
        f"{choice}: Corrie's March reads {a:,.1f} rows per row returned, all LoL games in "
        f"March {b:,.1f} (goal ≤ 1.5 for both).",
        {},
    )


game_both = Problem(
    "game_both",
    "a gallery design name",
    _game_both,
    "one key cannot put both the player and the time right after the game: think two tables.",
    "two_tables",
    '"two_tables": one table keyed game#player#time, one game#time#player (G04, G05).',
)
