"""The package passes its own linters: ruff (lint and format) and mypy, with zero findings.

Settings live in pyproject.toml ([tool.ruff], [tool.mypy]); `make test` runs these like any
other test, so a change that breaks them fails the suite with the tool's own report.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waits import HANG_S

pytestmark = pytest.mark.slow  # ruff and mypy over the package

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
LINTED = ("workbench", "notebooks", "tests", "bench")


def _tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]' (it is in the test extra)")
    return str(path)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=HANG_S)


def test_ruff_lint_is_clean():
    # the package, the notebooks' percent-format sources, the tests and the benchmarks (their
    # per-file ignores in pyproject): a zip() that silently truncates can make a test unfailable
    r = _run(_tool("ruff"), "check", "--no-cache", *LINTED)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ruff_format_is_clean():
    formatted = [p for p in LINTED if p != "notebooks"]  # jupytext writes the notebook sources
    r = _run(_tool("ruff"), "format", "--check", "--no-cache", *formatted)
    assert r.returncode == 0, f"run `ruff format {' '.join(formatted)}`:\n" + r.stdout + r.stderr


REVEAL = """import workbench as wb

reveal_type(wb.preset)
reveal_type(wb.analyze)
reveal_type(wb.compare)
"""


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory) -> subprocess.CompletedProcess[str]:
    """One mypy run over the package and a notebook-like file revealing two public names."""
    reveal = tmp_path_factory.mktemp("mypy") / "reveal_public_api.py"
    reveal.write_text(REVEAL)
    return _run(
        _tool("mypy"), "--no-incremental", "--cache-dir", "/dev/null", "workbench", str(reveal)
    )


def test_mypy_is_clean(mypy_run):
    assert mypy_run.returncode == 0, mypy_run.stdout + mypy_run.stderr


def test_mypy_sees_the_public_api_signatures(mypy_run):
    """``import workbench as wb`` is typed (workbench/__init__.pyi): mypy and IDEs see
    ``wb.preset``'s, ``wb.analyze``'s and ``wb.compare``'s own parameters and return types, not
    ``Any`` (compare names its keywords: no ``**kwargs``, and ``workload=`` is the one way to
    state production, issue 47). The expected names come from the functions themselves
    (inspect), not from mypy."""
    import inspect

    from workbench.analysis.comparison import compare
    from workbench.analysis.overview import analyze
    from workbench.schema.gallery import preset

    revealed = [ln for ln in mypy_run.stdout.splitlines() if "Revealed type is" in ln]
    assert len(revealed) == 3, mypy_run.stdout
    assert "**" not in revealed[2] and "workload: workbench." in revealed[2], revealed[2]
    for line, fn, returns in (
        (revealed[0], preset, "workbench.schema.schema.Schema"),
        (revealed[1], analyze, "workbench.analysis.overview.Analysis"),
        (revealed[2], compare, "workbench.analysis.comparison.Comparison"),
    ):
        assert line.endswith(f'-> {returns}"'), line
        for name in inspect.signature(fn).parameters:
            assert f"{name}:" in line, f"{fn.__name__}'s parameter {name} is not in {line}"


REVEAL_ANYWHERE = """import workbench as wb

reveal_type(wb.compare)
reveal_type(wb.load_dataset("fx_prices"))
reveal_type(wb.Workload)
"""


def test_mypy_sees_real_types_from_any_folder(tmp_path):
    """A user's own folder, outside the checkout, with the documented editable install (``make
    install``: ``editable_mode=compat``, a .pth mypy follows): the public names keep their
    types there too, not ``Any``."""
    (tmp_path / "mine.py").write_text(REVEAL_ANYWHERE)
    r = subprocess.run(
        [_tool("mypy"), "--no-incremental", "--cache-dir", "/dev/null", "mine.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    revealed = [ln for ln in r.stdout.splitlines() if "Revealed type is" in ln]
    assert len(revealed) == 3, r.stdout + r.stderr
    assert "-> workbench.analysis.comparison.Comparison" in revealed[0], revealed[0]
    assert revealed[1].endswith('"workbench.datasets.model.Dataset"'), revealed[1]
    assert "events_per_s: float | None" in revealed[2], revealed[2]
    assert "Any" not in revealed[1], revealed[1]


def _ruff_findings(*codes: str) -> dict[str, set[str]]:
    """Each file's findings of ``codes`` with no per-file ignores (--isolated)."""
    import json

    r = _run(
        _tool("ruff"),
        "check",
        "--no-cache",
        "--isolated",
        "--select",
        ",".join(codes),
        "--output-format",
        "json",
        "workbench",
        "tests",
        "bench",
    )
    out: dict[str, set[str]] = {}
    for v in json.loads(r.stdout):
        out.setdefault(str(Path(v["filename"]).relative_to(REPO)), set()).add(v["code"])
    return out


