#!/usr/bin/env python3
"""Benchmark: crepair's template repair on the 41 faulty TCAS versions (SIR).

Runs ``crepair.repair(spec, scheme="template", ...)`` (model-based diagnosis
and linear templates, Könighofer & Bloem, FMCAD'11) and
``crepair.localize(spec, method="diagnosis", ...)`` on
``SHARED/benchmarks/tcas/spec/tcas_vN.c``, maps every repair onto the SIR
program ``SHARED/benchmarks/tcas/sir/versions/vN/tcas.c`` and runs it on the
SIR test universe, then compares with the mutation scheme's results in
``bench/results/tcas-mutation.json``.

Usage (from the repository root)::

    python bench/tcas_template.py [--shared ../shared] [--timeout 600]
                                  [--versions 2,7,...] [--jobs 2] [--resume]

The markdown report goes to stdout and to ``bench/results/tcas-template.md``
(raw data to ``bench/results/tcas-template.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402  (bench/common.py)
    REPO,
    emit,
    fmt_s,
    git_commit,
    imported_from_snapshot,
    machine,
    md_escape,
    read_records,
    resolve_commit,
    run_worker,
    utc_now,
    versions_info,
    write_atomic,
)
import re  # noqa: E402

from tcas_mutation import ALL_VERSIONS, NOTES, Assumptions, Bench, parse_versions  # noqa: E402  (bench/tcas_mutation.py)

# Versions whose faults the FMCAD'11 paper repaired with right-hand-side
# components (Table I; no diagnosis was found for v36 there).
PAPER = {2, 7, 8, 16, 17, 18, 19}
UNION_GOAL = 23
SETUP_KEYS = ("timeout", "unwind", "max_size", "components", "max_refinements", "repairs_per_diagnosis",
              "max_diagnoses", "inputs")


# ---------------------------------------------------------------------------
# Worker: one version = one repair run plus one localize run, as JSON lines
# (a killed worker keeps the repairs it had found).
# ---------------------------------------------------------------------------


def _location(loc) -> dict:
    return {"line": loc.span.line, "start": loc.span.start, "end": loc.span.end, "text": loc.text,
            "kind": getattr(loc.kind, "value", str(loc.kind)), "function": loc.function}


def worker_main(params_json: str, out: str) -> int:
    p = json.loads(params_json)
    with open(out, "w", encoding="utf-8") as fh:
        t0 = time.monotonic()
        try:
            import crepair

            run = crepair.repair(
                p["path"], scheme="template", max_size=p["max_size"], timeout=p["timeout"], unwind=p["unwind"],
                entry="main", max_refinements=p["max_refinements"], repairs_per_diagnosis=p["repairs_per_diagnosis"],
                max_diagnoses=p["max_diagnoses"], components=set(p["components"]), inputs=p["inputs"],
            )
            emit(fh, {"type": "start", "setup_seconds": time.monotonic() - t0, "bound": run.bound.message(),
                      "bound_too_small": bool(getattr(run.bound, "too_small", False)),
                      "crepair_file": crepair.__file__})
            for n, r in enumerate(run, 1):
                emit(fh, {
                    "type": "repair", "index": n, "size": r.size, "seconds": r.seconds, "scheme": r.scheme,
                    "diff": r.diff,
                    "changes": [
                        {"start": c.mutation.start, "end": c.mutation.end, "old_text": c.mutation.old_text,
                         "new_text": c.mutation.new_text, "line": c.location.span.line, "original": c.original,
                         "replacement": c.replacement, "kind": getattr(c.location.kind, "value", ""),
                         "function": c.location.function}
                        for c in r.changes
                    ],
                })
            t = run.template_stats
            emit(fh, {"type": "done", "outcome": t.outcome.value, "diagnoses": t.diagnoses, "repairs": t.repairs,
                      "checks": t.checks, "seconds": t.seconds, "diagnosis_seconds": t.diagnosis_seconds,
                      "wall_seconds": time.monotonic() - t0})
        except BaseException as exc:  # noqa: BLE001 - record everything
            emit(fh, {"type": "error", "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
                      "wall_seconds": time.monotonic() - t0})
            return 1
        # the diagnoses on their own (time to diagnose), after the repair run
        t1 = time.monotonic()
        try:
            loc = crepair.localize(p["path"], method="diagnosis", max_diagnoses=p["max_diagnoses"],
                                   max_size=p["max_size"], unwind=p["unwind"], entry="main", timeout=p["timeout"],
                                   components=set(p["components"]), inputs=p["inputs"])
            emit(fh, {
                "type": "localize", "outcome": loc.outcome.value, "seconds": loc.seconds,
                "diagnoses": [{"size": d.size, "seconds": d.seconds, "components": [_location(c) for c in d.components]}
                              for d in loc.diagnoses],
                "wall_seconds": time.monotonic() - t1,
            })
        except BaseException as exc:  # noqa: BLE001
            emit(fh, {"type": "localize", "error": f"{type(exc).__name__}: {exc}", "wall_seconds": time.monotonic() - t1})
    return 0


# ---------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------


@dataclass
class Job:
    version: int
    timeout: float
    unwind: int
    max_size: int
    components: list
    max_refinements: int
    repairs_per_diagnosis: int
    max_diagnoses: int
    inputs: int
    level: str = "template"  # only names the work folders of tcas_mutation.Bench.check_repairs
    status: str = "pending"  # pending | running | done | error
    outcome: str = ""
    error: str = ""
    repairs: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    start: dict = field(default_factory=dict)
    localize: dict = field(default_factory=dict)
    wall: float = 0.0
    commit: str = ""
    finished: str = ""
    resumed: bool = False

    def same_setup(self, rec: dict) -> bool:
        return all(rec.get(k) == getattr(self, k) for k in SETUP_KEYS)

    def params(self, path: str) -> dict:
        return {"path": path, **{k: getattr(self, k) for k in SETUP_KEYS}}


class TemplateBench(Bench):
    """tcas_mutation's Bench (SIR files, universe checks, baselines) with a
    template-scheme worker.  The workers run a copy of the bench scripts
    made at the start, so bench/ can be edited during a long run."""

    def __init__(self, args):
        super().__init__(args)
        scripts = self.tmp / "bench"
        scripts.mkdir()
        here = Path(__file__).resolve().parent
        for name in (Path(__file__).name, "tcas_mutation.py", "common.py"):
            shutil.copy2(here / name, scripts / name)
        self.worker_script = scripts / Path(__file__).name
        self.commit = ""

    def run_job(self, job: Job) -> Job:  # type: ignore[override]
        job.status = "running"
        t0 = time.monotonic()
        out = self.tmp / f"v{job.version}-template.jsonl"
        hard = 2 * job.timeout + 180
        cmd = [sys.executable, str(self.worker_script), "--_worker", json.dumps(job.params(str(self.spec(job.version)))),
               str(out)]
        crash = run_worker(cmd, hard, self.tmp, self.env)
        job.wall = time.monotonic() - t0
        job.commit = self.commit
        job.finished = utc_now()
        for rec in read_records(out):
            if rec["type"] == "start":
                job.start = rec
                if not imported_from_snapshot(rec, self.crepair_src):
                    crash = crash or f"worker imported crepair from {rec.get('crepair_file')}, not the snapshot"
            elif rec["type"] == "repair":
                job.repairs.append(rec)
            elif rec["type"] == "done":
                job.stats = rec
                job.outcome = rec["outcome"]
            elif rec["type"] == "localize":
                job.localize = rec
            elif rec["type"] == "error":
                job.error = rec["error"]
                job.stats.setdefault("traceback", rec.get("traceback", ""))
        if not job.stats.get("outcome") and not job.error:
            job.error = crash or "worker produced no result"
        elif crash and not job.error:
            job.error = crash
        if job.error and job.repairs and not job.outcome:
            job.outcome = "repaired (partial)"
        job.status = "error" if job.error else "done"
        try:
            self.check_repairs(job)  # type: ignore[arg-type]  # maps with Mapper.map_span
        except Exception as exc:  # noqa: BLE001
            job.error = (job.error + "; " if job.error else "") + f"universe check: {type(exc).__name__}: {exc}"
        try:
            self.ensure_baseline(job.version)
        except Exception as exc:  # noqa: BLE001
            self.baseline[job.version] = {"error": f"{type(exc).__name__}: {exc}"}
        return job


# ---------------------------------------------------------------------------
# Mutation results (bench/results/tcas-mutation.json)
# ---------------------------------------------------------------------------


def load_mutation(path: Path) -> dict:
    """``{"levels": {1: set, 2: set}, "run": set of versions run, "commit", "path"}`` or ``{"error"}``."""
    if not path.exists():
        return {"error": f"{path} not found"}
    data = json.loads(path.read_text(encoding="utf-8"))
    levels: dict[int, set[int]] = {}
    ran: set[int] = set()
    for r in data.get("runs", []):
        levels.setdefault(r["level"], set())
        if r.get("status") in ("done", "error"):
            ran.add(r["version"])
        if r.get("repairs"):
            levels[r["level"]].add(r["version"])
    meta = data.get("meta", {})
    return {"levels": levels, "run": ran, "commit": meta.get("commit", "?"), "date": meta.get("date", "?"),
            "timeout": meta.get("timeout"), "path": str(path)}


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _vs(s) -> str:
    return " ".join(f"v{v}" for v in sorted(s)) or "none"


def _universe_cell(r: dict) -> str:
    u = r.get("universe")
    tag = f"r{r['index']}"
    if u is None:
        return f"{tag} not checked"
    if "unmapped" in u:
        return f"{tag} unmapped"
    if "error" in u:
        return f"{tag} error"
    return f"{tag} {'pass' if u['ok'] else 'FAIL'} {u['passed']}/{u['passed'] + u['failed']}"


def _change_text(c: dict) -> str:
    return f"{c['line']}: {c['original']} -> {c['replacement']}"


def _sizes(diags: list[dict]) -> str:
    counts: dict[int, int] = {}
    for d in diags:
        counts[d["size"]] = counts.get(d["size"], 0) + 1
    return ", ".join(f"{n}×size {s}" for s, n in sorted(counts.items()))


def universe_ok(r: dict) -> bool:
    return bool(r.get("universe", {}).get("ok"))


_FUNC = re.compile(r"^\w[\w\s\*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)


def function_at(text: str, offset: int) -> str:
    """The name of the C function whose definition (starting at column 0)
    encloses ``offset`` in ``text`` (best effort)."""
    name = ""
    for m in _FUNC.finditer(text):
        if m.start() > offset:
            break
        name = m.group(1)
    return name


def init_reads_inputs(spec_text: str, repair: dict) -> list[str]:
    """Changes of ``repair`` that make ``initialize()`` read an input.  The
    spec's ``main`` sets the inputs and then calls ``initialize()``; the SIR
    ``main`` calls ``initialize()`` first, while the inputs are still 0."""
    inputs = Assumptions(spec_text).argv
    out = []
    for c in repair["changes"]:
        func = c.get("function") or function_at(spec_text, c["start"])
        used = [n for n in inputs if re.search(rf"\b{n}\b", c["new_text"]) and not re.search(rf"\b{n}\b", c["old_text"])]
        if func == "initialize" and used:
            out.append(f"line {c['line']} uses {', '.join(f'`{n}`' for n in used)}")
    return out


def version_table(bench: TemplateBench, jobs: dict, mutation: dict) -> list[str]:
    head = ["version", "outcome", "diagnoses (localize)", "time to diagnose (s)", "diagnoses tried", "repairs",
            "first repair (s)", "total (s)", "wall (s)", "SMT checks", "universe per repair", "unrepaired SIR",
            "mutation L1/L2"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    mlev = mutation.get("levels", {})
    for v, job in jobs.items():
        name = f"v{v}" + (" †" if v in NOTES else "") + (" ‡" if v in PAPER else "")
        base = bench.baseline.get(v)
        if base is None:
            base_cell = "—"
        elif "error" in base:
            base_cell = f"error ({base['error']})"
        else:
            base_cell = f"{'pass' if base['ok'] else 'fail'} {base['passed']}/{base['passed'] + base['failed']}"
        if "error" in mutation or v not in mutation.get("run", set()):
            mcell = "not run"
        else:
            mcell = "/".join("yes" if v in mlev.get(lv, set()) else "no" for lv in (1, 2))
        if job.status in ("pending", "running"):
            row = [name, job.status] + [""] * (len(head) - 4) + [base_cell, mcell]
            lines.append("| " + " | ".join(row) + " |")
            continue
        st = job.stats
        outcome = job.outcome or ""
        if job.error:
            outcome = (outcome + "; " if outcome else "") + "error: " + job.error
        lz = job.localize
        if not lz:
            dcell, tdiag = "—", "—"
        elif "error" in lz:
            dcell, tdiag = f"error ({lz['error']})", "—"
        else:
            ds = lz["diagnoses"]
            dcell = f"{len(ds)}" + (f" ({_sizes(ds)})" if ds else "") + ("" if lz["outcome"] == "violated" else f" [{lz['outcome']}]")
            tdiag = fmt_s(ds[0]["seconds"]) if ds else "—"
        first = job.repairs[0]["seconds"] if job.repairs else None
        row = [name, outcome, dcell, tdiag, str(st.get("diagnoses", "—")), str(len(job.repairs)), fmt_s(first),
               fmt_s(st.get("seconds")), f"{job.wall:.0f}", str(st.get("checks", "—")),
               "; ".join(_universe_cell(r) for r in job.repairs) or "—", base_cell, mcell]
        lines.append("| " + " | ".join(md_escape(c) for c in row) + " |")
    return lines


def report(bench: TemplateBench, jobs: dict, meta: dict, mutation: dict, final: bool) -> str:
    o = meta["options"]
    versions = meta["versions"]
    out = ["# TCAS template-repair benchmark (crepair)", ""]
    if not final:
        out += ["**PARTIAL RESULTS** — the benchmark was not finished when this file was written "
                "(complete it with `--resume`).", ""]
    done = [v for v, j in jobs.items() if j.status in ("done", "error")]
    resumed = sum(1 for j in jobs.values() if j.resumed)
    out += [
        f"* Date: {meta['date']} (finished {meta.get('finished', 'n/a')}; wall time of this invocation "
        f"{meta.get('wall', 0) / 60:.1f} min; {len(done)}/{len(jobs)} versions done"
        + (f", {resumed} of them taken over from an earlier invocation with --resume" if resumed else "") + ")",
        f"* crepair commit: {meta['commit']}",
        f"* Machine: {meta['machine']}; {meta['software']}",
        f"* Load average (1 min) at the start: {meta.get('load_start', '?')}"
        + (f", at the end: {meta['load_end']}" if meta.get("load_end") else "")
        + " (other benchmarks may have run at the same time; times are wall-clock)",
        f"* Command: `{meta['command']}`",
        f"* Options: `crepair.repair(spec, scheme=\"template\", max_size={o['max_size']}, timeout={o['timeout']:g}, "
        f"unwind={o['unwind']}, entry=\"main\", max_refinements={o['max_refinements']}, "
        f"repairs_per_diagnosis={o['repairs_per_diagnosis']}, max_diagnoses={o['max_diagnoses']}, "
        f"inputs={o['inputs']}, components={{{', '.join(repr(c) for c in o['components'])}}})` (other options at "
        "their defaults: `max_terms=3`, `diagnosis_timeout=60`), then "
        f"`crepair.localize(spec, method=\"diagnosis\", max_diagnoses={o['max_diagnoses']}, max_size={o['max_size']}, "
        f"unwind={o['unwind']}, timeout={o['timeout']:g})`, both in one worker process per version; "
        f"{o['jobs']} workers in parallel; versions: {'all 41' if sorted(versions) == ALL_VERSIONS else _vs(versions)}",
        f"* Inputs: `{bench.tcas}/spec/tcas_vN.c`; universe check: `bash {bench.script} PATCHED.c` on the SIR "
        "version `sir/versions/vN/tcas.c` with each repair's text edits mapped onto it",
        f"* Mutation results compared with: `{mutation.get('path', '?')}`"
        + (f" (run {mutation['date']}, commit {mutation['commit'].split()[0][:12]}, timeout {mutation['timeout']:g} s)"
           if "error" not in mutation else f" — {mutation['error']}"),
        "",
        "Columns: *diagnoses (localize)* is the number of minimal diagnoses (and their sizes) that the separate "
        "`localize` call found; *time to diagnose* is when it found the first one (seconds since the diagnosis "
        "started, after parsing, encoding and finding the failing inputs). *diagnoses tried* is "
        "`template_stats.diagnoses` of the repair run (a timeout stops it early). *first repair* is the time "
        "of the first verified repair since the start of the repair run; *total* is `template_stats.seconds` "
        "(diagnosis and template search); *wall* is the whole worker (repair run and localize run). *SMT checks* "
        "are those of the refinement loops. The universe column gives, for each repair, the patched SIR program "
        "on the 1608 SIR tests; *unrepaired SIR* is the faulty SIR program itself. *mutation L1/L2*: whether the "
        "mutation scheme repaired the version at level 1 / level 2. ‡ = repaired in the FMCAD'11 paper "
        "(Table I, right-hand-side components).",
        "",
        "## Results per version", "",
    ]
    out += version_table(bench, jobs, mutation)
    out.append("")
    if any(v in NOTES for v in jobs):
        out += ["† " + "; ".join(NOTES[v] for v in jobs if v in NOTES) + ".", ""]

    # totals
    fin = {v: j for v, j in jobs.items() if j.status in ("done", "error")}
    tmpl = {v for v, j in fin.items() if j.repairs}
    tmpl_pass = {v for v, j in fin.items() if any(universe_ok(r) for r in j.repairs)}
    mlev = mutation.get("levels", {})
    m1, m2 = mlev.get(1, set()), mlev.get(2, set())
    mut = m1 | m2
    union = tmpl | mut
    no_diag = {v for v, j in fin.items() if j.localize.get("outcome") == "violated" and not j.localize.get("diagnoses")}
    orig_ok = {v for v, j in fin.items() if j.outcome == "original-correct"}
    out += ["## Totals", ""]
    out += [
        f"* Versions finished: {len(fin)}/{len(versions)}"
        + (f"; missing: {_vs(set(versions) - set(fin))}" if set(versions) - set(fin) else ""),
        f"* Template scheme: **{len(tmpl)}/{len(fin)}** versions repaired: {_vs(tmpl)}",
        f"* … with at least one repair that passes the whole SIR universe: {len(tmpl_pass)}: {_vs(tmpl_pass)}",
        f"* FMCAD'11 versions (right-hand-side faults, {_vs(PAPER)}): repaired {_vs(PAPER & tmpl)}; "
        f"not repaired {_vs((PAPER & set(fin)) - tmpl)}"
        + (f"; not run yet {_vs(PAPER - set(fin))}" if PAPER - set(fin) else ""),
        f"* Mutation scheme (from {Path(mutation.get('path', '?')).name}): level 1 {len(m1)}: {_vs(m1)}; "
        f"level 2 {len(m2)}: {_vs(m2)}; either level {len(mut)}: {_vs(mut)}",
        f"* **Union** (mutation at either level, or template): **{len(union)}/41** (goal ≥ {UNION_GOAL}): {_vs(union)}",
        f"* Only template: {_vs(tmpl - mut)}; only mutation: {_vs(mut - tmpl)}; both: {_vs(tmpl & mut)}",
        f"* Repaired by neither: {_vs(set(ALL_VERSIONS) - union - (set(ALL_VERSIONS) - set(fin) - mut))}"
        + (f" (not run yet with the template scheme: {_vs(set(ALL_VERSIONS) - set(fin))})" if set(fin) != set(ALL_VERSIONS) else ""),
        f"* Original program correct up to the bound (no failing input): {_vs(orig_ok)}",
        f"* Failing program but no diagnosis of size ≤ {meta['options']['max_size']} found by localize: {_vs(no_diag)}",
    ]
    all_repairs = [(v, r) for v, j in fin.items() for r in j.repairs]
    npass = sum(1 for _, r in all_repairs if universe_ok(r))
    failing = [(v, r) for v, r in all_repairs if "passed" in r.get("universe", {}) and not r["universe"]["ok"]]
    unmapped = [(v, r) for v, r in all_repairs if "unmapped" in r.get("universe", {})]
    uerr = [(v, r) for v, r in all_repairs if "error" in r.get("universe", {})]
    out += [
        f"* Universe: {len(all_repairs)} repairs in total; {npass} pass all 1608 tests, {len(failing)} FAIL, "
        f"{len(unmapped)} could not be mapped onto SIR, {len(uerr)} could not be checked",
        "",
    ]

    # repairs and diagnoses per version
    out += ["## Repairs", "", "Each change is `spec line: original -> replacement`; the mapped SIR line is given "
            "when the expression was found there.", ""]
    any_rep = False
    for v, j in fin.items():
        if not j.repairs:
            continue
        any_rep = True
        out.append(f"* **v{v}**")
        for r in j.repairs:
            maps = r.get("mapping") or []
            parts = []
            for k, c in enumerate(r["changes"]):
                m = maps[k] if k < len(maps) else {}
                where = f" (SIR line {m['sir_line']}" + (f", `{m['dropped']}` dropped" if m.get("dropped") else "") + ")" \
                    if m.get("ok") else ""
                parts.append(f"`{_change_text(c)}`{where}")
            out.append(f"  * r{r['index']} ({r['seconds']:.1f} s): " + "; ".join(parts) + f" — {_universe_cell(r)}")
    if not any_rep:
        out.append("None.")
    out.append("")

    out += ["## Diagnoses (localize)", "", "`size: line text` of each component, in the order found (seconds).", ""]
    for v, j in fin.items():
        lz = j.localize
        if not lz:
            out.append(f"* v{v}: not recorded")
        elif "error" in lz:
            out.append(f"* v{v}: error: {md_escape(lz['error'])}")
        elif not lz["diagnoses"]:
            out.append(f"* v{v}: none (outcome {lz['outcome']}, {lz['seconds']:.1f} s)")
        else:
            ds = "; ".join(
                "{" + ", ".join(md_escape(f"{c['line']}: {c['text']}") for c in d["components"]) + f"}} ({d['seconds']:.1f})"
                for d in lz["diagnoses"])
            out.append(f"* v{v} ({lz['seconds']:.1f} s in all): {ds}")
    out.append("")

    out += ["## Repairs that fail the universe check", ""]
    if not failing:
        out += ["None.", ""]
    for v, r in failing:
        u = r["universe"]
        note = f" († {NOTES[v]})" if v in NOTES else ""
        out += [f"### v{v}, r{r['index']}: FAIL {u['passed']}/{u['passed'] + u['failed']}{note}", ""]
        out += ["Repair (spec file):", "", "```diff", r["diff"].rstrip("\n"), "```", ""]
        if r.get("sir_diff"):
            out += ["Mapped onto the SIR program:", "", "```diff", r["sir_diff"].rstrip("\n"), "```", ""]
        f = r.get("failures") or {}
        if "error" in f:
            out += [f"Failing-test analysis: error ({f['error']})", ""]
        elif f:
            conj = ", ".join(f"`{c}` {n}" for c, n in sorted(f["by_conjunct"].items(), key=lambda x: -x[1]))
            out.append(
                f"Failing tests: {f['failing']}; {f['outside']} violate the spec's `__CPROVER_assume` conditions, "
                f"{f['inside']} satisfy them" + (f", {f['undecided']} undecided" if f["undecided"] else "") + "."
                + (f" Violated conditions (tests): {conj}." if conj else ""))
            for label, key in (("inside the assumptions", "example_inside"),
                               ("outside the assumptions", "example_outside"), ("undecided", "example_undecided")):
                ex = f.get(key)
                if ex:
                    viol = f" — violates {', '.join(f'`{c}`' for c in ex['violates'])}" if ex["violates"] else ""
                    out.append(f"* Example {label}: test {ex['test']}, input `{ex['input']}`: expected "
                               f"`{ex['expected']}`, patched program printed `{ex['got']}`{viol}")
            out.append("")
            spec_text = bench.spec(v).read_text(encoding="utf-8", errors="surrogateescape") if bench.spec(v).exists() else ""
            init = init_reads_inputs(spec_text, r) if spec_text else []
            if init:
                expl = (f"the repair makes `initialize()` read an input ({'; '.join(init)}). The spec's `main` reads "
                        "the inputs and then calls `initialize()`, so crepair verified the repair with the inputs "
                        "set; the SIR `main` calls `initialize()` before it reads the inputs, when every input "
                        "global is still 0, so in SIR the repaired constant is evaluated with the input 0 — a "
                        "difference between the spec and SIR, not a wrong verification")
            elif f["failing"] and f["inside"] == 0 and f["undecided"] == 0:
                expl = ("the repair is correct on every input the spec allows (crepair verified it up to the bound); "
                        "all failing tests violate a `__CPROVER_assume` condition of the spec, i.e. they lie outside "
                        "the input domain the repair was verified on")
            else:
                expl = ("some failing tests satisfy the spec's assumptions: the spec does not constrain this behaviour "
                        "as the SIR oracle does (e.g. the unwinding bound, or a difference between the spec's "
                        "reference `AllRepair_correct_*` and the SIR oracle) — needs a look")
            out += [f"Explanation: {expl}.", ""]
    if unmapped:
        out += ["## Repairs that could not be mapped onto the SIR program", ""]
        for v, r in unmapped:
            out += [f"### v{v}, r{r['index']}", "", f"Reason: {r['universe']['unmapped']}", "",
                    "```diff", r["diff"].rstrip("\n"), "```", ""]
    if uerr:
        out += ["## Repairs whose universe check failed to run", ""]
        out += [f"* v{v}, r{r['index']}: {r['universe']['error']}" for v, r in uerr] + [""]
    errs = [j for j in fin.values() if j.error]
    if errs:
        out += ["## Run errors", ""]
        out += [f"* v{j.version}: {md_escape(j.error)}" for j in errs] + [""]
    overruns = [j for j in fin.values() if j.stats.get("seconds") is not None and j.stats["seconds"] > 1.1 * j.timeout]
    if overruns:
        out += ["## Runs that exceeded their time limit", "",
                "crepair's own time (`template_stats.seconds`) went over `timeout` by more than 10 %:", ""]
        out += [f"* v{j.version}: {j.stats['seconds']:.0f} s (limit {j.timeout:g} s)" for j in overruns] + [""]
    return "\n".join(out)


def to_json(jobs: dict, meta: dict, bench: TemplateBench) -> dict:
    return {
        "meta": meta,
        "baseline": {str(v): b for v, b in sorted(bench.baseline.items())},
        "runs": [{k: v for k, v in asdict(j).items() if k != "resumed"} for j in jobs.values()],
    }


def progress_line(job: Job) -> str:
    st = job.stats
    first = job.repairs[0]["seconds"] if job.repairs else None
    ds = job.localize.get("diagnoses")
    status = job.outcome or "?"
    if job.error:
        status += f" error: {job.error}"
    return (f"v{job.version}: {status}, diagnoses {len(ds) if ds is not None else '-'}, tried {st.get('diagnoses', '-')}, "
            f"repairs {len(job.repairs)}, first {fmt_s(first)} s, total {fmt_s(st.get('seconds'))} s, "
            f"checks {st.get('checks', '-')}, wall {job.wall:.0f} s | "
            + ("; ".join(_universe_cell(r) for r in job.repairs) or "-"))


def priority_order(versions: list[int], mutation: dict) -> list[int]:
    """The paper's versions first, then those mutation did not repair, then the rest."""
    mut = set().union(*mutation.get("levels", {}).values()) if mutation.get("levels") else set()
    return sorted(versions, key=lambda v: (v not in PAPER, v in mut, v))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_worker":
        return worker_main(argv[1], argv[2])

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=str(REPO.parent / "shared"), help="folder holding benchmarks/tcas (default: ../shared)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per crepair run (default 600)")
    ap.add_argument("--unwind", type=int, default=8, help="unwinding bound (default 8)")
    ap.add_argument("--versions", type=parse_versions, default=ALL_VERSIONS, help="e.g. 1,2,10-12 (default: 1-41)")
    ap.add_argument("--jobs", type=int, default=2, help="versions in parallel (default 2)")
    ap.add_argument("--max-size", type=int, default=2, help="largest diagnosis (default 2)")
    ap.add_argument("--components", default="rhs,cond", help="diagnosis components (default rhs,cond)")
    ap.add_argument("--max-refinements", type=int, default=10)
    ap.add_argument("--repairs-per-diagnosis", type=int, default=5)
    ap.add_argument("--max-diagnoses", type=int, default=10)
    ap.add_argument("--inputs", type=int, default=2, help="failing inputs for the diagnosis (default 2)")
    ap.add_argument("--order", choices=("priority", "numeric"), default="priority",
                    help="priority (default): the FMCAD'11 versions first, then versions the mutation scheme did "
                    "not repair, then the rest; numeric: v1, v2, ...")
    ap.add_argument("--rev", default=None, help="run the crepair of this git commit, exported with git archive "
                    "(default HEAD; with --resume, the commit recorded in the raw JSON)")
    ap.add_argument("--live", action="store_true", help="run the installed crepair (working tree) instead of --rev")
    ap.add_argument("--resume", action="store_true", help="keep the versions already in the raw JSON (same options) "
                    "and run only the missing ones")
    ap.add_argument("--retry-errors", action="store_true", help="with --resume, run again the versions that ended in an error")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: rewrite the markdown report from the raw JSON (e.g. after editing this script)")
    ap.add_argument("--mutation-json", default=str(REPO / "bench" / "results" / "tcas-mutation.json"),
                    help="mutation-scheme results to compare with (default bench/results/tcas-mutation.json)")
    ap.add_argument("--output", default=str(REPO / "bench" / "results" / "tcas-template.md"),
                    help="markdown report (default bench/results/tcas-template.md); raw JSON next to it")
    args = ap.parse_args(argv)
    components = sorted({c.strip() for c in args.components.split(",") if c.strip()})
    if not components or any(c not in ("rhs", "cond") for c in components):
        ap.error("--components: a comma-separated subset of rhs,cond")

    bench = TemplateBench(args)
    if not (bench.tcas / "spec").is_dir():
        print(f"skipping: {bench.tcas} not found (use --shared DIR)", file=sys.stderr)
        shutil.rmtree(bench.tmp, ignore_errors=True)
        return 0
    if not bench.have_gcc:
        print("warning: gcc not found, universe checks skipped", file=sys.stderr)
    mutation = load_mutation(Path(args.mutation_json))
    if "error" in mutation:
        print(f"warning: {mutation['error']}; the union uses the template results only", file=sys.stderr)

    out_md = Path(args.output)
    out_json = out_md.with_suffix(".json")
    out_md.parent.mkdir(parents=True, exist_ok=True)

    if args.report_only:
        if not out_json.exists():
            ap.error(f"--report-only: {out_json} not found")
        data = json.loads(out_json.read_text(encoding="utf-8"))
        jobs_ro = {rec["version"]: Job(**{k: rec[k] for k in rec if k in Job.__dataclass_fields__})
                   for rec in data.get("runs", [])}
        for j in jobs_ro.values():
            if j.status == "running":  # a run that was in progress when the JSON was written
                j.status = "pending"
        for v, b in data.get("baseline", {}).items():
            bench.baseline[int(v)] = b
        meta_ro = data["meta"]
        final = all(j.status in ("done", "error") for j in jobs_ro.values())
        write_atomic(out_md, report(bench, dict(sorted(jobs_ro.items())), meta_ro, mutation, final) + "\n")
        shutil.rmtree(bench.tmp, ignore_errors=True)
        print(f"rewrote {out_md} from {out_json}", file=sys.stderr)
        return 0

    def new_job(v: int) -> Job:
        return Job(v, args.timeout, args.unwind, args.max_size, components, args.max_refinements,
                   args.repairs_per_diagnosis, args.max_diagnoses, args.inputs)

    order = priority_order(args.versions, mutation) if args.order == "priority" else list(args.versions)
    jobs: dict[int, Job] = {v: new_job(v) for v in order}
    old_meta: dict = {}
    if args.resume and out_json.exists():
        data = json.loads(out_json.read_text(encoding="utf-8"))
        old_meta = data.get("meta", {})
        kept = 0
        for rec in data.get("runs", []):
            v = rec["version"]
            job = jobs.get(v)
            if rec["status"] not in ("done", "error") or (job is not None and not job.same_setup(rec)):
                continue
            if rec["status"] == "error" and args.retry_errors and job is not None:
                continue
            restored = Job(**{k: rec[k] for k in rec if k in Job.__dataclass_fields__})
            restored.resumed = True
            jobs[v] = restored  # versions outside the selection stay in the results
            kept += 1
        for v, b in data.get("baseline", {}).items():
            bench.baseline[int(v)] = b
        print(f"resume: {kept} versions taken from {out_json}", file=sys.stderr)
    jobs = dict(sorted(jobs.items()))

    t_start = time.monotonic()
    if args.live:
        commit = git_commit() + " — working tree (--live)"
        bench.commit = commit
    else:
        rev = args.rev or (old_meta.get("commit_id") if args.resume else None) or "HEAD"
        try:
            cid = bench.snapshot(rev)
            bench.commit = cid
            commit = cid + " (src/ exported with git archive; uncommitted edits not included)"
        except Exception as exc:  # noqa: BLE001
            print(f"cannot export crepair at {rev!r} ({exc}); use --live to run the installed crepair", file=sys.stderr)
            shutil.rmtree(bench.tmp, ignore_errors=True)
            return 2
        if args.resume and old_meta.get("commit_id") and old_meta["commit_id"] != cid:
            print(f"warning: resuming runs of {old_meta['commit_id']} with {cid}", file=sys.stderr)
        try:
            head = resolve_commit("HEAD")
        except Exception:  # noqa: BLE001
            head = ""
        if head and head != cid:
            commit += f"; HEAD at the start of this invocation: {head}"
    meta = {
        "date": old_meta.get("date") if args.resume and old_meta.get("date") else utc_now(),
        "commit": commit,
        "commit_id": bench.commit if not args.live else "",
        "machine": machine(),
        "software": versions_info(),
        "command": "python bench/tcas_template.py " + " ".join(argv),
        "versions": sorted(set(args.versions) | set(jobs)),
        "options": {"timeout": args.timeout, "unwind": args.unwind, "max_size": args.max_size,
                    "components": components, "max_refinements": args.max_refinements,
                    "repairs_per_diagnosis": args.repairs_per_diagnosis, "max_diagnoses": args.max_diagnoses,
                    "inputs": args.inputs, "jobs": args.jobs},
        "load_start": f"{os.getloadavg()[0]:.2f}",
    }
    if args.resume and old_meta.get("date"):
        meta["resumed_at"] = utc_now()

    def write(final: bool) -> str:
        meta["wall"] = time.monotonic() - t_start
        if final:
            meta["finished"] = utc_now()
            meta["load_end"] = f"{os.getloadavg()[0]:.2f}"
        text = report(bench, jobs, meta, mutation, final)
        write_atomic(out_md, text + "\n")
        write_atomic(out_json, json.dumps(to_json(jobs, meta, bench), indent=1) + "\n")
        return text

    def guarded(job: Job) -> Job:
        try:
            if not bench.spec(job.version).exists() or not bench.sir_file(job.version).exists():
                raise FileNotFoundError(f"{bench.spec(job.version)} or {bench.sir_file(job.version)}")
            return bench.run_job(job)
        except Exception as exc:  # noqa: BLE001
            job.error = f"{type(exc).__name__}: {exc}"
            job.status = "error"
            return job

    todo = [jobs[v] for v in order if jobs[v].status == "pending"]
    print(f"running {len(todo)} of {len(jobs)} versions with {args.jobs} in parallel "
          f"(order: {' '.join(f'v{j.version}' for j in todo)}); report: {out_md}", file=sys.stderr)
    pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
    try:
        futures = [pool.submit(guarded, job) for job in todo]
        for fut in as_completed(futures):
            job = fut.result()
            print(progress_line(job), file=sys.stderr, flush=True)
            with bench.lock:
                write(final=False)
    except KeyboardInterrupt:
        print("interrupted: writing partial results", file=sys.stderr)
        pool.shutdown(wait=False, cancel_futures=True)
        for j in jobs.values():
            if j.status == "running":
                j.status = "pending"
        write(final=False)
        shutil.rmtree(bench.tmp, ignore_errors=True)
        return 130
    pool.shutdown(wait=True)
    text = write(final=all(j.status in ("done", "error") for j in jobs.values()))
    print(text)
    shutil.rmtree(bench.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
