#!/usr/bin/env python3
"""Benchmark: crepair's test-driven repair on the 26 micro-programs of f1x's own tests.

``SHARED/benchmarks/f1x-tests/runall.sh`` gives the f1x command of each
case; :func:`translate` turns it into crepair's: ``--files program.c`` →
``crepair repair program.c --tests test.sh --test-ids …``,
``program.c:11`` → ``--lines 11``, ``--test-timeout 1000`` → the same,
``--disable-vteq`` → ``--no-partition``, ``--files program.c lib.c`` →
``crepair repair program.c lib.c`` and ``--localize 1`` (f1x's file
localization) → ``--localize-files`` (every file the failing tests run).  Each case runs in a temporary copy
of its folder.

Afterwards the benchmark (never crepair) compares the patched file with the
intended fix: the fix is written in a comment on the faulty line of each
program (``if (a > b) { // >=``), copied by hand into :data:`INTENDED` as
the whole expected line (some alternatives are equally intended, e.g.
``i>=3`` or ``i>2``); programs are compared as C token sequences.

Usage (from the repository root)::

    python bench/f1x_tests.py [--only if-condition,deletion] [--timeout 300] [--jobs 2] [--resume]

The markdown report goes to stdout and to ``bench/results/f1x-tests.md``
(raw data to ``bench/results/f1x-tests.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import fmt_s, header, md_escape, outcome_text, table  # noqa: E402
from harness.records import emit  # noqa: E402
from harness.runner import Benchmark, Job, main  # noqa: E402
from tdrepair import call_failure, change_cell, outcome_of, patched, read_text, repair_record, run_crepair, \
    run_stats, same_program, shown  # noqa: E402

# case: (file, 1-based line, the whole fixed line) alternatives, each equally intended.  From the comment on the
# faulty line; cases whose program has no such comment say where the fix comes from in NOTES.
_GE = "if (a >= b) {"
INTENDED: dict[str, list[tuple[str, int, str]]] = {
    "array-subscripts": [("program.c", 8, "if (a[0] >= b[0]) {")],
    "assign-in-condition": [("program.c", 8, "if (cond = a >= b) {")],
    "break": [("program.c", 8, "if(i>=3)"), ("program.c", 8, "if(i>2)")],
    "cast-expr": [("program.c", 8, "if ((long) a >= b) {")],
    "dangling-else": [("program.c", 8, "if (a >= b)")],
    "deletion": [("program.c", 11, ""), ("program.c", 11, "if (0) inc(&n);")],
    "divide-by-zero": [("program.c", 8, _GE)],
    "guarded-assignment": [("program.c", 9, "cond = a >= b;")],
    "if-condition": [("program.c", 8, _GE)],
    "incomplete-pointee": [("program.c", 11, _GE)],
    "inside-ifdef": [("program.c", 11, _GE)],
    "int-assignment": [("program.c", 8, "cond = a >= b;")],
    "intersect-ifdef": [("program.c", 19, _GE)],
    "localization": [("file2.c", n, code) for n in (8, 12) for code in ("", "if (0) inc(i);")],
    "loop-condition": [("program.c", 7, "while (n >= 1) {"), ("program.c", 7, "while (n > 0) {")],
    "memberexpr": [("program.c", 15, "if (pp->first >= pp->second) {")],
    "multifile": [("lib.c", 4, "return a >= b;")],
    "non-integer-member": [("program.c", 20, "if (x >= y) {")],
    "null-dereference": [("program.c", 15, _GE)],
    "pointer": [("program.c", 25, "if (p == t) {")],
    "pointer-arithmetic": [("program.c", 11, "b = a + 1;")],
    "refine-condition": [("program.c", 12, "if (foo() || a >= b) {")],
    "replace-constant": [("program.c", 7, "if (a > 5) {")],
    "return": [("program.c", 6, "return value;"), ("program.c", 6, "return 1;")],
    "signed-int-overflow": [("program.c", 9, "add = mid - (unsigned)base - 1;")],
    "substitute-bool2": [("program.c", 10, "if (a > b) {")],
}
NOTES = {
    "break": "no comment in the program: `i>3` → `i>=3` (or `i>2`) is the fix the three tests allow",
    "return": "no comment in the program: `return 0;` → `return value;` (or `return 1;`)",
    "multifile": "no comment in the program: `lib.c` `a > b` → `a >= b`",
    "localization": "no comment in the program: one of the two `inc(i);` of `file2.c` deleted",
    "deletion": "a deletion is the statement removed, or guarded by `if (0)` (f1x's deletion)",
    "loop-condition": "`n > 1` → `n >= 1` (comment `>=`) or the equivalent `n > 0`",
}


def parse_runall(text: str) -> dict[str, str]:
    """``{case: f1x command}`` of ``runall.sh``'s ``get-cmd``."""
    return {m.group(1): m.group(2) for m in re.finditer(r'^\s*([\w-]+)\)\s*\n\s*echo\s+"(f1x [^"]*)"', text, re.M)}


