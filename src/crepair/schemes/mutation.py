"""Algorithm AllRepair: all minimal mutation repairs, smallest first.

Rothenberg & Grumberg, "Sound and Complete Mutation-Based Program Repair",
FM'16, Sect. 4, Fig. 4.  Two solver roles, as in MARCO:

* the *map solver* — an incremental SAT solver with cardinality constraints
  (MiniCard) over the selection variables V_1..V_n: exactly one alternative
  per location, ``AtLeast(V_o, n-k)`` (at most k changed locations) and the
  blocking clauses learnt so far; its models are unexplored selection
  vectors (sv);
* the *check solver* — an incremental SMT solver holding τ = S_hard ∧ the
  guarded alternatives; it checks an sv with its selection variables as
  assumptions.  SAT: the sv is not repaired, block it alone; UNSAT: the sv
  is a minimal repair, block all its supersets (``∨_{v∈V∖V_o} ¬v``).

With pruning (FL-AllRepair, Rothenberg & Grumberg, CAV'20, Sect. 6, Fig. 4)
an unrepaired candidate blocks every candidate that agrees with it on the
must location set F of its counterexample (I-FOSFL, one dependency graph for
all candidates); the set of minimal repairs is the same (Proposition 1).

k grows from 1 when no unexplored sv of size ≤ k remains.  Each repair is
re-checked by a fresh solver before it is yielded; an UNKNOWN answer is
neither a repair nor a refutation (the run's outcome becomes UNKNOWN).

The check solver answers most svs in milliseconds, reusing what it learnt.
It cannot preprocess with the assumptions, though: the guarded SSA
definitions stay equations, so an sv whose program is equivalent to the
specification by algebra (e.g. the same polynomial summed in another order)
can take it minutes.  So an sv that τ does not decide within
``INCREMENTAL_SECONDS`` is checked again by a fresh solver holding only the
sv's own alternatives, which z3 inlines and simplifies (``fresh_checks``).
That limit is wall-clock time, so the number of checks, and with pruning
the order of the repairs of one size, can vary with machine load; the set
of repairs does not (unless a check runs out of the run's time).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from crepair.encode import Location, ProgramFormula
from crepair.encode.symex import Overrides
from crepair.localization.must import DependencyGraph, fosfl
from crepair.mutation import Mutation
from crepair.patch import apply_edits, unified_diff
from crepair.solver import smt
from crepair.solver.sat import CardinalitySolver, VarPool
from crepair.solver.smt import SmtSolver, Verdict
from crepair.bmc import BoundReport, check_bound

INCREMENTAL_SECONDS = 2.0  # per sv on the check solver τ before the fresh-solver fallback


class RepairOutcome(enum.Enum):
    """How a repair run ended."""

    REPAIRED = "repaired"  # at least one repair was found
    NO_REPAIR = "no-repair"  # none within the scheme up to the size limit
    EXHAUSTED = "exhausted"  # the whole search space was explored: none exists
    ORIGINAL_CORRECT = "original-correct"  # the program already verifies up to B
    UNKNOWN = "unknown"  # time-out or solver unknown before an answer


@dataclass(frozen=True, slots=True)
class Change:
    """One changed location of a repair: ``original`` → ``replacement`` (the
    location's whole expression text before and after)."""

    location: Location
    mutation: Mutation
    original: str
    replacement: str


@dataclass(frozen=True, slots=True)
class Repair:
    """A verified repair: its changes (in source order), ``size`` (number of
    changed locations), the unified ``diff`` of the user's file, the full
    ``patched`` text, ``seconds`` since the search started, the scheme, and
    whether the unwinding bound cuts off runs of the *repaired* program
    (``bound.too_small``: then it is correct only up to the bound; e.g. a
    loop made to run longer than B passes vacuously)."""

    changes: tuple[Change, ...]
    size: int
    diff: str
    patched: str
    seconds: float
    scheme: str = "mutation"
    bound: BoundReport | None = None


@dataclass(slots=True)
class SearchStats:
    """Counts of a run: ``space[k]`` svs of size k; ``covered[k]`` seconds
    until every sv of size ≤ k was explored; ``checks`` SMT checks."""

    locations: int = 0
    space: dict[int, int] = field(default_factory=dict)
    covered: dict[int, float] = field(default_factory=dict)
    checks: int = 0
    fresh_checks: int = 0  # svs τ left undecided, checked again by a fresh solver
    unknown_checks: int = 0
    repairs: int = 0
    seconds: float = 0.0
    localizations: int = 0  # FOSFL calls (pruning)
    localization_seconds: float = 0.0
    outcome: RepairOutcome = RepairOutcome.UNKNOWN
    max_size: int = 0
    complete: bool = False  # every sv of size <= max_size was explored


@dataclass(frozen=True, slots=True)
class Progress:
    """Snapshot for progress displays."""

    size: int
    checked: int
    repairs: int
    seconds: float


def search_space(sizes: list[int], max_k: int) -> dict[int, int]:
    """Number of svs with exactly k changed locations, k = 1..max_k, given
    ``sizes[i]`` = |S_i| − 1 mutants per location (elementary symmetric sums)."""
    e = [1] + [0] * max_k
    for m in sizes:
        for k in range(max_k, 0, -1):
            e[k] += e[k - 1] * m
    return {k: e[k] for k in range(1, max_k + 1)}


class AllRepair:
    """One AllRepair run over a program formula with alternatives.

    ``formula`` and ``mutants`` come from ``encode`` with a mutation unit;
    ``original`` is the user's file text.  ``max_size`` bounds the repair
    size; ``timeout`` (seconds) bounds the whole run; ``max_repairs`` stops
    after that many; ``incremental_seconds`` limits a check of the
    incremental solver τ before the sv goes to a fresh solver (0: always a
    fresh solver).  Iterate to get :class:`Repair` records; ``stats`` is
    final once the iteration ends.
    """

    def __init__(
        self,
        formula: ProgramFormula,
        mutants: dict[int, tuple[Overrides, ...]],
        *,
        path: str,
        original: str,
        max_size: int,
        timeout: float | None,
        max_repairs: int | None = None,
        progress: Callable[[Progress], None] | None = None,
        prune: bool = True,
        incremental_seconds: float = INCREMENTAL_SECONDS,
    ):
        self._f = formula
        self._mutants = mutants
        self._path = path
        self._original = original
        self._max_size = max_size
        self._timeout = timeout
        self._max_repairs = max_repairs
        self._progress = progress
        self._prune = prune
        self._incremental_seconds = incremental_seconds
        self.stats = SearchStats(max_size=max_size)
        self._repairable = [
            loc.index for loc in formula.locations if loc.mutable and len(mutants[loc.index]) > 1
        ]
        self.stats.locations = len(self._repairable)
        self.stats.space = search_space([len(mutants[i]) - 1 for i in self._repairable], max_size)

    # ------------------------------------------------------------------
    def __iter__(self) -> Iterator[Repair]:
        start = time.monotonic()
        deadline = None if self._timeout is None else start + self._timeout
        stats = self.stats
        try:
            yield from self._search(start, deadline)
        finally:
            stats.seconds = time.monotonic() - start

    def _search(self, start: float, deadline: float | None) -> Iterator[Repair]:
        stats = self.stats
        pool = VarPool()
        sel = {
            (i, j): pool.id((i, j)) for i in self._repairable for j in range(len(self._mutants[i]))
        }
        guards = {key: smt.Bool(f"sel_{key[0]}_{key[1]}") for key in sel}

        tau = SmtSolver(timeout=smt.seconds_left(deadline))
        tau.add(*self._f.hard(), self._f.violation())
        for copy in self._f.copies:
            if copy.location in self._mutants and (copy.location, 1) in sel:
                for j, alt in enumerate(copy.alternatives):
                    tau.add(smt.Implies(guards[(copy.location, j)], copy.lhs == alt))
            else:
                tau.add(copy.lhs == copy.alternatives[0])

        original = {i: 0 for i in self._repairable}
        verdict, answered = self._check(tau, [guards[(i, 0)] for i in self._repairable], original, deadline)
        if verdict == Verdict.UNSAT:
            stats.outcome = RepairOutcome.ORIGINAL_CORRECT
            return
        if verdict == Verdict.UNKNOWN:
            stats.outcome = RepairOutcome.UNKNOWN
            return
        if not self._repairable:
            stats.outcome = RepairOutcome.EXHAUSTED
            return

        sdg = DependencyGraph(self._f) if self._prune else None
        repairable = set(self._repairable)

        def must_clause(chosen: dict[int, int], model: smt.Model) -> list[int]:
            """FL-AllRepair (CAV'20 Fig. 4, Example 5): some location of the
            candidate's must set F (of counterexample ``model``) must differ
            from the candidate."""
            t0 = time.monotonic()
            must = fosfl(sdg, self._f, model, chosen)
            stats.localizations += 1
            stats.localization_seconds += time.monotonic() - t0
            return [-sel[(i, chosen[i])] for i in sorted(must.locations & repairable)]

        base: list[list[int]] = []
        atmost_one: list[list[int]] = []
        for i in self._repairable:
            lits = [sel[(i, j)] for j in range(len(self._mutants[i]))]
            atmost_one.append(lits)
            base.append(lits)
        # the original sv itself is known to be unrepaired
        base.append([-sel[(i, 0)] for i in self._repairable])
        if self._prune:
            base.append(must_clause(original, answered.model()))
        changed = [-sel[(i, 0)] for i in self._repairable]

        k = 1
        unknown = False
        found = 0
        map_solver = CardinalitySolver(base, atmost_one, changed, k)
        while True:
            if deadline is not None and time.monotonic() >= deadline:
                stats.outcome = RepairOutcome.REPAIRED if found else RepairOutcome.UNKNOWN
                return
            model = map_solver.next_sv()
            if model is None:
                stats.covered[k] = time.monotonic() - start
                if not map_solver.any_left():
                    for level in range(k + 1, self._max_size + 1):
                        stats.covered[level] = stats.covered[k]
                    stats.complete = True
                    stats.outcome = (
                        RepairOutcome.REPAIRED if found else (RepairOutcome.UNKNOWN if unknown else RepairOutcome.EXHAUSTED)
                    )
                    return
                if k >= self._max_size:
                    stats.complete = True
                    stats.outcome = (
                        RepairOutcome.REPAIRED if found else (RepairOutcome.UNKNOWN if unknown else RepairOutcome.NO_REPAIR)
                    )
                    return
                k += 1
                map_solver.set_size(k)
                continue
            chosen = {i: j for (i, j), var in sel.items() if var in model}
            assumptions = [guards[(i, j)] for i, j in sorted(chosen.items())]
            verdict, answered = self._check(tau, assumptions, chosen, deadline)
            if self._progress:
                self._progress(Progress(k, stats.checks, found, time.monotonic() - start))
            if verdict == Verdict.SAT:
                if self._prune and (deadline is None or time.monotonic() < deadline):
                    map_solver.block(must_clause(chosen, answered.model()))
                else:
                    map_solver.block([-sel[(i, j)] for i, j in chosen.items()])
                continue
            if verdict == Verdict.UNKNOWN:
                stats.unknown_checks += 1
                unknown = True
                map_solver.block([-sel[(i, j)] for i, j in chosen.items()])
                continue
            # UNSAT: repaired; block all supersets
            mutated = {i: j for i, j in chosen.items() if j != 0}
            map_solver.block([-sel[(i, j)] for i, j in mutated.items()])
            # an UNSAT from τ (guards, assumptions) is re-checked without them;
            # one from the fresh solver already was that check
            recheck = self._recheck(mutated, deadline) if answered is tau else verdict
            if recheck != Verdict.UNSAT:
                stats.unknown_checks += 1
                unknown = True
                continue
            found += 1
            stats.repairs = found
            stats.checks += 1
            bound = check_bound(self._f, smt.seconds_left(deadline), selected=mutated)
            yield self._repair(mutated, time.monotonic() - start, bound)
            if self._max_repairs is not None and found >= self._max_repairs:
                stats.outcome = RepairOutcome.REPAIRED
                return

    def _check(
        self, tau: SmtSolver, assumptions: list, chosen: dict[int, int], deadline: float | None
    ) -> tuple[Verdict, SmtSolver]:
        """Check sv ``chosen`` (location -> alternative index, 0 = original):
        on τ under ``assumptions`` for at most ``incremental_seconds``, then,
        if τ answered UNKNOWN and time is left, on a fresh solver.  Returns
        the verdict and the solver that gave it (its model is the
        counterexample when SAT).  With ``incremental_seconds`` 0 every sv
        goes to a fresh solver (no incremental solving)."""
        if self._incremental_seconds > 0:
            left = smt.seconds_left(deadline)
            limit = self._incremental_seconds
            tau.set_timeout(limit if left is None else min(left, limit))
            verdict = tau.check(assumptions)
            self.stats.checks += 1
            if verdict != Verdict.UNKNOWN or (deadline is not None and time.monotonic() >= deadline):
                return verdict, tau
        self.stats.fresh_checks += 1
        fresh = self._fresh_solver(chosen, deadline)
        self.stats.checks += 1
        return fresh.check(), fresh

    def _fresh_solver(self, chosen: dict[int, int], deadline: float | None) -> SmtSolver:
        """A new solver holding S_hard, the violation and alternative
        ``chosen.get(i, 0)`` at every location i: no guard variables."""
        solver = SmtSolver(timeout=smt.seconds_left(deadline))
        solver.add(*self._f.hard(), self._f.violation(), *self._f.selected_copies(chosen))
        return solver

    def _recheck(self, mutated: dict[int, int], deadline: float | None) -> Verdict:
        """Check a repaired sv with a fresh solver and no guard variables."""
        self.stats.checks += 1
        return self._fresh_solver(mutated, deadline).check()

    def _repair(self, mutated: dict[int, int], seconds: float, bound: BoundReport) -> Repair:
        changes = []
        edits = []
        for i in sorted(mutated, key=lambda i: self._f.locations[i].span.start):
            loc = self._f.locations[i]
            mutation = self._mutants[i][mutated[i]].mutation
            edits.append((mutation.start, mutation.end, mutation.new_text))
            rel = (mutation.start - loc.span.start, mutation.end - loc.span.start, mutation.new_text)
            changes.append(Change(loc, mutation, loc.text, apply_edits(loc.text, [rel])))
        patched = apply_edits(self._original, edits)
        diff = unified_diff(self._path, self._original, patched)
        return Repair(tuple(changes), len(changes), diff, patched, seconds, bound=bound)
