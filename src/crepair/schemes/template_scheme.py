"""The template scheme: model-based diagnosis, then templates per diagnosis.

Könighofer & Bloem, "Automated Error Localization and Correction for
Imperative Programs", FMCAD'11, Sect. III: failing inputs J (Sect. III-C),
minimal diagnoses as minimal hitting sets of conflicts
(:mod:`crepair.localization.diagnosis`), and for each diagnosis, smallest
first, linear templates filled by counterexample-guided refinement
(:class:`crepair.schemes.template.TemplateRepair`, Sect. III-E..G): first
replacing the components' expressions, then, for truth values, refining
them (``e && b``, ``e || b``: f1x, TOSEM'18 Fig. 10;
:mod:`crepair.schemes.template_forms`).

Every UNKNOWN answer on the way (failing inputs, diagnosis, candidate,
counterexample, re-verification) is kept as the reason, so that a run that
found nothing says "unknown", never "no repair" or "already correct".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from crepair.localization.diagnosis import (
    CONDITION_KINDS,
    VALUE_KINDS,
    Diagnoser,
    Diagnosis,
    diagnose,
    failing_inputs,
)
from crepair.mutation.operators import is_specification
from crepair.options import Component
from crepair.records import Repair, RepairOutcome, Scheme, StopReason
from crepair.run_record import TemplateStats
from crepair.schemes.base import Encoding, Problem, finish, tracked
from crepair.schemes.template import TemplateRepair
from crepair.schemes.template_forms import Shape, is_truth_value

DATABASE_SEED = 8  # failing inputs that seed the template scheme's input database


@dataclass(frozen=True, slots=True)
class TemplateProgress:
    """Snapshot for progress displays: working on diagnosis ``diagnosis``
    (1-based; 0: still computing the failing inputs) of at most
    ``max_diagnoses`` (None: no limit); ``candidates`` template instances
    checked so far, ``repairs`` found, ``seconds`` since the scheme
    started."""

    diagnosis: int
    max_diagnoses: int | None
    candidates: int
    repairs: int
    seconds: float


def component_kinds(components: frozenset[Component]) -> frozenset:
    """The location kinds that the chosen ``components`` cover."""
    kinds = set()
    if Component.RHS in components:
        kinds |= VALUE_KINDS
    if Component.COND in components:
        kinds |= CONDITION_KINDS
    return frozenset(kinds)


def shapes_of(diagnosis: Diagnosis) -> tuple[Shape, ...]:
    """The template shapes tried for ``diagnosis``, in order: replacement
    (FMCAD'11), then, when every component is a truth value, the
    refinements ``e && b`` and ``e || b`` (f1x, TOSEM'18 Fig. 10)."""
    if all(is_truth_value(c) for c in diagnosis.components):
        return (Shape.REPLACE, Shape.AND, Shape.OR)
    return (Shape.REPLACE,)


class TemplateScheme:
    """The template scheme of a :class:`~crepair.schemes.base.Problem`."""

    def __init__(self, problem: Problem, progress: Callable[[TemplateProgress], None] | None = None):
        self._problem = problem
        self._progress = progress
        self.stats = TemplateStats()
        self._candidates = 0  # candidates of the finished diagnoses
        self._started = time.monotonic()

    def repairs(self) -> Iterator[Repair]:
        return tracked(self.stats, self._search())

    def _report(self, search: TemplateRepair | None = None) -> None:
        if self._progress is not None:
            done = self._candidates + (search.candidates if search is not None else 0)
            self._progress(TemplateProgress(self.stats.diagnoses, self._problem.options.max_diagnoses, done,
                                            self.stats.repairs, time.monotonic() - self._started))

    def _search(self) -> Iterator[Repair]:
        p, o, stats = self._problem, self._problem.options, self.stats
        self._started = time.monotonic()
        self._report()
        formula, _ = p.encoding(Encoding.SPLIT_TERNARIES)
        kinds = component_kinds(o.components)
        components = [
            l.index for l in formula.locations
            if l.kind in kinds and not is_specification(l.function, o.no_mutate, o.mutate_main)
        ]
        # J for diagnosis; a larger seed of the input database for repair
        database, unknown = failing_inputs(formula, max(o.inputs, DATABASE_SEED), p.limits)
        inputs = database[: o.inputs]
        if not inputs:
            if unknown and p.limits.expired():  # the run's limit, not the solver, cut the search
                finish(stats, RepairOutcome.UNKNOWN, StopReason.TIMEOUT,
                       "time limit reached in the failing-input search")
            elif unknown:
                finish(stats, RepairOutcome.UNKNOWN, StopReason.UNKNOWN, f"failing-input search: {unknown}")
            else:
                finish(stats, RepairOutcome.ORIGINAL_CORRECT, StopReason.NOT_STARTED)
            return
        engine = Diagnoser(formula, components, inputs, p.limits)
        for diagnosis in diagnose(
            formula, components, inputs, max_size=o.max_size, max_diagnoses=o.max_diagnoses, engine=engine
        ):
            stats.diagnoses += 1
            stats.diagnosis_seconds = diagnosis.seconds
            self._report()
            if p.limits.expired():
                finish(stats, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time limit reached")
                return
            for shape in shapes_of(diagnosis):
                search = TemplateRepair(
                    formula, diagnosis, database, path=p.program.path, original=p.program.original,
                    entry=o.entry, max_refinements=o.max_refinements, repairs=o.repairs_per_diagnosis,
                    max_terms=o.max_terms, limits=p.limits.within(o.diagnosis_timeout), reload=p.program.with_text,
                    shape=shape,
                )
                try:
                    for rep in search.repairs(p.start):
                        stats.repairs += 1
                        stats.vacuous += rep.vacuous
                        yield rep
                finally:
                    stats.checks += search.checks
                    self._candidates += search.candidates
                unknown = unknown or search.unknown
                if p.limits.expired():
                    break
        stats.checks += engine.checks
        if p.limits.expired():  # the run's limit, not a diagnosis's, ended the search
            finish(stats, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time limit reached")
        elif engine.unknown:
            finish(stats, RepairOutcome.UNKNOWN, StopReason.UNKNOWN, f"diagnosis: {engine.unknown}")
        elif unknown and not stats.repairs:
            finish(stats, RepairOutcome.UNKNOWN, StopReason.UNKNOWN, unknown)
        else:
            finish(stats, RepairOutcome.NO_REPAIR, StopReason.COMPLETE, unknown)