def translate(f1x: str, case_dir: Path, build: str | None) -> tuple[list[dict], list[str]]:
    """The crepair runs of one f1x command, ``[{"file", "args"}]`` (without
    ``--timeout``, which the worker adds), and notes on the translation."""
    argv = shlex.split(f1x)[1:]
    files: list[tuple[str, str]] = []
    opts: dict[str, list[str]] = {}
    i = 0
    while i < len(argv):
        opt, vals = argv[i], []
        i += 1
        while i < len(argv) and not argv[i].startswith("--"):
            vals.append(argv[i])
            i += 1
        opts[opt] = vals
    notes = []
    for spec in opts.pop("--files", []):
        name, _, lines = spec.partition(":")
        files.append((name, lines))
    localize = None
    if "--localize" in opts:
        localize = opts.pop("--localize")[0] if opts["--localize"] else ""
        files = [("program.c", "")]
        notes.append(f"`--localize {localize}` (f1x's file localization) → `--localize-files` over every file the "
                     "failing tests run: all three tests fail and run every line, so every line of every file has the "
                     "same suspiciousness and a top-N cut would only pick by crepair's tie order (the program first); "
                     "the search's cost order chooses instead")
        localize = ""
    elif len(files) > 1:
        notes.append("several `--files` → the files after the program: `crepair repair "
                     + " ".join(n for n, _ in files) + "`")
        if any(lines for _, lines in files[1:]):
            notes.append("line restrictions of the files after the first are dropped (`--lines` is the program's)")
    common = ["--tests", opts.pop("--driver", ["test.sh"])[0], "--test-ids", *opts.pop("--tests", [])]
    if "--test-timeout" in opts:
        common += ["--test-timeout", opts.pop("--test-timeout")[0]]
    if "--disable-vteq" in opts:
        opts.pop("--disable-vteq")
        common.append("--no-partition")
        notes.append("`--disable-vteq` → `--no-partition`")
    if build:
        common += ["--build", build]
    if opts:
        notes.append("f1x options without a crepair counterpart, dropped: " + " ".join(f"`{o}`" for o in opts))
    name, lines = files[0]
    args = ["repair", *(n for n, _ in files), *common] + (["--lines", lines] if lines else [])
    if localize is not None:
        args += ["--localize-files"] + ([localize] if localize else [])
    runs = [{"file": name, "args": args + ["--json"]}]
    makefile = case_dir / "Makefile"
    mk = makefile.read_text(encoding="utf-8", errors="replace") if makefile.exists() else ""
    if re.search(r"^CC\s*=\s*clang", mk, re.M) and shutil.which("clang") is None:
        notes.append("its Makefile builds with clang (`-fsanitize=undefined`), which is not installed here")
    return runs, notes


@dataclass
class F1xJob(Job):
    SETUP = ("timeout", "runs")
    PARAMS = ("case", "dir", "runs", "timeout")

    case: str
    f1x: str
    timeout: float
    dir: str = ""
    runs: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    calls: list = field(default_factory=list)  # one record per crepair run

    @property
    def key(self) -> tuple:
        return (self.case,)


