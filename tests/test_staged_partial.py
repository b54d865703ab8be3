"""Where a staged run's search starts (crepair.schemes.staged_partial): the
distance of a candidate's outputs when a run never ends."""

from __future__ import annotations

import time
from pathlib import Path

from crepair.oracle import ReferenceProgram, write_suite
from crepair.options import ReferenceOptions
from crepair.schemes.staged_checks import CandidateChecks
from crepair.schemes.staged_options import StagedStats
from crepair.schemes.staged_partial import first_stage, outputs_distance
from crepair.testsuite.runner import EXACT_SLACK
from crepair.testsuite.spec import Comparison

MODEL = r"""#include <stdio.h>
int main(void) {
    int c;
    while ((c = getchar()) != EOF)
        putchar(c);
    putchar('\n');
    return 0;
}
"""

# prints its input and then "ab" a million times more
VERBOSE = r"""#include <stdio.h>
int main(void) {
    int c, i;
    while ((c = getchar()) != EOF)
        putchar(c);
    putchar('\n');
    for (i = 0; i < 1000000; i++)
        fputs("ab", stdout);
    return 0;
}
"""

# reads up to a newline the course's inputs do not have: at end of input it
# prints EOF's byte until it is killed (megabytes in a quarter of a second)
SPINNING = r"""#include <stdio.h>
int main(void) {
    int c;
    while ((c = getchar()) != '\n')
        putchar(c);
    putchar('\n');
    return 0;
}
"""


def checks_of(tmp_path: Path, submission: str, model: str = MODEL,
              given=(("t0", b"ab", b"ab\n"), ("t1", b"xyz", b"xyz\n"))):
    """(the reference ``model``'s oracle, the checks of ``submission`` against it, a suite of the ``given``
    (id, stdin, expected output) tests), in ``tmp_path``."""
    (tmp_path / "model.c").write_text(model)
    (tmp_path / "sub.c").write_text(submission)
    oracle = ReferenceProgram(tmp_path / "model.c")
    checks = CandidateChecks(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "model.c")), oracle,
                             Comparison.EXACT, 8, tmp_path, StagedStats())
    (tmp_path / "suite").mkdir()
    return oracle, checks, write_suite(tmp_path / "suite", list(given), [])


def test_the_bytes_printed_past_the_slack_are_bytes_to_delete(tmp_path):
    oracle, checks, suite = checks_of(tmp_path, VERBOSE)
    with oracle:
        assert outputs_distance(MODEL, checks, suite, Comparison.EXACT) == 0
        started = time.monotonic()
        assert outputs_distance(VERBOSE, checks, suite, Comparison.EXACT) == 2 * 2_000_000
        assert time.monotonic() - started < 10


def test_the_distance_of_a_run_cut_by_its_time_limit_is_counted_quickly(tmp_path):
    """A course's program looping at end of input prints its last lines
    again and again: megabytes that resemble the expected output (the
    edit script of the whole took minutes, the run's limit was passed)."""
    expected = b"".join(b"%d %d\n" % (i, i * i) for i in range(200))
    printed = expected + b"199 39601\n" * 1_000_000

    class Recorded:  # the runs' outputs as recorded, so that the distance is exact
        def outputs(self, text, inputs):
            return [printed for _ in inputs]

    (tmp_path / "suite").mkdir()
    suite = write_suite(tmp_path / "suite", [("t0", b"200\n", expected)], [])
    started = time.monotonic()
    assert outputs_distance("", Recorded(), suite, Comparison.EXACT) == len(printed) - len(expected)
    assert time.monotonic() - started < 20


def test_the_first_stage_of_a_program_that_never_ends_is_decided_quickly(tmp_path):
    oracle, checks, suite = checks_of(tmp_path, SPINNING)
    with oracle:
        started = time.monotonic()
        failing, first = first_stage(SPINNING, checks, suite, Comparison.EXACT)
        assert time.monotonic() - started < 10
        assert failing == ["given-t0", "given-t1"] or failing == list(suite.given)
        assert first is None  # the tokens printed differ: the whole space
