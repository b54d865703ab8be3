"""Text and JSON of a repair run against a reference, checked in stages.

Every repair states its evidence and never more: ``proof (unwind k,
input bound m)`` when the bounded equivalence check proved it, else the
tests it passed (given, generated from the reference, counterexamples).
"""

from __future__ import annotations

import json
from typing import Any

from crepair.records import Repair, RepairOutcome
from crepair.report.json_report import repair_dict
from crepair.report.text import edits_text, plural


def render_header(run) -> str:
    """What is checked: the reference, the tests by source, the limits."""
    o, s = run.options, run.stats
    timeout = "none" if o.timeout is None else f"{o.timeout:g} s"
    lines = [
        f"crepair repair {run.path}: against reference {run.reference.path} (its main, standard input and output), "
        f"checked in stages, output compared {o.compare.value}, time limit {timeout}",
        f"tests: {plural(s.given, 'given test')}, {s.generated} generated from them with the reference's outputs"
        + (f" ({s.invalid} more rejected: the reference's run was not normal)" if s.invalid else "")
        + (f", {s.held_back} more held back to confirm a patch that passes them" if s.held_back else "")
        + (f", {plural(s.counterexamples, 'counterexample')} of the bounded check" if s.counterexamples else ""),
        f"proof last: bounded equivalence with the reference (unwind {o.unwind}, up to "
        f"{o.deepest_unwind} if the reference's runs need more; input bound {run.reference.input_bound})",
    ]
    lines += [f"note: {n}" for n in s.notes]
    return "\n".join(lines)


def render_repair(repair: Repair, index: int) -> str:
    """One repair: its evidence, where, what, the diff."""
    out = [f"repair {index} ({repair.evidence.describe()}; size {repair.size}, found after {repair.seconds:.2f} s)"]
    for ch in repair.changes:
        tokens = edits_text(ch.edits)
        out.append(f"  {ch.span.file}:{ch.span.line}: {tokens} ({ch.kind})")
    out.append(repair.diff.rstrip("\n"))
    return "\n".join(out)


def render_summary(run, repairs: list[Repair]) -> str:
    """The outcome and what the stages did."""
    s = run.stats
    proved = sum(1 for r in repairs if type(r.evidence).__name__ == "EquivalenceProof")
    if run.outcome == RepairOutcome.REPAIRED:
        what = f"{plural(len(repairs), 'repair')}, {proved} proved"
        if proved < len(repairs):
            what += ("; the others pass every test" if proved else "; it passes every test" if len(repairs) == 1
                     else "; they pass every test") + " but the bounded check did not decide them"
    elif run.outcome == RepairOutcome.UNKNOWN:
        what = f"{run.reason or 'stopped'} before a repair was found"
    else:
        what = run.reason or run.stopped.value
    return "\n".join([
        f"outcome: {run.outcome.value} ({what})",
        f"{s.explored} candidates explored in {plural(s.rounds, 'round')} "
        f"with {plural(s.executions, 'test execution')}; "
        f"{s.plausible} passed the tests searched, {s.refuted} refuted by the other tests"
        + (f" ({s.held_back_refuted} by held-back inputs)" if s.held_back_refuted else "") + " "
        f"({plural(s.guided, 'refuting test')} added to the search); "
        f"{plural(s.proofs, 'bounded check')} ({s.proved} proved, {s.undecided} undecided); "
        f"{plural(s.counterexamples, 'counterexample test')}; {run.seconds:.1f} s",
        *([f"the reference's answers to {cache.hits} of {cache.hits + cache.misses} questions (outputs, its own "
           f"bounded check) were kept from earlier runs ({cache.path})"] if (cache := _cache(run)) else []),
    ])


def _cache(run):
    """The reference's cache of the run (:class:`~crepair.oracle.cache.ReferenceCache`; None: none)."""
    return run.checks.oracle.cache


def evidence_level(repair: Repair) -> str:
    """``proof``, ``tests`` or ``plausible``: the strength of a repair's evidence."""
    name = type(repair.evidence).__name__
    return {"EquivalenceProof": "proof", "PassesSuite": "tests"}.get(name, "plausible")


def run_json(run, repairs: list[Repair]) -> str:
    """The whole run as one JSON object."""
    o, s = run.options, run.stats
    data: dict[str, Any] = {
        "file": str(run.path),
        "scheme": "reference-staged",
        "options": {"reference": run.reference.path, "compare": o.compare.value, "timeout": o.timeout,
                    "unwind": o.unwind, "input_bound": run.reference.input_bound, "generated": o.generated,
                    "held_back": o.held_back, "solver": o.solver},
        "tests": {"given": s.given, "failing_given": s.failing_given, "generated": s.generated,
                  "rejected_generated": s.invalid, "held_back": s.held_back, "counterexamples": s.counterexamples},
        "repairs": [{**repair_dict(r), "evidence_level": evidence_level(r)} for r in repairs],
        "outcome": run.outcome.value,
        "stopped": run.stopped.value,
        "reason": run.reason,
        "stats": {"explored": s.explored, "executions": s.executions, "plausible": s.plausible,
                  "refuted": s.refuted, "refuted_by_held_back": s.held_back_refuted, "guided": s.guided,
                  "proofs": s.proofs, "proved": s.proved, "undecided": s.undecided,
                  "rounds": s.rounds, "seconds": round(run.seconds, 3)},
        "cache": None if (cache := _cache(run)) is None else {
            "file": str(cache.path), "kept": cache.hits, "asked": cache.hits + cache.misses},
        "notes": list(s.notes),
    }
    return json.dumps(data, indent=2)
