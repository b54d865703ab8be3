"""A repair run: the original program checked once, then the schemes in order.

:class:`RepairRun` is the one place that composes schemes and merges their
outcomes.  Before any search it checks the original program (unwinding
assumptions: does an assertion fail on a run within the bound?) and
whether the bound cuts off its runs, naming the loop.  Only a violated
original is searched.  Vacuous repairs (possible only with unwinding
assumptions) are held back until every non-vacuous repair of their size
has been yielded, are never counted as repaired and never stop the run.
When no candidate ends every run within the bound (unwinding assertions)
and the original's runs go beyond it, the schedule runs again on unwinding
assumptions to tell whether the bound is what rules the candidates out:
the repairs it finds are listed, VACUOUS, and the outcome is
BOUND_TOO_SMALL (see :meth:`RepairRun._within_bound`).
The schemes run as a :class:`~crepair.schemes.schedule.Schedule` says
(default: the ``options.schemes`` in order, every one run).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterator

from crepair.bmc import (
    ENCODING_TIMEOUT, NEEDED_BOUND_LIMIT, Counterexample, bound_search, check_bound, check_original, counterexample_of,
    needed_bound,
)
from crepair.encode.formula import EncodingTimeout, Unwinding
from crepair.frontend import CProgram
from crepair.mutation.operators import is_specification
from crepair.schemes.time_limit import time_limit_note
from crepair.options import RepairOptions, solver_of
from crepair.errors import CRepairError
from crepair.records import BoundedProof, BoundReport, Repair, RepairOutcome, Scheme, StopReason
from crepair.run_record import RunRecord, StageRecord
from crepair.schemes.base import Encoding, Problem, RepairScheme, SchemeStats
from crepair.schemes.mutation import MutationScheme, Progress
from crepair.schemes.schedule import Schedule
from crepair.schemes.template_scheme import TemplateProgress, TemplateScheme
from crepair.solver import UNITS_PER_SECOND, Backend, Limits
from crepair.solver.smt import Verdict

#: A progress display: called with the running scheme's snapshot.
ProgressFn = Callable[["Progress | TemplateProgress"], None]

_ENCODING = {Scheme.MUTATION: Encoding.MUTANTS, Scheme.TEMPLATE: Encoding.SPLIT_TERNARIES}


def _until_encoding_timeout(repairs: Iterator[Repair], scheme: RepairScheme) -> Iterator[Repair]:
    """``repairs``, ended as a time-out if the scheme's encoding outlasts the deadline."""
    try:
        yield from repairs
    except EncodingTimeout:
        scheme.stats.outcome, scheme.stats.stopped = RepairOutcome.UNKNOWN, StopReason.TIMEOUT
        scheme.stats.reason = ENCODING_TIMEOUT


class _NotEncoded:
    """A scheme whose encoding outlasted the run's deadline: no search, outcome UNKNOWN (timeout)."""

    def __init__(self, scheme: Scheme):
        self.stats = SchemeStats(scheme, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, ENCODING_TIMEOUT)

    def repairs(self) -> Iterator[Repair]:
        yield from ()  # a generator, closed like every scheme's search


def build(scheme: Scheme, problem: Problem, progress: ProgressFn | None) -> RepairScheme:
    """The scheme object of ``scheme`` for ``problem`` (one that searches
    nothing, outcome UNKNOWN, if the encoding outlasts the deadline)."""
    try:
        if scheme == Scheme.MUTATION:
            return MutationScheme(problem, progress)
        return TemplateScheme(problem, progress)
    except EncodingTimeout:
        return _NotEncoded(scheme)


class _Deferred:
    """A scheme of an escalating schedule, built when its stage starts (its
    encoding costs time that a stage never run should not spend); until
    then its ``stats`` are the scheme's defaults."""

    def __init__(self, scheme: Scheme, problem: Problem, progress: ProgressFn | None):
        self._args = (scheme, problem, progress)
        self.stats = SchemeStats(scheme)

    def repairs(self) -> Iterator[Repair]:
        built = build(*self._args)
        self.stats = built.stats
        return built.repairs()


