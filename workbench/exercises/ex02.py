"""Notebook 02's exercises (game_scores): problem objects the notebook's answer cells check.

* ``game_both`` — the gallery design that serves both of the paper's questions without filtering.
* ``measure_scans`` — predict the scans Corrie's latest games need with a row per measure.
* ``name_bytes`` — predict the bytes per event that descriptive family and qualifier names add.
"""

from __future__ import annotations

from typing import Any

from .core import Problem, ____, design_form
from .predict import judge_count, judge_query_figure, number_form

__all__ = ["____", "game_both", "measure_scans", "name_bytes"]


def _game_both(choice: str, ds) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import analyze
    from workbench.schema import preset

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
    "each of the two keys above puts one question's filter right after the game and the other "
    "question pays for it. Look for a design in the gallery that does not have to choose one "
    "order for every event.",
    "two_tables",
    '"two_tables": one table keyed game#player#time, one game#time#player (G04, G05).',
    form=design_form("game_scores"),
)


def _measure_scans(predicted: Any, ds, design) -> tuple[bool, str, dict[str, Any]]:
    # exact: a scan per contiguous range is countable from the key, no estimate needed
    what = f"scans {design.name} needs for corrie_latest"
    return judge_query_figure(predicted, ds, design, "corrie_latest", "scans", what, relative=0.0)


measure_scans = Problem(
    "measure_scans",
    "a whole number of scans (exact)",
    _measure_scans,
    "a scan reads one contiguous range of keys. With the measure in the key, where do Corrie's "
    "wins sit in key order, and where her KDA ratios?",
    2,
    "2: one range under LoL#Corrie#win#, one under LoL#Corrie#kda#; the paper's key keeps both "
    "measures of a game in one row and needs one (G11).",
    form=number_form,
)


def _name_bytes(predicted: Any, ds, short, long) -> tuple[bool, str, dict[str, Any]]:
    from workbench.analysis import compare

    per_event = compare(ds, [short, long]).table["bytes_per_event"]
    extra = float(per_event[long.name] - per_event[short.name])
    # ±5 bytes: counting characters by hand, one name miscounted by a few letters still passes
    return judge_count(
        predicted, extra, f"extra bytes per event with {long.name}", relative=0.0, at_least=5
    )


name_bytes = Problem(
    "name_bytes",
    "a number of bytes per event (±5)",
    _name_bytes,
    "every cell stores its family name and its qualifier again, one byte per character. Count "
    "the characters each name adds over the short one, for each of an event's cells.",
    51,
    "51: each event has two cells; the family adds 12 − 4 = 8 characters to each (16), "
    "did_the_player_win adds 18 − 3 = 15 and kill_death_assist_ratio 23 − 3 = 20 (G01).",
    form=number_form,
)
