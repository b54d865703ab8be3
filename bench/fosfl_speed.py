#!/usr/bin/env python3
"""Benchmark: the cost of must pruning (FOSFL) in TCAS mutation repair.

Runs ``crepair.repair(spec, level=1, max_size=2, unwind=8, timeout=None,
entry="main")`` on ``SHARED/benchmarks/tcas/spec/tcas_vN.c`` to the end,
each version in its own process, and prints one markdown row per version:
seconds until every candidate of size ≤ 2 was explored (``covered[2]``),
SMT checks, FOSFL calls and seconds, and the repairs found
(``line:old->new``, changes of one repair joined by ``+``), so that two
runs (before/after a change) can be compared row by row.

Usage (from the repository root)::

    PYTHONPATH=src python bench/fosfl_speed.py [--shared ../shared]
        [--versions 1,2,10-12] [--jobs 1] [--json out.json]
    python bench/fosfl_speed.py --src OLD/src NEW/src [--json /tmp/run-]
    python bench/fosfl_speed.py --compare before.json after.json

The workers import crepair from the ``PYTHONPATH`` of this process, or
with ``--src`` from two trees in turn (version 1 with OLD, then NEW, then
version 2 ...), so that both see the same machine load; export a commit's
tree with ``git archive REV src | tar -x -C DIR``.  With ``--jobs 1`` (the
default) runs do not compete for cores.  Results: bench/results/fosfl-speed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_versions(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def worker(spec: str) -> dict:
    import crepair

    cpu = time.process_time()
    run = crepair.repair(spec, level=1, max_size=2, unwind=8, timeout=None, entry="main")
    repairs = sorted(
        "+".join(f"{c.span.line}:{e.old}->{e.new}" for c in r.changes for e in c.edits)
        for r in run
    )
    s = run.stats
    return {
        "covered2": s.covered.get(2),
        "checks": s.checks,
        "localizations": s.localizations,
        "localization_seconds": s.localization_seconds,
        "seconds": s.seconds,
        "cpu_seconds": time.process_time() - cpu,
        "outcome": s.outcome.value,
        "repairs": repairs,
        "crepair": crepair.__file__,
    }


def run_one(shared: Path, version: int, src: str | None) -> dict:
    spec = shared / "benchmarks" / "tcas" / "spec" / f"tcas_v{version}.c"
    env = dict(os.environ, PYTHONHASHSEED="0")
    if src is not None:
        env["PYTHONPATH"] = src
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", str(spec)], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        return {"version": version, "error": proc.stderr.strip().splitlines()[-1:]}
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    record["version"] = version
    print(f"v{version} {src or ''}: {record['seconds']:.2f} s", file=sys.stderr, flush=True)
    return record


def table(records: list[dict]) -> str:
    """One row per version and the medians (of versions with a covered[2])."""
    lines = [
        "| version | covered[2] s | CPU s | SMT checks | FOSFL calls | FOSFL s | repairs |",
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in sorted(records, key=lambda r: r["version"]):
        if "error" in r:
            lines.append(f"| {r['version']} | error: {r['error']} | | | | | |")
            continue
        repairs = ", ".join(f"`{x}`" for x in r["repairs"]) or "none"
        covered = "—" if r["covered2"] is None else f"{r['covered2']:.2f}"
        lines.append(
            f"| {r['version']} | {covered} | {r['cpu_seconds']:.2f} | {r['checks']} | {r['localizations']} "
            f"| {r['localization_seconds']:.2f} | {repairs} |"
        )
    ok = [r for r in records if "error" not in r and r["covered2"] is not None]
    if ok:
        keys = ("covered2", "cpu_seconds", "checks", "localizations", "localization_seconds")
        med = {k: statistics.median(r[k] for r in ok) for k in keys}
        total = {k: sum(r[k] for r in ok) for k in keys}
        lines.append(
            f"| **median** | **{med['covered2']:.2f}** | **{med['cpu_seconds']:.2f}** | **{med['checks']:g}** "
            f"| **{med['localizations']:g}** | **{med['localization_seconds']:.2f}** | |"
        )
        lines.append(
            f"| total | {total['covered2']:.1f} | {total['cpu_seconds']:.1f} | {total['checks']} "
            f"| {total['localizations']} | {total['localization_seconds']:.1f} | |"
        )
    return "\n".join(lines)


def compare(before: list[dict], after: list[dict]) -> str:
    """The versions whose repairs, SMT checks or FOSFL calls differ."""
    b = {r["version"]: r for r in before}
    out = []
    same = {k: 0 for k in ("repairs", "checks", "localizations")}
    for r in sorted(after, key=lambda r: r["version"]):
        o = b.get(r["version"])
        if o is None or "error" in r or "error" in o:
            continue
        diffs = [k for k in same if o[k] != r[k]]
        for k in same:
            same[k] += k not in diffs
        if diffs:
            out.append(f"* v{r['version']}: " + ", ".join(f"{k} {o[k]} -> {r[k]}" for k in diffs))
    head = "Versions with the same " + ", ".join(f"{k}: {n}/{len(after)}" for k, n in same.items()) + "."
    return "\n".join([head, ""] + out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--versions", default="1-41")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", help="write the raw records here")
    ap.add_argument(
        "--src", nargs=2, metavar=("BEFORE", "AFTER"),
        help="two src/ folders: run each version with both, alternately (the workers' PYTHONPATH); "
        "--json then names a prefix for BEFORE.json and AFTER.json",
    )
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        print(json.dumps(worker(a.worker)))
        return 0
    if a.compare:
        before, after = (json.loads(Path(p).read_text()) for p in a.compare)
        print("## Before\n\n" + table(before) + "\n\n## After\n\n" + table(after) + "\n\n" + compare(before, after))
        return 0
    shared = Path(a.shared)
    if not (shared / "benchmarks" / "tcas" / "spec").is_dir():
        print(f"no TCAS benchmark under {shared}; nothing to do", file=sys.stderr)
        return 0
    srcs = a.src or [None]
    jobs = [(v, src) for v in parse_versions(a.versions) for src in srcs]
    with ThreadPoolExecutor(a.jobs) as pool:
        records = list(pool.map(lambda job: run_one(shared, *job), jobs))
    runs = [[r for r, (_, src) in zip(records, jobs) if src == s] for s in srcs]
    if a.json:
        names = [a.json] if a.src is None else [f"{a.json}before.json", f"{a.json}after.json"]
        for name, rs in zip(names, runs):
            Path(name).write_text(json.dumps(rs, indent=1))
    if a.src is None:
        print(table(runs[0]))
    else:
        print("## Before\n\n" + table(runs[0]) + "\n\n## After\n\n" + table(runs[1]) + "\n\n" + compare(*runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
