"""``crepair localize``: where the bug can be (must location set, diagnoses,
or, given tests, lines ranked by their spectrum)."""

from __future__ import annotations

import argparse
from pathlib import Path

from crepair import api, exit_codes
from crepair.cli import heap_cmd
from crepair.cli.common import (
    CHECK_FLAGS, FINAL_OUTPUT, REFERENCE_DEFAULTS, add_checks, add_common, add_solver, add_specification, add_tests,
    at_least, checks_of, reference_of, write_html,
)
from crepair.errors import UsageError
from crepair.localization.spectrum import Formula
from crepair.options import AUTO_SOLVER, DEFAULT_UNWIND, Method
from crepair.report import json_report, text


def add_parser(sub) -> None:
    loc = sub.add_parser("localize", help="where the bug can be: the must location set, minimal diagnoses, "
                         "or lines ranked by test coverage (--method spectrum)")
    add_common(loc, None, "solver time limit in seconds, 0 for none (default: none)")
    loc.add_argument("--method", choices=[m.value for m in Method] + ["gradient"], default="must",
                     help="localization method (default: must; gradient: heap programs against --states)")
    add_specification(loc, "diagnosis")
    add_checks(loc)
    add_solver(loc, "the checks of must and diagnosis localization")
    loc.add_argument("--sarif", metavar="FILE", help="also write the locations as SARIF 2.1.0 to FILE")
    loc.add_argument("--max-diagnoses", type=at_least(1), default=10, metavar="N",
                     help="diagnosis: at most N (default: 10)")
    loc.add_argument("--max-size", type=at_least(1), default=3, metavar="K",
                     help="diagnosis: largest size (default: 3)")
    loc.add_argument("--formula", choices=[f.value for f in Formula],
                     help="spectrum: suspiciousness formula (default: ochiai)")
    add_tests(loc)
    heap_cmd.add_arguments(loc, repair=False)


_TEST_OPTIONS = ("tests", "test_ids", "tests_dir", "build", "test_timeout", "project")


def _check_sarif(args: argparse.Namespace) -> None:
    if args.sarif:
        folder = Path(args.sarif).parent
        if not folder.is_dir():
            raise UsageError(f"--sarif {args.sarif}: folder {folder} does not exist")


def _write_sarif(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"--sarif {path}: {exc.strerror}") from None


# options of the bounded methods, with their defaults: refused with --method spectrum
_BOUNDED_ONLY = {"unwind": DEFAULT_UNWIND, "entry": "main", "timeout": None, "no_mutate": frozenset(),
                 "mutate_main": False, "components": frozenset({"rhs", "cond"}), "inputs": 2,
                 "max_diagnoses": 10, "max_size": 3, "solver": AUTO_SOLVER, **CHECK_FLAGS, **REFERENCE_DEFAULTS}


def route(args: argparse.Namespace) -> str:
    """The method of the command line ("gradient", or a ``Method`` value),
    after refusing options it does not use (``UsageError``; the gradient
    method's own are refused when it runs); ``crepair batch`` routes its
    jobs here too."""
    if args.method == "gradient":
        return args.method
    if args.states is not None or args.checkpoints is not None:
        raise UsageError("--states/--checkpoints: used by --method gradient only")
    if args.method == Method.SPECTRUM.value:
        if args.tests is None and args.tests_dir is None:
            raise UsageError("--method spectrum needs tests: --tests DRIVER --test-ids ID... or --tests-dir DIR")
        for name, default in _BOUNDED_ONLY.items():
            if getattr(args, name) != default:
                raise UsageError(f"--{name.replace('_', '-')}: not used by --method spectrum (it runs the tests)")
        return args.method
    given = [name for name in _TEST_OPTIONS if getattr(args, name) is not None]
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')}: tests are used by --method spectrum only")
    if args.formula is not None:
        raise UsageError("--formula: used by --method spectrum only")
    return args.method


def run_spectrum(args: argparse.Namespace) -> int:
    """``--method spectrum``: exit 0 with a ranking, 123 when no test fails
    (f1x's code), 5 when the failing tests share no line."""
    _check_sarif(args)
    result = api.localize_tests(
        args.file, driver=args.tests, test_ids=args.test_ids or (), tests_dir=args.tests_dir, build=args.build,
        project=args.project, test_timeout_ms=args.test_timeout, formula=args.formula or Formula.OCHIAI.value,
        compare=args.compare,
    )
    FINAL_OUTPUT.claim()
    print(json_report.spectrum_json(result) if args.json else text.render_spectrum(result))
    write_html(args, "localize", json_report.spectrum_json(result), result.original)
    if args.sarif:
        from crepair.report.sarif import spectrum_sarif

        _write_sarif(args.sarif, spectrum_sarif(result))
    return exit_codes.of_spectrum(result)


def run(args: argparse.Namespace) -> int:
    method = route(args)
    if method == "gradient":
        return heap_cmd.run_localize(args)
    if method == Method.SPECTRUM.value:
        return run_spectrum(args)
    _check_sarif(args)
    result = api.localize(
        args.file,
        method=args.method,
        components=args.components,
        inputs=args.inputs,
        max_diagnoses=args.max_diagnoses,
        max_size=args.max_size,
        unwind=args.unwind,
        entry=args.entry,
        no_mutate=args.no_mutate,
        mutate_main=args.mutate_main,
        timeout=args.timeout,
        started=args.started,
        checks=checks_of(args),
        reference=reference_of(args),
        solver=args.solver,
    )
    FINAL_OUTPUT.claim()
    if args.json:
        print(json_report.localize_json(result))
    else:
        print(text.render_localize(result, result.original))
    write_html(args, "localize", json_report.localize_json(result), result.original)
    if args.sarif:
        from crepair.report.sarif import localize_sarif

        _write_sarif(args.sarif, localize_sarif(result))
    return exit_codes.of_localize(result)

