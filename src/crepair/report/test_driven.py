"""Text and JSON of a test-driven repair run (f1x, TOSEM'18).

Every patch is labelled *plausible* with the number of tests it passes:
tests are an incomplete specification, so a patch is never called correct.
"""

from __future__ import annotations

import json
from typing import Any

from crepair.records import Repair, RepairOutcome
from crepair.report.json_report import repair_dict
from crepair.report.text import edits_text, plural
from crepair.run_record import TestDrivenRecord


def render_header(run: TestDrivenRecord) -> str:
    """What was run: the tests found failing and passing, the search space."""
    o, s = run.options, run.stats
    timeout = "none" if o.timeout is None else f"{o.timeout:g} s"
    mode = "test-equivalence partitioning" if o.partition else "no partitioning (enumerative baseline)"
    files = " ".join(run.stats.files) or run.path
    lines = [
        f"crepair repair {files}: scheme test-driven, {mode}, time limit {timeout}, "
        f"test time limit {run.test_timeout} ms" + (" (auto)" if o.test_timeout is None else ""),
        f"tests: {len(run.failing)} failing ({' '.join(run.failing) or '-'}), "
        f"{len(run.passing)} passing",
    ]
    if run.failing:
        schemas = ", ".join(f"{k} {v}" for k, v in sorted(s.by_schema.items()))
        lines.append(f"search space: {plural(s.candidates, 'candidate')} at {plural(s.sites, 'site')} "
                     f"on {plural(len({(r.file, r.line) for r in run.ranking}), 'line')} every failing test executes"
                     + (f" in {plural(len(s.files), 'file')}" if len(s.files) > 1 else "")
                     + (f" ({schemas})" if schemas else ""))
        pruned = {k: v for k, v in s.anti_patterns.items() if v}
        if pruned:
            rules = ", ".join(f"{k} {v}" for k, v in sorted(pruned.items()))
            lines.append(f"anti-patterns: {plural(sum(pruned.values()), 'candidate')} left out ({rules}); "
                         "--anti-patterns none keeps them")
        skipped = len(run.skipped)
        if skipped:
            lines.append(f"note: {plural(skipped, 'place')} left out of the search space "
                         "(unsupported types or code; --json lists them)")
    return "\n".join(lines)


def distance_of(run: TestDrivenRecord, index: int) -> dict | None:
    """The semantic distance of the reported patch ``index`` (1-based):
    ``{"distance", "compared", "cost", "choices", "agree"}``, None when not measured."""
    d = run.stats.distances
    return d[index - 1] if 0 < index <= len(d) else None


def render_patch(repair: Repair, index: int, distance: dict | None = None) -> str:
    """One plausible patch: where, what, the evidence, its semantic
    ``distance`` from the original (:func:`distance_of`) and the diff."""
    far = "" if distance is None else (f"; distance {distance['distance']}: differs from the original on "
                                       f"{distance['distance']} of {distance['compared']} inputs"
                                       + (f", {plural(distance['choices'], 'value')} chosen" if distance.get("choices")
                                          else ""))
    out = [f"patch {index} ({repair.evidence.describe()}{far}; {repair.changes[0].kind}, "
           f"found after {repair.seconds:.2f} s)"]
    for ch in repair.changes:
        tokens = edits_text(ch.edits)
        out.append(f"  {ch.span.file}:{ch.span.line}: {tokens}")
    out.append(repair.diff.rstrip("\n"))
    return "\n".join(out)


def _passed_every_test(run) -> str:
    """How many candidates passed every test in the exploration, and, when
    that is not the number of plausible patches reported, why."""
    s = run.stats
    text = f"{plural(s.plausible, 'candidate')} passed every test"
    if s.plausible == run.found:
        return text
    why = []
    if s.rejected:
        why.append(f"{s.rejected} failed when built alone")
    ranked = getattr(s, "ranking", {}).get("considered", run.found) - run.found
    if ranked > 0:
        why.append(f"{ranked} ranked below by semantic distance")
    rest = s.plausible - run.found - s.rejected - max(ranked, 0)
    if rest > 0:
        why.append(f"{rest} not checked alone: the run stopped first")
    return f"{text} ({run.found} reported as {'a plausible patch' if run.found == 1 else 'plausible patches'}" + (
        f"; {', '.join(why)})" if why else ")")


