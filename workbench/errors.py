"""The workbench's exceptions: each names the problem and what to do about it."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base class of every error the workbench raises on purpose."""


class EmulatorError(WorkbenchError, RuntimeError):
    """The emulator could not be found, started, reached or used."""


class EmulatorNotFound(EmulatorError):
    """No way to start a Bigtable emulator on this machine."""


class EmulatorUnavailable(EmulatorError):
    """The emulator (or instance) stopped answering."""


class ProductionNotAllowed(WorkbenchError, PermissionError):
    """A real Cloud Bigtable instance was named without the explicit opt-in."""


class ConfirmationRequired(WorkbenchError, PermissionError):
    """A destructive action on a real instance lacks its second confirmation."""


class DatasetError(WorkbenchError, ValueError):
    """A dataset name, size or frame is not usable; the message names the column and rows."""


class SchemaError(WorkbenchError, ValueError):
    """A schema cannot be applied to a dataset (unknown column, bad parameter, limit, collision)."""


class CollisionError(SchemaError):
    """Two or more events map to the same cell, so one would silently overwrite another."""


class LimitError(SchemaError):
    """A key, qualifier, cell or row is over a Cloud Bigtable limit the emulator does not enforce."""


class WriteError(WorkbenchError, RuntimeError):
    """A write stopped part-way; the message says how much was written and how to resume."""


class ReportError(WorkbenchError, RuntimeError):
    """A report could not be made, or a notebook failed while executing (the message names it and the cell)."""
