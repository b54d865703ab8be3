"""Running one test of a built project copy, fast and with a hard time limit.

A test runs in its own session (process group), without a shell; when it
exceeds its time limit, or when it ends, the whole group is killed, so a
driver's children never outlive the test.  The wait is exact: the process
is watched through a pidfd (Linux ≥ 5.3), not polled.

Outcomes (f1x's driver contract, TOSEM'18): a driver's exit status 0 is
PASS, 124 is TIMEOUT (the ``timeout`` command's code), anything else FAIL.
A stdin/stdout test PASSES when the program was not killed by a signal and
its output equals the expected one up to trailing whitespace; its exit
status is not judged (Codeflaws' own scripts do not either).  TIMEOUT is
the unknown outcome: the test neither passed nor failed in time.
"""

from __future__ import annotations

import difflib
import enum
import os
import select
import signal
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from crepair import toolchain
from crepair.errors import MissingTool
from crepair.testsuite.spec import Comparison, Invocation, TestSpec
from crepair.testsuite.workspace import Workspace

DEFAULT_TEST_TIMEOUT_MS = 1000  # f1x's --test-timeout in its own test suite
OUTPUT_SLACK = 1 << 16  # bytes of output beyond the expected before a test is cut short as failing
EXACT_SLACK = 1 << 8  # the same under exact comparison: any byte beyond fails; these few still get a distance
TIMEOUT_EXIT = 124


class TestOutcome(enum.Enum):
    """The outcome of one test execution."""

    PASS = "pass"
    FAIL = "fail"
    TIMEOUT = "timeout"  # unknown: stopped at the time limit (or the driver said 124)


@dataclass(frozen=True, slots=True)
class TestRun:
    """One execution of ``test``: its ``outcome``, wall-clock ``seconds``,
    and ``exit_code`` (negative: killed by that signal; None: not started
    or killed by crepair); ``distance``: when asked for, the
    :func:`output_distance` of a FAILing run's output that ended normally
    from the expected output (None otherwise)."""

    test: str
    outcome: TestOutcome
    seconds: float
    exit_code: int | None
    distance: int | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == TestOutcome.PASS


class TestCounter:
    """Counts test executions (thread-safe); read ``executions``."""

    __slots__ = ("_n", "_lock")

    def __init__(self) -> None:
        self._n = 0
        self._lock = threading.Lock()

    def add(self, n: int = 1) -> None:
        with self._lock:
            self._n += n

    @property
    def executions(self) -> int:
        return self._n


def run_test(
    spec: TestSpec,
    test_id: str,
    root: str | os.PathLike | Workspace,
    *,
    timeout_ms: int = DEFAULT_TEST_TIMEOUT_MS,
    env: Mapping[str, str] | None = None,
    counter: TestCounter | None = None,
    grace_ms: int = 0,
    measure: bool = False,
) -> TestRun:
    """Run test ``test_id`` of ``spec`` in the built project copy at
    ``root`` (a path, or a :class:`~crepair.testsuite.workspace.Workspace`).

    ``timeout_ms``: the time limit in milliseconds (> 0); ``env``: variables
    added to the caller's environment (e.g. the meta-program's
    ``CREPAIR_*``); ``counter`` is incremented once; ``grace_ms``: on a
    time-out or an output cut short for its size (a loop that prints at
    end of input), time between SIGTERM and SIGKILL to the process group (0:
    SIGKILL at once; coverage runs give the program time to write its
    counters); ``measure``: give a failing run's ``distance``.  A program
    that cannot be started FAILS.  Raises
    ``KeyError`` for an id ``spec`` does not have (folder form).
    """
    inv = spec.invocation(test_id, root.root if isinstance(root, Workspace) else Path(root))
    environ = None if not env else {**os.environ, **env}
    if counter is not None:
        counter.add()
    start = time.monotonic()
    code, output, timed_out = _execute(inv, environ, timeout_ms / 1000, grace_ms / 1000)
    seconds = time.monotonic() - start
    if timed_out:
        outcome = TestOutcome.TIMEOUT
    elif inv.expected is None:
        outcome = {0: TestOutcome.PASS, TIMEOUT_EXIT: TestOutcome.TIMEOUT}.get(code, TestOutcome.FAIL)
    elif code is None or code < 0 or output is None:
        outcome = TestOutcome.FAIL
    else:
        got = inv.compare.normalize(output)
        outcome = TestOutcome.PASS if got == inv.expected else TestOutcome.FAIL
        if measure and outcome is TestOutcome.FAIL:  # ended normally, any status (not judged)
            return TestRun(test_id, outcome, seconds, code, output_distance(got, inv.expected))
    return TestRun(test_id, outcome, seconds, code)


