"""Executed notebooks as self-contained HTML reports that open offline (issue 8).

``build_reports`` runs each notebook top to bottom with nbclient against the
real emulator (one it starts or reuses), keeps the widget state, and exports
HTML with nbconvert's ``lab`` template through three preprocessors:

1. :class:`ScrubPreprocessor` removes tokens, credentials, emulator addresses
   and local paths from sources, outputs, metadata and widget state;
2. :class:`StaticWidgetsPreprocessor` draws every widget from its saved state
   as plain HTML (no JavaScript, no CDN);
3. :class:`FindingsPreprocessor` collects the marked findings and guideline IDs
   for the index page.

The template drops everything that would load from the network (require.js,
the widget renderer, MathJax, Mermaid) and adds a header with the date, the
versions and the emulator used. The result is checked before it is written:
no secret or local path left, no ``src``/``href`` that would leave the file.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.metadata as md
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import Preprocessor

from ..errors import WorkbenchError
from . import _templates
from ._findings import CellError, Finding, FindingsPreprocessor, NotebookFacts, collect, finding
from ._scrub import Scrubber
from ._widgets import StaticWidgets, StaticWidgetsPreprocessor

__all__ = [
    "build_reports",
    "build_report",
    "export_html",
    "execute_notebook",
    "main_report",
    "finding",
    "Scrubber",
    "StaticWidgets",
    "ReportError",
    "Report",
    "workshop_notebooks",
    "offline_problems",
]

REPO_ROOT = Path(__file__).resolve().parents[2]
META_DIR = ".report-meta"
_VERSIONED = (
    "bigtable-ts-workbench",
    "google-cloud-bigtable",
    "pandas",
    "numpy",
    "matplotlib",
    "ipywidgets",
    "nbconvert",
)


class ReportError(WorkbenchError, RuntimeError):
    """A report could not be made, or a notebook failed while executing (the message names it and the cell)."""


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


# -- execution ------------------------------------------------------------------------------
def workshop_notebooks(root: Path = REPO_ROOT) -> list[Path]:
    """The numbered workshop notebooks, in order (``notebooks/00_start_here.ipynb`` …)."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def execute_notebook(
    path: Path,
    *,
    emulator_host: str | None,
    timeout: int = 600,
    allow_errors: bool = False,
    env: dict[str, str] | None = None,
) -> tuple[Any, float, bool]:
    """Run ``path`` top to bottom in a fresh ``python3`` kernel (cwd = its folder), keeping widget state.

    Returns the executed notebook, the seconds it took, and whether execution
    stopped at a failing cell (its error is in that cell's outputs).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(path, as_version=4)
    kernel_env = {**os.environ, **(env or {})}
    if emulator_host:
        kernel_env["BIGTABLE_EMULATOR_HOST"] = emulator_host
    kernel_env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    client = NotebookClient(
        nb,
        timeout=timeout,
        startup_timeout=120,
        kernel_name="python3",
        store_widget_state=True,
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(path.resolve().parent)}},
    )
    started: list[int] = []
    client.on_cell_execute = lambda cell, cell_index: started.append(cell_index)
    t0 = time.perf_counter()
    stopped = False
    with tempfile.TemporaryFile() as kernel_log:
        try:
            client.execute(env=kernel_env, stderr=kernel_log)
        except CellExecutionError:
            stopped = (
                True  # the failing cell's error output is in the notebook; the report shows it
            )
        except CellTimeoutError:
            stopped = True
            if started:
                nb.cells[started[-1]].outputs.append(
                    nbformat.v4.new_output(
                        "error",
                        ename="CellTimeoutError",
                        evalue=f"the cell did not finish within {timeout} s",
                        traceback=[f"CellTimeoutError: the cell did not finish within {timeout} s"],
                    )
                )
        except DeadKernelError as exc:
            kernel_log.seek(0)
            tail = kernel_log.read().decode(errors="replace")[-2000:]
            raise ReportError(
                f"The kernel running {path.name} died: {exc}\nKernel log:\n{tail}"
            ) from exc
    return nb, time.perf_counter() - t0, stopped


# -- facts for the header -------------------------------------------------------------------
def report_versions() -> dict[str, str]:
    """Python and the package versions a report states it was made with."""
    out = {"python": platform.python_version()}
    for dist in _VERSIONED:
        try:
            out["workbench" if dist == "bigtable-ts-workbench" else dist] = md.version(dist)
        except md.PackageNotFoundError:
            out["workbench" if dist == "bigtable-ts-workbench" else dist] = "not installed"
    return out


def emulator_description(emulator: Any | None, started_here: bool = False) -> str:
    """Where the emulator came from, e.g. "cbtemulator from Google Cloud SDK 528.0.0 (started for this report)"."""
    from ..bigtable.emulator import find_emulator_command

    binary = "Bigtable emulator"
    try:
        cmd = find_emulator_command(search_gcloud=False)
        binary = f"{Path(cmd.argv[0]).name} ({cmd.source.split(' at ')[0]})"
        sdk = Path(cmd.argv[0]).resolve().parents[2] / "VERSION"
        if "Google Cloud SDK" in cmd.source and sdk.is_file():
            binary = f"{Path(cmd.argv[0]).name} from Google Cloud SDK {sdk.read_text().strip()}"
    except Exception:  # no binary here: the report still says which emulator it used
        pass
    if emulator is None:
        return binary
    how = (
        "started for this report run (each notebook's setup cell reuses it)"
        if started_here
        else "an emulator already running, reused"
    )
    return f"{binary}, {how}"


def _git_commit(root: Path = REPO_ROOT) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    commit = out.stdout.strip() if out.returncode == 0 else ""
    return f"{commit}+changes" if commit and dirty else commit


# -- export ---------------------------------------------------------------------------------
class ScrubPreprocessor(Preprocessor):
    """Removes secrets and local paths from every cell and from the notebook metadata (see ``_scrub``)."""

    def __init__(self, scrubber: Scrubber, **kw: Any):
        super().__init__(**kw)
        self.scrubber = scrubber

    def preprocess(self, nb, resources):  # type: ignore[no-untyped-def]
        for cell in nb.cells:  # secrets the notebook sets itself (%env, os.environ[...] = ...)
            if cell.get("cell_type") == "code":
                self.scrubber.learn_source(cell.source)
        self.scrubber.obj(nb.metadata)
        for cell in nb.cells:
            cell.source = self.scrubber.text(cell.source)
            self.scrubber.obj(cell.metadata)
            if "outputs" in cell:
                self.scrubber.obj(cell.outputs)
        return nb, resources


def _exporter(live: bool) -> HTMLExporter:
    exporter = HTMLExporter(
        template_name="lab",
        theme="light",
        embed_images=True,
        extra_loaders=[
            jinja2.DictLoader({"workbench_report.html.j2": _templates.NOTEBOOK_TEMPLATE})
        ],
        template_file="workbench_report.html.j2",
    )
    exporter.register_preprocessor(StaticWidgetsPreprocessor(keep_state=live), enabled=True)
    exporter.register_preprocessor(FindingsPreprocessor(), enabled=True)
    return exporter


_REMOTE = re.compile(
    r"""(?:\b(?:src|href|srcset|poster|data|action)\s*=\s*["']?\s*|url\(\s*["']?|@import\s+["']?)"""
    r"""((?:https?:|ftp:|wss?:)?//[^\s"'<>)]+)""",
    re.I,
)


