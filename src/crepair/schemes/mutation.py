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
With unwinding assertions (the default, ``Unwinding.ASSERTIONS``) a
candidate whose runs the bound cuts off fails like any buggy candidate and
FOSFL localizes its counterexample; with unwinding assumptions (FM'16) such
a candidate can pass, and each repair's bound is checked so that it is
labelled vacuous.

The check solver answers most svs in milliseconds, reusing what it learnt.
It cannot preprocess with the assumptions, though: the guarded SSA
definitions stay equations, so an sv whose program is equivalent to the
specification by algebra (e.g. the same polynomial summed in another order)
can take it minutes.  So an sv that τ does not decide within
``INCREMENTAL_RLIMIT`` z3 resource units is checked again by a fresh solver
holding only the sv's own alternatives, which z3 inlines and simplifies
(``fresh_checks``).  That limit counts the solver's work, not the clock, so
the checks and the order of the repairs do not vary with machine load
(only the run's own time limit does).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from crepair.bmc import check_bound
from crepair.encode import ProgramFormula
from crepair.encode.formula import Unwinding
from crepair.encode.symex import Overrides
from crepair.localization.must import DependencyGraph, fosfl
from crepair.options import Prune
from crepair.patch import apply_edits, unified_diff
from crepair.records import (
    BoundedProof,
    BoundReport,
    Change,
    Edit,
    Repair,
    RepairOutcome,
    Scheme,
    StopReason,
    text_span,
)
from crepair.run_record import MutationStats
from crepair.schemes.base import Encoding, Problem, finish, tracked
from crepair.solver import Limits, cardinality_solver, smt, smt_solver
from crepair.solver.sat import VarPool
from crepair.solver.smt import SmtSolver, Verdict

# z3 resource units per sv on the check solver τ before the fresh-solver
# fallback (about 2 s on TCAS; see crepair.schemes.template.CANDIDATE_RLIMIT)
INCREMENTAL_RLIMIT = 14_000_000


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
    size; ``limits`` bound every check and the whole run;
    ``incremental_rlimit`` (z3 resource units) limits a check of the
    incremental solver τ before the sv goes to a fresh solver (0: always a
    fresh solver).
    Iterate to get :class:`~crepair.records.Repair` records (vacuous ones
    included, labelled by their evidence); ``stats`` is final once the
    iteration ends or is closed.
    """

    def __init__(
        self,
        formula: ProgramFormula,
        mutants: dict[int, tuple[Overrides, ...]],
        *,
        path: str,
        original: str,
        max_size: int,
        limits: Limits = Limits(),
        progress: Callable[[Progress], None] | None = None,
        prune: bool = True,
        incremental_rlimit: int = INCREMENTAL_RLIMIT,
    ):
        self._f = formula
        self._mutants = mutants
        self._path = path
        self._original = original
        self._max_size = max_size
        self._limits = limits
        self._progress = progress
        self._prune = prune
        self._incremental_rlimit = incremental_rlimit
        self.stats = MutationStats(max_size=max_size)
        self._repairable = [
            loc.index for loc in formula.locations if loc.mutable and len(mutants[loc.index]) > 1
        ]
        self.stats.locations = len(self._repairable)
        self.stats.space = search_space([len(mutants[i]) - 1 for i in self._repairable], max_size)

    # ------------------------------------------------------------------
    def __iter__(self) -> Iterator[Repair]:
        return tracked(self.stats, self._search(time.monotonic()))

    def _search(self, start: float) -> Iterator[Repair]:
        stats = self.stats
        limits = self._limits
        pool = VarPool()
        sel = {
            (i, j): pool.id((i, j)) for i in self._repairable for j in range(len(self._mutants[i]))
        }
        guards = {key: smt.Bool(f"sel_{key[0]}_{key[1]}") for key in sel}

        tau = smt_solver(limits)
        tau.add(*self._f.hard(), self._f.violation())
        for copy in self._f.copies:
            if copy.location in self._mutants and (copy.location, 1) in sel:
                for j, alt in enumerate(copy.alternatives):
                    tau.add(smt.Implies(guards[(copy.location, j)], copy.lhs == alt))
            else:
                tau.add(copy.lhs == copy.alternatives[0])

        original = {i: 0 for i in self._repairable}
        verdict, answered = self._check(tau, [guards[(i, 0)] for i in self._repairable], original)
        if verdict == Verdict.UNSAT:
            finish(stats, RepairOutcome.ORIGINAL_CORRECT, StopReason.NOT_STARTED)
            return
        if verdict == Verdict.UNKNOWN:
            finish(stats, RepairOutcome.UNKNOWN, self._why(), answered.reason_unknown)
            return
        if not self._repairable:
            finish(stats, RepairOutcome.EXHAUSTED, StopReason.COMPLETE, "no repairable location")
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

        k = stats.size = 1
        unknown = ""
        with cardinality_solver(base, atmost_one, changed, k) as map_solver:
            while True:
                if limits.expired():
                    finish(stats, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time limit reached")
                    return
                model = map_solver.next_sv()
                if model is None:
                    stats.covered[k] = time.monotonic() - start
                    if not map_solver.any_left():
                        for level in range(k + 1, self._max_size + 1):
                            stats.covered[level] = stats.covered[k]
                        stats.complete = True
                        self._end(RepairOutcome.EXHAUSTED, unknown)
                        return
                    if k >= self._max_size:
                        stats.complete = True
                        self._end(RepairOutcome.NO_REPAIR, unknown)
                        return
                    k = stats.size = k + 1
                    map_solver.set_size(k)
                    continue
                chosen = {i: j for (i, j), var in sel.items() if var in model}
                assumptions = [guards[(i, j)] for i, j in sorted(chosen.items())]
                verdict, answered = self._check(tau, assumptions, chosen)
                stats.checked += 1
                if self._progress:
                    self._progress(Progress(k, stats.checks, stats.repairs, time.monotonic() - start))
                if verdict == Verdict.SAT:
                    if self._prune and not limits.expired():
                        map_solver.block(must_clause(chosen, answered.model()))
                    else:
                        map_solver.block([-sel[(i, j)] for i, j in chosen.items()])
                    continue
                if verdict == Verdict.UNKNOWN:
                    stats.unknown_checks += 1
                    unknown = answered.reason_unknown
                    map_solver.block([-sel[(i, j)] for i, j in chosen.items()])
                    continue
                # UNSAT: repaired; block all supersets
                mutated = {i: j for i, j in chosen.items() if j != 0}
                map_solver.block([-sel[(i, j)] for i, j in mutated.items()])
                # an UNSAT from τ (guards, assumptions) is re-checked without them;
                # one from the fresh solver already was that check
                recheck = self._recheck(mutated) if answered is tau else (verdict, answered)
                if recheck[0] != Verdict.UNSAT:
                    stats.unknown_checks += 1
                    unknown = recheck[1].reason_unknown or "the fresh re-check did not confirm the repair"
                    continue
                repair = self._repair(mutated, time.monotonic() - start, self._evidence(mutated))
                stats.repairs += 1
                stats.vacuous += repair.vacuous
                yield repair

    def _why(self) -> StopReason:
        return StopReason.TIMEOUT if self._limits.expired() else StopReason.UNKNOWN

    def _end(self, none_found: RepairOutcome, unknown: str) -> None:
        """Set the outcome of a completed search; an sv left UNKNOWN makes
        "no repair" unknown (it might have been one)."""
        if unknown and not self.stats.repairs:
            finish(self.stats, RepairOutcome.UNKNOWN, StopReason.UNKNOWN, unknown)
        else:
            finish(self.stats, none_found, StopReason.COMPLETE, unknown)

    def _evidence(self, mutated: dict[int, int]) -> BoundedProof:
        """The evidence of a repair: with unwinding assertions the fresh
        proof covers every run; with assumptions, check whether the bound
        cuts off runs of the repaired program (then it is vacuous)."""
        if self._f.unwinding == Unwinding.ASSERTIONS:
            return BoundedProof(BoundReport(self._f.bound, False), True)
        self.stats.checks += 1
        return BoundedProof(check_bound(self._f, self._limits, selected=mutated), False)

    def _check(self, tau: SmtSolver, assumptions: list, chosen: dict[int, int]) -> tuple[Verdict, SmtSolver]:
        """Check sv ``chosen`` (location -> alternative index, 0 = original):
        on τ under ``assumptions`` for at most ``incremental_rlimit`` units, then,
        if τ answered UNKNOWN and time is left, on a fresh solver.  Returns
        the verdict and the solver that gave it (its model is the
        counterexample when SAT).  With ``incremental_rlimit`` 0 every sv
        goes to a fresh solver (no incremental solving)."""
        if self._incremental_rlimit > 0:
            left = self._limits.seconds_left()
            if left is not None:
                tau.set_timeout(left)
            tau.set_rlimit(self._incremental_rlimit)
            verdict = tau.check(assumptions)
            self.stats.checks += 1
            if verdict != Verdict.UNKNOWN or self._limits.expired():
                return verdict, tau
        self.stats.fresh_checks += 1
        fresh = self._fresh_solver(chosen)
        self.stats.checks += 1
        return fresh.check(), fresh

    def _fresh_solver(self, chosen: dict[int, int]) -> SmtSolver:
        """A new solver holding S_hard, the violation and alternative
        ``chosen.get(i, 0)`` at every location i: no guard variables."""
        solver = smt_solver(self._limits)
        solver.add(*self._f.hard(), self._f.violation(), *self._f.selected_copies(chosen))
        return solver

    def _recheck(self, mutated: dict[int, int]) -> tuple[Verdict, SmtSolver]:
        """Check a repaired sv with a fresh solver and no guard variables."""
        self.stats.checks += 1
        solver = self._fresh_solver(mutated)
        return solver.check(), solver

    def _repair(self, mutated: dict[int, int], seconds: float, evidence: BoundedProof) -> Repair:
        changes = []
        edits = []
        path, text = self._path, self._original
        for i in sorted(mutated, key=lambda i: self._f.locations[i].span.start):
            loc = self._f.locations[i]
            mutation = self._mutants[i][mutated[i]].mutation
            edits.append((mutation.start, mutation.end, mutation.new_text))
            rel = (mutation.start - loc.span.start, mutation.end - loc.span.start, mutation.new_text)
            edit = Edit(text_span(path, text, mutation.start, mutation.end), mutation.old_text, mutation.new_text)
            if mutation.macro is not None:  # the edit is in the macro's #define body
                changes.append(_macro_change(path, text, mutation, edit))
                continue
            after = apply_edits(loc.text, [rel])
            changes.append(Change(loc.span, loc.function, loc.kind.value, loc.text, after, (edit,)))
        patched = apply_edits(text, edits)
        diff = unified_diff(path, text, patched)
        return Repair(Scheme.MUTATION, tuple(changes), diff, patched, seconds, evidence)


def _macro_change(path: str, text: str, mutation, edit: Edit) -> Change:
    """The change of a macro body (``#define NAME body``): its span is the
    body, from its first token to its last; kind ``macro body``."""
    body = mutation.macro.tokens
    start, end = body[0].start, body[-1].end
    rel = (mutation.start - start, mutation.end - start, mutation.new_text)
    before = text[start:end]
    return Change(text_span(path, text, start, end), None, "macro body", before, apply_edits(before, [rel]), (edit,))


class MutationScheme:
    """The mutation scheme of a :class:`~crepair.schemes.base.Problem`:
    AllRepair (FM'16) with the problem's level, size limit and pruning
    (FL-AllRepair, CAV'20)."""

    def __init__(self, problem: Problem, progress: Callable[[Progress], None] | None = None):
        o = problem.options
        formula, mutants = problem.encoding(Encoding.MUTANTS)
        self._search = AllRepair(
            formula, mutants, path=problem.program.path, original=problem.program.original,
            max_size=o.max_size, limits=problem.limits, progress=progress, prune=o.prune == Prune.MUST,
        )
        self.stats: MutationStats = self._search.stats

    def repairs(self) -> Iterator[Repair]:
        return iter(self._search)
