"""Per-test line coverage of the program (the program spectrum), from gcov.

The outcome of each test comes from the program as the project builds it
(its own flags).  For the lines, the project copy is then rebuilt with
``--coverage -O0`` (through the compiler
wrapper's ``CREPAIR_CFLAGS``) and with a small header that writes the
coverage counters when the program dies of a signal; then, for each test,
every ``.gcda`` file is removed, the test runs, and gcov's JSON
(``gcov --json-format --stdout``, GCC ≥ 9) gives the lines of the
program's source file with a non-zero count (and of every other source
file of the project asked for: a spectrum may cover several files).

gcov counts only some arcs and derives the others by flow conservation, so
for a test whose program died of a signal (a crash, or crepair's SIGTERM
at the time limit) the counts of the function where it stopped are
estimates: lines there may be missing or extra.  Such a test's coverage is
marked not ``exact`` (the header's signal handler is itself counted, which
tells), as is a test stopped at its time limit, or one whose outcome
changes under the coverage flags (undefined behaviour, e.g. ``scanf("%d")``
into a ``char``).

Source of the spectrum's use: Jones & Harrold, ASE'05; Abreu, Zoeteweij,
van Gemund, PRDC'06/TAIC PART'07.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from crepair import toolchain
from crepair.errors import BadInput
from crepair.testsuite.runner import DEFAULT_TEST_TIMEOUT_MS, TestCounter, TestOutcome, run_test
from crepair.testsuite.spec import TestSpec

COVERAGE_FLAGS = ("--coverage", "-O0")
GRACE_MS = 200  # after a time-out, time for the program to write its counters
SLOWDOWN = 10  # a coverage run may take this many times as long as the test's plain run (or the limit)


@dataclass(frozen=True, slots=True)
class TestCoverage:
    """One test of a spectrum: its ``outcome``, the 1-based numbers of the
    program's lines it executed, and whether those are ``exact`` (False:
    the program died of a signal or hit the time limit, see above).
    ``files``: the lines executed in each file the spectrum covers (keys
    as :attr:`Spectrum.files`), the program's included; empty when the
    spectrum covers the program only.  ``seconds``: wall-clock time of the
    test's plain (not coverage) run; ``most``: the largest execution count
    of a line of a covered file in the coverage run (0: none executed)."""

    test: str
    outcome: TestOutcome
    lines: frozenset[int]
    exact: bool = True
    files: Mapping[str, frozenset[int]] = field(default_factory=dict, hash=False)
    seconds: float = 0.0
    most: int = 0

    @property
    def failed(self) -> bool:
        """Not passed: a failure or a time-out."""
        return self.outcome != TestOutcome.PASS


@dataclass(frozen=True, slots=True)
class Spectrum:
    """The program spectrum of ``program`` (relative to the project): one
    :class:`TestCoverage` per test, in the specification's order;
    ``build_seconds`` (both builds) and ``seconds`` (everything), wall clock.
    ``files``: the files covered (POSIX paths relative to the project, the
    program first); :meth:`of` gives the spectrum of one of them."""

    program: str
    tests: tuple[TestCoverage, ...]
    build_seconds: float
    seconds: float
    files: tuple[str, ...] = ()

    def of(self, file: str) -> "Spectrum":
        """The spectrum of ``file`` (one of :attr:`files`): the same tests,
        with that file's lines as ``lines``.  Raises ``KeyError`` for a
        file not covered."""
        if file == self.program and not self.files:
            return self
        if file not in self.files:
            raise KeyError(f"{file}: not covered by this spectrum (it covers {', '.join(self.files)})")
        tests = tuple(TestCoverage(t.test, t.outcome, t.files.get(file, frozenset()), t.exact, t.files, t.seconds,
                                   t.most) for t in self.tests)
        return Spectrum(file, tests, self.build_seconds, self.seconds, self.files)

    @property
    def failing(self) -> tuple[TestCoverage, ...]:
        return tuple(t for t in self.tests if t.failed)

    @property
    def passing(self) -> tuple[TestCoverage, ...]:
        return tuple(t for t in self.tests if not t.failed)


def collect_spectrum(spec: TestSpec, *, timeout_ms: int = DEFAULT_TEST_TIMEOUT_MS,
                     counter: TestCounter | None = None, files: Sequence[str] = (), deadline=None,
                     cflags: Sequence[str] = ()) -> Spectrum:
    """Run every test of ``spec`` (each at most ``timeout_ms``
    milliseconds) on a copy of the project as built, then on the copy built
    for coverage (which may take ``SLOWDOWN`` times as long), and return the
    spectrum of the program's file: the first run's outcomes, the second
    run's lines.  ``counter`` counts both runs.  ``files``: further source
    files (paths relative to the project) whose lines are collected too
    (:attr:`Spectrum.files`, :meth:`Spectrum.of`); a file the build does
    not compile with coverage has no lines.  ``deadline``: the run's
    :class:`~crepair.schemes.time_limit.Deadline` (None: none): every
    build and test run gets at most the time left, and once it has passed
    no more is run: the spectrum then lacks tests (the caller, who set the
    deadline, checks it).  ``cflags``: compiler arguments appended to both
    builds (:meth:`Workspace.build`).

    Raises ``BadInput`` when a build fails (the message is the compiler's
    first error line) and ``MissingTool`` when gcc, make or gcov is missing.
    The project directory is only read.
    """
    gcov = toolchain.find("gcov", "coverage needs gcov, which was not found: install gcc (gcov comes with it)")
    start = time.monotonic()
    program = spec.program.as_posix()

    def cut() -> bool:
        return deadline is not None and deadline.passed()

    def ms(limit: float) -> int:
        return round(limit) if deadline is None else deadline.cap_ms(round(limit))

    with spec.workspace() as ws:
        built = ws.build(cflags, timeout=None if deadline is None else deadline.cap(None))
        if cut():
            return Spectrum(program, (), built.seconds, time.monotonic() - start)
        if not built.ok:
            raise BadInput(f"the build failed: {built.first_error}")
        outcomes = {}
        for test_id in spec.ids:
            if cut():
                return Spectrum(program, (), built.seconds, time.monotonic() - start)
            outcomes[test_id] = run_test(spec, test_id, ws, timeout_ms=ms(timeout_ms), counter=counter)
        flags = (*COVERAGE_FLAGS, "-include", str(ws.gcov_flush_header), *cflags)
        covered = ws.build(flags, timeout=None if deadline is None else deadline.cap(None))
        if cut():
            return Spectrum(program, (), built.seconds + covered.seconds, time.monotonic() - start)
        if not covered.ok:
            raise BadInput(f"the coverage build (--coverage -O0) failed: {covered.first_error}")
        names = list(dict.fromkeys([program, *(PurePosixPath(f).as_posix() for f in files)]))
        sources = {os.path.realpath(ws.path(n)): n for n in names}
        tests = []
        for test_id in spec.ids:
            if cut():
                break
            for old in _gcda_files(ws.root):
                old.unlink()
            plain = outcomes[test_id]
            limit = timeout_ms
            if plain.outcome != TestOutcome.TIMEOUT:
                limit = max(timeout_ms, SLOWDOWN * plain.seconds * 1000)
            run = run_test(spec, test_id, ws, timeout_ms=ms(limit), counter=counter, grace_ms=GRACE_MS)
            found, killed, most = executed_lines_by_file(gcov, _gcda_files(ws.root), sources, str(ws.gcov_flush_header))
            outcome = plain.outcome
            exact = not killed and run.outcome == outcome != TestOutcome.TIMEOUT
            by_file = {n: found.get(n, frozenset()) for n in names} if len(names) > 1 else {}
            tests.append(TestCoverage(test_id, outcome, found.get(program, frozenset()), exact, by_file, plain.seconds,
                                      most))
    seconds = built.seconds + covered.seconds
    covers = tuple(names) if len(names) > 1 else ()
    return Spectrum(program, tuple(tests), seconds, time.monotonic() - start, covers)


def _gcda_files(root: Path) -> list[Path]:
    found = []
    for folder, _, names in os.walk(root):
        found.extend(Path(folder, n) for n in names if n.endswith(".gcda"))
    return sorted(found)


def executed_lines(gcov: str, gcda: list[Path], source: str, header: str = "") -> tuple[frozenset[int], bool]:
    """The 1-based lines of the file ``source`` (a real absolute path) with a
    non-zero count in the coverage data files ``gcda``, and whether the
    signal handler of the flush ``header`` ran.  Raises ``BadInput`` when
    gcov cannot read them."""
    found, killed, _ = executed_lines_by_file(gcov, gcda, {source: source}, header)
    return found.get(source, frozenset()), killed


def executed_lines_by_file(gcov: str, gcda: list[Path], sources: Mapping[str, str],
                           header: str = "") -> tuple[dict[str, frozenset[int]], bool, int]:
    """:func:`executed_lines` of several files: ``sources`` maps real
    absolute paths to names; the result maps the name of each file with an
    executed line to its lines; then whether the signal handler ran, and
    the largest execution count of a line of those files (0: none ran)."""
    lines: dict[str, set[int]] = {}
    killed = False
    most = 0
    header = os.path.realpath(header) if header else ""
    for data in gcda:
        proc = toolchain.run([gcov, "--json-format", "--stdout", data.name], cwd=data.parent)
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise BadInput(f"gcov could not read {data.name}: {message[0] if message else proc.returncode}")
        for text in proc.stdout.splitlines():
            if not text.strip():
                continue
            report = json.loads(text)
            base = report.get("current_working_directory", str(data.parent))
            for entry in report.get("files", ()):
                where = os.path.realpath(os.path.join(base, entry["file"]))
                if where in sources:
                    lines.setdefault(sources[where], set()).update(
                        line["line_number"] for line in entry["lines"] if line["count"] > 0)
                    most = max([most, *(line["count"] for line in entry["lines"])])
                elif where == header:
                    killed |= any(f["execution_count"] > 0 for f in entry.get("functions", ())
                                  if f["name"] == "__crepair_gcov_on_signal")
    return {name: frozenset(found) for name, found in lines.items()}, killed, most