def render_summary(run: TestDrivenRecord) -> str:
    """The outcome and the exploration counts."""
    s = run.stats
    if run.outcome == RepairOutcome.NO_FAILING_TEST:
        return f"outcome: no-failing-test ({run.reason}): nothing to repair"
    counts = (f"{s.explored} of {s.candidates} candidates explored with {plural(s.executions, 'test execution')} "
              f"({s.ratio:.1f} candidates per execution, {plural(s.partitions, 'partition')}), "
              f"{_passed_every_test(run)}, {run.seconds:.1f} s")
    outcome = run.outcome.value
    if run.outcome == RepairOutcome.REPAIRED:
        what = f"{plural(run.found, 'plausible patch')}; plausible means it passes every test, not that it is correct"
    elif run.outcome == RepairOutcome.EXHAUSTED:
        what = "no plausible patch in the search space"
    elif run.outcome == RepairOutcome.UNKNOWN:
        what = f"{run.reason or 'stopped'} before a plausible patch was found"
    else:
        what = run.reason or run.stopped.value
    lines = [f"outcome: {outcome} ({what})", counts]
    lines += _ranking_lines(run)
    if s.rejected:
        lines.append(f"warning: {s.rejected} candidates passed in the meta-program but not when built alone "
                     "(left out)")
    return "\n".join(lines)


def _ranking_lines(run: TestDrivenRecord) -> list[str]:
    """The ranking's summary and the diversity warning (issue 29, items 2–3)."""
    r = getattr(run.stats, "ranking", {})
    if "considered" not in r:
        return [f"ranking: {r['note']}"] if r.get("note") else []
    skipped = r.get("inputs", 0) - r.get("compared", 0)
    lines = [f"ranking: semantic distance from the original on {plural(r.get('inputs', 0), 'input')} "
             f"(the passing tests' and {r.get('generated', 0)} mutated from them"
             + (f"; {skipped} skipped: the original crashed or timed out" if skipped else "") + "), "
             f"{plural(r['considered'], 'plausible patch')} compared ({r['ended']})"
             + ("; the cost order's first patch was ranked lower" if r.get("moved") else "")]
    k = r.get("alternatives", 0)
    if k:
        lines.append(f"warning: the tests underdetermine the fix: {plural(k, 'alternative')} "
                     f"{'behaves' if k == 1 else 'behave'} differently on generated inputs")
    return lines


def _distance_fields(d: dict | None) -> dict[str, Any]:
    d = d or {}
    return {"distance": d.get("distance"), "distance_inputs": d.get("compared"), "choices": d.get("choices"),
            "agree": d.get("agree"), "cost": d.get("cost")}


def run_json(run: TestDrivenRecord, repairs: list[Repair]) -> str:
    """The whole run as one JSON object (see the README's JSON section)."""
    o, s = run.options, run.stats
    data: dict[str, Any] = {
        "file": run.path,
        "files": list(s.files),
        "scheme": "test-driven",
        "options": {"partition": o.partition, "all": o.all, "timeout": o.timeout,
                    "test_timeout_ms": run.test_timeout, "test_timeout_auto": o.test_timeout is None,
                    "max_repairs": o.max_repairs, "lines": sorted(o.lines) if o.lines is not None else None,
                    "formula": o.formula, "localize_files": o.localize_files, "max_files": o.max_files,
                    "anti_patterns": sorted(r.value for r in o.anti_patterns), "rank": o.rank.value},
        "tests": {"failing": list(run.failing), "passing": list(run.passing)},
        "localization": [{"file": r.file, "line": r.line, "score": r.score} for r in run.ranking],
        "space": {"sites": s.sites, "candidates": s.candidates, "by_schema": s.by_schema,
                  "anti_patterns": s.anti_patterns,
                  "skipped": [{"point": p, "why": why} for p, why in run.skipped]},
        "exploration": {"explored": s.explored, "picked": s.picked, "executions": s.executions,
                        "partitions": s.partitions,
                        "plausible": s.plausible, "ratio": s.ratio, "complete": s.complete,
                        "rejected": s.rejected, "validations": s.validations,
                        "build_seconds": round(s.build_seconds, 3), "seconds": round(s.seconds, 3)},
        "semantic_ranking": s.ranking,
        "repairs": [{"file": r.file, **repair_dict(r), **_distance_fields(distance_of(run, i))}
                    for i, r in enumerate(repairs, 1)],
        "outcome": run.outcome.value,
        "stopped": run.stopped.value,
        "reason": run.reason,
        "seconds": round(run.seconds, 3),
    }
    return json.dumps(data, indent=2)
