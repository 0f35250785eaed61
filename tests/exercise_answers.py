"""Three typical wrong answers per workshop exercise, as an attendee would type them after ``=``:
a near-miss name, an input the notebook's prose suggests, and a typo. Shared by the unit test
(tests/test_exercises.py) and the browser test (tests/test_browser_exercises.py)."""

from __future__ import annotations

# problem name → [(kind, the answer as Python source)]
WRONG: dict[str, list[tuple[str, str]]] = {
    "garden_month": [
        ("near-miss", '"month_row"'),
        ("prose", '"daily_rows"'),  # the answer cell's "e.g."
        ("typo", '"day_rows"'),  # what the cell used to suggest
    ],
    "game_both": [
        ("near-miss", '"two_table"'),
        ("prose", '"game_time_player"'),
        ("typo", '"game_player_tme"'),
    ],
    "gardens_day_rows": [
        ("near-miss", "38"),  # one garden short
        ("prose", "1"),  # "the month design reads the paper's month as one row"
        ("typo", '"39"'),  # a number in quotes
    ],
    "versions_cells": [
        ("near-miss", "31"),  # the cells returned, not the cells scanned
        ("prose", "29991"),  # every event in the dataset, not one garden's
        ("typo", '"769"'),  # a number in quotes
    ],
    "measure_scans": [
        ("near-miss", "4"),  # a scan per measure per game title
        ("prose", "1"),  # the paper's key: "one range"
        ("typo", '"2"'),  # a number in quotes
    ],
    "name_bytes": [
        ("near-miss", "35"),  # the qualifiers only, the family forgotten
        ("prose", "8"),  # game_results vs GAME once, not per cell
        ("typo", '"51"'),  # a number in quotes
    ],
    "balloon_format": [
        ("near-miss", '"serialized_protobufs"'),
        ("prose", '"single_timestamp"'),
        ("typo", '"serialised_json"'),
    ],
    "fx_salt": [
        ("near-miss", "2"),
        ("prose", "4"),  # "then try other values (4, 10, 12, 16…)"
        ("typo", '"8"'),  # a number in quotes
    ],
    "dashboard_key": [
        ("near-miss", '[wb.Timestamp("ms", "epoch_ms"), wb.Field("host")]'),  # collides
        ("prose", '[wb.Timestamp("ms", "epoch_ms"), wb.Field("host"), wb.Field("what")]'),
        (
            "typo",
            '[wb.Field("site"), wb.Field("what"), wb.Timestamp("ms", "epoch_ms"), wb.Field("hots")]',
        ),
    ],
    "daily_panel": [
        ("near-miss", '"hourly"'),
        ("prose", '"hour"'),  # "try "hour" to see it fail"
        ("typo", '"dya"'),
    ],
    "lab_pattern": [
        ("near-miss", '"entity_firs"'),
        ("prose", '"timestamp_first"'),  # "try "timestamp_first" to see the check fail"
        ("typo", '"salted_"'),
    ],
}

# answers the prose names as natural that must be accepted as the right one
RIGHT_ALIASES: dict[str, list[str]] = {"daily_panel": ['"daily"', '"day"']}
