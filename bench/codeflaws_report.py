"""The report of ``codeflaws.py``: per defect the first plausible patch and
the full exploration, with and without test-equivalence partitioning;
totals per mode and per defect class; the exploration ratio (RQ2 of
TOSEM'18); the check that partitioning never loses a plausible patch."""

from __future__ import annotations

import statistics

from harness.markdown import fmt_s, header, md_escape, table
from tdrepair import change_cell

CLASSES = ("ORRN", "OILN", "OAIS", "OAAN", "OLLN", "DCCR")
GOALS = {"plausible": 70, "heldout": 50, "quotient": 10.0}
RUNS = (("first", True), ("first", False), ("full", True), ("full", False))
LABEL = {("first", True): "first/P", ("first", False): "first/B", ("full", True): "full/P", ("full", False): "full/B"}


def rule_lines(defects: dict) -> list[str]:
    """One line: candidates left out per anti-pattern rule (issue 29), summed
    over the first runs with partitioning, and in how many defects each
    rule left any out."""
    total: dict[str, int] = {}
    hit: dict[str, int] = {}
    for r in defects.values():
        job = r.get(("first", True))
        if not done(job):
            continue
        for rule, n in ((job.stats or {}).get("space", {}).get("anti_patterns") or {}).items():
            total[rule] = total.get(rule, 0) + n
            hit[rule] = hit.get(rule, 0) + (1 if n else 0)
    if not total:
        return []
    return ["* Anti-pattern rules, first runs with partitioning (candidates left out, in how many defects): "
            + ", ".join(f"`{k}` {total[k]} ({hit[k]})" for k in sorted(total))]


def by_defect(jobs: dict) -> dict[str, dict[tuple, object]]:
    """``{defect: {(explore, partition): job}}`` in defect order."""
    out: dict[str, dict] = {}
    for j in sorted(jobs.values(), key=lambda j: j.defect):
        out.setdefault(j.defect, {})[(j.explore, j.partition)] = j
    return out


def done(j) -> bool:
    return j is not None and j.status in ("done", "error")


def plausible_count(j) -> int:
    return j.plausible.get("count", len(j.repairs)) if done(j) else 0


def found(j) -> bool:
    return plausible_count(j) > 0


def first(j) -> dict | None:
    return j.repairs[0] if done(j) and j.repairs else None


def heldout_ok(r: dict | None) -> bool:
    return bool(r and (r.get("heldout") or {}).get("ok"))


def identical_first(runs: dict) -> bool:
    """The first patch of the first/P run is the accepted program."""
    r = first(runs.get(("first", True)))
    return bool(r and r.get("identical"))


def identical_full(runs: dict) -> bool:
    """Some plausible patch of the full/P run is the accepted program."""
    j = runs.get(("full", True))
    return done(j) and bool(j.plausible.get("identical"))


def ex(j, key: str):
    return j.stats.get("exploration", {}).get(key) if done(j) else None


def ratio(j) -> float | None:
    """explored / executions (crepair's ``ratio``, else computed)."""
    r = ex(j, "ratio")
    if r is None and ex(j, "executions"):
        r = (ex(j, "explored") or 0) / ex(j, "executions")
    return r


def cost(r: dict | None):
    return None if r is None else next((r[k] for k in ("cost", "rank") if k in r), None)


def outcome_cell(j) -> str:
    if j is None:
        return ""
    if j.status in ("pending", "running"):
        return j.status
    if j.error:
        return (j.outcome + "; " if j.outcome else "") + "error"
    return j.outcome + (f" ({j.stopped})" if j.stopped and j.outcome == "unknown" else "")


def pair(a, b, f) -> str:
    """``f(a)/f(b)`` for the partitioning and the baseline run."""
    return "/".join("—" if not (done(x) and x.stats) or f(x) is None else str(f(x)) for x in (a, b))


def tests_cell(res: dict | None, why: bool = False) -> str:
    if not res:
        return "—"
    if "error" in res:
        return f"error ({res['error']})" if why else "error"
    return f"{'pass' if res['ok'] else 'FAIL'} {res['passed']}/{res['total']}"


def patch_text(bench, j, r: dict) -> str:
    from codeflaws_checks import Defect

    d = Defect(j.defect, j.klass, bench.root / j.defect)
    try:
        return change_cell(d.text(d.buggy), r)
    except (OSError, KeyError, ValueError):
        return " ".join(f"L{e['line']} `{e['old']}`→`{e['new']}`" for c in r["changes"] for e in c["edits"])