def offline_problems(page: str) -> list[str]:
    """References in ``page`` a browser would fetch from the network (links a reader clicks are fine)."""
    page = re.sub(r"data:[\w/+.\-]+;base64,[A-Za-z0-9+/=\s]+", "data:", page)
    problems = []
    for m in _REMOTE.finditer(page):
        start = page.rfind("<", 0, m.start())
        tag = page[start : start + 3].lower()
        if tag.startswith("<a ") or tag.startswith("<a\n"):
            continue  # an ordinary link: nothing is loaded until a reader clicks it
        problems.append(m.group(1))
    return problems


def _neutralise_remote(nb: Any) -> None:
    """Markdown images that point at the internet become links: the page must not fetch them."""
    pattern = re.compile(r"!\[([^\]]*)\]\(((?:https?:)?//[^)\s]+)[^)]*\)")
    html_img = re.compile(r"<img\b[^>]*\bsrc\s*=\s*[\"']((?:https?:)?//[^\"']+)[\"'][^>]*>", re.I)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = pattern.sub(r"[\1 (image on the web, not embedded)](\2)", cell.source)
            cell.source = html_img.sub(
                r"<a href='\1'>(image on the web, not embedded)</a>", cell.source
            )
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/html" in data:
                text = (
                    "".join(data["text/html"])
                    if isinstance(data["text/html"], list)
                    else data["text/html"]
                )
                data["text/html"] = html_img.sub(
                    r"<a href='\1'>(image on the web, not embedded)</a>", text
                )


