"""The verbs whose specification is checked by running programs: tests
(f1x's driver contract or stdin/stdout folders), a reference's concrete
runs (the staged run), heap states under gdb.  Re-exported by
:mod:`crepair.api`."""

from __future__ import annotations

import time
from pathlib import Path

from crepair.errors import UsageError
from crepair.options import AUTO_SOLVER, DEFAULT_UNWIND, ReferenceOptions, _enum, at_least, solver_of


def localize_tests(
    path: str | Path,
    *,
    driver: str | Path | None = None,
    test_ids: tuple[str, ...] | list[str] = (),
    tests_dir: str | Path | None = None,
    build: str | None = None,
    project: str | Path | None = None,
    test_timeout_ms: int | None = None,
    formula: str = "ochiai",
    compare: str = "trailing-whitespace",
):
    """Spectrum-based localization of the C file at ``path`` by its tests.

    The tests are a driver (``driver`` + ``test_ids``, f1x's contract:
    ``DRIVER ID`` exits 0 on a pass) or a folder of ``input-X``/``output-X``
    or ``X.in``/``X.out`` pairs (``tests_dir``, optionally restricted to
    ``test_ids``; outputs compared as ``compare`` says: ``exact``,
    ``trailing-whitespace``, ``lines`` or ``tokens``); see
    :func:`crepair.testsuite.load_tests` for ``build`` and ``project``.
    A copy of the project is built with gcov coverage, every test runs (at
    most ``test_timeout_ms`` milliseconds each, default 1000), and the
    lines executed by every failing test are ranked by ``formula``
    (``ochiai``, ``tarantula`` or ``dstar``; Abreu et al. 2007, Jones &
    Harrold 2005, Wong et al. 2014).  Returns a
    :class:`~crepair.localization.spectrum.SpectrumResult`, whose ranking is
    empty when no test fails.  Raises ``UsageError`` for bad options,
    ``BadInput`` for unreadable files or a failing build (with the
    compiler's first error), ``MissingTool`` without gcc, make or gcov.
    The project directory is only read.
    """
    from crepair.frontend.source import read_source
    from crepair.localization.spectrum import Formula, localize_spectrum
    from crepair.testsuite import collect_spectrum

    formula = _enum(Formula, formula, "formula")
    start = time.monotonic()
    original = read_source(path)
    spec, timeout_ms = _tests(path, driver, test_ids, tests_dir, build, project, test_timeout_ms, compare)
    spectrum = collect_spectrum(spec, timeout_ms=timeout_ms)
    return localize_spectrum(spectrum, str(path), original, formula, time.monotonic() - start)


def repair_tests(
    path: str | Path,
    *,
    driver: str | Path | None = None,
    test_ids: tuple[str, ...] | list[str] = (),
    tests_dir: str | Path | None = None,
    build: str | None = None,
    project: str | Path | None = None,
    test_timeout_ms: int | None = None,
    timeout: float | None = 300.0,
    partition: bool = True,
    all: bool = False,
    max_repairs: int | None = None,
    lines: frozenset[int] | None = None,
    formula: str = "ochiai",
    files: tuple[str | Path, ...] | list[str | Path] = (),
    localize_files: bool = False,
    max_files: int | None = None,
    compare: str = "trailing-whitespace",
    anti_patterns: str = "all",
    rank: str = "distance",
    started: float | None = None,
):
    """Test-driven repair of the C file at ``path`` (f1x: Mechtaev et al.,
    TOSEM'18, Algorithm 3 with value-based test-equivalence).  ``files``:
    further C files of the project that may be changed (f1x's ``--files
    prog.c lib.c``); ``localize_files``: change the project's ``.c`` files
    the failing tests execute instead, the ``max_files`` (None: all) with
    the most suspicious lines.  Every file must lie in the project; a
    repair changes one of them (``Repair.file``).

    The tests (and ``compare``) are given as for :func:`localize_tests`.  Returns a
    :class:`~crepair.schemes.test_driven.TestDrivenRun`: iterate it for
    plausible :class:`~crepair.records.Repair` records, least cost first
    (the first is the optimum of the search space, Definition 4.2); its
    ``outcome`` is then final.  ``timeout``: seconds for the whole run
    (None: none) from the ``time.monotonic()`` instant ``started`` (None:
    the call); ``test_timeout_ms``: per test (default
    None: 20 times the original program's slowest test, 100 to 1000 ms,
    see :func:`~crepair.schemes.test_driven_options.auto_test_timeout`);
    ``partition=False``: the enumerative baseline (Algorithm 2); ``all``:
    explore the whole space and yield every plausible patch, else stop after
    ``max_repairs`` (default 1); ``lines``: only change these 1-based lines;
    ``formula``: ochiai, tarantula or dstar (``lines`` are the program's:
    ``path``); ``anti_patterns``: ``"all"`` (default), ``"none"`` or
    comma-separated rule numbers (``"A1,C1"``) of the anti-patterns whose
    candidates are left out (Tan et al., FSE'16,
    :mod:`crepair.testequiv.antipatterns`); ``rank``: ``"distance"`` (default:
    the patches least semantic distance from the original first, after a
    bounded extra search in first-patch mode) or ``"cost"`` (f1x's order,
    streamed; :mod:`crepair.schemes.semantic_ranking`).  Raises ``UsageError`` for bad
    options, ``BadInput`` for files crepair cannot read or a project that
    does not build, ``MissingTool`` without gcc, make or gcov.  The project
    directory is only read; all work happens in copies.
    """
    from crepair.localization.spectrum import Formula
    from crepair.schemes.semantic_ranking import Ranking
    from crepair.schemes.test_driven import TestDrivenRun
    from crepair.schemes.test_driven_options import TestRepairOptions
    from crepair.testequiv.antipatterns import anti_pattern_rules

    formula = _enum(Formula, formula, "formula").value
    if max_repairs is not None:
        at_least("--max-repairs", max_repairs, 1)
    if max_files is not None:
        at_least("--localize-files", max_files, 1)
    if files and localize_files:
        raise UsageError("give the files to change, or --localize-files to find them, not both")
    spec, _ = _tests(path, driver, test_ids, tests_dir, build, project, test_timeout_ms, compare)
    options = TestRepairOptions(timeout=timeout, test_timeout=test_timeout_ms, partition=partition, all=all,
                                max_repairs=1 if max_repairs is None else max_repairs, lines=lines,
                                formula=formula, localize_files=localize_files, max_files=max_files,
                                anti_patterns=anti_pattern_rules(anti_patterns),
                                rank=_enum(Ranking, rank, "rank"), started=started)
    return TestDrivenRun(path, spec, options, files=tuple(files))


