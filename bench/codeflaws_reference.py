#!/usr/bin/env python3
"""Benchmark: the 106 Codeflaws defects as ``--reference`` problems (no tests, no harness file).

For each defect ``SHARED/benchmarks/codeflaws/<contest>-<problem>-bug-<buggy>-<fixed>/``:

* ``verify`` (the default task): ``crepair.verify(BUGGY.c, reference=ACCEPTED.c, timeout=T)``
  (``crepair verify BUGGY.c --reference ACCEPTED.c``): both programs read
  the same stdin and must print the same output and return the same value
  from ``main``.  The table gives whether crepair takes the pair (a
  verdict: verified, violated or unknown) or rejects it (the first
  construct it does not model, at file:line:col), and that no run ends in
  a traceback.
* ``repair`` (``--task repair``): the schedule of the issue under one time
  budget (``--timeout``, default 300 s for this task): mutation level 1,
  then level 2 (``max_size=2``, must pruning), then the template scheme,
  each ``crepair.repair(BUGGY.c, reference=ACCEPTED.c, ..., max_repairs=1)``
  with the time left, the next only if the one before found nothing.  The
  first repair, applied to the buggy file, is compared token by token with
  the accepted program ("= accepted", after normalisation: layout, comments
  and parentheses around one token), and run on the defect's valid
  held-out tests (the benchmark runs them; crepair never sees them: its
  specification is the accepted program).

Usage (from the repository root)::

    python bench/codeflaws_reference.py [--only NAME,...] [--timeout 60] [--jobs 2]
    python bench/codeflaws_reference.py --task repair --output bench/results/codeflaws-reference-repair.md

The markdown report goes to stdout and to ``bench/results/codeflaws-reference.md``
(raw data to ``bench/results/codeflaws-reference.json``); progress to stderr.
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codeflaws_checks import CodeflawsSuite, Programs, baseline, load_defects  # noqa: E402
from harness.markdown import fmt_s, header, md_escape, table  # noqa: E402
from harness.records import emit, emit_verify, repair_record  # noqa: E402
from harness.runner import Benchmark, Job, main  # noqa: E402
from tdrepair import patched, same_program  # noqa: E402

_WHERE = re.compile(r"^\S+?:\d+:\d+: ")


@dataclass
class ReferenceJob(Job):
    SETUP = ("task", "timeout", "unwind", "solver")
    PARAMS = ("task", "buggy", "accepted", "timeout", "unwind", "solver")

    defect: str
    klass: str
    task: str  # verify | repair
    buggy: str = ""
    accepted: str = ""
    timeout: float = 60
    unwind: int = 8
    solver: str = "auto"  # verify --solver: auto, z3, bitwuzla or portfolio
    result: dict = field(default_factory=dict)  # the worker's verify/repair summary

    @property
    def key(self) -> tuple:
        return (self.defect, self.task)


def construct(message: str) -> str:
    """A rejection without its file:line:col (what the table groups by)."""
    return _WHERE.sub("", message.splitlines()[0] if message else "")


class CodeflawsReference(CodeflawsSuite, Benchmark):
    name = "codeflaws-reference"
    holding = "benchmarks/codeflaws"
    job = ReferenceJob
    modules = ("codeflaws_checks.py", "tdrepair.py", "tcas_sir.py")
    grace = 60.0  # a run is killed this long after its time limit (a safety net: --timeout bounds the whole run)

    def add_options(self, ap) -> None:
        ap.set_defaults(timeout=None)
        ap.add_argument("--task", choices=("verify", "repair"), default="verify")
        ap.add_argument("--only", default="", help="comma-separated defect names to run")
        ap.add_argument("--unwind", type=int, default=8, help="unwinding bound (default 8)")
        ap.add_argument("--solver", choices=("auto", "z3", "bitwuzla", "portfolio"), default="auto",
                        help="verify: the SMT solver (crepair verify --solver; default auto, crepair's default)")

    def jobs(self) -> dict:
        a = self.args
        if a.timeout is None:
            a.timeout = 300.0 if a.task == "repair" else 60.0
        defects = load_defects(self.root)
        if a.only:
            names = {n.strip().rstrip("/") for n in a.only.split(",") if n.strip()}
            defects = [d for d in defects if d.name in names]
        files = {d.name: d.files() for d in defects}  # a name without .gz, its file maybe gzipped
        jobs = [ReferenceJob(defect=d.name, klass=d.klass, task=a.task, buggy=str(files[d.name][d.buggy]),
                             accepted=str(files[d.name][d.accepted]), timeout=a.timeout, unwind=a.unwind,
                             solver=a.solver)
                for d in defects]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"task": self.args.task, "unwind": self.args.unwind, "only": self.args.only,
                "solver": self.args.solver}

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import gzip

        import crepair
        from crepair.errors import CRepairError

        emit(fh, {"type": "start", "crepair_file": crepair.__file__})
        for key in ("buggy", "accepted"):  # gzipped programs: unpacked into the worker's scratch folder
            if p[key].endswith(".gz"):
                plain = Path(Path(p[key]).name[:-3])
                plain.write_bytes(gzip.decompress(Path(p[key]).read_bytes()))
                p[key] = str(plain.resolve())
        if p["task"] == "verify":
            emit_verify(fh, t0, lambda: crepair.verify(p["buggy"], reference=p["accepted"], timeout=p["timeout"],
                                                       unwind=p["unwind"], solver=p.get("solver", "z3")))
            return
        deadline = time.monotonic() + p["timeout"]
        run, found, tried = None, False, []
        for scheme, level in (("mutation", 1), ("mutation", 2), ("template", 1)):
            left = deadline - time.monotonic()
            if left < 1:
                break
            try:
                run = crepair.repair(p["buggy"], reference=p["accepted"], scheme=scheme, level=level, max_size=2,
                                     timeout=left, unwind=p["unwind"], max_repairs=1)
            except CRepairError as exc:
                emit(fh, {"type": "result", "rejected": str(exc)})
                emit(fh, {"type": "done", "outcome": "rejected", "stopped": "", "reason": "", "stats": {},
                          "wall_seconds": time.monotonic() - t0})
                return
            for n, r in enumerate(run, 1):
                rec = repair_record(n, r)
                rec["level"] = level
                emit(fh, rec)
                found = True
            tried.append(f"{scheme if scheme == 'template' else f'level {level}'}: {run.outcome.value}")
            if found or run.counterexample is None:  # a repair, or nothing to repair
                break
        emit(fh, {"type": "result", "too_small": run.bound.too_small if run else None, "schemes": tried})
        emit(fh, {"type": "done", "outcome": run.outcome.value if run else "unknown",
                  "stopped": run.stopped.value if run else "timeout", "reason": run.unknown_reason if run else "",
                  "stats": run.stats.as_dict() if run else {}, "wall_seconds": time.monotonic() - t0})

    def after(self, job: Job, others: list[dict]) -> None:
        for rec in others:
            if rec["type"] == "result":
                job.result = {k: v for k, v in rec.items() if k != "type"}
        if job.task == "repair" and job.repairs:
            d = next(d for d in load_defects(self.root) if d.name == job.defect)
            buggy, accepted = d.text(d.buggy), d.text(d.accepted)  # also gzipped programs (133-A, 276-B)
            base = baseline(d, self.tmp / "baseline" / job.defect, 2.0)
            programs = Programs(d, self.tmp / "heldout" / job.defect, 2.0)
            for r in job.repairs[:1]:
                text = patched(buggy, r)
                r["as_accepted"] = same_program(text, accepted)
                r["heldout"] = programs.run(text, "heldout", base.get("valid", [])) if "valid" in base else base

    def progress(self, job: Job) -> str:
        what = job.result.get("rejected") or job.error or job.outcome
        return f"{job.defect} {job.task}: {what} ({job.wall:.0f} s)"

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        out = header("Codeflaws through --reference (crepair)", meta, jobs, final)
        out += [f"* Task: {meta.get('task')}; timeout {meta['timeout']:g} s per run, unwinding bound "
                f"{meta.get('unwind')}; solver {meta.get('solver') or 'z3'}; {meta['jobs']} runs in parallel",
                "* `crepair verify BUGGY.c --reference ACCEPTED.c`: the same stdin for both programs (a bounded "
                "stream of tokens, strings up to --input-bound 8 characters), equal outputs as the Codeflaws judge "
                "compares them (empty lines, blanks at the start and end of a line ignored; a printed number is one "
                "token) and equal return values of `main` (crepair.encode.stdin, crepair.encode.stdio)",
                "* *errors*: a traceback, or a run killed 60 s after its time limit: --timeout bounds the "
                "encoding and each solver check, and a watchdog interrupts z3 2 s past a check's limit, but z3 "
                "does not always stop (a large formula being simplified or bit-blasted); the command line then "
                "stops 30 s past --timeout with outcome unknown, the API (which this benchmark calls) does not", ""]
        if meta.get("task") == "repair":
            out[-1:] = ["* Repair schedule within the time limit: mutation level 1, level 2 (max size 2, must "
                        "pruning), then the template scheme, each only if the one before found no repair; "
                        "*= accepted*: the patched program has the accepted program's tokens (layout, comments and "
                        "parentheses around one token ignored); *held-out*: the first repair on the defect's valid "
                        "held-out tests (run by the benchmark; crepair's only specification is the accepted program)",
                        ""]
        runs = sorted(jobs.values(), key=lambda j: j.defect)
        done = [j for j in runs if j.status in ("done", "error")]
        rejected = [j for j in done if j.outcome == "rejected"]
        crashed = [j for j in done if j.error]
        taken = [j for j in done if j.outcome and j.outcome != "rejected" and not j.error]
        small = sum(1 for j in taken if j.result.get("too_small"))
        out += ["## Totals", "",
                f"* {len(done)} of {len(runs)} defects run; accepted (a verdict): {len(taken)}; rejected with an "
                f"unsupported construct or bad input: {len(rejected)}; errors (traceback or killed): {len(crashed)}",
                "* Verdicts of the accepted: " + ", ".join(f"{k} {v}" for k, v in
                                                          sorted(Counter(j.outcome for j in taken).items()))
                + f"; the unwinding bound cut off runs in {small} of them (a verdict there holds up to the bound)"
                + f"; decided (a verdict other than unknown): {sum(j.outcome != 'unknown' for j in taken)} "
                f"of {len(runs)}"
                + (f"; the violation check decided by " + ", ".join(
                    f"{k} {v}" for k, v in sorted(Counter(j.result.get("decided_by") or "none"
                                                          for j in taken).items()))
                   if meta.get("solver") == "portfolio" else ""),
                "* A *violated* verdict is a counterexample: an input on which the two programs print differently "
                "(or one of them has undefined behaviour, e.g. an index out of bounds on an input the problem "
                "statement excludes: the input constraints are not given to crepair)", ""]
        if meta.get("task") == "repair":
            fixed = [j for j in taken if j.repairs]
            held = [j for j in fixed if (j.repairs[0].get("heldout") or {}).get("ok")]
            same = [j for j in fixed if j.repairs[0].get("as_accepted")]
            by = Counter((j.repairs[0].get("scheme"), j.repairs[0].get("level")) for j in fixed)
            out[-2:-2] = [f"* Repaired (a verified repair up to the bound): {len(fixed)} of {len(runs)} "
                          f"(" + ", ".join(f"{sc}{'' if sc == 'template' else f' level {lv}'} {n}"
                                           for (sc, lv), n in sorted(by.items())) + f"); the first repair equals "
                          f"the accepted change: {len(same)}; passes every valid held-out test: {len(held)}"]
        if rejected:
            counts = Counter(construct(j.result.get("rejected", "")) for j in rejected)
            out += ["## First rejecting construct", ""]
            out += table(["construct", "defects"], [[c, str(n)] for c, n in counts.most_common()]) + [""]
        out += ["## Per defect", ""]
        rows = []
        for j in runs:
            if j.task == "repair":
                first = j.repairs[0] if j.repairs else None
                h = (first or {}).get("heldout") or {}
                if first is None:
                    cell = md_escape(str(j.result.get("rejected") or "; ".join(j.result.get("schemes") or [])
                                         or j.reason or ""))
                else:
                    by = "template" if first.get("scheme") == "template" else f"level {first.get('level')}"
                    cell = md_escape(f"{by}: " + "; ".join(f"{c['before']} → {c['after']}" for c in first["changes"]))
                rows.append([j.defect, j.klass, j.error or j.outcome or j.status, cell,
                             "" if first is None else ("yes" if first.get("as_accepted") else "no"),
                             "" if first is None else (f"{h['passed']}/{h['total']}" if "passed" in h
                                                       else md_escape(str(h.get("error", "")))),
                             fmt_s(j.wall if j.status != "pending" else None)])
            else:
                detail = j.result.get("rejected") or j.result.get("violated") or j.reason or ""
                if j.result.get("too_small"):
                    detail += ("; " if detail else "") + "bound too small (vacuous beyond it)"
                if 0 < (j.result.get("found_within") or 0) < (meta.get("unwind") or 8):
                    detail += f"; found within bound {j.result['found_within']}"
                if j.result.get("decided_by") and (meta.get("solver") or "z3") == "portfolio":
                    detail += f" (decided by {j.result['decided_by']})"
                rows.append([j.defect, j.klass, j.error or j.outcome or j.status, md_escape(str(detail)),
                             fmt_s(j.wall if j.status != "pending" else None)])
        head = (["defect", "class", "outcome", "first repair (or what was tried)", "= accepted", "held-out", "wall (s)"]
                if meta.get("task") == "repair" else ["defect", "class", "outcome", "detail", "wall (s)"])
        out += table(head, rows)
        return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main(CodeflawsReference(__file__), __doc__))