class F1xTests(Benchmark):
    name = "f1x-tests"
    holding = "benchmarks/f1x-tests"
    job = F1xJob
    modules = ("tdrepair.py", "tcas_sir.py")

    @property
    def root(self) -> Path:
        return self.shared / "benchmarks" / "f1x-tests"

    def missing(self) -> str:
        return "" if (self.root / "runall.sh").is_file() else f"{self.root / 'runall.sh'} not found"

    def add_options(self, ap) -> None:
        ap.set_defaults(timeout=300.0)
        for action in ap._actions:
            if action.dest == "timeout":
                action.help = "seconds per case, shared by its crepair runs (default 300)"
        ap.add_argument("--only", default="", help="comma-separated case names to run")
        ap.add_argument("--build", default=None, metavar="CMD",
                        help="crepair's --build for every case (default: none given, crepair's own)")

    def commands(self) -> dict[str, str]:
        return parse_runall((self.root / "runall.sh").read_text(encoding="utf-8"))

    def jobs(self) -> dict:
        cases = sorted(p.name for p in self.root.iterdir() if (p / "test.sh").is_file())
        if self.args.only:
            names = {n.strip().rstrip("/") for n in self.args.only.split(",") if n.strip()}
            if names - set(cases):
                raise SystemExit(f"--only: no such case: {', '.join(sorted(names - set(cases)))}")
            cases = [c for c in cases if c in names]
        cmds = self.commands()
        jobs = {}
        for case in cases:
            f1x = cmds.get(case, "")
            runs, notes = ([], ["no command in runall.sh"]) if not f1x else translate(f1x, self.root / case,
                                                                                      self.args.build)
            jobs[(case,)] = F1xJob(case=case, f1x=f1x, timeout=self.args.timeout, dir=str(self.root / case),
                                   runs=runs, notes=notes)
        return jobs

    def meta(self) -> dict:
        cmds = self.commands()
        return {"build": self.args.build,
                "not_on_disk": sorted(c for c in cmds if not (self.root / c / "test.sh").is_file())}

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        scratch = Path(tempfile.mkdtemp(prefix="f1x-tests-"))
        try:
            work = scratch / p["case"]
            shutil.copytree(p["dir"], work)
            emit(fh, {"type": "start", "setup_seconds": time.monotonic() - t0, "crepair_file": crepair.__file__})
            last, failures, totals = None, [], {"executions": 0, "explored": 0, "seconds": 0.0}
            for run in p["runs"]:
                left = p["timeout"] - (time.monotonic() - t0)
                if left < 1:
                    emit(fh, {"type": "call", "file": run["file"], "skipped": "the case's time limit was used up"})
                    continue
                args = run["args"][:-1] + ["--timeout", f"{left:.0f}", run["args"][-1]]
                call = run_crepair(args, work, left)
                rec = {"type": "call", "file": run["file"], "command": shown(args), "exit": call["exit"],
                       "wall": call["wall"], "failure": call_failure(call)}
                if not rec["failure"]:
                    last = call
                    rec["outcome"], rec["stopped"], rec["reason"] = outcome_of(call)
                    rec["stats"] = run_stats(call["json"], call)
                    e = rec["stats"]["exploration"]
                    for k in totals:
                        totals[k] += (e.get(k) or 0) if k != "seconds" else (rec["stats"].get("seconds") or 0)
                else:
                    failures.append(f"{run['file']}: {rec['failure']}")
                emit(fh, rec)
                repairs = (call["json"] or {}).get("repairs") or []
                if repairs:
                    emit(fh, {**repair_record(1, repairs[0]), "file": repairs[0].get("file") or run["file"]})
                    break
            if last is None:
                raise RuntimeError("; ".join(failures) or "no crepair run")
            outcome, stopped, reason = outcome_of(last)
            emit(fh, {"type": "done", "outcome": outcome, "stopped": stopped, "reason": reason,
                      "stats": {**run_stats(last["json"], last), "totals": totals},
                      "wall_seconds": time.monotonic() - t0})
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def after(self, job: F1xJob, others: list[dict]) -> None:
        job.calls = [r for r in others if r["type"] == "call"]
        for r in job.repairs:
            try:
                r["intended"] = intended(Path(job.dir), job.case, r)
                r["change"] = change_cell(read_text(Path(job.dir) / r["file"]), r)
            except Exception as exc:  # noqa: BLE001
                r["intended"] = {"error": f"{type(exc).__name__}: {exc}"}

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        return report(jobs, meta, final)

    def progress(self, job: F1xJob) -> str:
        r = job.repairs[0] if job.repairs else None
        return (f"{job.case}: {outcome_text(job) or '?'}"
                + (f", {r.get('file')} {r.get('change', '')}, intended {intended_cell(r).strip('*')}" if r else "")
                + f", executions {job.stats.get('totals', {}).get('executions', '-')}, wall {job.wall:.0f} s")


