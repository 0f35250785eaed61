"""The notebook session: ``wb.setup()``, ``wb.emulator()``, ``wb.cleanup()``.

One :class:`Session` per kernel owns "the emulator this notebook uses", the tables the
notebook created (so ``cleanup()`` drops them) and their clean-up. ``Emulator`` only
manages a process; the session decides which emulator the kernel uses and replaces a
dead one. (The module is not called ``setup``: a submodule named like the ``wb.setup``
function would shadow it once imported.)

``setup()`` prints the versions that matter, finds the emulator (the one JupyterLab was
started with, one left running by ``workbench emulator start``, or a new one it
starts for this kernel) and sets plotting and display defaults, so notebook
cells never carry client, table or styling plumbing.
"""

from __future__ import annotations

import atexit
import html
import importlib.metadata as md
import os
import platform
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field

from .bigtable.emulator import ENV_HOST, Emulator, port_is_open
from .errors import EmulatorError, ProductionNotAllowed, install_notebook_display

_VERSIONED = (
    "workbench",
    "google-cloud-bigtable",
    "pandas",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "jupyterlab",
)


def versions() -> dict[str, str]:
    """Versions of Python and the packages whose behaviour the workshop depends on."""
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        dist = "bigtable-ts-workbench" if name == "workbench" else name
        try:
            out[name] = md.version(dist)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    return out


def plan_as_analyzed(emu: Emulator) -> Emulator:
    """Make ``emu``'s loaded tables plan their reads as ``analyze`` does without a stated
    workload: at the settings' read costs and the default retention (a read bounding no time
    weighs a year of history), so ``TableHandle.run`` reads the plans the analysis shows."""
    from .analysis.settings import DEFAULT
    from .datasets.workload import RETENTION_MONTHS

    emu.read_costs = DEFAULT.read_costs()
    emu.plan_retention_s = RETENTION_MONTHS * DEFAULT.hours_per_month * 3600
    return emu


# JupyterLab breaks printed text anywhere (its output ``pre`` has ``word-break: break-all``): at
# 1280 px 02 printed "'seria|lized_protobuf'" and a player's "93|1" games over two lines. The
# setup cell's output carries this rule for the page it is shown in: printed lines wrap between
# words, and only a word longer than the line breaks inside.
WRAP_WHOLE_WORDS = (
    "<style>.jp-OutputArea-output pre{word-break:normal;overflow-wrap:anywhere}</style>"
)


@dataclass
class SetupInfo:
    """What ``setup()`` found; renders as a small table in the notebook and the report."""

    versions: dict[str, str]
    emulator: Emulator | None
    problem: str | None = None
    tables: list[str] = field(default_factory=list)
    note: str | None = None

    @property
    def emulator_ok(self) -> bool:
        return self.emulator is not None and self.problem is None

    def _status_line(self) -> str:
        if self.emulator_ok and self.emulator is not None:
            how = "started for this kernel" if self.emulator.owned else "reused"
            line = (
                f"live Bigtable emulator at {self.emulator.host} ({how}); "
                f"{len(self.tables)} table(s) in {self.emulator.project}/{self.emulator.instance}"
            )
            return f"{line}\n{self.note}" if self.note else line
        return f"no emulator: {self.problem}"

    def __repr__(self) -> str:
        lines = ["Bigtable time-series schema workbench"]
        lines += [f"  {k:<22} {v}" for k, v in self.versions.items()]
        lines.append(f"  emulator               {self._status_line()}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(k)}</td><td><code>{html.escape(v)}</code></td></tr>"
            for k, v in self.versions.items()
        )
        colour = "#009E73" if self.emulator_ok else "#D55E00"
        status = html.escape(self._status_line()).replace("\n", "<br>")
        return (
            f"{WRAP_WHOLE_WORDS}<div><b>Bigtable time-series schema workbench</b>"
            f"<table>{rows}</table>"
            f"<p style='color:{colour}'><b>Emulator:</b> {status}</p></div>"
        )


def _style_plots() -> None:
    from importlib.util import find_spec

    if find_spec("matplotlib") is None:  # a runtime-only install (no [lab]): nothing to style
        return
    from .plots import style  # the figure module owns the look

    style.apply()


