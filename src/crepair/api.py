"""The Python API: the verbs ``crepair.verify``, ``crepair.localize`` and
``crepair.repair`` (the packages are nouns: ``bmc``, ``localization``,
``schemes``).

>>> import crepair
>>> for r in crepair.repair("prog.c", level=1):      # doctest: +SKIP
...     print(r.size, r.diff)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from crepair.bmc import ENCODING_TIMEOUT, VerifyOutcome, VerifyResult, check_bound, check_original, counterexample_of, verify_program
from crepair.encode import encode
from crepair.encode.formula import Checks, EncodingTimeout
from crepair.errors import UsageError
from crepair.frontend import load_program
from crepair.localization.diagnosis import Diagnoser, diagnose, failing_inputs, pin
from crepair.localization.must import DependencyGraph, fosfl
from crepair.localization.result import LocalizeResult
from crepair.mutation.operators import is_specification
from crepair.options import (
    DEFAULT_UNWIND, Component, Method, ReferenceOptions, RepairOptions, _enum, at_least, positive_seconds,
)
from crepair.records import BoundReport
from crepair.schemes.mutation import Progress
from crepair.schemes.run import RepairRun
from crepair.schemes.schedule import Schedule
from crepair.schemes.template_scheme import component_kinds
from crepair.solver import Limits, smt_solver
from crepair.solver.smt import Verdict


def _limits(timeout: float | None, rlimit: int | None = None) -> Limits:
    """The limits of a verify or localize call (``timeout`` 0 or None: none)."""
    if timeout == 0:
        timeout = None
    positive_seconds("--timeout", timeout)
    at_least("rlimit", rlimit, 1)
    return Limits.after(timeout, rlimit)


def _load(path: str | Path, entry: str, reference: ReferenceOptions | None):
    """The program to encode and its encoder entry: the file checked where
    ``entry`` reaches, or combined with the reference's harness."""
    if reference is None:
        return load_program(path, roots=(entry,)), entry
    from crepair.reference import load_with_reference

    program = load_with_reference(path, reference, entry=entry)
    return program, program.harness


def _shown_entry(entry: str, reference: ReferenceOptions | None) -> str:
    return entry if reference is None else f"{entry} against the reference {reference.path}"


def verify(
    path: str | Path,
    *,
    unwind: int = DEFAULT_UNWIND,
    entry: str = "main",
    timeout: float | None = None,
    rlimit: int | None = None,
    checks: Checks = Checks(),
    reference: str | Path | ReferenceOptions | None = None,
    init: tuple[str, ...] | list[str] = (),
    assume: tuple[str, ...] | list[str] = (),
    input_bound: int | None = None,
) -> VerifyResult:
    """Check the assertions of the C file at ``path`` up to bound ``unwind``.

    ``timeout`` in seconds (None: none); ``rlimit``: z3 resource units per
    check; ``checks``: the checks of undefined behaviour asserted besides
    the program's assertions (all by default; ``crepair.NO_CHECKS``: none).
    Only code reachable from ``entry`` is read.  With
    ``reference`` (a C file), the specification is equivalence with it
    instead (:mod:`crepair.reference`): ``init`` functions run first in
    both, each of ``assume`` (C expressions over the entry's parameters and
    the globals) is assumed on the initial state, ``input_bound`` elements
    of array inputs are inputs.  Raises ``BadInput``/``UnsupportedConstruct``
    for programs crepair cannot take, ``UsageError`` for bad options.  A VERIFIED
    outcome with ``result.bound.too_small`` true is vacuous beyond the bound.
    Source: Clarke, Kroening, Lerda, TACAS'04; AllRepair FM'16, Sect. 3.1.
    """
    at_least("--unwind", unwind, 0)
    limits = _limits(timeout, rlimit)
    ref = ReferenceOptions.of(reference, init, assume, input_bound)
    program, run_entry = _load(path, entry, ref)
    result = verify_program(program, unwind=unwind, entry=run_entry, limits=limits, checks=checks)
    return result if ref is None else dataclasses.replace(result, entry=_shown_entry(entry, ref))


