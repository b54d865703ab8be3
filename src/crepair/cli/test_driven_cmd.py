"""``crepair repair PROG.c [MORE.c ...] --tests … | --tests-dir …``:
test-driven repair (f1x, TOSEM'18) — plausible patches, least cost first,
as unified diffs.

Files: by default only PROG.c changes; files named after it (f1x's
``--files prog.c lib.c``) may change too, and ``--localize-files [N]``
lets the failing tests' coverage choose them (the project's ``.c`` files
they execute, most suspicious line first, at most N).  Every file lies in
the project directory; each patch changes one file, which ``--apply``
writes.

Exit codes as f1x: 0 a plausible patch, 122 none in the search space, 123
no failing test; 4 the time limit came first; usage and bad input as the
other commands.
"""

from __future__ import annotations

import argparse
import sys

from crepair import api, exit_codes
from crepair.cli.common import CHECK_FLAGS, FINAL_OUTPUT, REFERENCE_DEFAULTS, StatusLine, at_least, finish, write_html
from crepair.errors import UsageError
from crepair.options import AUTO_SOLVER
from crepair.patch import apply_to_file
from crepair.report import test_driven as report

# options of the bounded schemes that mean nothing to the test-driven one
_BOUNDED_ONLY = {"scheme": None, "level": None, "unwinding_assumptions": False, "prune": "must",
                 "no_mutate": frozenset(), "mutate_main": False, "solver": AUTO_SOLVER, **CHECK_FLAGS,
                 **REFERENCE_DEFAULTS}


def add_arguments(r: argparse.ArgumentParser) -> None:
    r.add_argument("more_files", nargs="*", metavar="MORE.c",
                   help="test-driven repair: further C files of the project that may be changed "
                        "(right after FILE, as f1x's --files prog.c lib.c)")
    g = r.add_argument_group("test-driven repair (with --tests or --tests-dir)")
    g.add_argument("--localize-files", nargs="?", type=at_least(1), const=0, default=None, metavar="N",
                   help="let the tests choose the files to change: the project's .c files that every failing "
                        "test executes, the N (default: all) with the most suspicious lines first "
                        "(f1x's --localize); not with MORE.c")
    g.add_argument("--no-partition", action="store_true",
                   help="the enumerative baseline (TOSEM'18 Algorithm 2): no test-equivalence partitioning")
    g.add_argument("--all", action="store_true",
                   help="explore the whole search space and print every plausible patch")
    g.add_argument("--lines", type=_lines, metavar="L[,L]",
                   help="only change these lines (1-based) of FILE, as f1x's --files PROG.c:LINE")
    g.add_argument("--formula", choices=["ochiai", "tarantula", "dstar"], default="ochiai",
                   help="suspiciousness formula ordering the lines (default: ochiai)")
    g.add_argument("--anti-patterns", default="all", metavar="all|none|A1,...",
                   help="leave out candidates that match these anti-patterns (Tan et al., FSE'16: A1 delete a "
                        "return/exit, A2 delete break/continue, A3 delete a block's only statement, A4 delete a "
                        "set before an if, A6 trivial condition, A7 delete a loop-counter update; crepair's C1 "
                        "loop bound or subscript variable -> constant, C2 membership-test constant changed, C3 "
                        "reading a parameter of main that main never reads: argc, C4 a compared variable -> constant "
                        "in any condition, C5 an assignment's value made to read its own variable, C6 one operator "
                        "of a uniform comparison chain changed, C7 a for counter's start moved by more than one "
                        "or below zero, C8 reading a local not yet assigned, C9 a loop's subscript or condition made "
                        "loop-invariant, C10 an added condition comparing a loop variable with a literal other than 0 "
                        "and 1); "
                        "default: all")
    g.add_argument("--rank", choices=["distance", "cost"], default="distance",
                   help="order of the plausible patches: distance (default: least semantic distance from the "
                        "original on the passing tests and on inputs mutated from them, QLOSE CAV'16, each "
                        "identifier or literal the patch puts in counting as a tenth of the inputs; "
                        "the first patch is chosen after a short extra search among patches of similar cost) "
                        "or cost (f1x's syntactic cost only, printed as found)")


