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

import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402  (bench/common.py)
    REPO,
    add_output_option,
    add_rerun_options,
    done_record,
    emit,
    fmt_s,
    job_from_record,
    md_escape,
    outcome_text,
    output_paths,
    pin_crepair,
    read_records,
    record_worker,
    repair_record,
    resumable,
    run_benchmark,
    run_worker,
    setup_meta,
    stamp_meta,
    take_records,
    utc_now,
    write_atomic,
    write_results,
)
import re  # noqa: E402

from tcas_mutation import (  # noqa: E402  (bench/tcas_mutation.py)
    ALL_VERSIONS,
    NOTES,
    Assumptions,
    Bench,
    _vs,
    baseline_cell,
    by_universe_result,
    tcas_parser,
    universe_cell,
    universe_sections,
)

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


def _change_fields(c) -> dict:
    return {"kind": getattr(c.location.kind, "value", ""), "function": c.location.function}


def worker_main(params_json: str, out: str) -> int:
    p = json.loads(params_json)

    def search(fh, t0: float) -> None:
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
            emit(fh, repair_record(n, r, _change_fields, scheme=r.scheme))
        emit(fh, done_record(run.template_stats, ("diagnoses", "repairs", "checks", "seconds", "diagnosis_seconds"), t0))
        # the diagnoses on their own (time to diagnose), after the repair run;
        # an error here is recorded in the localize record
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

    return record_worker(out, search)


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
        self.worker_script = self.copy_scripts(__file__, "tcas_mutation.py")

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
        for rec in take_records(job, read_records(out), crash, self.crepair_src):
            if rec["type"] == "localize":
                job.localize = rec
        if job.error and job.repairs and not job.outcome:
            job.outcome = "repaired (partial)"
        self.check_job(job)  # type: ignore[arg-type]  # maps with Mapper.map_span
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


def explanation(bench: TemplateBench, v: int, r: dict) -> list[str]:
    """The explanation after a repair of version ``v`` that fails the
    universe check, from the failing-test analysis (none without one)."""
    f = r.get("failures") or {}
    if not f or "error" in f:
        return []
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
    return [f"Explanation: {expl}.", ""]


def version_table(bench: TemplateBench, jobs: dict, mutation: dict) -> list[str]:
    head = ["version", "outcome", "diagnoses (localize)", "time to diagnose (s)", "diagnoses tried", "repairs",
            "first repair (s)", "total (s)", "wall (s)", "SMT checks", "universe per repair", "unrepaired SIR",
            "mutation L1/L2"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    mlev = mutation.get("levels", {})
    for v, job in jobs.items():
        name = f"v{v}" + (" †" if v in NOTES else "") + (" ‡" if v in PAPER else "")
        base_cell = baseline_cell(bench.baseline.get(v))
        if "error" in mutation or v not in mutation.get("run", set()):
            mcell = "not run"
        else:
            mcell = "/".join("yes" if v in mlev.get(lv, set()) else "no" for lv in (1, 2))
        if job.status in ("pending", "running"):
            row = [name, job.status] + [""] * (len(head) - 4) + [base_cell, mcell]
            lines.append("| " + " | ".join(row) + " |")
            continue
        st = job.stats
        outcome = outcome_text(job)
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
               "; ".join(universe_cell(r, why=False) for r in job.repairs) or "—", base_cell, mcell]
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
    all_repairs = [(f"v{v}", v, r) for v, j in fin.items() for r in j.repairs]
    npass, failing, unmapped, uerr = by_universe_result(all_repairs)
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
            out.append(f"  * r{r['index']} ({r['seconds']:.1f} s): " + "; ".join(parts)
                       + f" — {universe_cell(r, why=False)}")
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

    out += universe_sections(failing, unmapped, uerr, lambda v, r: explanation(bench, v, r))
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
            + ("; ".join(universe_cell(r, why=False) for r in job.repairs) or "-"))


def priority_order(versions: list[int], mutation: dict) -> list[int]:
    """The paper's versions first, then those mutation did not repair, then the rest."""
    mut = set().union(*mutation.get("levels", {}).values()) if mutation.get("levels") else set()
    return sorted(versions, key=lambda v: (v not in PAPER, v in mut, v))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_worker":
        return worker_main(argv[1], argv[2])

    ap = tcas_parser(__doc__)
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
    add_rerun_options(
        ap, "versions",
        resume_help="keep the versions already in the raw JSON (same options) and run only the missing ones",
        report_only_help="run nothing: rewrite the markdown report from the raw JSON (e.g. after editing this script)",
    )
    ap.add_argument("--mutation-json", default=str(REPO / "bench" / "results" / "tcas-mutation.json"),
                    help="mutation-scheme results to compare with (default bench/results/tcas-mutation.json)")
    add_output_option(ap, "tcas-template")
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

    out_md, out_json = output_paths(args.output)

    if args.report_only:
        if not out_json.exists():
            ap.error(f"--report-only: {out_json} not found")
        data = json.loads(out_json.read_text(encoding="utf-8"))
        # a run that was in progress when the JSON was written is pending
        jobs_ro = {rec["version"]: job_from_record(Job, rec) for rec in data.get("runs", [])}
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
        # versions outside the selection stay in the results
        kept = resumable(data.get("runs", []), jobs, lambda rec: rec["version"], Job, args.retry_errors)
        jobs.update(kept)
        for v, b in data.get("baseline", {}).items():
            bench.baseline[int(v)] = b
        print(f"resume: {len(kept)} versions taken from {out_json}", file=sys.stderr)
    jobs = dict(sorted(jobs.items()))

    t_start = time.monotonic()
    commit = pin_crepair(bench, args, old_meta)
    if commit is None:
        return 2
    meta = {
        **setup_meta(commit, "tcas_template.py", argv, old_meta, commit_id=bench.commit if not args.live else ""),
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
        stamp_meta(meta, t_start, final)
        if final:
            meta["load_end"] = f"{os.getloadavg()[0]:.2f}"
        text = report(bench, jobs, meta, mutation, final)
        write_results(out_md, text, to_json(jobs, meta, bench))
        return text

    todo = [jobs[v] for v in order if jobs[v].status == "pending"]
    print(f"running {len(todo)} of {len(jobs)} versions with {args.jobs} in parallel "
          f"(order: {' '.join(f'v{j.version}' for j in todo)}); report: {out_md}", file=sys.stderr)
    return run_benchmark(bench, todo, bench.run_present, progress_line, write, jobs, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
