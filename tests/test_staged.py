"""Repair against a reference checked in stages (given tests, generated
inputs, counterexamples, bounded proof) and the folder forms of tests."""

from __future__ import annotations

import json
import os
import subprocess
import time
import sys
from pathlib import Path

import pytest

from cprog import SHARED
from crepair.oracle import ReferenceProgram, mutate_inputs, stdin_of
from crepair.oracle.inputs import _split
from crepair.counterexample import Counterexample, InputValue
from crepair.frontend.spans import Span
from crepair.testsuite.spec import Comparison, Naming, load_tests
from crepair.errors import UsageError
from crepair.patch import apply_edits
from crepair.records import RepairOutcome

SRC = Path(__file__).resolve().parents[1] / "src"

MODEL = r"""#include <stdio.h>
int main(void) {
    int a, b, c, m;
    scanf("%d%d%d", &a, &b, &c);
    m = a > b ? a : b;
    m = c > m ? c : m;
    printf("%d\n", m);
    return 0;
}
"""

# prints the last number read instead of the largest (an output argument)
SUBMISSION = r"""#include <stdio.h>
int main(void) {
    int i, n, best;
    scanf("%d", &best);
    for (i = 1; i < 3; i++) {
        scanf("%d", &n);
        if (n > best)
            best = n;
    }
    printf("%d\n", n);
    return 0;
}
"""

TESTS = {"t0": ("1 2 3\n", "3\n"), "t1": ("6 2 1\n", "6\n"), "t2": ("-1 3 1\n", "3\n")}


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def course(tmp_path: Path, submission: str = SUBMISSION, tests=TESTS, model: str = MODEL) -> Path:
    """``tmp_path`` holding sub.c, model.c and the folder tests of NAME.in / NAME.out pairs ({NAME: (in, out)})."""
    (tmp_path / "sub.c").write_text(submission)
    (tmp_path / "model.c").write_text(model)
    folder = tmp_path / "tests"
    folder.mkdir()
    for name, (given, expected) in tests.items():
        (folder / f"{name}.in").write_text(given)
        (folder / f"{name}.out").write_text(expected)
    return tmp_path


# -- the folder forms and the comparison --------------------------------------------

def test_a_folder_of_in_out_pairs_is_a_test_suite_in_natural_order(tmp_path):
    course(tmp_path, tests={"ex_10": ("1 2 3\n", "3\n"), "ex_2": ("1 1 1\n", "1\n")})
    spec = load_tests(tmp_path / "sub.c", tests_dir=tmp_path / "tests", compare="exact")
    assert spec.ids == ("ex_2", "ex_10")
    assert spec.naming is Naming.SUFFIX and spec.compare is Comparison.EXACT
    assert spec.input_path("ex_2").read_text() == "1 1 1\n"


def test_a_folder_mixing_both_namings_is_a_usage_error(tmp_path):
    course(tmp_path)
    (tmp_path / "tests" / "input-x").write_text("1 2 3\n")
    (tmp_path / "tests" / "output-x").write_text("3\n")
    with pytest.raises(UsageError, match="both input-X/output-X and X.in/X.out"):
        load_tests(tmp_path / "sub.c", tests_dir=tmp_path / "tests")


@pytest.mark.parametrize("how,same", [("exact", False), ("trailing-whitespace", True), ("lines", True),
                                      ("tokens", True)])
def test_the_comparisons(how, same):
    c = Comparison(how)
    assert (c.normalize(b"3 \n\n") == c.normalize(b"3\n")) is same
    assert Comparison.TOKENS.normalize(b"1\n2\n") == Comparison.TOKENS.normalize(b"1 2")
    assert Comparison.EXACT.normalize(b"1\n2") != Comparison.EXACT.normalize(b"1 2")


def test_codeflaws_judge_ignores_leading_blanks_and_blank_lines_and_not_blanks_inside_a_line():
    """Codeflaws' test-genprog.sh: empty lines deleted, leading blanks and
    tabs stripped, then diff --ignore-trailing-space (``%I64d`` pads a
    number to 64 columns on glibc: Codeflaws 61-D's accepted program)."""
    lines, trailing = Comparison.LINES, Comparison.TRAILING_WHITESPACE
    padded = b" " * 62 + b"42\n\n\t7 \n"
    assert lines.normalize(padded) == lines.normalize(b"42\n7\n") != trailing.normalize(padded)
    assert lines.normalize(b"1  2\n") != lines.normalize(b"1 2\n") == Comparison.TOKENS.normalize(b"1 2\n")


def test_a_missing_newline_fails_a_course_judge_and_not_codeflaws_comparison(tmp_path):
    course(tmp_path, submission=SUBMISSION.replace('printf("%d\\n", n)', 'printf("%d", best)'))
    exact = crepair("repair", "sub.c", "--tests-dir", "tests", "--compare", "exact", "--json", "--timeout", "60",
                    cwd=tmp_path)
    assert json.loads(exact.stdout)["tests"]["failing"] == ["t0", "t1", "t2"], exact.stderr
    lenient = crepair("repair", "sub.c", "--tests-dir", "tests", cwd=tmp_path)
    assert lenient.returncode == 123, lenient.stdout + lenient.stderr  # no failing test


# -- input generation ---------------------------------------------------------------------

def test_generated_inputs_keep_separators_and_lines_and_are_deterministic():
    given = [b"3\n1 2 3\n", b"abc 7\n"]
    first = mutate_inputs(given, count=30, seed=4)
    assert first == mutate_inputs(given, count=30, seed=4)
    assert len(first) == len(set(first)) and not set(first) & set(given)
    for new in first:
        seps = _split(new)[0::2]
        if seps not in (_split(given[0])[0::2], _split(given[1])[0::2]):  # the whitespace between tokens
            # "3" counts the numbers after it: resized, the items' separator repeated or dropped
            assert seps[:2] == [b"", b"\n"] and seps[-1] == b"\n" and set(seps[2:-1]) <= {b" "}, new
            assert int(new.split()[0]) == len(new.split()) - 1


