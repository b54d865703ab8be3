"""JSON renderings (stable keys; lines and columns 1-based, times in seconds)."""

from __future__ import annotations

import json
from typing import Any

from crepair.api import LocalizeResult, RepairRun
from crepair.frontend import Span
from crepair.schemes.mutation import Repair
from crepair.bmc import VerifyResult


def span_dict(span: Span) -> dict[str, Any]:
    return {
        "file": span.file, "line": span.line, "column": span.column,
        "end_line": span.end_line, "end_column": span.end_column,
        "start": span.start, "end": span.end,
    }


def bound_dict(report) -> dict[str, Any]:
    return {
        "unwind": report.bound,
        "too_small": report.too_small,
        "cut": None if report.cut is None else {"what": report.cut.what, "span": span_dict(report.cut.span)},
        "message": report.message(),
    }


def counterexample_dict(cex) -> dict[str, Any] | None:
    if cex is None:
        return None
    return {
        "assertion": span_dict(cex.assertion),
        "inputs": [{"label": i.label, "line": i.line, "value": i.value} for i in cex.inputs],
        "lines": list(cex.lines),
    }


def verify_json(result: VerifyResult) -> str:
    data = {
        "file": result.path,
        "entry": result.entry,
        "outcome": result.outcome.value,
        "bound": bound_dict(result.bound),
        "counterexample": counterexample_dict(result.counterexample),
        "seconds": round(result.seconds, 3),
        "warnings": list(result.warnings),
    }
    return json.dumps(data, indent=2)


def repair_dict(repair: Repair) -> dict[str, Any]:
    return {
        "size": repair.size,
        "scheme": repair.scheme,
        "seconds": round(repair.seconds, 3),
        "changes": [
            {
                "location": span_dict(c.location.span),
                "kind": c.location.kind.value,
                "function": c.location.function,
                "original": c.original,
                "replacement": c.replacement,
                "old_token": c.mutation.old_text,
                "new_token": c.mutation.new_text,
            }
            for c in repair.changes
        ],
        "bound": None if repair.bound is None else bound_dict(repair.bound),
        "diff": repair.diff,
    }


def repair_json(run: RepairRun, repairs: list[Repair]) -> str:
    s = run.stats
    o = run.options
    data = {
        "file": run.program.path,
        "options": {
            "schemes": [x.value for x in o.schemes], "level": int(o.level), "unwind": o.unwind, "entry": o.entry,
            "max_size": o.max_size, "timeout": o.timeout, "max_repairs": o.max_repairs,
            "prune": o.prune.value,
        },
        "bound": bound_dict(run.bound),
        "repairs": [repair_dict(r) for r in repairs],
        "stats": {
            "locations": s.locations,
            "search_space": {str(k): v for k, v in s.space.items()},
            "covered_seconds": {str(k): round(v, 3) for k, v in s.covered.items()},
            "smt_checks": s.checks,
            "localizations": s.localizations,
            "localization_seconds": round(s.localization_seconds, 3),
            "fresh_checks": s.fresh_checks,
            "unknown_checks": s.unknown_checks,
            "seconds": round(s.seconds, 3),
            "complete": s.complete,
            "outcome": s.outcome.value,
        },
        "template": {
            "diagnoses": run.template_stats.diagnoses,
            "repairs": run.template_stats.repairs,
            "checks": run.template_stats.checks,
            "seconds": round(run.template_stats.seconds, 3),
            "outcome": run.template_stats.outcome.value,
        },
        "outcome": run.outcome.value,
    }
    return json.dumps(data, indent=2)


def localize_json(result: LocalizeResult) -> str:
    data = {
        "file": result.path,
        "entry": result.entry,
        "method": result.method.value,
        "outcome": result.outcome.value,
        "bound": bound_dict(result.bound),
        "locations": [
            {"span": span_dict(o.span), "function": o.function, "location": o.location} for o in result.locations
        ],
        "counterexample": counterexample_dict(result.counterexample),
        "diagnoses": [
            {
                "size": d.size,
                "seconds": round(d.seconds, 3),
                "components": [
                    {"span": span_dict(l.span), "function": l.function, "kind": l.kind.value, "text": l.text}
                    for l in d.components
                ],
            }
            for d in result.diagnoses
        ],
        "guarantee": "every repair within the mutation or arbitrary-expression scheme changes at least one location"
        if result.method.value == "must"
        else "changing the components of a diagnosis can make the program pass on the failing inputs used",
        "seconds": round(result.seconds, 3),
    }
    return json.dumps(data, indent=2)
