"""Model-based diagnosis of a program (Könighofer & Bloem, FMCAD'11, Sect. III).

Components are locations (right-hand sides and, optionally, conditions).
A component may be *abnormal*: its value becomes a fresh symbol — in our
program formula, the location copies' equations ``lhs == original`` are
simply dropped (the paper's ``cmp``/``rep_c``).

* ``repairable'(Q)`` (Eq. 3): over a set J of failing inputs, with one
  renamed copy of the program formula per input, is there a passing run
  when only the components outside Q may change their values?
* a *conflict* is a set Q with ``repairable'(Q) = false``; minimal
  conflicts are minimal unsatisfiable cores of the retractable per-component
  constraints (the formulation below Eq. 3), shrunk by deletion;
* minimal *diagnoses* are the minimal hitting sets of all conflicts
  (Theorem 1).  Instead of Reiter's HS-tree we use the equivalent
  incremental enumerator of implicit hitting sets: a SAT solver with a
  cardinality bound proposes a hitting set H of the conflicts found so far
  (smallest first, supersets of diagnoses blocked); if ``repairable'(CMP∖H)``
  H is a minimal diagnosis, else a new minimal conflict disjoint from H is
  learnt.  Diagnoses come in increasing cardinality; those of one size in a
  fixed order (value components before conditions, then source order).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from crepair.encode.formula import Location, LocationKind, ProgramFormula
from crepair.solver import Limits, cardinality_solver, smt, smt_solver
from crepair.solver.smt import Verdict

VALUE_KINDS = frozenset({LocationKind.ASSIGNMENT, LocationKind.RETURN, LocationKind.ARGUMENT})
CONDITION_KINDS = frozenset({LocationKind.CONDITION})


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """A minimal diagnosis: the components (locations, in source order) that
    may be changed together to pass on the inputs J; ``seconds`` since the
    diagnosis started."""

    components: tuple[Location, ...]
    seconds: float

    @property
    def size(self) -> int:
        return len(self.components)


def failing_inputs(
    formula: ProgramFormula, count: int, limits: Limits = Limits()
) -> tuple[list[dict[str, smt.Term]], str]:
    """Up to ``count`` distinct failing inputs (counterexamples), each a map
    from input variable name to its value term, and the reason when the
    search ended on an UNKNOWN answer ("" otherwise).  No inputs and no
    reason means the program is correct up to the bound."""
    solver = smt_solver(limits)
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation())
    used = smt.constant_names(formula.hard() + formula.original_copies() + [formula.violation()])
    inputs = [i for i in formula.inputs if str(i.term) in used]
    out: list[dict[str, smt.Term]] = []
    while len(out) < count:
        verdict = solver.check()
        if verdict == Verdict.UNKNOWN:
            return out, solver.reason_unknown
        if verdict == Verdict.UNSAT:
            break
        model = solver.model()
        values = {str(i.term): smt.value_of(model, i.term) for i in inputs}
        out.append(values)
        if not inputs:
            break
        solver.add(smt.disjunction(i.term != values[str(i.term)] for i in inputs))
    return out, ""


def pin(formula: ProgramFormula, values: dict[str, smt.Term]) -> list[smt.Term]:
    """Equations fixing the inputs of ``formula`` to ``values``."""
    return [i.term == values[str(i.term)] for i in formula.inputs if str(i.term) in values]


class Diagnoser:
    """Minimal diagnoses of ``formula`` over failing inputs ``inputs`` (J).

    ``components`` are location indices that may be abnormal; every other
    location keeps its original expression.  ``limits`` bound each check;
    an UNKNOWN answer stops the enumeration (``complete`` stays false,
    ``unknown`` holds the reason) rather than being taken as either answer.
    """

    def __init__(
        self,
        formula: ProgramFormula,
        components: list[int],
        inputs: list[dict[str, smt.Term]],
        limits: Limits = Limits(),
    ):
        self._f = formula
        self.components = sorted(components)
        self.checks = 0
        self.complete = False
        self.unknown = ""
        self._normal = {c: smt.Bool(f"normal_{c}") for c in self.components}
        comp_set = set(self.components)
        fixed = [c.lhs == c.alternatives[0] for c in formula.copies if c.location not in comp_set]
        per_comp = {c: [] for c in self.components}
        for copy in formula.copies:
            if copy.location in comp_set:
                per_comp[copy.location].append(copy.lhs == copy.alternatives[0])
        base = smt.conjunction(formula.hard() + fixed + [smt.Not(formula.violation())])
        comp_terms = {c: smt.conjunction(per_comp[c]) for c in self.components}
        self._solver = smt_solver(limits)
        for j, values in enumerate(inputs):
            rename = smt.renamer([base, *comp_terms.values()], f"J{j}")
            self._solver.add(rename(base))
            for eq in pin(formula, values):
                self._solver.add(rename(eq))
            for c in self.components:
                self._solver.add(smt.Implies(self._normal[c], rename(comp_terms[c])))

    def repairable(self, normal: list[int]) -> Verdict:
        """``repairable'(Q)`` for Q = ``normal``: SAT means repairable."""
        self.checks += 1
        verdict = self._solver.check([self._normal[c] for c in sorted(normal)])
        if verdict == Verdict.UNKNOWN:
            self.unknown = self._solver.reason_unknown
        return verdict

    def minimal_conflict(self, candidates: list[int]) -> list[int] | None:
        """A minimal conflict within ``candidates`` (None if none exists or
        the solver gave up): unsatisfiable core, shrunk by deletion."""
        verdict = self.repairable(candidates)
        if verdict != Verdict.UNSAT:
            return None
        by_name = {str(v): c for c, v in self._normal.items()}
        core = sorted(by_name[str(t)] for t in self._solver.core())
        i = 0
        while i < len(core):
            trial = core[:i] + core[i + 1 :]
            verdict = self.repairable(trial)
            if verdict == Verdict.UNSAT:
                smaller = {by_name[str(t)] for t in self._solver.core()}
                core = [c for c in trial if c in smaller]
            elif verdict == Verdict.SAT:
                i += 1
            else:
                return None
        return core

    def diagnoses(self, max_size: int, max_diagnoses: int | None = None) -> Iterator[list[int]]:
        """Minimal diagnoses (lists of location indices), smallest first."""
        n = len(self.components)
        var = {c: i + 1 for i, c in enumerate(self.components)}
        with cardinality_solver([], [], [var[c] for c in self.components], 0) as hitting:
            yield from self._enumerate(hitting, var, n, max_size, max_diagnoses)

    def _enumerate(self, hitting, var: dict[int, int], n: int, max_size: int, max_diagnoses: int | None):
        k, found = 0, 0
        level: list[list[int]] = []  # diagnoses of size k, yielded in a fixed order
        while True:
            model = hitting.next_sv()
            if model is None:
                for chosen in sorted(level, key=self._order):
                    yield chosen
                    found += 1
                    if max_diagnoses is not None and found >= max_diagnoses:
                        return
                level = []
                if not hitting.any_left() or k >= min(max_size, n):
                    self.complete = True
                    return
                k += 1
                hitting.set_size(k)
                continue
            chosen = [c for c in self.components if var[c] in model]
            normal = [c for c in self.components if var[c] not in model]
            verdict = self.repairable(normal)
            if verdict == Verdict.SAT:
                level.append(chosen)
                hitting.block([-var[c] for c in chosen])
                continue
            conflict = None if verdict == Verdict.UNKNOWN else self.minimal_conflict(normal)
            if conflict is None:  # unknown: the diagnoses of this size found so far are still diagnoses
                yield from sorted(level, key=self._order)[: None if max_diagnoses is None else max_diagnoses - found]
                return
            hitting.block([var[c] for c in conflict])

    def _order(self, chosen: list[int]) -> tuple:
        """Value components before conditions, then source order."""
        locs = [self._f.locations[c] for c in chosen]
        return (
            sum(l.kind == LocationKind.CONDITION for l in locs),
            sorted(l.span.start for l in locs),
        )


def diagnose(
    formula: ProgramFormula,
    components: list[int],
    inputs: list[dict[str, smt.Term]],
    *,
    max_size: int,
    max_diagnoses: int | None = None,
    limits: Limits = Limits(),
    engine: "Diagnoser | None" = None,
) -> Iterator[Diagnosis]:
    """Minimal diagnoses as :class:`Diagnosis` records, in increasing size.

    FMCAD'11 Sect. III-C/D with repairable' over ``inputs`` (Theorem 2: no
    diagnosis is missed, some may be false positives for other inputs).
    Pass ``engine`` (a :class:`Diagnoser` of the same arguments) to read
    its ``complete`` and ``unknown`` afterwards.
    """
    start = time.monotonic()
    engine = engine or Diagnoser(formula, components, inputs, limits)
    for chosen in engine.diagnoses(max_size, max_diagnoses):
        locs = sorted((formula.locations[c] for c in chosen), key=lambda l: l.span.start)
        yield Diagnosis(tuple(locs), time.monotonic() - start)
