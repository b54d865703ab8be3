"""``crepair repair``: checked repairs, smallest first, as unified diffs."""

from __future__ import annotations

import argparse
import sys

from crepair import api, exit_codes
from crepair.cli import heap_cmd, staged_cmd, test_driven_cmd
from crepair.cli.common import (
    FINAL_OUTPUT, StatusLine, add_checks, add_common, add_solver, add_specification, add_tests, at_least, checks_of,
    finish, reference_of, write_html,
)
from crepair.encode.formula import Unwinding
from crepair.errors import UsageError
from crepair.mutation import MutationLevel
from crepair.options import AUTO_SOLVER, DEFAULT_MAX_SIZE, DEFAULT_TIMEOUT, Prune, RepairOptions
from crepair.patch import apply_to_file, writable
from crepair.report import json_report, text
from crepair.schemes.mutation import Progress
from crepair.schemes.template_scheme import TemplateProgress
from crepair.schemes.schedule import DEFAULT_SCHEDULE
from crepair.solver import UNITS_PER_SECOND, WALL_CLOCK_SAFETY
from crepair.specification import Runner


def add_parser(sub) -> None:
    r = sub.add_parser("repair", help="all minimal repairs, smallest first, as unified diffs")
    add_common(r, DEFAULT_TIMEOUT,
               f"time limit of the whole run in seconds, 0 for none (default: {DEFAULT_TIMEOUT:g})")
    r.add_argument("--scheme", type=lambda t: [x.strip() for x in t.split(",") if x.strip()], default=None,
                   metavar="S[,S]", help="repair schemes, run in this order: mutation, template or "
                   "mutation,template (default, without --scheme and --level: the schedule mutation level 1, "
                   "then level 2 with must pruning (size 1), then templates, each only if the ones before "
                   "found no repair, all within --timeout); heap (alone: heap programs against --states)")
    r.add_argument("--level", type=int, choices=[1, 2], default=None,
                   help="mutation level (default: 1; alone, it selects --scheme mutation)")
    r.add_argument("--max-size", type=at_least(1), default=DEFAULT_MAX_SIZE, metavar="K",
                   help=f"largest repair size, in changed locations (default: {DEFAULT_MAX_SIZE})")
    r.add_argument("--max-repairs", type=at_least(1), default=None, metavar="N", help="stop after N repairs")
    r.add_argument("--first", action="store_true", help="stop after the first repair")
    r.add_argument("--unwinding-assumptions", action="store_true",
                   help="FM'16 semantics: runs the bound cuts off are assumed away, so a repair may be correct "
                        "only vacuously (such repairs are labelled, ranked last and never applied)")
    add_specification(r, "template scheme")
    add_checks(r)
    add_solver(r, "the bounded checks (mutation, template, and the proofs of a run against --reference)")
    r.add_argument("--prune", choices=[p.value for p in Prune], default="must",
                   help="prune the search with must fault localization (default: must)")
    r.add_argument("--max-refinements", type=at_least(1), default=10, metavar="N",
                   help="template scheme: counterexample refinements per repair (default: 10)")
    r.add_argument("--repairs-per-diagnosis", type=at_least(1), default=5, metavar="N",
                   help="template scheme: repairs per diagnosis (default: 5)")
    r.add_argument("--max-terms", type=at_least(1), default=3, metavar="N",
                   help="template scheme: most non-zero coefficients of a repair, a constant beyond "
                        "+-1000 counting as one (default: 3)")
    r.add_argument("--reproducible", action="store_true",
                   help="count --timeout (and the schemes' own limits) in z3 resource units, "
                        f"{UNITS_PER_SECOND // 1_000_000} million a second: the same repairs on any machine and "
                        f"under any load; the wall clock stops the run only at {WALL_CLOCK_SAFETY}x --timeout")
    r.add_argument("--quiet", action="store_true", help="no progress display")
    r.add_argument("--apply", action="store_true",
                   help="write the first non-vacuous repair into FILE (the original is kept as FILE.orig); "
                        "a read-only file, another user's or one with other hard links is refused")
    r.add_argument("--apply-anyway", action="store_true",
                   help="with --apply: also write a read-only file, another user's or a hard-linked one, in place "
                        "(its mode, owner and hard links stay)")
    add_tests(r)
    r.add_argument("--cache", metavar="DIR",
                   help="with --reference REF.c and --tests-dir: where the reference's outputs and its own bounded "
                        "check are kept for the next run against the same REF.c, e.g. the next submission of an "
                        "assignment (default: $XDG_CACHE_HOME/crepair, else ~/.cache/crepair)")
    r.add_argument("--no-cache", action="store_true", help="with --reference: keep nothing between runs")
    test_driven_cmd.add_arguments(r)
    heap_cmd.add_arguments(r, repair=True)


def _describe(p: "Progress | TemplateProgress") -> str:
    if isinstance(p, TemplateProgress):
        of = f" of at most {p.max_diagnoses}" if p.max_diagnoses else ""
        where = f"diagnosis {p.diagnosis}{of}" if p.diagnosis else "finding failing inputs"
        return f"templates, {where}: {p.candidates} candidates checked, {p.repairs} repairs"
    return f"mutation, size level {p.size}: {p.checked} candidates checked, {p.repairs} repairs"


_EXIT = exit_codes.REPAIR


def _refuse_cache(args: argparse.Namespace) -> None:
    """Raises ``UsageError`` for ``--cache``/``--no-cache``: only the run against a reference of main keeps
    answers between runs."""
    if args.cache is not None or args.no_cache:
        raise UsageError("--cache/--no-cache: used by the repair of main against --reference (with --tests-dir) only")


