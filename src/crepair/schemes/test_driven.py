"""Test-driven repair: f1x's search with test-equivalence partitioning.

The pipeline (Mechtaev, Gao, Tan, Roychoudhury, TOSEM'18, §4–§5):

1. the original program is built in a copy of the project and every test
   is run: the failing tests are found, never taken on trust;
2. spectrum-based localization on a coverage build: the candidate lines
   are those every failing test executes, ranked by suspiciousness (over
   every file to change, see :mod:`crepair.schemes.project_files`);
3. the search space (Fig. 10) over those lines, in cost order (one order
   over all files: :mod:`crepair.testequiv.linked`);
4. one meta-program (per file to change, linked into one program): every
   site instrumented once, compiled once; the candidate to run is chosen at
   run time, and the runtime computes its value-based test-equivalence
   class on the fly (Algorithm 1);
5. exploration with partitioning (Algorithm 3) or without (Algorithm 2);
   a candidate that executes its site more than
   :func:`~crepair.schemes.test_driven_options.step_limit` times in a test
   (a loop it made endless) fails it at once, as at a time-out; a site
   whose class computation timed out computes its later classes among
   fewer candidates;
6. every plausible patch (one change, in one file) is rebuilt normally and
   re-run on every test before it is reported (evidence
   :class:`~crepair.records.PassesTests`);
7. a caller may add tests while iterating (:meth:`TestDrivenRun.add_tests`:
   counterexample-guided, the staged run against a reference).

A patch that passes every test is *plausible*, never "correct".
"""

from __future__ import annotations

import bisect
import copy
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from crepair.frontend import load_program
from crepair.records import PassesTests, Repair, RepairOutcome, Scheme, StopReason
from crepair.run_record import TestDrivenRecord
from crepair.schemes.base import finish
from crepair.schemes.semantic_ranking import (
    COST_SLACK, EXTRA_PLAUSIBLE, Clock, Ranked, Ranking, measure, probe_of, rank_patches,
)
from crepair.schemes.test_driven_options import TestDrivenStats, TestRepairOptions, auto_test_timeout, step_limit
from crepair.schemes.test_driven_patches import candidate_repair, patched_text, unexecuted_classes
from crepair.schemes.time_limit import Deadline
from crepair.testequiv.candidates import SearchSpace
from crepair.testequiv.search import Exploration
from crepair.testequiv.space import SpaceOptions
from crepair.toolchain.scratch import scratch


class _OutOfTime(Exception):
    """The run's deadline passed during a build or a test run (whose result then says nothing)."""


TIME_LIMIT = "time limit reached"


RETRY_SHRINK = 8  # after a time-out while computing a class, a site's classes are computed among 8 times fewer
_NOT_MADE = object()  # the probe before the first plausible patch

# the meta-program is compiled without optimization, so that gcc keeps every
# candidate's evaluation (at -O2 it folds away divisions whose value cannot
# matter), and without warnings (candidates' code raises many)
_META_CFLAGS = ("-O0", "-w")


NEAREST = 16  # near misses kept per test (TestDrivenRun.nearest)


