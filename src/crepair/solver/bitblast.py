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
formula the tactics cannot reduce to clauses over Boolean constants is
left to z3 (:func:`decide` returns None): one with an array that the
expansion of reads over writes leaves (an array input read at a symbolic
index), or with uninterpreted functions.  Tactic work is bounded by the time limit (``TryFor``); CaDiCaL is
interrupted at the time limit by a timer.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import z3
from z3 import z3core

from crepair import interrupt
from crepair.solver.smt import Verdict
from crepair.solver.terms import constants

#: z3's tactics from a word-level formula to CNF (see the module docstring): first at the word level, with
#: reads of arrays over their writes expanded (``select(store(a, i, v), j)`` is ``ite(i == j, v, select(a, j))``,
#: a read of a constant array its value), after which a formula that still has an array is left to z3
WORD_LEVEL = ("simplify", "propagate-values", "solve-eqs", "expand-select-store", "elim-uncnstr")
TO_CNF = ("fpa2bv", "simplify", "bit-blast", "simplify", "tseitin-cnf")


def _unchecked(name: str):
    """z3's C function ``name`` without the wrapper's error check after
    each call (the wrapper itself where z3's bindings do not expose it)."""
    wrapper = getattr(z3core, name)
    return getattr((wrapper.__defaults__ or (None,))[-1], "f", wrapper)


#: z3's C functions the clause reader calls on every literal
_C = type("_C", (), {name: staticmethod(_unchecked(name)) for name in (
    "Z3_get_app_arg", "Z3_to_app", "Z3_get_app_num_args", "Z3_get_ast_id", "Z3_goal_size", "Z3_goal_formula",
    "Z3_get_ast_kind", "Z3_get_decl_kind", "Z3_get_app_decl")})
#: the SAT solver's PySAT name (CaDiCaL 1.9.5)
SAT_SOLVER = "cadical195"


@dataclass(frozen=True, slots=True)
class Blasted:
    """The answer of one check: ``verdict``; ``model`` a z3 model of the
    original constants when SAT; ``reason`` why UNKNOWN."""

    verdict: Verdict
    model: z3.ModelRef | None = None
    reason: str = ""


#: the answer at the time limit
_TIMEOUT = Blasted(Verdict.UNKNOWN, reason="timeout")


def decide(assertions: list[z3.BoolRef], limit: float | None) -> Blasted | None:
    """Decide the conjunction of ``assertions`` (one z3 context) within
    ``limit`` seconds (None: no limit), or None when the formula does not
    reduce to CNF over Boolean constants (z3 is to decide it)."""
    start = time.monotonic()

    def left() -> float | None:
        return None if limit is None else limit - (time.monotonic() - start)

    ctx = assertions[0].ctx if assertions else z3.main_ctx()
    goal = z3.Goal(ctx=ctx)
    goal.add(*assertions)
    word = _apply(WORD_LEVEL, goal, left(), ctx)
    if not isinstance(word, z3.Goal):
        return word
    if word.inconsistent():
        return Blasted(Verdict.UNSAT)
    if any(z3.is_array(c) for c in constants(list(word))):
        return None  # an array the expansion did not remove: the tactics do not blast it
    sub = _apply(TO_CNF, word, left(), ctx)
    if not isinstance(sub, z3.Goal):
        return sub
    if sub.inconsistent():
        return Blasted(Verdict.UNSAT)
    cnf = _clauses(sub)
    if cnf is None:
        return None
    clauses, consts = cnf
    values = _solve(clauses, left())
    if values is None:
        interrupt.stop_if_requested()
        return _TIMEOUT
    if values is False:
        return Blasted(Verdict.UNSAT)
    model = z3.Model(ctx=ctx)
    for var, atom in enumerate(consts, start=1):
        model.update_value(atom, z3.BoolVal(values.get(var, False), ctx=ctx))
    full = sub.convert_model(model)
    if not all(z3.is_true(full.eval(a, model_completion=True)) for a in assertions):
        return None  # the model does not satisfy the formula: z3 decides instead
    return Blasted(Verdict.SAT, full)


