"""A candidate's concrete checks in a staged run (crepair.schemes.staged_checks):
a run passes a test when it ends by itself and prints the expected output, as
the test runner of the search judges it — not when it prints the expected
output and then hangs or crashes."""

from __future__ import annotations

from pathlib import Path

import pytest

from crepair.oracle.suite import HeldBack
from crepair.schemes.staged_partial import first_stage
from crepair.testsuite.spec import Comparison
from test_staged_partial import checks_of

MODEL = r"""#include <stdio.h>
int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    printf("%d\n", 2 * n);
    return 0;
}
"""


def _after_output(then: str) -> str:
    """The model's answer, then ``then`` when the input is 7 (the output flushed first)."""
    return MODEL.replace('    printf("%d\\n", 2 * n);\n',
                         '    printf("%d\\n", 2 * n);\n    fflush(stdout);\n    if (n == 7) { ' + then + ' }\n')


HANGS = _after_output("for (;;) ;")
CRASHES = _after_output("*(volatile int *)0 = 1;")
FAILS_WITH_STATUS_1 = _after_output("return 1;")


def _checks(tmp_path: Path):
    return checks_of(tmp_path, MODEL, MODEL, (("t0", b"3\n", b"6\n"), ("t7", b"7\n", b"14\n")))


@pytest.mark.parametrize("text", [HANGS, CRASHES], ids=["hangs", "crashes"])
def test_a_run_that_prints_the_answer_and_then_hangs_or_crashes_fails_the_test(tmp_path, text):
    oracle, checks, suite = _checks(tmp_path)
    with oracle:
        assert checks.failures(MODEL, suite) == 0
        assert checks.failures(text, suite) == 1 and checks.refuting == ["given-t7"]
        failing, _ = first_stage(text, checks, suite, Comparison.EXACT)
        assert failing == ["given-t7"]


def test_the_exit_status_is_not_judged_as_the_test_runner_does_not(tmp_path):
    oracle, checks, suite = _checks(tmp_path)
    with oracle:
        assert checks.failures(FAILS_WITH_STATUS_1, suite) == 0


@pytest.mark.parametrize("text", [HANGS, CRASHES], ids=["hangs", "crashes"])
def test_a_held_back_input_the_candidate_hangs_or_crashes_on_refutes_it(tmp_path, text):
    oracle, checks, suite = _checks(tmp_path)
    with oracle:
        held = HeldBack([b"5\n", b"7\n", b"9\n"])
        agreed, added = checks.confirm(text, held, suite)
        assert added is not None and suite.stdin(added) == b"7\n" and suite.expected(added) == b"14\n"
        assert agreed < 3
        assert checks.confirm(MODEL, HeldBack([b"5\n", b"7\n", b"9\n"]), suite) == (3, None)
