"""The report of ``tcas_template.py``: per version the diagnoses, the
template repairs and their universe results, compared with the mutation
scheme's results and the versions the FMCAD'11 paper repaired."""

from __future__ import annotations

import re
from pathlib import Path

from harness.markdown import fmt_s, header, md_escape, outcome_text, table, vs
from harness.records import edits
from tcas_universe import ALL_VERSIONS, NOTES, Assumptions, baseline_cell, by_universe_result, universe_cell, \
    universe_sections

# Versions whose faults the FMCAD'11 paper repaired with right-hand-side
# components (Table I; no diagnosis was found for v36 there).
PAPER = {2, 7, 8, 16, 17, 18, 19}
UNION_GOAL = 23


def _change_text(c: dict) -> str:
    return f"{c['line']}: {c['before']} -> {c['after']}"


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
        for e in c["edits"]:
            used = [n for n in inputs if re.search(rf"\b{n}\b", e["new"]) and not re.search(rf"\b{n}\b", e["old"])]
            if func == "initialize" and used:
                out.append(f"line {e['line']} uses {', '.join(f'`{n}`' for n in used)}")
    return out


def explanation(bench, v: int, r: dict) -> list[str]:
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


def _diagnoses_cells(lz: dict) -> tuple[str, str]:
    """The localize run: the diagnoses found (and their sizes), and the time to the first."""
    if not lz:
        return "—", "—"
    if "error" in lz:
        return f"error ({lz['error']})", "—"
    ds = lz["diagnoses"]
    counts: dict[int, int] = {}
    for d in ds:
        counts[d["size"]] = counts.get(d["size"], 0) + 1
    sizes = ", ".join(f"{n}×size {s}" for s, n in sorted(counts.items()))
    cell = f"{len(ds)}" + (f" ({sizes})" if ds else "") + ("" if lz["outcome"] == "violated" else f" [{lz['outcome']}]")
    return cell, fmt_s(ds[0]["seconds"]) if ds else "—"


def version_table(bench, jobs: dict) -> list[str]:
    head = ["version", "outcome", "diagnoses (localize)", "time to diagnose (s)", "diagnoses tried", "repairs",
            "first repair (s)", "total (s)", "wall (s)", "SMT checks", "universe per repair", "unrepaired SIR",
            "mutation L1/L2"]
    mutation = bench.mutation
    rows = []
    for v, job in jobs.items():
        name = f"v{v}" + (" †" if v in NOTES else "") + (" ‡" if v in PAPER else "")
        base = baseline_cell(bench.baseline.get(v))
        mcell = "not run" if "error" in mutation or v not in mutation["run"] else "/".join(
            "yes" if v in mutation["levels"].get(lv, set()) else "no" for lv in (1, 2))
        if job.status in ("pending", "running"):
            rows.append([name, job.status] + [""] * (len(head) - 4) + [base, mcell])
            continue
        st = job.stats
        first = job.repairs[0]["seconds"] if job.repairs else None
        rows.append([name, outcome_text(job), *_diagnoses_cells(job.localize), str(st.get("diagnoses", "—")),
                     str(len(job.repairs)), fmt_s(first), fmt_s(st.get("seconds")), f"{job.wall:.0f}",
                     str(st.get("checks", "—")), "; ".join(universe_cell(r, why=False) for r in job.repairs) or "—",
                     base, mcell])
    return table(head, rows)


def repair_lines(fin: dict) -> list[str]:
    """Each repair as its changes, with the SIR line each edit mapped to."""
    out = ["## Repairs", "", "Each change is `spec line: original -> replacement`; the mapped SIR line is given "
           "when the expression was found there.", ""]
    for v, j in fin.items():
        if j.repairs:
            out.append(f"* **v{v}**")
        for r in j.repairs:
            maps = dict(zip((e["start"] for e in edits(r)), r.get("mapping") or []))
            parts = []
            for c in r["changes"]:
                ms = [maps.get(e["start"], {}) for e in c["edits"]]
                where = "".join(f" (SIR line {m['sir_line']}" + (f", `{m['dropped']}` dropped" if m.get("dropped")
                                                                  else "") + ")" for m in ms if m.get("ok"))
                parts.append(f"`{_change_text(c)}`{where}")
            out.append(f"  * r{r['index']} ({r['seconds']:.1f} s): " + "; ".join(parts)
                       + f" — {universe_cell(r, why=False)}")
    if not any(j.repairs for j in fin.values()):
        out.append("None.")
    return out + [""]