def _lines(text: str) -> frozenset[int]:
    try:
        lines = frozenset(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of line numbers: {text!r}") from None
    if not lines or min(lines) < 1:
        raise argparse.ArgumentTypeError(f"line numbers start at 1 (got {text!r})")
    return lines


def given(args: argparse.Namespace) -> bool:
    """Whether the command line asks for test-driven repair."""
    return args.tests is not None or args.tests_dir is not None


def check_unused(args: argparse.Namespace) -> None:
    """Test-driven options without tests are a usage error, and so are the
    bounded schemes' options with tests."""
    if given(args):
        for name, default in _BOUNDED_ONLY.items():
            if getattr(args, name) != default:
                raise UsageError(f"--{name.replace('_', '-')}: not used by test-driven repair (--tests/--tests-dir)")
        return
    if args.anti_patterns != "all":
        raise UsageError("--anti-patterns: used by test-driven repair only (give --tests or --tests-dir)")
    if args.rank != "distance":
        raise UsageError("--rank: used by test-driven repair only (give --tests or --tests-dir)")
    for name in ("no_partition", "all", "lines"):
        if getattr(args, name):
            raise UsageError(f"--{name.replace('_', '-')}: used by test-driven repair only "
                             "(give --tests or --tests-dir)")
    if args.more_files:
        raise UsageError(f"{args.more_files[0]}: several files are repaired by test-driven repair only "
                         "(give --tests or --tests-dir)")
    if args.localize_files is not None:
        raise UsageError("--localize-files: used by test-driven repair only (give --tests or --tests-dir)")
    for name in ("test_ids", "build", "test_timeout", "project"):
        if getattr(args, name) is not None:
            raise UsageError(f"--{name.replace('_', '-')}: used with --tests or --tests-dir only")
    if args.compare != "trailing-whitespace":
        raise UsageError("--compare: used with --tests-dir (or --reference and main) only")


_EXIT = exit_codes.TEST_DRIVEN


def run(args: argparse.Namespace) -> int:
    run = api.repair_tests(
        args.file, driver=args.tests, test_ids=args.test_ids or (), tests_dir=args.tests_dir, build=args.build,
        project=args.project, test_timeout_ms=args.test_timeout, timeout=args.timeout,
        partition=not args.no_partition, all=args.all,
        max_repairs=1 if args.first else args.max_repairs, lines=args.lines, formula=args.formula,
        files=args.more_files, localize_files=args.localize_files is not None,
        max_files=args.localize_files or None, compare=args.compare, anti_patterns=args.anti_patterns,
        rank=args.rank,
        started=args.started,
    )
    total = run.stats.candidates
    progress = StatusLine(not args.quiet and not args.json and sys.stderr.isatty(),
                          lambda s: f"{s.explored} of {total} candidates explored, {s.executions} test executions, "
                                    f"{s.partitions} partitions, {s.plausible} plausible")
    run.progress = progress
    progress.say("running the original's tests, then the search")
    FINAL_OUTPUT.doing = lambda: progress.text
    repairs = []
    if not args.json:
        progress.out(report.render_header(run.record()))
    try:
        for rep in run:
            repairs.append(rep)
            if not args.json:
                progress.out()
                progress.out(report.render_patch(rep, len(repairs), report.distance_of(run.record(), len(repairs))))
    finally:
        progress.stop()
    record = run.record()
    report_json = report.run_json(record, repairs)
    if not args.json:
        print()
        print(report.render_summary(record))

    def writes() -> None:
        write_html(args, "repair", report_json, run.programs[args.file].original
                   if args.file in run.programs else None)
        if args.apply:
            if not repairs:
                print(f"nothing applied to {' '.join(run.stats.files) or args.file}: no plausible patch",
                      file=sys.stderr)
            else:
                file = repairs[0].file
                backup = apply_to_file(file, repairs[0].patched, original=run.programs[file].original,
                                       anyway=args.apply_anyway)
                print(f"applied patch 1 to {file} (original kept as {backup})", file=sys.stderr)

    failed = finish(args, report_json, writes)
    return failed if failed is not None else exit_codes.of_outcome(run.outcome, _EXIT)
