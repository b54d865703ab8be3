"""The heap scheme: Wolverine2's localize-then-repair as checked repairs.

Wolverine2 (Verma & Roy): the specification is program states
(:mod:`crepair.heap.states`), recorded by a person or, with
``states_from``, from a correct program run under gdb; Algorithm 2
(:mod:`crepair.heap.localize`) locks the statements it clears, Algorithm
1 (:mod:`crepair.heap.repair`) finds P̂, and every repair is re-checked
before it is reported: the patched text is compiled and run under gdb and
must reach every specified state (loop decisions forced where the trace
forced them, a session's ``enter``/``leave``).  A candidate that fails the
re-check is blocked and the search goes on.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from crepair.errors import BadInput, UsageError
from crepair.frontend import CProgram, load_program
from crepair.heap.build import build_function
from crepair.heap.execute import Run, check_against, decisions, record
from crepair.heap.repair import HeapOutcome, IRChange, repair_ir
from crepair.heap.reference import specification
from crepair.heap.states import Spec
from crepair.patch import apply_edits, unified_diff
from crepair.records import Change, Edit, Evidence, Repair, RepairOutcome, Scheme, StopReason, text_span
from crepair.schemes.base import SchemeStats, finish
from crepair.schemes.time_limit import Deadline
from crepair.solver import Limits

RECORD_SECONDS = 30.0  # a gdb run (compile and record) at most, and never past the deadline
CUT = "time limit reached during the re-check"  # why of a re-check the deadline cut short


@dataclass(frozen=True, slots=True)
class HeapOptions:
    """``function`` under repair; ``states`` (a states file) or
    ``states_from`` (a correct program whose run gives the states at each
    call's entry and exit, and at every loop head with ``loop_states``);
    ``insert_slots`` (N of Algorithm 1), ``localization`` (Algorithm 2 on),
    ``tries`` (widenings), ``candidates`` (repairs re-checked at most),
    ``max_repairs``, ``timeout`` (seconds, None: none) counted from the
    ``time.monotonic()`` instant ``started`` (None: the scheme's
    construction); every gdb run and compile gets at most the time left."""

    function: str
    states: str | None = None
    states_from: str | None = None
    loop_states: bool = False
    insert_slots: int = 0
    localization: bool = True
    tries: int = 10
    candidates: int = 10
    max_repairs: int = 1
    timeout: float | None = 120.0
    started: float | None = None

    def check(self) -> "HeapOptions":
        if (self.states is None) == (self.states_from is None):
            raise UsageError("the heap scheme needs exactly one of --states SPEC.json and --states-from CORRECT.c")
        if self.insert_slots < 0:
            raise UsageError("--insert-slots must be at least 0")
        if self.tries < 1 or self.candidates < 1 or self.max_repairs < 1:
            raise UsageError("--tries, the candidates and --max-repairs must be at least 1")
        return self


@dataclass(frozen=True, slots=True)
class MatchesStates(Evidence):
    """The patched program, compiled and run under gdb, reached every
    specified state: ``calls`` calls, ``events`` events; ``forced``: loop
    decisions were forced as the specification's trace forced them."""

    calls: int
    events: int
    forced: bool

    def describe(self) -> str:
        how = "; loop decisions forced as in the trace" if self.forced else ""
        return (f"checked: the patched program, compiled and run under gdb, matches every specified state "
                f"({self.calls} calls, {self.events} events{how})")


@dataclass(slots=True)
class HeapStats(SchemeStats):
    """Also: ``suspicious`` locations of Algorithm 2 (None: off), of
    ``locations``; ``widenings`` and bounds ``tau`` of the last Algorithm 1
    run; ``rejected``: candidates that failed the re-check."""

    locations: int = 0
    suspicious: list[int] | None = None
    widenings: int = 0
    tau: tuple[int, int, int] = (0, 0, 0)
    rejected: int = 0
    repair_seconds: float = 0.0
    localize_seconds: float = 0.0
    history: list = field(default_factory=list)


class HeapScheme:
    """Checked heap repairs of ``program`` (loaded with ``real_c``);
    ``spec`` given: instead of ``options.states``/``states_from``;
    ``rechecks``: a cache of re-checks (patched text -> failures) the
    caller may share between runs on the same specification."""

    def __init__(self, program: CProgram, options: HeapOptions, spec: Spec | None = None,
                 rechecks: dict | None = None):
        self.program, self.options = program, options.check()
        self.rechecks = {} if rechecks is None else rechecks  # patched text -> why it fails (the caller's to share)
        self.start = time.monotonic()
        self.deadline = Deadline.after(options.timeout, options.started)
        self.fn = build_function(program, options.function)
        self._cut = False  # the deadline passed while the correct program's states were recorded
        if spec is None:
            try:
                spec = specification(program, self.fn, options.states, options.states_from, options.loop_states,
                                     self.deadline.cap(RECORD_SECONDS))
            except UsageError:
                if not self.deadline.passed():
                    raise
                spec, self._cut = Spec(self.fn.name, ()), True
        self.spec = spec
        self.stats = HeapStats(Scheme.HEAP, locations=len(self.fn.instrs))

    def localize(self) -> frozenset[int]:
        """Locked locations: those Algorithm 2 does not find suspicious."""
        if not self.options.localization:
            return frozenset()
        from crepair.heap.localize import suspicious

        t = time.monotonic()
        found = suspicious(self.fn, self.spec)
        self.stats.localize_seconds = time.monotonic() - t
        self.stats.suspicious = sorted(found)
        return frozenset(i.index for i in self.fn.instrs if i.index not in found)

    def forced(self) -> dict[int, int] | None:
        """The loop decisions to force in the re-check (a trace that stops
        before the exit forced its loop iterations)."""
        if all(t[-1].at == "exit" for t in self.spec.traces):
            return None
        return decisions(self.spec, self.fn)

    def recheck(self, patched: str) -> list[str]:
        """Why the patched text fails the specification (empty: it passes)."""
        if patched not in self.rechecks:
            prog = load_program(self.program.path, text=patched, real_c=True)
            fn = build_function(prog, self.fn.name)
            try:
                run: Run = record(prog, fn, force=self.forced(), limit=self.spec.events,
                                  lines=[lp.line for lp in self.fn.loops()], calls=len(self.spec.traces),
                                  timeout=self.deadline.cap(RECORD_SECONDS))
            except BadInput:
                if not self.deadline.passed():
                    raise
                return [CUT]
            if run.crashed and run.error == "time-out" and self.deadline.passed():
                return [CUT]  # not kept: it says nothing of the candidate
            self.rechecks[patched] = check_against(self.spec, run)
        return self.rechecks[patched]

    def repairs(self) -> Iterator[Repair]:
        """Checked repairs; ``stats.seconds`` is then the time since the
        scheme started (the clock of each repair's ``seconds``), or, when it
        stopped at its last repair, that repair's time: one number."""
        self._stopped_at: float | None = None
        try:
            yield from self._repairs()
        finally:
            self.stats.seconds = self._stopped_at if self._stopped_at is not None else time.monotonic() - self.start

    def _repairs(self) -> Iterator[Repair]:
        o, st = self.options, self.stats
        if self._cut or self.deadline.passed():
            finish(st, RepairOutcome.UNKNOWN, StopReason.TIMEOUT,
                   "time-out" + (" while recording the correct program's states" if self._cut else ""))
            return
        locked = self.localize()
        limits = Limits(self.deadline.at)
        blocked: list[dict] = []
        found = 0
        for _ in range(o.candidates):
            if limits.expired():
                finish(st, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time-out")
                return
            t = time.monotonic()
            res = repair_ir(self.fn, self.spec, o.insert_slots, locked, o.tries, limits, self.program.original,
                            blocked)
            st.repair_seconds += time.monotonic() - t
            st.checks += res.checks
            st.widenings, st.tau = res.widenings, res.tau
            if res.outcome == HeapOutcome.ORIGINAL_CORRECT and not blocked:
                finish(st, RepairOutcome.ORIGINAL_CORRECT, StopReason.COMPLETE)
                return
            if res.outcome == HeapOutcome.UNKNOWN:  # a check cut by the deadline is the time limit's
                timed_out = limits.expired()
                finish(st, RepairOutcome.UNKNOWN, StopReason.TIMEOUT if timed_out else StopReason.UNKNOWN,
                       "time-out" if timed_out else res.reason)
                return
            if res.outcome != HeapOutcome.REPAIRED:
                break
            blocked.append(res.assignment)
            patched = apply_edits(self.program.original, [e for c in res.changes for e in c.edits])
            why = self.recheck(patched)
            if why == [CUT]:
                finish(st, RepairOutcome.UNKNOWN, StopReason.TIMEOUT, "time-out")
                return
            if why:
                st.rejected += 1
                st.history.append({"changes": [c.after for c in res.changes], "rejected": why[0]})
                continue
            found += 1
            st.repairs += 1
            rec = self.record_of(res.changes, patched)
            if found >= o.max_repairs:
                self._stopped_at = rec.seconds
                finish(st, RepairOutcome.REPAIRED, StopReason.MAX_REPAIRS)
            yield rec
            if found >= o.max_repairs:
                return
        finish(st, RepairOutcome.REPAIRED if found else RepairOutcome.NO_REPAIR, StopReason.COMPLETE)

    def record_of(self, changes: list[IRChange], patched: str) -> Repair:
        text, path = self.program.original, self.program.path
        out = []
        kinds = {"guard": "condition", "stmt": "statement", "delete": "deletion", "insert": "insertion"}
        for c in changes:
            edits = tuple(Edit(text_span(path, text, a, b), text[a:b], new) for a, b, new in c.edits)
            if c.kind == "insert":
                span = edits[0].span
            else:
                ins = self.fn.instrs[c.index - 1]
                span = ins.span
            out.append(Change(span, self.fn.name, kinds[c.kind], c.before, c.after, edits))
        forced = self.forced() is not None
        evidence = MatchesStates(len(self.spec.traces), self.spec.events, forced)
        return Repair(Scheme.HEAP, tuple(out), unified_diff(path, text, patched), patched,
                      time.monotonic() - self.start, evidence)
