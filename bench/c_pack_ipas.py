"""C-Pack-IPAs: repair student submissions against the model solution and
the course's tests (the teacher's case), and check every first repair
independently of the run that found it.

Each submission runs ``crepair repair SUB.c --reference MODEL.c
--tests-dir TESTS --compare exact --json --timeout S`` in its own process.
The benchmark then compiles the first repair itself and counts it as
*correct* only when it passes every course test under exact comparison
and prints what the model solution prints on 200 inputs generated with a
seed the repair never used (the model's run on an input must end normally
under the sanitizers for the input to count).

    python bench/c_pack_ipas.py [--sample N] [--seed K] [--jobs J] [--timeout S] [--labs lab02,lab03]

Writes ``bench/results/c-pack-ipas.json`` and ``.md`` (a table per lab and
the totals: repaired, correct, evidence levels, median seconds).

The whole benchmark runs as a suite, ``crepair bench c-pack-ipas``
(``bench/suites/c-pack-ipas.yaml``: one batch job per submission,
resumable, on Ray with ``--executor ray``); :func:`tables` is its printer
(the same check and tables from the batch's records; the checks are kept
in ``bench/results/c-pack-ipas.checks.json`` so that ``--report-only``
does not redo them).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from crepair.oracle import ReferenceProgram, mutate_inputs  # noqa: E402
from crepair.oracle.reference import compile_c, run_binary  # noqa: E402

BENCH = ROOT.parent / "shared" / "benchmarks" / "c-pack-ipas"
OUT = ROOT / "bench" / "results"
CHECK_SEED = 20261127  # the generated inputs of the check; the repair uses seed 0


def submissions(labs: list[str] | None) -> list[Path]:
    out = sorted(BENCH.glob("incorrect/year-*/lab*/ex*/*.c"))
    return [p for p in out if labs is None or p.parts[-3] in labs]


def assignment(sub: Path) -> tuple[Path, Path]:
    lab, ex = sub.parts[-3], sub.parts[-2]
    return BENCH / "reference_implementations" / lab / f"{ex}.c", BENCH / "tests" / lab / ex


def _passes(run, expected: bytes) -> bool:
    """The run ended by itself (no time-out, no crash) printing ``expected`` byte for byte."""
    return run.ended and run.output == expected


def check(patched: str, model: Path, tests: Path) -> dict:
    """The independent check of a repair: course tests (exact) and generated inputs."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "patched.c"
        src.write_text(patched, errors="surrogateescape")
        if compile_c(src, Path(tmp) / "p") is not None:
            return {"compiles": False}
        binary = Path(tmp) / "p"
        ins = sorted(tests.glob("*.in"))
        course = sum(_passes(run_binary(binary, i.read_bytes(), timeout=2), i.with_suffix(".out").read_bytes())
                     for i in ins)
        seeds = [i.read_bytes() for i in ins]
        agree = total = 0
        with ReferenceProgram(model) as oracle:
            for stdin in mutate_inputs(seeds, count=200, seed=CHECK_SEED):
                want = oracle.expected(stdin)
                if want is None:
                    continue
                total += 1
                agree += _passes(run_binary(binary, stdin, timeout=2), want)
        return {"compiles": True, "course_passed": course, "course_total": len(ins), "generated_agree": agree,
                "generated_total": total}


def run_one(sub: Path, timeout: float) -> dict:
    model, tests = assignment(sub)
    rel = sub.relative_to(BENCH).as_posix()
    start = time.monotonic()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / sub.name
        local.write_bytes(sub.read_bytes())
        try:
            done = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", local.name, "--reference",
                                   str(model), "--tests-dir", str(tests), "--compare", "exact", "--json",
                                   "--timeout", str(timeout)], cwd=tmp, capture_output=True, text=True,
                                  timeout=timeout * 3 + 60, env=env)
        except subprocess.TimeoutExpired:
            return {"submission": rel, "exit": None, "outcome": "killed", "seconds": time.monotonic() - start}
    seconds = time.monotonic() - start
    row = {"submission": rel, "exit": done.returncode, "seconds": round(seconds, 2)}
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        row.update(outcome="error", error=(done.stderr.strip().splitlines() or ["?"])[-1][:200])
        return row
    if "error" in report:
        row.update(outcome="error", error=report["error"].get("message", "")[:200])
        return row
    row["outcome"] = report["outcome"]
    repairs = report.get("repairs") or []
    if repairs:
        first = repairs[0]
        row.update(evidence=first.get("evidence_level"), size=first["size"],
                   changes=[(c["location"]["line"], c["original"], c["replacement"]) for c in first["changes"]])
        row["check"] = check(first_patched(sub, first), model, tests)
    return row


def row_of(sub: Path, record: dict | None) -> dict:
    """The row of one submission from its batch record (None: not run)."""
    row = {"submission": os.path.relpath(sub.resolve(), BENCH.resolve())}
    if record is None:
        return {**row, "outcome": "not run", "seconds": 0.0}
    row.update(exit=record.get("exit_code"), seconds=round(record.get("seconds") or 0.0, 2),
               outcome=record.get("outcome") or "error")
    repairs = record.get("repairs") or []
    if repairs:
        first = repairs[0]
        row.update(evidence=first.get("evidence_level"), size=first["size"],
                   changes=[(c["location"]["line"], c["original"], c["replacement"]) for c in first["changes"]])
        row["patched"] = first_patched(sub, first)
    return row


