"""The heap repair and gradient localization through the API (issue 24:
the command line bypassed it): ``crepair.repair(path, spec=...)`` with heap
states is a run with a ``record()``, widened as the command line widens;
``crepair.api.localize_gradient`` takes the states as keywords."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import crepair
from crepair import api
from crepair.errors import UsageError
from crepair.records import RepairOutcome, StopReason
from crepair.specification import HeapStates, Specification

DATA = Path(__file__).parent / "data" / "heap"
PROG = DATA / "fig1_reverse.c"
SPEC = DATA / "fig2_states.json"

pytestmark = pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")


def test_the_api_run_widens_and_reports_a_record():
    widened = []
    run = crepair.repair(PROG, spec=Specification(states=HeapStates(states=str(SPEC))),
                         on_widen=lambda previous, slots: widened.append((previous, slots)))
    before = run.record()
    assert (before.function, before.calls, before.events, before.slots) == ("reverse", 3, 14, (0, 1, 2))
    assert before.outcome == RepairOutcome.UNKNOWN and before.found == 0
    repairs = list(run)
    record = run.record()
    assert widened == [(0, 1)]  # 0 slots: no repair; 1: the missing head = current
    assert (record.outcome, record.stopped, record.insert_slots, record.found) == (
        RepairOutcome.REPAIRED, StopReason.MAX_REPAIRS, 1, 1)
    (rep,) = repairs
    assert sorted(c.after.strip() for c in rep.changes) == ["current != NULL", "head = current;",
                                                             "temp2 = current->next;"]
    assert type(rep.evidence).__name__ == "MatchesStates" and rep.seconds <= record.seconds + 1e-6
    assert list(run) == repairs  # a second iteration gives the same repairs, without a second search


def test_the_report_renders_the_record():
    from crepair.report import heap

    run = crepair.repair_heap(PROG, states=SPEC, insert_slots=0)
    assert list(run) == []
    record = run.record()
    assert record.outcome == RepairOutcome.NO_REPAIR and record.slots == (0,)
    assert heap.render_header(record).endswith("function reverse, 3 calls, 14 events, 0 insertion slots, "
                                               "localization on")
    assert heap.render_summary(record).startswith("\nno-repair: 0 repair(s) with 0 insertion slot(s); "
                                                  "localization 8 of 9 locations suspicious")


def test_gradient_localization_through_the_api():
    result = crepair.localize_gradient(PROG, states=SPEC)
    assert result.function == "reverse" and result.total == 9
    assert 16 in [span.line for span, _ in result.locations]
    assert result.as_json()["outcome"] == "localized"


@pytest.mark.parametrize("kwargs, message", [
    ({"states": SPEC, "states_from": PROG}, "give one specification"),
    ({"states_from": PROG}, "need the function under repair"),
    ({}, "exactly one of --states SPEC.json and --states-from"),
])
def test_bad_heap_options_are_usage_errors(kwargs, message):
    with pytest.raises(UsageError, match=message):
        api.repair_heap(PROG, function="reverse" if not kwargs else None, **kwargs)
    with pytest.raises(UsageError, match=message):
        api.localize_gradient(PROG, function="reverse" if not kwargs else None, **kwargs)


def test_a_widening_the_time_limit_cuts_short_is_unknown_not_no_repair(monkeypatch):
    """0 slots found nothing and the time limit passed before 1 was tried:
    a repair may still exist, so the outcome is unknown (exit 4), not
    no-repair (exit 5) as the command line said."""
    import time

    from crepair import exit_codes
    from crepair.schemes.time_limit import Deadline

    run = api.repair_heap(PROG, states=SPEC, timeout=120)
    run.deadline = Deadline(time.monotonic() - 1)  # passed when the widening comes (the 0-slot attempt keeps its own)
    assert list(run) == []
    record = run.record()
    assert (record.outcome, record.stopped, record.insert_slots) == (RepairOutcome.UNKNOWN, StopReason.TIMEOUT, 0)
    assert exit_codes.of_outcome(record.outcome, exit_codes.HEAP) == exit_codes.ExitCode.UNKNOWN
