"""Live mode: the ``@jupyter-widgets/html-manager`` bundle inlined so widgets run offline.

The bundle (``dist/embed.js``, ~2 MB) comes from the npm registry at build time
with ``npm pack`` of a pinned version (npm checks the package's integrity hash)
and is cached under ``~/.cache/bigtable-workbench/``. Static mode (the default)
needs none of this.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

HTML_MANAGER = "@jupyter-widgets/html-manager"
HTML_MANAGER_VERSION = "1.0.15"  # pinned: renders ipywidgets 8 state (version_major 2)


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "bigtable-workbench" / f"html-manager-{HTML_MANAGER_VERSION}"


def bundle_path() -> Path:
    """``dist/embed.js`` of the pinned html-manager, fetched with ``npm pack`` once and cached."""
    from ..errors import ReportError

    target = cache_dir() / "embed.js"
    if target.is_file() and target.stat().st_size > 100_000:
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise ReportError(
            "Live mode needs `npm` once, to fetch "
            f"{HTML_MANAGER}@{HTML_MANAGER_VERSION} (apt-get install -y npm); "
            "or build the static report (the default), which needs nothing."
        )
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [npm, "pack", f"{HTML_MANAGER}@{HTML_MANAGER_VERSION}", "--silent"],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=300,
        )
        tarballs = list(Path(tmp).glob("*.tgz"))
        if done.returncode != 0 or not tarballs:
            raise ReportError(
                f"`npm pack {HTML_MANAGER}@{HTML_MANAGER_VERSION}` failed: "
                f"{(done.stderr or done.stdout).strip()[-500:]}"
            )
        with tarfile.open(tarballs[0]) as tar:
            member = tar.extractfile("package/dist/embed.js")
            if member is None:
                raise ReportError(f"{tarballs[0].name} has no dist/embed.js")
            data = member.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp_target = target.with_suffix(".part")
    tmp_target.write_bytes(data)
    tmp_target.replace(target)
    return target


def bundle_script() -> str:
    """The bundle as a ``data:`` URI for ``<script src>``.

    Inline ``<script>`` text would not work: the bundle derives its public path
    from its own ``src`` and throws without one. A data URI is still inside the file.
    """
    import base64

    return "data:text/javascript;base64," + base64.b64encode(bundle_path().read_bytes()).decode()
