"""``crepair repair PROG.c --reference REF.c [--tests-dir DIR]`` for a
program whose entry is ``main``: repair against the reference checked in
stages (given tests, generated inputs, counterexamples, bounded proof).

Exit codes: 0 a repair (its evidence printed), 5 none in the search space,
6 the program already agrees with the reference (no failing test and the
bounded check finds no difference), 4 the time limit came first.
"""

from __future__ import annotations

import argparse
import sys

from crepair import api, exit_codes
from crepair.cli.common import finish, write_html
from crepair.errors import UsageError
from crepair.oracle.cache import default_folder
from crepair.patch import apply_to_file
from crepair.report import staged as report

_EXIT = exit_codes.STAGED

#: options of other kinds of repair that mean nothing here, with their defaults
_UNUSED = {"tests": None, "build": None, "project": None, "init": None, "assume": None, "more_files": [],
           "localize_files": None, "no_partition": False, "lines": None, "anti_patterns": "all"}


def wanted(args: argparse.Namespace) -> bool:
    """Whether the command line asks for the staged run: a reference with
    tests, or a reference with ``--scheme test-driven``, the entry being
    ``main``; or a reference with no scheme chosen (main again)."""
    if args.reference is None or args.entry != "main":
        return False
    scheme = args.scheme or []
    return args.tests_dir is not None or scheme == ["test-driven"] or (not scheme and args.level is None)


def check(args: argparse.Namespace) -> None:
    """Refuse (``UsageError``) the options of other kinds of repair."""
    if args.init or args.assume:
        raise UsageError("--init/--assume: the runs against --reference start at main; give them to the bounded "
                         "schemes (--scheme mutation|template)")
    for name, default in _UNUSED.items():
        if getattr(args, name, default) != default:
            raise UsageError(f"--{name.replace('_', '-')}: not used when repairing against --reference "
                             "with tests (give --tests-dir DIR of input/output pairs)")
    if args.test_ids:
        raise UsageError("--test-ids: not used when repairing against --reference (every test of --tests-dir runs)")


def cache_folder(args: argparse.Namespace) -> str | None:
    """The folder of the reference's cache the command line asks for (``--cache``, else the default folder of
    :func:`crepair.oracle.cache.default_folder`; None with ``--no-cache``)."""
    return None if args.no_cache else str(args.cache or default_folder())


def run(args: argparse.Namespace) -> int:
    check(args)
    run = api.repair_reference(
        args.file, args.reference, tests_dir=args.tests_dir, compare=args.compare, timeout=args.timeout or None,
        unwind=args.unwind, input_bound=args.input_bound, max_repairs=None if args.all else (
            1 if args.first else (args.max_repairs or 1)),
        test_timeout_ms=args.test_timeout, started=args.started, solver=args.solver,
        cache=cache_folder(args),
    )
    repairs = []
    if not args.json:
        print(report.render_header(run), flush=True)
    for rep in run:
        repairs.append(rep)
        if not args.json:
            print()
            print(report.render_repair(rep, len(repairs)), flush=True)
    report_json = report.run_json(run, repairs)
    if not args.json:
        print()
        print(report.render_summary(run, repairs))

    def writes() -> None:
        write_html(args, "repair", report_json, run.original)
        if args.apply and repairs:
            backup = apply_to_file(args.file, repairs[0].patched, original=run.original, anyway=args.apply_anyway)
            print(f"applied repair 1 to {args.file} (original kept as {backup})", file=sys.stderr)
        elif args.apply:
            print(f"nothing applied to {args.file}: no repair", file=sys.stderr)

    failed = finish(args, report_json, writes)
    if failed is not None:
        return failed
    return exit_codes.of_outcome(run.outcome, _EXIT)
