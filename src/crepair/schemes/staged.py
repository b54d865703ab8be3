"""Repair against a reference implementation, checked in stages.

The specification is "the program behaves as the reference on standard
input and output" (the reference's ``main``), optionally with the user's
tests.  Candidates come from the test-driven search space (f1x, Mechtaev
et al., TOSEM'18: EXPRESSION, REFINEMENT, GUARD, ASSIGNMENT,
INITIALIZATION, with format strings and output arguments as locations) and
are checked cheapest first:

1. *concrete*: the given tests, then inputs generated from them token by
   token (:mod:`crepair.oracle.inputs`), whose expected outputs are the
   reference's (:mod:`crepair.oracle.reference`); the search runs them
   with test-equivalence, failing tests first (Algorithm 3);
2. *counterexample-guided*: the test of the suite (or generated input held
   back from it) that refutes a patch the searched tests let through, or a
   counterexample of the bounded check that the patched program really
   fails (run concretely), is added to the search (the meta-program's);
3. *proof*: a bounded equivalence check of the surviving candidate
   against the reference (:func:`crepair.api.verify` with ``reference``).

Each repair carries its evidence: :class:`~crepair.records.EquivalenceProof`
or :class:`~crepair.records.PassesSuite` (never more than was checked;
:mod:`crepair.schemes.staged_verdicts` checks each plausible patch);
repairs with a proof come first.  When no single change passes every
test, the change that fails the fewest tests, or whose outputs come
nearest the expected ones (:mod:`crepair.schemes.staged_partial`), is
kept and the search runs again on it, a location more per round; for a
presentation error, the formats and output calls first (a quarter of the
time limit at most), then the same format edit at every output call
(:mod:`crepair.schemes.staged_uniform`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path

from crepair.bmc import VerifyOutcome
from crepair.errors import UsageError
from crepair.frontend.source import read_source
from crepair.oracle import ReferenceProgram, write_suite
from crepair.options import ReferenceOptions
from crepair.patch import unified_diff
from crepair.schemes.staged_checks import CandidateChecks, checked_source
from crepair.schemes.staged_partial import first_stage, nearest_fix
from crepair.schemes.staged_options import (SEARCH_START_SECONDS, StagedOptions, StagedStats, held_patience,
                                            partial_patience, patience)
from crepair.schemes.staged_spans import named, relative_to_original
from crepair.schemes.staged_uniform import uniform_repairs
from crepair.schemes.staged_suite import generated_tests, given_tests, held_back, no_failing_test, reference_literals
from crepair.schemes.staged_verdicts import CHECK_MARGIN, PatchVerdicts
from crepair.records import Repair, RepairOutcome, Scheme, StopReason
from crepair.testequiv.candidates import Schema
from crepair.testsuite.spec import load_tests
from crepair.schemes.time_limit import Deadline
from crepair.toolchain.scratch import scratch_folder

SEED_SECONDS = 10.0
TEST_TIMEOUT_MS = 50  # per test: candidates that loop on end of input cost this each (the original runs in ~1 ms)
DECOMPOSED_SHARE = 0.2  # share of the time limit a search with one failing test may take
FIRST_STAGE_CHANGES = 3  # the most changes a repair made in the first stage's part of the space has


class _RoundOver(Exception):
    """The one-location search ran out of patience (raised from its progress callback)."""


def _until_round_ends(run) -> Iterator[Repair]:
    with contextlib.suppress(_RoundOver):
        yield from run


class StagedRun:
    """A repair run of ``path`` against ``reference`` (a
    :class:`~crepair.options.ReferenceOptions` whose entry is ``main``) and
    the optional folder of tests ``tests_dir``; iterate it for
    :class:`~crepair.records.Repair` records (proved ones first).
    ``outcome``, ``stopped`` and ``reason`` are final once it ends.

    Raises ``UsageError`` for a reference with an ``--init``/``--assume``
    (concrete runs start at ``main``), ``BadInput`` when a program does not
    compile, ``MissingTool`` without gcc."""

    def __init__(self, path: str | Path, reference: ReferenceOptions, options: StagedOptions,
                 tests_dir: str | Path | None = None):
        if reference.init or reference.assume:
            raise UsageError("--init/--assume: concrete runs against a reference start at main; "
                             "give them to the bounded schemes (--scheme mutation|template)")
        self.start = time.monotonic()
        self.deadline = Deadline.after(options.timeout, options.started)
        self.path = Path(path)
        self.reference = reference
        self.options = options
        self.stats = StagedStats()
        self.outcome, self.stopped, self.reason = RepairOutcome.UNKNOWN, StopReason.NOT_STARTED, ""
        self.original = checked_source(self.path)  # BadInput (one line) for a file that cannot be read or parsed
        self._round_ends: float | None = None
        self._stage_ends: float | None = None  # the first stage's search ends then (a quarter of the time limit)
        self._no_time_to_seed = False  # the bounded check that finds a test input had no time (or too little) left
        self._first_changes: tuple = ()
        self._first: tuple | None = None  # the first stage's (schemas, lines), () for none
        self._failing_given: list[str] = []  # the given tests the original fails
        self._nearest: list[tuple[int, Repair]] = []  # the round's searches' nearest misses (TestDrivenRun.nearest)
        # removed at the latest when the run is collected or the interpreter exits (Ctrl-C, a run never iterated)
        self._tmp, self._removal = scratch_folder(self, "crepair-staged-")
        self._oracle = ReferenceProgram(reference.path, deadline=self.deadline, cache=options.cache)
        self.checks = CandidateChecks(self.path, reference, self._oracle, options.compare, options.unwind, self._tmp,
                                      self.stats, self.deadline, options.solver)
        given = given_tests(self.path, tests_dir, self._oracle, options.compare, self.stats.notes)
        self.stats.given = len(given)
        seeds = [stdin for _, stdin, _ in given]
        seeded = []
        if not seeds:
            seed = self._counterexample(self.original)
            if seed is not None:
                seeded.append(seed)
                seeds.append(seed[0])
        sources = (read_source(Path(reference.path)), self.original)
        self._literals, self._constants = reference_literals(reference.path, path)  # for the space
        generated, self.stats.invalid = generated_tests(seeds, self._oracle, options.generated, sources)
        (self._tmp / "tests").mkdir()
        self.suite = write_suite(self._tmp / "tests", given, generated)
        for stdin, expected in seeded:
            self.suite.add("counterexample", stdin, expected)
        self.stats.generated, self.stats.counterexamples = len(generated), len(seeded)
        held = held_back(seeds, options.held_back, sources, [*seeds, *(stdin for stdin, _ in generated)])
        self.verdicts = PatchVerdicts(self.checks, self.suite, self.stats, options.unwind, reference.input_bound,
                                      self.deadline, held)
        self.verdicts.start()  # beside the search
        self._iter = self._run()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.start

    def _counterexample(self, text: str) -> tuple[bytes, bytes] | None:
        """A test on which ``text`` and the reference differ when run, from
        the bounded check's counterexample (at most ``SEED_SECONDS``); None
        when the check finds none in time or it does not reproduce."""
        left, self._seed_decided = self.deadline.left(), False
        budget = SEED_SECONDS if left is None else max(0.0, min(SEED_SECONDS, left - CHECK_MARGIN))
        if budget < 1:
            self._no_time_to_seed = True
            return None
        result = self.checks.verify(text, budget)
        self._no_time_to_seed = budget < SEED_SECONDS and (self.checks.unanswered or (  # the run's limit cut it
            result is not None and result.outcome == VerifyOutcome.UNKNOWN))  # cut, or unknown: the time left
        self._seed_decided = result is not None and result.outcome == VerifyOutcome.VERIFIED  # no difference found
        return self.checks.test_of(result, text)

    def __iter__(self) -> Iterator[Repair]:
        return self

    def __next__(self) -> Repair:
        return next(self._iter)

    def close(self) -> None:
        self._iter.close()
        self._cleanup()
        self._removal()

    def _cleanup(self) -> None:  # the folder's removal is left to close() or to collection (after the report)
        self.checks.cancel_reference_check()
        self._oracle.close()

    def _run(self) -> Iterator[Repair]:
        try:
            yield from self._rounds()
        finally:
            self._cleanup()

    def _rounds(self) -> Iterator[Repair]:
        """Round 1 searches with the given (and counterexample) tests, as
        f1x does, and checks each plausible patch on the whole suite; when
        none passes it, the next round searches from the patch that fails
        the fewest tests, with the whole suite, up to ``options.rounds``."""
        base, proved = self.original, 0
        held: list[Repair] = []
        if self._timed_out():  # setting up (builds, the reference's runs) took the time
            self._finish(RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time limit")
            return
        for round_ in range(1, self.options.rounds + 1):
            self.stats.rounds, started = round_, self.seconds
            best: tuple[int, int, Repair] | None = None
            ids = (self.suite.given + self.suite.counterexamples) if round_ == 1 else None
            self._round_ends = None
            self.verdicts.new_round()
            for n, (rep, status, failed) in enumerate(self._round_items(base, ids, round_)):
                if status == "proved":
                    proved += 1
                    self.stats.proved += 1
                    yield self._relative(rep, base)
                    if self.options.max_repairs is not None and proved >= self.options.max_repairs:
                        self._finish(RepairOutcome.REPAIRED, StopReason.MAX_REPAIRS)
                        return
                elif status == "tests":
                    held.append(self._relative(rep, base))
                    if self.options.max_repairs is not None and len(held) >= self.options.max_repairs:
                        # a later candidate's proof is as hard: look on a little (its proof's time counts), then stop
                        ends = self.verdicts.look_on_until(held_patience(self.options.timeout))
                        self._round_ends = min(self._round_ends or float("inf"), ends)
                        self.verdicts.until = self._round_ends  # the proofs too
                        if self.verdicts.hopeless:  # no later candidate can be proved either
                            break
                elif best is None or (failed, n) < best[:2]:
                    best = (failed, n, rep)
                if best is not None and round_ < self.options.rounds and self._round_ends is None:
                    self._round_ends = time.monotonic() + partial_patience(self.options.timeout, self.seconds - started)
            if proved or held or self.outcome in (RepairOutcome.NO_FAILING_TEST, RepairOutcome.ORIGINAL_CORRECT) \
                    or self._ended():
                break
            if best is None and round_ < self.options.rounds and not self._timed_out():
                best = self._partial_fix(base)
            if best is None or self._timed_out():
                break
            self._first_changes = self._relative(best[2], base).changes  # every earlier round's, on the original
            base = best[2].patched  # one more location: search again from the patch that fails the fewest tests
        yield from held if self.options.max_repairs is None else held[:max(0, self.options.max_repairs - proved)]
        if proved or held:
            enough = self.options.max_repairs is not None and proved + len(held) >= self.options.max_repairs
            self._finish(RepairOutcome.REPAIRED, StopReason.TIMEOUT if self._timed_out() else
                         StopReason.MAX_REPAIRS if enough else StopReason.COMPLETE)
        elif self.outcome not in (RepairOutcome.NO_FAILING_TEST, RepairOutcome.ORIGINAL_CORRECT) and not (
                self._ended()):
            if self._timed_out():
                self._finish(RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time limit")
            else:
                self._finish(RepairOutcome.EXHAUSTED, StopReason.COMPLETE,
                             "no change in the search space passes every test and the reference's check")

    def _partial_fix(self, base: str) -> tuple[int, int, Repair] | None:
        """Round 2's start when no patch of ``base`` passed a given test:
        the round's nearest miss (:mod:`~crepair.schemes.staged_partial`)."""
        near, self._nearest = self._nearest, []
        found = nearest_fix(near, base, self.checks, self.suite, self.options.compare, self._timed_out)
        if found is None:
            return None
        before, after, rep = found
        self.stats.notes.append(f"another change is searched on top of the change whose outputs came nearest the "
                                f"expected ones ({before} bytes to delete and insert on the given tests -> {after})")
        return len(self._failing_given), 0, dataclasses.replace(rep, changes=named(rep.changes, str(self.path)))

    def _ended(self) -> bool:  # the search ended the run before it began (no test input; no time left for one)
        return self.stopped in (StopReason.NOT_STARTED, StopReason.TIMEOUT) and bool(self.reason)

    def _tick(self, _stats) -> None:
        """After every test execution: ends the search once its patience has run out."""
        if any(end is not None and time.monotonic() > end for end in (self._round_ends, self._stage_ends)):
            raise _RoundOver

    def _timed_out(self) -> bool:
        """Whether the time is up: too little left to start a search (:data:`SEARCH_START_SECONDS`)."""
        left = self.deadline.left()
        return left is not None and left <= SEARCH_START_SECONDS

    def _finish(self, outcome: RepairOutcome, stopped: StopReason, reason: str = "") -> None:
        self.outcome, self.stopped, self.reason = outcome, stopped, reason

    def _relative(self, rep: Repair, base: str) -> Repair:
        """``rep`` (a change of ``base``, the original with the first
        round's change) as a change of the original file."""
        if base == self.original:
            return rep
        return relative_to_original(rep, self.path, self.original, self._first_changes)

    def _round_items(self, base: str, ids: list[str] | None, round_: int) -> Iterator[tuple[Repair, str, int]]:
        """:meth:`_stages` of the round; when round 1 finds no patch that passes
        the given tests, a fault may have several locations that different
        tests exercise: the search runs again with one failing given test at
        a time (and every passing one), for a fifth of the time limit each;
        its patches are round 2's partial fixes (three failing tests at most)."""
        found = False
        for item in self._stages(base, ids):
            found = True
            yield item
        if found or round_ >= self.options.rounds or self._timed_out() or self.reason or \
                self.outcome == RepairOutcome.NO_FAILING_TEST or len(self._failing_given) < 2:
            return
        passing = [t for t in self.suite.given if t not in self._failing_given]
        for t in self._failing_given[:3]:
            self._round_ends = time.monotonic() + (self.options.timeout or 240.0) * DECOMPOSED_SHARE
            for item in self._stages(base, [t, *passing, *self.suite.counterexamples]):
                found = True
                yield item
            if found or self._timed_out():
                return
        self._round_ends = None

    def _stages(self, base: str, ids: list[str] | None) -> Iterator[tuple[Repair, str, int]]:
        """:meth:`_search` of the part of the space the original's wrong
        outputs point at first (:func:`first_stage`), then of the whole
        space (unless the first part ended the run)."""
        if self._first is None:
            self._failing_given, first = first_stage(self.original, self.checks, self.suite, self.options.compare)
            self._first = first or ()
        if self._first and (self._first[1] is None or base == self.original):  # lines name the original's
            found, self._stage_ends = False, time.monotonic() + patience(self.options.timeout)  # or the whole space
            try:
                for item in self._search(base, ids, *self._first):
                    found = found or item[1] in ("proved", "tests")
                    yield item
            finally:
                self._stage_ends = None
            if found or self._timed_out() or self.outcome == RepairOutcome.NO_FAILING_TEST:
                return
            if base == self.original:
                for item in self._first_pair(ids):
                    found = found or item[1] in ("proved", "tests")
                    yield item
                if found or self._timed_out():
                    return
            self.stats.notes.append("no change at the output statements repairs the output: the whole space follows")
        yield from self._search(base, ids)

    def _first_pair(self, ids: list[str] | None) -> Iterator[tuple[Repair, str, int]]:
        """Up to ``FIRST_STAGE_CHANGES`` changes in the first stage's part
        of the space (no single change passes a test: a prompt at two
        output calls, two separators): the first stage again, for a
        quarter of the time limit, from its nearest miss
        (:meth:`_partial_fix`), and so on from that search's; its patches
        as changes of the original.  First, the same edit at every format
        (:mod:`~crepair.schemes.staged_uniform`)."""
        text, first = self.original, ()
        for rep in uniform_repairs(self.checks.copy(text), text, self._literals, self.seconds, self.path):
            self.stats.plausible += 1
            status, evidence, failed = self.verdicts.verdict(rep)
            if status == "refuted":  # a partial fix to compare by its outputs' distance, not by the tests it fails
                self._nearest.append((failed, rep))
                continue
            yield dataclasses.replace(rep, evidence=evidence or rep.evidence), status, failed
            return
        for _ in range(FIRST_STAGE_CHANGES - 1):
            near = self._partial_fix(text)
            if near is None or self._timed_out():
                return
            text, first = near[2].patched, relative_to_original(near[2], self.path, self.original, first).changes
            saved = self._round_ends
            self._round_ends = min(saved or float("inf"), time.monotonic() + patience(self.options.timeout))
            found = False
            try:
                for rep, status, failed in self._search(text, ids, *self._first):
                    found = found or status in ("proved", "tests")
                    yield relative_to_original(rep, self.path, self.original, first), status, failed
            finally:
                self._round_ends = saved
            if found:
                return

    def _search(self, base: str, ids: list[str] | None, schemas: frozenset[Schema] | None = None,
                lines: frozenset[int] | None = None) -> Iterator[tuple[Repair, str, int]]:
        """The plausible patches of ``base`` against the tests ``ids`` of the
        suite (None: all), each with its status — proved, tests (passes
        every test of the suite, not proved), refuted (fails a test of the
        suite or a counterexample) — and the number of tests it fails."""
        from crepair.schemes.test_driven import TestDrivenRun
        from crepair.schemes.test_driven_options import TestRepairOptions

        program = self.checks.copy(base)
        while True:
            if self._timed_out():  # building a space and its meta-program takes seconds and cannot be cut
                return
            if not self.suite.ids and (self._no_time_to_seed or self._timed_out()):
                self._finish(RepairOutcome.UNKNOWN, StopReason.TIMEOUT,
                             "time limit: no tests were given and the bounded check that finds an input on which "
                             "the program and the reference differ had no time left to answer")
                return
            if not self.suite.ids:
                self._finish(RepairOutcome.UNKNOWN, StopReason.NOT_STARTED,
                             "no test input: no tests were given and the bounded check found no input on which "
                             "the program and the reference differ in time; give --tests-dir DIR")
                return
            spec = load_tests(program, tests_dir=self.suite.folder, compare=self.options.compare,
                              test_ids=ids or ())
            left = self.deadline.left()
            # no anti-patterns: the reference's generated tests and proof, not rules of thumb, rule out overfitting
            options = TestRepairOptions(timeout=None if left is None else max(left, 0.1), all=True,
                                        test_timeout=self.options.test_timeout or TEST_TIMEOUT_MS,
                                        anti_patterns=frozenset(), schemas=schemas, lines=lines,
                                        literals=self._literals, constants=self._constants, cflags=self.checks.cflags)
            run = TestDrivenRun(program, spec, options)
            run.progress = self._tick
            if self.stats.rounds == 1:
                self.stats.failing_given = len([t for t in run.failing if t.startswith("given-")])
            self.stats.candidates += run.stats.candidates
            if run.outcome == RepairOutcome.NO_FAILING_TEST:
                added = self._counterexample(base)
                if added is None or added[0] in map(self.suite.stdin, self.suite.counterexamples):  # passed before
                    if base == self.original:  # else a later round's start, which only the checks' build fails
                        self._finish(*no_failing_test(len(self.suite.ids), added and added[0], self._seed_decided))
                    return
                test = self.suite.add("counterexample", *added)
                ids = None if ids is None else [*ids, test]  # the search's tests: round 1 runs a chosen few
                self.stats.counterexamples += 1
                continue
            break
        try:
            for rep in _until_round_ends(run):
                self.stats.plausible += 1
                rep = dataclasses.replace(rep, scheme=Scheme.TEST_DRIVEN, stage="reference (staged)",
                                          seconds=self.seconds, diff=unified_diff(str(self.path), base, rep.patched),
                                          changes=named(rep.changes, str(self.path)))
                status, evidence, failed = self.verdicts.verdict(rep)
                if status == "refuted" and ids is not None:
                    self.verdicts.guide(run, program, self.options.compare)
                yield dataclasses.replace(rep, evidence=evidence or rep.evidence), status, failed
                if self._timed_out():
                    break
        finally:
            first = next((t for t in run.failing if t in self._failing_given), None)
            if first is not None:
                self._nearest += run.nearest(first)
            self.stats.explored += run.stats.explored
            self.stats.executions += run.stats.executions
            run.close()
