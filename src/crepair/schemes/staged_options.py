"""The options and statistics of the staged run against a reference
(:mod:`crepair.schemes.staged`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from crepair.testsuite.spec import Comparison

DEFAULT_GENERATED = 60  # inputs generated from the given ones
DEFAULT_HELD_BACK = 500  # more generated inputs, held back to confirm a patch that passes the suite
SEARCH_START_SECONDS = 2.0  # a search (its space, its meta-program, its build) starts with more time left only
PARTIAL_LEAST, PARTIAL_MOST = 0.1, 0.25  # shares of the time limit a round looks on after a partial fix
PATIENCE = 0.25  # share of the time limit the first stage's search, or a partial fix's search, may take
HELD_PATIENCE = 0.1  # share of the time limit the search goes on for a proof once a repair passed the suite
DEEPER = (lambda u: u + 2, lambda u: 2 * u, lambda u: 4 * u)  # bounds tried when the reference's runs go beyond u


def patience(timeout: float | None) -> float:
    """Seconds the first stage's search (or one from its nearest miss) may
    take with a time limit of ``timeout`` seconds (None: 240): a quarter."""
    return (timeout or 240.0) * PATIENCE


def held_patience(timeout: float | None) -> float:
    """Seconds the search goes on for a proof once enough repairs passed
    the suite (a tenth of ``timeout``, None: 240), from when the last
    passed it (its proof's time counts)."""
    return (timeout or 240.0) * HELD_PATIENCE


def partial_patience(timeout: float | None, searched: float) -> float:
    """Seconds a round's search goes on for a repair once it found a
    partial fix (a patch of the searched tests that other tests refute)
    after ``searched`` seconds, with a time limit of ``timeout`` seconds
    (None: 240): as long again as it searched, a tenth of the limit at
    least, a quarter at most — a cheap partial fix found early leaves
    little hope of a one-change repair further on, and the next round
    starts from it sooner (C-Pack lab03/ex01 stu_086: its two-change
    repair in 13.0 s instead of 23.6 s)."""
    limit = timeout or 240.0
    return min(PARTIAL_MOST * limit, max(PARTIAL_LEAST * limit, searched))


def deeper_bounds(unwind: int) -> tuple[int, ...]:
    """The bounds tried after ``unwind`` when the reference's own runs go
    beyond it (:data:`DEEPER`), smallest first, without repeats."""
    return tuple(dict.fromkeys(u for u in sorted(f(unwind) for f in DEEPER) if u > unwind))


@dataclass(frozen=True, slots=True)
class StagedOptions:
    """``timeout``: seconds for the whole run (None: none); ``compare``: how
    outputs are compared; ``generated``: inputs to generate for the suite;
    ``held_back``: more inputs to generate (another seed) that only a patch
    passing the suite runs on (:class:`~crepair.oracle.suite.HeldBack`); ``unwind``:
    the proof's unwinding bound; ``max_repairs``: stop after this many
    proved repairs (None: explore the whole space); ``rounds``: searches,
    each from the patch of the one before that fails the fewest tests or
    comes nearest the expected outputs (4: a student's program may miss
    a newline at three outputs); ``test_timeout``: ms per test (None: auto);
    ``started``: the ``time.monotonic()`` instant ``timeout`` counts from
    (None: the run's construction); ``solver``: the SMT solver of the
    bounded checks (crepair.solver.Backend's values); ``cache``: the folder
    where the reference's answers are kept between runs
    (:mod:`crepair.oracle.cache`; None: nowhere).  Every build, test run and bounded
    check gets at most the time left."""

    timeout: float | None = 60.0
    compare: Comparison = Comparison.TRAILING_WHITESPACE
    generated: int = DEFAULT_GENERATED
    held_back: int = DEFAULT_HELD_BACK
    unwind: int = 8
    max_repairs: int | None = 1
    rounds: int = 4
    test_timeout: int | None = None
    started: float | None = None
    solver: str = "z3"
    cache: str | None = None

    @property
    def deepest_unwind(self) -> int:
        """The largest bound the proof may use: ``unwind``, or a deeper one
        when the reference's own runs go beyond it (:func:`deeper_bounds`)."""
        return deeper_bounds(self.unwind)[-1]


@dataclass(slots=True)
class StagedStats:
    """What the run did: tests by source, candidates explored, test
    executions, proofs tried and their verdicts."""

    given: int = 0
    failing_given: int = 0
    generated: int = 0
    invalid: int = 0  # generated inputs the reference rejects (undefined behaviour, time-out, disagreement)
    held_back: int = 0  # generated inputs held back from the suite (confirmation of a plausible patch)
    held_back_refuted: int = 0  # patches that passed the suite and failed a held-back input
    counterexamples: int = 0
    explored: int = 0
    candidates: int = 0
    executions: int = 0
    plausible: int = 0
    proofs: int = 0
    proved: int = 0
    refuted: int = 0
    guided: int = 0  # tests that refuted a patch and were added to the search (counterexample-guided)
    undecided: int = 0
    rounds: int = 0
    notes: list[str] = field(default_factory=list)