def tables(suite: dict, batch_jobs: list, records: dict[str, dict], output: Path) -> list[str]:
    """The report of ``crepair bench c-pack-ipas`` (the suite printer
    interface of ``crepair.batch.bench``): each first repair checked as
    :func:`check` does (cached in OUTPUT.checks.json by submission and
    patched text), the rows in OUTPUT.json, a table per lab."""
    import hashlib

    cache_path = output.with_name(output.name + ".checks.json")
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    rows = []
    for job in batch_jobs:
        meta = dict(job.meta)
        row = row_of(Path(job.program), records.get(job.id))
        patched = row.pop("patched", None)
        if patched is not None:
            key = row["submission"] + " " + hashlib.sha1(patched.encode(errors="surrogateescape")).hexdigest()
            if key not in cache:
                cache[key] = check(patched, Path(meta["reference"]), Path(meta["tests"]))
            row["check"] = cache[key]
        rows.append(row)
    cache_path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    done = [r for r in rows if r["outcome"] != "not run"]
    output.with_name(output.name + ".json").write_text(json.dumps({"timeout": suite.get("timeout"), "rows": rows},
                                                                  indent=1) + "\n")
    return [f"{len(done)} of {len(rows)} submissions run.", "", *(table(done) if done else [])]


def first_patched(sub: Path, repair: dict) -> str:
    """The patched text of a repair: the original with its edits applied (offsets into the original)."""
    text = sub.read_bytes().decode(errors="surrogateescape")
    edits = sorted(((e["span"]["start"], e["span"]["end"], e["new"]) for c in repair["changes"] for e in c["edits"]),
                   reverse=True)
    for start, end, new in edits:
        text = text[:start] + new + text[end:]
    return text


def correct(row: dict) -> bool:
    c = row.get("check") or {}
    return bool(c.get("compiles")) and c["course_passed"] == c["course_total"] and \
        c["generated_agree"] == c["generated_total"]


def table(rows: list[dict]) -> list[str]:
    out = ["| lab | submissions | repaired | correct (course tests exact + generated) | proof | tests only | "
           "no repair | unknown | errors | median s |", "|---|---|---|---|---|---|---|---|---|---|"]
    labs = sorted({r["submission"].split("/")[2] for r in rows})
    for lab in labs + ["all"]:
        rs = [r for r in rows if lab == "all" or r["submission"].split("/")[2] == lab]
        rep = [r for r in rs if r.get("outcome") == "repaired"]
        out.append(
            f"| {lab} | {len(rs)} | {len(rep)} | {sum(correct(r) for r in rs)} | "
            f"{sum(r.get('evidence') == 'proof' for r in rep)} | {sum(r.get('evidence') == 'tests' for r in rep)} | "
            f"{sum(r.get('outcome') in ('exhausted', 'no-repair') for r in rs)} | "
            f"{sum(r.get('outcome') == 'unknown' for r in rs)} | "
            f"{sum(r.get('outcome') in ('error', 'killed') for r in rs)} | "
            f"{statistics.median([r['seconds'] for r in rs]):.1f} |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=None, help="a random sample of N submissions (default: all)")
    ap.add_argument("--seed", type=int, default=1, help="the sample's seed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--labs", default=None, help="comma-separated labs (default: all)")
    ap.add_argument("--name", default="c-pack-ipas", help="the results' file name (without extension)")
    args = ap.parse_args()
    if not BENCH.is_dir():
        print(f"{BENCH}: not found (the shared benchmarks)", file=sys.stderr)
        return 3
    subs = submissions(args.labs.split(",") if args.labs else None)
    if args.sample:
        subs = sorted(random.Random(args.seed).sample(subs, min(args.sample, len(subs))))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    rows = []
    load_before = os.getloadavg()[0]
    with ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda s: run_one(s, args.timeout), subs):
            rows.append(row)
            print(json.dumps(row), flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.name}.json").write_text(json.dumps({"commit": commit, "timeout": args.timeout,
                                                        "sample": args.sample, "seed": args.seed,
                                                        "rows": rows}, indent=1))
    lines = [f"# C-Pack-IPAs: submissions repaired against the model solution and the course tests",
             "", f"Commit {commit}; `--reference MODEL.c --tests-dir TESTS --compare exact --timeout "
             f"{args.timeout:g}`; {len(rows)} submissions" + (f" (random sample, seed {args.seed})"
                                                               if args.sample else "") + f"; {args.jobs} jobs; "
             f"load average (1 min) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
             f"(on {os.cpu_count()} processors; times are wall-clock).",
             "A repair is *correct* when the benchmark's own build of it passes every course test byte for byte "
             "and prints what the model solution prints on 200 generated inputs (another seed than the repair's).",
             "", *table(rows)]
    (OUT / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
