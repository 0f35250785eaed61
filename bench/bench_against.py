"""Benchmark: this tree's analyses against an earlier commit's, measured in one run.

For each dataset, ``bench_analysis.workshop`` (every preset's ``wb.analyze`` on its prebuilt
cells) runs in a child process on this tree and on a git worktree of ``--ref``, alternately,
``--rounds`` times; each preset keeps its fastest time per tree, so a noisy moment on the
shared machine hurts both sides alike. Prints, per dataset, the worst preset on each side and
their ratio (now / then: under 1.10 is "no slower" within the 10 % the load-model split was
held to), and each preset's ratio.

Run: .venv/bin/python bench/bench_against.py [--ref 41b3a51] [--dataset fx_prices ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# the last commit before the two models were split into named steps
BEFORE_STEPS = "41b3a51"


def _child(tree: Path, dataset: str) -> dict[str, float]:
    code = (
        "import json, sys; sys.path.insert(0, 'bench'); sys.path.insert(0, '.');"
        "import workbench, bench_analysis;"
        "assert workbench.__file__.startswith(sys.argv[2]), workbench.__file__;"
        "rows = bench_analysis.workshop(sys.argv[1]);"
        "print(json.dumps({r['pattern']: r['analyze_ms'] for r in rows if 'error' not in r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, dataset, str(tree)],
        cwd=tree,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(tree), "MPLBACKEND": "Agg"},
    )
    if out.returncode != 0:
        raise SystemExit(f"{tree} {dataset} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    import workbench as wb

    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default=BEFORE_STEPS)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--dataset", nargs="*", default=None)
    args = ap.parse_args()
    datasets = args.dataset or wb.dataset_names()
    with tempfile.TemporaryDirectory(prefix="wb-against-") as tmp:
        then_tree = Path(tmp) / "then"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(then_tree), args.ref],
            check=True,
            capture_output=True,
        )
        try:
            print(f"== analyze per preset: this tree vs {args.ref}, best of {args.rounds} ==")
            worst_ratio = 0.0
            for ds in datasets:
                best: dict[str, dict[str, float]] = {"now": {}, "then": {}}
                for _ in range(args.rounds):
                    for side, tree in (("then", then_tree), ("now", REPO)):
                        for pattern, ms in _child(tree, ds).items():
                            best[side][pattern] = min(ms, best[side].get(pattern, ms))
                common = sorted(set(best["now"]) & set(best["then"]))
                w_now = max(best["now"][p] for p in common)
                w_then = max(best["then"][p] for p in common)
                worst_ratio = max(worst_ratio, w_now / w_then)
                print(
                    f"{ds:<20} worst preset {w_then:7.1f} → {w_now:7.1f} ms "
                    f"(ratio {w_now / w_then:.2f})"
                )
                for p in common:
                    print(
                        f"    {p:<28} {best['then'][p]:7.1f} → {best['now'][p]:7.1f} ms "
                        f"({best['now'][p] / best['then'][p]:.2f})"
                    )
            print(f"worst dataset ratio (now / then): {worst_ratio:.2f}")
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(then_tree)],
                capture_output=True,
            )


if __name__ == "__main__":
    main()
