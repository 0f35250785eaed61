"""Shared test fixtures: one real emulator per test session, throwaway tables.

* ``emulator``: a private ``workbench.Emulator(reuse=False)`` started once per session
  and stopped at the end. A missing emulator is a test FAILURE (never a skip): the
  workbench's promise is that everything runs against the real ``cbtemulator``.
* ``conn``: that emulator's :class:`~workbench.bigtable.connection.Connection`.
* ``own_conn``: a connection of the test's own to it, whose calls a test may wrap (injected
  faults: ``tests/injected_faults.py``) without touching other tests'.
* ``browser``: the worker's headless Chromium (``tests/browser/__init__.py``: ``SharedBrowser``),
  launched for the first test that asks and closed after the last of a run of such tests; each
  test opens a new context of it (``chromium_context(browser, ...)``).
* ``table_factory``: ``table_factory(families_or_schema) -> table_id`` makes a uniquely
  named table (or a schema's set of tables) that is deleted when the test ends.
* ``throwaway_table``: the same as a context manager, for use inside a test::

      with throwaway_table(conn, [Family("cf")]) as table_id: ...

Slow tests (emulator processes, kernels, > ~5 s) are marked where they are written
(``pytestmark = pytest.mark.slow`` at a file's top, ``@pytest.mark.slow`` on one test);
``make test-fast`` leaves them out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from workbench.bigtable.admin import throwaway_table as _throwaway_table


@pytest.fixture(scope="session")
def emulator() -> Iterator[Any]:
    """The session's private emulator (fails, never skips, when none can be started)."""
    import workbench

    emu = workbench.Emulator(reuse=False)
    emu.start()  # EmulatorNotFound/EmulatorError propagate: the test fails with install help
    try:
        yield emu
    finally:
        emu.stop()


@pytest.fixture(scope="session")
def executed_notebook(emulator: Any) -> Callable[[Any], Any]:
    """``executed_notebook(path)``: the workshop notebook run top to bottom ONCE per test run
    (solutions filled in, as the report runs them; ``workbench.report.execute_notebook``) and
    shared by every test that reads its outputs: the run-all checks, the report screenshots and
    the prose-vs-output claims. Each caller gets its own copy of ``(nb, seconds, stopped)``.

    ``make test`` sends a test FILE to a worker (``--dist loadfile``): the tests reading an
    executed notebook live in ``tests/notebooks/test_notebooks.py`` so that each notebook runs once in
    the suite (a second file would run them again on its own worker).
    """
    import copy
    from pathlib import Path

    from workbench.report import execute_notebook

    runs: dict[Path, Any] = {}

    def run(path: Any) -> Any:
        key = Path(path).resolve()
        if key not in runs:
            runs[key] = execute_notebook(key, emulator_host=emulator.host, timeout=300)
        nb, seconds, stopped = runs[key]
        return copy.deepcopy(nb), seconds, stopped

    return run


@pytest.fixture
def browser() -> Any:
    """The worker's Chromium (a playwright ``Browser``): one launch for a run of browser tests."""
    from browser import SHARED_BROWSER

    return SHARED_BROWSER.get()


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Close the shared Chromium unless the next test on this worker uses it: a live playwright
    marks its loop as running (``SharedBrowser``), which a test without a browser must not see."""
    import sys

    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        shared = sys.modules.get("browser")
        if shared is not None:
            shared.SHARED_BROWSER.close()


@pytest.fixture(scope="session")
def conn(emulator: Any) -> Any:
    return emulator.connection()


@pytest.fixture
def own_conn(emulator: Any) -> Iterator[Any]:
    """A connection of the test's own, so that its calls can be wrapped without touching others."""
    from workbench.bigtable.connection import Connection

    c = Connection.emulator(emulator.host, project=emulator.project, instance=emulator.instance)
    yield c
    c.close()


@pytest.fixture
def table_factory(conn: Any) -> Iterator[Callable[..., str]]:
    """Call with a list of Family (one table), a schema or {logical: families}; returns the table ID."""
    stack: list[Any] = []

    def make(families: Any = (), *, prefix: str = "wbtest") -> str:
        cm = _throwaway_table(conn, families, prefix=prefix)
        table_id = cm.__enter__()
        stack.append(cm)
        return table_id

    yield make
    for cm in reversed(stack):
        cm.__exit__(None, None, None)


@pytest.fixture
def throwaway_table() -> Callable[..., Any]:
    """``workbench.bigtable.admin.throwaway_table`` (a context manager: conn, families → table ID)."""
    return _throwaway_table


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind() -> Iterator[None]:
    """The net under every test's own ``finally``: what the suite started, the suite stops.

    Torn down last (session autouse), after the session's emulator has stopped; anything of the
    suite's still running then is stopped and named in a warning (``tests/leftovers.py``).
    """
    import warnings

    from leftovers import mark_session, stop_leftovers

    marker = mark_session()
    yield
    left = stop_leftovers(marker)
    if left:
        warnings.warn(
            "processes left running by the test suite were stopped:\n" + "\n".join(left),
            stacklevel=1,
        )


@pytest.fixture(autouse=True)
def emulator_host_ends_with_the_test() -> Iterator[None]:
    """``BIGTABLE_EMULATOR_HOST`` is as the test found it when the test ends.

    ``wb.setup()`` exports the variable for the kernel's ``cbt`` and official client; in a test
    it must not outlive the test, or the next test on this worker (whichever file xdist sends)
    reaches an emulator that has stopped. ``monkeypatch.delenv`` of an unset variable records
    nothing to undo, so a test cannot rely on it for this.
    """
    import os

    before = os.environ.get("BIGTABLE_EMULATOR_HOST")
    yield
    if before is None:
        os.environ.pop("BIGTABLE_EMULATOR_HOST", None)
    else:
        os.environ["BIGTABLE_EMULATOR_HOST"] = before