def _clauses(goal: z3.Goal) -> "tuple[list[list[int]], list[z3.BoolRef]] | None":
    """The clauses of a goal in CNF over SAT variables 1, 2, … and the
    Boolean constant of each variable (index ``v - 1``), read through z3's
    C API on raw pointers (the Python wrappers took seconds on TCAS, and
    the names z3 prints for fresh constants need not be unique); None when
    a literal is not a Boolean constant or its negation."""
    ref = goal.ctx.ref()  # (every call below reads a well-formed AST: no error check is needed)
    atoms: dict[int, int] = {}
    consts: list[z3.BoolRef] = []
    clauses: list[list[int]] = []

    def literal(ast) -> int | None:
        negated = _kind(ref, ast) == z3.Z3_OP_NOT
        if negated:
            ast = _C.Z3_get_app_arg(ref, _C.Z3_to_app(ref, ast), 0)
        if _kind(ref, ast) != z3.Z3_OP_UNINTERPRETED or _C.Z3_get_app_num_args(ref, _C.Z3_to_app(ref, ast)):
            return None
        key = _C.Z3_get_ast_id(ref, ast)
        var = atoms.get(key)
        if var is None:
            var = atoms[key] = len(consts) + 1
            consts.append(z3.BoolRef(ast, goal.ctx))
        return -var if negated else var

    for i in range(_C.Z3_goal_size(ref, goal.goal)):
        formula = _C.Z3_goal_formula(ref, goal.goal, i)
        kind = _kind(ref, formula)
        if kind == z3.Z3_OP_TRUE:
            continue
        app = _C.Z3_to_app(ref, formula)
        parts = [_C.Z3_get_app_arg(ref, app, j) for j in range(_C.Z3_get_app_num_args(ref, app))] \
            if kind == z3.Z3_OP_OR else [formula]
        clause = []
        for part in parts:
            if _kind(ref, part) == z3.Z3_OP_FALSE:
                continue
            lit = literal(part)
            if lit is None:
                return None
            clause.append(lit)
        clauses.append(clause)
    return clauses, consts


def _kind(ref, ast) -> int:
    """The declaration kind of an application (-1 for another AST)."""
    if _C.Z3_get_ast_kind(ref, ast) != z3.Z3_APP_AST:
        return -1
    return _C.Z3_get_decl_kind(ref, _C.Z3_get_app_decl(ref, _C.Z3_to_app(ref, ast)))


def _apply(tactics: tuple[str, ...], goal: z3.Goal, limit: float | None, ctx) -> "z3.Goal | Blasted | None":
    """``goal`` after ``tactics`` (one subgoal, carrying the model
    converter back to ``goal``'s constants); UNKNOWN at ``limit``
    seconds; None when the tactics split it or fail."""
    if limit is not None and limit <= 0:
        return _TIMEOUT
    tactic = z3.Then(*[_tactic(t, ctx) for t in tactics], ctx=ctx)
    if limit is not None:
        tactic = z3.TryFor(tactic, max(1, int(limit * 1000)), ctx=ctx)
    try:
        result = tactic(goal)
    except z3.Z3Exception as exc:  # the time limit, or a theory the tactics do not handle
        interrupt.stop_if_requested()
        stopped = any(word in str(exc).lower() for word in ("timeout", "canceled"))
        return _TIMEOUT if stopped else None
    return result[0] if len(result) == 1 else None


def _tactic(name: str, ctx) -> z3.Tactic:
    if name == "expand-select-store":
        return z3.With("simplify", blast_select_store=True, expand_select_ite=True, ctx=ctx)
    return z3.Tactic(name, ctx=ctx)


def _solve(clauses: list[list[int]], limit: float | None) -> "dict[int, bool] | bool | None":
    """CaDiCaL on ``clauses``: the assignment (variable -> value) when
    satisfiable, False when not, None when stopped at ``limit`` seconds."""
    from pysat.solvers import Solver

    if limit is not None and limit <= 0:
        return None

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
