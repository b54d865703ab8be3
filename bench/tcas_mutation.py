#!/usr/bin/env python3
"""The printer of the suite ``bench/suites/tcas-mutation.yaml``: crepair's
mutation repair on the 41 faulty TCAS versions (SIR).

``crepair bench tcas-mutation`` runs ``crepair repair tcas_vN.c --scheme
mutation`` at level 1 (max_size 2) and level 2 (max_size 1) as a batch,
then calls :func:`tables`: every repair is mapped onto the SIR program and
checked on its test universe (``tcas_universe``; the results are kept in
``bench/results/tcas-mutation.universe.json`` so ``--report-only`` does not
check again), and the versions repaired are compared with the published
AllRepair results (FM'16, Table 2).  It also writes
``bench/results/tcas-mutation.json`` (one run per job, the raw format the
template benchmark reads).

Usage (from the repository root)::

    crepair bench tcas-mutation [--jobs 2] [--only 'v1[0-9] '] [--resume] [--report-only]

See bench/README.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import table, vs  # noqa: E402
from harness.runner import Job  # noqa: E402
from crepair.batch.bench import read_runs  # noqa: E402
from tcas_universe import ALL_VERSIONS, LEVEL_MAX_SIZE, NOTES, TcasBench, by_universe_result, level_table, \
    universe_sections  # noqa: E402

PUBLISHED_L1 = {1, 3, 6, 9, 10, 12, 20, 25, 31, 32, 39}
PUBLISHED = {1: PUBLISHED_L1, 2: PUBLISHED_L1 | {16, 17, 28, 35, 36, 40, 41}}  # AllRepair, FM'16
FAILURES = ("timeout", "out-of-memory", "crash", "bad-input", "usage", "missing-tool", "internal")


@dataclass
class MutationJob(Job):
    """One (version, level) run, in the raw format of the bench harness."""

    version: int = 0
    level: int = 1
    max_size: int = 2
    path: str = ""
    timeout: float = 600
    unwind: int = 8

    @property
    def key(self) -> tuple:
        return (self.version, self.level)


def maintainer_note(v: int, r: dict) -> list[str]:
    """After a repair that fails the universe check: the likely cause the
    failing-test analysis suggests (nothing when there is no analysis)."""
    f = r.get("failures") or {}
    if not f or "error" in f:
        return []
    if f["inside"] == 0 and f["undecided"] == 0 and f["failing"]:
        suggestion = ("bounded-equivalent to the spec but differs on universe inputs outside the spec's "
                      "assumptions (every failing test violates a `__CPROVER_assume` condition)")
    else:
        suggestion = ("some failing tests satisfy the spec's assumptions — the spec (its `AllRepair_correct_*` "
                      "reference or its encoding) does not constrain this behaviour; needs a look")
    return [f"Likely cause (from the failing-test analysis): {suggestion}.", ""]




def _option(args: list[str], name: str, default):
    return type(default)(args[args.index(name) + 1]) if name in args else default


def _repair(n: int, r: dict) -> dict:
    """A repair of a batch record in the harness's record format
    (``harness.records.repair_record``)."""
    return {
        "type": "repair", "index": n, "size": r.get("size"), "seconds": r.get("seconds"), "scheme": r.get("scheme"),
        "vacuous": r.get("vacuous"), "evidence": (r.get("evidence") or {}).get("text", ""), "diff": r.get("diff", ""),
        "changes": [{"line": c["location"]["line"], "start": c["location"]["start"], "end": c["location"]["end"],
                     "function": c.get("function"), "kind": c.get("kind"), "before": c.get("original"),
                     "after": c.get("replacement"),
                     "edits": [{"start": e["span"]["start"], "end": e["span"]["end"], "old": e["old"], "new": e["new"],
                                "line": e["span"]["line"]} for e in c.get("edits") or ()]}
                    for c in r.get("changes") or ()],
    }


def job_of(batch_job, record: dict | None) -> MutationJob:
    """The harness job of one batch job and its record (None: not run)."""
    meta = dict(batch_job.meta)
    args = list(batch_job.args)
    job = MutationJob(version=int(meta["version"]), level=int(meta["level"]),
                      max_size=_option(args, "--max-size", LEVEL_MAX_SIZE[int(meta["level"])]),
                      path=str(batch_job.program), timeout=_option(args, "--timeout", 600.0),
                      unwind=_option(args, "--unwind", 8))
    if record is None:
        return job
    report = record.get("report") or {}
    scheme = (report.get("schemes") or [{}])[0]
    job.status = "done"
    job.outcome = record["outcome"]
    job.stopped, job.reason = report.get("stopped", ""), report.get("reason", "")
    if record["outcome"] in FAILURES:
        job.error = record.get("message") or record["outcome"]
    job.stats = {k: scheme.get(k) for k in ("checks", "unknown_checks", "covered") if k in scheme}
    job.wall = record.get("seconds") or 0.0
    job.finished = record.get("finished", "")
    job.repairs = [_repair(n, r) for n, r in enumerate(record.get("repairs") or (), 1)]
    return job


def _key(job: MutationJob, r: dict) -> str:
    return f"v{job.version} L{job.level} r{r['index']} " + hashlib.sha1(r["diff"].encode()).hexdigest()[:16]


_CHECKED = ("mapping", "sir_diff", "universe", "failures")  # the order TcasBench.check_repairs writes them


def _update(r: dict, checked: dict) -> None:
    """Set repair ``r``'s universe results from ``checked`` in one order
    (``_CHECKED``), whether fresh or cached, so a report re-rendered from
    the cache writes the same JSON."""
    for k in _CHECKED:
        r.pop(k, None)
    r.update({k: checked[k] for k in _CHECKED if k in checked})


def check_on_universe(jobs: list[MutationJob], cache_file: Path) -> dict:
    """Map every repair onto SIR and run it on the universe
    (``TcasBench.check_repairs``), and the unrepaired SIR versions
    (baselines); results already in ``cache_file`` (a JSON file this
    updates) are reused.  Returns the baselines by version."""
    cache = json.loads(cache_file.read_text(encoding="utf-8")) if cache_file.exists() else {}
    checked, baseline = cache.setdefault("repairs", {}), cache.setdefault("baseline", {})
    spec = Path(jobs[0].path).resolve()
    bench = TcasBench(__file__)
    bench.shared = spec.parents[3]  # SHARED/benchmarks/tcas/spec/tcas_vN.c
    bench.baseline = {int(v): b for v, b in baseline.items()}
    with tempfile.TemporaryDirectory(prefix="tcas-universe-") as tmp:
        bench.tmp = Path(tmp)
        for job in jobs:
            if job.status != "done":
                continue
            todo = [r for r in job.repairs if _key(job, r) not in checked]
            for r in job.repairs:
                _update(r, checked.get(_key(job, r), {}))
            if todo:
                fresh = MutationJob(version=job.version, level=job.level, path=job.path)
                fresh.repairs = todo
                bench.check_repairs(fresh)
                for r in todo:  # kept without this invocation's temporary folder (error messages name it)
                    checked[_key(job, r)] = json.loads(json.dumps(
                        {k: r[k] for k in _CHECKED if k in r}).replace(json.dumps(str(bench.tmp))[1:-1], "TMP"))
                    _update(r, checked[_key(job, r)])
            bench.ensure_baseline(job.version)
    cache["baseline"] = {str(v): b for v, b in sorted(bench.baseline.items())}
    cache_file.write_text(json.dumps(cache, indent=1) + "\n", encoding="utf-8")
    return bench.baseline


def tables(suite: dict, batch_jobs: list, records: dict[str, dict], output: Path) -> list[str]:
    """The report under ``crepair bench``'s header (the suite printer
    interface of ``crepair.batch.bench``); writes OUTPUT.json and
    OUTPUT.universe.json beside the report."""
    jobs = [job_of(j, records.get(j.id)) for j in batch_jobs]
    by_key = {j.key: j for j in jobs}
    baseline = check_on_universe(jobs, output.with_name(output.name + ".universe.json"))
    versions = sorted({j.version for j in jobs})
    levels = sorted({j.level for j in jobs})
    runs = read_runs(output)  # the invocations that made the results (not the checkout now)
    last = runs[-1] if runs else {}
    meta = {"versions": versions, "levels": levels, "timeout": jobs[0].timeout, "unwind": jobs[0].unwind,
            "commit": ", ".join(sorted({r.get("commit") or "unknown" for r in runs})) or "unknown",
            "date": last.get("started", "unknown"), "runner": "crepair bench tcas-mutation",
            "load": max((max(r.get("load") or [0]) for r in runs), default=None)}
    output.with_name(output.name + ".json").write_text(
        json.dumps({"meta": meta, "baseline": {str(v): b for v, b in sorted(baseline.items())},
                    "runs": [j.record() for j in jobs]}, indent=1) + "\n", encoding="utf-8")
    return report(by_key, meta, baseline)


def _shown(path: Path) -> str:
    """``path`` as the report names it: relative to the repository root
    (this file's folder's parent), not resolved, so that neither the
    machine's folders nor a temporary checkout show."""
    return os.path.relpath(os.path.normpath(os.path.abspath(path)), Path(__file__).resolve().parents[1])


