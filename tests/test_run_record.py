"""RepairRun.record(): the frozen record the renderers read."""

import dataclasses
import json
from pathlib import Path

import pytest

import crepair
from crepair.report import json_report, text

SUM = Path(__file__).resolve().parents[1] / "examples" / "sum.c"


def test_a_record_is_a_frozen_snapshot_that_the_renderers_read():
    run = crepair.repair(str(SUM), crepair.RepairOptions.of(scheme="mutation", timeout=60))
    before = run.record()
    repairs = list(run)
    after = run.record()
    assert (before.found, before.stats.repairs, after.found, after.stats.repairs) == (0, 0, 1, 1)
    assert after.stats is not run.stats and after.path == str(SUM) and after.original == run.program.original
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.found = 2
    assert text.render_header(before).startswith(f"crepair repair {SUM}: scheme mutation, level 1")
    assert "outcome: repaired (1 repair; all minimal repairs of size <= 2 found)" in text.render_summary(after)
    data = json.loads(json_report.repair_json(after, repairs))
    assert data["outcome"] == "repaired" and data["schemes"][0]["repairs"] == 1 and data["schedule"] is None