def intended(case_dir: Path, case: str, rec: dict) -> dict:
    """Whether repair ``rec`` (of ``rec["file"]``) gives one of the case's
    intended programs: ``{"ok", "expected"}``."""
    original = read_text(case_dir / rec["file"])
    got = patched(original, rec)
    alts = [(f, n, code) for f, n, code in INTENDED.get(case, []) if f == rec["file"]]
    for f, n, code in alts:
        lines = original.split("\n")
        lines[n - 1] = code
        if same_program(got, "\n".join(lines)):
            return {"ok": True, "expected": f"{f}:{n}: {code or '(deleted)'}"}
    return {"ok": False, "expected": " or ".join(f"{f}:{n}: {c or '(deleted)'}" for f, n, c in INTENDED.get(case, []))}


def intended_cell(r: dict | None) -> str:
    if r is None:
        return "—"
    i = r.get("intended") or {}
    return "error" if "error" in i else "yes" if i.get("ok") else "**no**"


def report(jobs: dict, meta: dict, final: bool) -> str:
    jobs = dict(sorted(jobs.items()))
    fin = [j for j in jobs.values() if j.status in ("done", "error")]
    out = header("f1x's test programs: test-driven repair (crepair)", meta, jobs, final, "cases") + [
        f"* Each case: the f1x command of `runall.sh` translated (see *Commands*), run in a temporary copy of its "
        f"folder with `--timeout` = what is left of {meta.get('timeout', 0):g} s per case"
        + (f", `--build {meta['build']}`" if meta.get("build") else ""),
        "* *intended?*: the patched file has the same C tokens as the program with the fix written in the faulty "
        "line's comment (compared by the benchmark; alternatives in *Commands*)", ""]
    if meta.get("not_on_disk"):
        out += [f"* In `runall.sh` but not on disk (not run): {', '.join(meta['not_on_disk'])}", ""]
    found = [j for j in fin if j.repairs]
    good = [j for j in found if (j.repairs[0].get("intended") or {}).get("ok")]
    out += ["## Summary", "", f"* Plausible patch: **{len(found)}/{len(fin)}**; the intended fix: **{len(good)}**",
            f"* Plausible but not the intended fix: {', '.join(j.case for j in found if j not in good) or 'none'}",
            "* No patch: " + ("; ".join(f"{j.case} ({outcome_text(j)}" + (f": {j.reason}" if j.reason else "") + ")"
                                         for j in fin if not j.repairs) or "none"), ""]
    head = ["case", "command", "outcome", "patch (line before → after)", "intended?", "test executions", "time (s)"]
    rows = []
    for j in jobs.values():
        if j.status in ("pending", "running"):
            rows.append([j.case, "", j.status, "", "", "", ""])
            continue
        r = j.repairs[0] if j.repairs else None
        cmd = "; ".join(c.get("command", f"{c['file']}: {c.get('skipped', '')}") for c in j.calls) or "—"
        oc = outcome_text(j) + (f" ({j.reason})" if j.reason and not j.repairs else "")
        patch = f"{r['file']} {r.get('change', '')}" if r else "—"
        totals = j.stats.get("totals", {})
        rows.append([j.case, cmd, oc, patch, intended_cell(r), str(totals.get("executions", "—")),
                     fmt_s(totals.get("seconds"))])
    out += ["## Results", ""] + table(head, rows) + [""]
    out += ["## Commands", "", "f1x (`runall.sh`) → crepair, the intended fix, and notes.", ""]
    for j in jobs.values():
        fixes = " or ".join(f"`{f}:{n}: {c or '(deleted)'}`" for f, n, c in INTENDED.get(j.case, [])) or "?"
        crepair = "; ".join(f"`crepair {' '.join(r['args'])}`" for r in j.runs)
        notes = "".join(f"; {md_escape(n)}" for n in j.notes + [NOTES.get(j.case, "")] if n)
        out.append(f"* **{j.case}**: `{j.f1x or '—'}` → {crepair}; intended: {fixes}{notes}")
    calls = [(j.case, c) for j in fin for c in j.calls if c.get("failure")]
    if calls:
        out += ["", "## crepair runs without a result", ""] + [f"* {case} ({c['file']}): {md_escape(c['failure'])}"
                                                                for case, c in calls]
    errs = [j for j in fin if j.error]
    if errs:
        out += ["", "## Run errors", ""] + [f"* {j.case}: {md_escape(j.error)}" for j in errs]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main(F1xTests(__file__), __doc__))
