"""Every reported counterexample replays: compiled with gcc and fed its
inputs, the program fails at the reported assertion."""

import signal

import pytest

import crepair
from cprog import SHARED, write_c
from replay import failed_line, replay, replayable

def assert_fails_as_reported(status: int, err: str, cex) -> None:
    """The replayed run dies where ``cex`` says: at the failed assertion,
    or with SIGFPE for a division by zero or ``MIN / -1`` (x86-64 traps)."""
    if cex.violated in (crepair.Violation.DIVISION_BY_ZERO, crepair.Violation.DIVISION_OVERFLOW):
        assert status == -signal.SIGFPE, err
    elif cex.violated == crepair.Violation.ASSERTION:
        assert status != 0 and failed_line(err) == cex.assertion.line, err
    else:
        pytest.skip(f"{cex.violated.value}: undefined, not a crash, in a plain gcc build")


FILES = sorted((SHARED / "tcas" / "spec").glob("tcas_v*.c"))[:41:4] + sorted((SHARED / "qlose" / "loops").glob("*.c"))

ARRAYS = """
    #include <assert.h>
    int main(void) {
        int a[3];
        int b[20];
        int i = nondet_int();
        __CPROVER_assume(i >= 0 && i < 20);
        assert(b[19] != 7 || a[2] != 5 || i != 3);
        return 0;
    }
"""


def test_array_inputs_show_every_element(tmp_path):
    cex = crepair.verify(write_c(tmp_path, ARRAYS)).counterexample
    values = {i.label.split()[0]: i.value for i in cex.inputs}
    assert len(values["a"]) == 3 and values["a"][2] == 5
    assert len(values["b"]) == 20 and values["b"][19] == 7


BRANCHY = """
    #include <assert.h>
    int main(void) {
        int x = nondet_int();
        int y;
        if (x > 0)
            y = nondet_int();
        else
            y = nondet_int() + 1;
        int z = nondet_int();
        __CPROVER_assume(x > -5 && x < 5 && y > -5 && y < 5 && z > -5 && z < 5);
        assert(x + y + z != 7);
        return 0;
    }
"""


def test_a_counterexample_with_branches_replays(tmp_path):
    path = write_c(tmp_path, BRANCHY)
    cex = crepair.verify(path).counterexample
    status, err = replay(path, cex, tmp_path)
    assert_fails_as_reported(status, err, cex)


# Qlose_multIA_v5's shape, where the only failure is `result /= m` with m == 0
DIVIDES = """
    #include <assert.h>
    int multIA(int m, int n) {
        int result = 0;
        for (int i = 0; i <= n - 1; i++)
            result /= m;
        return result;
    }
    int main(void) {
        int m = nondet_int();
        int n = nondet_int();
        __CPROVER_assume(n >= 0 && n <= 3);
        assert(multIA(m, n) == 0);
        return 0;
    }
"""


def test_a_division_by_zero_replays_as_sigfpe(tmp_path):
    path = write_c(tmp_path, DIVIDES)
    cex = crepair.verify(path).counterexample
    assert cex.violated == crepair.Violation.DIVISION_BY_ZERO and cex.detail == "result /= m (divisor 0)"
    assert cex.assertion.line == 5
    status, err = replay(path, cex, tmp_path)
    assert status == -signal.SIGFPE, err


@pytest.mark.skipif(not FILES, reason="shared benchmarks absent")
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_benchmark_counterexamples_replay(tmp_path, path):
    result = crepair.verify(path, unwind=10 if "Qlose" in path.name else 8, timeout=120)
    if result.outcome != crepair.VerifyOutcome.VIOLATED:
        pytest.skip(f"{result.outcome.value}: no counterexample")
    cex = result.counterexample
    if not replayable(cex):
        pytest.skip("the counterexample reads an uninitialized array or a parameter: not replayable from outside")
    status, err = replay(path, cex, tmp_path)
    assert_fails_as_reported(status, err, cex)