def test_generated_words_keep_the_given_alphabet_and_the_length_of_a_board_s_rows():
    """A board of '.', 'B' and 'W' stays a board: no row one square longer
    or shorter, no letter the tests never show (Codeflaws 592-A: a row of
    nine squares told the accepted fix from an equivalent one); a word
    whose given lengths differ may change length."""
    board = [b"........\n..B.....\n.W......\n", b"B.......\n........\n......WW\n"]
    for new in mutate_inputs(board, count=40, seed=3):
        assert [len(row) for row in new.split()] == [8, 8, 8] and set(new) <= set(b".BW\n")
    names = [b"ann 3\n", b"bob 4\n", b"carol 5\n"]
    assert {len(new.split()[0]) for new in mutate_inputs(names, count=40, seed=3)} > {3, 5}


def test_generated_numbers_come_near_the_constants_the_programs_test():
    from crepair.oracle.inputs import NEAR, int_constants

    source = '#include <stdio.h>\n#define MAX 80 /* 7 */\nint main(void) { int x; char s[MAX]; scanf("%d", &x);\n' \
             '  puts(x > 100 ? "big 3" : x > 0x10 ? "small" : "tiny"); return 0; }\n'
    assert int_constants(source) == [80, 100]  # not in comments, strings, hexadecimal; 0 and 1 left out
    given = [b"5\n", b"500\n"]
    near = mutate_inputs(given, count=30, seed=0, constants=[100])
    assert sum(abs(int(m) - 100) <= NEAR for m in near) >= 3  # the boundary x > 100 is tested
    assert mutate_inputs(given, count=30, seed=0, constants=()) == mutate_inputs(given, count=30, seed=0)


def _numbers(inputs):
    return [float(t) for data in inputs for t in data.split() if t.lstrip(b"-").replace(b".", b"").isdigit()]


def test_generated_numbers_keep_to_the_sign_classes_of_the_given_ones_at_their_position():
    given = [b"3\n1.5 -2.0 0\n", b"2\n-1 2\n", b"4\n0 1 -2 3\n"]
    mutants = mutate_inputs(given, count=80, seed=2)
    assert len(mutants) == 80
    counts = [float(m.split()[0]) for m in mutants]
    assert min(counts) > 0  # every test's count is positive: no 0, no -3
    data = [float(t) for m in mutants for t in m.split()[1:]]
    assert {(v > 0) - (v < 0) for v in data} == {-1, 0, 1}  # the data take every sign


def test_a_count_keeps_counting_its_items_in_generated_inputs():
    """``n`` then ``n`` numbers (Codeflaws' usual input): a mutant changes
    ``n`` only with the numbers, so no run reads past its input (where it
    would see whatever its memory held); sizes both smaller and larger
    than the given ones are generated."""
    given = [b"1\n28\n", b"4\n1 2 2 -4\n", b"5\n1 2 3 1 1\n"]
    mutants = mutate_inputs(given, count=60, seed=3)
    assert len(mutants) == 60
    sizes = set()
    for m in mutants:
        tokens = m.split()
        assert int(tokens[0]) == len(tokens) - 1, m
        assert m.count(b"\n") == 2, m  # the line structure: the count's line, the items' line
        sizes.add(int(tokens[0]))
    assert sizes - {1, 4, 5}, sizes
    lines = [b"3\nabc\nde\nf\n", b"2\nxy\nz\n"]
    for m in mutate_inputs(lines, count=20, seed=1):
        first, *rest = m.split(b"\n")
        assert int(first) == len([r for r in rest if r.strip()]), m
    assert all(len(m.split()) == 3 for m in mutate_inputs([b"1 2 3\n", b"7 8 9\n"], count=10))  # no count


def test_the_shape_of_wrong_outputs_names_the_part_of_the_space_searched_first():
    from crepair.oracle.shape import Shape, failure_shape, output_lines

    assert failure_shape([(b"1 2 3 \n", b"1 2 3\n"), (b"4\n", b"4\n")]) is Shape.PRESENTATION
    assert failure_shape([(b"Number: 6\n", b"6\n")]) is Shape.OUTPUT  # a prompt printed too many
    assert failure_shape([(b"6\n", b"max 6\n"), (b"1 2 3", b"1 3")]) is Shape.OUTPUT
    assert failure_shape([(b"*-*\n-*-\n", b"* - *\n- * -\n")]) is Shape.PRESENTATION  # separators missing
    assert failure_shape([(b"6\n", b"7\n")]) is Shape.OTHER
    assert failure_shape([(b"6\n", b"6\n")]) is None
    assert output_lines('int x;\nprintf("%d", x);\n  putchar (10);\nscanf("%d", &x);\n') == {2, 3}


def test_the_stdin_of_a_counterexample_is_the_tokens_the_run_reads():
    span = Span("p.c", 1, 1, 1, 2, 0, 1)
    cex = Counterexample(span, (
        InputValue("x (uninitialized)", 3, 5),
        InputValue("scanf %d", 4, -7),
        InputValue("scanf %d", 4, 12),
        InputValue("scanf %d", 4, 99, executed=False),
        InputValue("scanf %s", 5, [104, 105, 0, 0], chars=True),
    ), (1,))
    assert stdin_of(cex) == b"-7 12 hi\n"


def test_the_stdin_of_a_counterexample_reads_characters_lines_and_fscanf_tokens_as_the_program_does():
    span = Span("p.c", 1, 1, 1, 2, 0, 1)

    def cex(*inputs):
        return Counterexample(span, inputs, (1,))

    # getchar reads bytes one after the other (a token's low byte): no separator, no final newline
    assert stdin_of(cex(InputValue("getchar()", 4, 65), InputValue("getchar()", 4, 32),
                        InputValue("getchar()", 4, 0x10A), InputValue("getchar()", 4, 7, executed=False))) == b"A \n"
    # gets/fgets read lines: each with its newline (a line holding one cannot be given)
    assert stdin_of(cex(InputValue("fgets()", 3, [104, 32, 105, 0], chars=True),
                        InputValue("fgets()", 3, [0, 0], chars=True))) == b"h i\n\n"
    assert stdin_of(cex(InputValue("gets()", 3, [10, 0], chars=True))) is None
    assert stdin_of(cex(InputValue("fscanf %d", 5, 4), InputValue("scanf %d", 6, -1))) == b"4 -1\n"
    # a run that mixes tokens and characters: the engine's tokens are not the bytes it would read
    assert stdin_of(cex(InputValue("scanf %d", 5, 4), InputValue("getchar()", 6, 65))) is None


