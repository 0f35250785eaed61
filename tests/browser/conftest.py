"""The worker's JupyterLab, shared by the browser tests (issue 47: one lab, not one per test).

* ``shared_lab``: one headless JupyterLab per pytest worker (``make test``'s ``--dist
  loadfile`` sends a file to a worker), rooted at the repository so the lessons
  (``notebooks/NN_*.ipynb``) and the fixtures (``tests/fixtures/notebooks``) open as they are;
  started when a test first asks for it, with ``lab_env``: the session's emulator, this checkout
  on ``PYTHONPATH``, ``WORKBENCH_SOLUTIONS=0``, the workshop's server config.
* ``lab``: a test's share of it (``LabVisit``): a workspace and a folder of its own
  (``test-artifacts/lab/<test>-<hex>/``, git-ignored), every kernel stopped and the folder
  removed at the end, pass or fail.

The browser itself is ``browser`` in ``tests/conftest.py`` (the report and notebook pages use it
too); each test takes a new context from it (``chromium_context(browser, ...)``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser import REPO, Lab, LabVisit, jupyter_lab, lab_env


@pytest.fixture(scope="session")
def shared_lab(emulator: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    with jupyter_lab(
        tmp_path_factory.mktemp("shared-lab"), root_dir=REPO, env=lab_env(emulator)
    ) as lab:
        yield lab


@pytest.fixture
def lab(shared_lab: Lab, request: pytest.FixtureRequest) -> Iterator[LabVisit]:
    visit = LabVisit.start(shared_lab, request.node.name)
    try:
        yield visit
    finally:
        visit.end()
