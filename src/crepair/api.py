"""The Python API: ``crepair.localize`` and ``crepair.repair`` (``crepair.verify``
lives in :mod:`crepair.verify`).

>>> import crepair
>>> for r in crepair.repair("prog.c", level=1):      # doctest: +SKIP
...     print(r.size, r.diff)
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import time

from crepair.encode import encode
from crepair.frontend import CProgram, load_program
from crepair.localization.must import DependencyGraph, Origin, fosfl
from crepair.mutation import MutationLevel, MutationUnit
from crepair.mutation.operators import is_specification
from crepair.localization.diagnosis import CONDITION_KINDS, VALUE_KINDS, Diagnosis, diagnose, failing_inputs, pin
from crepair.schemes.mutation import AllRepair, Progress, Repair, RepairOutcome, SearchStats
from crepair.schemes.template import TemplateRepair, TemplateStats
from crepair.solver.smt import SmtSolver, Verdict
from crepair.bmc import (
    DEFAULT_UNWIND,
    BoundReport,
    Counterexample,
    VerifyOutcome,
    check_bound,
    counterexample_of,
)

DEFAULT_MAX_SIZE = 2
DEFAULT_TIMEOUT = 60.0
DATABASE_SEED = 8  # failing inputs that seed the template scheme's input database


class Scheme(enum.Enum):
    """Repair schemes."""

    MUTATION = "mutation"  # all minimal mutation repairs (AllRepair, FM'16)
    TEMPLATE = "template"  # diagnosis + linear templates (Könighofer & Bloem, FMCAD'11)


class Component(enum.Enum):
    """What may be a component in model-based diagnosis."""

    RHS = "rhs"  # right-hand sides, returned expressions, arguments
    COND = "cond"  # branch and loop conditions


class Prune(enum.Enum):
    """Pruning of the mutation search when a candidate is buggy."""

    NONE = "none"  # block only the candidate (AllRepair, FM'16)
    MUST = "must"  # block every candidate equal on its must location set (FL-AllRepair, CAV'20)


class Method(enum.Enum):
    """Fault-localization methods."""

    MUST = "must"  # must location set (FOSFL, CAV'20)
    DIAGNOSIS = "diagnosis"  # minimal diagnoses (model-based diagnosis, FMCAD'11)


@dataclass(frozen=True, slots=True)
class RepairOptions:
    """Options of a repair run.

    ``unwind``: unwinding bound B (≥ 0); ``max_size``: largest repair size
    (number of changed locations, ≥ 1); ``timeout``: seconds for the whole
    run (None: none); ``max_repairs``: stop after that many (None: all);
    ``no_mutate``: extra specification functions, never mutated.
    Template scheme: ``components`` that may be abnormal, ``inputs`` (|J|)
    for diagnosis, ``max_refinements`` and ``repairs_per_diagnosis`` of the
    refinement loop, ``max_terms`` (most parameters of a candidate outside
    the simple range: a non-zero coefficient or a constant beyond ±1000),
    ``max_diagnoses`` tried, ``diagnosis_timeout`` seconds spent on the
    templates of one diagnosis.
    """

    schemes: tuple[Scheme, ...] = (Scheme.MUTATION,)
    level: MutationLevel = MutationLevel.LEVEL_1
    unwind: int = DEFAULT_UNWIND
    entry: str = "main"
    max_size: int = DEFAULT_MAX_SIZE
    timeout: float | None = DEFAULT_TIMEOUT
    max_repairs: int | None = None
    no_mutate: frozenset[str] = frozenset()
    prune: Prune = Prune.MUST
    components: frozenset[Component] = frozenset({Component.RHS, Component.COND})
    inputs: int = 2
    max_refinements: int = 10
    repairs_per_diagnosis: int = 5
    max_terms: int = 3
    max_diagnoses: int | None = 10
    diagnosis_timeout: float = 60.0

    @property
    def scheme(self) -> Scheme:
        """The first scheme (kept for callers that run one scheme)."""
        return self.schemes[0]


class RepairRun:
    """An iterator of verified :class:`Repair` records, smallest first.

    Stop iterating at any time.  ``stats`` (search-space sizes, SMT checks,
    coverage times, outcome) is complete once the iterator is exhausted;
    ``bound`` tells whether the unwinding bound cut off feasible runs of the
    original program (then repairs are correct only up to the bound).
    """

    def __init__(self, program: CProgram, options: RepairOptions, progress: Callable[[Progress], None] | None):
        self.program = program
        self.options = options
        self._progress = progress
        self._start = time.monotonic()
        self.template_stats = TemplateStats()
        self._search: AllRepair | None = None
        if Scheme.MUTATION in options.schemes:
            unit = MutationUnit(program, options.level, options.no_mutate)
            self.formula, mutants = encode(program, bound=options.unwind, entry=options.entry, alternatives=unit)
            self._search = AllRepair(
                self.formula,
                mutants,
                path=program.path,
                original=program.original,
                max_size=options.max_size,
                timeout=options.timeout,
                max_repairs=options.max_repairs,
                progress=progress,
                prune=options.prune == Prune.MUST,
            )
        else:
            self.formula, _ = encode(program, bound=options.unwind, entry=options.entry, split_ternaries=True)
        self.bound: BoundReport = check_bound(self.formula, timeout=options.timeout)
        self._found = 0
        self._iter: Iterator[Repair] = self._run()

    def _run(self) -> Iterator[Repair]:
        for scheme in self.options.schemes:
            if self.options.max_repairs is not None and self._found >= self.options.max_repairs:
                return
            runner = self._mutation() if scheme == Scheme.MUTATION else self._template()
            for rep in runner:
                self._found += 1
                yield rep
                if self.options.max_repairs is not None and self._found >= self.options.max_repairs:
                    return

    def _remaining(self) -> float | None:
        if self.options.timeout is None:
            return None
        return max(self.options.timeout - (time.monotonic() - self._start), 0.0)

    def _mutation(self) -> Iterator[Repair]:
        assert self._search is not None
        yield from self._search

    def _template(self) -> Iterator[Repair]:
        o = self.options
        stats = self.template_stats
        t0 = time.monotonic()
        formula, _ = encode(self.program, bound=o.unwind, entry=o.entry, split_ternaries=True)
        kinds = _component_kinds(o.components)
        components = [
            l.index for l in formula.locations if l.kind in kinds and not is_specification(l.function, o.no_mutate)
        ]
        try:
            # J for diagnosis; a larger seed of the input database for repair
            database = failing_inputs(formula, max(o.inputs, DATABASE_SEED), timeout=self._remaining())
            inputs = database[: o.inputs]
            if not inputs:
                stats.outcome = RepairOutcome.ORIGINAL_CORRECT
                return
            stats.outcome = RepairOutcome.NO_REPAIR
            for diagnosis in diagnose(
                formula, components, inputs, max_size=o.max_size, max_diagnoses=o.max_diagnoses,
                timeout=self._remaining(),
            ):
                stats.diagnoses += 1
                stats.diagnosis_seconds = diagnosis.seconds
                remaining = self._remaining()
                if remaining is not None and remaining <= 0:
                    stats.outcome = RepairOutcome.REPAIRED if stats.repairs else RepairOutcome.UNKNOWN
                    return
                budget = o.diagnosis_timeout if remaining is None else min(remaining, o.diagnosis_timeout)
                search = TemplateRepair(
                    formula, diagnosis, database, path=self.program.path, original=self.program.original,
                    entry=o.entry, max_refinements=o.max_refinements, repairs=o.repairs_per_diagnosis, max_terms=o.max_terms,
                    timeout=budget,
                )
                try:
                    for rep in search.repairs(self._start):
                        stats.repairs += 1
                        stats.outcome = RepairOutcome.REPAIRED
                        yield rep
                finally:
                    stats.checks += search.checks
        finally:
            stats.seconds = time.monotonic() - t0

    @property
    def stats(self) -> SearchStats:
        """Statistics of the mutation scheme (or of the template scheme if
        it ran alone: outcome, repairs, seconds)."""
        if self._search is not None:
            return self._search.stats
        t = self.template_stats
        return SearchStats(repairs=t.repairs, seconds=t.seconds, outcome=t.outcome, checks=t.checks)

    @property
    def outcome(self) -> RepairOutcome:
        """The outcome over all schemes run."""
        outcomes = []
        if self._search is not None:
            outcomes.append(self._search.stats.outcome)
        if Scheme.TEMPLATE in self.options.schemes:
            outcomes.append(self.template_stats.outcome)
        for o in (RepairOutcome.REPAIRED, RepairOutcome.ORIGINAL_CORRECT, RepairOutcome.UNKNOWN):
            if o in outcomes:
                return o
        return outcomes[0] if outcomes else RepairOutcome.UNKNOWN

    def __iter__(self) -> "RepairRun":
        return self

    def __next__(self) -> Repair:
        return next(self._iter)

    def close(self) -> None:
        self._iter.close()


def _component_kinds(components: frozenset[Component]) -> frozenset:
    kinds = set()
    if Component.RHS in components:
        kinds |= VALUE_KINDS
    if Component.COND in components:
        kinds |= CONDITION_KINDS
    return frozenset(kinds)


def repair(
    path: str | Path,
    options: RepairOptions | None = None,
    *,
    progress: Callable[[Progress], None] | None = None,
    **overrides,
) -> RepairRun:
    """All minimal verified repairs of the C file at ``path``, smallest first.

    ``options`` (or keyword ``overrides`` of its fields, e.g. ``level=2``)
    select the scheme and limits.  Raises ``BadInput``/``UnsupportedConstruct``
    for programs crepair cannot take.  The file is only read.
    Source: AllRepair (Rothenberg & Grumberg, FM'16), Fig. 4.
    """
    options = options or RepairOptions()
    if overrides:
        fields = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
        fields.update(overrides)
        if isinstance(fields["level"], int):
            fields["level"] = MutationLevel(fields["level"])
        if isinstance(fields["prune"], str):
            fields["prune"] = Prune(fields["prune"])
        if "scheme" in fields:
            fields["schemes"] = fields.pop("scheme")
        if isinstance(fields["schemes"], (str, Scheme)):
            fields["schemes"] = (fields["schemes"],)
        fields["schemes"] = tuple(Scheme(x) for x in fields["schemes"])
        fields["components"] = frozenset(Component(x) for x in fields["components"])
        fields["no_mutate"] = frozenset(fields["no_mutate"])
        options = RepairOptions(**fields)
    if options.max_size < 1:
        raise ValueError("max_size must be at least 1")
    return RepairRun(load_program(path), options, progress)


@dataclass(frozen=True, slots=True)
class LocalizeResult:
    """Where the bug can be.

    ``outcome`` is the verification outcome of the program; when VIOLATED,
    ``counterexample`` is the bug localized and ``locations`` its must
    location set (outside the specification), in source order.
    """

    path: str
    entry: str
    method: Method
    outcome: VerifyOutcome
    bound: BoundReport
    counterexample: Counterexample | None
    locations: tuple[Origin, ...]
    seconds: float
    diagnoses: tuple[Diagnosis, ...] = ()


def localize(
    path: str | Path,
    *,
    method: Method | str = Method.MUST,
    unwind: int = DEFAULT_UNWIND,
    entry: str = "main",
    no_mutate: frozenset[str] | set[str] = frozenset(),
    timeout: float | None = None,
    components: frozenset[Component] | set[str] = frozenset({Component.RHS, Component.COND}),
    inputs: int = 2,
    max_diagnoses: int | None = 10,
    max_size: int = 3,
) -> LocalizeResult:
    """Localize the bug of the C file at ``path`` on its first counterexample.

    ``method`` MUST gives the must location set of FOSFL (CAV'20, Alg. 2):
    every repair in the mutation or arbitrary-expression scheme changes at
    least one of the returned locations.  Locations in the specification
    (``main``, ``AllRepair_correct_*``, ``no_mutate``) are left out, since no
    repair changes them.

    ``method`` DIAGNOSIS gives minimal diagnoses (FMCAD'11, Sect. III-C/D) in
    increasing size, at most ``max_diagnoses`` of size ≤ ``max_size``, over
    ``inputs`` failing inputs, with the chosen ``components``.  Raises
    ``BadInput`` for programs crepair cannot take.
    """
    method = Method(method)
    if method == Method.DIAGNOSIS:
        return _localize_diagnosis(
            path, unwind=unwind, entry=entry, no_mutate=frozenset(no_mutate), timeout=timeout,
            components=frozenset(Component(c) for c in components), inputs=inputs,
            max_diagnoses=max_diagnoses, max_size=max_size,
        )
    start = time.monotonic()
    program = load_program(path)
    formula, _ = encode(program, bound=unwind, entry=entry)
    bound = check_bound(formula, timeout)
    solver = SmtSolver(timeout=timeout)
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation())
    verdict = solver.check()
    outcome = {Verdict.SAT: VerifyOutcome.VIOLATED, Verdict.UNSAT: VerifyOutcome.VERIFIED}.get(
        verdict, VerifyOutcome.UNKNOWN
    )
    cex, locations = None, ()
    if verdict == Verdict.SAT:
        model = solver.model()
        cex = counterexample_of(formula, model)
        must = fosfl(DependencyGraph(formula), formula, model)
        spec = frozenset(no_mutate)
        kept = [o for o in must.origins if not (o.function and is_specification(o.function, spec))]
        # an array store and its right-hand side are one statement: show it once
        located = [o.span for o in kept if o.location is not None]
        locations = tuple(
            o
            for o in kept
            if o.location is not None
            or not any(o.span.start <= l.start and l.end <= o.span.end for l in located)
        )
    return LocalizeResult(
        program.path, entry, method, outcome, bound, cex, locations, time.monotonic() - start
    )


def _localize_diagnosis(
    path, *, unwind, entry, no_mutate, timeout, components, inputs, max_diagnoses, max_size
) -> LocalizeResult:
    start = time.monotonic()
    program = load_program(path)
    formula, _ = encode(program, bound=unwind, entry=entry, split_ternaries=True)
    bound = check_bound(formula, timeout)
    failing = failing_inputs(formula, inputs, timeout=timeout)
    if not failing:
        return LocalizeResult(
            program.path, entry, Method.DIAGNOSIS, VerifyOutcome.VERIFIED, bound, None, (), time.monotonic() - start
        )
    solver = SmtSolver(timeout=timeout)
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation(), *pin(formula, failing[0]))
    solver.check()
    cex = counterexample_of(formula, solver.model())
    kinds = _component_kinds(components)
    comps = [l.index for l in formula.locations if l.kind in kinds and not is_specification(l.function, no_mutate)]
    found = tuple(diagnose(formula, comps, failing, max_size=max_size, max_diagnoses=max_diagnoses, timeout=timeout))
    return LocalizeResult(
        program.path, entry, Method.DIAGNOSIS, VerifyOutcome.VIOLATED, bound, cex, (), time.monotonic() - start, found
    )
