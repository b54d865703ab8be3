"""The report of ``tcas_schedule.py``: per version the schemes run, the
repairs in rank order with their SIR universe results, and the versions
whose first-ranked repair passes the whole universe."""

from __future__ import annotations

import json
from pathlib import Path

from harness.markdown import fmt_s, header, md_escape, outcome_text, table, vs
from tcas_universe import ALL_VERSIONS, NOTES, baseline_cell, by_universe_result, universe_cell, universe_sections

GOAL = 30
REQUIRED = {5, 13, 14, 26, 27}

# Why a version stays unrepaired (read off `diff sir/original.c sir/versions/vN/tcas.c`).
WHY = {
    11: "three faults: `<` → `<=` twice and the `need_upward_RA && need_downward_RA` branch deleted "
        "(size ≥ 3, and a deleted statement is no expression edit)",
    21: "the call `Inhibit_Biased_Climb()` replaced by the body of one of its arms `(Up_Separation + NOZCROSS)`: "
        "the repair needs the `?:` on `Climb_Inhibit` back (not linear in the variables)",
    22: "the call `Inhibit_Biased_Climb()` replaced by `Up_Separation`: needs the `?:` on `Climb_Inhibit` back",
    23: "as v21, in `Non_Crossing_Biased_Descend`",
    24: "as v22, in `Non_Crossing_Biased_Descend`",
    29: "a dropped `?:` arm: `return (Up_Separation)` for `Climb_Inhibit ? Up_Separation + NOZCROSS : "
        "Up_Separation`; the linear equivalent `Up_Separation + 100 * Climb_Inhibit` holds only for "
        "Climb_Inhibit in [0,1]",
    30: "as v29, the other arm: `return (Up_Separation + NOZCROSS)`",
    33: "four array indices shifted by one in `initialize()` (`[1]..[4]` for `[0]..[3]`): size 4",
    37: "an array index replaced by a constant (`[0]` for `[Alt_Layer_Value]`): index expressions are not "
        "template locations yet",
    38: "the array `Positive_RA_Alt_Thresh` declared with 3 elements for 4: `initialize()` writes index 3 out "
        "of bounds (now found by the bounds check); the fix is the declaration's size, not an expression, and "
        "the spec's `AllRepair_correct_*` functions share the undersized array",
}


def _ranked(bench, job) -> list[dict]:
    by_index = {r["index"]: r for r in job.repairs}
    order = job.ranking or sorted(by_index)
    return [by_index[i] for i in order if i in by_index]


def _change(c: dict) -> str:
    return f"L{c['line']} `{c['before']}` → `{c['after']}`"


def _previous(path: Path) -> set[int] | None:
    """Versions repaired with a passing repair in the earlier union table
    (mutation either level, or template), from their raw JSON."""
    out: set[int] = set()
    for name in ("tcas-mutation.json", "tcas-template.json"):
        p = path / name
        if not p.exists():
            return None
        for r in json.loads(p.read_text(encoding="utf-8")).get("runs", []):
            if any(x.get("universe", {}).get("ok") for x in r.get("repairs", [])):
                out.add(r["version"])
    return out