def test_the_complexity_exceptions_only_shrink():
    """C901 and PLR0915 are on; pyproject's per-file ignores list today's long functions. An
    entry whose file no longer needs it fails here, so the list shrinks as functions are split."""
    import tomllib

    ignores = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]["lint"][
        "per-file-ignores"
    ]
    listed = {
        f: {c for c in codes if c in ("C901", "PLR0915")}
        for f, codes in ignores.items()
        if "*" not in f
    }
    listed = {f: c for f, c in listed.items() if c}
    found = _ruff_findings("C901", "PLR0915")
    stale = {
        f: sorted(c - found.get(f, set())) for f, c in listed.items() if c - found.get(f, set())
    }
    assert not stale, f"no longer needed in pyproject's per-file-ignores (delete them): {stale}"


# "about 500 lines": a module past this states in its docstring why it is one module
LONG_MODULE_LINES = 550
LONG_MODULE_REASON = "Why one module:"


def test_long_modules_state_why():
    import ast

    unexplained = []
    for path in sorted((REPO / "workbench").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        n = text.count("\n")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if n > LONG_MODULE_LINES and LONG_MODULE_REASON not in doc:
            unexplained.append(f"{path.relative_to(REPO)} ({n} lines)")
    assert not unexplained, (
        f"modules over {LONG_MODULE_LINES} lines whose docstring has no '{LONG_MODULE_REASON}' "
        f"paragraph; split them by job or say why they are one: {unexplained}"
    )


# a function past this many lines says in its docstring why it is one function (or is split)
LONG_FUNCTION_LINES = 120
LONG_FUNCTION_REASON = "Why one function:"


def test_long_functions_state_why():
    import ast

    unexplained = []
    for path in sorted((REPO / "workbench").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                doc = ast.get_docstring(node) or ""
                if n > LONG_FUNCTION_LINES and LONG_FUNCTION_REASON not in doc:
                    unexplained.append(
                        f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({n} lines)"
                    )
    assert not unexplained, (
        f"functions over {LONG_FUNCTION_LINES} lines whose docstring has no "
        f"'{LONG_FUNCTION_REASON}' sentence; split them into named steps or say why: {unexplained}"
    )


# Decorators that register what they decorate (presets, advisor rules, result displays,
# figure tables): the registry calls it, no name does.
# (traitlets calls a method marked @default to make a trait's default: report/kernel_wait.py)
REGISTERING_DECORATORS = ["@_preset", "@rule", "@shows", "@styled", "@default"]
# Names no code calls by name, on purpose: detect-secrets loads the scrubber's plugin classes
# from their module (report/_secret_plugins.py); Python calls a module's __getattr__ (PEP 562);
# Apache Beam calls a DoFn's lifecycle methods (workbench/beam/bulk_load.py) and a CombineFn's
# (workbench/beam/batches.py).
CALLED_BY_OTHERS = [
    "*Detector",
    "__getattr__",
    *("setup", "start_bundle", "process", "finish_bundle", "teardown"),
    *("create_accumulator", "add_input", "merge_accumulators", "compact", "extract_output"),
    *("handle_starttag", "handle_endtag", "handle_data"),  # html.parser.HTMLParser calls them
]
# Dead code in modules being changed by others while this list was made: each entry must still be
# dead (once it is deleted, the test fails until the entry is deleted here too).
KNOWN_DEAD = {
    "workbench/advisor/findings.py suggestions",
}


def dead_definitions(paths: list[Path], package: Path = REPO / "workbench") -> list[str]:
    """Functions, methods, classes and properties of ``workbench`` that nothing in ``paths``
    uses, by vulture (names in code, not in strings or comments)."""
    import vulture

    v = vulture.Vulture(ignore_names=CALLED_BY_OTHERS, ignore_decorators=REGISTERING_DECORATORS)
    v.scavenge([str(p) for p in paths])
    return sorted(
        f"{Path(item.filename).relative_to(package.parent)} {item.name}"
        for item in v.get_unused_code(min_confidence=60)
        if package in Path(item.filename).parents
        and item.typ in ("function", "method", "class", "property")
    )


def test_no_dead_definitions():
    """A function, class, method or property that nothing calls — not the package (its public
    names are the imports of ``workbench/__init__.pyi``), its tests, notebooks, benchmarks or
    tools — is dead code, however public its name: delete it. vulture reads names in code only,
    so a mention in a docstring keeps nothing alive."""
    users = [REPO / "workbench", REPO / "workbench" / "__init__.pyi"]
    users += [p for pattern in ("tests", "bench", "tools", "datasets") for p in [REPO / pattern]]
    users += sorted((REPO / "notebooks").glob("*.py"))
    dead = dead_definitions([p for p in users if p.exists()])
    assert set(dead) - KNOWN_DEAD == set(), (
        f"definitions nothing uses: {sorted(set(dead) - KNOWN_DEAD)}"
    )
    assert KNOWN_DEAD - set(dead) == set(), (
        f"deleted, so remove from KNOWN_DEAD: {KNOWN_DEAD - set(dead)}"
    )


def test_the_dead_code_check_finds_a_dead_function(tmp_path):
    """On a hand-made package: an uncalled function and an uncalled method are reported; a called
    one, a registered one and a dunder method are not."""
    pkg = tmp_path / "workbench"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "def rule(f):\n    return f\n\n"
        "def used():\n    return 1\n\n"
        "def unused():\n    return used()\n\n"
        "@rule\ndef registered():\n    return 2\n\n"
        "class C:\n    def __len__(self):\n        return 0\n\n"
        "    def never(self):\n        return 3\n\n"
        "print(C())\n"
    )
    found = dead_definitions([pkg], pkg)
    rel = {line.split()[-1] for line in found}
    assert rel == {"unused", "never"}, found


# Sentence pins (issue 47, "Smaller"): an assert that pins a message's wording breaks on every
# rewording while the behaviour stays right. A test asserts what a sentence carries instead: the
# error type and its key tokens (the column, row, limit, figure), e.g.
# `pytest.raises(SettingsError, match="clusters")`; each error class's whole sentence is pinned
# once, in tests/test_error_messages.py. Pins that are the oracle stay (a notebook's claim read
# against its output, a printed command line, a heading the browser clicks on).
PIN_WORDS = 4  # a literal of this many words or more is a sentence, not a token
PIN_SHARE = 0.10
_REGEX_GAP = re.compile(r"\.[*+]\??")  # `.*` between tokens: the words between are free


def _string_parts(node: ast.AST) -> list[str]:
    """The literal text an operand is made of: a string, an f-string's constant parts (each
    one on its own), and those inside a tuple/list/set or a `+` of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant)]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _string_parts(e)]
    if isinstance(node, ast.BinOp):
        return _string_parts(node.left) + _string_parts(node.right)
    return []


def sentence_pins(source: str) -> tuple[int, list[int]]:
    """(checks, lines of the sentence pins) in one test module's source. A check is an `assert`
    or a `pytest.raises(..., match=...)`; it pins a sentence when a comparison (`==`, `in`, ...)
    in the assert's test has an operand with a literal of PIN_WORDS words or more, or when a
    `match=` pattern has that many words between two `.*` (the assert's message is not a check)."""
    checks, pins = 0, []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            checks += 1
            texts = [
                s
                for c in ast.walk(node.test)
                if isinstance(c, ast.Compare)
                for operand in (c.left, *c.comparators)
                for s in _string_parts(operand)
            ]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "raises"
            and any(k.arg == "match" for k in node.keywords)
        ):
            checks += 1
            match = next(k.value for k in node.keywords if k.arg == "match")
            texts = [run for s in _string_parts(match) for run in _REGEX_GAP.split(s)]
        else:
            continue
        if any(len(t.split()) >= PIN_WORDS for t in texts):
            pins.append(node.lineno)
    return checks, sorted(pins)


def test_sentence_pins_stay_under_a_tenth_of_the_checks():
    per_file = {
        str(p.relative_to(REPO)): sentence_pins(p.read_text(encoding="utf-8"))
        for p in sorted((REPO / "tests").rglob("*.py"))
    }
    checks = sum(c for c, _ in per_file.values())
    pins = sum(len(p) for _, p in per_file.values())
    worst = sorted(per_file.items(), key=lambda kv: -len(kv[1][1]))[:10]
    listing = "\n".join(f"  {len(p):3} of {c:4}  {f}: lines {p}" for f, (c, p) in worst)
    assert pins < PIN_SHARE * checks, (
        f"{pins} of {checks} checks ({pins / checks:.1%}) pin a sentence of {PIN_WORDS}+ words; "
        f"assert the error type and its key tokens instead. The most:\n{listing}"
    )


def test_the_sentence_pin_measure_tells_tokens_from_sentences():
    """Hand-made module: 6 checks, of which 3 pin a sentence (lines 3, 4 and 6)."""
    source = (
        "def test_x(msg, n):\n"
        "    assert \"'sensor'\" in msg and 'rows 2, 4' in msg\n"  # tokens: 1 and 3 words
        "    assert 'the emulator has stopped' in msg\n"  # 4 words: a sentence
        "    assert f'{n} rows of the table read' == msg\n"  # f-string part of 5 words
        "    assert msg, 'a message of many words is not a check'\n"
        "    with pytest.raises(E, match='no such column family zz'):\n"  # 5 words
        "        pass\n"
        "    with pytest.raises(E, match=r\"'zz'.*no column family.*Nothing was\"):\n"
        "        pass\n"
    )
    assert sentence_pins(source) == (6, [3, 4, 6])


# Modules that define segment kinds: they may ask which kind a segment is; no other module does
# (the kinds answer the planner's, SQL's, the advisor's and the designer's questions themselves).
KIND_MODULES = {"workbench/schema/segments.py", "workbench/schema/time_segments.py"}


def segment_kind_names() -> set[str]:
    """The names of every Segment subclass the package defines, found by importing it."""
    import workbench.schema  # noqa: F401  (imports every kind)
    from workbench.schema.segments import Segment

    out, todo = set(), [Segment]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("workbench."):
                out.add(sub.__name__)
            todo.append(sub)
    return out


def kind_checks(source: str, kinds: set[str]) -> list[int]:
    """Lines of ``isinstance(x, K)`` / ``issubclass`` / ``type(x) is K`` where K (a name, an
    attribute, a tuple or a ``|`` union of them, or a module name bound to a tuple of them)
    names a segment kind."""
    tree = ast.parse(source)
    aliases = {  # KINDS = (Timestamp, ReversedTimestamp) at any level
        t.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple | ast.BinOp)
        for t in node.targets
        if isinstance(t, ast.Name) and _names(node.value) & kinds
    }

    def named(node: ast.AST) -> bool:
        return bool(_names(node) & (kinds | aliases))

    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
            and named(node.args[1])
        ):
            lines.append(node.lineno)
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Call)
            and isinstance(node.left.func, ast.Name)
            and node.left.func.id == "type"
            and any(isinstance(op, ast.Is | ast.IsNot | ast.Eq | ast.NotEq) for op in node.ops)
            and any(named(c) for c in node.comparators)
        ):
            lines.append(node.lineno)
    return sorted(lines)