def diagnosis_lines(fin: dict) -> list[str]:
    out = ["## Diagnoses (localize)", "", "`size: line text` of each component, in the order found (seconds).", ""]
    for v, j in fin.items():
        lz = j.localize
        if not lz:
            out.append(f"* v{v}: not recorded")
        elif "error" in lz:
            out.append(f"* v{v}: error: {md_escape(lz['error'])}")
        elif not lz["diagnoses"]:
            out.append(f"* v{v}: none (outcome {lz['outcome']}, {lz['seconds']:.1f} s)")
        else:
            ds = "; ".join("{" + ", ".join(md_escape(f"{c['line']}: {c['text']}") for c in d["components"])
                           + f"}} ({d['seconds']:.1f})" for d in lz["diagnoses"])
            out.append(f"* v{v} ({lz['seconds']:.1f} s in all): {ds}")
    return out + [""]


COLUMNS = (
    "Columns: *diagnoses (localize)* is the number of minimal diagnoses (and their sizes) that the separate "
    "`localize` call found; *time to diagnose* is when it found the first one (seconds since the diagnosis "
    "started, after parsing, encoding and finding the failing inputs). *diagnoses tried* is "
    "`TemplateStats.diagnoses` of the repair run (a timeout stops it early). *first repair* is the time "
    "of the first verified repair since the start of the repair run; *total* is `TemplateStats.seconds` "
    "(diagnosis and template search); *wall* is the whole worker (repair run and localize run). *SMT checks* "
    "are those of the refinement loops. The universe column gives, for each repair, the patched SIR program "
    "on the 1608 SIR tests; *unrepaired SIR* is the faulty SIR program itself. *mutation L1/L2*: whether the "
    "mutation scheme repaired the version at level 1 / level 2. ‡ = repaired in the FMCAD'11 paper "
    "(Table I, right-hand-side components).")


