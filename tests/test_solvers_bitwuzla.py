"""Bitwuzla beside z3, the portfolio of both, and the bit-blasting path to
CaDiCaL (issue 28, item 3; crepair.solver.bzla, crepair.solver.portfolio,
crepair.solver.bitblast).

The verdicts of z3, Bitwuzla and the portfolio agree on small verify
programs (a violated assertion, a safe loop, floats, arrays); a
counterexample Bitwuzla finds is read as z3's are and replays under gcc;
the portfolio takes the decided answer when one solver gives up; a tiny
time limit on a hard problem is UNKNOWN, never a verdict; opposite decided
answers raise."""

from __future__ import annotations

import json
import shutil
import time

import pytest
import z3

import crepair
from crepair.solver import Backend, Limits, arrays, bzla, fp, portfolio, smt, smt_solver
from crepair.solver.smt import Verdict
from crepair.solver.terms import applications, lambdas

from cprog import write_c
from replay import failed_line, replay, replayable

VERIFIED = crepair.VerifyOutcome.VERIFIED
VIOLATED = crepair.VerifyOutcome.VIOLATED
SOLVERS = ("z3", "bitwuzla", "portfolio", "sat")

#: name -> (program, unwinding bound, expected outcome)
PROGRAMS = {
    "violated assertion": ("""
        int main(void) {
            int x = nondet_int();
            int y = nondet_int();
            __CPROVER_assume(x > 1 && x < 1000 && y > 1 && y < 1000 && x <= y);
            assert(x * y != 391);
            return 0;
        }
    """, 1, VIOLATED),
    "safe loop": ("""
        int main(void) {
            int n = nondet_int();
            __CPROVER_assume(n >= 0 && n <= 5);
            int s = 0;
            for (int i = 0; i < n; i++)
                s += i;
            assert(s <= 10);
            return 0;
        }
    """, 6, VERIFIED),
    "float violated": ("""
        int main(void) {
            int n = nondet_int();
            double half = n / 2.0;
            __CPROVER_assume(n > -100 && n < 100);
            assert(half * 2 + 0.25 != 7.25);
            return 0;
        }
    """, 1, VIOLATED),
    "float safe": ("""
        int main(void) {
            int n = nondet_int();
            double half = n / 2.0;
            __CPROVER_assume(n > -100 && n < 100);
            assert(half * 2 + 0.25 != 7.5);
            return 0;
        }
    """, 1, VERIFIED),
    "array violated": ("""
        int main(void) {
            int a[5] = {3, 1, 4, 1, 5};
            int k = nondet_int();
            __CPROVER_assume(k >= 0 && k < 5);
            a[k] = a[k] * 2;
            int s = 0;
            for (int i = 0; i < 5; i++)
                s += a[i];
            assert(s != 18);
            return 0;
        }
    """, 6, VIOLATED),
    "array safe": ("""
        int main(void) {
            int a[5] = {3, 1, 4, 1, 5};
            int k = nondet_int();
            __CPROVER_assume(k >= 0 && k < 5);
            a[k] = a[k] * 2;
            int s = 0;
            for (int i = 0; i < 5; i++)
                s += a[i];
            assert(s != 22);
            return 0;
        }
    """, 6, VERIFIED),
    "array out of bounds": ("""
        int main(void) {
            int a[4] = {0, 0, 0, 0};
            int k = nondet_int();
            __CPROVER_assume(k >= 0 && k <= 4);
            a[k] = 1;
            return 0;
        }
    """, 1, VIOLATED),
    # memset of part of a large array, a symbolic count: one bulk update (a z3 lambda, a quantifier for Bitwuzla)
    "memset violated": ("""
        #include <string.h>
        char buf[200];
        int main(void) {
            int n = nondet_int(), k = nondet_int();
            __CPROVER_assume(n >= 0 && n <= 100 && k >= 0 && k < 200);
            memset(buf + 10, 'x', n);
            assert(buf[k] != 'x' || k < 40);
            return 0;
        }
    """, 1, VIOLATED),
    "memset safe": ("""
        #include <string.h>
        char buf[200];
        int main(void) {
            int n = nondet_int(), k = nondet_int();
            __CPROVER_assume(n >= 0 && n <= 100 && k >= 0 && k < 200);
            memset(buf + 10, 'x', n);
            assert(buf[k] != 'x' || (k >= 10 && k < 10 + n));
            return 0;
        }
    """, 1, VERIFIED),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_z3_bitwuzla_and_the_portfolio_agree(tmp_path, name):
    source, unwind, expected = PROGRAMS[name]
    path = write_c(tmp_path, source)
    results = {s: crepair.verify(path, unwind=unwind, solver=s) for s in SOLVERS}
    assert {s: r.outcome for s, r in results.items()} == {s: expected for s in SOLVERS}
    assert results["z3"].solver == "z3" and results["bitwuzla"].solver == "bitwuzla"
    assert results["portfolio"].solver in ("z3", "bitwuzla")
    # the SAT path blasts bit-vector formulas, arrays read over their writes too; floats (fpa2bv leaves
    # functions for the results IEEE leaves open) go to z3
    assert results["sat"].solver == ("z3" if name.startswith("float") else "cadical")
    assert {r.backend for r in results.values()} == set(SOLVERS)
    if expected == VIOLATED:  # the same kind of counterexample, whoever found it
        z3_cex = results["z3"].counterexample
        for r in results.values():
            cex = r.counterexample
            assert (cex.assertion, cex.violated) == (z3_cex.assertion, z3_cex.violated)
            assert [(i.label, i.line) for i in cex.inputs] == [(i.label, i.line) for i in z3_cex.inputs]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("name", ["violated assertion", "float violated", "array violated"])
def test_a_counterexample_of_bitwuzla_replays_under_gcc(tmp_path, name):
    source, unwind, _ = PROGRAMS[name]
    path = write_c(tmp_path, source)
    result = crepair.verify(path, unwind=unwind, solver="bitwuzla")
    assert result.outcome == VIOLATED and result.solver == "bitwuzla"
    cex = result.counterexample
    assert replayable(cex)
    status, stderr = replay(path, cex, tmp_path)
    assert status != 0 and failed_line(stderr) == cex.assertion.line


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_sat_path_finds_a_counterexample_that_replays_and_proves_a_safe_loop(tmp_path):
    path = write_c(tmp_path, PROGRAMS["violated assertion"][0])
    result = crepair.verify(path, unwind=1, solver="sat")
    assert (result.outcome, result.solver) == (VIOLATED, "cadical")
    x, y = [i.value for i in result.counterexample.inputs]
    assert x * y == 391 and 1 < x <= y < 1000  # 17 * 23: the model was mapped back to the program's inputs
    status, stderr = replay(path, result.counterexample, tmp_path)
    assert status != 0 and failed_line(stderr) == result.counterexample.assertion.line
    safe = write_c(tmp_path, PROGRAMS["safe loop"][0], "safe.c")
    assert crepair.verify(safe, unwind=6, solver="sat").solver == "cadical"


def test_the_sat_path_answers_unknown_at_its_time_limit_and_leaves_arrays_to_z3():
    from crepair.solver import bitblast

    x, y = smt.BitVec("x", 64), smt.BitVec("y", 64)
    hard = [x * y == 0x7FFFFFFFFFFFFFFF, smt.UGT(x, 1), smt.UGT(y, 1), smt.ULT(x, y)]  # factor 2^63 - 1
    assert bitblast.decide(hard, 0.5).verdict == Verdict.UNKNOWN
    assert bitblast.decide([x * y == 391, smt.ULT(x, y), smt.UGT(x, 1), smt.ULT(y, 1000)], 20).verdict == Verdict.SAT
    i, j = smt.Extract(31, 0, x), smt.Extract(31, 0, y)
    a = smt.smt_array("a", 32)  # an input array read at two symbolic indices: left to z3
    assert bitblast.decide([smt.Select(a, i) == i + 1, smt.Select(a, j) == j + 2, smt.UGT(i, 3)], 20) is None


def test_the_json_of_verify_names_the_solver_asked_for_and_the_one_that_decided(tmp_path, capsys):
    from crepair.cli import main

    path = write_c(tmp_path, PROGRAMS["violated assertion"][0])
    assert main(["verify", str(path), "--unwind", "1", "--solver", "portfolio", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "violated" and data["solver"] == "portfolio"
    assert data["decided_by"] in ("z3", "bitwuzla")
    assert main(["verify", str(path), "--unwind", "1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["solver"], data["decided_by"]) == ("z3", "z3")
    assert main(["verify", str(path), "--unwind", "1", "--solver", "bitwuzla"]) == 1
    assert "s (decided by bitwuzla)" in capsys.readouterr().out
    assert main(["verify", str(path), "--solver", "cvc5"]) == 2
    assert "invalid choice: 'cvc5'" in capsys.readouterr().err


def _sqrt2(solver: smt.SmtSolver) -> None:
    """x * x == 2 in binary64 (no such double): z3 takes minutes, Bitwuzla
    under a second."""
    x = smt.BitVec("x", 64)
    solver.add(fp.binary("*", x, x, 64) == fp.from_decimal("2.0", 64))


def test_the_portfolio_takes_the_decided_answer_when_z3_gives_up():
    solver = smt_solver(Limits.after(20, backend=Backend.PORTFOLIO))
    _sqrt2(solver)
    start = time.monotonic()
    assert solver.check() == Verdict.UNSAT
    assert solver.decided_by == "bitwuzla"
    assert time.monotonic() - start < 15  # z3 was interrupted, not waited for


def test_the_portfolio_model_reads_as_z3_models_do():
    x, y = smt.BitVec("x", 32), smt.BitVec("y", 32)
    a = smt.smt_array("a", 8)
    for backend in Backend:
        solver = smt_solver(Limits.after(20, backend=backend))
        solver.add(x * y == 391, smt.ULT(x, y), smt.UGT(x, 1), smt.ULT(y, 1000), smt.Select(a, x) == 7)
        assert solver.check() == Verdict.SAT, backend
        model = solver.model()
        assert (model.eval_int(x), model.eval_int(y)) == (17, 23)
        entries, default = smt.array_entries(model, a)
        assert {**{i: default for i in range(32)}, **entries}[17] == 7


def test_the_portfolio_does_not_wait_for_a_z3_that_does_not_stop(monkeypatch):
    """z3 may ignore an interrupt (bit-blasting a large formula): its copy
    runs in a context of its own, and Bitwuzla's answer is taken at once."""
    monkeypatch.setattr(portfolio, "_verdict", lambda result: time.sleep(20) or Verdict.UNKNOWN)
    solver = smt_solver(Limits.after(30, backend=Backend.PORTFOLIO))
    _sqrt2(solver)
    start = time.monotonic()
    assert solver.check() == Verdict.UNSAT and solver.decided_by == "bitwuzla"
    assert time.monotonic() - start < 10


def test_a_nan_pattern_bitwuzla_chose_is_completed_by_z3():
    """z3 and Bitwuzla may give a NaN different bit patterns (SMT-LIB
    leaves it open): the model stays a model of the z3 formula."""
    x, y = smt.BitVec("x", 32), smt.BitVec("y", 32)
    solver = smt_solver(Limits.after(20, backend=Backend.BITWUZLA))
    solver.add(x == 0, y == fp.binary("/", x, x, 32))
    assert solver.check() == Verdict.SAT and solver.decided_by == "bitwuzla"
    value = solver.model().eval_int(y, signed=False)
    assert value & 0x7F800000 == 0x7F800000 and value & 0x7FFFFF  # a NaN


@pytest.mark.parametrize("backend", [Backend.BITWUZLA, Backend.PORTFOLIO])
def test_all_nans_of_a_sort_have_one_pattern_as_to_z3(backend):
    """z3 reads fp.to_ieee_bv as a function (free on NaN, one pattern for
    every NaN of a sort): two NaNs with two patterns is UNSAT to both
    solvers (Bitwuzla answered SAT with a model z3 rejected: unknown)."""
    x, y = smt.BitVec("x", 32), smt.BitVec("y", 32)
    solver = smt_solver(Limits.after(20, backend=backend))
    solver.add(x == 0, y == 0, fp.binary("/", x, x, 32) != fp.binary("/", y, y, 32))
    assert solver.check() == Verdict.UNSAT and solver.decided_by in ("bitwuzla", "z3")


def test_bitwuzlas_nan_pattern_is_the_z3_models_without_completion():
    """The model made of Bitwuzla's values gives fp.to_ieee_bv of a NaN
    the pattern Bitwuzla chose, so z3's evaluation accepts it as it is."""
    import z3

    x, y = z3.BitVec("x", 64), z3.BitVec("y", 64)
    assertions = [x == 0, y == fp.binary("/", x, x, 64), z3.Extract(63, 63, y) == 1]  # a NaN with its sign set
    run = bzla.BitwuzlaRun(bzla.smt2_text(assertions), seconds=20)
    run.start()
    run.join()
    assert run.verdict == Verdict.SAT
    model = bzla.model_of(run.values)
    assert bzla.satisfies(model, assertions) and model.eval(y).as_long() >> 52 == 0xFFF


def test_completing_a_bitwuzla_model_keeps_to_the_checks_time_limit():
    """A NaN pattern z3's evaluation rejects (0/0 is 0x7fc00000 to its
    evaluation) is completed by z3 checks that get the time left, and by
    none once it is over."""
    import z3

    x, y = z3.BitVec("x", 32), z3.BitVec("y", 32)
    assertions = [x == 0, y == fp.binary("/", x, x, 32)]
    solver = z3.Solver()
    solver.add(*assertions)
    values = [("x", "(_ BitVec 32)", "#x00000000"), ("y", "(_ BitVec 32)", "#x7fc00001")]
    assert not bzla.satisfies(bzla.model_of(values), assertions)
    completed = portfolio._completed(values, assertions, solver, time.monotonic() + 10)
    assert completed is not None and bzla.satisfies(completed, assertions)
    calls = []
    solver.check = lambda *a: calls.append(a) or z3.unknown  # no check may start once the time is over
    assert portfolio._completed(values, assertions, solver, time.monotonic() - 1) is None and calls == []


@pytest.mark.parametrize("backend", [Backend.BITWUZLA, Backend.PORTFOLIO])
def test_a_tiny_time_limit_on_a_hard_problem_is_unknown(backend):
    x, y = smt.BitVec("x", 64), smt.BitVec("y", 64)
    solver = smt_solver(Limits.after(0.5, backend=backend))
    solver.add(x * y == smt.BitVecVal(4294967291 * 4294967279, 64), smt.UGT(x, 1), smt.UGT(y, 1),
               smt.ULT(x, smt.BitVecVal(1 << 33, 64)), smt.ULT(y, smt.BitVecVal(1 << 33, 64)),
               x != 4294967291, x != 4294967279)
    start = time.monotonic()
    assert solver.check() == Verdict.UNKNOWN
    assert time.monotonic() - start < 5
    assert solver.decided_by == "" and "timeout" in solver.reason_unknown


def test_opposite_answers_raise(monkeypatch):
    """A z3 that answers UNSAT a little after Bitwuzla's SAT (within the
    grace the loser gets to stop): the portfolio raises, never picks one."""
    x = smt.BitVec("x", 8)
    solver = smt_solver(Limits.after(10, backend=Backend.PORTFOLIO))
    solver.add(x * x == 49)
    monkeypatch.setattr(portfolio, "_verdict", lambda result: time.sleep(0.3) or Verdict.UNSAT)
    with pytest.raises(portfolio.SolverDisagreement, match="z3 answers unsat, Bitwuzla sat"):
        solver.check()


def test_a_cancelled_bitwuzla_run_is_unknown():
    x, y = smt.BitVec("x", 64), smt.BitVec("y", 64)
    text = bzla.smt2_text([x * y == smt.BitVecVal(4294967291 * 4294967279, 64), smt.UGT(x, 1), smt.UGT(y, 1),
                           smt.ULT(x, smt.BitVecVal(1 << 33, 64)), smt.ULT(y, smt.BitVecVal(1 << 33, 64)),
                           x != 4294967291, x != 4294967279])
    run = bzla.BitwuzlaRun(text, seconds=60)
    run.start()
    time.sleep(0.3)
    run.cancel()
    run.join()
    assert (run.verdict, run.reason) == (Verdict.UNKNOWN, "cancelled")
    assert run.seconds < 5


def test_floating_point_to_bits_becomes_smt_lib():
    """z3's fp.to_ieee_bv is not SMT-LIB: the text Bitwuzla reads has none,
    and a formula that needs it keeps its answer."""
    x = smt.BitVec("x", 32)
    terms = [fp.binary("+", x, x, 32) == fp.from_decimal("3.0", 32)]
    text = bzla.smt2_text(terms)
    assert "fp.to_ieee_bv" not in text
    run = bzla.BitwuzlaRun(text, seconds=20)
    run.start()
    run.join()
    assert run.verdict == Verdict.SAT
    model = bzla.model_of(run.values)
    assert model.eval(x).as_long() == 0x3FC00000  # 1.5f


def test_checks_under_assumptions_stay_with_z3():
    """Cores and assumptions are z3's part (module docstring of smt)."""
    x = smt.BitVec("x", 8)
    p = smt.Bool("p")
    solver = smt_solver(Limits.after(20, backend=Backend.BITWUZLA))
    solver.add(smt.Implies(p, x * x == 50))
    assert solver.check([p]) == Verdict.UNSAT and solver.decided_by == "z3"
    assert [str(c) for c in solver.core()] == ["p"]


def test_the_examples_of_the_bitwuzla_module():
    import doctest

    assert doctest.testmod(bzla).failed == 0


def test_assertions_sharing_terms_are_printed_once_for_bitwuzla():
    """z3's printer shares subterms within one assertion only: 300
    assertions each reading a step of one chain of 300 terms were printed
    300 times over (Codeflaws 300-B: 1.7 GB of text); as one conjunction,
    each step once."""
    x = smt.BitVec("x", 32)
    chain = [x]
    for i in range(300):
        chain.append(chain[-1] * chain[-1] + i)
    assertions = [step != i for i, step in enumerate(chain)]
    text = bzla.smt2_text(assertions)
    deepest = bzla.smt2_text([chain[-1] != 7])
    assert len(text) < 2 * len(deepest) + 300 * 40
    run = bzla.BitwuzlaRun(text, seconds=20)
    run.start()
    run.join()
    assert run.verdict == Verdict.SAT and not run.unreadable


def test_a_bitwuzla_run_stops_at_its_time_limit():
    x, y = smt.BitVec("x", 64), smt.BitVec("y", 64)
    text = bzla.smt2_text([x * y == smt.BitVecVal(4294967291 * 4294967279, 64), smt.UGT(x, 1), smt.UGT(y, 1),
                           smt.ULT(x, smt.BitVecVal(1 << 33, 64)), smt.ULT(y, smt.BitVecVal(1 << 33, 64)),
                           x != 4294967291, x != 4294967279])
    start = time.monotonic()
    run = bzla.BitwuzlaRun(text, seconds=0.5)
    run.start()
    run.join()
    assert (run.verdict, run.reason) == (Verdict.UNKNOWN, "timeout")
    assert time.monotonic() - start < 2


def test_a_lambda_becomes_a_quantified_definition_for_bitwuzla():
    a = smt.smt_array("a", 8)
    n, k = smt.BitVec("n", 32), smt.BitVec("k", 32)
    filled = arrays.fill(a, smt.BitVecVal(2, 32), n, smt.BitVecVal(7, 8))
    inside = [smt.Select(filled, k) == 7, smt.Select(a, k) == 3, n > 0, n < 5]
    text = bzla.smt2_text(inside)
    assert "(lambda " not in text and "(forall " in text
    with bzla.BitwuzlaRun(text, seconds=10.0) as run:
        run.join()
    assert run.verdict == Verdict.SAT
    model = bzla.model_of(run.values)
    assert 2 <= model.eval(k).as_long() < 2 + model.eval(n).as_long() and bzla.satisfies(model, inside)
    outside = [smt.Select(filled, k) == 7, smt.Select(a, k) == 3, n > 0, n < 5, smt.Or(k < 2, k >= 2 + n)]
    with bzla.BitwuzlaRun(bzla.smt2_text(outside), seconds=10.0) as run:
        run.join()
    assert run.verdict == Verdict.UNSAT


def test_z3s_internal_division_operators_read_as_smt_lib_ones():
    x, y = smt.BitVec("x", 32), smt.BitVec("y", 32)
    for zero, expected in ((True, Verdict.UNSAT), (False, Verdict.SAT)):  # x / 0 is -1 or 1 in SMT-LIB, never 5
        facts = [smt.simplify(x / y) == 5, smt.simplify(smt.SRem(x, y)) == 1, (y == 0) if zero else (y == 3)]
        text = bzla.smt2_text(facts)
        assert "bvsdiv_i" not in text and "bvsrem_i" not in text and "(bvsdiv " in text
        with bzla.BitwuzlaRun(text, seconds=10.0) as run:
            run.join()
        assert run.verdict == expected
        z3_solver = smt_solver(Limits())
        z3_solver.add(*facts)
        assert z3_solver.check() == expected


def test_the_raw_walks_find_every_application_and_lambda_once():
    x = smt.BitVec("x", 32)
    filled = arrays.fill(smt.smt_array("a", 8), smt.BitVecVal(0, 32), x, smt.BitVecVal(1, 8))
    terms = [smt.Select(filled, x + 1) == 1, smt.Select(filled, x + 1) == 0, x + x == x * 2]
    # x + 1 shared by two terms: once; 0 + x inside the lambda's body (fill's count) is found too
    assert sorted(str(t) for t in applications(terms, z3.Z3_OP_BADD)) == ["0 + x", "x + 1", "x + x"]
    assert [t.is_lambda() for t in lambdas(terms)] == [True] and lambdas([x == 1]) == []