class TestDrivenRun:
    """A test-driven repair run of the C file ``path`` against ``spec``
    (a :class:`~crepair.testsuite.TestSpec`): iterate for plausible
    :class:`~crepair.records.Repair` records, least cost first.  ``files``:
    further C files of the project that may be changed (paths from the
    current directory); each repair changes one file (``Repair.file``).

    Construction builds and runs the original (failing tests, spectrum)
    and the search space (``space``, search ids; ``linked``, the files;
    ``programs``: each file searched by its display path, the key of
    ``Repair.file``; ``program``: the one of ``path``; ``test_timeout``:
    the per-test limit in milliseconds, given or :func:`auto_test_timeout`); iteration builds the meta-program once and
    explores.  ``outcome``, ``stopped`` and ``reason`` are final once the
    iterator ends: REPAIRED (a plausible patch), EXHAUSTED (none in the
    whole space), NO_FAILING_TEST (no search), UNKNOWN (time limit before a
    patch), STOPPED (the caller stopped).  Raises ``BadInput`` (the
    project does not build, file errors), ``UsageError``, ``MissingTool``.
    """

    def __init__(self, path: str | Path, spec, options: TestRepairOptions, *, files: Sequence[str | Path] = ()):
        from crepair.localization.spectrum import Formula, rank_files
        from crepair.schemes import project_files as pf
        from crepair.testsuite import DEFAULT_TEST_TIMEOUT_MS, TestCounter, TestOutcome, collect_spectrum

        self.start = time.monotonic()
        self.deadline = Deadline.after(options.timeout, options.started)
        self.options = options
        self.spec = spec
        self.stats = TestDrivenStats(Scheme.TEST_DRIVEN)
        self.counter = TestCounter()
        main = spec.program.as_posix()
        shown = {main: str(path)}
        if options.localize_files:
            covered = [f for f in pf.c_files(spec.project) if f != main]
        else:
            covered = [pf.project_path(spec.project, f) for f in files]
            shown.update((c, str(f)) for c, f in zip(covered, files) if c != main)
        ceiling = DEFAULT_TEST_TIMEOUT_MS if options.test_timeout is None else options.test_timeout
        spectrum = collect_spectrum(spec, timeout_ms=ceiling, counter=self.counter, files=covered,
                                    deadline=self.deadline, cflags=options.cflags)
        self.test_timeout = options.test_timeout
        if self.test_timeout is None:
            self.test_timeout = auto_test_timeout([t.seconds for t in spectrum.tests], ceiling)
        # a run the time limit stopped counts nothing the candidates need (it loops at end of input)
        steps = step_limit([t.most for t in spectrum.tests if t.outcome != TestOutcome.TIMEOUT])
        self._steps = {t.test: steps for t in spectrum.tests}  # added tests: the time limit only
        self.failing = tuple(t.test for t in spectrum.failing)
        self.passing = tuple(t.test for t in spectrum.passing)
        self.stats.failing, self.stats.passing = self.failing, self.passing
        self.ranking = rank_files(spectrum, Formula(options.formula))
        self.found = 0
        self.outcome = RepairOutcome.UNKNOWN
        self.stopped = StopReason.NOT_STARTED
        self.reason = ""
        chosen = [main, *dict.fromkeys(f for f in covered if f != main)]
        if options.localize_files:
            chosen = list(pf.localized(self.ranking, options.max_files)) or [main]
        cut = self.deadline.passed()  # running the tests took the time: an empty space (the program parsed only)
        if cut:
            chosen = [main]
        pairs = [(f, shown.get(f) or pf.display_path(spec.project, f)) for f in chosen]
        self.linked = pf.linked_space(spec.project, pairs, self.ranking,
                                      frozenset() if cut else options.lines if chosen[0] == main else None,
                                      SpaceOptions(anti_patterns=options.anti_patterns, literals=options.literals,
                                                   constants=options.constants,
                                                   **({} if options.schemas is None else {"schemas": options.schemas})))
        self.programs = {part.program.path: part.program for part in self.linked.parts}
        mains = [part.program for part in self.linked.parts if part.file == main]
        self.program = mains[0] if mains else load_program(path, real_c=True)
        self.space: SearchSpace = self.linked.space
        self.stats.files = tuple(self.programs)
        self.stats.sites = len({c.site for c in self.space.candidates})  # not the sites that only count steps
        self.stats.candidates = len(self.space.candidates)
        self.stats.by_schema = dict(Counter(c.schema.value for c in self.space.candidates))
        self.stats.anti_patterns = dict(self.space.pruned)
        self.unexecuted = unexecuted_classes(spectrum, self.space, {p.program.path: p.file for p in self.linked.parts},
                                             main)
        self._final: RepairOutcome | None = None
        if cut or self.deadline.passed():  # the tests' results may be cut short: no verdict, no search
            self._final = RepairOutcome.UNKNOWN
            self.reason = f"{TIME_LIMIT} before the search (running the original's tests)"
            finish(self.stats, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, self.reason)
            self.outcome, self.stopped = RepairOutcome.UNKNOWN, StopReason.TIMEOUT
        elif not self.failing:
            self._final = RepairOutcome.NO_FAILING_TEST
            self.reason = f"the original program passes all {len(self.passing)} tests"
            finish(self.stats, RepairOutcome.NO_FAILING_TEST, StopReason.NOT_STARTED, self.reason)
            self.outcome, self.stopped = RepairOutcome.NO_FAILING_TEST, StopReason.NOT_STARTED
        self.progress = None  # set to a callable to get the ExplorationStats after every test execution
        self._tests = [*self.failing, *self.passing]  # the tests every plausible patch passes (add_tests adds)
        self._exploration: Exploration | None = None
        self.closest: dict[str, list[tuple[int, int]]] = {}  # per test: the NEAREST (output distance, candidate)
        self._iter = self._run()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.start

    def record(self) -> TestDrivenRecord:
        """The run as the renderers read it, now (a copy of the statistics)."""
        return TestDrivenRecord(self.program.path, self.options, copy.deepcopy(self.stats), self.test_timeout,
                                self.failing, self.passing, tuple(self.ranking),
                                tuple((p, why) for p, why in self.space.skipped), self.found, self.outcome,
                                self.stopped, self.reason, self.seconds)

    def __iter__(self) -> Iterator[Repair]:
        return self

    def __next__(self) -> Repair:
        return next(self._iter)

    def close(self) -> None:
        self._iter.close()

    def add_tests(self, spec, ids: Sequence[str]) -> None:
        """Counterexample-guided search: the tests ``ids`` of ``spec`` (this
        run's specification with more tests: the same project, program and
        build) run first on every candidate picked from now on, and in every
        later plausible patch's validation; patches already reported are not
        re-run.  Raises ``ValueError`` for an id ``spec`` does not have."""
        missing = [t for t in ids if t not in spec.ids]
        if missing:
            raise ValueError(f"tests {', '.join(missing)}: not in the specification")
        self.spec = spec
        for t in ids:
            if t not in self._tests:
                self._tests.append(t)
                self.stats.added_tests += 1
                if self._exploration is not None:
                    self._exploration.add_test(t)

    def nearest(self, test: str) -> list[tuple[int, Repair]]:
        """The (at most :data:`NEAREST`) explored candidates whose failing
        outputs on ``test`` came nearest the expected one
        (:func:`~crepair.testsuite.output_distance`), nearest first, as
        (distance, its :class:`Repair`, evidence ``PassesTests(0, n)``: no
        repair, a partial fix at most); candidates whose run did not end
        normally are not among them."""
        out = []
        for distance, p in self.closest.get(test, ()):
            part = self.linked.part(p)
            cand = part.space.candidates[self.linked.local[p]]
            patched = patched_text(part.program.original, part.space, cand)
            out.append((distance, candidate_repair(part.program, part.space, cand, patched, self.seconds,
                                                   PassesTests(0, len(self._tests)))))
        return out

    def _run(self) -> Iterator[Repair]:
        if self._final is not None:
            return
        search_start = time.monotonic()
        try:
            yield from self._search()
        except GeneratorExit:
            if self.stopped == StopReason.NOT_STARTED:
                self.stopped = StopReason.CALLER
                finish(self.stats, RepairOutcome.STOPPED, StopReason.CALLER)
                self.outcome = self.stats.outcome
            raise
        finally:
            self.stats.seconds = time.monotonic() - search_start

    def _search(self) -> Iterator[Repair]:
        from crepair.errors import InternalError
        from crepair.frontend.source import encode
        from crepair.testequiv.deps import close, dependency_classes
        from crepair.testequiv.metaprogram import instrument
        from crepair.testequiv.protocol import read_partition, run_environment, write_partition
        from crepair.testsuite import TestCounter, TestOutcome, run_test

        o, spec, space, linked = self.options, self.spec, self.space, self.linked  # spec: its workspaces
        deps: dict[int, frozenset[int]] = {}
        for k, part in enumerate(linked.parts):
            if o.partition:
                deps.update(linked.lift(k, dependency_classes(part.program, part.space)))
        tests = self._tests
        with spec.workspace() as ws, spec.workspace() as check, scratch("crepair-partition-", in_memory=True) as tmp:
            for part in linked.parts:
                if part.space.candidates:
                    meta = instrument(part.program.original, part.space, file=part.program.path, offset=part.offset)
                    ws.replace(part.file, encode(meta))
            built = ws.build((*_META_CFLAGS, *o.cflags), timeout=self.deadline.cap(None))
            self.stats.build_seconds = built.seconds
            if not built.ok and self.deadline.passed():
                self._end(RepairOutcome.UNKNOWN, StopReason.TIMEOUT, f"{TIME_LIMIT} (building the meta-program)")
                return
            if not built.ok:
                raise InternalError(f"the meta-program does not compile: {built.first_error}")
            partition = Path(tmp) / "partition"
            executions = TestCounter()

            def test(t: str, root, env=None, counter=executions, near=False):
                """Run test ``t`` within the time left; raises ``_OutOfTime`` once the deadline passed."""
                run = run_test(self.spec, t, root, timeout_ms=self.deadline.cap_ms(self.test_timeout), env=env,
                               counter=counter, measure=near)
                if self.deadline.passed():
                    raise _OutOfTime
                return run

            most: dict[int, int] = {}  # per site: the most others a class is computed among (cut at each time-out)

            def evaluate(p: int, t: str, others: frozenset[int]) -> tuple[bool, frozenset[int]]:
                alone = run_environment(linked.runtime_id(p), steps=self._steps.get(t))
                site = space.candidates[p].site
                if len(others) > most.get(site, len(others)):
                    others = frozenset(sorted(others)[:most[site]])  # the cheapest ones: the search's order
                if not others:  # also the baseline, which lists no others (and has no dependency classes)
                    run = test(t, ws, alone)
                    return run.passed, close({p}, deps)
                write_partition(partition, linked.runtime_ids(others | {p}))
                run = test(t, ws, run_environment(linked.runtime_id(p), partition=partition, steps=self._steps.get(t)),
                           near=True)
                if run.distance is not None:
                    near = self.closest.setdefault(t, [])
                    if len(near) < NEAREST or run.distance < near[-1][0]:
                        bisect.insort(near, (run.distance, p))
                        del near[NEAREST:]
                if run.outcome == TestOutcome.TIMEOUT:
                    # evaluating the others may be what took the time (a format site with thousands of
                    # candidates, each formatted at every execution): run p alone, and compute the site's
                    # later classes among fewer
                    self.stats.retried += 1
                    most[site] = len(others) // RETRY_SHRINK
                    run = test(t, ws, alone)
                    return run.passed, close({p}, deps)
                return run.passed, close(linked.search_ids(read_partition(partition)) | {p}, deps)

            clock = Clock(time.monotonic(), self.deadline.left())  # the run's deadline
            exploration = Exploration(space, tuple(tests), evaluate, o.partition, clock.stop, self.progress,
                                      self.unexecuted)
            self._exploration = exploration
            rank = o.rank is Ranking.DISTANCE
            keep = None if o.all else o.max_repairs  # patches to report (None: all)
            pool: list[Ranked] = []
            probe = _NOT_MADE
            changed = None  # the file of the check copy last patched
            cut = False  # the deadline passed during a build or a test run
            try:
                for p in exploration:
                    self.stats.take(exploration.stats)
                    part = linked.part(p)
                    cand = part.space.candidates[linked.local[p]]
                    if changed is not None and changed != part.file:
                        check.restore(changed)
                    changed = part.file
                    patched = patched_text(part.program.original, part.space, cand)
                    check.replace(part.file, encode(patched))
                    ok = check.build(o.cflags, timeout=self.deadline.cap(None)).ok and all(
                        not self.deadline.passed() and test(t, check, counter=self.counter).passed for t in tests)
                    if self.deadline.passed():
                        raise _OutOfTime
                    self.stats.validations += len(tests)
                    if not ok:
                        self.stats.rejected += 1
                        continue
                    evidence = PassesTests(len(tests), len(tests))
                    repair = candidate_repair(part.program, part.space, cand, patched, self.seconds, evidence)
                    if rank and probe is _NOT_MADE:  # not past the time limit: the probe runs the original
                        probe = probe_of(self, ws) if not clock.over() else None
                        rank = probe is not None  # no inputs to compare on: the cost order, streamed
                    if not rank:
                        self.found += 1
                        self.stats.repairs = self.found
                        yield repair
                        if keep is not None and self.found >= keep:
                            self._end(RepairOutcome.REPAIRED, StopReason.MAX_REPAIRS)
                            return
                        continue
                    pool.append(measure(self, probe, repair, len(pool), cand, clock))
                    self.stats.repairs = len(pool)
                    if keep is not None and len(pool) == keep:
                        exploration.max_cost = cand.cost + COST_SLACK
                        self.stats.ranking["budget_seconds"] = round(clock.rank_from(time.monotonic()), 3)
                    if keep is not None and len(pool) >= keep + EXTRA_PLAUSIBLE:
                        break
            except _OutOfTime:  # the patches validated before the deadline are still reported
                cut = True
            finally:
                self.stats.take(exploration.stats)
            self.stats.complete = exploration.complete and not cut
            if pool:
                yield from rank_patches(self, probe, pool, keep, TIME_LIMIT if cut else exploration.stopped)
                if keep is not None:
                    self._end(RepairOutcome.REPAIRED, StopReason.MAX_REPAIRS)
                    return
            if cut:
                self._end(RepairOutcome.UNKNOWN, StopReason.TIMEOUT, TIME_LIMIT)
            elif exploration.complete:
                self._end(RepairOutcome.EXHAUSTED, StopReason.COMPLETE)
            else:
                self._end(RepairOutcome.UNKNOWN, StopReason.TIMEOUT, exploration.stopped)

    def _end(self, outcome: RepairOutcome, stopped: StopReason, reason: str = "") -> None:
        finish(self.stats, outcome, stopped, reason)
        self.outcome, self.stopped, self.reason = self.stats.outcome, stopped, reason
