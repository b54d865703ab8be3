"""The options, statistics and per-test time limit of a test-driven run
(:mod:`crepair.schemes.test_driven`: f1x, Mechtaev et al., TOSEM'18)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from crepair.schemes.base import SchemeStats
from crepair.schemes.semantic_ranking import Ranking
from crepair.testequiv.antipatterns import AntiPattern
from crepair.testequiv.candidates import Schema
from crepair.testequiv.search import ExplorationStats


@dataclass(frozen=True, slots=True)
class TestRepairOptions:
    """Options of a test-driven run.

    ``timeout``: seconds for the whole run (None: none); ``test_timeout``:
    milliseconds per test execution (None: :func:`auto_test_timeout` of
    the original program's runs; the original itself runs with
    ``DEFAULT_TEST_TIMEOUT_MS``); ``partition``: Algorithm 3 (False:
    the enumerative baseline, Algorithm 2); ``all``: explore the whole
    space and report every plausible patch (False: stop after
    ``max_repairs``, default 1); ``lines``: restrict sites to these 1-based
    lines (None: every line the failing tests execute) of the program (not
    of other files); ``formula``: the suspiciousness formula ranking sites
    (ochiai, tarantula, dstar); ``localize_files``: the files to change are
    the project's ``.c`` files the failing tests execute (file
    localization), at most ``max_files`` of them (None: all) — the files
    given to the run are then ignored; ``anti_patterns``: the rules whose
    candidates are left out of the space (Tan et al., FSE'16;
    :mod:`crepair.testequiv.antipatterns`; all by default, empty: none);
    ``schemas``: the transformation schemas of the space (None: all);
    ``rank``: the order of the patches reported (COST: f1x's, streamed as
    found; DISTANCE: semantic distance from the original first, after a
    bounded extra search in first-patch mode —
    :mod:`crepair.schemes.semantic_ranking`);
    ``started``: the ``time.monotonic()`` instant ``timeout`` counts from
    (None: the run's construction; the command line passes its own start);
    ``literals``: string literals (C source, e.g. a reference's output
    literals) offered in place of an output call's format literal
    (:class:`~crepair.testequiv.space.SpaceOptions`); ``constants``:
    integer constants ``(value, C spelling)`` offered in place of a
    constant (a reference's; ``SpaceOptions.constants``); ``cflags``:
    compiler arguments (no spaces in one) appended to every build of the
    program — the run as built, the coverage build, the meta-program and
    the checks of a patch (a staged run's dirtied stack,
    :func:`crepair.oracle.reference.dirty_stack_flags`).
    Every build and test run gets at most the time left as its limit.
    """

    timeout: float | None = 300.0
    test_timeout: int | None = None
    partition: bool = True
    all: bool = False
    max_repairs: int | None = 1
    lines: frozenset[int] | None = None
    formula: str = "ochiai"
    localize_files: bool = False
    max_files: int | None = None
    anti_patterns: frozenset[AntiPattern] = frozenset(AntiPattern)
    schemas: frozenset[Schema] | None = None
    rank: Ranking = Ranking.COST
    started: float | None = None
    literals: tuple[str, ...] = ()
    constants: tuple[tuple[int, str], ...] = ()
    cflags: tuple[str, ...] = ()


@dataclass(slots=True)
class TestDrivenStats(SchemeStats):
    """:class:`SchemeStats` of the test-driven scheme, plus the tests (ids
    failing / passing on the original), the search space (``sites``,
    ``candidates``, ``by_schema``), the exploration counts (``explored``,
    ``picked``, ``executions``, ``partitions``, ``plausible``, ``ratio``, ``complete``),
    ``files``: the files searched (display paths), ``rejected``: plausible candidates whose normal build failed a test
    (should be 0), ``retried``: executions that timed out while computing a
    class and were run again with the candidate alone (the class is then
    the candidate alone), ``validations``: test executions spent re-checking
    patches, ``added_tests``: tests added while searching (:meth:`TestDrivenRun.add_tests`),
    ``build_seconds`` of the meta-program, ``anti_patterns``: per
    rule number (``"A1"``…) the candidates it left out of the space;
    ``distances``: per reported patch, in report order, its semantic
    distance (``{"distance", "compared", "cost", "choices", "agree"}``, None: not measured);
    ``ranking``: the ranking's summary (:meth:`TestDrivenRun._rank`)."""

    failing: tuple[str, ...] = ()
    passing: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    sites: int = 0
    candidates: int = 0
    by_schema: dict = field(default_factory=dict)
    explored: int = 0
    picked: int = 0
    executions: int = 0
    partitions: int = 0
    plausible: int = 0
    ratio: float = 0.0
    complete: bool = False
    rejected: int = 0
    retried: int = 0
    validations: int = 0
    added_tests: int = 0
    build_seconds: float = 0.0
    anti_patterns: dict = field(default_factory=dict)
    distances: list = field(default_factory=list)
    ranking: dict = field(default_factory=dict)

    def take(self, e: ExplorationStats) -> None:
        """Copy the exploration's counts; ``executions`` counts every run
        of a candidate, the re-runs after a time-out (``retried``) too."""
        self.explored, self.partitions, self.picked = e.explored, e.partitions, e.picked
        self.executions = e.executions + self.retried
        self.plausible = e.plausible
        self.ratio = round(self.explored / self.executions, 3) if self.executions else 0.0


AUTO_FACTOR = 20  # a candidate may run this many times as long as the original's slowest test...
AUTO_FLOOR_MS = 50  # ... but at least this long (process start-up, a loaded machine; the staged scheme's limit)


def auto_test_timeout(seconds: Sequence[float], ceiling_ms: int) -> int:
    """The per-test time limit in milliseconds when none is given:
    ``AUTO_FACTOR`` times the slowest of the original program's test runs
    (``seconds``, wall clock), at least ``AUTO_FLOOR_MS``, at most
    ``ceiling_ms`` (the limit the original ran under).  Candidates that
    loop forever (a mutated loop condition) otherwise cost the whole
    ceiling each: on Codeflaws, whose tests run in about 1 ms, time-outs
    took 18 of a run's 19.6 s at 1000 ms.  A candidate that needs more is
    treated as failing the test, like any time-out."""
    slowest = max(seconds, default=0.0)
    return max(1, min(ceiling_ms, max(AUTO_FLOOR_MS, math.ceil(AUTO_FACTOR * slowest * 1000))))


STEP_FACTOR = 100  # a candidate's site may execute this many times as often as the original's busiest line...
STEP_FLOOR = 100_000  # ... but at least this often (about a millisecond of a meta-program's loop)


def step_limit(most: Sequence[int]) -> int:
    """The most executions of the running candidate's site in one process
    of a test (``CREPAIR_STEPS``, :mod:`crepair.testequiv.protocol`):
    ``STEP_FACTOR`` times the largest execution count of a line of the
    original program over its tests (``most``, from the coverage runs), at
    least ``STEP_FLOOR``.  A candidate that loops forever at its own site
    (``i < n`` made ``i >= 0``) then fails its test in about a millisecond
    instead of at the per-test time limit: on a C-Pack-IPAs submission,
    357 of 1,062 candidate runs were such time-outs (18 of the run's 30 s).
    A candidate that needs more executions fails the test, as at a time-out."""
    return max(STEP_FLOOR, STEP_FACTOR * max(most, default=0))
