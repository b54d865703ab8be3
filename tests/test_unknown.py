"""A solver's UNKNOWN is never a repair, a refutation or "already correct".

Each path that receives UNKNOWN is forced to it with z3's deterministic
resource limit (``rlimit``, units per check) and must end in outcome
UNKNOWN with a reason.
"""

import crepair
from crepair.bmc import check_bound, check_original
from crepair.encode import encode
from crepair.frontend import load_program
from crepair.localization.diagnosis import Diagnoser, failing_inputs
from crepair.options import RepairOptions
from crepair.records import RepairOutcome, Scheme, StopReason
from crepair.schemes.base import Problem
from crepair.schemes.template import TemplateRepair
from crepair.localization.diagnosis import Diagnosis
from crepair.schemes.template_scheme import TemplateScheme
from crepair.solver import Limits
from crepair.solver.smt import Verdict
from cprog import CLAMP_TOO_HIGH as BUGGY, write_c


LOOP = """
    int main(void) {
        int n = nondet_int();
        int i = 0;
        while (i < n)
            i = i + 1;
        assert(i >= 0);
        return 0;
    }
"""

STARVED = Limits(rlimit=1)


def test_repair_with_starved_solver_is_unknown(tmp_path):
    path = write_c(tmp_path, BUGGY)
    for scheme in ("mutation", "template"):
        run = crepair.repair(path, scheme=scheme, rlimit=1)
        assert list(run) == []
        assert run.outcome == RepairOutcome.UNKNOWN
        assert "resource limit" in run.unknown_reason


def test_mutation_search_with_starved_checks_is_unknown_not_no_repair(tmp_path):
    path = write_c(tmp_path, BUGGY)
    program = load_program(path)
    problem = Problem(program, RepairOptions(max_size=1), STARVED)
    from crepair.schemes.mutation import MutationScheme

    scheme = MutationScheme(problem)
    assert list(scheme.repairs()) == []
    assert scheme.stats.outcome == RepairOutcome.UNKNOWN and scheme.stats.reason


def test_failing_input_search_unknown_is_not_original_correct(tmp_path):
    path = write_c(tmp_path, BUGGY)
    formula, _ = encode(load_program(path), bound=2)
    inputs, reason = failing_inputs(formula, 8, STARVED)
    assert inputs == [] and "resource limit" in reason
    scheme = TemplateScheme(Problem(load_program(path), RepairOptions(schemes=(Scheme.TEMPLATE,)), STARVED))
    assert list(scheme.repairs()) == []
    assert scheme.stats.outcome == RepairOutcome.UNKNOWN
    assert scheme.stats.reason.startswith("failing-input search")


def test_diagnosis_unknown_stops_the_enumeration_with_a_reason(tmp_path):
    path = write_c(tmp_path, BUGGY)
    formula, _ = encode(load_program(path), bound=2, split_ternaries=True)
    inputs, _ = failing_inputs(formula, 2)
    components = [l.index for l in formula.locations if l.function == "f"]
    engine = Diagnoser(formula, components, inputs, STARVED)
    assert list(engine.diagnoses(max_size=2)) == []
    assert not engine.complete and engine.unknown  # z3 says "canceled" or "max. resource limit exceeded"


def test_template_candidate_and_reverification_unknown(tmp_path):
    path = write_c(tmp_path, BUGGY)
    program = load_program(path)
    formula, _ = encode(program, bound=2, split_ternaries=True)
    inputs, _ = failing_inputs(formula, 2)
    rhs = [l for l in formula.locations if l.function == "f" and l.text == "x + 1"]
    search = TemplateRepair(formula, Diagnosis(tuple(rhs), 0.0), inputs, path=str(path),
                            original=program.original, entry="main", limits=STARVED)
    assert list(search.repairs(0.0)) == []
    assert search.unknown.startswith("candidate check")
    # re-verification of a (correct) patched text under a starved solver
    fixed = program.original.replace("y = 10;", "y = 9;")
    assert search._reverify(fixed) is None and search.unknown.startswith("re-verification")


def test_bound_check_unknown_is_not_a_verdict(tmp_path):
    path = write_c(tmp_path, LOOP)
    formula, _ = encode(load_program(path), bound=2)
    report = check_bound(formula, STARVED)
    assert report.too_small is None and "could not decide" in report.message()
    verdict, model, reason = check_original(formula, STARVED)
    assert verdict == Verdict.UNKNOWN and model is None and reason