def first_table(bench, defects: dict) -> list[str]:
    head = ["defect", "class", "outcome P", "outcome B", "patch (P; B if different)", "identical", "held-out",
            "repair tests", "executions P/B", "explored P/B", "time P/B (s)"]
    rows = []
    for name, runs in defects.items():
        p, b = runs.get(("first", True)), runs.get(("first", False))
        if p is None and b is None:
            continue
        klass = (p or b).klass
        rp, rb = first(p), first(b)
        cell = patch_text(bench, p, rp) if rp else "—"
        if rb and (not rp or rb.get("diff") != rp.get("diff")):
            cell += "; B: " + patch_text(bench, b, rb)
        r = rp or rb
        rows.append([name, klass, outcome_cell(p), outcome_cell(b), cell,
                     "—" if r is None else ("yes" if r.get("identical") else "no"),
                     tests_cell(r and r.get("heldout")), tests_cell(r and r.get("repair_tests")),
                     pair(p, b, lambda j: ex(j, "executions")), pair(p, b, lambda j: ex(j, "explored")),
                     pair(p, b, lambda j: fmt_s(ex(j, "seconds") or j.stats.get("seconds")))])
    return table(head, rows)


def full_table(defects: dict) -> list[str]:
    head = ["defect", "class", "outcome P", "outcome B", "complete P/B", "plausible P/B", "identical P/B",
            "held-out pass (checked) P", "executions P/B", "explored P/B", "partitions P", "ratio P/B", "time P/B (s)"]
    rows = []
    for name, runs in defects.items():
        p, b = runs.get(("full", True)), runs.get(("full", False))
        if p is None and b is None:
            continue
        held = (f"{p.plausible.get('heldout_passed', 0)} ({p.plausible.get('heldout_checked', 0)})"
                if done(p) and p.stats and p.plausible else "—")
        rows.append([name, (p or b).klass, outcome_cell(p), outcome_cell(b),
                     pair(p, b, lambda j: "yes" if ex(j, "complete") else "no"),
                     pair(p, b, plausible_count), pair(p, b, lambda j: len(j.plausible.get("identical", []))),
                     held, pair(p, b, lambda j: ex(j, "executions")), pair(p, b, lambda j: ex(j, "explored")),
                     str(ex(p, "partitions")) if done(p) and ex(p, "partitions") is not None else "—",
                     pair(p, b, lambda j: None if ratio(j) is None else f"{ratio(j):.2f}"),
                     pair(p, b, lambda j: fmt_s(ex(j, "seconds") or j.stats.get("seconds")))])
    return table(head, rows)


def violations(defects: dict) -> tuple[list[str], list[str]]:
    """Partitioning losing what the baseline finds: (violations, explained
    by the partitioning run's time limit or error, or needing a look)."""
    bad, explained = [], []
    for name, runs in defects.items():
        p, b = runs.get(("first", True)), runs.get(("first", False))
        if done(p) and done(b) and found(b):
            if not found(p):
                (explained if p.error or p.outcome == "unknown" else bad).append(
                    f"{name} (first): the baseline found a plausible patch, partitioning none "
                    f"(outcome {outcome_cell(p)})")
            else:
                cp, cb = cost(first(p)), cost(first(b))
                if cp is not None and cb is not None and cb < cp:
                    bad.append(f"{name} (first): the baseline's patch is cheaper (cost {cb} < {cp})")
                elif cp is None and first(p).get("diff") != first(b).get("diff"):
                    explained.append(f"{name} (first): the two runs' first patches differ (crepair gives no cost "
                                     "to tell which is cheaper) — needs a look")
        p, b = runs.get(("full", True)), runs.get(("full", False))
        if done(p) and done(b) and p.plausible and b.plausible:
            lost = set(b.plausible.get("keys", [])) - set(p.plausible.get("keys", []))
            if lost:
                line = f"{name} (full): {len(lost)} plausible patches of the baseline not found with partitioning"
                (bad if ex(p, "complete") else explained).append(
                    line + ("" if ex(p, "complete") else " (the partitioning run did not complete)"))
    return bad, explained


def median(xs: list) -> float | None:
    return statistics.median(xs) if xs else None