class Session:
    """The kernel's emulator and the tables the notebook created in it."""

    def __init__(self) -> None:
        self.emulator: Emulator | None = None
        self.tables: list[str] = []
        self.note: str | None = None  # why the previous emulator was replaced, if it was
        self._watchdogs: dict[int, subprocess.Popen] = {}  # id(emulator) → its watchdog

    def ensure_emulator(self) -> Emulator:
        """The live emulator of this kernel: reused, or started (again) when none answers.

        A ``BIGTABLE_EMULATOR_HOST`` that no longer answers (its emulator died, or it was the
        one this kernel started and lost) must not trap the kernel: the session then starts
        its own emulator and says so in :attr:`note`.
        """
        emu = self.emulator
        if emu is not None and emu.alive():
            return emu
        if emu is not None:
            self.note = (
                f"the emulator at {emu.host} stopped answering; a new one was started "
                "(it holds no tables: load the data again)"
            )
            self._stop_owned(emu)
            self.tables.clear()
        env = os.environ.get(ENV_HOST)
        if env:
            from .bigtable.connection import check_emulator_host

            check_emulator_host(env)  # a remote emulator needs the opt-in before any socket
        if env and emu is not None and env == emu.host:
            os.environ.pop(ENV_HOST, None)  # it named our dead emulator (noted above)
        elif env and not port_is_open(env, timeout=1.0):
            self.note = (
                f"{ENV_HOST}={env} names no running emulator; this kernel started its own "
                "(it holds no tables)"
            )
            os.environ.pop(ENV_HOST, None)
        emu = Emulator().start()
        plan_as_analyzed(emu)
        self.emulator = emu
        if emu.note:  # e.g. its log went to a temporary directory
            self.note = f"{self.note}\n{emu.note}" if self.note else emu.note
        if emu.owned:
            # atexit covers a normal exit; a kernel killed by SIGTERM or SIGKILL runs no atexit,
            # so a watchdog (its own session) stops the emulator when this process is gone
            self._watch(emu)
            atexit.register(self._stop_owned, emu)
        os.environ[ENV_HOST] = emu.host or ""  # so `cbt` and the official Client find it too
        return emu

    def _watch(self, emu: Emulator) -> None:
        """Start ``_watchdog.py`` on the emulator this kernel started: the watchdog holds the
        reading end of a pipe only this process writes, so when the kernel dies in any way
        (SIGTERM, SIGKILL, a crash) it reads end of input and stops the emulator's process
        group (SIGTERM, SIGKILL after its grace)."""
        import sys

        from . import _watchdog

        try:
            dog = subprocess.Popen(
                [sys.executable, _watchdog.__file__],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                text=True,
                start_new_session=True,
            )
            assert dog.stdin is not None
            dog.stdin.write(f"watch {emu.pid}\n")
            dog.stdin.flush()
        except OSError:  # no watchdog: atexit still stops it on a normal exit
            return
        self._watchdogs[id(emu)] = dog

    def _stop_owned(self, emu: Emulator) -> None:
        """Stop an emulator this kernel started, then release its watchdog (``done``: it must
        not signal a process ID the system may give to another process later)."""
        emu.stop()
        dog = self._watchdogs.pop(id(emu), None)
        if dog is None:
            return
        try:
            if dog.stdin is not None:
                dog.stdin.write("done\n")
                dog.stdin.close()
            dog.wait(timeout=5)
        except (OSError, ValueError):
            pass
        except Exception:  # a watchdog that does not exit is killed: it watches nothing now
            dog.kill()

    def register(self, table_ids: str | Iterable[str]) -> None:
        """Remember tables this kernel created so :meth:`cleanup` can drop them."""
        for table_id in [table_ids] if isinstance(table_ids, str) else table_ids:
            if table_id not in self.tables:
                self.tables.append(table_id)

    def cleanup(self, *, stop_emulator: bool = False) -> Dropped:
        import sys

        plt = sys.modules.get("matplotlib.pyplot")  # figures only if something drew them
        if plt is not None:
            plt.close("all")
        dropped = Dropped()
        emu = self.emulator
        if emu is not None:
            self.register(emu.created_tables)
        if emu is not None and emu.alive() and self.tables:
            from google.cloud.bigtable_admin_v2.types import DeleteTableRequest

            conn = emu.connection()
            existing = set(conn.list_tables())
            for table_id in list(self.tables):
                if table_id in existing:
                    conn.call(
                        f"Dropping table {table_id}",
                        conn.admin.delete_table,
                        request=DeleteTableRequest(name=conn.table_path(table_id)),
                    )
                    dropped.append(table_id)
        self.tables.clear()
        if emu is not None:
            emu.created_tables.clear()
        if stop_emulator and emu is not None:
            self._stop_owned(emu)
            self.emulator = None
        return dropped


SESSION = Session()


def _plain_numbers() -> None:
    """NumPy scalars print as numbers in the kernel: a list of them formatted into text (a
    table cell, a finding, a widget's label) read ``[np.int64(4)]`` in 08 where ``[4]`` was
    meant. NumPy 2 made the type part of a scalar's repr; its ``legacy="1.25"`` print option
    (NumPy's own switch back) changes only that, for every text the kernel formats."""
    import numpy as np

    np.set_printoptions(legacy="1.25")


def setup(*, emulator: bool = True) -> SetupInfo:
    """Prepare a notebook kernel: versions, emulator (start one if none runs), display defaults.

    Without an emulator this does not fail: it says how to install one and what
    still works, and the cells that write to Bigtable raise the same clear error.
    """
    import pandas as pd

    pd.set_option("display.max_columns", 30)
    pd.set_option("display.width", 160)
    # whole texts in tables (a ranking's reason ran to "…" at 50 characters): the page wraps them
    pd.set_option("display.max_colwidth", None)
    _plain_numbers()
    _style_plots()
    # a workbench error shows its message in one line, not 30 lines of the workbench's internals
    install_notebook_display()
    emu: Emulator | None = None
    problem = None
    tables: list[str] = []
    if emulator:
        try:
            emu = SESSION.ensure_emulator()
            tables = emu.connection().list_tables()
        except (EmulatorError, ProductionNotAllowed) as exc:
            problem = str(exc)
            emu = None
    # Returned, not displayed: as the cell's last expression it renders once.
    return SetupInfo(
        versions=versions(), emulator=emu, problem=problem, tables=tables, note=SESSION.note
    )


def emulator() -> Emulator:
    """The emulator ``setup()`` found or started (starting one if setup was skipped)."""
    return SESSION.ensure_emulator()


def register_table(table_id: str) -> None:
    """Remember a table this kernel created so ``cleanup()`` can drop it."""
    SESSION.register(table_id)


class Dropped(list):
    """The table IDs :func:`cleanup` dropped; shows itself as one sentence, not a bare list."""

    def __repr__(self) -> str:
        if not self:
            return "Cleanup: no tables to drop; figures closed."
        return f"Cleanup: dropped {len(self)} table(s) this notebook created ({', '.join(self)}); figures closed."


def cleanup(*, stop_emulator: bool = False) -> Dropped:
    """Drop the tables this kernel created and close figures; return the dropped table IDs."""
    return SESSION.cleanup(stop_emulator=stop_emulator)