def test_localize_unknown_says_so(tmp_path):
    path = write_c(tmp_path, BUGGY)
    for method in ("must", "diagnosis"):
        result = crepair.localize(path, method=method, rlimit=1)
        assert result.outcome == crepair.VerifyOutcome.UNKNOWN
        assert result.counterexample is None and result.reason


def test_verify_unknown_has_a_reason(tmp_path):
    result = crepair.verify(write_c(tmp_path, BUGGY), rlimit=1)
    assert result.outcome == crepair.VerifyOutcome.UNKNOWN and "resource limit" in result.reason


def test_stopping_early_reports_what_happened(tmp_path):
    path = write_c(tmp_path, BUGGY)
    run = crepair.repair(path, level=2, max_size=2, max_repairs=1, timeout=None)
    assert len(list(run)) == 1
    assert run.outcome == RepairOutcome.REPAIRED and run.stopped == StopReason.MAX_REPAIRS
    run = crepair.repair(path, level=2, max_size=2, timeout=None)
    next(run)
    run.close()
    assert run.outcome == RepairOutcome.REPAIRED and run.stopped == StopReason.CALLER
    assert run.stats.stopped == StopReason.CALLER


# A program whose unwound, inlined formula is far too large to build: three
# nested loops around a doubly recursive call, bound 12 (about 12^3 * 2^12
# inlined bodies).  The run's deadline must stop the encoding itself.
HUGE = """
    int f(int n) { if (n <= 0) return 0; return f(n - 1) + f(n - 2) + 1; }
    int main(void) {
        int x = nondet_int();
        int s = 0;
        for (int i = 0; i < x; i++)
            for (int j = 0; j < x; j++)
                for (int k = 0; k < x; k++)
                    s += f(k);
        assert(s >= 0);
        return 0;
    }
"""


def test_encoding_past_the_deadline_is_unknown_in_every_command(tmp_path):
    from crepair.bmc import ENCODING_TIMEOUT
    path = write_c(tmp_path, HUGE)
    result = crepair.verify(path, unwind=12, timeout=1)
    assert result.outcome == crepair.VerifyOutcome.UNKNOWN and result.reason == ENCODING_TIMEOUT
    assert result.bound.too_small is None
    located = crepair.localize(path, unwind=12, timeout=1)
    assert located.outcome == crepair.VerifyOutcome.UNKNOWN and located.reason == ENCODING_TIMEOUT
    assert located.locations == ()
    for scheme in ("mutation", "template"):
        run = crepair.repair(path, unwind=12, timeout=1, scheme=scheme)
        assert list(run) == []
        assert run.outcome == RepairOutcome.UNKNOWN
        assert ENCODING_TIMEOUT in run.unknown_reason


def test_a_check_that_ignores_its_time_limit_is_interrupted(monkeypatch):
    """z3 may not look at the clock (bit-blasting a huge formula): the
    watchdog interrupts the check WATCHDOG_GRACE seconds after the limit."""
    import time
    from crepair.solver import smt
    monkeypatch.setattr(smt, "WATCHDOG_GRACE", 0.2)
    solver = smt.SmtSolver(timeout=0.3)
    solver.set_timeout(0.3)
    solver._solver.set("timeout", 10**7)  # as if z3 did not notice its own limit
    x, y = smt.BitVec("x", 512), smt.BitVec("y", 512)
    solver.add(x * y == smt.BitVecVal(2**511 + 2**300 + 1, 512), smt.UGT(x, smt.BitVecVal(1, 512)),
               smt.UGT(y, smt.BitVecVal(1, 512)))
    start = time.monotonic()
    assert solver.check() == Verdict.UNKNOWN
    assert time.monotonic() - start < 5
    assert solver.reason_unknown == "interrupted"