def output_distance(got: bytes, expected: bytes) -> int:
    """The bytes to delete and insert to turn ``got`` into ``expected``
    (``len(got) + len(expected) - 2 * matched``, the matched bytes those
    of :class:`difflib.SequenceMatcher`'s blocks, no junk heuristic): 0 for
    equal outputs, 1 for a missing newline."""
    matcher = difflib.SequenceMatcher(None, got, expected, autojunk=False)
    return len(got) + len(expected) - 2 * sum(b.size for b in matcher.get_matching_blocks())


def output_slack(compare: Comparison) -> int:
    """Bytes a run may print beyond the expected output's length (in bytes)
    before it is cut short as failing: :data:`EXACT_SLACK` under exact
    comparison (a longer output can never pass; the margin keeps a near
    miss's distance), else :data:`OUTPUT_SLACK` (the expected output is
    stored normalized, the raw output may be longer by the whitespace the
    comparison ignores).  A program that prints in a loop at end of input is
    cut after that many bytes, not after 64 KiB."""
    return EXACT_SLACK if compare is Comparison.EXACT else OUTPUT_SLACK


def run_tests(spec: TestSpec, root: str | os.PathLike | Workspace, ids: Iterable[str] | None = None,
              **options) -> dict[str, TestRun]:
    """Run ``ids`` (default: all of ``spec.ids``) one after the other, with
    the keyword ``options`` of :func:`run_test`; a dict in the order run."""
    return {t: run_test(spec, t, root, **options) for t in (spec.ids if ids is None else ids)}


def _kill(pid: int, sig: int = signal.SIGKILL) -> None:
    toolchain.kill_group(pid, sig)


def _execute(inv: Invocation, env, timeout: float, grace: float) -> tuple[int | None, bytes | None, bool]:
    """(exit code, captured output or None, timed out) of ``inv``."""
    capture = inv.expected is not None
    try:
        stdin = os.open(inv.stdin, os.O_RDONLY) if inv.stdin else toolchain.DEVNULL
    except OSError:
        return None, None, False
    try:
        proc = toolchain.spawn(inv.argv, cwd=inv.cwd, env=env, stdin=stdin,
                               stdout=toolchain.PIPE if capture else toolchain.DEVNULL, stderr=toolchain.DEVNULL)
    except MissingTool:
        return None, None, False
    finally:
        if inv.stdin:
            os.close(stdin)
    limit = len(inv.expected) + output_slack(inv.compare) if capture else 0
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux ≥ 5.3
        return _execute_portable(proc, timeout, grace, capture)
    try:
        output, finished = _watch(proc, pidfd, timeout, limit)
        if finished:
            proc.wait()
            return proc.returncode, output if capture else None, False
        timed_out = output is not None  # None: cut short for too much output
        if grace > 0:  # either way SIGTERM first: a coverage build writes its counters (gcov-flush.h)
            _kill(proc.pid, signal.SIGTERM)
            select.select([pidfd], [], [], grace)
        _kill(proc.pid)
        proc.wait()
        return (None if timed_out else proc.returncode), None, timed_out
    finally:
        os.close(pidfd)
        if proc.stdout is not None:
            proc.stdout.close()


def _watch(proc: toolchain.Process, pidfd: int, timeout: float, limit: int) -> tuple[bytes | None, bool]:
    """Wait for the process, reading its output if piped: (output, exited
    in time); output None when it exceeded ``limit`` bytes.  When the
    process exits its group is killed, and the output read to its end."""
    deadline = time.monotonic() + timeout
    out = bytearray()
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    fd = proc.stdout.fileno() if proc.stdout is not None else -1
    if fd >= 0:
        poller.register(fd, select.POLLIN)
    exited, eof = False, fd < 0
    while not (exited and eof):
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(out), exited  # exited, but something outside its group holds the pipe: done
        for ready, _ in poller.poll(left * 1000):
            if ready == pidfd:
                exited = True
                poller.unregister(pidfd)
                _kill(proc.pid)  # leftovers of the group
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                eof = True
                poller.unregister(fd)
                continue
            out += chunk
            if len(out) > limit:
                return None, False
    return bytes(out), True


def _execute_portable(proc: toolchain.Process, timeout: float, grace: float, capture: bool):
    try:
        out, _ = proc.communicate(timeout=timeout)
    except toolchain.TimeoutExpired:
        if grace > 0:
            _kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(grace)
            except toolchain.TimeoutExpired:
                pass
        _kill(proc.pid)
        proc.communicate()
        return None, None, True
    _kill(proc.pid)
    return proc.returncode, out if capture else None, False