def repair(
    path: str | Path,
    options: RepairOptions | None = None,
    *,
    progress: Callable[[Progress], None] | None = None,
    schedule: Schedule | None = None,
    **overrides,
) -> RepairRun:
    """All minimal checked repairs of the C file at ``path``, smallest first.

    ``options`` (or keyword ``overrides`` of its fields, e.g. ``level=2``,
    ``scheme="template"``, ``unwinding="assumptions"``) select the schemes
    and limits; ``reference=REF.c`` (with ``init``, ``assume``,
    ``input_bound`` as for :func:`verify`, or a ``ReferenceOptions``)
    repairs towards equivalence with a reference implementation (then
    ``main`` may change like any function).  ``schedule`` (a
    :class:`~crepair.schemes.schedule.Schedule`, e.g. ``DEFAULT_SCHEDULE``:
    mutation level 1, level 2 with must pruning, templates, escalating)
    replaces ``options.schemes``; its stages share the one ``timeout``.  Raises
    ``BadInput``/``UnsupportedConstruct`` for programs crepair cannot take
    and ``UsageError`` for bad options.  The files are
    only read.  Source: AllRepair (Rothenberg & Grumberg, FM'16), Fig. 4;
    FMCAD'11 Sect. III for the template scheme.
    """
    extra = {k: overrides.pop(k) for k in ("init", "assume", "input_bound") if k in overrides}
    if extra or isinstance(overrides.get("reference"), (str, Path)):
        overrides["reference"] = ReferenceOptions.of(overrides.get("reference"), **extra)
    options = RepairOptions.of(options, **overrides).check()
    if schedule is not None:
        options = dataclasses.replace(options, schemes=tuple(dict.fromkeys(st.scheme for st in schedule.stages)))
    program, run_entry = _load(path, options.entry, options.reference)
    # with a reference, the user's main is code like any other: the specification is the reference
    mutate_main = options.mutate_main or options.reference is not None
    run = RepairRun(program, dataclasses.replace(options, entry=run_entry, mutate_main=mutate_main), progress,
                    schedule)
    run.options = options  # as given (the schemes hold the encoder's entry: the harness)
    return run


