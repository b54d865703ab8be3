"""The Python API: ``crepair.verify`` and ``crepair.repair``.

>>> import crepair
>>> for r in crepair.repair("prog.c", level=1):      # doctest: +SKIP
...     print(r.size, r.diff)
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import time

from crepair.encode import encode
from crepair.frontend import CProgram, load_program
from crepair.localize.must import DependencyGraph, Origin, fosfl
from crepair.mutation import MutationLevel, MutationUnit
from crepair.mutation.operators import is_specification
from crepair.repair.mutation import AllRepair, Progress, Repair, SearchStats
from crepair.solver.smt import SmtSolver, Verdict
from crepair.verify import (
    DEFAULT_UNWIND,
    BoundReport,
    Counterexample,
    VerifyOutcome,
    check_bound,
    counterexample_of,
)

DEFAULT_MAX_SIZE = 2
DEFAULT_TIMEOUT = 60.0


class Scheme(enum.Enum):
    """Repair schemes."""

    MUTATION = "mutation"


class Prune(enum.Enum):
    """Pruning of the mutation search when a candidate is buggy."""

    NONE = "none"  # block only the candidate (AllRepair, FM'16)
    MUST = "must"  # block every candidate equal on its must location set (FL-AllRepair, CAV'20)


class Method(enum.Enum):
    """Fault-localization methods."""

    MUST = "must"


@dataclass(frozen=True, slots=True)
class RepairOptions:
    """Options of a repair run.

    ``unwind``: unwinding bound B (≥ 0); ``max_size``: largest repair size
    (number of changed locations, ≥ 1); ``timeout``: seconds for the whole
    run (None: none); ``max_repairs``: stop after that many (None: all);
    ``no_mutate``: extra specification functions, never mutated.
    """

    scheme: Scheme = Scheme.MUTATION
    level: MutationLevel = MutationLevel.LEVEL_1
    unwind: int = DEFAULT_UNWIND
    entry: str = "main"
    max_size: int = DEFAULT_MAX_SIZE
    timeout: float | None = DEFAULT_TIMEOUT
    max_repairs: int | None = None
    no_mutate: frozenset[str] = frozenset()
    prune: Prune = Prune.MUST


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
        unit = MutationUnit(program, options.level, options.no_mutate)
        self.formula, mutants = encode(program, bound=options.unwind, entry=options.entry, alternatives=unit)
        self.bound: BoundReport = check_bound(self.formula, timeout=options.timeout)
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
        self._iter: Iterator[Repair] = iter(self._search)

    @property
    def stats(self) -> SearchStats:
        return self._search.stats

    def __iter__(self) -> "RepairRun":
        return self

    def __next__(self) -> Repair:
        return next(self._iter)

    def close(self) -> None:
        close = getattr(self._iter, "close", None)
        if close:
            close()


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
        fields = {f: getattr(options, f) for f in options.__slots__}
        fields.update(overrides)
        if isinstance(fields["level"], int):
            fields["level"] = MutationLevel(fields["level"])
        if isinstance(fields["prune"], str):
            fields["prune"] = Prune(fields["prune"])
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


def localize(
    path: str | Path,
    *,
    method: Method | str = Method.MUST,
    unwind: int = DEFAULT_UNWIND,
    entry: str = "main",
    no_mutate: frozenset[str] | set[str] = frozenset(),
    timeout: float | None = None,
) -> LocalizeResult:
    """Localize the bug of the C file at ``path`` on its first counterexample.

    ``method`` MUST gives the must location set of FOSFL (CAV'20, Alg. 2):
    every repair in the mutation or arbitrary-expression scheme changes at
    least one of the returned locations.  Locations in the specification
    (``main``, ``AllRepair_correct_*``, ``no_mutate``) are left out, since no
    repair changes them.  Raises ``BadInput`` for programs crepair cannot take.
    """
    method = Method(method)
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
