"""Shared test fixtures: one real emulator per test session, throwaway tables.

* ``emulator``: a private ``workbench.Emulator(reuse=False)`` started once per session
  and stopped at the end. A missing emulator is a test FAILURE (never a skip): the
  workbench's promise is that everything runs against the real ``cbtemulator``.
* ``conn``: that emulator's :class:`~workbench.bigtable.connection.Connection`.
* ``table_factory``: ``table_factory(families_or_schema) -> table_id`` makes a uniquely
  named table (or a schema's set of tables) that is deleted when the test ends.
* ``throwaway_table``: the same as a context manager, for use inside a test::

      with throwaway_table(conn, [Family("cf")]) as table_id: ...
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
def conn(emulator: Any) -> Any:
    return emulator.connection()


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


# ``make test-fast`` leaves out what is marked slow (and the browser and notebook tests): whole
# modules that start processes, wait out deadlines or read 10 million events, and single tests
# that take seconds. The full ``make test`` runs everything.
SLOW_MODULES = {
    "test_lab.py",  # starts and signals JupyterLab
    "test_session_faults.py",  # frozen emulators: 10-15 s deadlines waited out
    "test_bigtable_faults.py",  # emulators killed and restarted mid-write
    "test_parquet_memory.py",  # 10 million events in a child process
    "test_read_exports.py",  # a cbt process per range
    "test_read_plans.py",  # every preset's plans on the emulator
    "test_report.py",  # executes notebooks into reports
    "test_report_secrets.py",
    "test_code_quality.py",  # ruff and mypy over the package
    "test_fresh_machine.py",  # make and the system check in stand-in machines
    "test_export.py",  # cbt processes create and read every design's tables
    "test_table_ownership.py",  # two kernels, loads refused and cleaned up
    "test_write_failures.py",  # Ctrl-C and silent listeners mid-write
    "test_error_display.py",  # IPython kernels
    "test_report_output.py",  # reports into unusable folders and full disks
    "test_capacity.py",  # 100,000-event samples
    "test_views.py",
    "test_own_data.py",  # real files through every design
    "test_rowkey_schema.py",  # every preset's keys checked one by one
    "test_read_plan_matrix.py",  # every dataset × preset × query derived from the events
    "test_compare_own_data.py",  # every design of real files compared
}
SLOW_TESTS = {
    "test_modelled_figures_agree_with_the_emulator_on_every_preset",
    "test_fast_evaluator_equals_the_contract_model_on_random_plans",
    "test_load_presets_verify_and_run_every_query",
    "test_round_trip_identical_via_workbench_and_cbt",
    "test_capacity_counts_storage_and_does_not_depend_on_the_model_node_count",
    "test_three_typical_wrong_answers_each_get_one_not_yet_line",
    "test_users_own_plots_still_show_after_a_workbench_figure",  # a kernel
    "test_random_schemas_round_trip_random_frames",
    "test_random_plans_answer_exactly",
    "test_every_preset_round_trips_and_answers_every_query_exactly",
    "test_analysis_pngs_for_review",  # pictures written for a person to look at
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES or item.originalname in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