class RepairRun:
    """An iterator of checked :class:`~crepair.records.Repair` records.

    Stop iterating at any time (or :meth:`close`).  ``outcome``,
    ``stopped`` and ``reason`` are final once the iterator is exhausted or
    closed; ``bound`` tells whether the unwinding bound cuts off runs of the
    original program; ``counterexample`` is the original's violation (None
    if it has none); ``schemes`` hold each scheme's ``stats``, one per stage of
    the ``schedule`` (default: ``options.schemes``, all run); ``skipped``
    are the schemes an escalating schedule did not need to run;
    ``within_bound`` the schemes run again on unwinding assumptions when no
    candidate could end its runs within the bound, ``vacuous`` the number
    of vacuous repairs they yielded and ``unprovable`` why no repair can
    be proved (then the outcome is BOUND_TOO_SMALL).
    """

    def __init__(
        self, program: CProgram, options: RepairOptions, progress: ProgressFn | None = None,
        schedule: Schedule | None = None,
    ):
        self.program = program
        self.options = options.check()
        self.schedule = schedule or Schedule.of_schemes(self.options.schemes)
        first = self.schedule.stages[0]
        limits = Limits.after(options.timeout, options.rlimit, options.reproducible, options.started,
                              Backend(solver_of(options.solver, equivalence=False)))
        self.problem = Problem(program, first.options(self.options), limits)
        self.problems: list[Problem] = []  # per stage; stages with equal options share one (and its encodings)
        self.schemes: list[RepairScheme] = []
        for i, stage in enumerate(self.schedule.stages):
            stage_options = stage.options(self.options)
            problem = next((p for p in [self.problem, *self.problems] if p.options == stage_options), None)
            if problem is None:  # same limits and start: one time budget
                problem = Problem(program, stage_options, self.problem.limits, self.problem.start)
            self.problems.append(problem)
            if i and self.schedule.escalate:
                self.schemes.append(_Deferred(stage.scheme, problem, progress))
            else:
                self.schemes.append(build(stage.scheme, problem, progress))
        self.skipped: list[RepairScheme] = []
        self.counterexample: Counterexample | None = None
        try:
            formula, _ = self.problem.encoding(_ENCODING[first.scheme])
        except EncodingTimeout:
            formula = None
            verdict, model, reason = Verdict.UNKNOWN, None, ENCODING_TIMEOUT
            self.bound: BoundReport = BoundReport(self.options.unwind, None)
        if formula is not None:
            assumed = dataclasses.replace(formula, unwinding=Unwinding.ASSUMPTIONS)
            verdict, model, reason = check_original(assumed, self.problem.limits)
            self.bound = check_bound(assumed, self.problem.limits)
            if self.bound.too_small:
                self.bound = needed_bound(program, self.bound, self.options.entry, self.problem.limits)
        self.reason = ""
        self.stopped = StopReason.NOT_STARTED
        self.found = 0  # non-vacuous repairs yielded
        self.within_bound: list[RepairScheme] = []  # the schemes run again on unwinding assumptions (_within_bound)
        self.vacuous = 0  # vacuous repairs they yielded
        self.unprovable = ""  # then why no repair can be proved (where the bound cuts, which bound could do)
        self._final: RepairOutcome | None = None
        if verdict == Verdict.SAT:
            self.counterexample = counterexample_of(assumed, model)
        elif verdict == Verdict.UNKNOWN:
            self._final, self.reason = RepairOutcome.UNKNOWN, f"check of the original program: {reason}"
        elif self.bound.too_small is None:
            self._final, self.reason = RepairOutcome.UNKNOWN, "could not decide whether the bound covers every run"
        elif self.bound.too_small:
            self._final = RepairOutcome.BOUND_TOO_SMALL
        else:
            self._final = RepairOutcome.ORIGINAL_CORRECT
        if self._final is not None:  # no search: every scheme ends with the run's outcome
            for scheme in self.schemes:
                scheme.stats.outcome, scheme.stats.reason = self._final, self.reason
        self._iter: Iterator[Repair] = self._run()

    @property
    def searched(self) -> bool:
        """Whether the schemes run (the original violates an assertion)."""
        return self.counterexample is not None

    def _run(self) -> Iterator[Repair]:
        if not self.searched:
            return
        o = self.options
        for i, (stage, scheme) in enumerate(zip(self.schedule.stages, self.schemes)):
            if self.schedule.escalate and self.found:
                self.skipped = self.schemes[i:]
                break
            held: list[Repair] = []  # vacuous repairs wait for the non-vacuous ones of their size
            repairs = scheme.repairs()
            label = stage.label(self.options) if self.schedule.escalate else ""
            try:
                for rep in _until_encoding_timeout(repairs, scheme):
                    if label:
                        rep = dataclasses.replace(rep, stage=label)
                    if rep.vacuous:
                        held.append(rep)
                        continue
                    while held and held[0].size < rep.size:
                        yield held.pop(0)
                    self.found += 1
                    yield rep
                    if o.max_repairs is not None and self.found >= o.max_repairs:
                        repairs.close()
                        scheme.stats.stopped = StopReason.MAX_REPAIRS
                        self.stopped = StopReason.MAX_REPAIRS
                        return
                yield from held
            finally:
                repairs.close()
        # the run stopped as its schemes did: a time-out or an unknown wins over completion
        reasons = {s.stats.stopped for s in self.schemes if s not in self.skipped}
        self.stopped = next((r for r in (StopReason.TIMEOUT, StopReason.UNKNOWN) if r in reasons), StopReason.COMPLETE)
        if (o.unwinding == Unwinding.ASSERTIONS and self.bound.too_small and not self.found
                and self.outcome in (RepairOutcome.NO_REPAIR, RepairOutcome.EXHAUSTED)):
            yield from self._within_bound()

    def _within_bound(self) -> Iterator[Repair]:
        """No candidate ends every run within the bound, and the original's
        runs go beyond it: is the bound what rules the candidates out?  The
        schedule runs again on unwinding assumptions (FM'16 semantics),
        until a stage finds repairs; each is yielded (VACUOUS unless every
        run of it fits the bound, then a repair like any other).  With
        vacuous ones the outcome is BOUND_TOO_SMALL and ``unprovable`` says
        where their runs go beyond the bound and whether a larger bound
        could prove them."""
        assumed_of: dict[int, Problem] = {}  # id of a stage's problem -> the same on unwinding assumptions
        for stage, problem in zip(self.schedule.stages, self.problems):
            assumed = assumed_of.get(id(problem))
            if assumed is None:
                assumed = assumed_of[id(problem)] = problem.with_unwinding(Unwinding.ASSUMPTIONS)
            scheme = build(stage.scheme, assumed, None)
            self.within_bound.append(scheme)
            label = stage.label(self.options) if self.schedule.escalate else ""
            found = []
            for rep in _until_encoding_timeout(scheme.repairs(), scheme):
                rep = dataclasses.replace(rep, stage=label) if label else rep
                if rep.vacuous:
                    self.vacuous += 1
                    if not self.unprovable:
                        self.unprovable = self._unprovable(rep)
                else:
                    self.found += 1
                found.append(rep)
                yield rep
            if found:
                return

    def _unprovable(self, rep: Repair) -> str:
        """Why the vacuous repair ``rep`` cannot be proved: where its runs
        go beyond the bound, and the bound that covers them, if one is
        found (:func:`~crepair.bmc.bound_search` on its patched text)."""
        o = self.options
        cut = rep.evidence.bound.cut if isinstance(rep.evidence, BoundedProof) else None
        where = f" ({cut.what} at {cut.span})" if cut is not None else ""
        try:
            needed, tried = bound_search(self.program.with_text(rep.patched), o.unwind, o.entry,
                                         self.problem.limits, o.checks)
        except CRepairError:
            needed, tried = None, o.unwind
        head = (f"no repair can be proved within unwinding bound {o.unwind}: the candidates found correct within it "
                f"have runs beyond it{where}")
        if needed is not None:
            return f"{head}; try --unwind {needed} (what the first of them needs)"
        if tried >= NEEDED_BOUND_LIMIT:
            return (f"no bound can prove a repair: the candidates found correct within unwinding bound {o.unwind} "
                    f"have runs beyond it{where}, the first of them beyond every bound up to {tried}: a count no "
                    "assumption bounds (an unconstrained input; bound it with __CPROVER_assume)")
        if tried > o.unwind:
            return (f"{head}, the first of them beyond every bound tried (up to {tried}); if no assumption bounds "
                    "that count, no bound can prove a repair")
        return f"{head} (no larger bound tried: out of time)"

    @property
    def stats(self) -> SchemeStats:
        """The statistics of the first scheme."""
        return self.schemes[0].stats

    def scheme_stats(self, scheme: Scheme) -> SchemeStats | None:
        return next((s.stats for s in self.schemes if s.stats.scheme == scheme), None)

    @property
    def outcome(self) -> RepairOutcome:
        """The outcome over all schemes run (the highest ranked, see
        :class:`~crepair.records.RepairOutcome`)."""
        if self._final is not None:
            return self._final
        if self.vacuous and not self.found:  # the bound, not the search space, rules the candidates out
            return RepairOutcome.BOUND_TOO_SMALL
        outcomes = [s.stats.outcome for s in self.schemes if s.stats.stopped != StopReason.NOT_STARTED
                    or s.stats.outcome != RepairOutcome.UNKNOWN]
        merged = RepairOutcome.merge(outcomes) if outcomes else RepairOutcome.STOPPED
        if self.found and merged != RepairOutcome.REPAIRED:
            return RepairOutcome.REPAIRED
        return merged

    @property
    def unknown_reason(self) -> str:
        """Why the outcome is UNKNOWN (the first reason given)."""
        if self.reason:
            return self.reason
        return next((s.stats.reason for s in self.schemes if s.stats.outcome == RepairOutcome.UNKNOWN), "")

    def record(self) -> RunRecord:
        """The run as the renderers read it, now (before the search: what
        the header needs; after it: everything), with copies of the
        schemes' statistics."""
        o = self.options
        stages = tuple(StageRecord(stage.label(o), copy.deepcopy(scheme.stats), scheme in self.skipped)
                       for stage, scheme in zip(self.schedule.stages, self.schemes))
        units = int(o.timeout * UNITS_PER_SECOND) if o.reproducible and o.timeout is not None else None
        only_main = not o.mutate_main and not any(f != "main" and not is_specification(f, o.no_mutate)
                                                  for f in self.program.functions)
        return RunRecord(self.program.path, self.program.original, o, stages, self.schedule.escalate, self.bound,
                         self.counterexample, self.searched, self.found, self.outcome, self.stopped,
                         self.unknown_reason, units, only_main, time_limit_note(self),
                         tuple(st.label(o) for st in self.schedule.stages[: len(self.within_bound)]),
                         self.vacuous, self.unprovable)

    def ranked(self, repairs: list[Repair]) -> list[Repair]:
        """``repairs`` of this run (in the order found) in rank order
        (:class:`~crepair.schemes.ranking.RepairRanking`)."""
        from crepair.schemes.ranking import RepairRanking

        return RepairRanking(self.program, self.options.entry).rank(repairs)

    def __iter__(self) -> "RepairRun":
        return self

    def __next__(self) -> Repair:
        return next(self._iter)

    def close(self) -> None:
        """Stop the search; the outcome says what was covered."""
        self._iter.close()
        if self.stopped == StopReason.NOT_STARTED and self.searched:
            self.stopped = StopReason.CALLER
