import json

import pytest

import crepair
from crepair.bmc import deepening_bounds
from crepair.cli import ExitCode, main
from cprog import SHARED, write_c

ABS = """
    int absval(int x) {
        if (x < 0)
            return -x;
        return x;
    }
    int main(void) {
        int x = nondet_int();
        __CPROVER_assume(x > -1000 && x < 1000);
        int r = absval(x);
        assert(r >= 0);
        assert(r == x || r == -x);
        return 0;
    }
"""

BUGGY_ABS = ABS.replace("if (x < 0)", "if (x < -1)")

POWER = """
    int power(int base, int exp) {
        int result = 1;
        while (exp > 0) {
            result *= base;
            exp -= 1;
        }
        return result;
    }
    int main(void) {
        int e = nondet_int();
        __CPROVER_assume(e >= 0);
        assert(power(2, e) != 0 || e >= 32);
        return 0;
    }
"""


def test_correct_program_is_verified_up_to_the_bound(tmp_path):
    result = crepair.verify(write_c(tmp_path, ABS), unwind=2)
    assert result.outcome == crepair.VerifyOutcome.VERIFIED
    assert result.bound.too_small is False
    assert result.counterexample is None


def test_violation_gives_inputs_that_really_fail(tmp_path):
    result = crepair.verify(write_c(tmp_path, BUGGY_ABS))
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    cex = result.counterexample
    assert cex.assertion.line == 10  # assert(r >= 0)
    (x,) = [i.value for i in cex.inputs if i.label == "nondet_int()"]
    assert x == -1  # the only input in range that the bug breaks
    assert 4 in cex.lines and 3 not in cex.lines  # took the `return x` path


def test_bound_too_small_is_reported_not_claimed_correct(tmp_path):
    result = crepair.verify(write_c(tmp_path, POWER), unwind=3)
    assert result.bound.too_small is True
    assert result.bound.cut.what == "loop" and result.bound.cut.span.line == 3
    assert "vacuous beyond bound 3" in result.bound.message()


def test_proof_only_stops_at_a_bound_that_cuts_off_runs_and_looks_for_no_violation(tmp_path):
    buggy = POWER.replace("result *= base;", "result *= base; assert(exp != 2);")
    full = crepair.verify(write_c(tmp_path, buggy), unwind=3)
    assert full.outcome == crepair.VerifyOutcome.VIOLATED  # within the bound: always reported
    quick = crepair.verify(write_c(tmp_path, buggy), unwind=3, proof_only=True)
    assert quick.outcome == crepair.VerifyOutcome.UNKNOWN and quick.counterexample is None
    assert quick.bound.too_small is True and "bound 3 cuts off runs" in quick.reason
    proved = crepair.verify(write_c(tmp_path, ABS), unwind=2, proof_only=True)
    assert proved.outcome == crepair.VerifyOutcome.VERIFIED and proved.bound.too_small is False


def test_bounded_loop_with_enough_unwinding_is_complete(tmp_path):
    src = POWER.replace("__CPROVER_assume(e >= 0);", "__CPROVER_assume(e >= 0 && e <= 4);")
    result = crepair.verify(write_c(tmp_path, src), unwind=4)
    assert result.outcome == crepair.VerifyOutcome.VERIFIED
    assert result.bound.too_small is False
    result = crepair.verify(write_c(tmp_path, src), unwind=3)
    assert result.bound.too_small is True


def test_recursion_is_inlined_up_to_the_bound(tmp_path):
    src = """
        int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }
        int main(void) {
            int n = nondet_int();
            __CPROVER_assume(n >= 1 && n <= 4);
            assert(fact(n) != 24 || n == 4);
            assert(fact(n) == 6);
            return 0;
        }
    """
    result = crepair.verify(write_c(tmp_path, src), unwind=5)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED
    assert result.counterexample.assertion.line == 6
    assert result.found_within == 1  # n = 1: fact(1) = 1 without a recursive call (iterative deepening)
    holds = write_c(tmp_path, src.replace("assert(fact(n) == 6);", ""), "holds.c")
    proved = crepair.verify(holds, unwind=5)
    assert proved.outcome == crepair.VerifyOutcome.VERIFIED and proved.bound.too_small is False
    cut = crepair.verify(holds, unwind=2)
    assert cut.outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL and cut.bound.too_small is True


