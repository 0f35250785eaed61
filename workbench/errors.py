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


class RemovedKeyword(WorkbenchError, TypeError):
    """A keyword an entry point no longer takes; the message says what to write instead."""


class DatasetError(WorkbenchError, ValueError):
    """A dataset name, size or frame is not usable; the message names the column and rows."""


class SettingsError(WorkbenchError, ValueError):
    """An analysis setting is refused: the message names the field, the value given and what it
    accepts (``workbench/analysis/settings.py``, ``SETTING_RULES``)."""


class SchemaError(WorkbenchError, ValueError):
    """A schema cannot be applied to a dataset (unknown column, bad parameter, limit, collision)."""


class CollisionError(SchemaError):
    """Two or more events map to the same cell, so one would silently overwrite another."""


class LimitError(SchemaError):
    """A key, qualifier, cell or row is over a Cloud Bigtable limit the emulator does not enforce."""


class WriteError(WorkbenchError, RuntimeError):
    """A write stopped part-way; the message says how much was written and how to resume."""


class ReadStreamError(WorkbenchError, RuntimeError):
    """A ReadRows stream broke the protocol (a row never committed, keys out of order, a reset
    carrying data, ...): the message names the chunk and what is wrong; no uncommitted cell is kept."""


class ReportError(WorkbenchError, RuntimeError):
    """A report could not be made, or a notebook failed while executing (the message names it and the cell)."""


class ExtraMissing(WorkbenchError, ImportError):
    """A feature of the lab (figures, the designer, reports, JupyterLab) was used in an install
    without the ``[lab]`` extra (a worker's runtime-only ``pip install bigtable-ts-workbench``)."""


LAB_INSTALL = 'pip install "bigtable-ts-workbench[lab]"'


def require_lab(feature: str, *modules: str) -> None:
    """Refuse ``feature`` with :class:`ExtraMissing` when any of ``modules`` (top-level import
    names of the ``[lab]`` extra) is not installed; looks them up without importing them."""
    from importlib.util import find_spec

    missing = [m for m in modules if find_spec(m) is None]
    if missing:
        raise ExtraMissing(
            f"{feature} needs the workbench's lab extra ({', '.join(missing)} not installed: "
            f"this install has only the runtime the cell, analysis and Bigtable paths use). "
            f"Install it with:  {LAB_INSTALL}"
        )


# -- showing an error to a person -------------------------------------------------------------
# The designer, the exercises and a notebook cell show a workbench error the same way: the first
# line of its message (what went wrong) with its advice, the evidence (e.g. colliding events) as
# detail underneath, and the Python traceback only on request.


def error_parts(exc: BaseException) -> tuple[str, str]:
    """An error's message split for reading: the first line (what went wrong) plus, when the
    message ends with one, its last line (what to do); everything between is the detail."""
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    if not lines:
        return type(exc).__name__, ""
    head, rest = lines[0], lines[1:]
    if len(head) > 300:  # one very long line: its first sentence leads, the rest is detail
        cut = head.find(". ", 0, 300)
        if cut > 0:
            head, rest = head[: cut + 1], [head[cut + 2 :], *rest]
    if len(rest) >= 2:  # "what went wrong … [evidence] … what to do": the advice stays visible
        head, rest = f"{head} {rest[-1].strip()}", rest[:-1]
    return head, "\n".join(rest)


def error_line(exc: BaseException) -> str:
    """The one line a person reads first: ``error_parts(exc)[0]``."""
    return error_parts(exc)[0]


TRACEBACKS_ENV = "WORKBENCH_TRACEBACKS"
_FULL_TRACEBACKS = [False]


def full_tracebacks(on: bool = True) -> None:
    """Show workbench errors in notebooks with Python's whole traceback again (``on=False``:
    back to the one-line message). ``%tb`` shows the last one's traceback either way."""
    _FULL_TRACEBACKS[0] = bool(on)


def _wants_tracebacks() -> bool:
    import os

    env = os.environ.get(TRACEBACKS_ENV, "").strip().lower() in {"1", "true", "yes", "on"}
    return _FULL_TRACEBACKS[0] or env


def _show_briefly(shell, etype, evalue, tb, tb_offset=None):
    """IPython's handler for the workbench's own errors: the message, not the internals."""
    import sys

    # %tb and %debug read these: the full traceback stays one command away
    sys.last_type, sys.last_value, sys.last_traceback = etype, evalue, tb
    if _wants_tracebacks():
        shell.showtraceback((etype, evalue, tb), tb_offset=tb_offset)
        return None
    head, detail = error_parts(evalue)
    red, dim, bold, off = "\x1b[31m", "\x1b[2m", "\x1b[1m", "\x1b[0m"
    lines = [f"{red}{bold}{etype.__name__}:{off}{red} {head}{off}"]
    lines += [f"{dim}{ln}{off}" for ln in detail.splitlines()]
    lines.append(
        f"{dim}(the full traceback: run %tb, or wb.full_tracebacks() to see it every time){off}"
    )
    # an "error" output like any other: the cell is marked failed and Run All stops here
    shell._showtraceback(etype, evalue, lines)
    return None


def install_notebook_display(shell=None) -> bool:
    """Register the brief display for :class:`WorkbenchError` in the running IPython (no-op
    outside IPython). Returns True when registered."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None:
        return False
    shell.set_custom_exc((WorkbenchError,), _show_briefly)
    return True