def ratio_lines(defects: dict) -> list[str]:
    out = []
    for label, need_complete in (("all defects whose two full runs ran tests", False),
                                 ("defects whose two full runs both completed", True)):
        pairs = [(runs[("full", True)], runs[("full", False)]) for runs in defects.values()
                 if ("full", True) in runs and ("full", False) in runs]
        pairs = [(p, b) for p, b in pairs if done(p) and done(b) and ratio(p) is not None and ratio(b) is not None
                 and ex(p, "executions") and ex(b, "executions")
                 and (not need_complete or (ex(p, "complete") and ex(b, "complete")))]
        mp, mb = median([ratio(p) for p, _ in pairs]), median([ratio(b) for _, b in pairs])
        quotient = mp / mb if mp is not None and mb else None
        goal = "" if need_complete else f" (goal ≥ {GOALS['quotient']:g}×)"
        out.append(f"* Exploration ratio (explored / executions), {label} ({len(pairs)}): median with partitioning "
                   f"{'—' if mp is None else f'{mp:.2f}'}, baseline {'—' if mb is None else f'{mb:.2f}'}; "
                   f"quotient **{'—' if quotient is None else f'{quotient:.1f}×'}**{goal}")
    return out


def class_table(defects: dict) -> list[str]:
    head = ["class", "defects", "plausible first/P", "first/B", "full/P", "full/B", "held-out pass (first/P)",
            "identical (first/P)", "identical among plausible (full/P)"]
    rows = []
    for klass in CLASSES + tuple(sorted({j.klass for r in defects.values() for j in r.values()} - set(CLASSES))):
        runs = [r for r in defects.values() if next(iter(r.values())).klass == klass]
        if not runs:
            continue

        def count(f) -> str:
            return str(sum(1 for r in runs if f(r)))

        rows.append([klass, str(len(runs)), *(count(lambda r, k=k: found(r.get(k))) for k in RUNS),
                     count(lambda r: heldout_ok(first(r.get(("first", True))))), count(identical_first),
                     count(identical_full)])
    return table(head, rows)


def oracle_lines(bench, defects: dict) -> list[str]:
    base = {n: bench.baseline.get(n) for n in defects}
    errs = {n: b["error"] for n, b in base.items() if b and "error" in b}
    ok = {n: b for n, b in base.items() if b and "error" not in b}
    total = sum(b["total"] for b in ok.values())
    valid = sum(len(b["valid"]) for b in ok.values())
    trunc = sum(b["truncated"] for b in ok.values())
    blind = [n for n, b in ok.items() if b["buggy"].get("ok")]
    none = [n for n, b in ok.items() if not b["valid"]]
    out = ["## Held-out oracle", "",
           f"Held-out tests of the {len(ok)} defects checked: {total}; {trunc} have a truncated input (it ends in "
           f"`...`), and {total - trunc - valid} more are failed by the accepted program; the remaining {valid} "
           "*valid* tests are the held-out oracle (a patch passes it if it passes all of its defect's valid tests).",
           ""]
    if none:
        out += [f"* Defects without any valid held-out test (held-out cannot judge them): {', '.join(none)}"]
    if blind:
        out += [f"* Defects whose buggy program already passes every valid held-out test: {', '.join(blind)}"]
    bad_rt = [n for n, b in ok.items() if not b["repair_accepted"].get("ok")]
    if bad_rt:
        out += ["* Defects whose accepted program fails a repair test under the benchmark's runner: "
                + ", ".join(bad_rt)]
    if errs:
        out += ["* Oracle errors: " + "; ".join(f"{n}: {md_escape(e)}" for n, e in errs.items())]
    return out + [""]


