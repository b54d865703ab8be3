"""``crepair verify``: bounded check of the assertions."""

from __future__ import annotations

import argparse

from crepair import api
from crepair.cli.common import add_checks, add_common, add_solver, checks_of, finish, reference_of, write_html
from crepair.exit_codes import VERIFY, of_outcome
from crepair.report import json_report, text


def add_parser(sub) -> None:
    v = sub.add_parser("verify", help="bounded check of the assertions")
    add_common(v, None, "solver time limit in seconds, 0 for none (default: none)")
    add_checks(v)
    add_solver(v, "the checks")


def run(args: argparse.Namespace) -> int:
    result = api.verify(args.file, unwind=args.unwind, entry=args.entry, timeout=args.timeout, started=args.started,
                        checks=checks_of(args), reference=reference_of(args), solver=args.solver)
    report = json_report.verify_json(result)
    if not args.json:
        print(text.render_verify(result, result.original))
    failed = finish(args, report, lambda: write_html(args, "verify", report, result.original))
    if failed is not None:
        return failed
    return of_outcome(result.outcome, VERIFY)
