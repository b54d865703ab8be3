"""Spectrum-based fault localization: the formulas on hand-computed
spectra, the ranking of a real program's gcov spectrum, and
``crepair localize --method spectrum`` end to end."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest

from cprog import SHARED
from crepair import testsuite as ts
from crepair.api import localize_tests
from crepair.cli import ExitCode, main
from crepair.localization.spectrum import Formula, RankedLine, dstar, localize_spectrum, ochiai, rank, tarantula

PASS, FAIL, TIMEOUT = ts.TestOutcome.PASS, ts.TestOutcome.FAIL, ts.TestOutcome.TIMEOUT


def spectrum(*tests) -> ts.Spectrum:
    return ts.Spectrum("p.c", tuple(ts.TestCoverage(t, o, frozenset(lines), *exact) for t, o, lines, *exact in tests),
                       0.0, 0.0)


# t1 fails through lines 1 2 3; t2 passes through 1 2; t3 passes through 1 4
THREE = spectrum(("t1", FAIL, {1, 2, 3}), ("t2", PASS, {1, 2}), ("t3", PASS, {1, 4}))


def test_ochiai_on_three_tests_by_hand():
    # F = 1; line 3: ef 1 ep 0 -> 1/sqrt(1*1); line 2: ep 1 -> 1/sqrt(2); line 1: ep 2 -> 1/sqrt(3); 4 is no candidate
    assert rank(THREE) == (
        RankedLine(3, 1.0, 1, 0), RankedLine(2, 1 / math.sqrt(2), 1, 1), RankedLine(1, 1 / math.sqrt(3), 1, 2))


def test_tarantula_and_dstar_on_three_tests_by_hand():
    # Tarantula, P = 2: line 3: 1/(1+0); line 2: 1/(1+1/2) = 2/3; line 1: 1/(1+1) = 1/2
    assert [(r.line, r.score) for r in rank(THREE, Formula.TARANTULA)] == [(3, 1.0), (2, 2 / 3), (1, 0.5)]
    # DStar (*=2): ef^2/(ep+nf): line 3: 1/0 = inf; line 2: 1/1; line 1: 1/2
    assert [(r.line, r.score) for r in rank(THREE, Formula.DSTAR)] == [(3, math.inf), (2, 1.0), (1, 0.5)]


def test_candidates_are_the_lines_of_every_failing_test_and_ties_go_to_the_first_line():
    s = spectrum(("a", FAIL, {1, 2, 5, 7}), ("b", TIMEOUT, {1, 2, 3, 7}), ("c", PASS, {1, 3}), ("d", PASS, {1, 7}))
    # F = 2, every candidate has ef = 2: line 2 (ep 0): 2/sqrt(2*2) = 1; lines 1 (ep 2) and 7 (ep 1)
    assert rank(s) == (RankedLine(2, 1.0, 2, 0), RankedLine(7, 2 / math.sqrt(6), 2, 1),
                       RankedLine(1, 2 / math.sqrt(8), 2, 2))
    tie = spectrum(("a", FAIL, {9, 4, 6}), ("b", PASS, {1}))
    assert [r.line for r in rank(tie)] == [4, 6, 9]
    assert rank(spectrum(("a", PASS, {1}))) == ()
    result = localize_spectrum(s, "p.c", "", Formula.OCHIAI, 1.5)
    assert result.failing == ("a", "b") and result.passing == ("c", "d") and result.timed_out == ("b",)


def test_a_failing_test_with_estimated_coverage_does_not_narrow_the_candidates():
    s = spectrum(("a", FAIL, {1, 2, 3}), ("crash", FAIL, {1, 4}, False), ("p", PASS, {1}))
    # candidates from "a" alone; counts over both failing tests (line 2: ef 1, nf 1, ep 0)
    assert rank(s) == (RankedLine(1, 2 / math.sqrt(2 * 3), 2, 1), RankedLine(2, 1 / math.sqrt(2), 1, 0),
                       RankedLine(3, 1 / math.sqrt(2), 1, 0))
    only = spectrum(("crash", FAIL, {1, 4}, False), ("p", PASS, {1}))
    assert [r.line for r in rank(only)] == [4, 1]


def test_formulas_at_their_edges():
    assert ochiai(0, 0, 0, 0) == 0.0 and ochiai(2, 2, 0, 1) == 2 / math.sqrt(2 * 4)
    assert tarantula(1, 0, 0, 0) == 1.0 and tarantula(0, 0, 0, 0) == 0.0 and tarantula(1, 1, 1, 1) == 0.5
    assert dstar(0, 0, 0, 3) == 0.0 and dstar(3, 1, 1, 0) == 4.5


# y = x - 1 for x > 10 should be x + 1: only the failing test runs line 7
CLIMB = """
#include <stdio.h>
int main(void) {
    int x, y;
    if (scanf("%d", &x) != 1) return 1;
    y = 0;
    if (x > 10)
        y = x - 1;
    else
        y = x + 1;
    printf("%d\\n", y);
    return 0;
}
"""


def climb_project(tmp_path: Path) -> Path:
    root = tmp_path / "climb"
    (root / "tests").mkdir(parents=True)
    (root / "climb.c").write_text(textwrap.dedent(CLIMB).lstrip("\n"))
    for name, given, expected in (("neg1", 20, 21), ("pos1", 3, 4), ("pos2", 5, 6)):
        (root / "tests" / f"input-{name}").write_text(f"{given}\n")
        (root / "tests" / f"output-{name}").write_text(f"{expected}\n")
    return root


def test_the_faulty_line_of_a_real_program_ranks_first(tmp_path):
    root = climb_project(tmp_path)
    result = localize_tests(root / "climb.c", tests_dir=root / "tests")
    assert result.failing == ("neg1",) and result.passing == ("pos1", "pos2") and result.formula == Formula.OCHIAI
    top, *rest = result.ranking
    assert top == RankedLine(7, 1.0, 1, 0)
    lines = {r.line for r in rest}
    assert {4, 5, 6, 10, 11} <= lines and not lines & {7, 8, 9}
    assert all(r.score == pytest.approx(1 / math.sqrt(3)) and (r.executed_by_failing, r.executed_by_passing) == (1, 2)
               for r in rest)
    assert [r.line for r in rest] == sorted(lines)
    assert result.original.splitlines()[6].strip() == "y = x - 1;"


def test_cli_ranks_lines_and_reports_json_and_sarif(tmp_path, capsys):
    root = climb_project(tmp_path)
    prog = str(root / "climb.c")
    assert main(["localize", prog, "--tests-dir", str(root / "tests"), "--method", "spectrum"]) == ExitCode.OK
    out = capsys.readouterr().out
    first = next(line for line in out.splitlines() if line.strip().startswith("1 "))
    assert f"{prog}:7" in first and "1.0000" in first and "y = x - 1;" in first
    sarif = tmp_path / "out.sarif"
    argv = ["localize", prog, "--tests-dir", str(root / "tests"), "--method", "spectrum", "--formula", "dstar",
            "--json", "--sarif", str(sarif)]
    assert main(argv) == ExitCode.OK
    data = json.loads(capsys.readouterr().out)
    assert data["method"] == "spectrum" and data["formula"] == "dstar" and data["outcome"] == "localized"
    assert data["failing"] == ["neg1"] and data["passing"] == ["pos1", "pos2"]
    assert data["ranking"][0] == {"rank": 1, "line": 7, "score": "inf", "executed_by_failing": 1,
                                  "executed_by_passing": 0, "text": "y = x - 1;"}
    log = json.loads(sarif.read_text())
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 7}


def test_cli_exit_123_when_no_test_fails(tmp_path, capsys):
    root = climb_project(tmp_path)
    argv = ["localize", str(root / "climb.c"), "--tests-dir", str(root / "tests"), "--test-ids", "pos1", "pos2",
            "--method", "spectrum"]
    assert main(argv) == ExitCode.NO_FAILING_TEST == 123
    assert "no failing test" in capsys.readouterr().out
    assert main(argv + ["--json"]) == 123
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "no-failing-test" and data["ranking"] == [] and data["failing"] == []


def test_cli_driver_form_with_a_build_command(tmp_path, capsys):
    root = climb_project(tmp_path)
    (root / "t.sh").write_text('#!/bin/sh\n[ "$(./climb < tests/input-$1)" = "$(cat tests/output-$1)" ]\n')
    (root / "t.sh").chmod(0o755)
    argv = ["localize", str(root / "climb.c"), "--tests", str(root / "t.sh"), "--test-ids", "pos1", "neg1", "pos2",
            "--build", "$CC climb.c -o climb", "--test-timeout", "2000", "--method", "spectrum", "--json"]
    assert main(argv) == ExitCode.OK
    data = json.loads(capsys.readouterr().out)
    assert data["failing"] == ["neg1"] and data["ranking"][0]["line"] == 7


@pytest.mark.parametrize(
    "extra, what",
    [
        (["--method", "spectrum"], "needs tests"),
        (["--tests-dir", "{tests}"], "--method spectrum only"),
        (["--method", "diagnosis", "--tests-dir", "{tests}"], "--method spectrum only"),
        (["--formula", "ochiai"], "--method spectrum only"),
        (["--method", "spectrum", "--tests-dir", "{tests}", "--test-timeout", "0"], "--test-timeout"),
        (["--method", "spectrum", "--tests-dir", "{tests}", "--formula", "jaccard"], "--formula"),
        (["--method", "spectrum", "--tests-dir", "{tests}", "--test-ids", "pos9"], "no test pos9"),
        (["--method", "spectrum", "--tests", "{tests}/none.sh", "--test-ids", "n1"], "no such file"),
    ],
)
def test_cli_usage_errors(tmp_path, capsys, extra, what):
    root = climb_project(tmp_path)
    argv = ["localize", str(root / "climb.c")] + [a.format(tests=root / "tests") for a in extra]
    assert main(argv) == ExitCode.USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and what in err[0]


def test_cli_build_failure_is_one_line_with_the_first_error(tmp_path, capsys):
    root = climb_project(tmp_path)
    (root / "climb.c").write_text("int main(void) { return nope; }\n")
    argv = ["localize", str(root / "climb.c"), "--tests-dir", str(root / "tests"), "--method", "spectrum", "--json"]
    assert main(argv) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "climb.c:1:" in err[0] and "nope" in err[0]
    assert json.loads(captured.out)["error"]["kind"] == "bad-input"


f1x = SHARED / "f1x-tests" / "if-condition"


@pytest.mark.skipif(not f1x.is_dir(), reason="the f1x test programs are not here")
def test_f1x_if_condition_by_its_driver(capsys):
    argv = ["localize", str(f1x / "program.c"), "--tests", str(f1x / "test.sh"), "--test-ids", "n1", "p1", "p2",
            "--method", "spectrum", "--json"]
    assert main(argv) == ExitCode.OK
    data = json.loads(capsys.readouterr().out)
    assert data["failing"] == ["n1"] and 8 in [r["line"] for r in data["ranking"]]


def test_cli_says_which_lines_tie(tmp_path, capsys):
    # Issue 25: the rest of climb.c ties at 1/sqrt(3); ranks 2..N cannot
    # tell those lines apart, and the output must say so.
    root = climb_project(tmp_path)
    result = localize_tests(root / "climb.c", tests_dir=root / "tests")
    tied = len(result.ranking) - 1
    assert main(["localize", str(root / "climb.c"), "--tests-dir", str(root / "tests"), "--method", "spectrum"]) \
        == ExitCode.OK
    out = capsys.readouterr().out
    assert f"{tied} lines tied at score 0.5774 (ranks 2-{tied + 1}, in line order)" in out
    assert "tied at score 1.0000" not in out  # line 7 ranks first alone


def test_a_coverage_run_counts_the_busiest_line_and_sets_the_candidates_step_limit(tmp_path):
    from crepair.schemes.test_driven_options import STEP_FACTOR, STEP_FLOOR, step_limit
    from crepair.testsuite import collect_spectrum, load_tests

    (tmp_path / "tests").mkdir()
    (tmp_path / "sum.c").write_text("#include <stdio.h>\nint main(void) {\n    int n, i, s = 0;\n"
                                    "    scanf(\"%d\", &n);\n    for (i = 0; i < n; i++)\n        s += i;\n"
                                    "    printf(\"%d\\n\", s);\n    return 0;\n}\n")
    for name, n in (("small", 3), ("large", 700)):
        (tmp_path / "tests" / f"input-{name}").write_text(f"{n}\n")
        (tmp_path / "tests" / f"output-{name}").write_text(f"{n * (n - 1) // 2}\n")
    spectrum = collect_spectrum(load_tests(tmp_path / "sum.c", tests_dir=tmp_path / "tests"))
    most = {t.test: t.most for t in spectrum.tests}
    assert 700 <= most["large"] <= 702 and 3 <= most["small"] <= 5  # the body, the condition once more
    assert step_limit(most.values()) == STEP_FLOOR  # 100 x 701 is below the floor
    assert step_limit([5_000]) == STEP_FACTOR * 5_000 and step_limit([]) == STEP_FLOOR


def test_a_failing_test_cut_short_for_printing_without_end_has_the_lines_it_ran(tmp_path):
    """A student's ``while ((c = getchar()) != '\\n') putchar(c);`` on an
    input without a final newline prints EOF's byte forever: the run is
    cut short for its output, and still writes its coverage (SIGTERM
    first, as at a time-out), so the repair's space is not empty."""
    from crepair.testsuite import collect_spectrum, load_tests

    (tmp_path / "tests").mkdir()
    (tmp_path / "echo.c").write_text("#include <stdio.h>\nint main(void) {\n    int c;\n"
                                     "    while ((c = getchar()) != '\\n')\n        putchar(c);\n"
                                     "    putchar('\\n');\n    return 0;\n}\n")
    (tmp_path / "tests" / "input-1").write_text("foo")  # no newline
    (tmp_path / "tests" / "output-1").write_text("foo\n")
    (test,) = collect_spectrum(load_tests(tmp_path / "echo.c", tests_dir=tmp_path / "tests")).tests
    assert test.outcome != PASS and not test.exact
    assert {4, 5} <= test.lines
