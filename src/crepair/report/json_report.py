"""JSON renderings (stable keys; lines and columns 1-based, offsets 0-based,
times in seconds)."""

from __future__ import annotations

import json
import math
from typing import Any

from crepair.bmc import VerifyResult

from crepair.counterexample import ArrayValue, Counterexample
from crepair.frontend import Span
from crepair.localization.result import LocalizeResult
from crepair.localization.spectrum import SpectrumResult
from crepair.options import Method
from crepair.records import BoundedProof, BoundReport, EquivalenceProof, PassesSuite, PassesTests, Repair
from crepair.run_record import RunRecord


def span_dict(span: Span) -> dict[str, Any]:
    return {
        "file": span.file, "line": span.line, "column": span.column,
        "end_line": span.end_line, "end_column": span.end_column,
        "start": span.start, "end": span.end,
    }


def bound_dict(report: BoundReport) -> dict[str, Any]:
    return {
        "unwind": report.bound,
        "too_small": report.too_small,
        "cut": None if report.cut is None else {"what": report.cut.what, "span": span_dict(report.cut.span)},
        "needed": report.needed,
        "message": report.message(),
    }


def _floating(i) -> float | str:
    """A float/double input's value as a JSON number (its bit pattern read
    as IEEE-754), or its text for an infinity or a NaN."""
    text = i.text()
    number = float(text)
    return number if math.isfinite(number) else text


def _value(value):
    if isinstance(value, ArrayValue):
        return {"entries": {str(i): v for i, v in sorted(value.entries.items())}, "default": value.default}
    return value


def counterexample_dict(cex: Counterexample | None) -> dict[str, Any] | None:
    if cex is None:
        return None
    return {
        "violated": cex.violated.value,
        "detail": cex.detail,
        "assertion": span_dict(cex.assertion),
        "inputs": [
            {"label": i.label, "line": i.line, "value": _floating(i) if i.floating else _value(i.value),
             "executed": i.executed, "variable": i.variable} for i in cex.inputs
        ],
        "lines": list(cex.lines),
    }


def verify_json(result: VerifyResult) -> str:
    data = {
        "file": result.path,
        "entry": result.entry,
        "outcome": result.outcome.value,
        "reason": result.reason,
        "bound": bound_dict(result.bound),
        "counterexample": counterexample_dict(result.counterexample),
        "found_within": result.found_within or None,
        "seconds": round(result.seconds, 3),
        "warnings": list(result.warnings),
        "solver": result.backend,
        "decided_by": result.solver or None,
    }
    return json.dumps(data, indent=2)


def evidence_dict(repair: Repair) -> dict[str, Any]:
    ev = repair.evidence
    if isinstance(ev, BoundedProof):
        return {"kind": "bounded-proof", "unwinding_assertions": ev.unwinding_assertions,
                "bound": bound_dict(ev.bound), "vacuous": ev.vacuous, "text": ev.describe()}
    if isinstance(ev, EquivalenceProof):
        return {"kind": "proof", "unwind": ev.bound, "input_bound": ev.input_bound, "vacuous": False,
                "tests": _suite_dict(ev.tests), "text": ev.describe()}
    if isinstance(ev, PassesSuite):
        return {"kind": "tests", "plausible": True, "vacuous": False, **_suite_dict(ev),
                "not_proved": ev.why_not_proved, "text": ev.describe()}
    if isinstance(ev, PassesTests):
        return {"kind": "tests", "plausible": True, "passed": ev.passed, "total": ev.total, "vacuous": False,
                "text": ev.describe()}
    return {"kind": type(ev).__name__, "vacuous": ev.vacuous, "text": ev.describe()}


def _suite_dict(ev: PassesSuite) -> dict[str, Any]:
    return {"given": ev.given, "generated": ev.generated, "counterexamples": ev.counterexamples,
            "held_back": ev.held_back}


