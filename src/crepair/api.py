"""The Python API: the verbs ``crepair.verify``, ``crepair.localize`` and
``crepair.repair`` (the packages are nouns: ``bmc``, ``localization``,
``schemes``).

>>> import crepair
>>> for r in crepair.repair("prog.c", level=1):      # doctest: +SKIP
...     print(r.size, r.diff)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import dataclasses
import time

from pathlib import Path

from crepair.bmc import ENCODING_TIMEOUT, VerifyOutcome, VerifyResult, check_bound, check_original, verify_program

from crepair.counterexample import counterexample_of
from crepair.encode import encode
from crepair.encode.formula import Checks, EncodingTimeout
from crepair.errors import UsageError
from crepair.frontend import load_program
from crepair.localization.diagnosis import Diagnoser, diagnose, failing_inputs, pin
from crepair.localization.must import DependencyGraph, fosfl
from crepair.localization.result import LocalizeResult
from crepair.mutation.operators import is_specification
from crepair.options import (
    AUTO_SOLVER, DEFAULT_UNWIND, Component, Method, ReferenceOptions, RepairOptions, _enum, at_least,
    positive_seconds, solver_of,
)
from crepair.records import BoundReport
from crepair.schemes.run import ProgressFn, RepairRun
from crepair.schemes.schedule import Schedule
from crepair.schemes.template_scheme import component_kinds
from crepair.solver import Backend, Limits, smt_solver
from crepair.solver.smt import Verdict
from crepair.api_concrete import (  # noqa: F401 (re-exported)
    localize_gradient, localize_tests, repair_heap, repair_reference, repair_tests,
)

if TYPE_CHECKING:
    from crepair.specification import Specification


def _limits(timeout: float | None, rlimit: int | None = None, started: float | None = None,
            backend: Backend = Backend.Z3) -> Limits:
    """The limits of a verify or localize call (``timeout`` 0 or None: none;
    ``started``: the ``time.monotonic()`` instant it counts from, None: now)."""
    if timeout == 0:
        timeout = None
    positive_seconds("--timeout", timeout)
    at_least("rlimit", rlimit, 1)
    return Limits.after(timeout, rlimit, started=started, backend=backend)


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
    started: float | None = None,
    checks: Checks = Checks(),
    reference: str | Path | ReferenceOptions | None = None,
    init: tuple[str, ...] | list[str] = (),
    assume: tuple[str, ...] | list[str] = (),
    input_bound: int | None = None,
    proof_only: bool = False,
    solver: Backend | str = AUTO_SOLVER,
) -> VerifyResult:
    """Check the assertions of the C file at ``path`` up to bound ``unwind``.

    ``timeout`` in seconds (None: none), counted from the ``time.monotonic()``
    instant ``started`` (None: the call); ``rlimit``: z3 resource units per
    check; ``checks``: the checks of undefined behaviour asserted besides
    the program's assertions (all by default; ``crepair.NO_CHECKS``: none).
    Only code reachable from ``entry`` is read.  With
    ``reference`` (a C file), the specification is equivalence with it
    instead (:mod:`crepair.reference`): ``init`` functions run first in
    both, each of ``assume`` (C expressions over the entry's parameters and
    the globals) is assumed on the initial state, ``input_bound`` elements
    of array inputs are inputs.  Raises ``BadInput``/``UnsupportedConstruct``
    for programs crepair cannot take, ``UsageError`` for bad options.  The
    outcome is BOUND_TOO_SMALL when no assertion fails within the bound but
    the bound cuts off runs (``result.bound`` names the loop).  With
    ``proof_only`` the bound is checked first, and one that cuts off runs
    gives UNKNOWN at once (for callers that only want a proof).
    ``solver``: the SMT solver that decides the checks, z3, Bitwuzla, or
    both at once (``"portfolio"``, the first decided answer wins);
    ``"auto"`` (default): Bitwuzla with a ``reference``, else z3;
    ``result.solver`` names the one that decided.
    Source: Clarke, Kroening, Lerda, TACAS'04; AllRepair FM'16, Sect. 3.1.
    """
    at_least("--unwind", unwind, 0)
    ref = ReferenceOptions.of(reference, init, assume, input_bound)
    limits = _limits(timeout, rlimit, started, Backend(solver_of(solver, equivalence=ref is not None)))
    program, run_entry = _load(path, entry, ref)
    result = verify_program(program, unwind=unwind, entry=run_entry, limits=limits, checks=checks,
                            proof_only=proof_only)
    return result if ref is None else dataclasses.replace(result, entry=_shown_entry(entry, ref))


def repair(
    path: str | Path,
    options: RepairOptions | None = None,
    *,
    progress: ProgressFn | None = None,
    schedule: Schedule | None = None,
    spec: "Specification | None" = None,
    **overrides,
) -> RepairRun:
    """All minimal checked repairs of the C file at ``path``, smallest first.

    With ``spec`` (a :class:`~crepair.specification.Specification`), the
    run that checks it: heap states -> :func:`repair_heap`'s run, tests
    alone -> :func:`repair_tests`, a reference of ``main`` (with or without
    tests) -> :func:`repair_reference`, else the bounded schemes below;
    ``overrides`` then hold that run's options (e.g. ``timeout``).

    ``options`` (or keyword ``overrides`` of its fields, e.g. ``level=2``,
    ``scheme="template"``, ``unwinding="assumptions"``) select the schemes
    and limits; ``reference=REF.c`` (with ``init``, ``assume``,
    ``input_bound`` as for :func:`verify`, or a ``ReferenceOptions``)
    repairs towards equivalence with a reference implementation (then
    ``main`` may change like any function).  ``schedule`` (a
    :class:`~crepair.schemes.schedule.Schedule`, e.g. ``DEFAULT_SCHEDULE``:
    mutation level 1, level 2 with must pruning, templates, escalating)
    replaces ``options.schemes``; its stages share the one ``timeout``.
    ``progress`` is called with each scheme's snapshots (mutation:
    :class:`~crepair.schemes.mutation.Progress`, templates:
    :class:`~crepair.schemes.template_scheme.TemplateProgress`).  Raises
    ``BadInput``/``UnsupportedConstruct`` for programs crepair cannot take
    and ``UsageError`` for bad options.  The files are
    only read.  Source: AllRepair (Rothenberg & Grumberg, FM'16), Fig. 4;
    FMCAD'11 Sect. III for the template scheme.
    """
    if spec is not None:
        run = _run_of(path, spec, options, overrides)
        if run is not None:
            return run
        overrides["reference"] = spec.reference
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


def _run_of(path, spec, options, overrides):
    """The run of a specification that the bounded schemes do not check
    (None: they do)."""
    from crepair.specification import Runner

    entry = overrides.get("entry", options.entry if options is not None else "main")
    runner = spec.runner(entry)
    if runner == Runner.BOUNDED:
        return None
    if options is not None:
        raise UsageError(f"options: a RepairOptions record is for the bounded schemes, not the {runner.value} run")
    if runner == Runner.HEAP:
        s = spec.states
        return repair_heap(path, function=s.function, states=s.states, states_from=s.states_from,
                           loop_states=s.loops, **overrides)
    tests = spec.tests
    if runner == Runner.STAGED:
        return repair_reference(path, spec.reference, tests_dir=tests.tests_dir if tests else None,
                                compare=tests.compare if tests else "trailing-whitespace", **overrides)
    return repair_tests(path, driver=tests.driver, test_ids=tests.test_ids, tests_dir=tests.tests_dir,
                        build=tests.build, project=tests.project, compare=tests.compare, **overrides)


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
    started: float | None = None,
    components: frozenset[Component] | set[str] = frozenset({Component.RHS, Component.COND}),
    inputs: int = 2,
    max_diagnoses: int | None = 10,
    max_size: int = 3,
    checks: Checks = Checks(),
    reference: str | Path | ReferenceOptions | None = None,
    init: tuple[str, ...] | list[str] = (),
    assume: tuple[str, ...] | list[str] = (),
    input_bound: int | None = None,
    solver: Backend | str = AUTO_SOLVER,
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
    ``solver``: as for :func:`verify` (checks under assumptions and unsat
    cores stay with z3; ``"auto"``: Bitwuzla with a ``reference``).

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
    ref = ReferenceOptions.of(reference, init, assume, input_bound)
    limits = _limits(timeout, rlimit, started, Backend(solver_of(solver, equivalence=ref is not None)))
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
    outcome, undecided = VerifyOutcome.within(verdict, bound)

    def result(**fields) -> LocalizeResult:
        return LocalizeResult(program.path, _shown_entry(entry, ref), method, outcome, bound, fields.pop("cex", None),
                              fields.pop("locations", ()), time.monotonic() - start, original=program.original,
                              **fields)

    if verdict != Verdict.SAT:
        return result(reason=f"check of the program: {reason}" if verdict == Verdict.UNKNOWN else undecided)
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