def _names(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Tuple):
        return set().union(*(_names(e) for e in node.elts)) if node.elts else set()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _names(node.left) | _names(node.right)
    return set()


def test_no_module_asks_which_kind_a_segment_is():
    """Issue 47: a segment kind answers the planner's, the row-key regex's, SQL's, the
    advisor's and the designer's questions itself (``Segment``'s protocol, docs/architecture.md),
    so a new kind is one class. ``isinstance(seg, Segment)`` (is it a segment at all) is fine."""
    kinds = segment_kind_names()
    # the kinds found by importing, not a list: the test follows a kind added tomorrow
    assert {"Literal", "Field", "Hashed", "Salt", "Tags", "TimeBucket", "BaseTimestamp"} <= kinds
    assert "Segment" not in kinds
    found = {
        f"{path.relative_to(REPO)}:{line}"
        for path in sorted((REPO / "workbench").rglob("*.py"))
        if str(path.relative_to(REPO)) not in KIND_MODULES
        for line in kind_checks(path.read_text(encoding="utf-8"), kinds)
    }
    assert found == set(), f"ask the segment instead of its kind: {sorted(found)}"


def test_the_kind_check_finds_every_form():
    """The detector on hand-written code: each form of asking the kind is found (one per line),
    asking a segment a question or checking for ``Segment`` itself is not."""
    source = (
        "isinstance(s, Salt)\n"  # 1
        "isinstance(s, (Timestamp, ReversedTimestamp))\n"  # 2
        "isinstance(s, Field | Tags)\n"  # 3
        "type(s) is Field\n"  # 4
        "isinstance(s, schema.Hashed)\n"  # 5
        "TIMES = (Timestamp, BaseTimestamp)\n"
        "isinstance(s, TIMES)\n"  # 7
        "isinstance(s, Segment)\n"
        "s.time_order < 0\n"
        "isinstance(s, dict)\n"
    )
    kinds = {"Salt", "Timestamp", "ReversedTimestamp", "Field", "Tags", "Hashed", "BaseTimestamp"}
    assert kind_checks(source, kinds) == [1, 2, 3, 4, 5, 7]
