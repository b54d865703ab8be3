#!/usr/bin/env python3
"""Benchmark: how encoding, verification and localization scale with program size.

Generates straight-line and loop programs of 1k to 20k lines (a fixed seed,
so the programs are the same on every run and every commit), each with an
assertion at the end that holds and a variant whose assertion fails, and
measures, each in a fresh worker process:

* encode:   ``crepair.encode.encode(crepair.frontend.load_program(P), bound=B)``
  on the passing program (parse and encode are also timed apart);
* verify:   ``crepair.verify(P, unwind=B)`` on the passing program (VERIFIED);
* localize: ``crepair.localize(P, unwind=B)`` (must method) on the failing one.

Seconds are wall time of the call alone (imports excluded); peak MB is the
worker's peak resident set size (``resource.getrusage``, imports, z3 and
the program included; the "empty" row is a worker that only imports).
A measurement that exceeds ``--timeout`` is recorded as a timeout and the
larger sizes of that operation are skipped.  ``--bubblesort`` also times
``crepair.verify`` on ``SHARED/benchmarks/loops/bubblesort.c`` at unwind 3, 4, 5.

Usage (from the repository root)::

    python bench/scale.py [--max-lines 20000] [--label after] [--rev REV | --live]
                          [--bubblesort] [--timeout 300]

Each run is stored in ``bench/results/scale.json`` under its ``--label``
(default: the short commit id), and ``bench/results/scale.md`` is rewritten
with every stored run, so a ``before`` and an ``after`` run sit side by
side.  ``--print-program KIND LINES`` prints a generated program.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import md_escape  # noqa: E402
from harness.runner import write_atomic  # noqa: E402
from harness.setup import REPO, Crepair, machine, resolve_commit, software, utc_now  # noqa: E402

SIZES = (1000, 2000, 5000, 10000, 20000)
KINDS = ("straight", "loop")
UNWIND = {"straight": 1, "loop": 3}  # the loops run 1 to 3 times
OPERATIONS = ("encode", "verify", "localize")
BUBBLESORT_UNWINDS = (3, 4, 5)
SEED = 2016


# ------------------------------------------------------------------ programs
class _Generator:
    """Writes one program line by line: ``acc`` starts as the argument ``x0``
    and only ever gains constants, so ``acc == x0 + total`` holds at the end;
    the other variables mix inputs, constants and one another."""

    def __init__(self, kind: str, lines: int, seed: int):
        self.rng = random.Random(f"{seed}/{kind}/{lines}")
        self.kind = kind
        self.target = lines
        self.out: list[str] = []
        self.vars: list[str] = []
        self.total = 0

    def operand(self, extra: tuple[str, ...] = ()) -> str:
        pool = self.vars[-40:] + ["x0", "x1", "x2"] + list(extra)
        if self.rng.random() < 0.3:
            return str(self.rng.randint(0, 99))
        return self.rng.choice(pool)

    def expr(self, extra: tuple[str, ...] = ()) -> str:
        op = self.rng.choice(["+", "-", "^", "&", "|", "+", "-"])
        e = f"{self.operand(extra)} {op} {self.operand(extra)}"
        if self.rng.random() < 0.2:
            e = f"({e}) {self.rng.choice(['+', '^', '>>'])} {self.rng.randint(1, 7)}"
        return e

    def bump(self, indent: str, times: int = 1) -> str:
        c = self.rng.randint(-50, 50)
        self.total += c * times
        return f"{indent}acc = acc + {c};" if self.rng.random() < 0.5 else f"{indent}acc += {c};"

    def simple(self, indent: str, extra: tuple[str, ...] = (), declare: bool = True) -> str:
        r = self.rng.random()
        if declare and (r < 0.4 or not self.vars):
            name = f"v{len(self.vars)}"
            line = f"{indent}int {name} = {self.expr(extra)};"
            self.vars.append(name)
            return line
        if r < 0.75 and self.vars:
            return f"{indent}{self.rng.choice(self.vars[-40:])} = {self.expr(extra)};"
        if r < 0.85 and self.vars:
            v = self.rng.choice(self.vars[-40:])
            return f"{indent}{v}++;" if self.rng.random() < 0.5 else f"{indent}{v} ^= {self.rng.randint(1, 255)};"
        return self.bump(indent)

    def loop(self) -> list[str]:
        """A counted loop of 1 to 3 iterations with a branch and a local."""
        n = self.rng.randint(1, 3)
        i = f"i{len(self.out)}"
        a, b = self.rng.choice(self.vars[-40:]), self.rng.choice(self.vars[-40:])
        body = [
            f"    for (int {i} = 0; {i} < {n}; {i}++) {{",
            f"        int t = {self.expr((i,))};",
            f"        if ({a} > t) {{",
            f"            {a} = {a} - {i};",
            "        } else {",
            f"            {b} = {b} ^ t;",
            "        }",
            self.bump("        ", n),
            "    }",
        ]
        return body

    def program(self, failing: bool) -> str:
        """The function ``compute`` (all but 10 lines) and ``main``, which
        asserts ``compute``'s result (``main`` is the specification: the
        locations localize may report are in ``compute``)."""
        self.out = ["int compute(int x0, int x1, int x2) {", "    int acc = x0;"]
        main = [
            "    return acc;",
            "}",
            "int main(void) {",
            "    int x0 = nondet_int();",
            "    int x1 = nondet_int();",
            "    int x2 = nondet_int();",
            "    __VERIFIER_assume(x0 >= -1000 && x0 <= 1000);",
            "    int r = compute(x0, x1, x2);",
            "    assert(r == x0 + (%d));",
            "    return 0;",
            "}",
        ]
        while len(self.out) + len(main) < self.target:
            room = self.target - len(main) - len(self.out)
            if self.kind == "loop" and self.vars and room >= 9 and self.rng.random() < 0.35:
                self.out += self.loop()
            else:
                self.out.append(self.simple("    "))
        expected = self.total + (1 if failing else 0)
        self.out += [line.replace("%d", str(expected)) for line in main]
        return "\n".join(self.out) + "\n"


def generate(kind: str, lines: int, failing: bool, seed: int = SEED) -> str:
    """The C program of ``kind`` ("straight" or "loop") with exactly
    ``lines`` lines; its assertion holds unless ``failing``."""
    return _Generator(kind, lines, seed).program(failing)


# ------------------------------------------------------------------ worker
def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def worker(op: str, path: str, unwind: int) -> None:
    """Run one measurement and print its JSON record on stdout."""
    import crepair
    from crepair.encode import encode
    from crepair.frontend import load_program

    base = _rss_mb()
    rec: dict = {"op": op}
    c0 = time.process_time()
    t0 = time.perf_counter()
    if op == "empty":
        pass
    elif op == "encode":
        program = load_program(path)
        rec["parse_s"] = time.perf_counter() - t0
        formula, _ = encode(program, bound=unwind)
        rec["locations"] = len(formula.locations)
        rec["copies"] = len(formula.copies)
    elif op == "verify":
        rec["outcome"] = crepair.verify(path, unwind=unwind).outcome.value
    elif op == "localize":
        res = crepair.localize(path, unwind=unwind)
        rec["outcome"] = res.outcome.value
        rec["must"] = len(res.locations)
    else:
        raise SystemExit(f"unknown operation {op}")
    rec["seconds"] = time.perf_counter() - t0
    rec["cpu_s"] = time.process_time() - c0
    rec["peak_mb"] = _rss_mb()
    rec["base_mb"] = base
    print(json.dumps(rec))


def write_results(out_md: Path, text: str, data: dict) -> None:
    """The markdown report and its raw JSON beside it (``.json``)."""
    write_atomic(out_md, text + "\n")
    write_atomic(out_md.with_suffix(".json"), json.dumps(data, indent=1) + "\n")


def measure(bench: Crepair, op: str, path: Path, unwind: int, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", op, str(path), str(unwind)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, env=bench.env)
    except subprocess.TimeoutExpired:
        return {"op": op, "timeout": timeout}
    if p.returncode != 0:
        tail = " | ".join(p.stderr.strip().splitlines()[-2:])
        return {"op": op, "error": f"exit {p.returncode}: {tail}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ report
def _cell(rec: dict | None, key: str, per_k: int | None = None) -> str:
    if rec is None:
        return "—"
    if "timeout" in rec:
        return f"> {rec['timeout']:.0f}" if key == "seconds" else "—"
    if "error" in rec:
        return "error"
    value = rec.get(key)
    if value is None:
        return "—"
    if per_k:
        return f"{value / per_k * 1000:.3f}"
    return f"{value:.0f}" if key == "peak_mb" else f"{value:.2f}"


def run_section(label: str, run: dict) -> list[str]:
    meta = run["meta"]
    out = [
        f"## {label}",
        "",
        f"* Date: {meta['date']}; wall time {meta['wall']:.0f} s",
        f"* crepair commit: {meta['commit']}",
        f"* Machine: {meta['machine']}; {meta['software']}",
        f"* Command: `{meta['command']}`" + "".join(f"; then `{c}`" for c in meta.get("more", [])),
        f"* An empty worker (imports only) peaks at {run.get('empty_mb', 0):.0f} MB",
        "",
    ]
    for kind in KINDS:
        rows = [r for r in run["rows"] if r["kind"] == kind]
        if not rows:
            continue
        out += [f"### {kind} programs (unwind {UNWIND[kind]})", ""]
        head = "| lines | locations |"
        rule = "|---:|---:|"
        for op in OPERATIONS:
            head += f" {op} CPU s | {op} CPU s / 1k lines | {op} wall s | {op} peak MB |"
            rule += "---:|---:|---:|---:|"
        out += [head, rule]
        for r in rows:
            enc = r["ops"].get("encode")
            line = f"| {r['lines']} | {enc.get('locations', '—') if enc else '—'} |"
            for op in OPERATIONS:
                rec = r["ops"].get(op)
                cpu = "seconds" if rec is not None and "timeout" in rec else "cpu_s"
                line += (f" {_cell(rec, cpu)} | {_cell(rec, 'cpu_s', r['lines'])} | {_cell(rec, 'seconds')} |"
                         f" {_cell(rec, 'peak_mb')} |")
            out.append(line)
        parse = [f"{r['lines']}: {r['ops']['encode']['parse_s']:.2f}" for r in rows
                 if "parse_s" in r["ops"].get("encode", {})]
        if parse:
            out += ["", "Of the encode wall seconds, parsing (`load_program`) took " + ", ".join(parse) + "."]
        outcomes = sorted({f"{op} {rec['outcome']}" for r in rows for op, rec in r["ops"].items() if "outcome" in rec})
        if outcomes:
            out += ["", "Outcomes: " + ", ".join(outcomes) + "."]
        out.append("")
    if run.get("bubblesort"):
        out += ["### `loops/bubblesort.c`: `crepair.verify(path, unwind=N)`", "",
                "| unwind | CPU s | wall s | peak MB | outcome |", "|---:|---:|---:|---:|---|"]
        for rec in run["bubblesort"]:
            cpu = "seconds" if "timeout" in rec else "cpu_s"
            out.append(f"| {rec['unwind']} | {_cell(rec, cpu)} | {_cell(rec, 'seconds')} | {_cell(rec, 'peak_mb')} | "
                       f"{md_escape(rec.get('outcome', rec.get('error', 'timeout')))} |")
        out.append("")
    return out


def comparison(data: dict) -> list[str]:
    """Side-by-side CPU seconds of every stored run (and the speed-up of the
    last run with rows over the first)."""
    runs = [(label, run) for label, run in data["runs"].items() if run["rows"]]
    out: list[str] = []
    if runs:
        out += ["## Comparison (CPU seconds)", ""]
        for kind in KINDS:
            head = "| lines |" + "".join(f" {op}: {label} |" for op in OPERATIONS for label, _ in runs)
            out += [f"### {kind} programs", "", head, "|---:|" + "---:|" * (len(OPERATIONS) * len(runs))]
            for lines in SIZES:
                cells = []
                for op in OPERATIONS:
                    for _, run in runs:
                        row = next((r for r in run["rows"] if r["kind"] == kind and r["lines"] == lines), None)
                        rec = None if row is None else row["ops"].get(op)
                        cells.append(_cell(rec, "seconds" if rec is not None and "timeout" in rec else "cpu_s"))
                if any(c != "—" for c in cells):
                    out.append(f"| {lines} | " + " | ".join(cells) + " |")
            out.append("")
    sorts = [(label, run["bubblesort"]) for label, run in data["runs"].items() if run.get("bubblesort")]
    if sorts:
        out += ["### `loops/bubblesort.c`, verify", "", "| unwind |" + "".join(f" {label} |" for label, _ in sorts),
                "|---:|" + "---:|" * len(sorts)]
        for n in BUBBLESORT_UNWINDS:
            cells = []
            for _, recs in sorts:
                rec = next((r for r in recs if r["unwind"] == n), None)
                cells.append(_cell(rec, "seconds" if rec is not None and "timeout" in rec else "cpu_s"))
            out.append(f"| {n} | " + " | ".join(cells) + " |")
        out.append("")
    return out


def render(data: dict) -> str:
    out = [
        "# Scaling of encode, verify and localize (crepair)",
        "",
        "Generated by `python bench/scale.py` (see its docstring): straight-line and loop programs from a fixed",
        f"seed ({SEED}); each number is one fresh worker process.  *CPU s* is the worker's CPU time for the call",
        "(`time.process_time`), *wall s* its wall time; *CPU s / 1k lines* should stay flat when the cost is",
        "linear in the program size.  `> N` in the CPU column: the call was stopped after N wall seconds, and",
        "larger sizes of that operation were skipped.  The machine was shared with other jobs while these runs",
        "took place (load average 5 to 8 on 2 CPUs), so wall times are inflated; CPU times are the ones to compare.",
        "Runs are listed in the order they were stored; runs written with another `--output` were added with",
        "`--import-runs`.",
        "",
    ]
    out += comparison(data)
    for label, run in data["runs"].items():
        out += run_section(label, run)
    return "\n".join(out)


# ------------------------------------------------------------------ driver
def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", nargs=3, metavar=("OP", "PATH", "UNWIND"), help=argparse.SUPPRESS)
    ap.add_argument("--print-program", nargs=2, metavar=("KIND", "LINES"), help="print a generated program and exit")
    ap.add_argument("--failing", action="store_true", help="with --print-program: the failing variant")
    ap.add_argument("--max-lines", type=int, default=max(SIZES), help="largest program (default 20000)")
    ap.add_argument("--kinds", default=",".join(KINDS), help="program kinds (default straight,loop; \"\": none)")
    ap.add_argument("--ops", default=",".join(OPERATIONS), help="operations (default encode,verify,localize)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per measurement (default 300)")
    ap.add_argument("--label", default=None, help="name of this run in the results (default: short commit id)")
    ap.add_argument("--rev", default=None, help="measure the crepair of this git commit (default HEAD)")
    ap.add_argument("--live", action="store_true", help="measure the working tree instead of --rev")
    ap.add_argument("--bubblesort", action="store_true", help="also time loops/bubblesort.c at unwind 3, 4, 5")
    ap.add_argument("--min-lines", type=int, default=0, help="smallest program (default: all sizes)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the stored rows of --label and replace only those measured again")
    ap.add_argument("--shared", default=str(REPO.parent / "shared"), help="folder holding benchmarks/ (default ../shared)")
    ap.add_argument("--output", default=str(REPO / "bench" / "results" / "scale.md"),
                    help="markdown report (default bench/results/scale.md); raw JSON next to it")
    ap.add_argument("--import-runs", nargs="+", metavar="JSON",
                    help="add the runs stored in these raw JSON files (e.g. of runs made with another --output) "
                    "to the results, rewrite the report and exit")
    args = ap.parse_args(argv)
    if args.worker:
        op, path, unwind = args.worker
        worker(op, path, int(unwind))
        return 0
    if args.import_runs:
        out_md = Path(args.output)
        out_json = out_md.with_suffix(".json")
        data = json.loads(out_json.read_text()) if out_json.exists() else {"runs": {}}
        for path in args.import_runs:
            data["runs"].update(json.loads(Path(path).read_text())["runs"])
        write_results(out_md, render(data), data)
        return 0
    if args.print_program:
        kind, lines = args.print_program
        sys.stdout.write(generate(kind, int(lines), args.failing))
        return 0

    t_start = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="crepair-scale-"))
    bench = Crepair(args, tmp)
    bench.tmp = tmp
    commit = bench.described
    label = args.label or (bench.commit_id or resolve_commit("HEAD"))[:10]
    out_md = Path(args.output)
    out_md.parent.mkdir(parents=True, exist_ok=True)
    out_json = out_md.with_suffix(".json")
    data = json.loads(out_json.read_text()) if out_json.exists() else {"runs": {}}
    command = "python bench/scale.py " + shlex.join(argv)
    meta = {"date": utc_now(), "commit": commit, "machine": machine(), "software": software(), "command": command}
    run: dict = {"meta": meta, "rows": []}
    old = data["runs"].get(label) if args.merge else None
    ops = args.ops.split(",")
    try:
        run["empty_mb"] = measure(bench, "empty", Path("-"), 0, args.timeout).get("peak_mb", 0)
        for kind in [k for k in args.kinds.split(",") if k]:
            unwind = UNWIND[kind]
            given_up: set[str] = set()
            for lines in [n for n in SIZES if args.min_lines <= n <= args.max_lines]:
                row = {"kind": kind, "lines": lines, "ops": {}}
                run["rows"].append(row)
                files = {}
                for failing in (False, True):
                    f = bench.tmp / f"{kind}_{lines}{'_fail' if failing else ''}.c"
                    f.write_text(generate(kind, lines, failing))
                    files[failing] = f
                for op in ops:
                    if op in given_up:
                        continue
                    rec = measure(bench, op, files[op == "localize"], unwind, args.timeout)
                    row["ops"][op] = rec
                    shown = rec.get("seconds", rec.get("timeout", rec.get("error")))
                    print(f"{kind} {lines} {op}: {shown} s, {rec.get('peak_mb', 0):.0f} MB", file=sys.stderr)
                    if "timeout" in rec or "error" in rec:
                        given_up.add(op)
        if args.bubblesort:
            path = Path(args.shared) / "benchmarks" / "loops" / "bubblesort.c"
            run["bubblesort"] = []
            for n in BUBBLESORT_UNWINDS:
                rec = measure(bench, "verify", path, n, args.timeout)
                rec["unwind"] = n
                run["bubblesort"].append(rec)
                print(f"bubblesort unwind {n}: {rec.get('seconds', rec.get('timeout'))} s", file=sys.stderr)
                if "timeout" in rec:
                    break
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)
    meta["wall"] = time.monotonic() - t_start
    if old is not None:  # --merge: the new rows replace those of the same kind and size
        new = {(r["kind"], r["lines"]) for r in run["rows"]}
        rows = [r for r in old["rows"] if (r["kind"], r["lines"]) not in new] + run["rows"]
        old["rows"] = sorted(rows, key=lambda r: (KINDS.index(r["kind"]), r["lines"]))
        if run.get("bubblesort"):
            old["bubblesort"] = run["bubblesort"]
        old["meta"].setdefault("more", []).append(command)
        old["meta"]["wall"] += meta["wall"]
        run = old
    data = json.loads(out_json.read_text()) if out_json.exists() else {"runs": {}}  # runs stored meanwhile
    data["runs"][label] = run
    text = render(data)
    write_results(out_md, text, data)
    print("\n".join(run_section(label, run)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
