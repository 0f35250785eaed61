"""tools/mutation_score.py: the sampled mutation score (``make mutants SAMPLE=N``).

A uniform random sample of mutants estimates a group's score (Gopinath et al., ISSRE 2015);
the estimate is killed / judged with a 95 % Wilson score interval (Wilson 1927). The interval
and the draw are checked here by hand, and the score on a mutants/ folder written by hand in
mutmut's format (``<path>.meta``: an exit code per mutant name). Equivalent mutants (listed in
tools/mutants_equivalent.txt) leave the denominator: killed / (mutants run − equivalents),
as Jia & Harman's survey (IEEE TSE 2011) defines the mutation score.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "mutation_score.py"
_spec = importlib.util.spec_from_file_location("mutation_score", TOOL)
assert _spec is not None and _spec.loader is not None
ms = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ms)

Z = 1.959964  # the normal distribution's 97.5 % quantile: a two-sided 95 % interval


def test_wilson_interval_of_85_killed_of_100_by_hand():
    # p = 0.85, n = 100, z² = 3.841459, z²/n = 0.03841459
    # centre = (p + z²/2n) / (1 + z²/n) = 0.86920730 / 1.03841459 = 0.837052
    # half = z·√(p(1-p)/n + z²/4n²) / (1 + z²/n)
    #      = 1.959964 · √(0.001275 + 0.0000960365) / 1.03841459 = 0.072573 / 1.03841459 = 0.069888
    low, high = ms.wilson(85, 100)
    assert low == pytest.approx(0.837052 - 0.069888, abs=2e-6)  # 0.767164
    assert high == pytest.approx(0.837052 + 0.069888, abs=2e-6)  # 0.906940
    # the point estimate 0.85 is inside, off centre: the interval leans towards 1/2
    assert low < 0.85 < high and 0.85 - low > high - 0.85


def test_wilson_interval_at_none_and_all_killed_stays_inside_0_and_1():
    # k = 0 of n = 10: p = 0, the interval is [0, (z²/n) / (1 + z²/n)] = [0, 0.3841459 / 1.3841459]
    z2n = Z * Z / 10
    low, high = ms.wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(z2n / (1 + z2n), abs=1e-6)  # 0.277533
    # k = n = 10: the mirror image, [1 / (1 + z²/n), 1]
    low, high = ms.wilson(10, 10)
    assert low == pytest.approx(1 / (1 + z2n), abs=1e-6)  # 0.722467
    assert high == pytest.approx(1.0)


def test_wilson_interval_narrows_as_the_sample_grows():
    # the same 85 % from 340 of 400: the half-width shrinks about as 1/√n (÷ 2 for 4 × n)
    small = ms.wilson(85, 100)
    large = ms.wilson(340, 400)
    assert (large[1] - large[0]) == pytest.approx((small[1] - small[0]) / 2, rel=0.05)


@pytest.mark.parametrize(("killed", "judged"), [(0, 0), (5, 4), (-1, 3)])
def test_wilson_refuses_counts_that_are_no_proportion(killed, judged):
    with pytest.raises(ValueError, match="judged"):
        ms.wilson(killed, judged)


def test_a_draw_is_the_same_for_the_same_seed_whatever_order_the_names_came_in():
    names = [f"workbench.schema.plan.x_f__mutmut_{i}" for i in range(1, 501)]
    first = ms.draw(names, 40, seed=7)
    assert ms.draw(list(reversed(names)), 40, seed=7) == first
    assert len(first) == 40 and len(set(first)) == 40 and set(first) <= set(names)
    assert ms.draw(names, 40, seed=8) != first
    # a sample larger than the population is the whole population
    assert ms.draw(names[:3], 10, seed=7) == sorted(names[:3])
    with pytest.raises(ValueError, match="SAMPLE"):
        ms.draw(names, 0, seed=7)


def test_a_draw_gives_every_mutant_the_same_chance():
    # 1 of 4 names, 4,000 seeds: each name expects 1,000 draws, binomial sd √(4000·¼·¾) = 27.4;
    # 1,000 ± 150 is 5.5 sd, so only a biased draw falls outside
    names = ["a__mutmut_1", "b__mutmut_1", "c__mutmut_1", "d__mutmut_1"]
    counts = Counter(ms.draw(names, 1, seed=s)[0] for s in range(4000))
    assert set(counts) == set(names)
    assert all(850 <= c <= 1150 for c in counts.values()), counts


def test_groups_are_schema_as_a_whole_the_reader_and_the_others():
    assert ms.group_of("workbench/schema/plan.py") == ms.group_of("workbench/schema/keys.py")
    assert ms.group_of("workbench/schema/plan.py").startswith("workbench/schema/")
    assert ms.group_of("workbench/bigtable/reader.py") == "workbench/bigtable/reader.py"
    assert ms.group_of("workbench/bigtable/chunks.py") == "others"
    assert ms.group_of("workbench/analysis/capacity.py") == "others"


def _meta(root: Path, path: str, codes: dict[str, int | None]) -> None:
    meta = root / f"{path}.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes}))


def _plan_mutants(root: Path) -> list[str]:
    """schema/plan.py: 85 killed (exit 1), 10 survived (0), 5 with no tests (33), then 20 not
    yet run; pricing.py: 3 survivors, none of them sampled."""
    names = [f"workbench.schema.plan.x_f__mutmut_{i}" for i in range(1, 121)]
    codes: list[int | None] = [1] * 85 + [0] * 10 + [33] * 5 + [None] * 20
    _meta(root, "workbench/schema/plan.py", dict(zip(names, codes, strict=True)))
    pricing = {f"workbench.analysis.pricing.x_g__mutmut_{i}": 0 for i in range(1, 4)}
    _meta(root, "workbench/analysis/pricing.py", pricing)
    return names


def test_the_sampled_score_is_killed_over_judged_with_its_interval(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    (tmp_path / ms.SAMPLE_FILE).write_text("# seed=1 sample=120 of 120\n" + "\n".join(names))
    argv = ["--root", str(tmp_path), "--sample", "--survivors", "--fail-under", "85"]
    assert ms.main([*argv, "--equivalent", str(tmp_path / "none.txt")]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("workbench/schema/"))
    # 120 sampled of 120: 85 killed, 10 survived, 5 no tests, 0 other, 0 equivalent, 20 not run
    # -> 85 / 100
    assert row.split()[2:11] == ["120", "120", "85", "10", "5", "0", "0", "20", "85.0"]
    assert "(76.7–90.7 %)" in row  # wilson(85, 100) above
    # survivors listed are the sampled ones only: 10 survived + 5 no tests, no pricing name
    listed = [line.split()[-1] for line in out.splitlines() if "__mutmut_" in line]
    assert len(listed) == 15 and not any("pricing" in n for n in listed)
    assert not any(line.startswith("others") for line in out.splitlines())


def test_the_gate_applies_to_the_estimate_and_says_it_is_one(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    (tmp_path / ms.SAMPLE_FILE).write_text("\n".join(names))
    assert ms.main(["--root", str(tmp_path), "--sample", "--fail-under", "90"]) == 1
    err = capsys.readouterr().err
    assert "estimated" in err and "workbench/schema/" in err and "90" in err


def test_a_draw_records_its_seed_and_lists_only_the_mutants_not_yet_judged(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    pattern = "workbench.schema.*"
    assert (
        ms.main(["--root", str(tmp_path), "--draw", "30", "--seed", "5", "--pattern", pattern]) == 0
    )
    assert "seed 5" in capsys.readouterr().out
    drawn = ms.draw(names, 30, seed=5)  # the population is schema/plan.py's 120, not pricing's
    assert ms.read_sample(tmp_path) == set(drawn)
    assert "seed=5" in (tmp_path / ms.SAMPLE_FILE).read_text()
    todo = (tmp_path / ms.TODO_FILE).read_text().split()
    # the last 20 names (mutmut_101..120) are the ones not yet run
    assert todo == [n for n in drawn if int(n.rsplit("_", 1)[1]) > 100]
    # a second draw adds to the sample: the union of uniform draws is still uniform
    assert (
        ms.main(["--root", str(tmp_path), "--draw", "30", "--seed", "6", "--pattern", pattern]) == 0
    )
    assert ms.read_sample(tmp_path) == set(drawn) | set(ms.draw(names, 30, seed=6))


def test_a_draw_from_a_pattern_that_matches_nothing_says_so(tmp_path, capsys):
    _plan_mutants(tmp_path)
    assert (
        ms.main(["--root", str(tmp_path), "--draw", "5", "--pattern", "workbench.nothing.*"]) == 1
    )
    assert "workbench.nothing.*" in capsys.readouterr().err


def test_without_a_sample_every_judged_mutant_counts_and_the_gate_says_measured(tmp_path, capsys):
    _plan_mutants(tmp_path)
    none = str(tmp_path / "none.txt")
    assert ms.main(["--root", str(tmp_path), "--fail-under", "90", "--equivalent", none]) == 1
    captured = capsys.readouterr()
    rows = {line[:44].strip(): line.split()[-8] for line in captured.out.splitlines()[1:]}
    # plan.py 85 / 100 judged, schema/ as a whole the same; pricing 0 of 3 survivors
    assert rows["workbench/schema/plan.py"] == rows["workbench/schema/ (all)"] == "85.0"
    assert rows["workbench/analysis/pricing.py"] == "0.0"
    assert "measured" in captured.err and "estimated" not in captured.err


def test_the_sample_left_to_judge_is_listed_from_the_record_not_drawn_again(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    # sampled: two judged (mutmut_1 killed, mutmut_90 survived), two not run (101, 120)
    sampled = [names[0], names[89], names[100], names[119]]
    (tmp_path / ms.SAMPLE_FILE).write_text("# seed=3 sample=4 of 120\n" + "\n".join(sampled))
    assert ms.main(["--root", str(tmp_path), "--todo"]) == 0
    assert (tmp_path / ms.TODO_FILE).read_text().split() == sorted([names[100], names[119]])
    assert "2 sampled" in capsys.readouterr().out


def _equivalents(root: Path, lines: list[str]) -> str:
    path = root / "equivalent.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_the_equivalents_file_is_a_name_and_its_reason_a_line(tmp_path):
    path = _equivalents(
        tmp_path,
        [
            "# comment lines and blank lines are skipped",
            "",
            "workbench.schema.plan.x_f__mutmut_86  # x < 0 and x <= 0 differ at 0, never reached",
            "  workbench.schema.plan.x_f__mutmut_87   #   padded  ",
        ],
    )
    assert ms.read_equivalents(Path(path)) == {
        "workbench.schema.plan.x_f__mutmut_86": "x < 0 and x <= 0 differ at 0, never reached",
        "workbench.schema.plan.x_f__mutmut_87": "padded",
    }
    assert ms.read_equivalents(tmp_path / "missing.txt") == {}


@pytest.mark.parametrize(
    "line",
    [
        "workbench.schema.plan.x_f__mutmut_86",  # no reason
        "workbench.schema.plan.x_f__mutmut_86  #   ",  # an empty one
        "workbench.schema.plan.x_f__mutmut_86 x_f__mutmut_87  # two names",
    ],
)
def test_an_equivalent_without_its_reason_is_refused_naming_the_line(tmp_path, capsys, line):
    _plan_mutants(tmp_path)
    path = _equivalents(tmp_path, ["# equivalents", "", line])
    with pytest.raises(ValueError, match=r"equivalent\.txt:3:.*mutmut_86"):
        ms.read_equivalents(Path(path))
    # the command says the same and stops before any score
    assert ms.main(["--root", str(tmp_path), "--equivalent", path]) == 2
    captured = capsys.readouterr()
    assert "equivalent.txt:3" in captured.err and "score" not in captured.out


def test_equivalents_leave_the_denominator_and_have_their_own_column(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    # 4 of the 10 survivors (mutmut_86..95) and 1 of the 5 with no tests (96..100) are listed
    equivalent = [names[85], names[86], names[87], names[88], names[95]]
    path = _equivalents(tmp_path, [f"{n}  # no input tells it apart" for n in equivalent])
    assert ms.main(["--root", str(tmp_path), "--survivors", "--equivalent", path]) == 0
    captured = capsys.readouterr()
    rows = {line[:44].strip(): line[44:].split() for line in captured.out.splitlines()[1:]}
    # plan.py: 85 killed / (85 + 6 survived + 4 no tests) = 85 / 95 = 89.47 %
    # columns: score, %, killed, survived, no tests, other, equivalent, not run
    assert rows["workbench/schema/plan.py"] == ["89.5", "%", "85", "6", "4", "0", "5", "20"]
    assert rows["workbench/schema/ (all)"] == rows["workbench/schema/plan.py"]
    # pricing's 3 survivors are not listed: 0 / 3, no equivalent
    assert rows["workbench/analysis/pricing.py"] == ["0.0", "%", "0", "3", "0", "0", "0", "0"]
    # the survivors listed: 6 + 4 of plan.py and pricing's 3, none of the equivalents
    listed = [line.split()[-1] for line in captured.out.splitlines() if "__mutmut_" in line]
    assert len(listed) == 13 and not set(listed) & set(equivalent)
    assert "warning" not in captured.err


def test_the_sampled_estimate_leaves_the_sampled_equivalents_out(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    (tmp_path / ms.SAMPLE_FILE).write_text("\n".join(names))
    path = _equivalents(tmp_path, [f"{n}  # equivalent" for n in names[85:90]])
    argv = ["--root", str(tmp_path), "--sample", "--fail-under", "89", "--equivalent", path]
    assert ms.main(argv) == 0
    row = next(
        line for line in capsys.readouterr().out.splitlines() if line.startswith("workbench/")
    )
    # 85 killed of 100 judged, 5 of them equivalent: 85 / 95 = 89.5 %; Wilson over n = 95
    low, high = ms.wilson(85, 95)
    assert row.split()[2:11] == ["120", "120", "85", "5", "5", "0", "5", "20", "89.5"]
    assert f"({100 * low:.1f}–{100 * high:.1f} %)" in row
    # p = 85/95 = 0.894737, z²/n = 3.841459/95 = 0.0404364, centre = (p + z²/2n)/(1 + z²/n)
    # = 0.914955 / 1.0404364 = 0.879396: the interval is centred below p, as at 85 of 100
    assert (low + high) / 2 == pytest.approx(0.879396, abs=2e-6)


def test_an_equivalent_that_is_no_current_mutant_or_was_killed_is_warned_about(tmp_path, capsys):
    names = _plan_mutants(tmp_path)
    stale = "workbench.schema.plan.x_gone__mutmut_3"  # its function changed or went
    path = _equivalents(
        tmp_path, [f"{stale}  # was equivalent", f"{names[0]}  # killed: no equivalent"]
    )
    assert ms.main(["--root", str(tmp_path), "--equivalent", path]) == 0
    captured = capsys.readouterr()
    warned = [line for line in captured.err.splitlines() if line.startswith("warning")]
    assert len(warned) == 2
    assert stale in warned[0] and "no current mutant" in warned[0]
    assert names[0] in warned[1] and "killed" in warned[1]
    # the killed one stays killed: plan.py is still 85 / 100, no equivalent counted
    row = next(line for line in captured.out.splitlines() if line.startswith("workbench/schema/p"))
    assert row[44:].split()[:7] == ["85.0", "%", "85", "10", "5", "0", "0"]
