"""Bigtable access: the emulator process, connections, admin, writer and reader."""

from __future__ import annotations

from typing import Any

from .connection import Connection
from .emulator import Emulator


def connect(
    project: str | None = None,
    instance: str | None = None,
    *,
    allow_production: bool | None = None,
    **kwargs: Any,
) -> Connection:
    """The emulator (default), or a real instance when project+instance are named and opted in."""
    if project or instance:
        return Connection.cloud(
            project or "", instance or "", allow_production=allow_production, **kwargs
        )
    return Emulator().start().connection()  # BIGTABLE_EMULATOR_HOST, the CLI's, or a new one


__all__ = ["Connection", "Emulator", "connect"]