def report(bench, jobs: dict, meta: dict, final: bool) -> str:
    out = header("TCAS: mutation, then templates, ranked (crepair)", meta, jobs, final)
    o = meta.get("options", {})
    out += [
        f"* Schedule per version, one time budget of {meta.get('timeout')} s: "
        + "; then, only if it found no repair, ".join(
            f"`crepair.repair(spec, {', '.join(f'{k}={v!r}' for k, v in opts.items())}, unwind=8, entry='main')`"
            for _, opts in o.get("stages", []))
        + f" with `max_repairs={o.get('template_repairs')}`, `repairs_per_diagnosis={o.get('template_repairs')}`;"
        " the repairs are then ranked by `crepair.schemes.ranking.RepairRanking`",
        "* Inputs: `/work/shared/benchmarks/tcas/spec/tcas_vN.c`; universe check: "
        "`bash /work/shared/benchmarks/tcas/sir/check_universe.sh PATCHED.c` on `sir/versions/vN/tcas.c` with each "
        "repair's edits mapped onto it (after the search, outside its budget)",
        "",
        "*first-ranked* is the repair the ranking puts first (ties: the order found); *seconds* is the time since "
        "the worker started when it was found (both stages); *wall* the whole worker.",
        "",
        "## Results per version",
        "",
    ]
    rows = []
    good: set[int] = set()
    repaired: set[int] = set()
    for v in ALL_VERSIONS:
        job = jobs.get((v,))
        if job is None:
            continue
        if job.status == "pending":
            rows.append([f"v{v}", "pending"] + [""] * 7)
            continue
        ranked = _ranked(bench, job)
        first = ranked[0] if ranked else None
        if first:
            repaired.add(v)
            if first.get("universe", {}).get("ok"):
                good.add(v)
        stages = ", ".join(f"{s['scheme']}: {s['outcome']}" for s in job.stages) or "—"
        why = "" if v in good else why_text(v, job)
        rows.append([
            f"v{v}" + (" †" if v in NOTES else ""), outcome_text(job), stages, str(len(ranked)),
            "; ".join(_change(c) for c in first["changes"]) + f" ({first['scheme']})" if first else "—",
            fmt_s(first["seconds"]) if first else "—",
            "; ".join(universe_cell(r, why=False) for r in ranked) or "—",
            f"{job.wall:.0f}", baseline_cell(bench.baseline.get(v)) + (f" — {why}" if why else ""),
        ])
    out += table(["version", "outcome", "schemes run", "repairs", "first-ranked repair", "seconds",
                  "universe per repair, in rank order", "wall (s)", "unrepaired SIR; why not repaired"], rows)
    out += [""] + [f"† {NOTES[v]}." for v in sorted(NOTES)] + [""]
    prev = _previous(Path(bench.args.output).parent) if hasattr(bench, "args") else None
    out += ["## Totals", "",
            f"* Versions finished: {sum(1 for j in jobs.values() if j.status in ('done', 'error'))}/{len(jobs)}",
            f"* Repaired: {len(repaired)}/41: {vs(repaired)}",
            f"* **First-ranked repair passes all 1608 SIR tests: {len(good)}/41** (goal ≥ {GOAL}): {vs(good)}",
            f"* Issue 14's targets v5 v13 v14 v26 v27: {vs(good & REQUIRED)} pass; not: {vs(REQUIRED - good)}",
            f"* First-ranked repair fails the universe: {vs(repaired - good)}",
            f"* Not repaired: {vs({j.version for j in jobs.values() if j.status != 'pending'} - repaired)}"]
    if prev is not None:
        out += [f"* Earlier union (tcas-mutation.json + tcas-template.json, any repair passing): {len(prev)}: "
                f"{vs(prev)}; lost now: {vs(prev - good)}; new: {vs(good - prev)}"]
    items = [(f"v{job.version}", job.version, r) for job in jobs.values() for r in job.repairs]
    n_pass, failing, unmapped, errors = by_universe_result(items)
    out += [f"* Universe: {len(items)} repairs in total; {n_pass} pass all tests, {len(failing)} FAIL, "
            f"{len(unmapped)} unmapped, {len(errors)} could not be checked", ""]
    out += ["## Repairs (rank order)", ""]
    for job in sorted(jobs.values(), key=lambda j: j.version):
        ranked = _ranked(bench, job)
        if not ranked:
            continue
        out += [f"* **v{job.version}**"]
        for r in ranked:
            out.append(f"  * r{r['index']} ({r['scheme']}, {fmt_s(r['seconds'])} s): "
                       + "; ".join(md_escape(_change(c)) for c in r["changes"]) + f" — {universe_cell(r)}")
    out += [""]
    out += universe_sections(failing, unmapped, errors, lambda v, r: [])
    return "\n".join(out).rstrip("\n")


def why_text(v: int, job) -> str:
    """Why version ``v`` has no first-ranked repair that passes."""
    if job.error:
        return f"error: {job.error}"
    if v in WHY:
        return WHY[v]
    return "no repair found within the schedule" if not job.repairs else "the first-ranked repair fails the universe"
