#!/usr/bin/env python3
"""Benchmark: crepair's test-driven repair (f1x, TOSEM'18) on the 106 Codeflaws defects.

For each defect ``SHARED/benchmarks/codeflaws/<contest>-<problem>-bug-<buggy>-<fixed>/``
the worker copies the buggy program, its Makefile and its repair tests
(``input-posN``/``output-posN``, ``input-negN``/``output-negN``) into a
temporary folder — never the accepted program nor the held-out tests — and
runs ``crepair repair BUGGY.c --tests-dir . [--no-partition] [--all]
--timeout S --json`` there.  Each defect has up to four runs: *first*
(stop at the first, least-cost plausible patch) and *full* (``--all``: the
whole search space, every plausible patch), each with test-equivalence
partitioning (Algorithm 3) and without (``--no-partition``, the
enumerative Algorithm 2).  After crepair ended, the benchmark alone looks
at every patch (``codeflaws_checks``): is the patched program the accepted
program token for token, does it pass the held-out tests, does it pass the
repair tests.

Usage (from the repository root)::

    python bench/codeflaws.py [--mode first|full|both] [--only NAME,...] [--sample N] [--partition-only]
                              [--rank distance|cost] [--timeout 300] [--jobs 2] [--resume]

The markdown report goes to stdout and to ``bench/results/codeflaws.md``
(raw data to ``bench/results/codeflaws.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codeflaws_checks import CodeflawsSuite, Defect, Programs, baseline, load_defects, prepare  # noqa: E402
from codeflaws_report import report  # noqa: E402
from harness.markdown import fmt_s, outcome_text  # noqa: E402
from harness.records import emit  # noqa: E402
from harness.runner import Benchmark, Job, main  # noqa: E402
from tdrepair import call_failure, outcome_of, patch_key, patched, read_text, repair_record, run_crepair, \
    run_stats, same_program  # noqa: E402

MODES = {"first": ("first",), "full": ("full",), "both": ("first", "full")}


@dataclass
class CodeflawsJob(Job):
    SETUP = ("timeout", "test_timeout", "heldout_timeout", "rank", "reference", "compare", "max_repairs")
    PARAMS = ("defect", "explore", "partition", "timeout", "test_timeout", "keep", "heldout_limit",
              "heldout_timeout", "heldout", "root", "rank", "reference", "compare", "max_repairs")

    defect: str
    klass: str
    explore: str  # first | full
    partition: bool
    timeout: float
    test_timeout: int | None
    keep: int
    heldout_limit: int
    heldout_timeout: float
    root: str = ""
    rank: str = "distance"  # crepair's --rank
    max_repairs: int | None = None  # crepair's --max-repairs (None: its default)
    reference: bool = False  # the accepted program given as --reference (the staged run, issue 27)
    compare: str = "trailing-whitespace"  # crepair's --compare (the runs before 2026-11-28 used its default)
    heldout: list = field(default_factory=list)  # the valid held-out test numbers, set before the run
    plausible: dict = field(default_factory=dict)  # the worker's summary of all plausible patches

    @property
    def key(self) -> tuple:
        return (self.defect, self.explore, "partition" if self.partition else "baseline")


def crepair_args(buggy: str, p: dict) -> list[str]:
    """The ``crepair repair`` arguments of one run (in the defect's copy)."""
    args = ["repair", buggy, "--tests-dir", ".", "--timeout", f"{p['timeout']:g}", "--json"]
    if not p["partition"]:
        args.append("--no-partition")
    if p["explore"] == "full":
        args.append("--all")
    if p["test_timeout"]:
        args += ["--test-timeout", str(p["test_timeout"])]
    if p.get("rank", "distance") != "distance":
        args += ["--rank", p["rank"]]
    if p.get("max_repairs"):
        args += ["--max-repairs", str(p["max_repairs"])]
    if p.get("reference"):
        args += ["--reference", REFERENCE]
    if p.get("compare", "trailing-whitespace") != "trailing-whitespace":
        args += ["--compare", p["compare"]]
    return args


REFERENCE = "../reference/accepted.c"  # beside the run's folder, never among its tests


class Codeflaws(CodeflawsSuite, Benchmark):
    name = "codeflaws"
    holding = "benchmarks/codeflaws"
    job = CodeflawsJob
    modules = ("codeflaws_checks.py", "codeflaws_report.py", "tdrepair.py", "tcas_sir.py")

    def __init__(self, script: str):
        super().__init__(script)
        self.baseline: dict[str, dict] = {}
        self._locks: dict[str, threading.Lock] = {}

    def add_options(self, ap) -> None:
        ap.set_defaults(timeout=300.0)
        for action in ap._actions:
            if action.dest == "timeout":
                action.help = "seconds per crepair run (default 300)"
        ap.add_argument("--mode", choices=sorted(MODES), default="both",
                        help="first: stop at the first plausible patch; full: --all (the whole space); both "
                        "(default): the first-patch runs of every defect, then the full ones")
        ap.add_argument("--only", default="", help="comma-separated defect names (directory names) to run")
        ap.add_argument("--classes", default="", help="comma-separated defect classes to run (ORRN, OILN, ...)")
        ap.add_argument("--sample", type=int, default=None, metavar="N",
                        help="run N defects only, evenly spaced over the selected ones in defects.tsv order (defect "
                        "k*len//N for k = 0..N-1: the same N defects every time)")
        ap.add_argument("--partition-only", action="store_true",
                        help="skip the --no-partition (baseline) runs")
        ap.add_argument("--rank", choices=["distance", "cost"], default="distance",
                        help="crepair's --rank: distance (default, crepair's default) or cost (f1x's order)")
        ap.add_argument("--max-repairs", type=int, default=None, metavar="N",
                        help="crepair's --max-repairs in first mode: N ranked patches reported and checked on the "
                        "held-out tests (default: crepair's own, one), to compare ranking rules on one run")
        ap.add_argument("--reference", action="store_true",
                        help="also give crepair the accepted program (--reference ACCEPTED.c): the staged run "
                        "against a model solution (issue 27); the held-out tests stay unseen")
        ap.add_argument("--compare", choices=["lines", "trailing-whitespace", "tokens", "exact"], default="lines",
                        help="crepair's --compare (default lines: Codeflaws' own judge, test-genprog.sh, which the "
                        "held-out check uses too; the runs before 2026-11-28 used trailing-whitespace)")
        ap.add_argument("--test-timeout", type=int, default=None, metavar="MS",
                        help="crepair's --test-timeout in milliseconds (default: crepair's own)")
        ap.add_argument("--keep-repairs", type=int, default=20, metavar="N",
                        help="plausible patches of a run stored in the raw JSON (default 20; those identical to "
                        "the accepted program are always stored, and all are counted and compared)")
        ap.add_argument("--heldout-limit", type=int, default=20, metavar="N",
                        help="plausible patches per run checked on the held-out tests, in crepair's order (default 20)")
        ap.add_argument("--heldout-timeout", type=float, default=2.0, metavar="S",
                        help="seconds per held-out test execution (default 2)")

    def selected(self) -> list[Defect]:
        defects = load_defects(self.root)
        a = self.args
        if a.only:
            names = {n.strip().rstrip("/") for n in a.only.split(",") if n.strip()}
            unknown = names - {d.name for d in defects}
            if unknown:
                raise SystemExit(f"--only: no such defect: {', '.join(sorted(unknown))}")
            defects = [d for d in defects if d.name in names]
        if a.classes:
            classes = {c.strip().upper() for c in a.classes.split(",") if c.strip()}
            defects = [d for d in defects if d.klass in classes]
        if a.sample is not None and 0 < a.sample < len(defects):
            defects = [defects[k * len(defects) // a.sample] for k in range(a.sample)]
        return defects

    def jobs(self) -> dict:
        a = self.args
        jobs = [CodeflawsJob(defect=d.name, klass=d.klass, explore=explore, partition=part, timeout=a.timeout,
                             test_timeout=a.test_timeout, keep=a.keep_repairs, heldout_limit=a.heldout_limit,
                             heldout_timeout=a.heldout_timeout, root=str(self.root), rank=a.rank,
                             reference=a.reference, compare=a.compare, max_repairs=a.max_repairs)
                for explore in MODES[a.mode] for d in self.selected()
                for part in ((True,) if a.partition_only else (True, False))]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        a = self.args
        return {"mode": a.mode, "defects": [d.name for d in self.selected()], "test_timeout": a.test_timeout,
                "rank": a.rank, "max_repairs": a.max_repairs, "reference": a.reference, "compare": a.compare, "sample": a.sample, "partition_only": a.partition_only,
                "keep_repairs": a.keep_repairs, "heldout_limit": a.heldout_limit,
                "heldout_timeout": a.heldout_timeout}

    def extra_json(self) -> dict:
        return {"baseline": dict(sorted(self.baseline.items()))}

    def load_extra(self, data: dict) -> None:
        self.baseline.update(data.get("baseline", {}))

    def sort_key(self, job: CodeflawsJob):
        return (job.defect, job.explore != "first", not job.partition)

    def ensure_baseline(self, defect: str) -> dict:
        """The held-out oracle of ``defect``, once: the tests the accepted
        program passes, and the buggy program on them."""
        with self.lock:
            lock = self._locks.setdefault(defect, threading.Lock())
        with lock:
            if defect not in self.baseline:
                d = next(d for d in load_defects(self.root) if d.name == defect)
                try:
                    self.baseline[defect] = baseline(d, self.tmp / "baseline" / defect, self.args.heldout_timeout)
                except Exception as exc:  # noqa: BLE001
                    self.baseline[defect] = {"error": f"{type(exc).__name__}: {exc}"}
            return self.baseline[defect]

    def run_job(self, job: CodeflawsJob) -> CodeflawsJob:
        job.heldout = self.ensure_baseline(job.defect).get("valid", [])
        return super().run_job(job)

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        d = next(d for d in load_defects(Path(p["root"])) if d.name == p["defect"])
        scratch = Path(tempfile.mkdtemp(prefix="codeflaws-"))
        try:
            work = scratch / "work"
            buggy = prepare(d, work)
            if p.get("reference"):
                (work / REFERENCE).parent.mkdir()
                (work / REFERENCE).write_bytes(d.data(d.accepted))
            args = crepair_args(buggy.name, p)
            emit(fh, {"type": "start", "setup_seconds": time.monotonic() - t0, "crepair_file": crepair.__file__,
                      "command": "crepair " + " ".join(args)})
            call = run_crepair(args, work, p["timeout"])
            failure = call_failure(call)
            if failure:
                tail = call["stderr"] if call["stderr"] and call["json"] is None else ""
                raise RuntimeError(failure + (f" | stderr: {tail}" if tail else ""))
            original = read_text(buggy)
            check_patches(fh, p, d, original, call["json"].get("repairs") or [], scratch / "checks")
            outcome, stopped, reason = outcome_of(call)
            emit(fh, {"type": "done", "outcome": outcome, "stopped": stopped, "reason": reason,
                      "stats": run_stats(call["json"], call), "wall_seconds": time.monotonic() - t0})
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def after(self, job: CodeflawsJob, others: list[dict]) -> None:
        job.plausible = next((r for r in others if r["type"] == "plausible"), {})

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        return report(self, jobs, meta, final)

    def progress(self, job: CodeflawsJob) -> str:
        e = job.stats.get("exploration", {})
        first = job.repairs[0] if job.repairs else {}
        h = first.get("heldout") or {}
        return (f"{job.defect} {job.explore}/{job.key[2]}: {outcome_text(job) or '?'}, plausible "
                f"{job.plausible.get('count', len(job.repairs))}, identical {len(job.plausible.get('identical', []))}, "
                f"held-out {h.get('passed', '-')}/{h.get('total', '-')}, executions {e.get('executions', '-')}, "
                f"explored {e.get('explored', '-')}, ratio {e.get('ratio', '-')}, {fmt_s(e.get('seconds'))} s, "
                f"wall {job.wall:.0f} s")


def check_patches(fh, p: dict, d: Defect, original: str, repairs: list[dict], scratch: Path) -> None:
    """Write a ``repair`` record per plausible patch (the first ``keep`` and
    every one identical to the accepted program), each with ``identical``
    and, for the first ``heldout_limit``, ``heldout`` and ``repair_tests``;
    then one ``plausible`` record that summarises all of them."""
    accepted = d.text(d.accepted)
    programs = Programs(d, scratch, p["heldout_timeout"])
    identical, keys, checked, passed = [], [], 0, 0
    for n, r in enumerate(repairs, 1):
        rec = repair_record(n, r)
        text = patched(original, rec)
        rec["identical"] = same_program(text, accepted)
        keys.append(patch_key(rec))
        if rec["identical"]:
            identical.append(n)
        if n <= p["heldout_limit"]:
            rec["heldout"] = programs.run(text, "heldout", p["heldout"])
            rec["repair_tests"] = programs.run(text, "repair")
            checked += 1
            passed += bool(rec["heldout"].get("ok"))
        if n <= p["keep"] or rec["identical"]:
            emit(fh, rec)
    emit(fh, {"type": "plausible", "count": len(repairs), "identical": identical, "keys": keys,
              "heldout_checked": checked, "heldout_passed": passed})


if __name__ == "__main__":
    sys.exit(main(Codeflaws(__file__), __doc__))