def report(jobs: dict, meta: dict, baseline: dict) -> list[str]:
    """The report body: options, a table per level, totals against FM'16
    Table 2, and the repairs that fail the universe check."""
    versions, levels = meta["versions"], meta["levels"]
    timeout, unwind = meta["timeout"], meta["unwind"]
    tcas = _shown(Path(next(iter(jobs.values())).path).parents[1])
    out = [
        f"* Options: `crepair repair tcas_vN.c --scheme mutation --level L --max-size S --timeout {timeout:g} "
        f"--unwind {unwind}` with (L, S) in {', '.join(f'({lv}, {LEVEL_MAX_SIZE[lv]})' for lv in levels)}, "
        f"one worker process per (version, level); versions: {'all 41' if versions == ALL_VERSIONS else vs(versions)}",
        f"* Inputs: `{tcas}/spec/tcas_vN.c`; universe check: `bash {tcas}/sir/check_universe.sh PATCHED.c` "
        "on the SIR version `sir/versions/vN/tcas.c` with each repair's edits mapped onto it",
        "",
        "Times are seconds since the start of the search (after parsing and encoding), as reported by "
        "crepair: *first repair* is the first verified repair, *covered size k* is when every candidate "
        "of size ≤ k had been explored (— = not reached). *wall* is the whole worker process (parse, "
        "encode, bound check, search). *SMT checks* counts the re-checks of repairs too. *k vacuous* after "
        "a repair count: k repairs are correct only because the unwinding bound cuts off their runs. The "
        "last column is the faulty SIR program itself on the universe. Universe checks ran after the "
        "batch, outside the searches' time budget.",
        "",
    ]
    for level in levels:
        out += [f"## Level {level} (max_size {LEVEL_MAX_SIZE[level]})", ""]
        out += level_table(jobs, level, versions, baseline) + [""]
    if any(v in NOTES for v in versions):
        out += ["† " + "; ".join(NOTES[v] for v in versions if v in NOTES) + ".", ""]

    repaired = {lv: {v for v in versions if (v, lv) in jobs and jobs[(v, lv)].repairs} for lv in levels}
    union = set().union(*repaired.values())
    out += ["## Totals", ""]
    out += [f"* Level {lv}: {len(repaired[lv])}/{len(versions)} versions repaired: {vs(repaired[lv])}"
            for lv in levels]
    out.append(f"* Union: {len(union)}/{len(versions)} versions repaired: {vs(union)}")
    out += ["", "Comparison with the published AllRepair results (level 1: v1 v3 v6 v9 v10 v12 v20 v25 v31 "
            "v32 v39; level 2 additionally v16 v17 v28 v35 v36 v40 v41)"
            + ("" if versions == ALL_VERSIONS else ", restricted to the versions run") + ":", ""]
    rows = []
    pub_union = set().union(*(PUBLISHED[lv] for lv in levels)) & set(versions)
    for lv, pub, ours in [(str(lv), PUBLISHED[lv] & set(versions), repaired[lv]) for lv in levels] + [
            ("union", pub_union, union)]:
        rows.append([lv, str(len(pub)), str(len(ours)), str(len(pub & ours)), vs(ours - pub), vs(pub - ours)])
    out += table(["level", "published", "crepair", "both", "only crepair", "only published"], rows) + [""]

    all_repairs = [(f"v{j.version}, level {j.level}", j.version, r)
                   for _, j in sorted(jobs.items()) for r in j.repairs]
    n_pass, failing, unmapped, errors = by_universe_result(all_repairs)
    out += [f"Universe: {len(all_repairs)} repairs in total; {n_pass} pass all tests, {len(failing)} FAIL, "
            f"{len(unmapped)} unmapped, {len(errors)} could not be checked.", ""]
    out += universe_sections(failing, unmapped, errors, maintainer_note, undecided=" (too few arguments)")
    errs = sorted((j for j in jobs.values() if j.error), key=lambda j: (j.level, j.version))
    if errs:
        out += ["## Run errors", ""] + [f"* v{j.version}, level {j.level}: {j.error}" for j in errs] + [""]
    return out

