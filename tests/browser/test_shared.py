"""The worker's shared lab and Chromium keep tests apart (``tests/browser/conftest.py``).

* A test's ``lab`` ends with no kernel running in the shared lab and its folder gone, so the
  next test opening the same notebook gets a kernel of its own.
* The shared Chromium is closed before a test that does not ask for it: a live sync playwright
  marks its asyncio loop as the thread's running loop, which ``workbench/ui/app.py`` would use.
  The two browser tests below run in this order on one worker (``--dist loadfile``).
"""

from __future__ import annotations

import asyncio

import pytest

from browser import SHARED_BROWSER, LabVisit, chromium_context

pytestmark = pytest.mark.browser


def test_a_visit_ends_with_no_kernel_running_and_its_folder_gone(shared_lab):
    visit = LabVisit.start(shared_lab, "test_shared[visit]")
    path = visit.notebook("k.ipynb", ["1 + 1"])
    assert visit.folder.is_dir() and visit.folder.parent.name == "lab"
    assert f"lab/workspaces/{visit.workspace}/tree/{path.as_posix()}" in visit.tree(path)
    body = {"path": path.as_posix(), "type": "notebook", "name": "", "kernel": {"name": "python3"}}
    session = visit.api("api/sessions", method="POST", body=body)
    assert [k["id"] for k in visit.api("api/kernels")] == [session["kernel"]["id"]]
    visit.end()
    assert visit.api("api/kernels") == [] and visit.api("api/sessions") == []
    assert not visit.folder.exists()


def test_a_browser_test_gets_a_new_context_of_the_shared_browser(browser):
    assert SHARED_BROWSER.get() is browser  # one launch for the tests in a row that ask
    with chromium_context(browser, viewport={"width": 640, "height": 480}) as ctx:
        page = ctx.new_page()
        page.set_content("<p>shared</p>")
        assert page.evaluate("[innerWidth, innerHeight]") == [640, 480]
        assert len(browser.contexts) == 1  # no context of an earlier test left open
    assert browser.contexts == []
    # why the browser is closed before a test without it: playwright's loop counts as running
    assert asyncio.get_running_loop() is not None


def test_the_next_test_without_the_browser_finds_it_closed_and_no_running_loop():
    assert SHARED_BROWSER.launches >= 1  # the test above launched it on this worker
    assert SHARED_BROWSER._browser is None
    with pytest.raises(RuntimeError, match="no running event loop"):
        asyncio.get_running_loop()