def test_a_counterexample_of_a_getchar_program_becomes_the_test_that_guides_its_repair(tmp_path):
    # no tests are given: the first bounded check's counterexample is the only test, read back byte by byte
    model = """#include <stdio.h>
int main(void) {
    int c, n = 0;
    while ((c = getchar()) != EOF)
        if (c >= 'A' && c <= 'Z')
            n++;
    printf("%d\\n", n);
    return 0;
}
"""
    (tmp_path / "model.c").write_text(model)
    (tmp_path / "prog.c").write_text(model.replace("c <= 'Z'", "c < 'Z'"))
    run = crepair("repair", "prog.c", "--reference", "model.c", "--timeout", "120", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    first = data["repairs"][0]
    assert data["tests"]["counterexamples"] >= 1
    change = first["changes"][0]
    assert change["location"]["line"] == 5 and change["replacement"] in ("c < '['", "c <= 'Z'")
    assert first["evidence"]["kind"] == "tests"  # the reference's loop runs past the bound: no proof


def test_an_input_on_which_the_reference_has_undefined_behaviour_is_not_a_test(tmp_path):
    ref = tmp_path / "ref.c"
    ref.write_text('#include <stdio.h>\nint main(void){ int a, b; scanf("%d%d", &a, &b);'
                   ' printf("%d\\n", a / b); return 0; }\n')
    with ReferenceProgram(ref) as oracle:
        assert oracle.expected(b"7 2\n") == b"3\n"
        assert oracle.expected(b"7 0\n") is None  # division by zero
    uninit = tmp_path / "uninit.c"
    uninit.write_text('#include <stdio.h>\nint main(void){ int a, b; if (scanf("%d", &a) == 1) b = a;'
                      ' printf("%d\\n", b); return 0; }\n')
    with ReferenceProgram(uninit) as oracle:
        assert oracle.expected(b"4\n") == b"4\n"
        assert oracle.expected(b"x\n") is None  # prints an uninitialized value


def test_signed_overflow_the_reference_relies_on_in_the_given_tests_wraps_and_other_ub_stays_invalid(tmp_path):
    """Codeflaws 225-B's kind: a hash that wraps around on every test;
    before, every input was rejected for it (and a wrong patch passed
    the few left).  Division by zero stays undefined behaviour."""
    ref = tmp_path / "ref.c"
    ref.write_text('#include <stdio.h>\nint main(void){ int n, d, h = 1; scanf("%d%d", &n, &d);'
                   ' for (int i = 0; i < n; i++) h = h * 31 + 7; printf("%d\\n", (h & 1023) / d); return 0; }\n')
    with ReferenceProgram(ref) as oracle:
        assert oracle.expected(b"2 1\n") == b"" + str(((31 + 7) * 31 + 7) & 1023).encode() + b"\n"
        assert oracle.expected(b"10 1\n") is None  # overflows
        assert not oracle.rely_on_wrapping([b"2 0\n"])  # a division by zero: no overflow to rely on
        assert oracle.rely_on_wrapping([b"10 1\n"])
        wrapped = 1
        for _ in range(10):
            wrapped = (wrapped * 31 + 7) & 0xFFFFFFFF
        assert oracle.expected(b"10 1\n") == str(wrapped & 1023).encode() + b"\n"
        assert oracle.expected(b"12 0\n") is None


MAGIC = r"""#include <stdio.h>
int main(void) {
    int s, i, found = -1;
    scanf("%d", &s);
    for (i = 1; i <= 9; i++)
        if (i * i == s) { found = i; break; }
    printf("%d\n", found);
    return 0;
}
"""


def _self_run(tmp_path, text: str, given: str, expected: str):
    """A staged run (120 s) of ``text`` against itself with one test."""
    from crepair.options import ReferenceOptions
    from crepair.schemes.staged import StagedOptions, StagedRun

    (tmp_path / "ref.c").write_text(text)
    (tmp_path / "sub.c").write_text(text)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.in").write_text(given)
    (tmp_path / "tests" / "a.out").write_text(expected)
    return StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")), StagedOptions(timeout=120),
                     tests_dir=tmp_path / "tests")


def test_a_bound_the_reference_s_constant_loop_fits_is_found_and_refutes_a_patch_only_its_last_turn_tells(tmp_path):
    """Codeflaws 143-A's kind: a loop of nine turns is beyond bound 8, so
    no proof was tried and a patch skipping a solution passed; at the
    deeper bound the reference fits, the check's counterexample refutes it."""
    run = _self_run(tmp_path, MAGIC, "16\n", "4\n")
    try:
        assert run.checks.unwind == 8
        assert not run.checks.reference_cut_off(60)
        assert run.checks.unwind == 10
        before = len(run.suite.counterexamples)
        assert run.checks.prove(MAGIC.replace("i * i == s", "i * i == s && i < 9"), 60, run.suite) == (False, None)
        assert len(run.suite.counterexamples) == before + 1
        assert run.suite.stdin(run.suite.counterexamples[-1]).split() == [b"81"]
    finally:
        run.close()


SIGN = r"""#include <stdio.h>
int main(void) {
    float x;
    int n;
    scanf("%d", &n);
    scanf("%f", &x);
    printf("%d\n", n > 0);
    return 0;
}
"""


def test_a_cut_no_larger_bound_moves_is_not_deepened_and_is_named(tmp_path):
    """C-Pack lab02/ex08's kind: float input is tried at integer values only
    at every bound, so the deeper bounds are not tried (one check, the
    bound stays 8) and the reason names the cut and its place."""
    run = _self_run(tmp_path, SIGN, "3 2.5\n", "1\n")
    try:
        proofs = run.stats.proofs
        assert run.checks.reference_cut_off(60)
        assert run.checks.unwind == 8 and run.stats.proofs == proofs + 1
        assert run.checks.cut == f"float input (integer values tried only) at {tmp_path / 'ref.c'}:6:5"
    finally:
        run.close()


def test_a_given_test_the_reference_itself_does_not_run_validly_on_is_noted(tmp_path):
    """Codeflaws 7-B's and 171-C's kind: a repair test on which the
    accepted program crashes or loops; the test's file is still the
    expected output, and the user is told."""
    from crepair.schemes.staged_suite import given_tests

    ref = tmp_path / "ref.c"
    ref.write_text('#include <stdio.h>\nint main(void){ int a, b; scanf("%d%d", &a, &b);'
                   ' printf("%d\\n", a / b); return 0; }\n')
    (tmp_path / "tests").mkdir()
    for name, given, expected in (("t1", "7 2\n", "3\n"), ("t2", "7 0\n", "0\n"), ("t3", "9 3\n", "4\n")):
        (tmp_path / "tests" / f"{name}.in").write_text(given)
        (tmp_path / "tests" / f"{name}.out").write_text(expected)
    notes: list[str] = []
    with ReferenceProgram(ref) as oracle:
        tests = given_tests(ref, tmp_path / "tests", oracle, Comparison.EXACT, notes)
    assert [(t, expected) for t, _, expected in tests] == [("t1", b"3\n"), ("t2", b"0\n"), ("t3", b"4\n")]
    assert len(notes) == 2
    assert notes[0].startswith("test t2: the reference's own run on it is not valid")
    assert notes[1].startswith("test t3: the reference's output differs")