def repair_reference(
    path: str | Path,
    reference: str | Path | ReferenceOptions,
    *,
    tests_dir: str | Path | None = None,
    compare: str = "trailing-whitespace",
    timeout: float | None = 60.0,
    unwind: int = DEFAULT_UNWIND,
    input_bound: int | None = None,
    generated: int | None = None,
    max_repairs: int | None = 1,
    test_timeout_ms: int | None = None,
    started: float | None = None,
    solver: str = AUTO_SOLVER,
    cache: str | Path | None = None,
):
    """Repair the C file at ``path`` against the reference implementation
    ``reference`` (its ``main``, on standard input and output), with the
    optional folder of tests ``tests_dir``, checked in stages: the given
    tests, ``generated`` inputs mutated from them (default 60) with the
    reference's outputs, counterexamples of the bounded check as tests,
    and a bounded equivalence proof (``unwind``, ``input_bound``) last.
    Candidates come from the test-driven search space (f1x, TOSEM'18), one
    to four locations (a round of search each).  Returns a :class:`~crepair.schemes.staged.StagedRun`:
    iterate it for :class:`~crepair.records.Repair` records whose
    ``evidence`` is an :class:`~crepair.records.EquivalenceProof` or a
    :class:`~crepair.records.PassesSuite`, proved ones first.
    ``timeout`` in seconds (None: none), from the ``time.monotonic()``
    instant ``started`` (None: the call); ``max_repairs``: stop after that
    many proved repairs (None: explore everything); ``solver``: the SMT
    solver of the bounded checks ("z3", "bitwuzla", "portfolio"; "auto":
    Bitwuzla, as for :func:`crepair.api.verify` with a reference);
    ``cache``: the folder where the reference's outputs and its own
    bounded check are kept for later runs against the same reference
    (:mod:`crepair.oracle.cache`; None: nowhere).  Raises ``UsageError``,
    ``BadInput`` (a program does not compile), ``MissingTool`` (gcc).
    """
    from crepair.schemes.staged import StagedOptions, StagedRun
    from crepair.schemes.staged_options import DEFAULT_GENERATED
    from crepair.testsuite.spec import Comparison

    at_least("--unwind", unwind, 0)
    if max_repairs is not None:
        at_least("--max-repairs", max_repairs, 1)
    ref = ReferenceOptions.of(reference, (), (), input_bound)
    try:
        how = Comparison(compare)
    except ValueError:
        raise UsageError(f"--compare {compare}: not one of {', '.join(c.value for c in Comparison)}") from None
    options = StagedOptions(timeout=timeout, compare=how, unwind=unwind, max_repairs=max_repairs,
                            generated=DEFAULT_GENERATED if generated is None else generated,
                            test_timeout=test_timeout_ms, started=started,
                            solver=solver_of(solver, equivalence=True), cache=None if cache is None else str(cache))
    return StagedRun(path, ref, options, tests_dir=tests_dir)


