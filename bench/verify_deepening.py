#!/usr/bin/env python3
"""Benchmark: ``crepair verify`` before and after iterative deepening for violations.

Runs ``crepair.verify(FILE, unwind=B, timeout=T)`` on the loop programs of
the shared benchmarks (``loops/*.c``, ``qlose/loops/*.c``) at bounds
``--bounds`` with the crepair of two commits (each exported with ``git
archive``, run in its own process after one warm-up call) and prints a
table: the outcome of each (they must agree) and the wall time of each.

    python bench/verify_deepening.py --before c33315f --after HEAD [--bounds 8,12] [--timeout 60]

Writes ``bench/results/verify-deepening.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "benchmarks"
OUT = ROOT / "bench" / "results" / "verify-deepening.md"

WORKER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import crepair
files, bounds, timeout = json.loads(sys.argv[2]), json.loads(sys.argv[3]), float(sys.argv[4])
crepair.verify(files[0], unwind=1)  # warm-up: imports and first solver calls
for path in files:
    for b in bounds:
        t = time.monotonic()
        try:
            outcome = crepair.verify(path, unwind=b, timeout=timeout).outcome.value
        except Exception as exc:  # a rejection: its class
            outcome = type(exc).__name__
        print(json.dumps([path, b, outcome, time.monotonic() - t]), flush=True)
"""


def run(rev: str, files: list[str], bounds: list[int], timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        out = subprocess.run([sys.executable, "-c", WORKER, str(Path(tmp) / "src"), json.dumps(files),
                              json.dumps(bounds), str(timeout)], capture_output=True, text=True, check=True).stdout
    return {(p, b): (o, w) for p, b, o, w in map(json.loads, out.splitlines())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="c33315f")
    ap.add_argument("--after", default="HEAD")
    ap.add_argument("--bounds", default="8,12")
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    files = sorted(str(p) for p in (SHARED / "loops").glob("*.c")) + \
        sorted(str(p) for p in (SHARED / "qlose" / "loops").glob("*.c"))
    bounds = [int(b) for b in a.bounds.split(",")]
    ids = {rev: subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout.strip() for rev in (a.before, a.after)}
    before, after = run(a.before, files, bounds, a.timeout), run(a.after, files, bounds, a.timeout)
    rows, agree = [], 0
    for key in before:
        (o1, w1), (o2, w2) = before[key], after[key]
        agree += o1 == o2
        rows.append(f"| {Path(key[0]).parent.name}/{Path(key[0]).name} | {key[1]} | {o1} | {o2} | {w1:.2f} | "
                    f"{w2:.2f} | {w1 / max(w2, 1e-3):.1f} |")
    total1, total2 = sum(w for _, w in before.values()), sum(w for _, w in after.values())
    text = "\n".join([
        "# crepair verify: iterative deepening for violations", "",
        f"* Command: `python bench/verify_deepening.py --before {a.before} --after {a.after} --bounds {a.bounds} "
        f"--timeout {a.timeout:g}`; before = {ids[a.before]}, after = {ids[a.after]}",
        "* One process per commit, after a warm-up call; wall seconds of `crepair.verify(FILE, unwind=B)`", "",
        f"Outcomes agree on {agree} of {len(rows)} runs; total wall {total1:.1f} s before, {total2:.1f} s after "
        f"({total1 / max(total2, 1e-3):.1f}× faster).", "",
        "| program | B | outcome before | outcome after | before (s) | after (s) | ratio |",
        "|---|---|---|---|---|---|---|", *rows, ""])
    OUT.write_text(text)
    print(text)
    return 0 if agree == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
