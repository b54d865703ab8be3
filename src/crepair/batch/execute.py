"""A request's API call and its JSON report, in a batch worker.

:func:`execute` calls the verb of a :class:`~crepair.batch.request.Request`
(:mod:`crepair.api`) with the arguments ``crepair COMMAND`` gives it, runs
it to its end and renders the result records with :mod:`crepair.report`:
the JSON document ``crepair COMMAND ... --json`` prints, and the exit code
of :mod:`crepair.exit_codes`.  Errors propagate (the worker records them).
"""

from __future__ import annotations

import time

from crepair import api, exit_codes
from crepair.batch.request import Request, Run
from crepair.encode.formula import Checks
from crepair.options import AUTO_SOLVER


def _checks(request: Request) -> Checks:
    return Checks(**request.option("checks", {}))


def _verify(request: Request, started: float) -> tuple[int, str]:
    from crepair.report import json_report

    result = api.verify(request.program, unwind=request.option("unwind"), entry=request.option("entry"),
                        timeout=request.timeout, started=started, checks=_checks(request),
                        reference=request.spec.reference, solver=request.option("solver", AUTO_SOLVER))
    return exit_codes.of_outcome(result.outcome, exit_codes.VERIFY), json_report.verify_json(result)


def _localize(request: Request, started: float) -> tuple[int, str]:
    from crepair.report import json_report

    o = request.option
    result = api.localize(
        request.program, method=o("method"), components=frozenset(o("components")), inputs=o("inputs"),
        max_diagnoses=o("max_diagnoses"), max_size=o("max_size"), unwind=o("unwind"), entry=o("entry"),
        no_mutate=frozenset(o("no_mutate")), mutate_main=o("mutate_main"), timeout=request.timeout, started=started,
        checks=_checks(request), reference=request.spec.reference, solver=o("solver", AUTO_SOLVER),
    )
    return exit_codes.of_localize(result), json_report.localize_json(result)


def _spectrum(request: Request, started: float) -> tuple[int, str]:
    from crepair.report import json_report

    t = request.spec.tests
    result = api.localize_tests(
        request.program, driver=t.driver, test_ids=t.test_ids, tests_dir=t.tests_dir, build=t.build,
        project=t.project, test_timeout_ms=request.option("test_timeout"), formula=request.option("formula"),
        compare=t.compare,
    )
    return exit_codes.of_spectrum(result), json_report.spectrum_json(result)


def _bounded(request: Request, started: float) -> tuple[int, str]:
    from crepair.options import RepairOptions
    from crepair.report import json_report
    from crepair.schemes.schedule import DEFAULT_SCHEDULE

    o = request.option
    options = RepairOptions.of(
        schemes=o("schemes"), components=o("components"), inputs=o("inputs"),
        max_refinements=o("max_refinements"), repairs_per_diagnosis=o("repairs_per_diagnosis"),
        max_terms=o("max_terms"), level=o("level"), unwind=o("unwind"), unwinding=o("unwinding"), entry=o("entry"),
        max_size=o("max_size"), timeout=request.timeout, started=started, reproducible=request.reproducible,
        max_repairs=o("max_repairs"), no_mutate=o("no_mutate"), mutate_main=o("mutate_main"), prune=o("prune"),
        checks=_checks(request), reference=request.spec.reference, solver=o("solver", AUTO_SOLVER),
    )
    run = api.repair(request.program, options, schedule=DEFAULT_SCHEDULE if o("schedule") else None)
    repairs = list(run)
    return exit_codes.of_outcome(run.outcome, exit_codes.REPAIR), json_report.repair_json(run.record(), repairs)


def _tests(request: Request, started: float) -> tuple[int, str]:
    from crepair.report import test_driven

    o, t = request.option, request.spec.tests
    lines = o("lines")
    run = api.repair_tests(
        request.program, driver=t.driver, test_ids=t.test_ids, tests_dir=t.tests_dir, build=t.build,
        project=t.project, test_timeout_ms=o("test_timeout"), timeout=request.timeout, partition=o("partition"),
        all=o("all"), max_repairs=o("max_repairs"), lines=None if lines is None else frozenset(lines),
        formula=o("formula"), files=list(request.more_files), localize_files=o("localize_files"),
        max_files=o("max_files"), compare=t.compare, anti_patterns=o("anti_patterns"),
    )
    repairs = list(run)
    return exit_codes.of_outcome(run.outcome, exit_codes.TEST_DRIVEN), test_driven.run_json(run.record(), repairs)


def _staged(request: Request, started: float) -> tuple[int, str]:
    from crepair.report import staged

    o, t = request.option, request.spec.tests
    run = api.repair_reference(
        request.program, request.spec.reference.path, tests_dir=None if t is None else t.tests_dir,
        compare=o("compare"), timeout=request.timeout, unwind=o("unwind"), input_bound=o("input_bound"),
        max_repairs=o("max_repairs"), test_timeout_ms=o("test_timeout"), solver=o("solver", AUTO_SOLVER),
        cache=o("cache"),
    )
    repairs = list(run)
    return exit_codes.of_outcome(run.outcome, exit_codes.STAGED), staged.run_json(run, repairs)


def _heap(request: Request, started: float) -> tuple[int, str]:
    from crepair.report import heap

    o, s = request.option, request.spec.states
    run = api.repair_heap(
        request.program, function=s.function, states=s.states, states_from=s.states_from, loop_states=s.loops,
        insert_slots=o("insert_slots"), localization=o("localization", True), tries=o("tries", 10),
        max_repairs=o("max_repairs", 1), timeout=request.timeout,
    )
    repairs = list(run)
    record = run.record()
    return exit_codes.of_outcome(record.outcome, exit_codes.HEAP), heap.run_json(record, repairs)


def _gradient(request: Request, started: float) -> tuple[int, str]:
    import json

    s = request.spec.states
    result = api.localize_gradient(request.program, function=s.function, states=s.states, states_from=s.states_from,
                                   loop_states=s.loops)
    return exit_codes.ExitCode.OK, json.dumps(result.as_json(), indent=2)


_RUNS = {Run.VERIFY: _verify, Run.LOCALIZE: _localize, Run.SPECTRUM: _spectrum, Run.BOUNDED: _bounded,
         Run.TESTS: _tests, Run.STAGED: _staged, Run.HEAP: _heap, Run.GRADIENT: _gradient}


def execute(request: Request, started: float | None = None) -> tuple[int, str]:
    """(exit code, JSON report) of ``request``'s run to its end; its time
    limit counts from the ``time.monotonic()`` instant ``started`` (None:
    now).  Raises what the verb raises (``CRepairError`` and its kinds)."""
    return _RUNS[request.run](request, time.monotonic() if started is None else started)