def _tests(path, driver, test_ids, tests_dir, build, project, test_timeout_ms, compare="trailing-whitespace"):
    """The test specification (``crepair.testsuite.load_tests``) and the
    per-test limit in milliseconds (default 1000) of a tests verb."""
    from crepair.testsuite import DEFAULT_TEST_TIMEOUT_MS, load_tests

    timeout_ms = DEFAULT_TEST_TIMEOUT_MS if test_timeout_ms is None else test_timeout_ms
    at_least("--test-timeout", timeout_ms, 1)
    spec = load_tests(path, driver=driver, test_ids=test_ids, tests_dir=tests_dir, build=build, project=project,
                      compare=compare)
    return spec, timeout_ms


def _heap_options(function, states, states_from, loop_states, **fields):
    """The :class:`~crepair.schemes.heap.HeapOptions` of a heap verb: the
    function under repair defaults to the states file's."""
    from crepair.schemes.heap import HeapOptions

    if states is not None and states_from is not None:
        raise UsageError("--states and --states-from: give one specification")
    if function is None and states is not None:
        from crepair.heap.states import load_spec

        function = load_spec(states).function
    if function is None:
        raise UsageError("heap states from a correct program need the function under repair (--checkpoints F)")
    return HeapOptions(function, None if states is None else str(states),
                       None if states_from is None else str(states_from), loop_states, **fields).check()


def repair_heap(
    path: str | Path,
    *,
    function: str | None = None,
    states: str | Path | None = None,
    states_from: str | Path | None = None,
    loop_states: bool = False,
    insert_slots: int | None = None,
    localization: bool = True,
    tries: int = 10,
    candidates: int = 10,
    max_repairs: int = 1,
    timeout: float | None = 120.0,
    started: float | None = None,
    on_widen=None,
):
    """Heap repair (Wolverine2, Verma & Roy: Algorithm 2 localizes,
    Algorithm 1 repairs) of ``function`` in the C file at ``path`` against
    program states: a states file ``states`` (``function`` defaults to
    its), or the run of the correct program ``states_from`` under gdb (its
    states at each call's entry and exit, and with ``loop_states`` at every
    loop head).  ``insert_slots``: statements a repair may insert (None:
    0, then 1, ... up to :data:`~crepair.schemes.heap_run.AUTO_SLOTS` while
    none repairs; ``on_widen(previous, next)`` is told of each widening);
    ``localization``: lock the statements Algorithm 2 clears; ``tries``:
    solver calls of Algorithm 1; ``candidates``: repairs re-checked at
    most; ``max_repairs``; ``timeout``: seconds of the whole run (None:
    none), counted from the ``time.monotonic()`` instant ``started``
    (None: now).  Returns a :class:`~crepair.schemes.heap_run.HeapRun`: iterate
    it for repairs, each compiled and run under gdb against the states;
    its ``record()`` is what :mod:`crepair.report.heap` renders.  Raises
    ``UsageError`` for bad options, ``BadInput`` for programs or states
    crepair cannot take, ``MissingTool`` without gcc or gdb.  The files
    are only read.
    """
    from crepair.schemes.heap_run import AUTO_SLOTS, HeapRun

    slots = tuple(range(AUTO_SLOTS + 1)) if insert_slots is None else (insert_slots,)
    options = _heap_options(function, states, states_from, loop_states, insert_slots=slots[0],
                            localization=localization, tries=tries, candidates=candidates, max_repairs=max_repairs,
                            timeout=timeout, started=time.monotonic() if started is None else started)
    return HeapRun(path, options, slots, on_widen)


def localize_gradient(
    path: str | Path,
    *,
    function: str | None = None,
    states: str | Path | None = None,
    states_from: str | Path | None = None,
    loop_states: bool = False,
):
    """Wolverine2's Algorithm 2 (Verma & Roy, §5: the gradient of forward
    and backward state differences) on ``function`` of the C file at
    ``path``, against the program states given as for
    :func:`repair_heap`.  Returns a
    :class:`~crepair.localization.gradient.GradientResult` (the suspicious
    locations in source order; its ``as_json()`` is the report of
    ``crepair localize --method gradient --json``).  Raises as
    :func:`repair_heap` does.
    """
    from crepair.localization.gradient import localize_gradient as gradient

    return gradient(path, _heap_options(function, states, states_from, loop_states))