def localize(
    path: str | Path,
    *,
    method: Method | str = Method.MUST,
    unwind: int = DEFAULT_UNWIND,
    entry: str = "main",
    no_mutate: frozenset[str] | set[str] = frozenset(),
    mutate_main: bool = False,
    timeout: float | None = None,
    rlimit: int | None = None,
    components: frozenset[Component] | set[str] = frozenset({Component.RHS, Component.COND}),
    inputs: int = 2,
    max_diagnoses: int | None = 10,
    max_size: int = 3,
    checks: Checks = Checks(),
    reference: str | Path | ReferenceOptions | None = None,
    init: tuple[str, ...] | list[str] = (),
    assume: tuple[str, ...] | list[str] = (),
    input_bound: int | None = None,
) -> LocalizeResult:
    """Localize the bug of the C file at ``path`` on its first counterexample.

    ``method`` MUST gives the must location set of FOSFL (CAV'20, Alg. 2):
    every repair in the mutation or arbitrary-expression scheme changes at
    least one of the returned locations.  Locations in the specification
    (``main`` unless ``mutate_main``, ``AllRepair_correct_*``,
    ``no_mutate``) are left out, since no repair changes them.

    ``method`` DIAGNOSIS gives minimal diagnoses (FMCAD'11, Sect. III-C/D)
    in increasing size, at most ``max_diagnoses`` of size ≤ ``max_size``,
    over ``inputs`` failing inputs, with the chosen ``components``.
    ``reference`` and its options: equivalence as in :func:`verify` (the
    reference's code is specification, never a location; ``main`` is not).

    Any UNKNOWN solver answer gives outcome UNKNOWN (or, for diagnoses
    after the first, ``complete`` false) with the ``reason``.  Raises
    ``BadInput`` for programs crepair cannot take, ``UsageError`` for bad
    options.
    """
    method = _enum(Method, method, "method")
    if method == Method.SPECTRUM:
        raise UsageError("method spectrum localizes by tests: call crepair.localize_tests (or give "
                         "crepair localize --tests/--tests-dir)")
    components = frozenset(_enum(Component, c, "components") for c in components)
    at_least("--unwind", unwind, 0)
    for name, value in (("--inputs", inputs), ("--max-size", max_size), ("--max-diagnoses", max_diagnoses)):
        at_least(name, value, 1)
    if not components:
        raise UsageError("--components needs at least one of rhs, cond")
    limits = _limits(timeout, rlimit)
    ref = ReferenceOptions.of(reference, init, assume, input_bound)
    start = time.monotonic()
    program, run_entry = _load(path, entry, ref)
    spec = frozenset(no_mutate)
    mutate_main = mutate_main or ref is not None  # the specification is the reference
    try:
        formula, _ = encode(program, bound=unwind, entry=run_entry, split_ternaries=method == Method.DIAGNOSIS,
                            checks=checks, deadline=limits.deadline)
    except EncodingTimeout:
        return LocalizeResult(program.path, _shown_entry(entry, ref), method, VerifyOutcome.UNKNOWN,
                              BoundReport(unwind, None), None, (), time.monotonic() - start,
                              original=program.original, reason=ENCODING_TIMEOUT)
    bound = check_bound(formula, limits)
    verdict, model, reason = check_original(formula, limits)
    outcome = VerifyOutcome.of(verdict)

    def result(**fields) -> LocalizeResult:
        return LocalizeResult(program.path, _shown_entry(entry, ref), method, outcome, bound, fields.pop("cex", None),
                              fields.pop("locations", ()), time.monotonic() - start, original=program.original,
                              **fields)

    if verdict != Verdict.SAT:
        return result(reason=f"check of the program: {reason}" if verdict == Verdict.UNKNOWN else "")
    if method == Method.MUST:
        cex = counterexample_of(formula, model)
        must = fosfl(DependencyGraph(formula), formula, model)
        in_spec = [o for o in must.origins if o.function and is_specification(o.function, spec, mutate_main)]
        kept = [o for o in must.origins if o not in in_spec]
        # an array store and its right-hand side are one statement: show it once
        located = [o.span for o in kept if o.location is not None]
        locations = tuple(
            o for o in kept
            if o.location is not None or not any(o.span.start <= l.start and l.end <= o.span.end for l in located)
        )
        return result(cex=cex, locations=locations, in_specification=len(in_spec))
    failing, unknown = failing_inputs(formula, inputs, limits)
    if not failing:
        return result(cex=counterexample_of(formula, model), complete=False, reason=f"failing-input search: {unknown}")
    solver = smt_solver(limits)
    solver.add(*formula.hard(), *formula.original_copies(), formula.violation(), *pin(formula, failing[0]))
    cex = counterexample_of(formula, model if solver.check() != Verdict.SAT else solver.model())
    kinds = component_kinds(components)
    comps = [
        l.index for l in formula.locations if l.kind in kinds and not is_specification(l.function, spec, mutate_main)
    ]
    engine = Diagnoser(formula, comps, failing, limits)
    found = tuple(diagnose(formula, comps, failing, max_size=max_size, max_diagnoses=max_diagnoses, engine=engine))
    why = engine.unknown or (f"failing-input search: {unknown}" if unknown else "")
    return result(cex=cex, diagnoses=found, complete=not engine.unknown and not unknown, reason=why,
                  in_specification=sum(1 for l in formula.locations if l.kind in kinds) - len(comps))


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
    ``trailing-whitespace`` or ``tokens``); see
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
    (None: none); ``test_timeout_ms``: per test (default
    None: 20 times the original program's slowest test, 100 to 1000 ms,
    see :func:`~crepair.schemes.test_driven.auto_test_timeout`);
    ``partition=False``: the enumerative baseline (Algorithm 2); ``all``:
    explore the whole space and yield every plausible patch, else stop after
    ``max_repairs`` (default 1); ``lines``: only change these 1-based lines;
    ``formula``: ochiai, tarantula or dstar (``lines`` are the program's:
    ``path``); ``anti_patterns``: ``"all"`` (default), ``"none"`` or
    comma-separated rule numbers (``"A1,C1"``) of the anti-patterns whose
    candidates are left out (Tan et al., FSE'16,
    :mod:`crepair.testequiv.antipatterns`).  Raises ``UsageError`` for bad
    options, ``BadInput`` for files crepair cannot read or a project that
    does not build, ``MissingTool`` without gcc, make or gcov.  The project
    directory is only read; all work happens in copies.
    """
    from crepair.localization.spectrum import Formula
    from crepair.schemes.test_driven import TestDrivenRun, TestRepairOptions
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
                                anti_patterns=anti_pattern_rules(anti_patterns))
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
):
    """Repair the C file at ``path`` against the reference implementation
    ``reference`` (its ``main``, on standard input and output), with the
    optional folder of tests ``tests_dir``, checked in stages: the given
    tests, ``generated`` inputs mutated from them (default 60) with the
    reference's outputs, counterexamples of the bounded check as tests,
    and a bounded equivalence proof (``unwind``, ``input_bound``) last.
    Candidates come from the test-driven search space (f1x, TOSEM'18), one
    or two locations.  Returns a :class:`~crepair.schemes.staged.StagedRun`:
    iterate it for :class:`~crepair.records.Repair` records whose
    ``evidence`` is an :class:`~crepair.records.EquivalenceProof` or a
    :class:`~crepair.records.PassesSuite`, proved ones first.
    ``timeout`` in seconds (None: none); ``max_repairs``: stop after that
    many proved repairs (None: explore everything).  Raises ``UsageError``,
    ``BadInput`` (a program does not compile), ``MissingTool`` (gcc).
    """
    from crepair.schemes.staged import DEFAULT_GENERATED, StagedOptions, StagedRun
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
                            test_timeout=test_timeout_ms)
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


def repair_heap(path: str | Path, **options):
    """Heap repair (Wolverine2): a :class:`~crepair.schemes.heap.HeapScheme` over ``path``
    (``options``: the fields of :class:`~crepair.schemes.heap.HeapOptions`); iterate its ``repairs()``."""
    from crepair.schemes.heap import HeapOptions, HeapScheme

    return HeapScheme(load_program(path, real_c=True), HeapOptions(**options))
