"""The mutation score per module, from mutmut's results in mutants/ (``make mutants``).

mutmut keeps each mutated file's results beside its copy, ``mutants/<path>.meta`` (JSON: an
exit code per mutant). A mutant is *killed* when a test failed on it (exit 1 or 3) or it ran
past its time limit (an endless loop the tests would never finish), *survived* when every test
that reaches its function passed, *no tests* when none of the listed tests reaches it (a
survivor too: nothing would notice). *Equivalent* mutants, which no input can tell from the
original, are listed by hand in ``tools/mutants_equivalent.txt`` (``NAME  # why``, one a
line) and left out of the denominator, as the mutation adequacy score conventionally does
(Jia & Harman, "An Analysis and Survey of the Development of Mutation Testing", IEEE TSE
37(5), 2011): the score is killed ÷ (killed + survived + no tests), equivalents counted in
none of the three; a listed name that is no current mutant (its code changed) is warned
about. Mutants not yet run are counted apart. ``--survivors`` lists the surviving mutants' names
(``mutmut show NAME`` prints a diff); ``--fail-under P`` exits 1 when a module that has results
scores under P % (docs/architecture.md, "Mutation testing").

Sampling (``make mutants SAMPLE=N``): the whole list is hours of work on a 2-core machine, so
``--draw N`` generates the mutants (mutmut's first step, no test run), draws N names uniformly
at random from those matching ``--pattern`` (all, by default) with a printed seed, records them
in ``mutants/sample.txt`` and writes the ones not yet judged to ``mutants/sample-todo.txt`` for
``mutmut run NAME...``. ``--sample`` then scores only the sampled mutants, per group (schema/
as a whole, bigtable/reader.py, the others): a uniform random sample's killed share estimates
the group's score, given with its 95 % Wilson score interval (Wilson 1927; random mutant
sampling: Gopinath et al., "How hard does mutation analysis have to be, anyway?", ISSRE 2015).
The gate applies to the estimate and says so. Several draws add up: the union of uniform
draws is still uniform within each group.

    python tools/mutation_score.py [--survivors] [--fail-under 85]
    python tools/mutation_score.py --draw 350 [--seed 7] [--pattern 'workbench.schema.*']
    python tools/mutation_score.py --sample [--survivors] [--fail-under 85]
    python tools/mutation_score.py --todo   # the sample's mutants not yet judged
    python tools/mutation_score.py --equivalent FILE   # another list than tools/mutants_equivalent.txt
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import io
import json
import math
import random
import secrets
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from statistics import NormalDist

KILLED = {1, 3, 24, -24, 36, 152, 255}  # a failing test, pytest's internal error, a time limit
SURVIVED = {0}
NO_TESTS = {5, 33}
NOT_RUN = {None, 2}
SAMPLE_FILE = "sample.txt"  # every draw's names, under --root
TODO_FILE = "sample-todo.txt"  # the last draw's names not yet judged, for `mutmut run`
GROUPS = ("workbench/schema/ (all)", "workbench/bigtable/reader.py", "others")
EQUIVALENT_FILE = Path(__file__).resolve().parent / "mutants_equivalent.txt"


def read_equivalents(path: Path) -> dict[str, str]:
    """The hand-judged equivalent mutants, ``NAME  # reason`` a line (blank lines and lines
    starting with ``#`` are comments), name → reason. A missing file lists none."""
    if not path.exists():
        return {}
    out: dict[str, str] = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        name, _, reason = (part.strip() for part in text.partition("#"))
        if not reason or not name or len(name.split()) != 1:
            raise ValueError(
                f"{path}:{number}: {text!r}: write one mutant name, then '# ' and why no input "
                "can tell it from the original"
            )
        out[name] = reason
    return out


def _stale(found: dict[str, dict[str, int | None]], equivalents: dict[str, str]) -> list[str]:
    names = {name for codes in found.values() for name in codes}
    return sorted(set(equivalents) - names)


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


def group_of(path: str) -> str:
    """The group a mutated file's score is reported in: schema/ as a whole, the reader, the rest."""
    if path.startswith("workbench/schema/"):
        return GROUPS[0]
    if path == "workbench/bigtable/reader.py":
        return GROUPS[1]
    return GROUPS[2]


