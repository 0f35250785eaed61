"""The mutation score per module, from mutmut's results in mutants/ (``make mutants``).

mutmut keeps each mutated file's results beside its copy, ``mutants/<path>.meta`` (JSON: an
exit code per mutant). A mutant is *killed* when a test failed on it (exit 1 or 3) or it ran
past its time limit (an endless loop the tests would never finish), *survived* when every test
that reaches its function passed, *no tests* when none of the listed tests reaches it (a
survivor too: nothing would notice). The score is killed ÷ (killed + survived + no tests);
mutants not yet run are counted apart. ``--survivors`` lists the surviving mutants' names
(``mutmut show NAME`` prints a diff); ``--fail-under P`` exits 1 when a module that has results
scores under P % (docs/architecture.md, "Mutation testing").

    python tools/mutation_score.py [--survivors] [--fail-under 85]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

KILLED = {1, 3, 24, -24, 36, 152, 255}  # a failing test, pytest's internal error, a time limit
SURVIVED = {0}
NO_TESTS = {5, 33}
NOT_RUN = {None, 2}


def _status(code: int | None) -> str:
    if code in KILLED:
        return "killed"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    if code in NOT_RUN:
        return "not run"
    return "other"  # a segfault or a suspicious run: counted as not killed


def results(root: Path) -> dict[str, dict[str, int | None]]:
    """Each mutated module's mutants and their exit codes."""
    out: dict[str, dict[str, int | None]] = {}
    for meta in sorted(root.glob("**/*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if codes:
            out[str(meta.relative_to(root))[: -len(".meta")]] = codes
    return out


def _row(name: str, counts: Counter[str]) -> tuple[str, float | None]:
    judged = counts["killed"] + counts["survived"] + counts["no tests"] + counts["other"]
    score = 100.0 * counts["killed"] / judged if judged else None
    shown = f"{score:5.1f} %" if score is not None else "    – "
    print(
        f"{name:<44} {shown} {counts['killed']:>6} {counts['survived']:>8} "
        f"{counts['no tests']:>8} {counts['other']:>6} {counts['not run']:>7}"
    )
    return name, score


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("mutants"))
    ap.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    ap.add_argument("--fail-under", type=float, default=None, metavar="P")
    args = ap.parse_args(argv)
    found = results(args.root)
    if not found:
        print(f"no mutmut results under {args.root}/: run `make mutants` first", file=sys.stderr)
        return 1
    print(
        f"{'module':<44} {'score':>7} {'killed':>6} {'survived':>8} {'no tests':>8} "
        f"{'other':>6} {'not run':>7}"
    )
    scores = []
    groups: dict[str, Counter[str]] = {}
    for path, codes in found.items():
        counts = Counter(_status(c) for c in codes.values())
        scores.append(_row(path, counts))
        group = path.rsplit("/", 1)[0] + "/ (all)"
        if path.startswith("workbench/schema/"):
            groups.setdefault(group, Counter()).update(counts)
    for group, counts in groups.items():
        scores.append(_row(group, counts))
    if args.survivors:
        for codes in found.values():
            for name, code in codes.items():
                if _status(code) in {"survived", "no tests", "other"}:
                    print(f"{_status(code):>9}  {name}")
    low = [n for n, s in scores if s is not None and args.fail_under and s < args.fail_under]
    if low:
        print(f"under {args.fail_under:g} %: {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
