"""Every workshop exercise answered wrongly in JupyterLab, as an attendee would: a near-miss name,
an input the notebook's prose suggests and a typo (``tests/exercise_answers.py``). Each time the
check cell shows one "✘ Not yet — <why>" line and no traceback.

Each notebook is run once with "Run All" (blank answers), then each of its answer cells is edited
in the browser and it and its check cell are run with Shift+Enter, like a person does. Screenshots of each
notebook's last wrong answer are kept in ``test-artifacts/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from exercise_answers import WRONG
from playwright.sync_api import expect

from browser import BROWSER_WAIT_MS, REPO, artifact, chromium_context
from browser.test_lab import _wait_idle

pytestmark = pytest.mark.browser

STDERR = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"


def _exercises() -> list[tuple[Path, str, int]]:
    """(notebook, problem, index of its answer cell) for every exercise in the workshop."""
    found = []
    for path in sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells[1:], start=1):
            for name in WRONG:
                # the answer cell (a blank "= ____") comes just before its check
                if f"{name}.check(" in cell.source and "= ____" in cells[i - 1].source:
                    found.append((path.relative_to(REPO), name, i - 1))
    return found


def _open_and_run_all(page, lab, notebook: Path, workspace: str) -> None:
    """Open ``notebook`` in a workspace of its own (no earlier notebook in hidden tabs), wait for
    its kernel, Run All Cells, and wait until every cell has run."""
    page.set_default_timeout(BROWSER_WAIT_MS)
    page.goto(lab.tree(notebook, workspace=workspace))
    page.locator(".jp-Notebook").first.wait_for(state="visible")
    page.locator("#jp-main-statusbar", has_text="Idle").wait_for(timeout=BROWSER_WAIT_MS)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
    _wait_idle(page)
    assert not page.locator(STDERR).all_inner_texts(), notebook  # blank answers run cleanly


def _prompt(cell) -> str:
    return cell.locator(".jp-InputArea-prompt").inner_text().strip()


def _wait_ran(check, before: str) -> None:
    """Wait until ``check`` shows an execution count other than ``before``. The kernel runs
    queued cells in order, and JupyterLab sets a cell's count only once the kernel is idle
    after it (its outputs are in), so the answer cell ran before and both outputs are shown."""
    expect(check.locator(".jp-InputArea-prompt")).to_have_text(
        re.compile(rf"^(?!{re.escape(before)}$)\[\d+\]:?$"), timeout=BROWSER_WAIT_MS
    )


# a hang guard, not a speed bound: nine notebooks run, then 27 exercises × 3 answers typed
@pytest.mark.timeout(3000)
def test_every_exercise_answers_three_wrong_answers_with_one_not_yet_line(lab, browser):
    exercises = _exercises()
    assert {name for _, name, _ in exercises} == set(WRONG)
    seen: list[tuple[str, str, str]] = []
    problems: list[str] = []
    # the worker's lab runs its kernels with WORKBENCH_SOLUTIONS=0 (``lab_env``): blanks stay blank
    with chromium_context(browser, viewport={"width": 1280, "height": 800}) as ctx:
        page = ctx.new_page()
        for notebook in dict.fromkeys(nb for nb, _, _ in exercises):  # in order, once each
            # one Run All per notebook; its exercises are then answered in turn, as in class
            _open_and_run_all(page, lab, notebook, workspace=notebook.stem.replace("_", "-"))
            cells = page.locator(".jp-Notebook .jp-Cell")
            for name, at in [(n, a) for nb, n, a in exercises if nb == notebook]:
                source = nbformat.read(REPO / notebook, as_version=4).cells[at].source
                blank = next(ln for ln in source.splitlines() if "= ____" in ln)
                answer, check = cells.nth(at), cells.nth(at + 1)
                for kind, typed in WRONG[name]:
                    line = blank.split("=")[0] + "= " + typed
                    answer.scroll_into_view_if_needed()
                    answer.locator(".cm-content").click()
                    page.keyboard.press("Control+a")
                    page.keyboard.insert_text(source.replace(blank, line))
                    before = _prompt(check)
                    page.keyboard.press("Shift+Enter")  # the answer cell; the check is next
                    page.keyboard.press("Shift+Enter")
                    _wait_ran(check, before)
                    errors = (
                        answer.locator(STDERR).all_inner_texts()
                        + check.locator(STDERR).all_inner_texts()
                    )
                    said = check.locator("[data-not-yet]").all_inner_texts()
                    seen.append((name, kind, " | ".join(said)))
                    if errors or len(said) != 1:
                        problems.append(f"{name} {kind} {typed}: said {said}, errors {errors}")
                    elif not said[0].startswith("✘ Not yet — ") or "\n" in said[0].strip():
                        problems.append(
                            f"{name} {kind} {typed}: not one 'Not yet' line: {said[0]!r}"
                        )
                check.screenshot(path=str(artifact(f"exercise_{name}_wrong.png")))
            lab.stop_kernels()  # one notebook's kernel at a time, as in class
    for name, kind, said in seen:
        print(f"{name:15s} {kind:9s} {said}")
    assert not problems, "\n".join(problems)
    assert len(seen) == 3 * len(WRONG)