def route(args: argparse.Namespace) -> Runner:
    """The run that checks the command line's specification (heap states:
    the heap scheme; a reference of main: the staged run; tests: the
    test-driven search; else the bounded schemes), after refusing options
    that run does not use (``UsageError``); ``crepair batch`` routes its
    jobs here too.  May normalise ``args.scheme``."""
    if args.apply_anyway and not args.apply:
        raise UsageError("--apply-anyway: used with --apply only")
    if args.reproducible and ((args.scheme and "heap" in args.scheme) or test_driven_cmd.given(args)):
        raise UsageError("--reproducible: used by the bounded schemes (mutation, template) only")
    if args.solver != AUTO_SOLVER and ((args.scheme and "heap" in args.scheme)
                                     or (test_driven_cmd.given(args) and args.reference is None)):
        raise UsageError("--solver: decides the bounded checks (mutation, template, the proofs against "
                         "--reference) only; the heap scheme and test-driven repair use z3 or no solver")
    if args.scheme is None and args.level is None and (args.states is not None or args.states_from is not None):
        args.scheme = ["heap"]  # heap states are the heap scheme's specification
    if args.scheme and "heap" in args.scheme:
        _refuse_cache(args)
        return Runner.HEAP
    bounded = [s for s in args.scheme or [] if s in ("mutation", "template")]
    if bounded and test_driven_cmd.given(args):
        raise UsageError(f"--scheme {','.join(bounded)}: checks candidates with the bounded engine against the "
                         "program's assertions or --reference; tests are run by --scheme test-driven (the default "
                         "with tests)")
    if args.states is not None or args.checkpoints is not None:
        raise UsageError("--states/--checkpoints: used by --scheme heap only")
    if args.scheme and "test-driven" in args.scheme:
        if args.scheme != ["test-driven"]:
            raise UsageError("--scheme test-driven: runs alone (not with mutation or template)")
        if not test_driven_cmd.given(args) and args.reference is None:
            raise UsageError("--scheme test-driven needs a specification it can run: "
                             "--tests DRIVER --test-ids ID..., --tests-dir DIR or --reference REF.c")
        if args.reference is not None and args.entry != "main":
            raise UsageError("--scheme test-driven with --reference: the concrete runs start at main "
                             f"(--entry {args.entry} is checked by --scheme mutation or template)")
    if staged_cmd.wanted(args):
        staged_cmd.check(args)
        return Runner.STAGED
    _refuse_cache(args)
    if args.reference is not None and test_driven_cmd.given(args):
        raise UsageError("--reference with tests: the tests must be a folder (--tests-dir) and the entry main")
    if args.scheme == ["test-driven"]:
        args.scheme = None
    test_driven_cmd.check_unused(args)
    return Runner.TESTS if test_driven_cmd.given(args) else Runner.BOUNDED


def run(args: argparse.Namespace) -> int:
    runner = route(args)
    if args.apply:
        writable(args.file, args.apply_anyway)  # refuse before the run, not after it (every scheme)
    if runner == Runner.HEAP:
        return heap_cmd.run_repair(args)
    if runner == Runner.STAGED:
        return staged_cmd.run(args)
    if runner == Runner.TESTS:
        return test_driven_cmd.run(args)
    schedule = DEFAULT_SCHEDULE if args.scheme is None and args.level is None else None
    options = RepairOptions.of(
        schemes=args.scheme or ["mutation"],
        components=args.components,
        inputs=args.inputs,
        max_refinements=args.max_refinements,
        repairs_per_diagnosis=args.repairs_per_diagnosis,
        max_terms=args.max_terms,
        level=MutationLevel(args.level or 1),
        unwind=args.unwind,
        unwinding=Unwinding.ASSUMPTIONS if args.unwinding_assumptions else Unwinding.ASSERTIONS,
        entry=args.entry,
        max_size=args.max_size,
        timeout=args.timeout,
        started=args.started,
        reproducible=args.reproducible,
        max_repairs=1 if args.first else args.max_repairs,
        no_mutate=args.no_mutate,
        mutate_main=args.mutate_main,
        prune=args.prune,
        checks=checks_of(args),
        reference=reference_of(args),
        solver=args.solver,
    )
    progress = StatusLine(not args.quiet and not args.json and sys.stderr.isatty(), _describe)
    progress.say("loading the program and checking the original one")
    FINAL_OUTPUT.doing = lambda: progress.text
    try:
        run = api.repair(args.file, options, progress=progress, schedule=schedule)
        repairs = []
        if not args.json:
            progress.out(text.render_header(run.record()))
        for rep in run:
            repairs.append(rep)
            if not args.json:
                progress.out()
                progress.out(text.render_repair(rep, len(repairs)))
    finally:
        progress.stop()
    record = run.record()
    report = json_report.repair_json(record, repairs)
    if not args.json:
        print()
        print(text.render_summary(record))

    def writes() -> None:
        write_html(args, "repair", report, run.program.original)
        if args.apply:
            chosen = next((r for r in repairs if not r.vacuous), None)
            if chosen is None:
                print(f"nothing applied to {args.file}: no non-vacuous repair", file=sys.stderr)
            else:
                backup = apply_to_file(args.file, chosen.patched, original=run.program.original,
                                       anyway=args.apply_anyway)
                print(f"applied repair {repairs.index(chosen) + 1} to {args.file} (original kept as {backup})",
                      file=sys.stderr)

    failed = finish(args, report, writes)
    return failed if failed is not None else exit_codes.of_outcome(run.outcome, _EXIT)
