"""Three typical wrong answers per workshop exercise, as an attendee would type them after ``=``:
a near-miss name, an input the notebook's prose suggests, and a typo. Shared by the unit test
(tests/exercises/test_exercises.py) and the browser test (tests/browser/test_exercises.py)."""

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
    "week_hour_rows": [
        ("near-miss", "8"),  # the hour-bucket figure: an hour crossing a bucket boundary
        ("prose", "1"),  # "a week bucket holds a whole flight ... in one row"
        ("typo", '"4"'),  # a number in quotes
    ],
    "column_versions": [
        ("near-miss", "4"),  # the measures (columns of a row), not the versions of one
        ("prose", "2"),  # the two-day GC rule the prose names
        ("typo", '"134"'),  # a number in quotes
    ],
    "fx_salt": [
        ("near-miss", "2"),
        ("prose", "4"),  # "then try other values (4, 10, 12, 16…)"
        ("typo", '"8"'),  # a number in quotes
    ],
    "latest_emulator_rows": [
        ("near-miss", "28629"),  # every quote of every pair, not only USD/JPY's range
        ("prose", "1"),  # "Cloud Bigtable reads it with a reverse scan ... one row"
        ("typo", '"6255"'),  # a number in quotes
    ],
    "key_bytes": [
        ("near-miss", "28"),  # the key once, not once per cell
        ("prose", "4096"),  # the key limit the prose names
        ("typo", '"56"'),  # a number in quotes
    ],
    "host_first_scans": [
        ("near-miss", "3"),
        ("prose", "1"),  # §2 says Heroic's common-to-granular key reads one key range
        ("typo", '"4"'),  # a number in quotes
    ],
    "row_cells": [
        ("near-miss", "40"),  # a point per minute of the 40-minute sample, not per 10 s
        ("prose", "2"),  # Heroic's two documented points of its example series
        ("typo", '"241"'),  # a number in quotes
    ],
    "dashboard_key": [
        ("near-miss", '[wb.Timestamp("ms", "epoch_ms"), wb.Field("host")]'),  # collides
        # §2's "common to granular" read literally: host before the time, a range per host
        (
            "prose",
            '[wb.Field("site"), wb.Field("what"), wb.Field("host"), wb.Timestamp("ms", "epoch_ms")]',
        ),
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
    "latest_rows": [
        ("near-miss", "1"),  # one reverse scan, the second measure forgotten
        ("prose", "96"),  # the readings of a day (meter_day) the prose names
        ("typo", '"2"'),  # a number in quotes
    ],
    "hourly_day_rows": [
        ("near-miss", "23"),  # an hour short
        ("prose", "96"),  # the raw readings the prose sets beside it
        ("typo", '"24"'),  # a number in quotes
    ],
    "time_first_share": [
        ("near-miss", "1.0"),  # a fraction, not a percentage
        ("prose", "33"),  # the fair share the prose names
        ("typo", '"100"'),  # a number in quotes
    ],
    "fix_share": [
        ("near-miss", "0.42"),  # a fraction, not a percentage
        ("prose", "100"),  # the hotspot's share printed just above
        ("typo", '"42"'),  # a number in quotes
    ],
    "slash_bad_keys": [
        ("near-miss", "0"),  # "looks harmless"
        ("prose", "1"),  # one first bad key
        ("typo", '"28629"'),  # a number in quotes
    ],
    "cmv_maintenance": [
        ("near-miss", "7440"),  # the derived rows (one per meter and hour), not the updates
        ("prose", "0"),  # the client writes no summary rows
        ("typo", '"29760"'),  # a number in quotes
    ],
    "counter_cells": [
        ("near-miss", "24"),  # one row's hours
        ("prose", "29760"),  # one per reading, as written
        ("typo", '"7440"'),  # a number in quotes
    ],
}

# answers the prose names as natural that must be accepted as the right one
RIGHT_ALIASES: dict[str, list[str]] = {
    "daily_panel": ['"daily"', '"day"'],
    # any design whose busiest node takes under half of my_meters' writes (07's goal)
    "lab_pattern": ['"entity_first"', '"bucket_new_cells"', '"wide_rows"'],
}
