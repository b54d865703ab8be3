#!/usr/bin/env python3
"""Benchmark: a `crepair batch` killed half-way and resumed ends as an uninterrupted one.

Runs ``crepair batch ITEMS --jobs N`` twice (the crepair of ``--src``,
default ``src/`` of this checkout; export a commit with ``git archive`` for a
fixed one): once uninterrupted (or reuses ``--whole FILE``), once killed with
SIGKILL when half of the jobs have a record and then run again with
``--resume``.  Compares, per job, the outcome and the repairs (their edits)
of the two results files and writes ``bench/results/NAME.md`` and ``.json``.
With ``--ray``, the same jobs also run through ``--executor ray`` (a local
Ray) and are compared with the uninterrupted run; ``--no-cut`` skips the
interrupted run.

Usage (from the repository root)::

    python bench/batch_resume.py ../shared/benchmarks/tcas/spec/ --jobs 2 --ray --name tcas-schedule-resume
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def batch(src: str, items: str, out: Path, jobs: int, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=src)
    return subprocess.Popen([sys.executable, "-m", "crepair.cli", "batch", items, "--jobs", str(jobs), "-o", str(out),
                             "--quiet", *extra], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _commit(src: str) -> str:
    """The git commit of the checkout that holds ``src`` ("unknown" if none)."""
    try:
        out = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def outcomes(path: Path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        edits = sorted(tuple((e["span"]["line"], e["old"], e["new"]) for c in x["changes"] for e in c["edits"])
                       for x in r["repairs"])
        out[r["id"]] = {"outcome": r["outcome"], "repairs": edits, "seconds": r["seconds"],
                        "stages": sorted({x.get("stage", "") for x in r["repairs"]})}
    return out


def differing(w: dict, c: dict) -> list[str]:
    """The jobs whose outcome or repairs differ between two results."""
    return sorted(k for k in w.keys() | c.keys() if (w.get(k) or {}).get("outcome") != (c.get(k) or {}).get("outcome")
                  or (w.get(k) or {}).get("repairs") != (c.get(k) or {}).get("repairs"))


def interrupted(a, cut: Path, total: int, times: dict) -> int:
    """Run the batch into ``cut``, SIGKILL it once half of the ``total``
    jobs have a record, and resume it; returns the records kept at the kill."""
    cut.unlink(missing_ok=True)
    t = time.monotonic()
    p = batch(a.src, a.items, cut, a.jobs, *a.extra)
    while p.poll() is None and (not cut.exists() or cut.read_text().count("\n") < total // 2):
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    times["until the kill"] = time.monotonic() - t
    kept = cut.read_text().count("\n")
    t = time.monotonic()
    p = batch(a.src, a.items, cut, a.jobs, *a.extra, "--resume")
    p.communicate()
    times["resumed"] = time.monotonic() - t
    return kept


def _natural(job: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", job)]


def _counts(d: dict) -> str:
    return ", ".join(f"{o} {sum(1 for x in d.values() if x['outcome'] == o)}"
                     for o in sorted({x["outcome"] for x in d.values()}))


def render(a, date_line: str, w: dict, c: dict | None, ray: dict | None, kept: int, times: dict,
           ray_error: str = "") -> tuple[list[str], list[str]]:
    """The report's lines and the differing jobs.  ``c`` is the killed-and-resumed
    run (None with ``--no-cut``), ``ray`` the Ray run (None without ``--ray``)."""
    made = lambda key, f: f", {times[key] / 60:.1f} min" if key in times else f" (results `{f}`, made before)"  # noqa: E731
    lines = [(f"# `crepair batch` killed half-way and resumed: {a.items}" if c is not None
              else f"# `crepair batch` through a process pool and through Ray: {a.items}"), "", date_line,
             f"* Process pool, uninterrupted: {len(w)} jobs" + made("whole", a.whole_file)]
    differ = []
    if c is not None:
        differ = differing(w, c)
        lines += [f"* Interrupted: SIGKILL of the batch after {kept} of {len(w)} records "
                  f"({times.get('until the kill', float('nan')) / 60:.1f} min), then `--resume` ran the other "
                  f"{len(c) - kept} ({times.get('resumed', float('nan')) / 60:.1f} min); "
                  f"results file after the resume: {len(c)} jobs", "",
                  f"Outcomes (uninterrupted / resumed): {_counts(w)} / {_counts(c)}", "",
                  f"**Jobs whose outcome or repairs differ: {len(differ)}**" + (":" if differ else "."), ""]
        lines += [f"* {k}: uninterrupted {w.get(k, {}).get('outcome')} {w.get(k, {}).get('repairs')}, "
                  f"resumed {c.get(k, {}).get('outcome')} {c.get(k, {}).get('repairs')}" for k in differ]
    if ray is not None:
        rdiff = differing(w, ray)
        differ = differ + [f"ray: {k}" for k in rdiff]
        lines += [f"* Through `--executor ray` (a local Ray), the same command: {len(ray)} jobs"
                  + made("ray", a.ray_file), "",
                  f"Outcomes (process pool / Ray): {_counts(w)} / {_counts(ray)}", "",
                  f"**Jobs whose outcome or repairs differ between the process pool and Ray: {len(rdiff)}**"
                  + (":" if rdiff else "."), ""]
        lines += [f"* {k}: process pool {w.get(k, {}).get('outcome')} {w.get(k, {}).get('repairs')}, "
                  f"Ray {ray.get(k, {}).get('outcome')} {ray.get(k, {}).get('repairs')}" for k in rdiff]
        if not ray:
            lines.append("Ray run failed: " + " | ".join((ray_error or "").strip().splitlines()[-3:]))
    runs = [("process pool", w)] + ([("resumed run", c)] if c is not None else []) + ([("Ray", ray)] if ray else [])
    lines += ["", "| job | outcome | repairs | stages | " + " | ".join(f"seconds ({n})" for n, _ in runs) + " |",
              "|---|---|---|---|" + "---|" * len(runs)]
    for k in sorted(w, key=_natural):
        lines.append(f"| {Path(k.split()[1]).name} | {w[k]['outcome']} | {len(w[k]['repairs'])} | "
                     f"{', '.join(x for x in w[k]['stages'] if x) or '—'} | "
                     + " | ".join(f"{r.get(k, {}).get('seconds', float('nan')):.1f}" for _, r in runs) + " |")
    return lines, differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("items")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--name", default="batch-resume")
    ap.add_argument("--src", default=str(REPO / "src"))
    ap.add_argument("--work", default="/tmp/crepair-batch-resume", help="folder of the results files")
    ap.add_argument("--whole", help="results of an uninterrupted run already made (skips that run)")
    ap.add_argument("--ray", action="store_true", help="also run the jobs through --executor ray and compare")
    ap.add_argument("--no-cut", action="store_true", help="skip the interrupted run (with --ray)")
    ap.add_argument("--ray-whole", help="with --ray: results of a Ray run already made (skips that run)")
    ap.add_argument("--options", default="",
                    help="options of every job (crepair batch --options), e.g. '--reproducible'")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: write bench/results/NAME.md again from NAME.json")
    a = ap.parse_args()
    a.extra = extra = ("--options", a.options) if a.options else ()
    work = Path(a.work)
    out = REPO / "bench" / "results" / f"{a.name}.md"
    whole = Path(a.whole) if a.whole else work / "whole.jsonl"
    a.whole_file, a.ray_file = whole, Path(a.ray_whole or work / "ray.jsonl")
    if a.report_only:
        saved = json.loads(out.with_suffix(".json").read_text())
        date_line = saved.get("date_line") or next(x for x in out.read_text().splitlines() if x.startswith("* Date:"))
        c = None if a.no_cut else saved["resumed"]
        lines, differ = render(a, date_line, saved["whole"], c, saved["ray"] if a.ray else None, saved["kept"],
                               saved["times"])
        out.write_text("\n".join(lines) + "\n")
        print("\n".join(lines))
        return 0 if not differ else 1
    work.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    times = {}
    if not a.whole:
        whole.unlink(missing_ok=True)
        t = time.monotonic()
        batch(a.src, a.items, whole, a.jobs, *extra).wait()
        times["whole"] = time.monotonic() - t
    w = outcomes(whole)
    c, kept = None, len(w)
    if not a.no_cut:
        cut = work / "cut.jsonl"
        kept = interrupted(a, cut, len(w), times)
        c = outcomes(cut)
    ray, err = None, ""
    if a.ray:
        if not a.ray_whole:
            a.ray_file.unlink(missing_ok=True)
            t = time.monotonic()
            _, err = batch(a.src, a.items, a.ray_file, a.jobs, *extra, "--executor", "ray").communicate()
            times["ray"] = time.monotonic() - t
        ray = outcomes(a.ray_file) if a.ray_file.exists() else {}
    date_line = (f"* Date: {started}; crepair from `{a.src}` (commit {_commit(a.src)}); `--jobs {a.jobs}`"
                 + (f"; job options `{a.options}`" if a.options else "") + f"; machine: nproc {os.cpu_count()}"
                 + (f", load average (1 min) at the end {os.getloadavg()[0]:.2f} (other work ran at the same time)"
                    if times else "; the runs were made before (their load: bench/README.md)"))
    lines, differ = render(a, date_line, w, c, ray, kept, times, err)
    out.write_text("\n".join(lines) + "\n")
    out.with_suffix(".json").write_text(json.dumps({"date_line": date_line, "whole": w, "resumed": c or {},
                                                    "ray": ray or {}, "kept": kept, "differ": differ,
                                                    "times": times}, indent=1) + "\n")
    print("\n".join(lines))
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