def export_html(
    nb: Any,
    *,
    stem: str,
    notebook: str,
    scrubber: Scrubber | None = None,
    live: bool = False,
    header: dict[str, Any] | None = None,
) -> tuple[str, NotebookFacts]:
    """An executed notebook as one self-contained HTML page, and the facts for the index."""
    scrubber = scrubber or Scrubber.for_environment(roots=[(REPO_ROOT, "[repo]")])
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))  # never modify the caller's notebook
    _neutralise_remote(nb)
    ScrubPreprocessor(scrubber).preprocess(nb, {})
    wb = {
        "css": _templates.WIDGET_CSS,
        "versions": report_versions(),
        "made": _now(),
        "executed": False,
        "seconds": 0.0,
        "emulator": emulator_description(None),
        "commit": _git_commit(),
        "title": stem,
        "stem": stem,
        "notebook": notebook,
        "index_href": "",
        "errors": [],
        "stopped": False,
        "guidelines": [],
        "live_bundle": _live_bundle() if live else "",
    }
    wb.update(header or {})
    # The header is built before the preprocessors run, so titles/IDs/errors come from a first pass.
    facts = collect(nb, stem, notebook)
    wb.update(
        title=scrubber.text(facts.title),
        guidelines=facts.guidelines,
        errors=[e.__dict__ for e in facts.errors],
    )
    wb["emulator"] = scrubber.text(wb["emulator"])
    body, resources = _exporter(live).from_notebook_node(nb, resources={"workbench": wb})
    facts = resources["workbench"]["facts"]
    leaks = scrubber.leaks(_strip_bundle(body, wb["live_bundle"]))
    if leaks:
        raise ReportError(
            f"The report of {notebook} would still contain {len(leaks)} secret(s) or local path(s) "
            f"after scrubbing: {', '.join(map(repr, leaks[:5]))}. Nothing was written."
        )
    remote = offline_problems(_strip_bundle(body, wb["live_bundle"]))
    if remote:
        raise ReportError(
            f"The report of {notebook} would load {len(remote)} resource(s) from the network: "
            f"{', '.join(remote[:5])}. Nothing was written."
        )
    return body, facts


def _strip_bundle(body: str, bundle: str) -> str:
    return body.replace(bundle, "") if bundle else body


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _live_bundle() -> str:
    from ._live import bundle_script

    return bundle_script()


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
    out.mkdir(parents=True, exist_ok=True)
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
    made = _now()
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
    path.write_text(body, encoding="utf-8")
    report = Report(
        path=path, facts=facts, made=made, seconds=seconds, executed=execute, stopped=stopped
    )
    meta = out / META_DIR
    meta.mkdir(exist_ok=True)
    (meta / f"{notebook.stem}.json").write_text(
        json.dumps(
            {
                **facts.to_dict(),
                "made": made,
                "seconds": seconds,
                "executed": execute,
                "href": path.name,
            },
            indent=1,
        )
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
        made=_now(),
        css=_templates.WIDGET_CSS,
        guideline_titles=_guideline_titles(),
    )
    remote = offline_problems(page)
    if remote:
        raise ReportError(
            f"The index would load resources from the network: {', '.join(remote[:5])}"
        )
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path


def _guideline_titles() -> dict[str, str]:
    """Short guideline titles if the package has a catalogue (``workbench.guidelines``); IDs alone otherwise."""
    try:
        from .. import guidelines  # type: ignore[attr-defined]
    except ImportError:
        return {}
    table = getattr(guidelines, "GUIDELINES", None) or getattr(guidelines, "TITLES", None) or {}
    out = {}
    for key, value in dict(table).items():
        out[str(key)] = str(getattr(value, "title", None) or getattr(value, "short", None) or value)
    return out


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

    ``notebooks`` defaults to every workshop notebook. The kernels find the
    emulator through ``BIGTABLE_EMULATOR_HOST``: ``emulator`` (an ``Emulator``
    or a ``host:port``) when given, otherwise one reused or started here (and
    stopped at the end only if started here). A failing cell does not stop the
    other notebooks: every report and the index are written, then
    :class:`ReportError` names the notebooks and cells that failed (unless
    ``allow_errors``). ``progress`` receives a line as each notebook starts and ends.
    """
    notebooks = [Path(p) for p in notebooks] if notebooks else workshop_notebooks()
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
    p.add_argument("notebooks", nargs="*", help="notebooks (default: every workshop notebook)")
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
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"index: {paths[-1]}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main_report())
