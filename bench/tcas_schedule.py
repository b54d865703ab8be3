#!/usr/bin/env python3
"""Benchmark: the bounded schemes together (mutation, then templates) on the 41 TCAS versions.

For each ``SHARED/benchmarks/tcas/spec/tcas_vN.c`` one worker runs, within
one time budget (``--timeout``, default 600 s):

1. the mutation scheme (AllRepair, FM'16) at level 2, max size 1, with
   macro bodies as locations;
2. only when it found no repair, the template scheme (FMCAD'11 diagnosis
   and linear templates, with the f1x refinements ``e && b``, ``e || b``),
   (size-1 diagnoses) stopped after ``--template-repairs`` repairs (2);

then ranks the repairs found (``crepair.schemes.ranking``) and checks every
repair on the SIR program and its 1608-test universe (``tcas_universe``).
The headline is the number of versions whose *first-ranked* repair passes
the whole universe.

Usage (from the repository root)::

    python bench/tcas_schedule.py [--versions 5,13,...] [--timeout 600] [--jobs 2] [--resume]

The markdown report goes to stdout and ``bench/results/tcas-schedule.md``
(raw data ``bench/results/tcas-schedule.json``); progress to stderr.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.records import emit, repair_record, start_record  # noqa: E402
from harness.runner import Job, main  # noqa: E402
from tcas_universe import TcasBench, universe_cell  # noqa: E402

# run order: the targets and the template versions first, the
# versions no scheme is expected to repair last (see WHY in the report)
PRIORITY = (5, 26, 27, 13, 14, 2, 7, 8, 34, 1, 3, 4, 6, 9, 10, 12, 16, 17, 18, 19, 20, 25, 28, 31, 32, 35, 36, 39,
            40, 41, 38, 29, 30, 37, 15, 22, 24, 21, 23, 11, 33)

@dataclass
class ScheduleJob(Job):
    SETUP = ("timeout", "unwind", "template_repairs")
    PARAMS = ("path", "timeout", "unwind", "template_repairs")

    version: int
    timeout: float = 600
    unwind: int = 8
    template_repairs: int = 2
    path: str = ""
    stages: list = field(default_factory=list)
    ranking: list = field(default_factory=list)

    @property
    def key(self) -> tuple:
        return (self.version,)


STAGES = (
    ("mutation", dict(scheme="mutation", level=2, max_size=1)),
    ("template", dict(scheme="template", max_size=1, max_diagnoses=10, components={"rhs", "cond"}, inputs=2)),
)


class TcasSchedule(TcasBench):
    name = "tcas-schedule"
    job = ScheduleJob
    modules = TcasBench.modules + ("tcas_schedule_report.py",)

    def add_options(self, ap) -> None:
        super().add_options(ap)
        ap.add_argument("--template-repairs", type=int, default=2,
                        help="stop the template scheme after this many repairs (default 2)")

    def jobs(self) -> dict:
        order = {v: i for i, v in enumerate(PRIORITY)}
        versions = sorted(self.args.versions, key=lambda v: (v not in order, order.get(v, v)))
        jobs = [ScheduleJob(v, timeout=self.args.timeout, unwind=self.args.unwind,
                            template_repairs=self.args.template_repairs, path=str(self.spec(v))) for v in versions]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"versions": self.args.versions, "options": {"stages": [[n, {k: sorted(v) if isinstance(v, set) else v
                                                                            for k, v in o.items()}] for n, o in STAGES],
                                                            "template_repairs": self.args.template_repairs}}

    def sort_key(self, job):
        return job.key

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair
        from crepair.frontend import load_program
        from crepair.schemes.ranking import RepairRanking

        found = []
        last = None
        for name, opts in STAGES:
            left = p["timeout"] - (time.monotonic() - t0)
            if left < 5:
                break
            extra = {"max_repairs": p["template_repairs"], "repairs_per_diagnosis": p["template_repairs"]} \
                if name == "template" else {}
            run = crepair.repair(p["path"], timeout=left, unwind=p["unwind"], entry="main", **opts, **extra)
            if last is None:
                emit(fh, start_record(run, t0))
            last = run
            for r in run:
                found.append(r)
                rec = repair_record(len(found), r)
                rec["seconds"] = time.monotonic() - t0  # since the worker started (both stages)
                emit(fh, rec)
            emit(fh, {"type": "stage", "scheme": name, "outcome": run.outcome.value, "stopped": run.stopped.value,
                      "reason": run.unknown_reason, "stats": run.stats.as_dict(), "at": time.monotonic() - t0})
            if found or not run.searched:
                break
        ranking = RepairRanking(load_program(p["path"]), "main")
        order = sorted(range(len(found)), key=lambda i: ranking.key(found[i], i))
        emit(fh, {"type": "ranking", "order": [i + 1 for i in order],
                  "keys": [list(ranking.key(found[i], i)) for i in order],
                  "new_input_reads": [sorted(ranking.new_input_reads(found[i])) for i in order]})
        outcome = "repaired" if found else last.outcome.value
        emit(fh, {"type": "done", "outcome": outcome, "stopped": last.stopped.value, "reason": last.unknown_reason,
                  "stats": last.stats.as_dict(), "wall_seconds": time.monotonic() - t0})

    def after(self, job: ScheduleJob, others: list[dict]) -> None:
        job.stages = [r for r in others if r["type"] == "stage"]
        job.ranking = next((r["order"] for r in others if r["type"] == "ranking"), [])
        super().after(job, others)

    def first(self, job: ScheduleJob) -> dict | None:
        """The first-ranked repair record of ``job``."""
        if not job.repairs:
            return None
        index = job.ranking[0] if job.ranking else 1
        return next(r for r in job.repairs if r["index"] == index)

    def progress(self, job: ScheduleJob) -> str:
        f = self.first(job)
        return (f"v{job.version}: {job.outcome or job.error}, repairs {len(job.repairs)}, first-ranked "
                f"{universe_cell(f) if f else '-'}, wall {job.wall:.0f} s")

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        from tcas_schedule_report import report

        return report(self, jobs, meta, final)


if __name__ == "__main__":
    sys.exit(main(TcasSchedule(__file__), __doc__))