def test_an_output_that_depends_on_what_the_stack_holds_is_not_a_test_even_when_both_fills_agree(tmp_path):
    """The largest of an array filled only in part: the pattern fill is
    negative and the zero fill is 0, so both builds print the one value
    read; the plain build (as candidates are built) prints what an earlier
    call left on the stack (Codeflaws 22-A: a count larger than the
    numbers given)."""
    ref = tmp_path / "ref.c"
    ref.write_text('#include <stdio.h>\n'
                   'static void dirty(void) { volatile int junk[64]; for (int i = 0; i < 64; i++) junk[i] = 1000; }\n'
                   'static int biggest(int n) { int a[4]; a[0] = n; int m = a[0];\n'
                   '    for (int i = 1; i < 4; i++) if (a[i] > m) m = a[i]; return m; }\n'
                   'int main(void) { int n; if (scanf("%d", &n) != 1) return 1; dirty();'
                   ' printf("%d\\n", biggest(n)); return 0; }\n')
    with ReferenceProgram(ref) as oracle:
        assert oracle.expected(b"5\n") is None
        assert oracle.expected(b"x\n") == b""  # exits 1 before reading the array: a valid test


def test_an_output_that_depends_on_characters_read_past_the_end_of_the_input_is_not_a_test(tmp_path):
    """Equal neighbours among ``n`` characters, given fewer: those never
    read are equal under every uniform fill (the pattern, zeros, and the
    zeros of a fresh stack page the plain build often has) and differ on a
    dirty stack (Codeflaws 266-A: such an input, kept, refuted the accepted
    fix)."""
    ref = tmp_path / "ref.c"
    ref.write_text('#include <stdio.h>\nint main(void) { int n, i, c = 0; char s[1000]; scanf("%d", &n);\n'
                   '    for (i = 0; i <= n; i++) scanf("%c", &s[i]);\n'
                   '    for (i = 1; i < n; i++) if (s[i] == s[i + 1]) c++;\n'
                   '    printf("%d\\n", c); return 0; }\n')
    with ReferenceProgram(ref) as oracle:
        assert oracle.expected(b"5\nRGGBR\n") == b"1\n"
        assert [oracle.expected(b"10\nRRRRR\n") for _ in range(6)] == [None] * 6


# -- the staged run -------------------------------------------------------------------------------

SUM = r"""#include <stdio.h>
int main(void) {
    int n, i, x, s = 0;
    scanf("%d", &n);
    for (i = 0; i < n - 1; i++) {
        scanf("%d", &x);
        s += x;
    }
    printf("%d\n", s);
    return 0;
}
"""


def test_generated_inputs_refute_a_loop_bound_replaced_by_a_constant(tmp_path):
    from crepair.options import ReferenceOptions
    from crepair.schemes.staged import StagedOptions, StagedRun

    (tmp_path / "ref.c").write_text(SUM)
    (tmp_path / "sub.c").write_text(SUM)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.in").write_text("2\n5 6\n")  # n - 1 == 1: i < 1 passes the given test
    (tmp_path / "tests" / "a.out").write_text("5\n")
    run = StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")), StagedOptions(timeout=120),
                    tests_dir=tmp_path / "tests")
    try:
        assert run.stats.generated >= 10
        assert run.checks.failures(SUM, run.suite) == 0
        assert run.checks.failures(SUM.replace("i < n - 1", "i < 1"), run.suite) > 0
    finally:
        run.close()


