#!/usr/bin/env python3
"""Benchmark: AllRepair without pruning vs FL-AllRepair (must-location pruning).

Runs ``crepair.repair(..., prune="none")`` and ``crepair.repair(...,
prune="must")`` side by side, under the same per-run time limit, on

* ``tcas``:  the 41 TCAS spec files ``SHARED/benchmarks/tcas/spec/tcas_vN.c``
  at level 2, max_size 2, unwind 8;
* ``qlose``: the 30 files of ``SHARED/benchmarks/qlose/loops/`` at levels 1
  and 2, max_size 2, unwind 10 (N = 7; evalpoly_v3's faulty loop runs 9
  times);
* ``loops``: the 10 files of ``SHARED/benchmarks/loops/`` at levels 1 and 2,
  max_size 2, unwind 3 (entry ``sum`` for sum.c and sum2.c, whose ``main``
  is empty),

and compares SMT checks, times and the repairs found.  Proposition 1 of
FL-AllRepair (CAV'20) says that both find the same minimal repairs.

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
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402  (bench/common.py)
    BenchBase,
    add_output_option,
    add_rerun_options,
    benchmark_parser,
    done_record,
    emit,
    fmt_s,
    job_from_record,
    md_escape,
    outcome_text,
    output_paths,
    pin_crepair,
    read_records,
    record_worker,
    repair_record,
    resumable,
    run_benchmark,
    setup_meta,
    stamp_meta,
    start_record,
    take_records,
    utc_now,
    write_atomic,
    write_results,
)

PRUNES = ("none", "must")
SUITES = ("tcas", "qlose", "loops")
MAX_SIZE = 2
GRACE = 120  # seconds a worker may run past its search's time limit before it is killed
ENTRY_OVERRIDES = {("loops", "sum.c"): "sum", ("loops", "sum2.c"): "sum"}
SUITE_TITLES = {
    "tcas": "TCAS (SIR, spec form)",
    "qlose": "QLOSE loop programs",
    "loops": "Classic loop programs",
}


@dataclass(frozen=True)
class SuiteDef:
    name: str
    folder: str  # relative to SHARED/benchmarks
    levels: tuple[int, ...]
    unwind: int

    def files(self, shared: Path) -> list[Path]:
        folder = shared / "benchmarks" / self.folder
        files = sorted(folder.glob("*.c"))
        if self.name == "tcas":
            files = sorted(files, key=lambda p: int(p.stem.split("_v")[-1]) if p.stem.split("_v")[-1].isdigit() else 0)
        return files


# ---------------------------------------------------------------------------
# Worker: one crepair run, written as JSON lines.
# ---------------------------------------------------------------------------


DONE_FIELDS = ("complete", "repairs", "checks", "fresh_checks", "unknown_checks", "covered", "space", "locations",
               "localizations", "localization_seconds", "seconds")


def worker_main(params_json: str, out: str) -> int:
    p = json.loads(params_json)

    def search(fh, t0: float) -> None:
        import crepair

        run = crepair.repair(
            p["path"], level=p["level"], max_size=p["max_size"], unwind=p["unwind"], entry=p["entry"],
            timeout=p["timeout"], prune=p["prune"],
        )
        emit(fh, start_record(t0, run, crepair.__file__, too_small=run.bound.too_small))
        for n, r in enumerate(run, 1):
            emit(fh, repair_record(n, r, vacuous=None if r.bound is None else r.bound.too_small))
        emit(fh, done_record(run.stats, DONE_FIELDS, t0))

    return record_worker(out, search)


# ---------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------


@dataclass
class Job:
    suite: str
    file: str
    path: str
    level: int
    prune: str
    max_size: int
    unwind: int
    entry: str
    timeout: float
    status: str = "pending"  # pending | running | done | error
    outcome: str = ""
    error: str = ""
    repairs: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    start: dict = field(default_factory=dict)
    wall: float = 0.0
    commit: str = ""
    finished: str = ""
    resumed: bool = False

    @property
    def key(self) -> tuple:
        return (self.suite, self.file, self.level, self.prune)

    def same_setup(self, rec: dict) -> bool:
        return all(rec.get(k) == getattr(self, k) for k in ("max_size", "unwind", "entry", "timeout"))

    def params(self) -> dict:
        return {k: getattr(self, k) for k in ("path", "level", "max_size", "unwind", "entry", "timeout", "prune")}


class Bench(BenchBase):
    def __init__(self, args):
        super().__init__(args, "must-bench-")
        # the workers run a copy of this script (and common.py), so editing
        # bench/ during a long run does not change the runs still to come
        self.worker_script = self.copy_scripts(__file__)

    def watch(self, cmd: list[str], out: Path, timeout: float) -> str:
        """Run a worker; kill it GRACE s after its search's time limit (the
        search starts when the worker writes its start record), or after
        2 × timeout + 180 s if it never starts.  Returns "" or the crash."""
        t0 = time.monotonic()
        deadline = t0 + 2 * timeout + 180
        started = False
        err = out.with_suffix(".stderr")
        try:
            with open(err, "w", encoding="utf-8") as fh:
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=fh, cwd=self.tmp, env=self.env)
                while proc.poll() is None:
                    time.sleep(1)
                    if not started and out.exists() and out.stat().st_size:
                        with open(out, encoding="utf-8") as rf:
                            if rf.readline().endswith("\n"):
                                started = True
                                deadline = time.monotonic() + timeout + GRACE
                    if time.monotonic() > deadline:
                        proc.kill()
                        proc.wait()
                        if started:
                            return (f"killed {GRACE} s after the search's time limit (the search did not stop at "
                                    f"{timeout:g} s)")
                        return f"killed after {time.monotonic() - t0:.0f} s (set-up did not finish)"
        except Exception as exc:  # noqa: BLE001
            return f"{type(exc).__name__}: {exc}"
        if proc.returncode not in (0, 1):
            tail = " | ".join(err.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-2:])
            return f"worker exited with {proc.returncode}" + (f": {tail}" if tail else "")
        return ""

    def run_job(self, job: Job) -> Job:
        job.status = "running"
        t0 = time.monotonic()
        out = self.tmp / f"{job.suite}-{job.file}-l{job.level}-{job.prune}.jsonl"
        cmd = [sys.executable, str(self.worker_script), "--_worker", json.dumps(job.params()), str(out)]
        crash = self.watch(cmd, out, job.timeout)
        job.wall = time.monotonic() - t0
        job.commit = self.commit
        job.finished = utc_now()
        take_records(job, read_records(out), crash, self.crepair_src)
        return job


# ---------------------------------------------------------------------------
# Comparing the two runs of a (file, level)
# ---------------------------------------------------------------------------


def repair_key(r: dict) -> frozenset:
    return frozenset((c["start"], c["new_text"]) for c in r["changes"])


def repair_label(r: dict) -> str:
    parts = [f"L{c['line']} `{c['old_text']}`→`{c['new_text']}`" for c in sorted(r["changes"], key=lambda c: c["start"])]
    return "{" + ", ".join(parts) + "}"


def repair_sort_key(r: dict) -> tuple:
    return (r["size"], sorted((c["start"], c["new_text"]) for c in r["changes"]))


def covered(job: Job, k: int) -> bool:
    return str(k) in job.stats.get("covered", {})


def timed_out(job: Job) -> bool:
    st = job.stats
    return bool(st) and not st.get("complete") and st.get("outcome") != "original-correct" and \
        st.get("seconds", 0) >= job.timeout - 1


def is_vacuous(repair: dict) -> bool:
    """Whether the bound cut off runs of this repaired program (or that was
    unknown); False for records written before crepair reported it."""
    return "vacuous" in repair and repair["vacuous"] is not False


def repairs_cell(job: Job | None) -> str:
    """Number of repairs, and how many of them the bound cuts off (vacuous)."""
    if job is None or job.status == "pending":
        return ""
    vacuous = sum(1 for r in job.repairs if is_vacuous(r))
    return str(len(job.repairs)) + (f" ({vacuous} vacuous)" if vacuous else "")


def outcome_cell(job: Job | None) -> str:
    if job is None:
        return "not run"
    if job.status in ("pending", "running"):
        return job.status
    if job.error:
        return outcome_text(job)
    cell = job.outcome
    if timed_out(job):
        cell = "timeout" if job.outcome == "unknown" else f"{job.outcome} (timeout)"
    unknown = job.stats.get("unknown_checks") or 0
    if timed_out(job):
        unknown -= 1  # the check cut off by the time limit
    if unknown > 0:
        cell += f" ({unknown} unknown checks)"
    return cell


@dataclass
class Pair:
    suite: str
    file: str
    level: int
    none: Job | None
    must: Job | None

    def finished(self) -> bool:
        return all(j is not None and j.status in ("done", "error") for j in (self.none, self.must))

    def ok(self) -> bool:
        return all(j is not None and j.status == "done" for j in (self.none, self.must))

    def both_complete(self) -> bool:
        return self.ok() and all(j.stats.get("complete") or j.outcome == "original-correct" for j in (self.none, self.must))

    def compare(self) -> dict:
        """Repair sets of both runs.  ``only_none``/``only_must``: repairs
        found by one run only; ``lost``: those of them that the timeout or an
        unknown check does not explain (the other run explored all candidates
        of that size with no unknown check) — those would be a bug."""
        if not self.finished():
            return {"status": "n/a"}
        a = {repair_key(r): r for r in self.none.repairs}
        b = {repair_key(r): r for r in self.must.repairs}
        only_none = [a[k] for k in a.keys() - b.keys()]
        only_must = [b[k] for k in b.keys() - a.keys()]

        def unexplained(rs: list, other: Job) -> list:
            return [r for r in rs if covered(other, r["size"]) and not other.stats.get("unknown_checks")]

        lost = {"none": unexplained(only_must, self.none), "must": unexplained(only_none, self.must)}
        return {
            "status": "ok",
            "same": not only_none and not only_must,
            "only_none": sorted(only_none, key=repair_sort_key),
            "only_must": sorted(only_must, key=repair_sort_key),
            "lost": lost,
            "any_lost": bool(lost["none"] or lost["must"]),
        }

    def same_cell(self) -> str:
        if not self.finished():
            return ""
        c = self.compare()
        diffs = []
        if c["only_none"]:
            diffs.append("only none: " + ", ".join(repair_label(r) for r in c["only_none"]))
        if c["only_must"]:
            diffs.append("only must: " + ", ".join(repair_label(r) for r in c["only_must"]))
        if c["any_lost"]:
            return "**NO** — " + "; ".join(diffs)
        if not self.ok():
            return "n/a (error)" + (": " + "; ".join(diffs) if diffs else ": same so far")
        if self.both_complete():
            if self.none.outcome == "original-correct" and self.must.outcome == "original-correct":
                return "yes (original correct)"
            return "yes" if c["same"] else "**NO** — " + "; ".join(diffs)
        why = "timeout" if timed_out(self.none) or timed_out(self.must) else "incomplete"
        if any(j.stats.get("unknown_checks") for j in (self.none, self.must)):
            why += ", unknown checks"
        return f"n/a ({why})" + (": " + "; ".join(diffs) if diffs else ": same so far")

    def checks_ratio(self) -> float | None:
        if not self.ok():
            return None
        n, m = self.none.stats.get("checks"), self.must.stats.get("checks")
        return n / m if n and m else None


def make_pairs(jobs: dict) -> list[Pair]:
    seen: dict[tuple, Pair] = {}
    for (suite, file, level, prune), job in jobs.items():
        p = seen.setdefault((suite, file, level), Pair(suite, file, level, None, None))
        setattr(p, prune, job)
    return list(seen.values())


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "—"


def _pairs_label(pairs: list[Pair]) -> str:
    return ", ".join(f"{p.file} L{p.level}" for p in pairs) or "none"


def suite_table(pairs: list[Pair]) -> list[str]:
    head = ["file", "L", "B", "bound too small"]
    for pr in PRUNES:
        head += [f"{pr}: outcome", f"{pr}: repairs", f"{pr}: SMT checks"]
        if pr == "must":
            head.append("must: FL calls")
        head += [f"{pr}: first repair (s)", f"{pr}: covered 1 (s)", f"{pr}: covered 2 (s)", f"{pr}: total (s)"]
    head += ["same repairs", "checks ratio none/must"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for p in pairs:
        any_job = p.none or p.must
        start = (p.none.start if p.none and p.none.start else None) or (p.must.start if p.must else None) or {}
        ts = start.get("too_small", "")
        ts_cell = {True: "**yes**", False: "no", None: "unknown", "": "—"}[ts]
        row = [p.file, str(p.level), str(any_job.unwind), ts_cell]
        for pr in PRUNES:
            j: Job | None = getattr(p, pr)
            st = j.stats if j else {}
            first = min((r["seconds"] for r in j.repairs), default=None) if j else None
            cov = st.get("covered", {})
            checks = st.get("checks")
            fresh = f" ({st['fresh_checks']} fresh)" if st.get("fresh_checks") else ""
            row += [outcome_cell(j), repairs_cell(j),
                    "—" if checks is None else f"{checks}{fresh}"]
            if pr == "must":
                row.append("—" if st.get("localizations") is None else str(st["localizations"]))
            row += [fmt_s(first), fmt_s(cov.get("1")), fmt_s(cov.get("2")), fmt_s(st.get("seconds"))]
        ratio = p.checks_ratio()
        row += [p.same_cell(), "—" if ratio is None else f"{ratio:.2f}"]
        lines.append("| " + " | ".join(md_escape(c) for c in row) + " |")
    return lines


def totals(pairs: list[Pair]) -> dict:
    done = [p for p in pairs if p.ok()]
    both = [p for p in done if p.both_complete()]

    def s(ps, pr, key):
        return sum(getattr(p, pr).stats.get(key, 0) or 0 for p in ps)

    finished = [p for p in pairs if p.finished()]
    cmp = {(p.file, p.level): p.compare() for p in finished}
    return {
        "pairs": len(pairs),
        "compared": len(done),
        "both_complete": len(both),
        "checks_none": s(done, "none", "checks"),
        "checks_must": s(done, "must", "checks"),
        "checks_none_both": s(both, "none", "checks"),
        "checks_must_both": s(both, "must", "checks"),
        "time_none": s(done, "none", "seconds"),
        "time_must": s(done, "must", "seconds"),
        "time_none_both": s(both, "none", "seconds"),
        "time_must_both": s(both, "must", "seconds"),
        "wall_none": sum(p.none.wall for p in done),
        "wall_must": sum(p.must.wall for p in done),
        "localizations": s(done, "must", "localizations"),
        "localization_seconds": s(done, "must", "localization_seconds"),
        "no_loss": sum(1 for c in cmp.values() if not c["any_lost"]),
        "finished": len(finished),
        "lost": [p for p in finished if cmp[(p.file, p.level)]["any_lost"]],
        "same_both": sum(1 for p in both if cmp[(p.file, p.level)]["same"]),
        "timeouts_none": sum(1 for p in done if timed_out(p.none)),
        "timeouts_must": sum(1 for p in done if timed_out(p.must)),
        "only_pruned": [p for p in done if not covered(p.none, MAX_SIZE) and covered(p.must, MAX_SIZE)],
        "only_unpruned": [p for p in done if covered(p.none, MAX_SIZE) and not covered(p.must, MAX_SIZE)],
        "errors": [p for p in pairs if p.finished() and not p.ok()],
    }


def totals_lines(t: dict) -> list[str]:
    return [
        f"* Pairs (file, level): {t['pairs']}; both runs without error: {t['compared']}; both complete: {t['both_complete']}"
        f"; timeouts: none {t['timeouts_none']}, must {t['timeouts_must']}",
        f"* SMT checks, all compared pairs: none {t['checks_none']}, must {t['checks_must']}, "
        f"ratio none/must **{_ratio(t['checks_none'], t['checks_must'])}**",
        f"* SMT checks, pairs where both runs completed: none {t['checks_none_both']}, must {t['checks_must_both']}, "
        f"ratio none/must **{_ratio(t['checks_none_both'], t['checks_must_both'])}**",
        f"* Search time (s), all compared pairs (a timed-out run counts its time limit): none {t['time_none']:.0f}, "
        f"must {t['time_must']:.0f}, ratio none/must {_ratio(t['time_none'], t['time_must'])}",
        f"* Search time (s), pairs where both completed: none {t['time_none_both']:.0f}, must {t['time_must_both']:.0f}, "
        f"ratio none/must {_ratio(t['time_none_both'], t['time_must_both'])}",
        f"* Must fault localizations (FOSFL calls): {t['localizations']} in {t['localization_seconds']:.0f} s",
        f"* Pairs where no repair was lost: **{t['no_loss']}/{t['finished']}** (pairs with a run error included: "
        f"their repairs found so far are compared too); both complete with identical repair "
        f"sets: {t['same_both']}/{t['both_complete']}",
        f"* Size ≤ {MAX_SIZE} space covered only with pruning: {_pairs_label(t['only_pruned'])}",
        f"* Size ≤ {MAX_SIZE} space covered only without pruning: {_pairs_label(t['only_unpruned'])}",
    ] + ([f"* Pairs with a run error: {_pairs_label(t['errors'])}"] if t["errors"] else [])


def report(bench: Bench | None, jobs: dict, meta: dict, final: bool) -> str:
    pairs_all = make_pairs(jobs)
    out = ["# Must-location pruning benchmark: AllRepair vs FL-AllRepair (crepair)", ""]
    if not final:
        out += ["**PARTIAL RESULTS** — the run was not finished when this file was written "
                "(complete it with `--resume`).", ""]
    done = sum(1 for j in jobs.values() if j.status in ("done", "error"))
    resumed = sum(1 for j in jobs.values() if j.resumed)
    commits = sorted({j.commit for j in jobs.values() if j.commit})
    out += [
        f"* Date: {meta['date']} (finished {meta.get('finished', 'n/a')}; wall time of this invocation "
        f"{meta.get('wall', 0) / 60:.1f} min; {done}/{len(jobs)} runs done"
        + (f", {resumed} of them taken over from an earlier invocation with --resume" if resumed else "") + ")",
        f"* crepair commit: {meta['commit']}"
        + (f" — **runs used several commits**: {', '.join(commits)}" if len(commits) > 1 else ""),
        f"* Machine: {meta['machine']}; {meta['software']}",
        f"* Command: `{meta['command']}`",
        f"* Options: `crepair.repair(file, level=L, max_size={MAX_SIZE}, unwind=B, entry=E, timeout={meta['timeout']:g}, "
        f"prune=\"none\"|\"must\")`; {meta['jobs']} runs in parallel (one worker process per (file, level, prune); the "
        "two runs of a (file, level) are scheduled next to each other, so they mostly run at the same time under the "
        "same load)",
        "* Suites: " + "; ".join(
            f"{s}: `{meta['suites'][s]['folder']}`, levels {','.join(map(str, meta['suites'][s]['levels']))}, "
            f"unwind {meta['suites'][s]['unwind']}, entry main"
            + (" (sum.c and sum2.c: entry sum, their main is empty)" if s == "loops" else "")
            for s in meta["suites"]
        ),
        "",
        "*none* blocks only the buggy candidate (AllRepair, FM'16); *must* blocks every candidate that agrees with it "
        "on the must location set of its counterexample (FL-AllRepair, CAV'20 Sect. 6). Times are seconds since the "
        "start of the search, as reported by crepair: *first repair*; *covered k*: every candidate of size ≤ k explored "
        "(— = not reached); *total*: the whole search (a timed-out run stops at the limit). *SMT checks* include the "
        "re-checks of repairs; *FL calls* are the must fault localizations. *bound too small*: the unwinding bound B cuts "
        "off feasible runs of the original program (then results hold only up to B); *k vacuous* after a repair count: the bound "
        "cuts off runs of k of the *repaired* programs (e.g. a loop made to run past B), so they are correct only up "
        "to B. *fresh* in the checks count: candidates the incremental solver left undecided after "
        "2 s, checked again by a fresh solver (counted twice). *same repairs* compares the repair "
        "sets (a repair = its set of (offset, new token) changes): *yes* when both runs completed with equal sets; "
        "*n/a (timeout)* when one did not complete, with the repairs found by one run only — each of them is of a size "
        "the other run did not finish exploring; **NO** when a run explored all candidates of some size (without "
        "unknown checks) and still lacks a repair of that size that the other run found: that would be a bug "
        "(Proposition 1). *timeout* = outcome unknown at the time limit.",
        "",
    ]
    suites = [s for s in SUITES if s in meta["suites"]]
    per_suite = {}
    for s in suites:
        pairs = [p for p in pairs_all if p.suite == s]
        if not pairs:
            continue
        d = meta["suites"][s]
        out += [f"## {SUITE_TITLES[s]} — `{d['folder']}` (levels {','.join(map(str, d['levels']))}, max_size "
                f"{MAX_SIZE}, unwind {d['unwind']})", ""]
        out += suite_table(pairs)
        out += [""]
        t = totals(pairs)
        per_suite[s] = t
        out += [f"Totals ({s}):", ""] + totals_lines(t) + [""]

    t_all = totals(pairs_all)
    out += ["## Totals", ""]
    head = ["suite", "pairs", "both complete", "checks none", "checks must", "ratio none/must",
            "ratio (both complete)", "time none (s)", "time must (s)", "time ratio", "time ratio (both complete)",
            "no repair lost", "covered only with pruning"]
    out += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for name, t in list(per_suite.items()) + [("**all**", t_all)]:
        out.append("| " + " | ".join(md_escape(c) for c in [
            name, str(t["pairs"]), str(t["both_complete"]), str(t["checks_none"]), str(t["checks_must"]),
            _ratio(t["checks_none"], t["checks_must"]), _ratio(t["checks_none_both"], t["checks_must_both"]),
            f"{t['time_none']:.0f}", f"{t['time_must']:.0f}", _ratio(t["time_none"], t["time_must"]),
            _ratio(t["time_none_both"], t["time_must_both"]), f"{t['no_loss']}/{t['finished']}",
            str(len(t["only_pruned"])),
        ]) + " |")
    out += [""] + totals_lines(t_all) + [""]

    out += ["## Repairs lost by one of the runs (Proposition 1 violations)", ""]
    if not t_all["lost"]:
        out += ["None: every repair found by one run and not the other is of a size the other run did not finish "
                "exploring.", ""]
    for p in t_all["lost"]:
        c = p.compare()
        out.append(f"### {p.suite}/{p.file}, level {p.level}")
        out.append("")
        for side, other in (("none", "must"), ("must", "none")):
            for r in c["lost"][side]:
                out.append(f"* missing with prune={side}, found with prune={other} (size {r['size']}, at "
                           f"{r['seconds']:.1f} s): {repair_label(r)}")
                out += ["", "```diff", r["diff"].rstrip("\n"), "```", ""]
        out.append("")

    out += ["## Repairs found", "",
            "Each repair as its changes {line `old`→`new`}, with the time at which each run found it "
            "(— = not found); *vacuous*: the unwinding bound cuts off runs of the repaired program.", ""]
    for p in pairs_all:
        if not p.finished():
            continue
        found: dict[frozenset, dict] = {}
        for pr in PRUNES:
            j = getattr(p, pr)
            for r in j.repairs if j else []:
                found.setdefault(repair_key(r), {"r": r})[pr] = r["seconds"]
        if not found:
            continue
        out.append(f"* {p.suite}/{p.file} L{p.level}: " + "; ".join(
            f"{md_escape(repair_label(v['r']))}{' *vacuous*' if is_vacuous(v['r']) else ''} "
            f"(none {fmt_s(v.get('none'))} s, must {fmt_s(v.get('must'))} s)"
            for v in sorted(found.values(), key=lambda v: repair_sort_key(v["r"]))))
    out.append("")

    errs = [j for j in jobs.values() if j.error]
    if errs:
        out += ["## Run errors", ""]
        if any(j.error.startswith("killed") for j in errs):
            out += ["A run *killed* after its time limit did not stop at the limit (crepair checks the deadline "
                    "only between steps, so one long step overran it). The repairs it had found before the kill are kept, "
                    "listed under *Repairs found* and compared with the other run; it has no final statistics.", ""]
        for j in sorted(errs, key=lambda j: j.key):
            found = f" ({len(j.repairs)} repairs found before)" if j.repairs else ""
            out.append(f"* {j.suite}/{j.file} level {j.level} prune={j.prune}: {md_escape(j.error)}{found}")
        out.append("")
    return "\n".join(out)


def to_json(jobs: dict, meta: dict) -> dict:
    return {
        "meta": meta,
        "runs": [
            {k: v for k, v in asdict(j).items() if k != "resumed"}
            for _, j in sorted(jobs.items(), key=lambda kv: sort_key(kv[1]))
        ],
    }


def sort_key(job: Job) -> tuple:
    return (SUITES.index(job.suite), _file_order(job.file), job.level, PRUNES.index(job.prune))


def _file_order(name: str) -> tuple:
    stem = Path(name).stem
    head, _, tail = stem.rpartition("_v")
    return (head, int(tail)) if tail.isdigit() else (stem, 0)


def load_jobs(data: dict) -> dict:
    jobs = {}
    for rec in data.get("runs", []):
        job = job_from_record(Job, rec)
        jobs[job.key] = job
    return jobs


def report_only(out_md: Path) -> int:
    out_json = out_md.with_suffix(".json")
    data = json.loads(out_json.read_text(encoding="utf-8"))
    jobs = load_jobs(data)
    final = bool(data["meta"].get("finished")) and all(j.status in ("done", "error") for j in jobs.values())
    write_atomic(out_md, report(None, jobs, data["meta"], final) + "\n")
    print(f"wrote {out_md} from {out_json}", file=sys.stderr)
    return 0


def progress_line(job: Job) -> str:
    st = job.stats
    cov = st.get("covered", {})
    first = min((r["seconds"] for r in job.repairs), default=None)
    return (
        f"{job.suite}/{job.file} L{job.level} {job.prune}: {outcome_cell(job)}, repairs {len(job.repairs)}, "
        f"first {fmt_s(first)} s, covered1 {fmt_s(cov.get('1'))} s, covered2 {fmt_s(cov.get('2'))} s, "
        f"checks {st.get('checks', '-')}, FL {st.get('localizations', '-')}, search {fmt_s(st.get('seconds'))} s, "
        f"wall {job.wall:.0f} s"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_worker":
        return worker_main(argv[1], argv[2])

    ap = benchmark_parser(__doc__, "benchmarks/")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (default 2)")
    ap.add_argument("--suite", default=",".join(SUITES), help="comma-separated subset of tcas,qlose,loops (default: all)")
    ap.add_argument("--interleave", action="store_true",
                    help="take the (file, level) pairs of the suites in turn, so partial results cover every suite")
    ap.add_argument("--files", default="", help="comma-separated file names to run (e.g. tcas_v1.c,sum.c); default: all")
    ap.add_argument("--levels", default="", help="comma-separated levels to keep (default: each suite's levels)")
    ap.add_argument("--unwind-tcas", type=int, default=8)
    ap.add_argument("--unwind-qlose", type=int, default=10)
    ap.add_argument("--unwind-loops", type=int, default=3)
    add_rerun_options(
        ap, "runs",
        resume_help="keep the runs already in the raw JSON (same file, level, prune, unwind, entry, max_size, "
        "timeout) and run only the missing ones",
        report_only_help="only rewrite the markdown report from the raw JSON (runs nothing)",
    )
    add_output_option(ap, "must-pruning")
    args = ap.parse_args(argv)
    if args.report_only:
        return report_only(Path(args.output))

    suites = [s.strip() for s in args.suite.split(",") if s.strip()]
    bad = [s for s in suites if s not in SUITES]
    if bad:
        ap.error(f"unknown suite(s) {bad}; choose from {','.join(SUITES)}")
    defs = {
        "tcas": SuiteDef("tcas", "tcas/spec", (2,), args.unwind_tcas),
        "qlose": SuiteDef("qlose", "qlose/loops", (1, 2), args.unwind_qlose),
        "loops": SuiteDef("loops", "loops", (1, 2), args.unwind_loops),
    }
    shared = Path(args.shared).resolve()
    if not (shared / "benchmarks").is_dir():
        print(f"skipping: {shared / 'benchmarks'} not found (use --shared DIR)", file=sys.stderr)
        return 0
    want_files = {f.strip() for f in args.files.split(",") if f.strip()}
    want_levels = {int(x) for x in args.levels.split(",") if x.strip()}

    jobs: dict[tuple, Job] = {}
    seen_files: set[str] = set()
    for s in suites:
        d = defs[s]
        for path in d.files(shared):
            if want_files and path.name not in want_files:
                continue
            seen_files.add(path.name)
            for lv in d.levels:
                if want_levels and lv not in want_levels:
                    continue
                for pr in PRUNES:
                    job = Job(s, path.name, str(path), lv, pr, MAX_SIZE, d.unwind,
                              ENTRY_OVERRIDES.get((s, path.name), "main"), args.timeout)
                    jobs[job.key] = job
    missing = want_files - seen_files
    if missing:
        ap.error(f"no such file in the selected suites: {', '.join(sorted(missing))}")
    if not jobs:
        ap.error("nothing to run")

    out_md, out_json = output_paths(args.output)

    old_meta: dict = {}  # only with --resume
    if args.resume and out_json.exists():
        data = json.loads(out_json.read_text(encoding="utf-8"))
        old_meta = data.get("meta", {})
        kept = resumable(data.get("runs", []), jobs, lambda rec: (rec["suite"], rec["file"], rec["level"], rec["prune"]),
                         Job, args.retry_errors)
        extra = [key for key in kept if key not in jobs]  # not selected this time: they stay in the results
        jobs.update(kept)
        jobs = dict(sorted(jobs.items(), key=lambda kv: sort_key(kv[1])))
        print(f"resume: {len(kept)} runs taken from {out_json} ({len(extra)} of them outside the current selection)",
              file=sys.stderr)

    bench = Bench(args)
    t_start = time.monotonic()
    commit = pin_crepair(bench, args, old_meta)
    if commit is None:
        return 2
    meta = {
        **setup_meta(commit, "must_pruning.py", argv, old_meta, commit_id=bench.commit if not args.live else ""),
        "timeout": args.timeout,
        "jobs": args.jobs,
        "max_size": MAX_SIZE,
        "suites": {s: {"folder": f"{shared}/benchmarks/{defs[s].folder}", "levels": list(defs[s].levels),
                       "unwind": defs[s].unwind} for s in suites},
    }
    for s, d in old_meta.get("suites", {}).items():  # suites of resumed runs outside the selection
        if s not in meta["suites"] and any(j.suite == s for j in jobs.values()):
            meta["suites"][s] = d
    meta["suites"] = {s: meta["suites"][s] for s in SUITES if s in meta["suites"]}
    if args.resume and old_meta.get("date"):
        meta["resumed_at"] = utc_now()

    def write(final: bool) -> str:
        stamp_meta(meta, t_start, final)
        text = report(bench, jobs, meta, final)
        write_results(out_md, text, to_json(jobs, meta))
        return text

    # runs go in the order of --suite, then file, level, prune (the two runs
    # of a (file, level) next to each other); --interleave takes the pairs
    # of the suites in turn instead
    todo = [j for j in jobs.values() if j.status == "pending"]
    if args.interleave:
        rank: dict[tuple, int] = {}
        for s in suites:
            keys = sorted({(j.suite, j.file, j.level) for j in todo if j.suite == s},
                          key=lambda k: (_file_order(k[1]), k[2]))
            rank.update({k: i for i, k in enumerate(keys)})
        todo.sort(key=lambda j: (rank[(j.suite, j.file, j.level)], suites.index(j.suite), PRUNES.index(j.prune)))
    else:
        todo.sort(key=lambda j: (suites.index(j.suite),) + sort_key(j))
    print(f"running {len(todo)} of {len(jobs)} crepair runs with {args.jobs} in parallel; report: {out_md}",
          file=sys.stderr)
    return run_benchmark(bench, todo, bench.run_job, progress_line, write, jobs, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
