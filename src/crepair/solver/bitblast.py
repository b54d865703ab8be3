"""A check decided by bit-blasting to CNF and a SAT solver (CaDiCaL).

CBMC's way (issue 28: "a bit-blasting path to a SAT solver"): z3's tactics
reduce the check's assertions to a propositional formula in conjunctive
normal form — word-level simplification, value propagation and solving of
definitions, elimination of unconstrained terms, IEEE floats to
bit-vectors (``fpa2bv``), then ``bit-blast`` and ``tseitin-cnf`` — and
CaDiCaL 1.9.5 (through PySAT) decides the clauses.  A satisfying
assignment is mapped back by the tactics' model converter to a model of the
original constants, and z3 then evaluates every assertion under it: a
model that falsifies one is never taken (the check falls back to z3).  A
formula the tactics cannot reduce to clauses over Boolean constants
(one with an array constant is not tried; uninterpreted functions) is left
to z3 (:func:`decide` returns None).  Tactic work is bounded by the time limit (``TryFor``); CaDiCaL is
interrupted at the time limit by a timer.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import z3

from crepair import interrupt
from crepair.solver.smt import Verdict
from crepair.solver.terms import constants

#: z3's tactics from a word-level formula to CNF (see the module docstring)
TACTICS = ("simplify", "propagate-values", "solve-eqs", "elim-uncnstr", "fpa2bv", "simplify", "bit-blast",
           "simplify", "tseitin-cnf")
#: the SAT solver's PySAT name (CaDiCaL 1.9.5)
SAT_SOLVER = "cadical195"


@dataclass(frozen=True, slots=True)
class Blasted:
    """The answer of one check: ``verdict``; ``model`` a z3 model of the
    original constants when SAT; ``reason`` why UNKNOWN; ``clauses`` and
    ``variables`` the size of the CNF (0 when the tactics decided)."""

    verdict: Verdict
    model: z3.ModelRef | None = None
    reason: str = ""
    clauses: int = 0
    variables: int = 0


def decide(assertions: list[z3.BoolRef], limit: float | None) -> Blasted | None:
    """Decide the conjunction of ``assertions`` (one z3 context) within
    ``limit`` seconds (None: no limit), or None when the formula does not
    reduce to CNF over Boolean constants (z3 is to decide it)."""
    start = time.monotonic()
    if any(z3.is_array(c) for c in constants(assertions)):
        return None  # the tactics do not blast arrays: no time spent on them
    ctx = assertions[0].ctx if assertions else z3.main_ctx()
    goal = z3.Goal(ctx=ctx)
    goal.add(*assertions)
    tactic = z3.Then(*TACTICS, ctx=ctx)
    if limit is not None:
        tactic = z3.TryFor(tactic, max(1, int(limit * 1000)), ctx=ctx)
    try:
        result = tactic(goal)
    except z3.Z3Exception as exc:  # timeout, or a theory the tactics do not blast
        interrupt.stop_if_requested()
        return Blasted(Verdict.UNKNOWN, reason="timeout") if "timeout" in str(exc).lower() or "canceled" in \
            str(exc).lower() else None
    if len(result) != 1:
        return None
    sub = result[0]
    if sub.inconsistent():
        return Blasted(Verdict.UNSAT)
    atoms: dict[int, int] = {}  # z3 AST id of a Boolean constant -> SAT variable
    consts: list[z3.BoolRef] = []
    clauses: list[list[int]] = []
    for clause in sub:
        lits = clause.children() if z3.is_or(clause) else [clause]
        out = []
        for lit in lits:
            negated = z3.is_not(lit)
            atom = lit.arg(0) if negated else lit
            if not (z3.is_const(atom) and atom.decl().kind() == z3.Z3_OP_UNINTERPRETED and z3.is_bool(atom)):
                return None
            var = atoms.get(atom.get_id())
            if var is None:
                var = atoms[atom.get_id()] = len(consts) + 1
                consts.append(atom)
            out.append(-var if negated else var)
        clauses.append(out)
    left = None if limit is None else limit - (time.monotonic() - start)
    if left is not None and left <= 0:
        return Blasted(Verdict.UNKNOWN, reason="timeout", clauses=len(clauses), variables=len(consts))
    values = _solve(clauses, left)
    if values is None:
        interrupt.stop_if_requested()
        return Blasted(Verdict.UNKNOWN, reason="timeout", clauses=len(clauses), variables=len(consts))
    if values is False:
        return Blasted(Verdict.UNSAT, clauses=len(clauses), variables=len(consts))
    model = z3.Model(ctx=ctx)
    for var, atom in enumerate(consts, start=1):
        model.update_value(atom, z3.BoolVal(values.get(var, False), ctx=ctx))
    full = sub.convert_model(model)
    if not all(z3.is_true(full.eval(a, model_completion=True)) for a in assertions):
        return None  # the model does not satisfy the formula: z3 decides instead
    return Blasted(Verdict.SAT, full, clauses=len(clauses), variables=len(consts))


def _solve(clauses: list[list[int]], limit: float | None) -> "dict[int, bool] | bool | None":
    """CaDiCaL on ``clauses``: the assignment (variable -> value) when
    satisfiable, False when not, None when stopped at ``limit`` seconds."""
    from pysat.solvers import Solver

    with Solver(name=SAT_SOLVER, bootstrap_with=clauses) as sat:
        timer = None
        if limit is not None:
            timer = threading.Timer(limit, sat.interrupt)
            timer.daemon = True
            timer.start()
        try:
            answer = sat.solve_limited(expect_interrupt=True)
        finally:
            if timer is not None:
                timer.cancel()
        if answer is None:
            return None
        if not answer:
            return False
        return {abs(lit): lit > 0 for lit in sat.get_model()}
