"""Does ``--timeout`` hold on real programs?  ``crepair repair BUGGY.c
--reference ACCEPTED.c --timeout S --json`` on the Codeflaws defects, each
in its own process: wall time from the start of the process to its exit,
and its peak resident memory (``wait4``'s ``ru_maxrss``, the crepair
process itself; the compilers and tests it starts are not counted).

    python bench/limits.py [--timeout 5] [--jobs 1] [--only NAME,...]

Writes ``bench/results/limits.json`` and ``.md``: per defect the outcome,
exit code, wall seconds and peak MiB; the worst, the number over
``S + 2`` seconds and over 2 GiB; the machine's load average (1, 5 and 15
minutes) before and after the runs (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODEFLAWS = ROOT.parent / "shared" / "benchmarks" / "codeflaws"
OUT = ROOT / "bench" / "results"


def defects() -> list[tuple[str, Path, Path]]:
    out = []
    for d in sorted(CODEFLAWS.glob("*-bug-*-*")):
        contest, problem, _, buggy, accepted = d.name.split("-")
        out.append((d.name, d / f"{contest}-{problem}-{buggy}.c", d / f"{contest}-{problem}-{accepted}.c"))
    return out


def run(name: str, buggy: Path, accepted: Path, timeout: float) -> dict:
    argv = [sys.executable, "-m", "crepair.cli", "repair", buggy.name, "--reference", str(accepted),
            "--timeout", str(timeout), "--json"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.monotonic()
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        proc = subprocess.Popen(argv, cwd=buggy.parent, env=env, stdout=out_f, stderr=err_f)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak memory, not its children's
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    code = proc.returncode
    try:
        outcome = json.loads(out).get("outcome") or json.loads(out).get("error", {}).get("kind", "?")
    except (json.JSONDecodeError, AttributeError):
        outcome = "no-json"
    peak = usage.ru_maxrss / 1024
    return {"defect": name, "exit": code, "outcome": outcome, "seconds": round(wall, 2),
            "peak_mib": None if peak is None else round(peak, 1),
            "stderr": err.decode(errors="replace").strip().splitlines()[-1:] if err else []}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    chosen = [d for d in defects() if args.only is None or d[0] in args.only.split(",")]
    rows = []
    load_before = os.getloadavg()

    def one(d):
        return run(*d, args.timeout)

    with ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(one, chosen):
            rows.append(row)
            print(json.dumps(row), flush=True)
    load_after = os.getloadavg()
    load = f"load average {' '.join(f'{x:.1f}' for x in load_before)} before, {' '.join(f'{x:.1f}' for x in load_after)} after"
    limit = args.timeout + 2
    over = [r for r in rows if r["seconds"] > limit]
    big = [r for r in rows if (r["peak_mib"] or 0) > 2048]
    hard = [r for r in rows if any("did not stop at the time limit" in line for line in r["stderr"])]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    lines = [f"# `--timeout {args.timeout:g}` on the Codeflaws defects against their accepted programs", "",
             f"Commit {commit}; `crepair repair BUGGY.c --reference ACCEPTED.c --timeout {args.timeout:g} --json`, "
             f"{args.jobs} job(s); wall seconds from process start to exit; peak resident memory of the crepair "
             f"process; {load}.", "",
             f"{len(rows)} runs; slowest {max(r['seconds'] for r in rows):.1f} s; over {limit:g} s: {len(over)}; "
             f"largest {max((r['peak_mib'] or 0) for r in rows):.0f} MiB; over 2 GiB: {len(big)}; "
             f"stopped by the hard stop (not by themselves): {len(hard)}.", "",
             "| defect | exit | outcome | seconds | peak MiB |", "|---|---|---|---|---|"]
    lines += [f"| {r['defect']} | {r['exit']} | {r['outcome']} | {r['seconds']} | {r['peak_mib']} |" for r in rows]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "limits.json").write_text(json.dumps({"commit": commit, "timeout": args.timeout, "jobs": args.jobs,
                                                   "load_before": load_before, "load_after": load_after,
                                                   "rows": rows}, indent=1))
    (OUT / "limits.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:6]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
