"""Reproducible runs (``crepair repair --reproducible``): every time limit
of the run is counted in z3 resource units, so its repairs do not depend on
machine speed or load (crepair.solver.Ledger)."""

import json
import subprocess
import sys

from crepair.solver import UNITS_PER_SECOND, WALL_CLOCK_SAFETY, Ledger, Limits, optimizer_solver, smt
from crepair.solver.smt import SPENT, Verdict
from cprog import write_c
from test_template import MAX  # FMCAD'11 Example 2: templates find y first, then more while the budget lasts

# the command line under a clock that runs ``sys.argv[1]`` times too fast:
# to crepair, a machine that many times slower (the wall-clock safety net,
# for work z3 does not count, is moved out of the way)
SLOW_MACHINE = """
import sys, time
factor = float(sys.argv.pop(1))
real = time.monotonic
start = real()
time.monotonic = lambda: start + (real() - start) * factor
import crepair.solver
crepair.solver.WALL_CLOCK_SAFETY = 1000
from crepair.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_part_of_a_run_charges_its_ledger_and_the_run_s():
    run = Ledger(100)
    part = Ledger(30, run)
    part.spend(20)
    assert (part.left(), run.left()) == (10, 80)
    run.spend(75)
    assert part.left() == 5  # the run's budget caps its part's
    part.spend(5)
    assert part.left() <= 0 and run.left() == 0


def test_reproducible_limits_are_units_with_a_distant_wall_clock_safety_net():
    limits = Limits.after(2.0, reproducible=True)
    assert limits.ledger.units == 2 * UNITS_PER_SECOND
    assert limits.seconds_left() > (WALL_CLOCK_SAFETY - 1) * 2.0
    part = limits.within(0.5)
    assert part.ledger.parent is limits.ledger and part.ledger.units == UNITS_PER_SECOND // 2
    assert not part.expired()
    part.ledger.spend(UNITS_PER_SECOND // 2)
    assert part.expired() and not limits.expired()
    assert Limits.after(2.0).ledger is None and Limits.after(2.0).within(0.5).ledger is None


def test_a_check_stops_when_the_runs_ledger_is_spent():
    x, y = smt.BitVec("x", 64), smt.BitVec("y", 64)
    hard = [x * y == smt.BitVecVal(1000000016000000063, 64), smt.UGT(x, smt.BitVecVal(1, 64)),
            smt.UGT(y, smt.BitVecVal(1, 64))]
    limits = Limits(ledger=Ledger(1000))
    opt = optimizer_solver(limits)
    opt.add(*hard)
    assert opt.check() == Verdict.UNKNOWN and opt.reason_unknown == SPENT
    assert limits.ledger.spent >= 1000 and limits.expired()
    assert opt.check() == Verdict.UNKNOWN  # nothing left: not even tried
    free = optimizer_solver(Limits())
    free.add(*hard)
    assert free.check() == Verdict.SAT


def _repair(path, factor: float, *options: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", SLOW_MACHINE, str(factor), "repair", str(path), "--scheme", "template",
         "--entry", "max", "--unwind", "1", "--max-size", "2", "--json", *options],
        capture_output=True, text=True, timeout=300,
    )
    report = json.loads(out.stdout)
    return {"outcome": report["outcome"], "repairs": [r["diff"] for r in report["repairs"]],
            "reproducible": report["options"]["reproducible"]}


def test_a_reproducible_run_finds_the_same_repairs_on_a_four_times_slower_machine(tmp_path):
    # the budget (1 s: 7 M units) is spent in the middle of the search,
    # after several repairs; on the slow machine a wall-clock limit would
    # end it after the first (about 2 s of the run are Python work)
    path = write_c(tmp_path, MAX)
    fast = _repair(path, 1.0, "--reproducible", "--timeout", "1")
    slow = _repair(path, 4.0, "--reproducible", "--timeout", "1")
    assert fast["reproducible"] and len(fast["repairs"]) > 1 and "+        r = y;" in fast["repairs"][0]
    assert slow == fast
