"""Terms and the incremental SMT solver (z3), behind a small interface.

Terms are z3 expressions, but no other package imports z3: they build terms
with the functions of this module (re-exported constructors and helpers) and
check them with :class:`SmtSolver`, whose answers are :class:`Verdict`
values with an explicit ``UNKNOWN``.
"""

from __future__ import annotations

import enum
import functools
import threading
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import z3

from crepair import interrupt
from crepair.solver import fp
from crepair.solver.connectives import And, If, Or  # noqa: F401 (re-exported: z3's, faster on terms)

if TYPE_CHECKING:
    from crepair.solver import Ledger

# Term constructors used by the encoder (bit-vectors, Booleans, arrays).
BitVec = z3.BitVec
BitVecVal = z3.BitVecVal
Bool = z3.Bool
BoolVal = z3.BoolVal
Not = z3.Not
Implies = z3.Implies
Extract = z3.Extract
SignExt = z3.SignExt
ZeroExt = z3.ZeroExt
UDiv = z3.UDiv
URem = z3.URem
SRem = z3.SRem
LShR = z3.LShR
ULT = z3.ULT
ULE = z3.ULE
UGT = z3.UGT
UGE = z3.UGE
Select = z3.Select
Store = z3.Store
Concat = z3.Concat
K = z3.K
Array = z3.Array
BitVecSort = z3.BitVecSort
is_eq = z3.is_eq
Term = z3.ExprRef
BoolTerm = z3.BoolRef


def leave_ctrl_c_to_caller(leave: bool = True) -> None:
    """Turn z3's own SIGINT handling off (on with ``leave=False``): a check
    then runs under the caller's handler (:mod:`crepair.interrupt`) and
    stops when :func:`interrupt_checks` is called."""
    z3.set_param("ctrl_c", not leave)


def limit_memory(megabytes: int) -> None:
    """Let z3 use at most ``megabytes`` MiB: past it a check answers
    UNKNOWN ("max. memory exceeded")."""
    z3.set_param("memory_max_size", megabytes)


def interrupt_checks() -> None:
    """Interrupt the checks in progress (any thread may call it): they
    answer UNKNOWN at once."""
    z3.main_ctx().interrupt()


def is_false(term: z3.ExprRef) -> bool:
    return z3.is_false(term)


def is_true(term: z3.ExprRef) -> bool:
    return z3.is_true(term)


def is_bv_value(term: z3.ExprRef) -> bool:
    return z3.is_bv_value(term)


def simplify(term: z3.ExprRef) -> z3.ExprRef:
    return z3.simplify(term)


@functools.lru_cache(maxsize=4096)
def bv(value: int, bits: int = 32) -> z3.BitVecRef:
    """The ``bits``-bit constant ``value`` (taken modulo 2**bits), built
    once per (value, bits): terms are immutable, and the encoder asks for
    the same small constants (0, 1, characters, widths) many thousands of
    times per program."""
    return z3.BitVecVal(value, bits)


def is_array(term: z3.ExprRef) -> bool:
    return z3.is_array(term)


def width(term: z3.ExprRef) -> int:
    return term.size()


