"""The designer's caches are least-recently-used (cachetools): a hit keeps an entry, the
entry used longest ago goes first, and nothing is made twice while it is kept."""

from __future__ import annotations

from workbench.ui.model import _LRU


def test_the_least_recently_used_entry_goes_first():
    made: list[str] = []

    def make(key: str):
        return lambda: made.append(key) or key.upper()

    cache = _LRU(2)
    assert cache.get_or("a", make("a")) == "A"
    assert cache.get_or("b", make("b")) == "B"
    assert cache.get_or("a", make("a")) == "A"  # a hit: "a" is now the most recent, "b" the least
    assert cache.get_or("c", make("c")) == "C"  # a third entry: "b" goes
    assert sorted(cache) == ["a", "c"]
    assert made == ["a", "b", "c"]  # "a" was made once
    cache.get_or("b", make("b"))  # made again after it went; "a" (least recent) goes now
    assert made == ["a", "b", "c", "b"] and sorted(cache) == ["b", "c"]
