"""Template repair by counterexample-guided refinement (FMCAD'11, Sect. III-E..G).

For a diagnosis Δ every component c ∈ Δ gets a linear template over the
variables in scope where it executes (Vars(c)):

* values: ``k0 + k1·v1 + … + kn·vn`` (k0 a 32-bit constant, the
  coefficients 12-bit signed: readable repairs, and cheaper bit-vector
  multiplications);
* conditions: ``k0 + k1·v1 + … + kn·vn OP 0`` with OP a template parameter
  ranging over ``< <= > >= == !=``;
* refinements of a truth value ``e`` (f1x, TOSEM'18 Fig. 10, ``shape``
  AND / OR): ``e && b`` or ``e || b`` with ``b`` the condition template
  with unit coefficients (:mod:`crepair.schemes.template_forms`).  A
  refinement's constant is bisected over 32 bits, so its loop gets at
  least 32 refinements.

Variables read uninitialized at the component are not template variables.

The parameters k are found by the loop of Fig. 3: a candidate satisfies
``correct'`` on every input of the database I (Eq. 5); it is then checked
for all inputs up to the unwinding bound (Eq. 6); a counterexample is added
to I and the loop repeats (at most ``max_refinements`` times).  Heuristics
of Sect. III-G: *simple* candidates (MaxSAT with soft ``ki = 0`` and
``|ki| <= M``, then soft unit coefficients ``ki ∈ {-1, 0, 1}``) and
*nasty* counterexamples (soft ``|i| >= N``, then values randomized while
the input stays a counterexample).  Further repairs of the
same diagnosis exclude the parameters found before.  Every repair is
printed as a simplified expression and re-verified from its patched text.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

from crepair.bmc import check_bound, check_original
from crepair.encode import encode
from crepair.encode.formula import ProgramFormula, Unwinding
from crepair.errors import CRepairError
from crepair.frontend import load_program
from crepair.localization.diagnosis import Diagnosis, pin
from crepair.patch import apply_edits, unified_diff
from crepair.records import BoundedProof, BoundReport, Change, Edit, Repair, Scheme
from crepair.schemes.template_forms import (
    COEFFICIENT_BITS,
    OPERATORS,
    Shape,
    Template,
    instantiate,
    render,
    template_for,
)
from crepair.solver import Limits, optimizer_solver, smt, smt_solver
from crepair.solver.optimizer import Optimizer
from crepair.solver.smt import Verdict

__all__ = ["OPERATORS", "Template", "TemplateRepair", "render"]

SMALL = 1000  # M: "small" template parameters
LARGE = 1 << 20  # N: "large" counterexample values
# A candidate check (Eq. 5) that needs more z3 resource units gives up the
# diagnosis: such checks are the UNSAT proofs of complex sparsity levels
# (tens of seconds on TCAS with 12-variable templates), seldom a repair.
# Resource units, not seconds, so that the repairs found do not depend on
# machine load (z3 5.4 spends about 7 million units a second on TCAS's
# template checks, bench/results/tcas-schedule.md's machine: 70 M ≈ 10 s).
CANDIDATE_RLIMIT = 70_000_000
REFINEMENT_CANDIDATE_RLIMIT = 210_000_000  # the same for a refinement (its sparsity levels hold the repair)


class TemplateRepair:
    """Repairs of one diagnosis (see module docstring).

    ``database`` is the initial input database I (the failing inputs J);
    ``max_terms`` bounds how complex a candidate may be: at most that many
    parameters outside the simple range (a non-zero coefficient, or a
    constant beyond ±M), counted by the sparsity levels of the simple-
    candidate heuristic; ``timeout`` (seconds) bounds the whole search of
    this diagnosis.  ``reload`` turns a patched text into the program to
    re-verify (default: the file loaded whole, ``load_program``).
    ``limits`` bound every check and the whole search of this diagnosis.
    ``unknown`` holds the reason when a check the search
    needed answered UNKNOWN (then "no repair" is not proved).
    """

    def __init__(
        self,
        formula: ProgramFormula,
        diagnosis: Diagnosis,
        database: list[dict[str, smt.Term]],
        *,
        path: str,
        original: str,
        entry: str,
        max_refinements: int = 10,
        repairs: int = 5,
        max_terms: int = 3,
        limits: Limits = Limits(),
        seed: int = 0,
        reload=None,
        shape: Shape = Shape.REPLACE,
        on_candidate=None,
    ):
        self._f = formula
        self._on_candidate = on_candidate  # called with no argument after each candidate is checked
        self.candidates = 0  # candidates (template instances) checked against the inputs
        self._reload = reload or (lambda text: load_program(path, text=text))  # patched text -> CProgram
        self._d = diagnosis
        self._db = list(database)
        self._path = path
        self._original = original
        self._entry = entry
        self._max_refinements = max_refinements
        self._repairs = repairs
        self._max_terms = max_terms
        self._limits = limits
        self.unknown = ""
        self._texts: set[str] = set()  # patched texts tried
        self._random = random.Random(seed)
        self.checks = 0
        self.templates = [template_for(loc, formula, shape) for loc in diagnosis.components]
        by_loc = {t.location.index: t for t in self.templates}
        eqs = []
        for copy in formula.copies:
            t = by_loc.get(copy.location)
            if t is not None and copy.check and shape == Shape.REPLACE:  # the template replaces the operation checked
                eqs.append(copy.lhs)
                continue
            eqs.append(copy.lhs == (copy.alternatives[0] if t is None or copy.check else instantiate(t, copy)))
        self._program = smt.conjunction(formula.hard() + eqs)
        self._params = [p for t in self.templates for p in t.params()]
        self._param_names = {str(p) for p in self._params}
        used = smt.constant_names([self._program, formula.violation()])
        self._inputs = [i for i in formula.inputs if str(i.term) in used]

    def repairs(self, start: float) -> Iterator[Repair]:
        deadline = self._limits.deadline
        found: list[dict[str, int]] = []
        candidates = optimizer_solver(self._limits)
        unit = {str(p): t.unit for t in self.templates for p in t.k}
        coefficients = [p for p in self._params if p.size() != 3]
        constants = [p for p in self._params if p.size() == 32]
        for p in self._params:
            if p.size() == 3:
                candidates.add(smt.ULT(p, smt.BitVecVal(len(OPERATORS), 3)))
        for t in self.templates:
            for p in t.k[1:] if t.unit else ():
                one = smt.BitVecVal(1, p.size())
                candidates.add(smt.Or(p == one, p == -one, p == smt.BitVecVal(0, p.size())))
        # simple candidates (Sect. III-G): the most soft constraints k_i = 0 and
        # |k_i| <= M satisfied, exactly (a bound on the number violated, raised
        # when no candidate fits); among those, greedily, the fewest variables
        violated = [p != smt.BitVecVal(0, p.size()) for p in coefficients] + [
            smt.Or(p > smt.BitVecVal(SMALL, 32), p < smt.BitVecVal(-SMALL, 32)) for p in constants
        ]
        sparsity = []
        for m in range(min(len(violated), self._max_terms) + 1):
            sparsity.append(smt.Bool(f"at_most_{m}_violated!{id(self)}"))
            candidates.add(smt.Implies(sparsity[m], smt.at_most(violated, m)))
        # (a refinement's unit coefficients have no soft constraints: the
        # sparsity level alone bounds them, one check per candidate)
        for p in coefficients:
            if p.size() == COEFFICIENT_BITS and not unit[str(p)]:
                candidates.add_soft(p == smt.BitVecVal(0, p.size()))
        # then unit coefficients: ``x - 600 > 0`` rather than ``256 * x > 0``, so
        # that the counterexamples bisect the constant, not the coefficient
        for p in coefficients:
            if p.size() == COEFFICIENT_BITS and not unit[str(p)]:
                candidates.add_soft(smt.Or(p == smt.BitVecVal(1, p.size()), p == smt.BitVecVal(-1, p.size()),
                                           p == smt.BitVecVal(0, p.size())))
        # a refinement's constant is bisected over its 32-bit range: allow the
        # 32 halvings that may take
        refining = any(t.unit for t in self.templates)
        refinements = max(self._max_refinements, 32) if refining else self._max_refinements
        patience = REFINEMENT_CANDIDATE_RLIMIT if refining else CANDIDATE_RLIMIT
        level = 0
        for j, values in enumerate(self._db):
            self._add_input(candidates, j, values)
        added = len(self._db)
        while len(found) < self._repairs:
            for _ in range(refinements):
                if self._limits.expired():
                    self.unknown = "time limit of the diagnosis reached"
                    return
                verdict = Verdict.UNSAT
                while level < len(sparsity):
                    self.checks += 1
                    verdict = candidates.check([sparsity[level]], deadline, budget=patience)
                    if verdict != Verdict.UNSAT:
                        break
                    level += 1  # the database only grows: simpler candidates stay refuted
                if verdict == Verdict.UNKNOWN:  # give up this diagnosis
                    self.unknown = f"candidate check: {candidates.reason_unknown}"
                if verdict != Verdict.SAT:
                    return  # UNSAT: no (more) repair with these templates
                model = candidates.model()
                values = {str(p): model.eval_int(p, signed=p.size() != 3) for p in self._params}
                values = self._central(candidates, [sparsity[level]], values, deadline)
                cex = self._counterexample(values, deadline)
                self.candidates += 1
                if self._on_candidate is not None:
                    self._on_candidate()
                if cex is None:
                    self.unknown = "counterexample check answered unknown"
                    return
                if cex == "correct":
                    repair, fresh = self._verified_repair(values, time.monotonic() - start)
                    if fresh:  # an equivalent rendering of an earlier repair does not count
                        found.append(values)
                    candidates.add(smt.disjunction(p != smt.BitVecVal(values[str(p)], p.size()) for p in self._params))
                    if repair is not None:
                        yield repair
                    break
                self._add_input(candidates, added, cex)
                added += 1
            else:
                return

    def _central(
        self, opt: Optimizer, fixed: list[smt.Term], values: dict[str, int], deadline: float | None
    ) -> dict[str, int]:
        """Move each template's constant ``k0`` to the middle of the interval
        the input database still allows for it (the other parameters and the
        sparsity level ``fixed``), so that every counterexample to a wrong
        constant halves that interval (bisection) instead of moving the
        candidate by one ("least effort" counterexamples, Sect. III-G).
        The interval ends are found by binary search over the signed 32-bit
        range (at most 64 small checks: the database constraints mention
        only the parameters).  Returns ``values``, updated in place."""
        for t in self.templates:
            p = t.k[0]
            current = values[str(p)]
            pinned = [q == smt.BitVecVal(values[str(q)], q.size()) for q in self._params if q is not p]

            def feasible(extra: smt.Term) -> bool | None:
                self.checks += 1
                verdict = opt.check(fixed + pinned + [extra], deadline, soft=False)
                return None if verdict == Verdict.UNKNOWN else verdict == Verdict.SAT

            least = _farthest(lambda v: feasible(p <= smt.BitVecVal(v, 32)), current, -(1 << 31))
            if least is None:
                return values
            greatest = _farthest(lambda v: feasible(p >= smt.BitVecVal(v, 32)), current, (1 << 31) - 1)
            if greatest is None:
                return values
            centre = (least + greatest) // 2
            if centre != current and feasible(p == smt.BitVecVal(centre, 32)):
                values[str(p)] = centre
        return values

    def _add_input(self, opt: Optimizer, j: int, values: dict[str, smt.Term]) -> None:
        """Eq. 5 for one input: a renamed copy of the program with the
        templates (parameters shared) that passes on ``values``."""
        passing = smt.substitute(smt.And(self._program, smt.Not(self._f.violation())), values)
        passing = smt.eliminate_definitions(passing, self._params)
        rename = smt.renamer([passing], f"I{j}", keep=self._param_names)
        opt.add(rename(passing))

    def _counterexample(self, values: dict[str, int], deadline: float | None):
        """Eq. 6 with a nasty counterexample (any counterexample for a
        refinement), "correct" if there is none, or None if the solver
        gave up."""
        fixed = smt.substitute(
            smt.And(self._program, self._f.violation()),
            {str(p): smt.BitVecVal(values[str(p)], p.size()) for p in self._params},
        )
        solver = smt_solver(self._limits)
        solver.add(fixed)
        self.checks += 1
        verdict = solver.check()
        if verdict == Verdict.UNSAT:
            return "correct"
        if verdict == Verdict.UNKNOWN:
            return None
        if any(t.unit for t in self.templates):
            # a refinement's constant is bisected (``_central``): any
            # counterexample halves its interval, a nasty one is not needed
            model = solver.model()
            return {str(i.term): smt.value_of(model, i.term) for i in self._inputs}
        scalars = [i for i in self._inputs if not i.is_array]
        nasty = optimizer_solver(self._limits)
        nasty.add(fixed)
        for i in scalars:
            big = smt.BitVecVal(LARGE, i.term.size()) if i.term.size() > 21 else None
            if big is not None and i.signed:
                nasty.add_soft(smt.Or(i.term >= big, i.term <= -big))
        self.checks += 1
        model = nasty.model() if nasty.check(deadline=deadline) == Verdict.SAT else solver.model()
        cex = {str(i.term): smt.value_of(model, i.term) for i in self._inputs}
        # randomize: large random values while it stays a counterexample
        for i in scalars:
            if i.term.size() < 16 or (deadline is not None and time.monotonic() >= deadline):
                continue
            guess = self._random.randrange(LARGE, 1 << (min(i.term.size(), 32) - 2))
            guess = guess if (not i.signed or self._random.random() < 0.5) else -guess
            trial = dict(cex)
            trial[str(i.term)] = smt.BitVecVal(guess, i.term.size())
            check = smt_solver(self._limits)
            check.add(fixed, *pin(self._f, trial))
            self.checks += 1
            if check.check() == Verdict.SAT:
                cex = trial
        return cex

    def _verified_repair(self, values: dict[str, int], seconds: float) -> tuple[Repair | None, bool]:
        """The repair of parameters ``values`` if it re-verifies from its
        text, and whether its text is new (an earlier repair may print
        alike: ``x - 601 >= 0`` and ``-x + 600 < 0`` are both ``x > 600``
        or ``x >= 601``; a repeated text is not checked again)."""
        changes, edits = [], []
        for t in self.templates:
            loc = t.location
            text = render(t, values)
            before = self._original[: loc.span.start].rstrip()
            if " " in text and before.endswith(("?", ":")):
                text = f"({text})"
            edit = Edit(loc.span, loc.text, text)
            changes.append(Change(loc.span, loc.function, loc.kind.value, loc.text, text, (edit,)))
            edits.append((loc.span.start, loc.span.end, text))
        patched = apply_edits(self._original, edits)
        if patched in self._texts:
            return None, False
        self._texts.add(patched)
        evidence = self._reverify(patched)
        if evidence is None:
            return None, True
        diff = unified_diff(self._path, self._original, patched)
        return Repair(Scheme.TEMPLATE, tuple(changes), diff, patched, seconds, evidence), True

    def _reverify(self, text: str) -> BoundedProof | None:
        """Re-check a patched program from its text with a fresh encoding
        (same bound and unwinding semantics): its evidence if it verifies,
        else None (``unknown`` is set when the check was unknown)."""
        try:
            program = self._reload(text)
            formula, _ = encode(program, bound=self._f.bound, entry=self._entry, unwinding=self._f.unwinding,
                                checks=self._f.checks)
        except CRepairError:
            return None
        self.checks += 1
        verdict, _, reason = check_original(formula, self._limits)
        if verdict == Verdict.UNKNOWN:
            self.unknown = f"re-verification of a repair: {reason}"
        if verdict != Verdict.UNSAT:
            return None
        if formula.unwinding == Unwinding.ASSERTIONS:
            return BoundedProof(BoundReport(formula.bound, False), True)
        self.checks += 1
        return BoundedProof(check_bound(formula, self._limits), False)


def _farthest(reaches: Callable[[int], bool | None], known: int, limit: int) -> int | None:
    """Binary search: the value v from ``known`` to ``limit`` (inclusive)
    nearest ``limit`` with ``reaches(v)`` true, for a ``reaches`` that holds
    at ``known`` and, wherever it holds, at every value between there and
    ``known``.  None if ``reaches`` answers None (unknown).  At most
    log2(|limit − known| + 1) + 1 calls."""
    good, bad = known, limit + (1 if limit > known else -1)  # bad: just past the range
    while abs(bad - good) > 1:
        mid = (good + bad) // 2  # strictly between good and bad
        ok = reaches(mid)
        if ok is None:
            return None
        good, bad = (mid, bad) if ok else (good, mid)
    return good
