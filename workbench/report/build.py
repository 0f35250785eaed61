"""Reports for a set of notebooks: execute, export, write ``DIR/<notebook>.html`` and an index;
``workbench report`` (``main_report``) is its command line."""

from __future__ import annotations

import argparse
import errno
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import nbformat

from ..errors import ReportError, WorkbenchError
from ..guidelines import GUIDELINES
from ..units import human_bytes
from . import _templates
from ._findings import CellError, Finding, NotebookFacts
from ._scrub import Scrubber
from .execute import execute_notebook, report_notebooks
from .export import export_html, offline_problems
from .provenance import REPO_ROOT, emulator_description, now_utc

META_DIR = ".report-meta"
# Room a report needs on disk, checked before anything runs: a page with its figures and widget
# state inlined is a few MB (the workshop notebooks' pages: 0.5-4 MB), so 10 MB each is generous.
REPORT_BYTES = 10 * 1024 * 1024


def _os_error(exc: OSError, path: Path) -> str:
    """An OSError as one line: the path, the reason, and what to do."""
    reason = exc.strerror or str(exc)
    code = errno.errorcode.get(exc.errno or 0, "")
    return (
        f"Cannot write to {path}: {reason}{f' ({code})' if code else ''}. Free space, fix the "
        "folder's permissions or choose another --out folder."
    )


def check_out_dir(out: Path, reports: int = 1) -> None:
    """Before any notebook runs: the output folder exists (or is created), takes a file and has
    room for ``reports`` reports; otherwise a one-line :class:`ReportError`."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".wb-probe-") as probe:
            probe.write(b"\0" * 65536)
            probe.flush()
            os.fsync(probe.fileno())
        free = shutil.disk_usage(out).free
    except OSError as exc:
        raise ReportError(_os_error(exc, out)) from None
    need = reports * REPORT_BYTES
    if free < need:
        raise ReportError(
            f"{out} has {human_bytes(free)} free; {reports} report(s) need about "
            f"{human_bytes(need)}. Free space or choose another --out folder. Nothing was run."
        )


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder and rename it over ``path``: a full
    disk or a crash leaves the previous file (or none), never a truncated one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReportError(_os_error(exc, path)) from None


@dataclass
class Report:
    """One written report: where it is and what its index entry says."""

    path: Path
    facts: NotebookFacts
    made: str
    seconds: float
    executed: bool
    stopped: bool = False

    @property
    def ok(self) -> bool:
        return not self.facts.errors


# -- whole reports --------------------------------------------------------------------------
def _display_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return path.name


def build_report(
    notebook: Path,
    out: Path = Path("reports"),
    *,
    execute: bool = True,
    timeout: int = 600,
    emulator_host: str | None = None,
    emulator_info: str | None = None,
    live: bool = False,
    allow_errors: bool = False,
    scrubber: Scrubber | None = None,
) -> Report:
    """Execute (optionally) and export one notebook to ``out/<stem>.html``; also writes its index entry."""
    notebook = Path(notebook)
    if not notebook.is_file():
        raise ReportError(f"No notebook at {notebook}: give the path of an .ipynb file.")
    check_out_dir(out)
    stopped = False
    seconds = 0.0
    if execute:
        nb, seconds, stopped = execute_notebook(
            notebook, emulator_host=emulator_host, timeout=timeout, allow_errors=allow_errors
        )
    else:
        nb = nbformat.read(notebook, as_version=4)
    hosts = [emulator_host] if emulator_host else []
    scrubber = scrubber or Scrubber.for_environment(
        roots=[
            (notebook.resolve().parent, "[notebooks]"),
            (REPO_ROOT, "[repo]"),
            (out.resolve(), "[reports]"),
        ],
        hosts=hosts,
    )
    made = now_utc()
    header = {
        "executed": execute,
        "seconds": seconds,
        "made": made,
        "stopped": stopped,
        "index_href": "index.html",
        "emulator": emulator_info
        or emulator_description(None) + ("" if execute else " (not used)"),
    }
    body, facts = export_html(
        nb,
        stem=notebook.stem,
        notebook=_display_name(notebook),
        scrubber=scrubber,
        live=live,
        header=header,
    )
    path = out / f"{notebook.stem}.html"
    write_atomic(path, body)
    report = Report(
        path=path, facts=facts, made=made, seconds=seconds, executed=execute, stopped=stopped
    )
    meta = out / META_DIR
    try:
        meta.mkdir(exist_ok=True)
    except OSError as exc:
        raise ReportError(_os_error(exc, meta)) from None
    write_atomic(
        meta / f"{notebook.stem}.json",
        json.dumps(
            {
                **facts.to_dict(),
                "made": made,
                "seconds": seconds,
                "executed": execute,
                "href": path.name,
            },
            indent=1,
        ),
    )
    return report


def build_index(
    out: Path = Path("reports"), title: str = "Bigtable time-series schema workbench: reports"
) -> Path:
    """``out/index.html``: every report in ``out`` with its findings, summary and guideline IDs."""
    entries = []
    for meta in sorted((out / META_DIR).glob("*.json")):
        data = json.loads(meta.read_text())
        if not (out / data["href"]).is_file():
            continue
        data["findings"] = [Finding(**f) for f in data["findings"]]
        data["errors"] = [CellError(**e) for e in data["errors"]]
        entries.append(data)
    env = jinja2.Environment(autoescape=False)
    page = env.from_string(_templates.INDEX_TEMPLATE).render(
        title=title,
        reports=entries,
        made=now_utc(),
        css=_templates.WIDGET_CSS,
        guideline_titles=_guideline_titles(),
    )
    remote = offline_problems(page)
    if remote:
        raise ReportError(
            f"The index would load resources from the network: {', '.join(remote[:5])}"
        )
    path = out / "index.html"
    write_atomic(path, page)
    return path


def _guideline_titles() -> dict[str, str]:
    """Short guideline titles for the index's chips, from the package's catalogue."""
    return dict(GUIDELINES)


def build_reports(
    notebooks: list[Path] | None = None,
    out: Path = Path("reports"),
    *,
    execute: bool = True,
    timeout: int = 600,
    emulator: Any | None = None,
    live: bool = False,
    allow_errors: bool = False,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Execute notebooks and write one offline HTML report each plus ``out/index.html``; returns the paths.

    ``notebooks`` defaults to every workshop notebook, then the attendee's own notebooks in
    ``notebooks/`` (:func:`report_notebooks`). The kernels find the
    emulator through ``BIGTABLE_EMULATOR_HOST``: ``emulator`` (an ``Emulator``
    or a ``host:port``) when given, otherwise one reused or started here (and
    stopped at the end only if started here). A failing cell does not stop the
    other notebooks: every report and the index are written, then
    :class:`ReportError` names the notebooks and cells that failed (unless
    ``allow_errors``). ``progress`` receives a line as each notebook starts and ends.
    """
    notebooks = [Path(p) for p in notebooks] if notebooks else report_notebooks()
    if not notebooks:
        raise ReportError(
            f"No notebooks to report on: none given and none in {REPO_ROOT / 'notebooks'}."
        )
    missing = [str(p) for p in notebooks if not Path(p).is_file()]
    if missing:
        raise ReportError(f"No notebook at: {', '.join(missing)}.")
    for path in notebooks:  # every input checked before anything runs or is written
        try:
            nbformat.read(path, as_version=4)
        except (
            Exception
        ) as exc:  # nbformat raises several kinds (NotJSONError, ValidationError, ...)
            raise ReportError(
                f"{path} is not a Jupyter notebook ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0][:200]}). Give .ipynb files."
            ) from None
    out = Path(out)
    check_out_dir(out, len(notebooks))  # before any notebook runs
    say = progress or (lambda _line: None)
    started = None
    host = None
    info = None
    if execute:
        from ..bigtable.emulator import Emulator

        if isinstance(emulator, str):
            emu = Emulator(emulator).start()
        elif emulator is not None:
            emu = emulator
        else:
            emu = started = Emulator().start()
            if not emu.owned:
                started = None
        host = emu.host
        info = emulator_description(emu, started_here=started is not None)
    reports: list[Report] = []
    try:
        for i, nb_path in enumerate(notebooks, start=1):
            say(f"[{i}/{len(notebooks)}] {_display_name(Path(nb_path))} ...")
            report = build_report(
                nb_path,
                out,
                execute=execute,
                timeout=timeout,
                emulator_host=host,
                emulator_info=info,
                live=live,
                allow_errors=allow_errors,
            )
            reports.append(report)
            say(
                f"      {report.path} ({report.seconds:.0f} s{'' if report.ok else ', FAILED: see the page'})"
            )
    finally:
        if started is not None:
            started.stop()
    index = build_index(out)
    failed = [r for r in reports if not r.ok]
    if failed and not allow_errors:
        lines = [
            f"  {r.facts.notebook}: " + "; ".join(f"cell {e.cell} {e.text}" for e in r.facts.errors)
            for r in failed
        ]
        raise ReportError(
            f"{len(failed)} notebook(s) failed while executing (reports written to {out}, "
            f"see {index}):\n" + "\n".join(lines)
        )
    return [r.path for r in reports] + [index]


