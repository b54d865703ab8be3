"""The checks of the staged run against a reference (see
:mod:`crepair.schemes.staged`): a candidate program's concrete runs on the
suite, and the bounded equivalence check whose counterexamples become
tests.  Every program is written and built in a temporary folder beside
copies of the user's headers; the user's files are only read.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from crepair.bmc import VerifyOutcome
from crepair.errors import BadInput
from crepair.frontend import load_program
from crepair.frontend.source import read_source
from crepair.oracle import ReferenceProgram, stdin_of
from crepair.oracle.cache import question_of
from crepair.oracle.reference import Run, compile_c, dirty_stack_flags, run_binary
from crepair.oracle.suite import HeldBack, Suite
from crepair.options import ReferenceOptions
from crepair.schemes.staged_options import deeper_bounds
from crepair.schemes.staged_suite import GENERATION_SHARE
from crepair.schemes.time_limit import Deadline
from crepair.testsuite.spec import Comparison
from crepair.toolchain.child import ChildCall

BESIDE_NICE = 10  # niceness increment of a bounded check run beside the search
RUN_SECONDS = 0.25  # a patch's run on one test of the suite (the original runs in milliseconds)
CONFIRM_CHUNK = 16  # held-back inputs run at once before looking for one that refutes the patch
DEEPENED = frozenset({"loop", "recursion", "string", "qsort"})  # cuts (Cut.what) that a larger unwinding bound moves


def deepens(result) -> bool:
    """Whether the bounded check ``result`` (a VerifyResult or None) is cut
    off by the unwinding bound itself — a loop, a recursion, a string or a
    qsort longer than it — so that a larger bound may take every run.  A
    cut of another kind (float input tried at integer values only, pow, a
    printed infinity) stays at every bound, and deepening only costs time."""
    cut = None if result is None else result.bound.cut
    return cut is not None and cut.what in DEEPENED


@dataclass(frozen=True, slots=True)
class ReferenceBound:
    """The reference's own bounded check (:func:`reference_bound`):
    ``unwind``, the first bound every run fits (else the first tried);
    ``too_small`` at that bound (True: runs go beyond it; None: not
    decided); ``cut``: what cuts runs off at the first bound, and where in
    the reference (``(what, line, column)``, 1-based; None: nothing, or not
    known); ``tried``: checks run; ``complete``: every check decided and
    none was cut short by the time left — the answer does not depend on the
    time the check had, and may be kept (:class:`~crepair.oracle.cache.ReferenceCache`)."""

    unwind: int
    too_small: bool | None
    cut: tuple[str, int, int] | None
    tried: int
    complete: bool

    def to_json(self) -> bytes:
        return json.dumps([self.unwind, self.too_small, self.cut, self.tried]).encode()

    @staticmethod
    def from_json(data: bytes) -> "ReferenceBound":
        unwind, too_small, cut, tried = json.loads(data)
        return ReferenceBound(unwind, too_small, None if cut is None else tuple(cut), tried, True)


def reference_bound(path: Path, unwinds: tuple[int, ...], seconds: float, reference: ReferenceOptions,
                    solver: str) -> ReferenceBound:
    """The reference's own bounded check (its text at ``path``, checked for
    equivalence with itself, proof only) at ``unwinds[0]`` within
    ``seconds``, then, while it is cut off by a cut a larger bound moves
    (:func:`deepens`), at the larger ``unwinds`` in turn within ``seconds``
    more: the first bound every run fits and its check, or ``unwinds[0]``
    and its check when none does.  Runs in a child of the staged run (it
    is the child's whole work)."""
    from crepair.api import verify

    first, tried, until, complete = None, 0, time.monotonic() + seconds, True
    for unwind in unwinds:
        left = until - time.monotonic()
        if left < 0.5:
            complete = False
            break
        result = verify(path, unwind=unwind, timeout=left, reference=reference, proof_only=True, solver=solver)
        tried += 1
        complete = complete and result.bound.too_small is not None
        if first is None:
            first, until = result, time.monotonic() + seconds
        if result.bound.too_small is False or first.bound.too_small is None:  # fits; or unknown at the first bound
            return _bound(unwind, result, tried, complete)
        if not deepens(result):
            break
    return _bound(unwinds[0], first, tried, complete)


def _bound(unwind: int, result, tried: int, complete: bool) -> ReferenceBound:
    cut = result.bound.cut if result.bound.too_small else None
    where = None if cut is None else (cut.what, cut.span.line, cut.span.column)
    return ReferenceBound(unwind, result.bound.too_small, where, tried, complete)


def checked_source(path: Path) -> str:
    """The text of the C file at ``path``, parsed once as the test-driven
    search parses it (real C), so that a file the search cannot take fails
    before anything is printed.  Raises ``BadInput`` (one line naming
    file:line:col) for a file that cannot be read or parsed."""
    text = read_source(path)
    load_program(path, text=text, real_c=True)
    return text


class CandidateChecks:
    """Checks of texts of the program at ``path`` against ``reference``
    (built as ``oracle``), outputs compared as ``compare`` says, bounded
    checks at unwinding bound ``unwind``; work in the folder ``tmp``.
    Counts the bounded checks it starts in ``stats.proofs`` and says what
    could not be run in ``stats.notes`` (the run's
    :class:`~crepair.schemes.staged.StagedStats`).  ``deadline``: the
    run's :class:`~crepair.schemes.time_limit.Deadline`, which caps every
    build and run."""

    def __init__(self, path: Path, reference: ReferenceOptions, oracle: ReferenceProgram, compare: Comparison,
                 unwind: int, tmp: Path, stats, deadline: Deadline = Deadline(), solver: str = "z3"):
        self.deadline, self.solver = deadline, solver
        self.path, self.reference, self.oracle = path, reference, oracle
        self.compare, self.unwind, self.tmp = compare, unwind, tmp
        self.stats = stats
        self._failed: dict[str, int] = {}  # test id -> patches it refuted
        self.refuting: list[str] = []  # the tests the last :meth:`failures` saw fail, in the order run
        self.unanswered = False  # the last bounded check did not answer in time
        self.undecided = False  # the last proof ended without an answer: unknown, or out of time
        self.cut: str | None = None  # what cuts the reference's runs off and where, once reference_cut_off found it
        self._reference_check: tuple[Path, ChildCall, float] | None = None  # started, not asked for yet
        self._kept: ReferenceBound | None = None  # the reference's check as the cache keeps it
        self._kept_read = False  # whether the cache was asked for it
        self._last: tuple[str, Path | None] | None = None  # the text :meth:`failures` built last, its binary
        self._cflags: tuple[str, ...] | None = None  # dirty_stack_flags, once built

    def same(self, a: bytes, b: bytes) -> bool:
        """Whether outputs ``a`` and ``b`` are equal under the comparison."""
        return self.compare.normalize(a) == self.compare.normalize(b)

    def passes(self, run: Run, expected: bytes) -> bool:
        """Whether ``run`` ended by itself (:attr:`Run.ended`) printing
        ``expected``: one that prints it, then hangs or crashes, fails (as in the search)."""
        return run.ended and self.same(run.output, expected)

    def copy(self, text: str) -> Path:
        """A fresh folder holding ``text`` under the program's name beside
        copies of the headers of its folder; returns the program's path."""
        folder = Path(tempfile.mkdtemp(dir=self.tmp))
        for header in self.path.resolve().parent.glob("*.h"):
            shutil.copy2(header, folder / header.name)
        program = folder / self.path.name
        program.write_text(text, errors="surrogateescape")
        return program

    @property
    def cflags(self) -> tuple[str, ...]:
        """The gcc arguments of every build of a candidate in this run (and
        of the search's: ``TestRepairOptions.cflags``): ``main`` called on a
        dirtied stack (:func:`~crepair.oracle.reference.dirty_stack_flags`),
        as the reference's answers are valid under — a program that reads a
        local before writing it fails the tests it passed on a fresh stack
        by chance."""
        if self._cflags is None:
            self._cflags = dirty_stack_flags(self.tmp, timeout=self.deadline.cap(60.0))
        return self._cflags

    def build(self, text: str) -> Path | None:
        """``text`` compiled normally, :attr:`cflags` added (None: it does not compile)."""
        program = self.copy(text)
        binary = program.parent / "prog"
        error = compile_c(program, binary, self.cflags, timeout=self.deadline.cap(60.0))
        return None if error is not None else binary

    def runs(self, text: str, inputs: list[bytes]) -> list[Run] | None:
        """The runs of ``text`` built normally on ``inputs`` (None: it does not compile)."""
        binary = self.build(text)
        if binary is None:
            return None
        return [run_binary(binary, stdin, timeout=self.deadline.cap(RUN_SECONDS)) for stdin in inputs]

    def outputs(self, text: str, inputs: list[bytes]) -> list[bytes] | None:
        """The outputs of :meth:`runs` (what was printed, however the run ended)."""
        runs = self.runs(text, inputs)
        return None if runs is None else [run.output for run in runs]

    def failures(self, text: str, suite: Suite, enough: int | None = None) -> int:
        """How many tests of ``suite`` ``text`` fails when built normally;
        counting stops past ``enough`` (None: counts all).  Tests that
        refuted earlier patches run first; the tests that failed are in
        ``refuting``."""
        ids = sorted(suite.ids, key=lambda t: -self._failed.get(t, 0))
        self.refuting = []
        binary = self.build(text)
        self._last = (text, binary)
        if binary is None:
            return len(ids)
        failed = 0
        for t in ids:
            if self.deadline.passed():
                return max(failed, 1)  # not all run: never "passes every test"
            if not self.passes(run_binary(binary, suite.stdin(t), timeout=self.deadline.cap(RUN_SECONDS)),
                               suite.expected(t)):
                failed += 1
                self.refuting.append(t)
                self._failed[t] = self._failed.get(t, 0) + 1
                if enough is not None and failed > enough:
                    break
        if self.deadline.passed():
            return max(failed, 1)  # a run cut short by the deadline: never "passes every test"
        return failed

    def confirm(self, text: str, held: HeldBack, suite: Suite) -> tuple[int, str | None]:
        """Runs ``text`` (built normally) on the held-back inputs ``held``,
        :data:`CONFIRM_CHUNK` at a time, until one refutes it; returns (how
        many it answered as the reference's plain build does, None), or
        (that many, the id of the test just added to ``suite``): the first
        input on which it answers differently and that is a valid test
        (:meth:`ReferenceProgram.expected`), with the reference's output.
        An input found not valid is dropped from ``held``, as is one that
        joins the suite.  Inputs not run when the deadline passes are not
        counted."""
        if held.outputs is None:  # at most a share of the time left, as the suite's generated inputs
            held.outputs = self.oracle.plain_all(held.inputs, self.deadline.share(GENERATION_SHARE).at)
        binary = self._last[1] if self._last is not None and self._last[0] == text else self.build(text)
        if binary is None:
            return 0, None
        run = partial(self._output, binary)
        agreed, live = 0, held.live()
        with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
            for at in range(0, len(live), CONFIRM_CHUNK):
                chunk = live[at:at + CONFIRM_CHUNK]
                for i, out in zip(chunk, pool.map(run, [held.inputs[i] for i in chunk])):
                    if out is None:  # the deadline passed
                        return agreed, None
                    if self.passes(out, held.outputs[i]):
                        agreed += 1
                        continue
                    held.dropped.add(i)
                    expected = self.oracle.expected(held.inputs[i])
                    if expected is not None and not self.passes(out, expected):
                        return agreed, suite.add("generated", held.inputs[i], expected)
        return agreed, None

    def _output(self, binary: Path, stdin: bytes) -> Run | None:
        """``binary``'s run on ``stdin`` (None: the deadline passed); a
        run past :data:`RUN_SECONDS` runs again with the reference's own
        time limit (a busy machine, or an input the reference is slow on too)."""
        for seconds in (RUN_SECONDS, self.oracle.timeout):
            if self.deadline.passed():
                return None
            run = run_binary(binary, stdin, timeout=self.deadline.cap(seconds))
            if run.code is not None:
                break
        return None if self.deadline.passed() else run

    def verify(self, text: str, seconds: float, proof_only: bool = False):
        """The bounded equivalence check of ``text`` within ``seconds`` (a
        :class:`~crepair.bmc.VerifyResult`; None when the engine cannot take
        the program, said in ``stats.notes``, or did not answer in time);
        ``proof_only``: no violation is looked for when the bound cuts off
        runs (:func:`crepair.bmc.verify_program`).
        It runs in a forked child killed at the limit
        (:class:`crepair.toolchain.child.ChildCall`): z3 does not always
        answer its own interrupt (floating-point formulas)."""
        return self._answer(*self._start(text, seconds, proof_only), seconds)

    def _start(self, text: str, seconds: float, proof_only: bool, nice: int = 0) -> tuple[Path, ChildCall]:
        """The bounded check of :meth:`verify`, started in a child (at
        niceness ``nice`` more than this process): (the checked copy, the
        call)."""
        from crepair.api import verify

        target = self.copy(text)
        self.stats.proofs += 1
        return target, ChildCall(partial(verify, target, unwind=self.unwind, timeout=seconds, reference=self.reference,
                                         proof_only=proof_only, solver=self.solver), nice=nice)

    def _answer(self, target: Path, call: ChildCall, seconds: float):
        """The result of the check ``call`` of ``target`` started by
        :meth:`_start` with ``seconds``: waits until then at most."""
        self.unanswered = False
        try:
            done, result = call.result(seconds - (time.monotonic() - call.started))
        except BadInput as exc:  # named in the user's file, not in the scratch copy checked
            self.stats.notes.append(f"bounded check not run: {str(exc).replace(str(target), str(self.path))}")
            return None
        self.unanswered = not done
        return result

    def start_reference_check(self, seconds: float) -> None:
        """Starts :meth:`reference_cut_off`'s check now, in a child, within
        ``seconds`` (and as long again for the deeper bounds): it runs
        beside the search, and the first plausible patch finds its answer
        ready.  It runs at a lower priority (:data:`BESIDE_NICE`): the
        search's runs of candidates on the tests have time-outs of a
        quarter second, which a busy processor made them miss.  Nothing is
        started when the oracle's cache keeps the answer."""
        self.cancel_reference_check()
        if self._kept_bound() is None:
            self._reference_check = self._start_reference(seconds, nice=BESIDE_NICE)

    def _bound_question(self) -> bytes:
        """The question of :meth:`reference_cut_off` in the oracle's cache:
        the bounds tried, the input bound and the solver."""
        unwinds = (self.unwind, *deeper_bounds(self.unwind))
        return question_of(repr(unwinds), str(self.reference.input_bound), self.solver)

    def _kept_bound(self) -> ReferenceBound | None:
        """The reference's bounded check as the oracle's cache keeps it (None: not kept; looked up once)."""
        cache = self.oracle.cache
        if not self._kept_read:
            self._kept_read = True
            found, data = cache.get("bound", self._bound_question()) if cache else (False, None)
            try:
                self._kept = ReferenceBound.from_json(data) if found and data else None
            except (ValueError, TypeError):
                self._kept = None
        return self._kept

    def _start_reference(self, seconds: float, nice: int = 0) -> tuple[Path, ChildCall, float]:
        """:func:`reference_bound` of the reference started in a child, with
        ``seconds`` for the check at ``unwind`` and as many again for the
        deeper ones: (the checked copy, the call, its seconds)."""
        target = self.copy(read_source(Path(self.reference.path)))
        unwinds = (self.unwind, *deeper_bounds(self.unwind))
        call = ChildCall(partial(reference_bound, target, unwinds, seconds, self.reference, self.solver), nice=nice)
        return target, call, self.deadline.cap(2 * seconds + 1.0)

    def cancel_reference_check(self) -> None:
        """Kills a reference check started and not asked for (none: nothing)."""
        if self._reference_check is not None:
            self._reference_check[1].cancel()
            self._reference_check = None

    def reference_cut_off(self, seconds: float) -> bool:
        """Whether runs of the reference itself go beyond the unwinding bound
        (within its input bound): then no candidate can be proved equivalent
        at this bound, whatever its code (checked within ``seconds``, or the
        check :meth:`start_reference_check` started, within its own
        seconds; False when the check does not answer; the answer the
        oracle's cache keeps, when it keeps one).  When they do, the
        larger bounds of :func:`~crepair.schemes.staged_options.deeper_bounds`
        are tried (:func:`reference_bound`), and the first that every run of
        the reference fits becomes
        ``unwind``: a loop of a constant ten iterations is proved, and its
        candidates refuted, only at bound ten (Codeflaws 143-A: a patch
        that skips the first solution fails only on runs of ten iterations).
        ``cut`` becomes what cuts the reference's runs off and where
        ("loop at ref.c:19:5"; None: they are not, or it is not known)."""
        question, bound = self._bound_question(), self._kept_bound()
        if bound is None:
            started, self._reference_check = self._reference_check or self._start_reference(seconds), None
            bound = self._answer(*started)  # None: killed at its limit
            self.stats.proofs += 1 if bound is None else bound.tried
            if bound is not None and bound.complete and self.oracle.cache is not None:
                self.oracle.cache.put("bound", question, bound.to_json())
                self.oracle.cache.flush()
        if bound is None:
            return False
        cut = bool(bound.too_small)
        if not cut:
            self.unwind = bound.unwind
        what, line, column = bound.cut or (None, 0, 0)
        self.cut = None if what is None else f"{what} at {self.reference.path}:{line}:{column}"
        return cut

    def prove(self, text: str, seconds: float, suite: Suite) -> tuple[bool, str | None]:
        """The bounded equivalence check of ``text`` within ``seconds``:
        (True, None) when it proves equivalence within the bound; (False,
        None) when its counterexample reproduces concretely — the test is
        added to ``suite`` as a counterexample and counted; else (False,
        why it is not proved), counted as undecided."""
        result = self.verify(text, seconds, proof_only=True)
        if result is not None and result.outcome == VerifyOutcome.VERIFIED and result.bound.too_small is False:
            return True, None
        test = self.test_of(result, text) if result is not None else None
        if test is not None:
            suite.add("counterexample", *test)
            self.stats.counterexamples += 1
            return False, None
        self.stats.undecided += 1
        self.undecided = result is None and self.unanswered or (result is not None and not result.bound.too_small
                                                               and result.outcome == VerifyOutcome.UNKNOWN)
        if result is None:
            return False, ("bounded check unknown (time limit; stopped)" if self.unanswered
                           else "the bounded check could not take the program")
        if result.bound.too_small:  # BOUND_TOO_SMALL, or UNKNOWN at once (proof_only): out of reach at this bound
            return False, f"runs go beyond unwinding bound {self.unwind}"
        if result.outcome == VerifyOutcome.UNKNOWN:
            return False, f"bounded check unknown ({result.reason or 'time limit'})"
        return False, "the bounded check's counterexample does not reproduce when run"  # VIOLATED

    def test_of(self, result, text: str) -> tuple[bytes, bytes] | None:
        """The counterexample of the bounded check ``result`` as a test
        (standard input, the reference's output) when ``text`` really
        prints something else on it; None when there is none, the
        reference's run on it is not valid, or it does not reproduce."""
        if result is None or result.counterexample is None:
            return None
        stdin = stdin_of(result.counterexample, Path(self.reference.path).name)
        expected = None if stdin is None else self.oracle.expected(stdin)
        if expected is None:
            return None
        got = self.runs(text, [stdin])
        if got is None or self.deadline.passed() or self.passes(got[0], expected):
            return None  # the model's run does not reproduce: not a test
        return stdin, expected
