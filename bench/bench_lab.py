"""How fast ``workbench lab`` stops: Ctrl-C until JupyterLab, its kernels and the emulator are gone.

tests/test_lab.py checks that every way a lab ends stops everything (waiting as long as that
takes); this measures how long, in one run: an idle lab with one kernel, and a lab whose kernel is
stuck in a cell that ignores SIGINT and SIGTERM (only the server's SIGKILL after
``KERNEL_SHUTDOWN_WAIT`` ends it). Each is shown against the waits the lab itself states
(``KERNEL_SHUTDOWN_WAIT + SERVER_STOP_WAIT``, after which it kills what is left: ratio ≤ 1 is a
stop on time, target under 10 s) and the stuck one against the idle one.

    .venv/bin/python bench/bench_lab.py [--rounds N]
"""

from __future__ import annotations

import argparse
import signal
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from labproc import kill_leftovers, start_lab, wait_ready  # noqa: E402
from test_lab import _busy_kernel, _start_kernel, _stop_and_time  # noqa: E402

from workbench.bigtable import emulator as emu_mod  # noqa: E402
from workbench.lab import KERNEL_SHUTDOWN_WAIT, SERVER_STOP_WAIT  # noqa: E402


def _one_stop(tmp: Path, busy: bool) -> float:
    lab = start_lab(tmp, emu_mod.free_port())
    try:
        wait_ready(lab)
        if busy:
            _busy_kernel(lab)
        else:
            _start_kernel(lab)[1].stop_channels()
        seconds, left, output = _stop_and_time(lab, signal.SIGINT)
    finally:
        leftovers = kill_leftovers(lab)
    if left or leftovers:
        raise SystemExit(f"the lab left {left or leftovers} running:\n{output}")
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    stated = KERNEL_SHUTDOWN_WAIT + SERVER_STOP_WAIT
    times: dict[str, list[float]] = {"idle kernel": [], "stuck kernel": []}
    with tempfile.TemporaryDirectory(prefix="wb-bench-lab-") as tmp:
        for i in range(args.rounds):
            for label, busy in (("idle kernel", False), ("stuck kernel", True)):
                times[label].append(_one_stop(Path(tmp) / f"{label[:4]}{i}", busy))
    idle = statistics.median(times["idle kernel"])
    print(f"Ctrl-C to everything gone, median of {args.rounds} (target under 10 s):")
    for label, v in times.items():
        med = statistics.median(v)
        print(
            f"  {label:<13} {med:5.1f} s = {med / stated:4.2f} × the lab's stated waits "
            f"({stated:.0f} s), {med / idle:4.2f} × the idle stop"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
