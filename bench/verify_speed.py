"""crepair verify: start-up and solving time per benchmark file, and CBMC
side by side when ``cbmc`` is on PATH.

Start-up is everything before the first solver call (imports, reading,
preprocessing, parsing, encoding), measured in a fresh process per file;
the bubblesort rows show how the time grows with the unwinding bound
(crepair's ``--unwind B`` runs a loop body B times, CBMC's B − 1 times, so
CBMC is given B + 1).

    python bench/verify_speed.py                    # all suites, table on stdout
    python bench/verify_speed.py --suites tcas --output bench/results/verify-speed.md
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "benchmarks"

# Runs in a fresh interpreter: phase times of one verification, as JSON.
PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import crepair
from crepair.bmc import check_bound, check_original
from crepair.encode import encode
from crepair.frontend import load_program
from crepair.solver import Limits
t_import = time.perf_counter()
path, unwind, entry = sys.argv[1], int(sys.argv[2]), sys.argv[3]
program = load_program(path)
t_parse = time.perf_counter()
formula, _ = encode(program, bound=unwind, entry=entry)
t_encode = time.perf_counter()
limits = Limits.after(float(sys.argv[4]))
verdict, _, _ = check_original(formula, limits)
t_check = time.perf_counter()
bound = check_bound(formula, limits)
t_bound = time.perf_counter()
print(json.dumps({"import": t_import - t0, "parse": t_parse - t_import, "encode": t_encode - t_parse,
                  "check": t_check - t_encode, "bound": t_bound - t_check, "verdict": verdict.value,
                  "too_small": bound.too_small}))
"""


def probe(path: Path, unwind: int, entry: str, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"), PYTHONHASHSEED="0")
    start = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", PROBE, str(path), str(unwind), entry, str(timeout)],
                           capture_output=True, text=True, env=env, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return {"error": "timeout", "wall": time.perf_counter() - start}
    wall = time.perf_counter() - start
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1], "wall": wall}
    data = json.loads(p.stdout)
    data["wall"] = wall
    data["startup"] = data["import"] + data["parse"] + data["encode"]
    return data


def cbmc(path: Path, unwind: int, entry: str, timeout: float) -> dict | None:
    exe = shutil.which("cbmc")
    if exe is None:
        return None
    start = time.perf_counter()
    try:
        p = subprocess.run([exe, str(path), "--function", entry, "--unwind", str(unwind + 1)],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "wall": time.perf_counter() - start}
    verdict = "unsat" if "VERIFICATION SUCCESSFUL" in p.stdout else "sat" if "VERIFICATION FAILED" in p.stdout else "?"
    return {"verdict": verdict, "wall": time.perf_counter() - start}


def jobs(suites: list[str]) -> list[tuple[str, Path, int, str]]:
    out = []
    if "tcas" in suites:
        out += [("tcas", p, 8, "main") for p in sorted((SHARED / "tcas" / "spec").glob("tcas_v*.c"),
                                                       key=lambda p: int(p.stem.split("_v")[1]))]
    if "qlose" in suites:
        out += [("qlose", p, 10, "main") for p in sorted((SHARED / "qlose" / "loops").glob("*.c"))]
    if "loops" in suites:
        out += [("loops", p, 3, "sum" if p.stem in ("sum", "sum2") else "main")
                for p in sorted((SHARED / "loops").glob("*.c"))]
    if "bubblesort" in suites:
        out += [("bubblesort", SHARED / "loops" / "bubblesort.c", b, "main") for b in (3, 4, 5)]
    return out


def fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default="tcas,qlose,loops,bubblesort")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per file (default: 300)")
    ap.add_argument("--output", type=Path, help="also write the markdown report here")
    args = ap.parse_args()
    if not SHARED.exists():
        print(f"no benchmarks at {SHARED}: nothing to do")
        return 0
    rows, lines = [], []
    head = ("| suite | file | B | verdict | bound too small | start-up (s) | import | parse | encode | check | "
            "bound check | wall (s) | CBMC verdict | CBMC wall (s) |")
    lines += [head, "|" + "---|" * 14]
    for suite, path, unwind, entry in jobs(args.suites.split(",")):
        r = probe(path, unwind, entry, args.timeout)
        c = cbmc(path, unwind, entry, args.timeout)
        rows.append((suite, r, c))
        if "error" in r:
            cells = [suite, path.name, str(unwind), r["error"], "", "", "", "", "", "", "", fmt(r["wall"])]
        else:
            cells = [suite, path.name, str(unwind), r["verdict"], str(r["too_small"]), fmt(r["startup"]),
                     fmt(r["import"]), fmt(r["parse"]), fmt(r["encode"]), fmt(r["check"]), fmt(r["bound"]),
                     fmt(r["wall"])]
        cells += [c["verdict"], fmt(c["wall"])] if c else ["not installed", "—"]
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    ok = [r for _, r, _ in rows if "error" not in r]
    summary = []
    if ok:
        summary.append(f"median start-up (import to first solver call): {statistics.median(r['startup'] for r in ok):.3f} s "
                       f"(import {statistics.median(r['import'] for r in ok):.3f} s); "
                       f"median wall {statistics.median(r['wall'] for r in ok):.3f} s over {len(ok)} files")
    for line in summary:
        print(line)
    if args.output:
        meta = (f"# crepair verify: start-up and solving time\n\n* Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"
                f"* crepair commit: {subprocess.run(['git', 'rev-parse', 'HEAD'], capture_output=True, text=True, cwd=REPO).stdout.strip()}\n"
                f"* Machine: nproc {os.cpu_count()}; Python {sys.version.split()[0]}; CBMC: "
                f"{'on PATH' if shutil.which('cbmc') else 'not installed (no Debian package here)'}\n"
                f"* Command: `python bench/verify_speed.py --suites {args.suites} --timeout {args.timeout:g}`\n\n"
                "Start-up is everything before the first solver call, in a fresh process per file. "
                "CBMC gets `--unwind B+1` (its bound convention).\n\n")
        args.output.write_text(meta + "\n".join(summary) + "\n\n" + "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