def wilson(killed: int, judged: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion killed / judged (Wilson 1927):
    (p + z²/2n ± z·√(p(1-p)/n + z²/4n²)) / (1 + z²/n), z the normal quantile of the level.
    It stays inside [0, 1] and keeps its coverage at 0 or n of n, where the normal
    approximation does not. Sampling without replacement makes the true interval a little
    narrower still (finite-population correction), so this one is on the safe side."""
    if judged <= 0 or not 0 <= killed <= judged:
        raise ValueError(
            f"killed={killed} of judged={judged}: need 0 <= killed <= judged, judged > 0"
        )
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = killed / judged
    z2n = z * z / judged
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / judged + z2n / (4 * judged)) / (1 + z2n)
    return max(0.0, centre - half), min(1.0, centre + half)


def draw(population: Iterable[str], n: int, seed: int) -> list[str]:
    """n names drawn uniformly without replacement (all of them when n is larger), the same for
    the same population and seed whatever order the population came in."""
    if n < 1:
        raise ValueError(f"SAMPLE={n}: a sample needs at least one mutant")
    names = sorted(set(population))
    return sorted(random.Random(seed).sample(names, min(n, len(names))))


def matching(found: dict[str, dict[str, int | None]], patterns: Sequence[str]) -> list[str]:
    """The mutant names that match any of mutmut's glob patterns (all, with none)."""
    names = [name for codes in found.values() for name in codes]
    if not patterns:
        return names
    return [n for n in names if any(fnmatch.fnmatch(n, p) for p in patterns)]


def read_sample(root: Path) -> set[str]:
    path = root / SAMPLE_FILE
    if not path.exists():
        return set()
    return {s for s in path.read_text().split() if not s.startswith("#") and "__mutmut_" in s}


def _generate() -> None:
    """mutmut's own first step, as `mutmut run` starts (mutmut 3.6-3.8; pyproject holds < 4):
    copy the package to mutants/ and write every mutant, without running a test."""
    from mutmut.__main__ import create_mutants, store_lines_covered_by_tests
    from mutmut.mutation.trampoline import set_mutant_under_test
    from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths

    set_mutant_under_test("mutant_generation")
    Path("mutants").mkdir(exist_ok=True)
    with contextlib.redirect_stdout(io.StringIO()):  # a line per file copied or mutated
        copy_src_dir()
        copy_also_copy_files()
        setup_source_paths()
        store_lines_covered_by_tests()
        create_mutants(1)


def _draw_sample(root: Path, n: int, seed: int | None, patterns: Sequence[str]) -> int:
    if root == Path("mutants"):
        _generate()
    found = results(root)
    population = matching(found, patterns)
    if not population:
        print(f"no mutants match {' '.join(patterns) or 'the configured modules'}", file=sys.stderr)
        return 1
    seed = secrets.randbelow(2**31) if seed is None else seed
    names = draw(population, n, seed)
    codes = {name: code for c in found.values() for name, code in c.items()}
    todo = [name for name in names if _status(codes[name]) == "not run"]
    where = " ".join(patterns) or "all configured modules"
    with (root / SAMPLE_FILE).open("a") as f:
        f.write(f"# seed={seed} sample={n} of {len(population)} ({where})\n")
        f.writelines(f"{name}\n" for name in names)
    (root / TODO_FILE).write_text("".join(f"{name}\n" for name in todo))
    print(
        f"seed {seed}: drew {len(names)} of {len(population)} mutants ({where}); "
        f"{len(todo)} not yet judged -> {root / TODO_FILE} (again: SEED={seed})"
    )
    return 0


def _resume(root: Path) -> int:
    """The recorded sample's mutants not yet judged (after an interrupted run, or after a code
    change made mutmut forget a function's verdicts) to sample-todo.txt: a draw again with the
    same seed would pick other names once the code, and so the list of mutants, has changed."""
    if root == Path("mutants"):
        _generate()
    codes = {name: code for c in results(root).values() for name, code in c.items()}
    todo = sorted(n for n in read_sample(root) if n in codes and _status(codes[n]) == "not run")
    (root / TODO_FILE).write_text("".join(f"{name}\n" for name in todo))
    print(f"{len(todo)} sampled mutants not yet judged -> {root / TODO_FILE}")
    return 0


def _verdict(name: str, code: int | None, equivalents: dict[str, str]) -> str:
    """A mutant's status, "equivalent" for a listed one that was not killed (a killed one is
    no equivalent: it stays killed, and the listing is warned about)."""
    status = _status(code)
    return "equivalent" if name in equivalents and status != "killed" else status


def _judged(counts: Counter[str]) -> int:
    """The score's denominator: every mutant run, less the equivalents and those not run."""
    return counts["killed"] + counts["survived"] + counts["no tests"] + counts["other"]


def _row(name: str, counts: Counter[str]) -> tuple[str, float | None]:
    judged = _judged(counts)
    score = 100.0 * counts["killed"] / judged if judged else None
    shown = f"{score:5.1f} %" if score is not None else "    – "
    print(
        f"{name:<44} {shown} {counts['killed']:>6} {counts['survived']:>8} "
        f"{counts['no tests']:>8} {counts['other']:>6} {counts['equivalent']:>6} "
        f"{counts['not run']:>7}"
    )
    return name, score


def _sample_rows(
    found: dict[str, dict[str, int | None]], sample: set[str], equivalents: dict[str, str]
) -> list[tuple[str, float | None]]:
    """Per group: the sampled mutants' counts, the estimate and its 95 % Wilson interval."""
    population: Counter[str] = Counter()
    counts: dict[str, Counter[str]] = {g: Counter() for g in GROUPS}
    for path, codes in found.items():
        group = group_of(path)
        population[group] += len(codes)
        counts[group].update(
            _verdict(name, c, equivalents) for name, c in codes.items() if name in sample
        )
    print(
        f"{'group (random sample)':<30} {'mutants':>7} {'sampled':>7} {'killed':>6} "
        f"{'survived':>8} {'no tests':>8} {'other':>5} {'equiv.':>6} {'not run':>7}  "
        "estimate (95 % interval)"
    )
    rows = []
    for group in GROUPS:
        c = counts[group]
        judged = _judged(c)
        if not c:
            continue
        if judged:
            low, high = wilson(c["killed"], judged)
            score: float | None = 100.0 * c["killed"] / judged
            shown = f"{score:5.1f} % ({100 * low:.1f}–{100 * high:.1f} %)"
        else:
            score, shown = None, "–"
        print(
            f"{group:<30} {population[group]:>7} {sum(c.values()):>7} {c['killed']:>6} "
            f"{c['survived']:>8} {c['no tests']:>8} {c['other']:>5} {c['equivalent']:>6} "
            f"{c['not run']:>7}  {shown}"
        )
        rows.append((group, score))
    return rows


def _census_rows(
    found: dict[str, dict[str, int | None]], equivalents: dict[str, str]
) -> list[tuple[str, float | None]]:
    """Every module's score, and schema/'s as a whole, from all its mutants judged so far."""
    print(
        f"{'module':<44} {'score':>7} {'killed':>6} {'survived':>8} {'no tests':>8} "
        f"{'other':>6} {'equiv.':>6} {'not run':>7}"
    )
    scores = []
    schema: Counter[str] = Counter()
    for path, codes in found.items():
        counts = Counter(_verdict(name, c, equivalents) for name, c in codes.items())
        scores.append(_row(path, counts))
        if group_of(path) == GROUPS[0]:
            schema.update(counts)
    if schema:
        scores.append(_row(GROUPS[0], schema))
    return scores


def _list_survivors(
    found: dict[str, dict[str, int | None]], sample: set[str] | None, equivalents: dict[str, str]
) -> None:
    for codes in found.values():
        for name, code in codes.items():
            status = _verdict(name, code, equivalents)
            if status in {"survived", "no tests", "other"} and (sample is None or name in sample):
                print(f"{status:>9}  {name}")


def _warn_equivalents(found: dict[str, dict[str, int | None]], equivalents: dict[str, str]) -> None:
    """Listed equivalents that are no current mutant (their function changed, so mutmut made
    new ones: judge them again) or that a test killed (so they were not equivalent)."""
    for name in _stale(found, equivalents):
        print(f"warning: {name} is listed as equivalent but is no current mutant", file=sys.stderr)
    codes = {name: code for c in found.values() for name, code in c.items()}
    for name in sorted(n for n in equivalents if n in codes and _status(codes[n]) == "killed"):
        print(f"warning: {name} is listed as equivalent but a test killed it", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("mutants"))
    ap.add_argument("--survivors", action="store_true", help="list the surviving mutants")
    ap.add_argument("--fail-under", type=float, default=None, metavar="P")
    ap.add_argument("--draw", type=int, default=None, metavar="N", help="draw a random sample")
    ap.add_argument("--seed", type=int, default=None, help="the draw's seed (printed if not given)")
    ap.add_argument("--pattern", action="append", default=[], help="mutmut glob the draw is from")
    ap.add_argument("--sample", action="store_true", help="score the sampled mutants only")
    ap.add_argument("--todo", action="store_true", help="list the sample's mutants not judged")
    ap.add_argument(
        "--equivalent", type=Path, default=EQUIVALENT_FILE, help="the equivalent mutants' list"
    )
    args = ap.parse_args(argv)
    if args.draw is not None:
        return _draw_sample(args.root, args.draw, args.seed, args.pattern)
    if args.todo:
        return _resume(args.root)
    found = results(args.root)
    if not found:
        print(f"no mutmut results under {args.root}/: run `make mutants` first", file=sys.stderr)
        return 1
    sample = read_sample(args.root) if args.sample else None
    if sample is not None and not sample:
        print(f"no sample in {args.root / SAMPLE_FILE}: make mutants SAMPLE=N", file=sys.stderr)
        return 1
    try:
        equivalents = read_equivalents(args.equivalent)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    _warn_equivalents(found, equivalents)
    if sample is not None:
        scores = _sample_rows(found, sample, equivalents)
    else:
        scores = _census_rows(found, equivalents)
    if args.survivors:
        _list_survivors(found, sample, equivalents)
    low = [n for n, s in scores if s is not None and args.fail_under and s < args.fail_under]
    if low:
        kind = "estimated from a random sample (95 % interval above)" if sample else "measured"
        print(f"under {args.fail_under:g} % ({kind}): {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