def report(bench, jobs: dict, meta: dict, final: bool) -> str:
    defects = by_defect(jobs)
    n = len(defects)
    fin = {k: sum(1 for r in defects.values() if done(r.get(k))) for k in RUNS}
    sel = {k: sum(1 for r in defects.values() if k in r) for k in RUNS}
    staged = bool(meta.get("reference"))
    title = ("Codeflaws: the staged run against the accepted program and the repair tests (crepair)" if staged else
             "Codeflaws: test-driven repair with and without test-equivalence partitioning (crepair)")
    out = header(title, meta, jobs, final) + [
        f"* Runs per defect: `crepair repair BUGGY.c --tests-dir DIR --timeout {meta.get('timeout', 0):g} --json`"
        + (" `--reference ACCEPTED.c` (inputs generated from the repair tests, the accepted program's outputs "
           "expected; the held-out tests are never given to crepair)" if staged else "")
        + (f" `--test-timeout {meta['test_timeout']}`" if meta.get("test_timeout") else "")
        + (" `--rank cost`" if meta.get("rank") == "cost" else "")
        + (f" `--compare {meta['compare']}`" if meta.get("compare", "trailing-whitespace") != "trailing-whitespace"
           else "")
        + (f"; a sample of {meta['sample']} defects (`--sample`)" if meta.get("sample") else "")
        + "; P = test-equivalence partitioning (Algorithm 3), B = `--no-partition` (Algorithm 2); *first* = stop "
        f"at the first plausible patch, *full* = `--all`; mode `{meta.get('mode')}`; {meta.get('jobs')} runs in "
        f"parallel; {n} defects",
        "* The benchmark, not crepair, checks each patch: *identical* = the patched buggy program has the same C "
        "tokens as the accepted program (whitespace and comments ignored); *held-out* = compiled with the "
        "Makefile's flags and run on the valid held-out tests (see *Held-out oracle*); *repair tests* = the same "
        "on the tests crepair was given (a plausible patch must pass them all)",
        "", "## Summary", ""]
    out += [f"* Plausible patch found ({' · '.join(LABEL[k] for k in RUNS)}): "
            + " · ".join(f"**{sum(1 for r in defects.values() if found(r.get(k)))}**/{fin[k]}"
                         + (f" (of {sel[k]} selected)" if fin[k] != sel[k] else "") for k in RUNS if sel[k])
            + f" (goal ≥ {GOALS['plausible']}/106)"]
    held = sum(1 for r in defects.values() if heldout_ok(first(r.get(("first", True)))))
    out += [f"* First patch with partitioning passes the held-out oracle: **{held}** (goal ≥ {GOALS['heldout']}); "
            f"identical to the accepted program: **{sum(map(identical_first, defects.values()))}**",
            "* Full exploration with partitioning: a plausible patch identical to the accepted one is among those "
            f"found for **{sum(map(identical_full, defects.values()))}** defects"]
    out += rule_lines(defects)
    out += ratio_lines(defects)
    times = [(ex(r[("first", True)], "seconds"), ex(r[("first", False)], "seconds")) for r in defects.values()
             if found(r.get(("first", True))) and found(r.get(("first", False)))]
    times = [(a, b) for a, b in times if a is not None and b is not None]
    if times:
        out.append(f"* Time to the first plausible patch, defects where both first runs found one ({len(times)}): "
                   f"median {median([a for a, _ in times]):.1f} s with partitioning, "
                   f"{median([b for _, b in times]):.1f} s baseline")
    bad, explained = violations(defects)
    out += ["* Partitioning never loses a plausible patch the baseline finds: "
            + ("**yes**" if not bad else f"**NO — {len(bad)} violations**") + " (see below)", ""]
    out += ["## Per class", ""] + class_table(defects) + [""]
    out += ["## First plausible patch (`first`)", ""] + first_table(bench, defects) + [""]
    out += ["## Full exploration (`full`, `--all`)", "",
            "*held-out pass (checked)*: plausible patches that pass the held-out oracle, of those checked (the "
            f"first {meta.get('heldout_limit', '?')} in crepair's order).", ""] + full_table(defects) + [""]
    out += ["## Partitioning vs baseline", "", "Violations (the baseline found a plausible patch and partitioning "
            "did not, found a cheaper one, or — full mode — found patches partitioning missed although it "
            "completed):", ""] + ([f"* {md_escape(v)}" for v in bad] or ["None."]) + [""]
    if explained:
        out += ["Explained by a time limit or error, or to be looked at:", ""]
        out += [f"* {md_escape(v)}" for v in explained] + [""]
    wrong = [f"{name} {LABEL[k]} r{r['index']}: {tests_cell(r['repair_tests'], why=True)}"
             for name, runs in defects.items()
             for k, j in runs.items() if done(j) for r in j.repairs
             if r.get("repair_tests") and not r["repair_tests"].get("ok")]
    if wrong:
        out += ["## Plausible patches that fail the repair tests under the benchmark's runner", ""] + [
            f"* {md_escape(w)}" for w in wrong] + [""]
    out += oracle_lines(bench, defects)
    errs = [(name, LABEL[k], j) for name, runs in defects.items() for k, j in runs.items() if done(j) and j.error]
    if errs:
        out += ["## Run errors", ""] + [f"* {name} {lab}: {md_escape(j.error)}" for name, lab, j in errs] + [""]
    return "\n".join(out)