def test_a_test_that_refutes_a_patch_joins_the_search_and_the_reference_s_loop_rules_out_a_proof(tmp_path):
    from crepair.options import ReferenceOptions
    from crepair.records import PassesSuite
    from crepair.schemes.staged import StagedOptions, StagedRun

    ref = SUM.replace("i < n - 1", "i < n")
    (tmp_path / "ref.c").write_text(ref)
    (tmp_path / "sub.c").write_text(ref.replace("i < n", "i < 2"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.in").write_text("3\n1 2 3\n")  # i <= 2 and i < 3 pass it too
    (tmp_path / "tests" / "a.out").write_text("6\n")
    run = StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")), StagedOptions(timeout=60),
                    tests_dir=tmp_path / "tests")
    repairs = list(run)
    assert [(c.before, c.after) for r in repairs for c in r.changes] == [("i < 2", "i < n")]
    # the generated inputs refuted the patches that count to 3; each refuting test joined the search
    assert run.stats.refuted >= 1 and run.stats.guided == run.stats.refuted
    evidence = repairs[0].evidence
    assert isinstance(evidence, PassesSuite) and evidence.generated == run.stats.generated > 0
    assert "runs of the reference go beyond unwinding bound 8" in evidence.why_not_proved
    # the reference's own bound check, at 8 and at the deeper bounds 10, 16, 32: no candidate's proof is tried
    assert run.stats.proofs == 4


def test_a_patch_that_passes_the_suite_is_confirmed_on_inputs_held_back_from_it(tmp_path):
    from crepair.options import ReferenceOptions
    from crepair.records import PassesSuite
    from crepair.schemes.staged import StagedOptions, StagedRun

    ref = SUM.replace("i < n - 1", "i < n")
    (tmp_path / "ref.c").write_text(ref)
    (tmp_path / "sub.c").write_text(ref.replace("i < n", "i < 2"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.in").write_text("3\n1 2 3\n")
    (tmp_path / "tests" / "a.out").write_text("6\n")
    options = StagedOptions(timeout=60, generated=0)  # the suite is the given test alone: i < 3 passes it
    run = StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")), options, tests_dir=tmp_path / "tests")
    try:
        wrong, held = ref.replace("i < n", "i < 3"), run.verdicts.held
        assert run.stats.generated == 0 and len(held.inputs) == run.stats.held_back > 50
        assert run.checks.failures(wrong, run.suite) == 0
        agreed, refuter = run.checks.confirm(wrong, held, run.suite)
        assert refuter in run.suite.generated  # the input that refutes it joined the suite
        assert run.checks.failures(wrong, run.suite) == 1
        agreed, refuter = run.checks.confirm(ref, held, run.suite)
        assert refuter is None and agreed == len(held.live()) > 50
    finally:
        run.close()
    run = StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")), options, tests_dir=tmp_path / "tests")
    repairs = list(run)
    assert [(c.before, c.after) for r in repairs for c in r.changes] == [("i < 2", "i < n")]
    assert run.stats.held_back_refuted >= 1  # i < 3 and the like passed the given test
    evidence = repairs[0].evidence
    assert isinstance(evidence, PassesSuite) and evidence.held_back > 50
    assert f"generated {evidence.generated + evidence.held_back}/" in evidence.describe()


def test_checking_generated_inputs_takes_a_fifth_of_the_time_limit_at_most(tmp_path):
    """A reference that runs for ever on every input but the given one:
    each generated input costs its 1 s time limit, 60 of them half a
    minute; the check stops at a fifth of the time left (Codeflaws 7-B)."""
    from crepair.options import ReferenceOptions
    from crepair.schemes.staged import StagedOptions, StagedRun

    ref = '#include <stdio.h>\nint main(void) { int n; scanf("%d", &n); while (n != 3) n = n * 1; printf("%d\\n", n); return 0; }\n'
    (tmp_path / "ref.c").write_text(ref)
    (tmp_path / "sub.c").write_text(ref.replace("n != 3", "n != 4"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.in").write_text("3\n")
    (tmp_path / "tests" / "a.out").write_text("3\n")
    start = time.monotonic()
    run = StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")), StagedOptions(timeout=30),
                    tests_dir=tmp_path / "tests")
    try:
        assert time.monotonic() - start < 15  # 6 s of checks, the builds; not 30 s
        assert run.stats.generated == 0 and run.stats.invalid > 0
    finally:
        run.close()


COUNT_A = r"""#include <stdio.h>
#include <string.h>
int main(void) {
    char s[101];
    int i, v = 0;
    scanf("%100s", s);
    for (i = 0; i < (int)strlen(s); i++)
        if (s[i] == 'a')
            v++;
    printf("%d\n", v);
    return 0;
}
"""


def test_a_proof_for_words_shorter_than_the_tests_words_is_no_proof(tmp_path):
    # the engine reads words of at most --input-bound characters: its proof says nothing of the tests' longer ones
    (tmp_path / "ref.c").write_text(COUNT_A)
    (tmp_path / "sub.c").write_text(COUNT_A.replace("s[i] == 'a'", "s[i] == 'b'"))
    course_tests = {"a": ("abracadabraaaa\n", "8\n"), "b": ("bab\n", "1\n")}
    (tmp_path / "tests").mkdir()
    for name, (given, expected) in course_tests.items():
        (tmp_path / "tests" / f"{name}.in").write_text(given)
        (tmp_path / "tests" / f"{name}.out").write_text(expected)
    proc = crepair("repair", "sub.c", "--reference", "ref.c", "--tests-dir", "tests", "--json", "--timeout", "120",
                   cwd=tmp_path)
    first = json.loads(proc.stdout)["repairs"][0]
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [("s[i] == 'b'", "s[i] == 'a'")]
    assert first["evidence_level"] == "tests"
    assert "holds for words of up to 8 characters only" in first["evidence"]["text"]


def test_the_teacher_s_case_is_repaired_with_a_proof(tmp_path):
    course(tmp_path)
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--compare", "exact",
                   "--json", "--timeout", "300", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    first = report["repairs"][0]
    assert first["evidence_level"] == "proof"
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [("n", "best")]
    assert first["changes"][0]["location"]["file"] == "sub.c"  # the user's file, not the copy searched
    assert report["tests"]["given"] == 3 and report["tests"]["generated"] > 0
    assert (tmp_path / "sub.c").read_text() == SUBMISSION  # nothing written without --apply


def test_the_reference_alone_seeds_the_tests_from_a_counterexample(tmp_path):
    course(tmp_path)
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--timeout", "300", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "proof (unwind 8" in proc.stdout
    assert "-    printf(\"%d\\n\", n);" in proc.stdout and "+    printf(\"%d\\n\", best);" in proc.stdout


THRESHOLD = r"""#include <stdio.h>
int main(void) {
    int n;
    if (scanf("%d", &n) != 1)
        return 0;
    printf("%s\n", n > 0 ? "big" : "small");
    return 0;
}
"""


def test_a_counterexample_found_when_every_given_test_passes_joins_round_one_s_search(tmp_path):
    """The given test passes (5 is big either way), nothing is generated:
    the bounded check's counterexample (n = 1) must be among the tests
    the first round searches with, or the search finds no failing test
    again and the check returns the same input until the time is up."""
    from crepair.options import ReferenceOptions
    from crepair.schemes.staged import StagedOptions, StagedRun

    (tmp_path / "ref.c").write_text(THRESHOLD)
    (tmp_path / "sub.c").write_text(THRESHOLD.replace("n > 0", "n > 1"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.in").write_text("5\n")
    (tmp_path / "tests" / "a.out").write_text("big\n")
    run = StagedRun(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / "ref.c")),
                    StagedOptions(timeout=120, generated=0, held_back=0), tests_dir=tmp_path / "tests")
    try:
        repairs = list(run)
        assert run.outcome == RepairOutcome.REPAIRED, run.reason
        assert [(c.before, c.after) for c in repairs[0].changes] in ([("n > 1", "n > 0")], [("n > 1", "n >= 1")])
        assert len(run.suite.counterexamples) == 1
    finally:
        run.close()


def test_a_counterexample_the_search_passes_again_ends_the_run_as_unknown_not_as_correct():
    from crepair.schemes.staged_suite import no_failing_test

    outcome, _, reason = no_failing_test(7, None)
    assert outcome == RepairOutcome.NO_FAILING_TEST and "passes all 7 tests" in reason
    assert "did not decide in time" in no_failing_test(7, None, decided=False)[2]
    outcome, _, reason = no_failing_test(7, b"ab\n")
    assert outcome == RepairOutcome.UNKNOWN and "b'ab\\n'" in reason and "undefined behaviour" in reason


def test_test_driven_without_a_specification_it_can_run_is_one_usage_line(tmp_path):
    course(tmp_path)
    proc = crepair("repair", "sub.c", "--scheme", "test-driven", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--scheme test-driven needs" in proc.stderr
    assert "Traceback" not in proc.stderr


IPAS = SHARED / "c-pack-ipas"


@pytest.mark.skipif(not IPAS.is_dir(), reason="the C-Pack-IPAs benchmark (../shared) is absent")
def test_student_063_is_repaired_from_the_course_tests(tmp_path):
    sub = IPAS / "incorrect" / "year-3" / "lab02" / "ex01" / "ex01-stu_063-sub_001.c"
    (tmp_path / "sub.c").write_bytes(sub.read_bytes())
    proc = crepair("repair", "sub.c", "--tests-dir", str(IPAS / "tests" / "lab02" / "ex01"), "--compare", "exact",
                   "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["repairs"], proc.stdout


def test_one_api_verb_runs_every_kind_of_specification(tmp_path):
    import crepair
    from crepair.options import ReferenceOptions
    from crepair.schemes.heap_run import HeapRun
    from crepair.schemes.staged import StagedRun
    from crepair.schemes.test_driven import TestDrivenRun
    from crepair.specification import HeapStates, Specification, TestSuite

    course(tmp_path)
    sub, tests = tmp_path / "sub.c", str(tmp_path / "tests")
    teacher = Specification(reference=ReferenceOptions(str(tmp_path / "model.c")),
                            tests=TestSuite(tests_dir=tests, compare="exact"))
    run = crepair.repair(sub, spec=teacher, timeout=300)
    assert isinstance(run, StagedRun)
    first = next(iter(run))
    run.close()
    assert isinstance(first.evidence, crepair.EquivalenceProof)
    assert isinstance(crepair.repair(sub, spec=Specification(tests=TestSuite(tests_dir=tests))), TestDrivenRun)
    heap = Path(__file__).parent / "data" / "heap"
    states = Specification(states=HeapStates(states=str(heap / "fig2_states.json")))
    assert isinstance(crepair.repair(heap / "fig1_reverse.c", spec=states), HeapRun)
    with pytest.raises(UsageError, match="heap states are a specification of their own"):
        crepair.repair(sub, spec=Specification(reference=teacher.reference, states=states.states))


def test_a_second_round_change_is_located_in_the_original_file():
    from crepair.records import Edit
    from crepair.records import text_span as span_of
    from crepair.schemes.staged_spans import span_back

    original = "int a = 1;\nint b = x;\nprint(b);\n"
    base = original.replace("x", "longer")  # the first round's change
    first = Edit(span_of("p.c", original, original.index("x"), original.index("x") + 1), "x", "longer")
    at = base.index("print(b)") + 6
    moved = span_back(span_of("p.c", base, at, at + 1), [first], original)
    assert (moved.start, moved.line, moved.column) == (original.index("print(b)") + 6, 3, 7)
    assert original[moved.start:moved.end] == "b"


def test_a_fault_outside_the_search_space_is_exhausted_not_a_repair(tmp_path):
    # prints the numbers in a loop: no expression, guard or format edit makes it print their maximum
    course(tmp_path, submission=r"""#include <stdio.h>
int main(void) {
    int i, n;
    for (i = 0; i < 3; i++) {
        scanf("%d", &n);
        printf("%d\n", n);
    }
    return 0;
}
""")
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--compare", "exact",
                   "--json", "--timeout", "120", cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert (proc.returncode, report["outcome"]) in ((5, "exhausted"), (4, "unknown")), proc.stdout + proc.stderr
    assert report["repairs"] == []


def test_no_tests_and_no_counterexample_is_unknown_not_a_usage_error(tmp_path):
    # the bounded engine takes no array of pointers, so no counterexample seeds the tests; the note names the
    # user's file (the error crossed from the check's forked child: it used to fail to unpickle)
    src = r"""#include <stdio.h>
int main(void) { const char *w[2] = {"no", "yes"}; int x; if (scanf("%d", &x) != 1) return 0;
  printf("%s\n", w[x > 2]); return 0; }
"""
    (tmp_path / "sub.c").write_text(src)
    (tmp_path / "model.c").write_text(src.replace("x > 2", "x > 3"))
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--json", "--timeout", "30", cwd=tmp_path)
    report = json.loads(proc.stdout)
    assert (proc.returncode, report["outcome"]) == (4, "unknown"), proc.stdout + proc.stderr
    assert "no test input" in report["reason"] and report["repairs"] == []
    assert "bounded check not run: sub.c:2:30: unsupported construct: pointer array" in " ".join(
        report["notes"]), report["notes"]


def test_a_missing_program_is_one_bad_input_line(tmp_path):
    course(tmp_path)
    proc = crepair("repair", "nosuch.c", "--reference", "model.c", cwd=tmp_path)
    assert proc.returncode == 3 and proc.stderr == "crepair: error: cannot read nosuch.c: No such file or directory\n"


def test_a_submission_that_does_not_parse_is_one_bad_input_line_and_nothing_before_it(tmp_path):
    course(tmp_path)
    (tmp_path / "broken.c").write_text("int main(void) {\n    int x = ;\n    return 0;\n}\n")
    proc = crepair("repair", "broken.c", "--reference", "model.c", "--tests-dir", "tests", cwd=tmp_path)
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr == "crepair: error: broken.c:2:13: expected expression before ';' token\n"


# -- two presentation errors: no single change passes a test -------------------------------

GRID = """\
#include <stdio.h>
int main(void) {
    int n, i, j;
    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            printf("%d\\t", i + j + 1);
        if (i != n - 1)
            printf("\\n");
    }
    return 0;
}
"""


def test_output_distance_counts_the_bytes_to_delete_and_insert():
    from crepair.testsuite import output_distance

    assert output_distance(b"1\t2\n", b"1\t2\n") == 0
    assert output_distance(b"1\t2", b"1\t2\n") == 1  # a newline missing
    assert output_distance(b"1\t2\t\n2\t3\t", b"1\t2\n2\t3\n") == 3  # two tabs too many, a newline missing


def test_two_presentation_errors_every_test_sees_are_repaired_from_the_nearest_miss(tmp_path):
    # a tab after every number (not between) and no final newline: every single change still fails every
    # test; the change whose outputs come nearest the expected ones is kept and searched from
    model = GRID.replace('printf("%d\\t", i + j + 1);', 'printf(j ? "\\t%d" : "%d", i + j + 1);').replace(
        "        if (i != n - 1)\n", "")
    rows = {k: "".join("\t".join(str(i + j + 1) for j in range(k)) + "\n" for i in range(k)) for k in (2, 3, 4)}
    course(tmp_path, submission=GRID, tests={f"t{k}": (f"{k}\n", rows[k]) for k in rows})
    (tmp_path / "model.c").write_text(model)
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--compare", "exact",
                   "--json", "--timeout", "120", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    [note] = [n for n in data["notes"] if "nearest the expected" in n]
    assert "12 bytes to delete and insert on the given tests" in note  # 2+3+4 tabs, 3 newlines
    repair = data["repairs"][0]
    tab, newline = repair["changes"]
    assert (tab["kind"], tab["original"]) == ("format", '"%d\\t"') and '"\\t%d"' in tab["replacement"]
    assert newline["kind"] == "output" and newline["edits"][0]["new"].strip() == 'printf("\\n");'
    assert repair["evidence"]["given"] == 3 and repair["evidence"]["generated"] > 0


def test_three_output_errors_are_repaired_one_nearest_miss_after_another(tmp_path):
    # two prompts and a sentence around the value (C-Pack-IPAs lab02/ex08's shape): each change alone fails every
    # test; each is the nearest miss of the search before it
    sub = """\
#include <stdio.h>
int main(void) {
    int n, i, x, sum = 0;
    printf("How many numbers?\\n");
    scanf("%d", &n);
    printf("Type them\\n");
    for (i = 0; i < n; i++) {
        scanf("%d", &x);
        sum += x;
    }
    printf("The sum is %d\\n", sum);
    return 0;
}
"""
    model = sub.replace('    printf("How many numbers?\\n");\n', "").replace('    printf("Type them\\n");\n', "") \
        .replace("The sum is %d", "%d")
    course(tmp_path, submission=sub, tests={"t0": ("2 3 4\n", "7\n"), "t1": ("3 1 1 1\n", "3\n")})
    (tmp_path / "model.c").write_text(model)
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--compare", "exact",
                   "--json", "--timeout", "120", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    changes = json.loads(proc.stdout)["repairs"][0]["changes"]
    assert sorted(c["kind"] for c in changes) == ["format", "guard", "guard"]
    assert sorted(c["original"] for c in changes if c["kind"] == "guard") == [
        'printf("How many numbers?\\n");', 'printf("Type them\\n");']
    assert [c["replacement"] for c in changes if c["kind"] == "format"] == ['"%d\\n"']


def test_a_change_searched_on_top_of_an_earlier_one_at_its_place_is_one_change():
    # Codeflaws 475-A: the first stage took "|\n)" -> "|)" and then "|)" -> "|)\n" at the same format: reported as
    # two changes whose edits overlap (no patch tool could apply them), it is one change "|\n)" -> "|)\n"
    from crepair.records import Change, Edit, text_span
    from crepair.schemes.staged_spans import merged

    original = 'x = 1;\nprintf("ab\\n)");\n'
    patched = 'x = 10;\nprintf("ab)\\n");\n'
    at = original.index('"ab')
    literal = text_span("p.c", original, at, at + len('"ab\\n)"'))
    one = text_span("p.c", original, 4, 5)
    first = (Change(one, "main", "expression", "1", "10", (Edit(one, "1", "10"),)),
             Change(literal, "main", "format", '"ab\\n)"', '"ab)"', (Edit(literal, '"ab\\n)"', '"ab)"'),)))
    later = (Change(literal, "main", "format", '"ab)"', '"ab)\\n"', (Edit(literal, '"ab)"', '"ab)\\n"'),)),)
    changes = merged(first, later, original, patched)
    assert [(c.before, c.after) for c in changes] == [("1", "10"), ('"ab\\n)"', '"ab)\\n"')]
    assert apply_edits(original, [(e.span.start, e.span.end, e.new) for c in changes for e in c.edits]) == patched


def test_a_change_inside_a_condition_the_first_round_added_is_one_change_with_it():
    # Codeflaws 41-C: round 1 refined "a == 'd'" with " && at < j" (inserted at the condition's end); round 2
    # changed "at < j" inside the inserted text: one change, not two insertions at one place (which, applied,
    # gave "&& at < j(at < j || i < 'a')")
    from crepair.records import Change, Edit, text_span
    from crepair.schemes.staged_spans import merged

    original = "if (a == 'd') x();\n"
    patched = "if (a == 'd' && (at < j || i < 'a')) x();\n"
    cond = text_span("p.c", original, 4, 12)
    end = text_span("p.c", original, 12, 12)
    first = (Change(cond, "main", "refinement", "a == 'd'", "a == 'd' && at < j", (Edit(end, "", " && at < j"),)),)
    later = (Change(end, "main", "expression", "at < j", "(at < j || i < 'a')",
                    (Edit(end, "at < j", "(at < j || i < 'a')"),)),)
    changes = merged(first, later, original, patched)
    assert [(c.before, c.after) for c in changes] == [("a == 'd'", "a == 'd' && (at < j || i < 'a')")]
    (edit,) = changes[0].edits
    assert original[:edit.span.start] + edit.new + original[edit.span.end:] == patched


def test_an_accumulation_written_as_an_assignment_is_repaired_against_the_model(tmp_path):
    """A student's ``soma = x;`` for ``soma += x;``: the assignment's
    operator is one change (crepair.testequiv.assignops; the anti-pattern
    that forbids it without a reference, C5, is off against a model)."""
    model = ('#include <stdio.h>\nint main(void) { int n, x, soma = 0; scanf("%d", &n);\n'
             '  for (int i = 0; i < n; i++) { scanf("%d", &x); soma += x; }\n  printf("%d\\n", soma); return 0; }\n')
    course(tmp_path, model.replace("soma += x;", "soma = x;"), {"t0": ("3\n1 2 3\n", "6\n"), "t1": ("1\n5\n", "5\n")})
    first = first_repair_against(tmp_path, model)
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [("soma = x;", "soma += x;")]
    assert first["evidence_level"] in ("proof", "tests")


def test_the_reference_offers_its_constants_a_header_macro_by_name_its_own_macro_by_number(tmp_path):
    from crepair.schemes.staged_suite import reference_literals

    (tmp_path / "model.c").write_text('#include <stdio.h>\n#define OUT 3\nint main(void) {\n  int c, n = 0;\n'
                                      '  while ((c = getchar()) != EOF) if (c == \'\\n\' || c == OUT) n++;\n'
                                      '  printf("%d lines\\n", n - 1);\n  return 0;\n}\n')
    (tmp_path / "with.c").write_text("#include <stdio.h>\nint main(void) { return 0; }\n")
    (tmp_path / "without.c").write_text("int main(void) { return 0; }\n")
    literals, constants = reference_literals(tmp_path / "model.c", tmp_path / "with.c")
    assert literals == ('"%d lines\\n"',)
    assert set(constants) == {(-1, "EOF"), (10, "'\\n'"), (3, "3"), (0, "0"), (1, "1")}  # OUT: the model's own
    assert (-1, "-1") in reference_literals(tmp_path / "model.c", tmp_path / "without.c")[1]  # no <stdio.h>: a number


def first_repair_against(tmp_path: Path, model: str) -> dict:
    """The first repair (JSON) of ``sub.c`` of ``course(tmp_path, ...)`` against ``model``, exact comparison."""
    (tmp_path / "model.c").write_text(model)
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--compare", "exact",
                   "--json", "--timeout", "120", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)["repairs"][0]


@pytest.mark.parametrize("loop, step, fixed", [
    ("int c = getchar(), n = 0;\n    while (c != '\\n') {", "        c = getchar();\n", ("c != '\\n'", "c != EOF")),
    ("int c, n = 0;\n    while ((c = getchar()) != '\\n') {", "", ("'\\n'", "EOF")),  # its plain side: a site
])
def test_a_loop_that_never_ends_at_end_of_input_is_repaired_with_the_references_eof(tmp_path, loop, step, fixed):
    """A student's ``while (c != '\\n')`` on inputs without a final
    newline loops for ever at end of input; the model's ``EOF``, a
    constant the submission does not have, is offered in place of ``'\\n'``."""
    sub = (f"#include <stdio.h>\nint main(void) {{\n    {loop}\n        if (c >= 'a' && c <= 'z')\n            n++;\n"
           f"{step}    }}\n" '    printf("%d\\n", n);\n    return 0;\n}\n')
    model = ('#include <stdio.h>\nint main(void) {\n    int c, n = 0;\n    while ((c = getchar()) != EOF)\n'
             "        if ('a' <= c && c <= 'z')\n            n = n + 1;\n" '    printf("%d\\n", n);\n    return 0;\n}\n')
    course(tmp_path, sub, {"t0": ("abc", "3\n"), "t1": ("Hello world", "9\n"), "t2": ("x\ny z", "3\n")})
    first = first_repair_against(tmp_path, model)
    assert [(c["original"], c["replacement"]) for c in first["changes"]] == [fixed]


def test_a_failing_run_that_exits_with_a_status_still_measures_its_distance(tmp_path):
    """The course's judge compares outputs only (``return n;`` is not
    judged), so a nearest miss is measured whatever the exit status."""
    from crepair.testsuite import run_test

    course(tmp_path, '#include <stdio.h>\nint main(void) { printf("7"); return 7; }\n', {"t0": ("", "7\n")})
    spec = load_tests(tmp_path / "sub.c", tests_dir=tmp_path / "tests", compare=Comparison.EXACT)
    with spec.workspace() as ws:
        assert ws.build().ok
        run = run_test(spec, spec.ids[0], ws, measure=True)
    assert run.exit_code == 7 and run.distance == 1  # the newline missing



@pytest.mark.parametrize("compare, cut", [(Comparison.EXACT, True), (Comparison.TRAILING_WHITESPACE, False)])
def test_under_exact_comparison_a_run_is_cut_soon_after_printing_past_the_expected(tmp_path, compare, cut):
    """A candidate that prints at end of input in a loop can never pass an
    exact comparison once it has printed more than expected: it is stopped
    a few hundred bytes past it, not after 64 KiB (nor at the time limit);
    the whitespace-insensitive comparisons keep the wide margin (the raw
    output may be longer by blanks they ignore)."""
    from crepair.testsuite import TestOutcome as Outcome, run_test

    prog = ('#include <stdio.h>\n#include <unistd.h>\nint main(void) {\n    for (int i = 0; i < 2000; i++)\n'
            '        putchar(\'x\');\n    fflush(stdout);\n    sleep(5);\n    return 0;\n}\n')
    course(tmp_path, prog, {"t0": ("", "x\n")})
    spec = load_tests(tmp_path / "sub.c", tests_dir=tmp_path / "tests", compare=compare)
    with spec.workspace() as ws:
        assert ws.build().ok
        run = run_test(spec, spec.ids[0], ws, timeout_ms=2000)
    assert (run.outcome, run.exit_code is None) == ((Outcome.FAIL, False) if cut else (Outcome.TIMEOUT, True))

def test_a_third_round_reports_every_round_s_change_on_the_original(tmp_path):
    # one wrong constant per branch, each test exercising one branch: every round's nearest patch fixes one
    # branch; the third round's repair was reported with the second round's change alone (spans of the first
    # round's patched text), the first round's change missing
    sub = """\
#include <stdio.h>
int main(void) {
    int n, r;
    scanf("%d", &n);
    if (n < 10)
        r = n + 1;
    else if (n < 20)
        r = n * 3;
    else
        r = n - 5;
    printf("%d\\n", r);
    return 0;
}
"""
    model = sub.replace("n + 1", "n + 2").replace("n * 3", "n * 4").replace("n - 5", "n - 7")
    expected = {n: (n + 2 if n < 10 else n * 4 if n < 20 else n - 7) for n in (1, 4, 7, 12, 15, 18, 23, 31, 40)}
    course(tmp_path, submission=sub, tests={f"t{n}": (f"{n}\n", f"{r}\n") for n, r in expected.items()})
    (tmp_path / "model.c").write_text(model)
    proc = crepair("repair", "sub.c", "--reference", "model.c", "--tests-dir", "tests", "--compare", "exact",
                   "--json", "--timeout", "120", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    repair = json.loads(proc.stdout)["repairs"][0]
    assert [(c["original"], c["replacement"]) for c in repair["changes"]] == [
        ("n + 1", "n + 2"), ("n * 3", "n * 4"), ("n - 5", "n - 7")]
    edits = [(e["span"]["start"], e["span"]["end"], e["new"]) for c in repair["changes"] for e in c["edits"]]
    assert apply_edits(sub, edits) == model
