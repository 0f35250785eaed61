"""A wide row's qualifier is the event's place in its bucket (G02): the day, hour, minute or
second as text, zero-padded when asked so they sort as numbers (G21), or Heroic's offset in
ms mod 2^bits (G16). Expected texts by hand for 2024-03-05 07:08:09.123 UTC."""

from __future__ import annotations

import numpy as np

from workbench.schema import Wide

# 2024-03-05 is day 19,787 since 1970 (2024-01-01 is day 19,723, + 31 + 29 + 4):
# 19,787 x 86,400,000 + 7 h 25,200,000 + 8 min 480,000 + 9.123 s 9,123 = 1,709,622,489,123 ms
T_MS = 1_709_622_489_123
T_US = np.array([T_MS * 1000])


def test_each_qualifier_kind_is_the_events_place_in_its_bucket():
    got = {
        q: list(Wide(qualifier=q).qualifiers_for(T_US)) for q in ("day", "hour", "minute", "second")
    }
    assert got == {"day": ["5"], "hour": ["7"], "minute": ["8"], "second": ["9"]}
    padded = {q: list(Wide(qualifier=q, pad=2).qualifiers_for(T_US)) for q in ("day", "hour")}
    assert padded == {"day": ["05"], "hour": ["07"]}


def test_an_offset_qualifier_is_the_ms_modulo_2_to_the_bits():
    # 1,709,622,489,123 // 1,024 = 1,669,553,212; x 1,024 = 1,709,622,489,088; remainder 35
    assert list(Wide(qualifier="offset_ms", bits=10).qualifiers_for(T_US)) == ["35"]


def test_a_wide_layout_lists_each_measures_family():
    # G18: one family per measure, each named next to its column
    text = Wide("minute", {"temp": "t", "hum": "h"}).describe()
    assert "qualifier = minute" in text and "temp→t, hum→h" in text