def report(bench, jobs: dict, meta: dict, final: bool) -> str:
    o, versions, mutation = meta["options"], meta["versions"], bench.mutation
    jobs = {j.version: j for j in sorted(jobs.values(), key=lambda j: j.version)}
    out = header("TCAS template-repair benchmark (crepair)", meta, jobs, final, "versions") + [
        f"* Options: `crepair.repair(spec, scheme=\"template\", max_size={o['max_size']}, timeout={o['timeout']:g}, "
        f"unwind={o['unwind']}, entry=\"main\", max_refinements={o['max_refinements']}, "
        f"repairs_per_diagnosis={o['repairs_per_diagnosis']}, max_diagnoses={o['max_diagnoses']}, "
        f"inputs={o['inputs']}, components={{{', '.join(repr(c) for c in o['components'])}}})` (other options at "
        "their defaults: `max_terms=3`, `diagnosis_timeout=60`), then "
        f"`crepair.localize(spec, method=\"diagnosis\", max_diagnoses={o['max_diagnoses']}, max_size={o['max_size']}, "
        f"unwind={o['unwind']}, timeout={o['timeout']:g})`, both in one worker process per version; "
        f"{o['jobs']} workers in parallel; versions: {'all 41' if sorted(versions) == ALL_VERSIONS else vs(versions)}",
        f"* Inputs: `{bench.tcas}/spec/tcas_vN.c`; universe check: `bash {bench.check_script} PATCHED.c` on the SIR "
        "version `sir/versions/vN/tcas.c` with each repair's text edits mapped onto it",
        f"* Mutation results compared with: `{mutation.get('path', '?')}`"
        + (f" (run {mutation['date']}, commit {mutation['commit'].split()[0][:12]}, timeout {mutation['timeout']:g} s)"
           if "error" not in mutation else f" — {mutation['error']}"),
        "", COLUMNS, "", "## Results per version", ""]
    out += version_table(bench, jobs) + [""]
    if any(v in NOTES for v in jobs):
        out += ["† " + "; ".join(NOTES[v] for v in jobs if v in NOTES) + ".", ""]

    fin = {v: j for v, j in jobs.items() if j.status in ("done", "error")}
    tmpl = {v for v, j in fin.items() if j.repairs}
    tmpl_pass = {v for v, j in fin.items() if any(universe_ok(r) for r in j.repairs)}
    m1, m2 = (mutation.get("levels", {}).get(lv, set()) for lv in (1, 2))
    mut = m1 | m2
    union = tmpl | mut
    not_run = set(ALL_VERSIONS) - set(fin)
    no_diag = {v for v, j in fin.items() if j.localize.get("outcome") == "violated" and not j.localize.get("diagnoses")}
    all_repairs = [(f"v{v}", v, r) for v, j in fin.items() for r in j.repairs]
    npass, failing, unmapped, uerr = by_universe_result(all_repairs)
    out += ["## Totals", "",
            f"* Versions finished: {len(fin)}/{len(versions)}"
            + (f"; missing: {vs(set(versions) - set(fin))}" if set(versions) - set(fin) else ""),
            f"* Template scheme: **{len(tmpl)}/{len(fin)}** versions repaired: {vs(tmpl)}",
            f"* … with at least one repair that passes the whole SIR universe: {len(tmpl_pass)}: {vs(tmpl_pass)}",
            f"* FMCAD'11 versions (right-hand-side faults, {vs(PAPER)}): repaired {vs(PAPER & tmpl)}; "
            f"not repaired {vs((PAPER & set(fin)) - tmpl)}"
            + (f"; not run yet {vs(PAPER - set(fin))}" if PAPER - set(fin) else ""),
            f"* Mutation scheme (from {Path(mutation.get('path', '?')).name}): level 1 {len(m1)}: {vs(m1)}; "
            f"level 2 {len(m2)}: {vs(m2)}; either level {len(mut)}: {vs(mut)}",
            f"* **Union** (mutation at either level, or template): **{len(union)}/41** (goal ≥ {UNION_GOAL}): {vs(union)}",
            f"* Only template: {vs(tmpl - mut)}; only mutation: {vs(mut - tmpl)}; both: {vs(tmpl & mut)}",
            f"* Repaired by neither: {vs(set(ALL_VERSIONS) - union - (not_run - mut))}"
            + (f" (not run yet with the template scheme: {vs(not_run)})" if not_run else ""),
            f"* Original program correct up to the bound (no failing input): "
            f"{vs(v for v, j in fin.items() if j.outcome == 'original-correct')}",
            f"* Failing program but no diagnosis of size ≤ {o['max_size']} found by localize: {vs(no_diag)}",
            f"* Universe: {len(all_repairs)} repairs in total; {npass} pass all 1608 tests, {len(failing)} FAIL, "
            f"{len(unmapped)} could not be mapped onto SIR, {len(uerr)} could not be checked", ""]
    out += repair_lines(fin) + diagnosis_lines(fin)
    out += universe_sections(failing, unmapped, uerr, lambda v, r: explanation(bench, v, r))
    errs = [j for j in fin.values() if j.error]
    if errs:
        out += ["## Run errors", ""] + [f"* v{j.version}: {md_escape(j.error)}" for j in errs] + [""]
    overruns = [j for j in fin.values() if j.stats.get("seconds") is not None and j.stats["seconds"] > 1.1 * j.timeout]
    if overruns:
        out += ["## Runs that exceeded their time limit", "",
                "crepair's own time (`TemplateStats.seconds`) went over `timeout` by more than 10 %:", ""]
        out += [f"* v{j.version}: {j.stats['seconds']:.0f} s (limit {j.timeout:g} s)" for j in overruns] + [""]
    return "\n".join(out)
