"""The ``crepair`` command: a thin composition of the pipeline stages.

Exit codes (``ExitCode``): 0 verified / repaired / localized; 1 assertion
violated (verify); 2 usage error; 3 bad input (unsupported C, syntax error,
unreadable file); 4 unknown (time-out, solver unknown); 5 no repair within
the scheme; 6 original already correct (repair, localize); 7 a required tool is
missing; 8 inconclusive: the unwinding bound is too small (verify); 70
internal error.
"""

from __future__ import annotations

import argparse
import enum
import sys
import time

from crepair import api
from crepair.errors import BadInput, CRepairError, MissingTool
from crepair.mutation import MutationLevel
from crepair.patch import apply_to_file
from crepair.schemes.mutation import Progress, RepairOutcome
from crepair.report import json_report, text
from crepair.bmc import DEFAULT_UNWIND, VerifyOutcome, verify


class ExitCode(enum.IntEnum):
    OK = 0
    VIOLATED = 1
    USAGE = 2
    BAD_INPUT = 3
    UNKNOWN = 4
    NO_REPAIR = 5
    ORIGINAL_CORRECT = 6
    MISSING_TOOL = 7
    BOUND_TOO_SMALL = 8
    INTERNAL = 70


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crepair", description="Find and fix bugs in C programs.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("file", help="C source file")
        sp.add_argument("--entry", default="main", help="entry function (default: main)")
        sp.add_argument("--unwind", type=int, default=DEFAULT_UNWIND, metavar="B",
                        help=f"unwinding bound for loops and recursion (default: {DEFAULT_UNWIND})")
        sp.add_argument("--json", action="store_true", help="print JSON instead of text")

    v = sub.add_parser("verify", help="bounded check of the assertions")
    common(v)
    v.add_argument("--timeout", type=float, default=None, metavar="S", help="solver time limit in seconds")

    loc = sub.add_parser("localize", help="where the bug can be: the must location set")
    common(loc)
    loc.add_argument("--method", choices=[m.value for m in api.Method], default="must",
                     help="localization method (default: must)")
    loc.add_argument("--no-mutate", default="", metavar="F,G", help="specification functions, never blamed")
    loc.add_argument("--sarif", metavar="FILE", help="also write the locations as SARIF 2.1.0 to FILE")
    loc.add_argument("--timeout", type=float, default=None, metavar="S", help="solver time limit in seconds")
    loc.add_argument("--components", default="rhs,cond", metavar="rhs,cond",
                     help="diagnosis: what may be a component (default: rhs,cond)")
    loc.add_argument("--inputs", type=int, default=2, metavar="N", help="diagnosis: failing inputs used (default: 2)")
    loc.add_argument("--max-diagnoses", type=int, default=10, metavar="N", help="diagnosis: at most N (default: 10)")
    loc.add_argument("--max-size", type=int, default=3, metavar="K", help="diagnosis: largest size (default: 3)")

    r = sub.add_parser("repair", help="all minimal repairs, smallest first, as unified diffs")
    common(r)
    r.add_argument("--scheme", default="mutation", metavar="S[,S]",
                   help="repair schemes, run in this order: mutation, template or mutation,template "
                        "(default: mutation)")
    r.add_argument("--components", default="rhs,cond", metavar="rhs,cond",
                   help="template scheme: what may be a component (default: rhs,cond)")
    r.add_argument("--inputs", type=int, default=2, metavar="N",
                   help="template scheme: failing inputs for diagnosis (default: 2)")
    r.add_argument("--max-refinements", type=int, default=10, metavar="N",
                   help="template scheme: counterexample refinements per repair (default: 10)")
    r.add_argument("--repairs-per-diagnosis", type=int, default=5, metavar="N",
                   help="template scheme: repairs per diagnosis (default: 5)")
    r.add_argument("--max-terms", type=int, default=3, metavar="N",
                   help="template scheme: most non-zero coefficients of a repair, a constant beyond "
                        "+-1000 counting as one (default: 3)")
    r.add_argument("--level", type=int, choices=[1, 2], default=1, help="mutation level (default: 1)")
    r.add_argument("--max-size", type=int, default=api.DEFAULT_MAX_SIZE, metavar="K",
                   help=f"largest repair size, in changed locations (default: {api.DEFAULT_MAX_SIZE})")
    r.add_argument("--timeout", type=float, default=api.DEFAULT_TIMEOUT, metavar="S",
                   help=f"time limit of the whole search in seconds, 0 for none (default: {api.DEFAULT_TIMEOUT:g})")
    r.add_argument("--max-repairs", type=int, default=None, metavar="N", help="stop after N repairs")
    r.add_argument("--first", action="store_true", help="stop after the first repair")
    r.add_argument("--no-mutate", default="", metavar="F,G", help="functions never to mutate (specification)")
    r.add_argument("--prune", choices=[p.value for p in api.Prune], default="must",
                   help="prune the search with must fault localization (default: must)")
    r.add_argument("--quiet", action="store_true", help="no progress display")
    r.add_argument("--apply", action="store_true",
                   help="write the first repair into FILE (the original is kept as FILE.orig)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "verify":
            return _verify(args)
        if args.command == "localize":
            return _localize(args)
        return _repair(args)
    except MissingTool as exc:
        print(f"crepair: {exc}", file=sys.stderr)
        return ExitCode.MISSING_TOOL
    except BadInput as exc:
        print(f"crepair: error: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except CRepairError as exc:
        print(f"crepair: internal error: {exc}", file=sys.stderr)
        return ExitCode.INTERNAL
    except KeyboardInterrupt:
        print("crepair: interrupted", file=sys.stderr)
        return ExitCode.UNKNOWN


def _verify(args) -> int:
    result = verify(args.file, unwind=args.unwind, entry=args.entry, timeout=args.timeout)
    if args.json:
        print(json_report.verify_json(result))
    else:
        with open(args.file, encoding="utf-8", errors="surrogateescape") as fh:
            print(text.render_verify(result, fh.read()))
    if result.outcome == VerifyOutcome.VIOLATED:
        return ExitCode.VIOLATED
    if result.outcome == VerifyOutcome.UNKNOWN:
        return ExitCode.UNKNOWN
    if result.bound.too_small is not False:
        return ExitCode.BOUND_TOO_SMALL
    return ExitCode.OK


def _schemes(text: str) -> tuple[api.Scheme, ...]:
    try:
        return tuple(api.Scheme(x.strip()) for x in text.split(",") if x.strip())
    except ValueError:
        raise BadInput(f"unknown --scheme {text!r}: use mutation, template or mutation,template") from None


def _components(text: str) -> frozenset[api.Component]:
    try:
        return frozenset(api.Component(x.strip()) for x in text.split(",") if x.strip())
    except ValueError:
        raise BadInput(f"unknown --components {text!r}: use rhs, cond or rhs,cond") from None


def _localize(args) -> int:
    result = api.localize(
        args.file,
        method=args.method,
        components=_components(args.components),
        inputs=args.inputs,
        max_diagnoses=args.max_diagnoses,
        max_size=args.max_size,
        unwind=args.unwind,
        entry=args.entry,
        no_mutate=frozenset(f for f in args.no_mutate.split(",") if f),
        timeout=args.timeout,
    )
    if args.json:
        print(json_report.localize_json(result))
    else:
        with open(args.file, encoding="utf-8", errors="surrogateescape") as fh:
            print(text.render_localize(result, fh.read()))
    if args.sarif:
        from crepair.report.sarif import localize_sarif

        with open(args.sarif, "w", encoding="utf-8") as fh:
            fh.write(localize_sarif(result))
    if result.outcome == VerifyOutcome.VIOLATED:
        return ExitCode.OK
    if result.outcome == VerifyOutcome.UNKNOWN:
        return ExitCode.UNKNOWN
    return ExitCode.ORIGINAL_CORRECT


class _ProgressDisplay:
    """Progress on stderr (rich), only when stderr is a terminal."""

    def __init__(self, enabled: bool):
        self._status = None
        self._last = 0.0
        if enabled:
            from rich.console import Console

            self._status = Console(stderr=True).status("starting")
            self._status.start()

    def __call__(self, p: Progress) -> None:
        if self._status is None or time.monotonic() - self._last < 0.1:
            return
        self._last = time.monotonic()
        self._status.update(
            f"size level {p.size}: {p.checked} candidates checked, {p.repairs} repairs, {p.seconds:.1f} s"
        )

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None


def _repair(args) -> int:
    max_repairs = 1 if args.first else args.max_repairs
    options = api.RepairOptions(
        schemes=_schemes(args.scheme),
        components=_components(args.components),
        inputs=args.inputs,
        max_refinements=args.max_refinements,
        repairs_per_diagnosis=args.repairs_per_diagnosis,
        max_terms=args.max_terms,
        level=MutationLevel(args.level),
        unwind=args.unwind,
        entry=args.entry,
        max_size=args.max_size,
        timeout=None if not args.timeout else args.timeout,
        max_repairs=max_repairs,
        no_mutate=frozenset(f for f in args.no_mutate.split(",") if f),
        prune=api.Prune(args.prune),
    )
    if options.max_size < 1:
        print("crepair: error: --max-size must be at least 1", file=sys.stderr)
        return ExitCode.USAGE
    progress = _ProgressDisplay(enabled=not args.quiet and not args.json and sys.stderr.isatty())
    run = api.repair(args.file, options, progress=progress)
    repairs = []
    if not args.json:
        print(text.render_header(run), flush=True)
    try:
        for rep in run:
            repairs.append(rep)
            if not args.json:
                progress.stop()
                print()
                print(text.render_repair(rep, len(repairs)), flush=True)
    finally:
        progress.stop()
    if args.json:
        print(json_report.repair_json(run, repairs))
    else:
        print()
        print(text.render_summary(run, len(repairs)))
    if args.apply and repairs:
        backup = apply_to_file(args.file, repairs[0].patched)
        print(f"applied repair 1 to {args.file} (original kept as {backup})", file=sys.stderr)
    outcome = run.outcome
    if repairs:
        return ExitCode.OK
    return {
        RepairOutcome.ORIGINAL_CORRECT: ExitCode.ORIGINAL_CORRECT,
        RepairOutcome.NO_REPAIR: ExitCode.NO_REPAIR,
        RepairOutcome.EXHAUSTED: ExitCode.NO_REPAIR,
    }.get(outcome, ExitCode.UNKNOWN)


if __name__ == "__main__":
    sys.exit(main())