def test_cli_exit_codes_and_json(tmp_path, capsys):
    assert main(["verify", str(write_c(tmp_path, ABS))]) == ExitCode.OK
    assert main(["verify", str(write_c(tmp_path, BUGGY_ABS, "b.c"))]) == ExitCode.VIOLATED
    assert main(["verify", str(write_c(tmp_path, POWER, "p.c")), "--unwind", "2"]) == ExitCode.BOUND_TOO_SMALL
    bad = write_c(tmp_path, "int main(void) { int **p; return 0; }", "bad.c")
    capsys.readouterr()
    assert main(["verify", str(bad)]) == ExitCode.BAD_INPUT
    assert f"{bad}:1:" in capsys.readouterr().err
    assert main(["verify", str(write_c(tmp_path, BUGGY_ABS, "j.c")), "--json"]) == ExitCode.VIOLATED
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "violated" and data["counterexample"]["inputs"][0]["value"] == -1


@pytest.mark.skipif(not SHARED.exists(), reason="shared benchmarks absent")
def test_iterpower_is_violated_within_a_smaller_bound_than_asked(capsys):
    path = SHARED / "qlose" / "loops" / "Qlose_iterPower_v1.c"
    code = main(["verify", str(path), "--unwind", "2"])
    out = capsys.readouterr().out
    assert code == ExitCode.VIOLATED
    assert out.startswith("assertion violated") and "verified" not in out.split("\n")[0]
    assert "found within unwinding bound 1 (the bound asked for is 2)" in out
    assert "is too small" not in out  # a counterexample is not vacuous: no bound warning


COUNT_TO = """
    int main(void) {
        int n = nondet_int(), i = 0, s = 0;
        __CPROVER_assume(n >= 0 && n <= 20);
        while (i < n) { s += i; i++; }
        assert(s != 6);
        return 0;
    }
"""


def test_iterative_deepening_finds_the_violation_at_the_first_doubled_bound_that_has_it(tmp_path, capsys):
    # s == 6 needs n = 4 (0+1+2+3): the bounds tried are 1, 2, 4 (then 16 would be the one asked for)
    path = write_c(tmp_path, COUNT_TO)
    assert deepening_bounds(16) == [1, 2, 4, 8] and deepening_bounds(1) == []
    result = crepair.verify(path, unwind=16)
    assert result.outcome == crepair.VerifyOutcome.VIOLATED and result.found_within == 4
    assert [i.value for i in result.counterexample.inputs][0] == 4
    assert main(["verify", str(path), "--unwind", "16", "--json"]) == ExitCode.VIOLATED
    data = json.loads(capsys.readouterr().out)
    assert data["found_within"] == 4 and data["bound"]["unwind"] == 16
    # at the bound asked for itself (3 < 4 iterations), no violation: the bound cuts the run off
    assert crepair.verify(path, unwind=3).outcome == crepair.VerifyOutcome.BOUND_TOO_SMALL


def test_a_proof_is_still_made_at_the_bound_asked_for(tmp_path):
    path = write_c(tmp_path, COUNT_TO.replace("assert(s != 6);", "assert(s >= 0);"))
    result = crepair.verify(path, unwind=20)
    assert result.outcome == crepair.VerifyOutcome.VERIFIED and result.found_within == 0
    assert (result.bound.bound, result.bound.too_small) == (20, False)
    loop_free = write_c(tmp_path, ABS, "abs.c")  # no loop: the bound-1 formula is the whole program's
    assert crepair.verify(loop_free, unwind=8).bound.too_small is False