# -- command line ---------------------------------------------------------------------------
def main_report(argv: list[str] | None = None) -> int:
    """``workbench report [NOTEBOOK ...] --out DIR [--live] [--no-execute] [--timeout S] [--allow-errors]``."""
    p = argparse.ArgumentParser(
        prog="workbench report",
        description="Execute notebooks and write self-contained HTML reports that open offline.",
    )
    p.add_argument(
        "notebooks",
        nargs="*",
        help="notebooks (default: the workshop's, then your own in notebooks/)",
    )
    p.add_argument("--out", default="reports", help="output folder (default: reports)")
    p.add_argument(
        "--live", action="store_true", help="inline the widget renderer (live widgets offline)"
    )
    p.add_argument(
        "--no-execute",
        dest="execute",
        action="store_false",
        help="export the saved outputs as they are",
    )
    p.add_argument("--timeout", type=int, default=600, help="seconds per cell (default: 600)")
    p.add_argument(
        "--allow-errors", action="store_true", help="run every cell even after a failure; exit 0"
    )
    args = p.parse_args(argv)
    try:
        paths = build_reports(
            [Path(n) for n in args.notebooks] or None,
            Path(args.out),
            execute=args.execute,
            timeout=args.timeout,
            live=args.live,
            allow_errors=args.allow_errors,
            progress=lambda line: print(line, flush=True),
        )
    except WorkbenchError as exc:  # a failed cell's text may carry a secret: scrubbed here too
        print(f"error: {Scrubber.for_environment().secrets(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:  # anything not written through write_atomic: still one line
        print(f"error: {_os_error(exc, Path(exc.filename or args.out))}", file=sys.stderr)
        return 1
    print(f"index: {paths[-1]}")
    return 0