class Verdict(enum.Enum):
    """Answer of one satisfiability check."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


class Backend(enum.Enum):
    """The SMT solver that decides a check (``crepair verify --solver``)."""

    Z3 = "z3"
    BITWUZLA = "bitwuzla"  # z3 still answers checks under assumptions and in reproducible runs
    PORTFOLIO = "portfolio"  # z3 and Bitwuzla at once, the first decided answer wins
    SAT = "sat"  # bit-blasted to CNF and decided by CaDiCaL (crepair.solver.bitblast); else z3


class Model:
    """A satisfying assignment; evaluates terms to Python ints/bools."""

    def __init__(self, model: z3.ModelRef):
        self._model = model

    def eval_int(self, term: z3.ExprRef, signed: bool = True) -> int:
        value = self._model.eval(term, model_completion=True)
        if z3.is_bv_value(value):
            return value.as_signed_long() if signed else value.as_long()
        raise ValueError(f"term {term} has no integer value in the model")

    def eval_bool(self, term: z3.ExprRef) -> bool:
        return z3.is_true(self._model.eval(term, model_completion=True))

    def eval_term(self, term: z3.ExprRef) -> z3.ExprRef:
        return self._model.eval(term, model_completion=True)


def array_entries(model: Model, term: z3.ExprRef, signed: bool = True) -> tuple[dict[int, int], int]:
    """The value of array ``term`` in ``model`` as (index -> element where
    it differs from the default, default element): every element."""
    value = model.eval_term(term)
    raw = model._model

    def num(v: z3.ExprRef) -> int:
        v = raw.eval(v, model_completion=True)
        return v.as_signed_long() if signed else v.as_long()

    entries: dict[int, int] = {}
    while True:
        if z3.is_store(value):
            arr, idx, elem = value.children()
            entries.setdefault(raw.eval(idx, model_completion=True).as_long(), num(elem))
            value = arr
        elif z3.is_const_array(value):
            default = num(value.children()[0])
            break
        elif z3.is_as_array(value):
            interp = raw[z3.get_as_array_func(value)]
            for args_value in interp.as_list()[:-1]:
                entries.setdefault(args_value[0].as_long(), num(args_value[1]))
            default = num(interp.else_value())
            break
        else:
            raise ValueError(f"array value of unexpected form: {value}")
    return {i: v for i, v in entries.items() if v != default}, default


WATCHDOG_GRACE = 0.5  # seconds past a check's time limit before the watchdog interrupts z3
SPENT = "resource budget of the run spent"  # reason of an UNKNOWN when the run's ledger is empty


class SmtSolver:
    """An incremental SMT solver with a fixed seed.  Create it with
    :func:`crepair.solver.smt_solver` (the factory that applies limits).

    ``timeout`` is in seconds (``None``: no limit); ``rlimit`` is z3's
    deterministic resource limit per check (``None``: none; z3 resource
    units, counted by the solver's work, not the clock: the same check
    gives up at the same point on any machine and under any load).  A check that
    runs out of either answers ``Verdict.UNKNOWN``, never UNSAT; the reason
    is kept in ``reason_unknown``.  z3 does not always notice its own
    ``timeout`` (some simplifications and bit-blasting of a large formula
    never look at the clock), so a watchdog thread interrupts a check
    :data:`WATCHDOG_GRACE` seconds after its time limit.  ``ledger``: the
    run's budget of resource units, which caps every check and is charged
    with what it spends (reason ``SPENT`` once it is empty).  ``deadline``:
    a ``time.monotonic()`` instant (None: none); each check's time limit is
    at most the time left until it, and past it a check answers UNKNOWN
    (reason ``"timeout"``) without starting z3.  ``backend``: who decides a
    check without assumptions (:mod:`crepair.solver.portfolio`; Bitwuzla
    counts no z3 units, so a run with a ``ledger`` and a check under
    assumptions, which may ask for a core, go to z3 alone); after a check,
    ``decided_by`` names the solver that decided it ("z3", "bitwuzla"; ""
    when UNKNOWN).  ``rlimit`` bounds z3's checks here, not its copy in the portfolio.
    """

    def __init__(self, timeout: float | None = None, seed: int = 0, rlimit: int | None = None,
                 ledger: "Ledger | None" = None, deadline: float | None = None, backend: Backend = Backend.Z3):
        self._deadline = deadline
        self.backend = backend
        self.decided_by = ""
        self._found: z3.ModelRef | None = None  # the model of the last SAT check, when Bitwuzla decided it
        self._solver = z3.SolverFor("QF_ABV")
        self._solver.set("random_seed", seed)
        self.rlimit = rlimit
        self._units = rlimit  # the per-check limit in force (set_rlimit)
        self._ledger = ledger
        if rlimit is not None:
            self._solver.set("rlimit", rlimit)
        if timeout is not None:
            self.set_timeout(timeout)
        self.checks = 0
        self.reason_unknown = ""
        self._timeout: float | None = None
        self._seed = seed
        self._scopes: list[list[z3.ExprRef]] | None = [[]]  # assertions per push level; None once on QF_ABVFP
        self._unprobed: list[z3.ExprRef] = []  # assertions not yet probed for floating-point terms
        self._fp_seen = 0  # fp.sorts_made() at the last probe: no new FP sort, no FP term to probe for

    def set_timeout(self, seconds: float) -> None:
        self._timeout = seconds
        self._solver.set("timeout", max(1, int(seconds * 1000)))

    def set_rlimit(self, units: int | None) -> None:
        """Limit each following check to ``units`` z3 resource units, and
        never more than the solver's own ``rlimit`` (None: that limit only)."""
        if units is None:
            self._units = self.rlimit
        else:
            self._units = units if self.rlimit is None else min(units, self.rlimit)
        if self._ledger is None:
            self._solver.set("rlimit", max(1, self._units) if self._units is not None else 0)

    @property
    def resources(self) -> int:
        """z3 resource units spent by this solver's checks so far."""
        stats = self._solver.statistics()
        return stats.get_key_value("rlimit count") if "rlimit count" in stats.keys() else 0

    def add(self, *terms: z3.ExprRef) -> None:
        self._solver.add(*terms)
        if self._scopes is not None:
            self._scopes[-1].extend(terms)
            self._unprobed.extend(terms)

    def push(self) -> None:
        self._solver.push()
        if self._scopes is not None:
            self._scopes.append([])

    def pop(self) -> None:
        self._solver.pop()
        if self._scopes is not None:
            self._scopes.pop()

    def _floats(self) -> None:
        """Move to QF_ABVFP once floats are asserted (QF_ABV's solver gets them wrong)."""
        unprobed, self._unprobed = self._unprobed, []
        seen, self._fp_seen = self._fp_seen, fp.sorts_made()
        if self._scopes is not None and self._fp_seen != seen and fp.has_floats(unprobed):
            self._solver, self._scopes = fp.solver_for_floats(self._scopes, self._seed), None
            if self._timeout is not None:
                self.set_timeout(self._timeout)
            self.set_rlimit(None if self._units == self.rlimit else self._units)

    def check(self, assumptions: Sequence[z3.ExprRef] = ()) -> Verdict:
        self.checks += 1
        interrupt.stop_if_requested()
        self._floats()
        if self._ledger is not None:  # the run's budget caps this check
            left = self._ledger.left()
            if left <= 0:
                self.reason_unknown = SPENT
                return Verdict.UNKNOWN
            units = left if self._units is None else min(self._units, left)
            self._solver.set("rlimit", units)
            before = self.resources
        limit = self._timeout
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                self.reason_unknown = "timeout"
                return Verdict.UNKNOWN
            if limit is None or left < limit:
                limit = left
                self._solver.set("timeout", max(1, int(left * 1000)))
            elif self._timeout is not None:
                self._solver.set("timeout", max(1, int(self._timeout * 1000)))
        self.decided_by, self._found = "", None
        if self.backend is not Backend.Z3 and not assumptions and self._ledger is None:
            decided = self._decide(limit)
            if decided is not None:
                return decided
        result = self._z3(assumptions, limit)
        interrupt.stop_if_requested()  # Ctrl-C stopped this check: the run stops, no UNKNOWN
        if self._ledger is not None:
            self._ledger.spend(self.resources - before)
        if result == z3.sat:
            self.decided_by = "z3"
            return Verdict.SAT
        if result == z3.unsat:
            self.decided_by = "z3"
            return Verdict.UNSAT
        spent = self._ledger is not None and self._ledger.left() <= 0
        self.reason_unknown = SPENT if spent else (self._solver.reason_unknown() or "unknown")
        return Verdict.UNKNOWN

    def _z3(self, assumptions: Sequence[z3.ExprRef], limit: float | None) -> z3.CheckSatResult:
        """z3's check, interrupted by a watchdog :data:`WATCHDOG_GRACE`
        seconds after ``limit`` (seconds; None: no watchdog)."""
        watchdog = None
        if limit is not None:
            watchdog = threading.Timer(limit + WATCHDOG_GRACE, self._solver.ctx.interrupt)
            watchdog.daemon = True
            watchdog.start()
        try:
            return self._solver.check(*assumptions)
        finally:
            if watchdog is not None:
                watchdog.cancel()

    def _decide(self, limit: float | None) -> Verdict | None:
        """The check by Bitwuzla, the portfolio or CaDiCaL (:attr:`backend`);
        None when the SAT path leaves it to z3."""
        if self.backend is Backend.SAT:
            return self._blast(limit)
        from crepair.solver import portfolio

        decision = portfolio.decide(self._solver, lambda: self._z3((), limit), limit, self._seed,
                                    with_z3=self.backend is Backend.PORTFOLIO)
        self.decided_by, self._found = decision.solver, decision.model
        self.reason_unknown = decision.reason
        return decision.verdict

    def _blast(self, limit: float | None) -> Verdict | None:
        """The check bit-blasted and decided by CaDiCaL; None when the
        formula does not reduce to CNF (:func:`crepair.solver.bitblast.decide`)."""
        from crepair.solver import bitblast

        blasted = bitblast.decide(list(self._solver.assertions()), limit)
        if blasted is None:
            return None
        self._found = blasted.model
        self.decided_by = "cadical" if blasted.verdict is not Verdict.UNKNOWN else ""
        self.reason_unknown = blasted.reason
        return blasted.verdict

    def model(self) -> Model:
        return Model(self._found if self._found is not None else self._solver.model())

    def core(self) -> list[z3.ExprRef]:
        return list(self._solver.unsat_core())


def conjunction(terms: Iterable[z3.ExprRef]) -> z3.ExprRef:
    terms = list(terms)
    if not terms:
        return z3.BoolVal(True)
    return terms[0] if len(terms) == 1 else z3.And(*terms)


def disjunction(terms: Iterable[z3.ExprRef]) -> z3.ExprRef:
    terms = list(terms)
    if not terms:
        return z3.BoolVal(False)
    return terms[0] if len(terms) == 1 else z3.Or(*terms)


def smt_array(name: str, elem_bits: int) -> z3.ArrayRef:
    """An array variable from 32-bit indices to ``elem_bits``-bit elements."""
    return z3.Array(name, z3.BitVecSort(32), z3.BitVecSort(elem_bits))


# term utilities, in crepair.solver.terms (re-exported: callers import them from here)
from crepair.solver.terms import (  # noqa: E402
    constant_names, eq_sides, is_ite, bool_kind, shape, constants, renamer, value_of, substitute, eliminate_definitions,
    at_most,
)
