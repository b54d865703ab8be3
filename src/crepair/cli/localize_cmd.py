"""``crepair localize``: where the bug can be (must location set or diagnoses)."""

from __future__ import annotations

import argparse
from pathlib import Path

from crepair import api
from crepair.bmc import VerifyOutcome
from crepair.cli.common import ExitCode, add_common, add_specification, at_least
from crepair.errors import UsageError
from crepair.options import Method
from crepair.report import json_report, text


def add_parser(sub) -> None:
    loc = sub.add_parser("localize", help="where the bug can be: the must location set or minimal diagnoses")
    add_common(loc, None, "solver time limit in seconds, 0 for none (default: none)")
    loc.add_argument("--method", choices=[m.value for m in Method], default="must",
                     help="localization method (default: must)")
    add_specification(loc, "diagnosis")
    loc.add_argument("--sarif", metavar="FILE", help="also write the locations as SARIF 2.1.0 to FILE")
    loc.add_argument("--max-diagnoses", type=at_least(1), default=10, metavar="N",
                     help="diagnosis: at most N (default: 10)")
    loc.add_argument("--max-size", type=at_least(1), default=3, metavar="K",
                     help="diagnosis: largest size (default: 3)")


def run(args: argparse.Namespace) -> int:
    if args.sarif:
        folder = Path(args.sarif).parent
        if not folder.is_dir():
            raise UsageError(f"--sarif {args.sarif}: folder {folder} does not exist")
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
    )
    if args.json:
        print(json_report.localize_json(result))
    else:
        print(text.render_localize(result, result.original))
    if args.sarif:
        from crepair.report.sarif import localize_sarif

        try:
            with open(args.sarif, "w", encoding="utf-8") as fh:
                fh.write(localize_sarif(result))
        except OSError as exc:
            raise UsageError(f"--sarif {args.sarif}: {exc.strerror}") from None
    if result.outcome == VerifyOutcome.VIOLATED:
        if result.method == Method.MUST and not result.locations:
            return ExitCode.NO_REPAIR
        return ExitCode.OK
    if result.outcome == VerifyOutcome.UNKNOWN:
        return ExitCode.UNKNOWN
    return ExitCode.BOUND_TOO_SMALL if result.bound.too_small else ExitCode.ORIGINAL_CORRECT

