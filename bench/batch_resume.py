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
    a = ap.parse_args()
    a.extra = extra = ("--options", a.options) if a.options else ()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    whole = Path(a.whole) if a.whole else work / "whole.jsonl"
    times = {}
    if not a.whole:
        whole.unlink(missing_ok=True)
        t = time.monotonic()
        p = batch(a.src, a.items, whole, a.jobs, *extra)
        p.wait()
        times["whole"] = time.monotonic() - t
    total = len(outcomes(whole))
    cut = work / "cut.jsonl"
    if a.no_cut:
        cut, kept = whole, total
    else:
        kept = interrupted(a, cut, total, times)
    w, c = outcomes(whole), outcomes(cut)
    differ = differing(w, c)
    counts = lambda d: sorted({o: sum(1 for x in d.values() if x["outcome"] == o)  # noqa: E731
                               for o in {x["outcome"] for x in d.values()}}.items())
    lines = [
        (f"# `crepair batch` killed half-way and resumed: {a.items}" if not a.no_cut
         else f"# `crepair batch` through a process pool and through Ray: {a.items}"), "",
        f"* Date: {started}; crepair from `{a.src}` (commit {_commit(a.src)}); `--jobs {a.jobs}`"
        + (f"; job options `{a.options}`" if a.options else "") + f"; machine: nproc {os.cpu_count()}"
        + (f", load average (1 min) at the end {os.getloadavg()[0]:.2f} (other work ran at the same time)"
           if not (a.whole and (a.ray_whole or not a.ray)) else "; the runs were made before (their load: bench/README.md)"),
        f"* Uninterrupted: {len(w)} jobs" + (f", {times['whole'] / 60:.1f} min" if "whole" in times else
                                              f" (results `{whole}`, made before)"),
        (f"* Interrupted: SIGKILL of the batch after {kept} of {total} records ({times['until the kill'] / 60:.1f} "
         f"min), then `--resume` ran the other {len(c) - kept} ({times['resumed'] / 60:.1f} min)") if not a.no_cut
        else "* Interrupted run: not made this time (`--no-cut`)",
        f"* Results file after the resume: {cut.read_text().count(chr(10))} lines, one per job",
        "", "Outcomes (uninterrupted / resumed): " + ", ".join(f"{o} {n}" for o, n in counts(w)) + " / "
        + ", ".join(f"{o} {n}" for o, n in counts(c)), "",
        f"**Jobs whose outcome or repairs differ: {len(differ)}**" + (":" if differ else "."), "",
    ]
    for k in differ:
        lines.append(f"* {k}: uninterrupted {w.get(k, {}).get('outcome')} {w.get(k, {}).get('repairs')}, "
                     f"resumed {c.get(k, {}).get('outcome')} {c.get(k, {}).get('repairs')}")
    lines += ["", "| job | outcome | repairs | stages | seconds (uninterrupted) | seconds (resumed run) |",
              "|---|---|---|---|---|---|"]
    for k in sorted(w, key=lambda s: [int(t) if t.isdigit() else t for t in __import__("re").split(r"(\d+)", s)]):
        lines.append(f"| {Path(k.split()[1]).name} | {w[k]['outcome']} | {len(w[k]['repairs'])} | "
                     f"{', '.join(x for x in w[k]['stages'] if x) or '—'} | {w[k]['seconds']:.1f} | "
                     f"{c.get(k, {}).get('seconds', float('nan')):.1f} |")
    ray = {}
    if a.ray:
        ray_file, err = Path(a.ray_whole or work / "ray.jsonl"), ""
        if not a.ray_whole:
            ray_file.unlink(missing_ok=True)
            t = time.monotonic()
            p = batch(a.src, a.items, ray_file, a.jobs, *extra, "--executor", "ray")
            _, err = p.communicate()
            times["ray"] = time.monotonic() - t
        ray = outcomes(ray_file) if ray_file.exists() else {}
        rdiff = differing(w, ray)
        differ = differ + [f"ray: {k}" for k in rdiff]
        lines += ["", "## The same batch through `--executor ray` (local Ray)", "",
                  f"`crepair batch {a.items} --jobs {a.jobs}"
                  + (f" --options '{a.options}'" if a.options else "") + f" --executor ray`: {len(ray)} jobs"
                  + (f" in {times['ray'] / 60:.1f} min" if "ray" in times else f" (results `{ray_file}`, made before)")
                  + " (the process pool: "
                  + (f"{times['whole'] / 60:.1f} min)" if "whole" in times else "made before)") + "; outcomes "
                  + ", ".join(f"{o} {n}" for o, n in counts(ray)) + ".", "",
                  f"**Jobs whose outcome or repairs differ from the process-pool run: {len(rdiff)}**"
                  + (":" if rdiff else "."), ""]
        lines += [f"* {k}: process pool {w.get(k, {}).get('outcome')} {w.get(k, {}).get('repairs')} "
                  f"({w.get(k, {}).get('seconds', float('nan')):.1f} s), Ray {ray.get(k, {}).get('outcome')} "
                  f"{ray.get(k, {}).get('repairs')} ({ray.get(k, {}).get('seconds', float('nan')):.1f} s)"
                  for k in rdiff]
        if not ray:
            lines.append("Ray run failed: " + " | ".join((err or "").strip().splitlines()[-3:]))
    out = REPO / "bench" / "results" / f"{a.name}.md"
    out.write_text("\n".join(lines) + "\n")
    out.with_suffix(".json").write_text(json.dumps({"whole": w, "resumed": c, "ray": ray, "kept": kept, "differ": differ,
                                                    "times": times}, indent=1) + "\n")
    print("\n".join(lines))
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
