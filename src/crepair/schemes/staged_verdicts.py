"""The verdict on one plausible patch of a staged run (:mod:`crepair.schemes.staged`):
the whole suite first, then the bounded proof of equivalence with the
reference, each refuting test handed back to the search
(counterexample-guided).
"""

from __future__ import annotations

import time
from pathlib import Path

from crepair.oracle.inputs import is_number
from crepair.oracle.suite import HeldBack
from crepair.records import EquivalenceProof, PassesSuite, Repair
from crepair.schemes.staged_checks import CandidateChecks
from crepair.schemes.time_limit import Deadline
from crepair.testsuite.spec import Comparison, load_tests

PROOF_SECONDS = 10.0  # the most one bounded proof may take
CHECK_MARGIN = 1.0  # seconds a bounded check ends before the deadline: z3 may overrun its limit (a large formula)
# the most the check whether the reference's runs go beyond the bound may take (as much again deeper)
REFERENCE_CHECK_SECONDS = 5.0


class PatchVerdicts:
    """Verdicts on plausible patches, with the run's ``checks`` (a
    :class:`~crepair.schemes.staged_checks.CandidateChecks`), its ``suite``,
    the inputs ``held`` back from it (a :class:`~crepair.oracle.suite.HeldBack`;
    None: none) and ``stats`` (counted here: refuted, guided), at unwinding
    bound ``unwind`` and input bound ``input_bound``, within ``deadline``.

    ``best_failures``: the fewest tests a refuted patch of the round failed
    (None: none yet; the caller resets it per round); ``refuter``: the test
    that refuted the last patch ([] when it was not refuted);
    ``unprovable``: the reference's own runs go beyond the bound (None: not
    checked yet); ``hopeless``: the reason the last patch passing the suite
    is not proved holds for every later patch of the program as well (the
    bound, the input bound, the engine's reach); ``until``: a
    ``time.monotonic()`` instant no proof may go past (None: the deadline
    only), once enough repairs passed the suite and the search only looks
    on a little for a proved one; ``passed_at``: the ``time.monotonic()``
    instant the last patch passed the suite and the held-back inputs (its
    proof began then; 0.0: none yet)."""

    def __init__(self, checks: CandidateChecks, suite, stats, unwind: int, input_bound: int, deadline: Deadline,
                 held: HeldBack | None = None):
        self.checks, self.suite, self.stats = checks, suite, stats
        self.held = held if held is not None else HeldBack([])
        stats.held_back = len(self.held.inputs)
        self.agreed = 0  # held-back inputs the last patch that passed the suite answered as the reference
        self.unwind, self.input_bound, self.deadline = unwind, input_bound, deadline
        self.best_failures: int | None = None
        self.refuter: list[str] = []
        self.unprovable: bool | None = None
        self.hopeless = False
        self.until: float | None = None
        self.passed_at = 0.0

    def new_round(self) -> None:
        """Forgets the round's counts and cap: the next round starts afresh."""
        self.best_failures, self.until = None, None

    def start(self) -> None:
        """Starts the check whether the reference's own runs go beyond the
        bound (:meth:`CandidateChecks.start_reference_check`) beside the
        search, so that the first plausible patch does not wait for it."""
        budget = self.budget(REFERENCE_CHECK_SECONDS)
        if budget >= 0.5:
            self.checks.start_reference_check(budget)

    def budget(self, most: float) -> float:
        """Seconds a bounded check of at most ``most`` seconds gets: it ends
        :data:`CHECK_MARGIN` before the deadline, and not after ``until``."""
        left = self.deadline.left()
        budget = most if left is None else min(most, left - CHECK_MARGIN)
        return budget if self.until is None else min(budget, self.until - time.monotonic())

    def look_on_until(self, patience: float) -> float:
        """The ``time.monotonic()`` instant the search for a proved repair
        ends once enough repairs passed the suite: ``patience`` seconds after
        the last of them passed it, its proof's time included (a proof that
        ran out of its time leaves none), but not before now."""
        return max(self.passed_at + patience, time.monotonic())

    def evidence(self, why: str) -> PassesSuite:
        """The evidence of a patch that passes the whole suite; ``why``: why it is not proved."""
        return PassesSuite(len(self.suite.given), len(self.suite.generated), len(self.suite.counterexamples), why,
                           self.agreed)

    def verdict(self, rep: Repair) -> tuple[str, PassesSuite | EquivalenceProof | None, int]:
        """(status, evidence, tests failed) of the plausible patch ``rep``:
        ``refuted`` (fails a test of the suite; or a held-back input or the
        bounded check's counterexample, which joins the suite), ``tests``
        (passes every test, not proved: the evidence says why), ``proved``."""
        failed = self.checks.failures(rep.patched, self.suite, self.best_failures)
        self.refuter = self.checks.refuting[:1]
        if failed:
            if self.best_failures is None or failed < self.best_failures:
                self.best_failures = failed
            self.stats.refuted += 1
            return "refuted", None, failed
        self.agreed, refuter = self.checks.confirm(rep.patched, self.held, self.suite)
        if refuter is not None:
            self.refuter = [refuter]
            self.stats.refuted += 1
            self.stats.held_back_refuted += 1
            self.stats.generated += 1
            return "refuted", None, 1
        self.passed_at = time.monotonic()
        budget = self.budget(PROOF_SECONDS)
        self.hopeless = True  # unless the proof ran out of its time (below)
        if budget < 0.5:
            return "tests", self.evidence("no time left for the bounded check"), 0
        if self.unprovable is None:
            self.unprovable = self.checks.reference_cut_off(min(budget, REFERENCE_CHECK_SECONDS))
            self.unwind, budget = self.checks.unwind, self.budget(PROOF_SECONDS)  # a deeper bound, if one fits
            if budget < 0.5:
                return "tests", self.evidence("no time left for the bounded check"), 0
        if self.unprovable:
            where = f" ({self.checks.cut})" if self.checks.cut else ""
            return "tests", self.evidence(f"runs of the reference go beyond unwinding bound {self.unwind}{where}: "
                                          "no change can be proved equivalent at this bound"), 0
        proved, why = self.checks.prove(rep.patched, budget, self.suite)
        if proved and (longest := self.longest_word()) > self.input_bound:  # the proof's inputs are not the tests'
            return "tests", self.evidence(f"bounded equivalence holds for words of up to {self.input_bound} "
                                          f"characters only, and the tests have words of {longest}"), 0
        if proved:
            return "proved", EquivalenceProof(self.unwind, self.input_bound, self.evidence("")), 0
        if why is None:  # a counterexample test was added to the suite
            self.refuter = self.suite.counterexamples[-1:]
            self.stats.refuted += 1
            return "refuted", None, 1
        # a smaller formula may be decided in time; the bound, the engine's reach stay
        self.hopeless = not self.checks.undecided
        return "tests", self.evidence(why), 0

    def longest_word(self) -> int:
        """The most characters of a token of the suite's inputs that is not a
        number: the bounded engine reads strings of at most the input bound
        (numbers are whole ``int`` values), so a proof says nothing of a
        longer one."""
        words = (t for i in self.suite.ids for t in self.suite.stdin(i).split() if not is_number(t))
        return max(map(len, words), default=0)

    def guide(self, run, program: Path, compare: Comparison) -> None:
        """Counterexample-guided: the test that refuted the last patch (the
        first of the suite it failed, or the bounded check's counterexample)
        runs on every candidate the test-driven ``run`` (searching the copy
        ``program``) picks from now on, in its meta-program, so that the
        candidates it refutes are never built."""
        if self.refuter:
            before = run.stats.added_tests
            run.add_tests(load_tests(program, tests_dir=self.suite.folder, compare=compare), self.refuter)
            self.stats.guided += run.stats.added_tests - before
