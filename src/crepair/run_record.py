"""What a repair run reports: each scheme's statistics and the run's record.

The schemes fill their statistics (:class:`SchemeStats` and the
scheme-specific :class:`MutationStats`, :class:`TemplateStats`) while they
search; :meth:`crepair.schemes.run.RepairRun.record` copies them, with the
run's options, bound, counterexample and outcome, into a frozen
:class:`RunRecord`.  The renderers (``crepair.report``) read this record,
never a scheme or a run.  Times are seconds; sizes count changed locations.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crepair.options import RepairOptions
from crepair.records import BoundReport, RepairOutcome, Scheme, StopReason

if TYPE_CHECKING:
    from crepair.counterexample import Counterexample
    from crepair.localization.spectrum import RankedLine


@dataclass(slots=True)
class SchemeStats:
    """What every scheme reports: ``outcome``; why it stopped (``stopped``)
    and, for UNKNOWN, the solver's ``reason``; ``repairs`` found (of them
    ``vacuous``); ``checks``: SMT checks; ``seconds`` of search."""

    scheme: Scheme
    outcome: RepairOutcome = RepairOutcome.UNKNOWN
    stopped: StopReason = StopReason.NOT_STARTED
    reason: str = ""
    repairs: int = 0
    vacuous: int = 0
    checks: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        """Plain values (Enums by value) for JSON."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, enum.Enum):
                v = v.value
            elif isinstance(v, dict):
                v = {str(k): (round(x, 3) if isinstance(x, float) else x) for k, x in v.items()}
            elif isinstance(v, float):
                v = round(v, 3)
            out[f.name] = v
        return out


@dataclass(slots=True)
class MutationStats(SchemeStats):
    """Counts of an AllRepair run: ``space[k]`` svs of size k; ``covered[k]``
    seconds until every sv of size ≤ k was explored; ``checks`` SMT checks
    (``fresh_checks`` of them by the fallback solver, ``unknown_checks``
    answered UNKNOWN); FOSFL calls (``localizations``) and their seconds;
    ``complete``: every sv of size ≤ ``max_size`` was explored;
    ``checked``: svs checked so far."""

    scheme: Scheme = Scheme.MUTATION
    locations: int = 0
    space: dict[int, int] = field(default_factory=dict)
    covered: dict[int, float] = field(default_factory=dict)
    fresh_checks: int = 0
    unknown_checks: int = 0
    localizations: int = 0
    localization_seconds: float = 0.0
    max_size: int = 0
    size: int = 0  # the size level being explored
    complete: bool = False
    checked: int = 0


@dataclass(slots=True)
class TemplateStats(SchemeStats):
    """Counts of a template-scheme run: ``diagnoses`` tried (the last found
    after ``diagnosis_seconds``), plus the common counts; ``checks`` are
    the SMT checks of the refinement loops."""

    scheme: Scheme = Scheme.TEMPLATE
    diagnoses: int = 0
    diagnosis_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class StageRecord:
    """One stage of a run: its ``label`` (as in ``--scheme``/the schedule),
    a copy of its scheme's ``stats``, and whether an escalating schedule
    ``skipped`` it (a repair was found before it)."""

    label: str
    stats: SchemeStats
    skipped: bool = False


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A bounded repair run as the renderers see it, at one moment (before
    the search: the header; after it: the outcome).

    ``path`` and ``original`` (text) of the program; the run's ``options``;
    its ``stages`` in order (``escalate``: a schedule whose later stages
    run only if the earlier ones found no repair); the unwinding ``bound``
    report of the original; its ``counterexample`` (None: none);
    ``searched``: the schemes ran (the original is violated); ``found``:
    non-vacuous repairs yielded; ``outcome``, ``stopped`` and
    ``unknown_reason`` of the whole run; ``budget_units``: the time limit
    in z3 resource units of a reproducible run (None: not reproducible or
    no limit); ``only_main``: ``main`` is the program's only function that
    repairs may change but, without ``--mutate-main``, do not;
    ``time_limit_note``: which stage the time limit cut and what limit
    would let it finish (None: none was cut); ``within_bound``: the labels
    of the stages searched again on unwinding assumptions because no
    candidate ends every run within the bound, ``vacuous`` the vacuous
    repairs they found, ``unprovable`` why no repair can be proved."""

    path: str
    original: str
    options: RepairOptions
    stages: tuple[StageRecord, ...]
    escalate: bool
    bound: BoundReport
    counterexample: "Counterexample | None"
    searched: bool
    found: int
    outcome: RepairOutcome
    stopped: StopReason
    unknown_reason: str
    budget_units: int | None = None
    only_main: bool = False
    time_limit_note: str | None = None
    within_bound: tuple[str, ...] = ()
    vacuous: int = 0
    unprovable: str = ""

    @property
    def stats(self) -> SchemeStats:
        """The statistics of the first stage."""
        return self.stages[0].stats


@dataclass(frozen=True, slots=True)
class TestDrivenRecord:
    """A test-driven repair run (f1x, TOSEM'18) as the renderers see it, at
    one moment: ``path`` of the program; the run's ``options`` (a
    :class:`~crepair.schemes.test_driven_options.TestRepairOptions`) and a copy of
    its ``stats`` (a :class:`~crepair.schemes.test_driven_options.TestDrivenStats`);
    ``test_timeout`` in milliseconds; the ``failing`` and ``passing`` test
    ids of the original; the spectrum ``ranking`` of the lines; the places
    ``skipped`` from the search space (point, why); ``found`` plausible
    patches; ``outcome``, ``stopped``, ``reason``; ``seconds`` since the
    run started."""

    path: str
    options: Any
    stats: Any
    test_timeout: int
    failing: tuple[str, ...]
    passing: tuple[str, ...]
    ranking: "tuple[RankedLine, ...]"
    skipped: tuple[tuple[str, str], ...]
    found: int
    outcome: RepairOutcome
    stopped: StopReason
    reason: str
    seconds: float


@dataclass(frozen=True, slots=True)
class HeapRunRecord:
    """A heap repair run (Wolverine2, Verma & Roy) as the renderers see
    it, at one moment (before the search: the header; after it: the
    outcome).

    ``path`` of the program as given; ``function`` under repair; the
    specification's ``calls`` (traces) and ``events`` (states); ``slots``:
    the insertion-slot counts the run tries in order (N of Algorithm 1,
    widened while none repairs); ``localization``: Algorithm 2 on;
    ``insert_slots``: the count of the last attempt; ``locations`` of the
    function, of them ``suspicious`` (0-based IR indexes; None:
    localization off); ``widenings`` and bounds ``tau`` (τ_grd, τ_stm,
    τ_ins) of the last Algorithm 1 run; ``rejected``: candidates that
    failed the re-check under gdb, of every attempt; ``checks``: solver
    checks of every attempt; ``found`` repairs; ``outcome``, ``stopped``,
    ``reason`` of the run; ``seconds`` of search, on the first attempt's
    clock."""

    path: str
    function: str
    calls: int
    events: int
    slots: tuple[int, ...]
    localization: bool
    insert_slots: int
    locations: int
    suspicious: tuple[int, ...] | None
    widenings: int
    tau: tuple[int, int, int]
    rejected: int
    checks: int
    found: int
    outcome: RepairOutcome
    stopped: StopReason
    reason: str
    seconds: float
