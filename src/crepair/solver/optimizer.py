"""The Optimizer: an SMT solver with soft constraints, kept greedily (the
template scheme's simple candidates, FMCAD'11 Sect. III-G).  Create it with
:func:`crepair.solver.optimizer` (the factory that applies limits)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import z3

from crepair.solver.smt import Model, SmtSolver, Verdict

if TYPE_CHECKING:
    from crepair.solver import Ledger


class Optimizer:
    """Hard constraints plus soft ones, of which a maximal satisfiable subset
    is kept: every soft constraint is an assumption; while the check fails,
    the soft constraint of the core added last is dropped (soft constraints
    added earlier are preferred).  An incremental approximation of MaxSAT
    that costs plain SMT checks.  ``timeout`` in seconds per check;
    ``rlimit`` in z3 resource units per check."""

    def __init__(self, timeout: float | None = None, seed: int = 0, rlimit: int | None = None,
                 ledger: "Ledger | None" = None):
        self._solver = SmtSolver(timeout=timeout, seed=seed, rlimit=rlimit, ledger=ledger)
        self._soft: list[z3.BoolRef] = []
        self._spent = False  # the last check ran out of its resource budget

    @property
    def reason_unknown(self) -> str:
        return "resource budget spent" if self._spent else self._solver.reason_unknown

    @property
    def checks(self) -> int:
        return self._solver.checks

    def set_timeout(self, seconds: float) -> None:
        self._solver.set_timeout(seconds)

    def add(self, *terms: z3.ExprRef) -> None:
        self._solver.add(*terms)

    def add_soft(self, term: z3.ExprRef) -> None:
        lit = z3.Bool(f"soft!{id(self)}!{len(self._soft)}")
        self._solver.add(z3.Implies(lit, term))
        self._soft.append(lit)

    def check(
        self, fixed: Sequence[z3.ExprRef] = (), deadline: float | None = None, *, soft: bool = True,
        budget: int | None = None,
    ) -> Verdict:
        """Check with the assumptions ``fixed`` (never dropped) and as many
        soft constraints as the greedy pass keeps (none if ``soft`` is
        false).  ``deadline``: a ``time.monotonic()`` instant after which the
        answer is UNKNOWN; ``budget``: z3 resource units for the whole call
        (all its greedy checks; None: no budget beyond the per-check
        ``rlimit``), after which the answer is UNKNOWN.  A budget makes the
        answer independent of machine speed and load, a deadline does not."""
        active = list(self._soft) if soft else []
        spent = 0
        self._spent = False
        while True:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return Verdict.UNKNOWN
                self._solver.set_timeout(left)
            if budget is not None:
                if spent >= budget:
                    self._spent = True
                    return Verdict.UNKNOWN
                self._solver.set_rlimit(budget - spent)
            before = self._solver.resources
            verdict = self._solver.check(list(fixed) + active)
            spent += self._solver.resources - before
            if budget is not None:
                self._solver.set_rlimit(None)
                self._spent = verdict == Verdict.UNKNOWN and spent >= budget
            if verdict != Verdict.UNSAT:
                return verdict
            core = {t.get_id() for t in self._solver.core()}
            in_core = [i for i, lit in enumerate(active) if lit.get_id() in core]
            if not in_core:
                return Verdict.UNSAT
            del active[in_core[-1]]

    def model(self) -> Model:
        return self._solver.model()
