#!/usr/bin/env python3
"""Benchmark: AllRepair without pruning vs FL-AllRepair (must-location pruning).

Runs ``crepair.repair(..., prune="none")`` and ``crepair.repair(...,
prune="must")`` side by side, under the same per-run time limit, on

* ``tcas``:  the 41 TCAS spec files ``SHARED/benchmarks/tcas/spec/tcas_vN.c``
  at level 2, max_size 2, unwind 8;
* ``qlose``: the 30 files of ``SHARED/benchmarks/qlose/loops/`` at levels 1
  and 2, max_size 2, unwind 10 (N = 7; evalpoly_v3's faulty loop runs 9 times);
* ``loops``: the 10 files of ``SHARED/benchmarks/loops/`` at levels 1 and 2,
  max_size 2, unwind 3 (entry ``sum`` for sum.c and sum2.c, whose ``main``
  is empty),

and compares SMT checks, times and the repairs found (``must_report``).
Proposition 1 of FL-AllRepair (CAV'20) says that both find the same
minimal repairs.

Usage (from the repository root)::

    python bench/must_pruning.py [--timeout 600] [--jobs 2] [--suite tcas,qlose,loops]
                                 [--files tcas_v1.c,sum.c] [--resume]

The markdown report goes to ``bench/results/must-pruning.md`` (raw data to
``bench/results/must-pruning.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import fmt_s  # noqa: E402
from harness.records import search_records  # noqa: E402
from harness.runner import Benchmark, Job, main  # noqa: E402
from harness.setup import REPO  # noqa: E402
from must_report import PRUNES, SUITES, file_order, outcome_cell, report, run_order  # noqa: E402

MAX_SIZE = 2
ENTRY = {("loops", "sum.c"): "sum", ("loops", "sum2.c"): "sum"}  # their main is empty
FOLDERS = {"tcas": "tcas/spec", "qlose": "qlose/loops", "loops": "loops"}
LEVELS = {"tcas": (2,), "qlose": (1, 2), "loops": (1, 2)}


@dataclass
class PruneJob(Job):
    SETUP = ("max_size", "unwind", "entry", "timeout", "unwinding")
    PARAMS = ("path", "level", "max_size", "unwind", "entry", "timeout", "prune", "unwinding")

    suite: str
    file: str
    path: str
    level: int
    prune: str
    max_size: int
    unwind: int
    entry: str
    timeout: float
    unwinding: str = ""  # "" in runs recorded before the option existed (unwinding assumptions)

    @property
    def key(self) -> tuple:
        return (self.suite, self.file, self.level, self.prune)


class MustPruning(Benchmark):
    name = "must-pruning"
    job = PruneJob
    modules = ("must_report.py",)
    grace = 120  # a worker is killed 120 s after its search's time limit

    def add_options(self, ap) -> None:
        ap.add_argument("--suite", default=",".join(SUITES), help="comma-separated subset of tcas,qlose,loops")
        ap.add_argument("--interleave", action="store_true",
                        help="take the (file, level) pairs of the suites in turn, so partial results cover every suite")
        ap.add_argument("--files", default="", help="comma-separated file names to run (e.g. tcas_v1.c,sum.c)")
        ap.add_argument("--levels", default="", help="comma-separated levels to keep (default: each suite's levels)")
        ap.add_argument("--compare", metavar="REV", default=None, help="add the changes since the raw JSON "
                        "committed at git revision REV (bench/results/must-pruning.json there)")
        ap.add_argument("--unwinding", choices=("assertions", "assumptions"), default="assertions",
                        help="crepair's unwinding semantics (default assertions)")
        for suite, bound in (("tcas", 8), ("qlose", 10), ("loops", 3)):
            ap.add_argument(f"--unwind-{suite}", type=int, default=bound, help=f"(default {bound})")

    def suites(self) -> list[str]:
        suites = [s.strip() for s in self.args.suite.split(",") if s.strip()]
        if any(s not in SUITES for s in suites):
            raise SystemExit(f"--suite: a subset of {','.join(SUITES)}")
        return suites

    def unwind(self, suite: str) -> int:
        return getattr(self.args, f"unwind_{suite}")

    def jobs(self) -> dict:
        a = self.args
        want_files = {f.strip() for f in a.files.split(",") if f.strip()}
        want_levels = {int(x) for x in a.levels.split(",") if x.strip()}
        suites = self.suites()
        pairs = []  # (suite, path, level) in the order of --suite, file, level
        for s in suites:
            for path in sorted((self.shared / "benchmarks" / FOLDERS[s]).glob("*.c"), key=lambda p: file_order(p.name)):
                if (not want_files or path.name in want_files):
                    pairs += [(s, path, lv) for lv in LEVELS[s] if not want_levels or lv in want_levels]
        missing = want_files - {p.name for _, p, _ in pairs}
        if missing:
            raise SystemExit(f"--files: not in the selected suites: {', '.join(sorted(missing))}")
        if a.interleave:  # the i-th pair of every suite, then the (i+1)-th, ...
            rank = {}
            for s in suites:
                rank.update({x: i for i, x in enumerate(x for x in pairs if x[0] == s)})
            pairs.sort(key=lambda x: (rank[x], suites.index(x[0])))
        jobs = [PruneJob(s, path.name, str(path), lv, pr, MAX_SIZE, self.unwind(s), ENTRY.get((s, path.name), "main"),
                         a.timeout, a.unwinding)
                for s, path, lv in pairs for pr in PRUNES]  # the two runs of a pair next to each other
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"max_size": MAX_SIZE, "unwinding": self.args.unwinding, "compare": self.args.compare,
                "suites": {s: {"folder": f"{self.shared}/benchmarks/{FOLDERS[s]}", "levels": list(LEVELS[s]),
                               "unwind": self.unwind(s)} for s in self.suites()}}

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        for s in {j.suite for j in jobs.values()} - set(meta["suites"]):  # resumed runs outside the selection
            j = next(j for j in jobs.values() if j.suite == s)
            meta["suites"][s] = {"folder": str(Path(j.path).parent), "levels": LEVELS[s], "unwind": j.unwind}
        meta["suites"] = {s: meta["suites"][s] for s in SUITES if s in meta["suites"]}
        rev = self.args.compare or meta.get("compare")
        return report(jobs, meta, final, MAX_SIZE, rev and self.committed(rev))

    def committed(self, rev: str) -> tuple[dict, str] | None:
        """The runs of bench/results/must-pruning.json at git revision ``rev``."""
        path = "bench/results/must-pruning.json"
        git = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=REPO, capture_output=True, text=True)
        if git.returncode:
            print(f"--compare: no {path} at {rev}: {git.stderr.strip()}", file=sys.stderr)
            return None
        jobs = [PruneJob.from_record(rec) for rec in json.loads(git.stdout)["runs"]]
        return {j.key: j for j in jobs}, f"`{path}` at {rev}"

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        run = crepair.repair(p["path"], level=p["level"], max_size=p["max_size"], unwind=p["unwind"],
                             entry=p["entry"], timeout=p["timeout"], prune=p["prune"], unwinding=p["unwinding"])
        search_records(fh, t0, run)

    def sort_key(self, job: PruneJob) -> tuple:
        return run_order(job)

    def progress(self, job: PruneJob) -> str:
        st = job.stats
        cov = st.get("covered", {})
        first = min((r["seconds"] for r in job.repairs), default=None)
        return (f"{job.suite}/{job.file} L{job.level} {job.prune}: {outcome_cell(job)}, repairs {len(job.repairs)}, "
                f"first {fmt_s(first)} s, covered1 {fmt_s(cov.get('1'))} s, covered2 {fmt_s(cov.get('2'))} s, "
                f"checks {st.get('checks', '-')}, FL {st.get('localizations', '-')}, search {fmt_s(st.get('seconds'))} s, "
                f"wall {job.wall:.0f} s")


if __name__ == "__main__":
    sys.exit(main(MustPruning(__file__), __doc__))
