"""Text and JSON of a heap repair run (Wolverine2, Verma & Roy), read from
its :class:`~crepair.run_record.HeapRunRecord` and repairs."""

from __future__ import annotations

import json

from crepair.records import Repair
from crepair.report.json_report import repair_dict
from crepair.report.text import render_repair
from crepair.run_record import HeapRunRecord


def render_header(run: HeapRunRecord) -> str:
    """What is run: the function, the specification's size, the slots."""
    given = (f"{run.slots[0]} insertion slots" if len(run.slots) == 1 else
             f"insertion slots {run.slots[0]}, then up to {run.slots[-1]} while none repairs")
    return (f"crepair repair {run.path}: scheme heap (Wolverine2), function {run.function}, "
            f"{run.calls} calls, {run.events} events, {given}, localization {'on' if run.localization else 'off'}")


def render_widening(previous: int, slots: int) -> str:
    """An attempt with ``previous`` insertion slots found nothing; ``slots`` next."""
    return f"no repair with {previous} insertion slot(s); trying {slots}"


def render_heap_repair(repair: Repair, index: int) -> str:
    """The ``index``-th (1-based) repair and its evidence, after a blank line."""
    return f"\n{render_repair(repair, index)}\n  {repair.evidence.describe()}"


def render_summary(run: HeapRunRecord) -> str:
    """The outcome line, after a blank line."""
    sus = "off" if run.suspicious is None else f"{len(run.suspicious)} of {run.locations} locations suspicious"
    grd, stm, ins = run.tau
    return (f"\n{run.outcome.value}: {run.found} repair(s) with {run.insert_slots} insertion slot(s); "
            f"localization {sus}; widenings {run.widenings} (τ_grd {grd}, τ_stm {stm}, τ_ins {ins}); "
            f"{run.rejected} candidate(s) failed the re-check{'; ' + run.reason if run.reason else ''}")


def run_json(run: HeapRunRecord, repairs: list[Repair]) -> str:
    """The JSON report of ``crepair repair --scheme heap --json`` (times in seconds)."""
    grd, stm, ins = run.tau
    return json.dumps({
        "file": run.path, "scheme": "heap", "outcome": run.outcome.value, "stopped": run.stopped.value,
        "reason": run.reason, "locations": run.locations,
        "suspicious": None if run.suspicious is None else list(run.suspicious),
        "insert_slots": run.insert_slots, "widenings": run.widenings, "tau": {"grd": grd, "stm": stm, "ins": ins},
        "rejected": run.rejected, "checks": run.checks, "seconds": round(run.seconds, 3),
        "repairs": [repair_dict(r) for r in repairs]}, indent=2)