def repair_dict(repair: Repair) -> dict[str, Any]:
    return {
        "size": repair.size,
        "scheme": repair.scheme.value,
        "stage": repair.stage,
        "seconds": round(repair.seconds, 3),
        "vacuous": repair.vacuous,
        "changes": [
            {
                "location": span_dict(c.span),
                "kind": c.kind,
                "function": c.function,
                "original": c.before,
                "replacement": c.after,
                "edits": [{"span": span_dict(e.span), "kind": e.kind, "old": e.old, "new": e.new} for e in c.edits],
            }
            for c in repair.changes
        ],
        "evidence": evidence_dict(repair),
        "diff": repair.diff,
    }


def repair_json(run: RunRecord, repairs: list[Repair]) -> str:
    o = run.options
    data = {
        "file": run.path,
        "options": {
            "schemes": [x.value for x in o.schemes], "level": int(o.level), "unwind": o.unwind,
            "unwinding": o.unwinding.value, "entry": o.entry, "max_size": o.max_size, "timeout": o.timeout,
            "reproducible": o.reproducible,
            "max_repairs": o.max_repairs, "prune": o.prune.value,
        },
        "bound": bound_dict(run.bound),
        "counterexample": counterexample_dict(run.counterexample),
        "repairs": [repair_dict(r) for r in repairs],
        "schemes": [s.stats.as_dict() for s in run.stages if not s.skipped],
        "schedule": [s.label for s in run.stages] if run.escalate else None,
        "outcome": run.outcome.value,
        "stopped": run.stopped.value,
        "reason": run.unknown_reason or run.unprovable,
        "time_limit": run.time_limit_note,
    }
    return json.dumps(data, indent=2)


def localize_json(result: LocalizeResult) -> str:
    data = {
        "file": result.path,
        "entry": result.entry,
        "method": result.method.value,
        "outcome": result.outcome.value,
        "reason": result.reason,
        "bound": bound_dict(result.bound),
        "locations": [
            {"span": span_dict(o.span), "function": o.function, "location": o.location} for o in result.locations
        ],
        "in_specification": result.in_specification,
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
        "complete": result.complete,
        "guarantee": "every repair within the mutation or arbitrary-expression scheme changes at least one location"
        if result.method == Method.MUST
        else "changing the components of a diagnosis can make the program pass on the failing inputs used",
        "seconds": round(result.seconds, 3),
    }
    return json.dumps(data, indent=2)


def error_json(kind: str, message: str, exit_code: int) -> str:
    """An error as JSON (``kind``: usage, bad-input, missing-tool, internal)."""
    return json.dumps({"error": {"kind": kind, "message": message, "exit_code": exit_code}}, indent=2)


def spectrum_json(result: SpectrumResult) -> str:
    """A spectrum-based localization as JSON: ``outcome`` is ``localized``,
    ``no-failing-test`` or ``no-common-line`` (failing tests share no
    line); ``ranking`` entries have a 1-based ``rank`` and ``line``, the
    ``score`` (a number, or the string ``"inf"``), ``executed_by_failing``,
    ``executed_by_passing`` and the line's ``text``."""
    lines = result.original.split("\n")
    outcome = "localized" if result.ranking else "no-common-line" if result.failing else "no-failing-test"
    data = {
        "file": result.path,
        "method": "spectrum",
        "formula": result.formula.value,
        "outcome": outcome,
        "failing": list(result.failing),
        "passing": list(result.passing),
        "timed_out": list(result.timed_out),
        "estimated_coverage": list(result.estimated),
        "ranking": [
            {
                "rank": rank, "line": r.line,
                "score": "inf" if r.score == float("inf") else round(r.score, 6),
                "executed_by_failing": r.executed_by_failing, "executed_by_passing": r.executed_by_passing,
                "text": lines[r.line - 1].strip() if 0 < r.line <= len(lines) else "",
            }
            for rank, r in enumerate(result.ranking, start=1)
        ],
        "seconds": round(result.seconds, 3),
    }
    return json.dumps(data, indent=2)
