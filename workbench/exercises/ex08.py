"""Notebook 08's exercises (Bigtable today: row-key schemas, aggregates, materialized views)."""

from __future__ import annotations

from .core import ____

__all__ = ["____"]