def test_the_command_line_stops_when_the_solver_outlives_its_time_limit(monkeypatch, capsys, tmp_path):
    """The last resort of --timeout: HARD_STOP_GRACE seconds after it the
    process reports UNKNOWN (exit 4) whatever z3 is doing."""
    import time
    import crepair.cli as cli
    from crepair.cli import verify_cmd
    exits = []

    monkeypatch.setattr(cli, "HARD_STOP_GRACE", 0.1)
    monkeypatch.setattr(cli.os, "_exit", exits.append)  # the real one would end pytest
    monkeypatch.setattr(verify_cmd, "run", lambda args: time.sleep(1.5) or 0)
    path = write_c(tmp_path, BUGGY)
    assert cli.main(["verify", str(path), "--timeout", "0.2"]) == 0  # the command itself ran on
    assert exits == [4]
    assert "the run did not stop at the time limit (--timeout 0.2 s, from the start)" in capsys.readouterr().err
    exits.clear()
    monkeypatch.setattr(verify_cmd, "run", lambda args: 0)
    assert cli.main(["verify", str(path), "--timeout", "0.2"]) == 0
    time.sleep(0.5)
    assert exits == []  # a command that ends in time cancels it


def test_the_hard_stop_says_where_the_run_was(monkeypatch, capsys, tmp_path):
    import time
    import crepair.cli as cli
    from crepair.cli import repair_cmd
    exits = []

    def stuck(*args, **kwargs):  # a check of the original program that outlives the limit
        time.sleep(1.5)
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "HARD_STOP_GRACE", 0.1)
    monkeypatch.setattr(cli.os, "_exit", exits.append)
    monkeypatch.setattr(repair_cmd.api, "repair", stuck)
    path = write_c(tmp_path, BUGGY)
    assert cli.main(["repair", str(path), "--timeout", "0.2"]) == 130
    assert exits == [4]
    assert ("the run did not stop at the time limit (--timeout 0.2 s, from the start); stopped 0.1 s later, while at: "
            "loading the program and checking the original one") in capsys.readouterr().err


def test_the_hard_stop_removes_the_scratch_folders_of_the_run(monkeypatch, tmp_path):
    """``os._exit`` runs no finalizer: the hard stop removes the run's
    scratch folders (builds, project copies) itself, and leaves the
    user's files alone."""
    import time
    import crepair.cli as cli
    from crepair.cli import verify_cmd
    from crepair.toolchain.scratch import scratch_folder

    class Owner:  # what a run keeps alive while it works (a workspace, a reference's builds)
        pass

    owner, made, exits = Owner(), [], []

    def overrunning(args):
        folder, _ = scratch_folder(owner, "crepair-test-")
        (folder / "a.o").write_bytes(b"x")
        made.append(folder)
        time.sleep(1.5)
        return 0

    monkeypatch.setattr(cli, "HARD_STOP_GRACE", 0.1)
    monkeypatch.setattr(cli.os, "_exit", exits.append)
    monkeypatch.setattr(verify_cmd, "run", overrunning)
    path = write_c(tmp_path, BUGGY)
    before = path.read_bytes()
    assert cli.main(["verify", str(path), "--timeout", "0.2"]) == 0
    assert exits == [4] and len(made) == 1
    assert not made[0].exists()  # removed by the stop, although its owner is alive
    assert path.read_bytes() == before


def test_an_optimizer_budget_is_counted_in_resource_units_over_the_whole_call():
    """The template scheme's patience per candidate is a z3 resource budget
    (not seconds), shared by the greedy pass's checks: spent, the answer is
    UNKNOWN with that reason, and the same budget gives the same answer
    at any load; without a budget the same query is decided."""
    from crepair.solver import optimizer_solver, smt
    x, y = smt.BitVec("x", 64), smt.BitVec("y", 64)
    hard = [x * y == smt.BitVecVal(1000000016000000063, 64), smt.UGT(x, smt.BitVecVal(1, 64)),
            smt.UGT(y, smt.BitVecVal(1, 64)), smt.ULT(x, y)]

    def check(budget):
        opt = optimizer_solver(Limits())
        opt.add(*hard)
        opt.add_soft(x == smt.BitVecVal(2, 64))  # not satisfiable: dropped by the greedy pass
        verdict = opt.check(budget=budget)
        return verdict, opt.reason_unknown

    assert check(None)[0] == Verdict.SAT
    assert check(1000) == (Verdict.UNKNOWN, "resource budget spent")
    assert check(1000) == (Verdict.UNKNOWN, "resource budget spent")
