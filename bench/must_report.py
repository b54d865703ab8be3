"""The report of ``must_pruning.py``: the two runs of each (file, level)
side by side, their repair sets compared (Proposition 1 of FL-AllRepair,
CAV'20: pruning loses no minimal repair), and totals per suite."""

from __future__ import annotations

from dataclasses import dataclass

from harness.markdown import fmt_s, header, is_vacuous, md_escape, outcome_text, repairs_cell, table
from harness.records import edits, edits_label, repair_key

PRUNES = ("none", "must")
SUITES = ("tcas", "qlose", "loops")
TITLES = {"tcas": "TCAS (SIR, spec form)", "qlose": "QLOSE loop programs", "loops": "Classic loop programs"}
NO_SEARCH = ("original-correct", "bound-too-small")  # outcomes of runs that had nothing to search


def file_order(name: str) -> tuple:
    """tcas_v2.c before tcas_v10.c."""
    head, _, tail = name.rsplit(".", 1)[0].rpartition("_v")
    return (head, int(tail)) if tail.isdigit() else (name, 0)


def run_order(job) -> tuple:
    return (SUITES.index(job.suite), file_order(job.file), job.level, PRUNES.index(job.prune))


def repair_sort_key(r: dict) -> tuple:
    return (r["size"], sorted((e["start"], e["new"]) for e in edits(r)))


def covered(job, k: int) -> bool:
    return str(k) in job.stats.get("covered", {})


def complete(job) -> bool:
    return bool(job.stats.get("complete")) or job.outcome in NO_SEARCH


def timed_out(job) -> bool:
    st = job.stats
    if "stopped" in st:  # the scheme's (RepairRun.stopped says "complete" after a time-out too)
        return st["stopped"] == "timeout"
    return bool(st) and not complete(job) and st.get("seconds", 0) >= job.timeout - 1


def outcome_cell(job) -> str:
    if job is None:
        return "not run"
    if job.status in ("pending", "running"):
        return job.status
    if job.error:
        return outcome_text(job)
    cell = job.outcome
    unknown = job.stats.get("unknown_checks") or 0
    if timed_out(job):
        cell = "timeout" if job.outcome == "unknown" else f"{job.outcome} (timeout)"
        unknown -= 1  # the check cut off by the time limit
    if unknown > 0:
        cell += f" ({unknown} unknown checks)"
    return cell


@dataclass
class Pair:
    """The two runs of a (file, level)."""

    suite: str
    file: str
    level: int
    none: object = None
    must: object = None

    def jobs(self) -> list:
        return [self.none, self.must]

    def finished(self) -> bool:
        return all(j is not None and j.status in ("done", "error") for j in self.jobs())

    def ok(self) -> bool:
        return all(j is not None and j.status == "done" for j in self.jobs())

    def both_complete(self) -> bool:
        return self.ok() and all(complete(j) for j in self.jobs())

    def compare(self) -> dict:
        """The repairs found by one run only; ``lost``: those the other run
        should have found (it explored every candidate of that size with no
        unknown check) — a violation of Proposition 1."""
        if not self.finished():
            return {"status": "n/a"}
        a = {repair_key(r): r for r in self.none.repairs}
        b = {repair_key(r): r for r in self.must.repairs}
        only = {"none": [a[k] for k in a.keys() - b.keys()], "must": [b[k] for k in b.keys() - a.keys()]}

        def unexplained(rs: list, other) -> list:
            return [r for r in rs if covered(other, r["size"]) and not other.stats.get("unknown_checks")]

        lost = {"none": unexplained(only["must"], self.none), "must": unexplained(only["none"], self.must)}
        return {"same": not only["none"] and not only["must"], "any_lost": bool(lost["none"] or lost["must"]),
                "only_none": sorted(only["none"], key=repair_sort_key),
                "only_must": sorted(only["must"], key=repair_sort_key), "lost": lost}

    def same_cell(self) -> str:
        if not self.finished():
            return ""
        c = self.compare()
        diffs = [f"only {side}: " + ", ".join(edits_label(r) for r in c[f"only_{side}"])
                 for side in PRUNES if c[f"only_{side}"]]
        so_far = ": " + "; ".join(diffs) if diffs else ": same so far"
        if c["any_lost"]:
            return "**NO** — " + "; ".join(diffs)
        if not self.ok():
            return "n/a (error)" + so_far
        if self.both_complete():
            if all(j.outcome == "original-correct" for j in self.jobs()):
                return "yes (original correct)"
            return "yes" if c["same"] else "**NO** — " + "; ".join(diffs)
        why = "timeout" if any(timed_out(j) for j in self.jobs()) else "incomplete"
        if any(j.stats.get("unknown_checks") for j in self.jobs()):
            why += ", unknown checks"
        return f"n/a ({why})" + so_far

    def checks_ratio(self) -> float | None:
        n, m = (j.stats.get("checks") for j in self.jobs()) if self.ok() else (None, None)
        return n / m if n and m else None


def make_pairs(jobs: dict) -> list[Pair]:
    pairs: dict[tuple, Pair] = {}
    for job in sorted(jobs.values(), key=run_order):
        p = pairs.setdefault((job.suite, job.file, job.level), Pair(job.suite, job.file, job.level))
        setattr(p, job.prune, job)
    return list(pairs.values())


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "—"


def _labels(pairs: list[Pair]) -> str:
    return ", ".join(f"{p.file} L{p.level}" for p in pairs) or "none"


def suite_table(pairs: list[Pair]) -> list[str]:
    head = ["file", "L", "B", "bound too small"]
    for pr in PRUNES:
        head += [f"{pr}: outcome", f"{pr}: repairs", f"{pr}: SMT checks"] + (["must: FL calls"] if pr == "must" else [])
        head += [f"{pr}: first repair (s)", f"{pr}: covered 1 (s)", f"{pr}: covered 2 (s)", f"{pr}: total (s)"]
    head += ["same repairs", "checks ratio none/must"]
    rows = []
    for p in pairs:
        start = next((j.start for j in p.jobs() if j is not None and j.start), {})
        ts = start.get("too_small", "")
        row = [p.file, str(p.level), str(next(j for j in p.jobs() if j).unwind),
               {True: "**yes**", False: "no", None: "unknown", "": "—"}[ts]]
        for pr in PRUNES:
            j = getattr(p, pr)
            st = j.stats if j else {}
            first = min((r["seconds"] for r in j.repairs), default=None) if j else None
            cov = st.get("covered", {})
            fresh = f" ({st['fresh_checks']} fresh)" if st.get("fresh_checks") else ""
            row += [outcome_cell(j), repairs_cell(j), "—" if st.get("checks") is None else f"{st['checks']}{fresh}"]
            if pr == "must":
                row.append("—" if st.get("localizations") is None else str(st["localizations"]))
            row += [fmt_s(first), fmt_s(cov.get("1")), fmt_s(cov.get("2")), fmt_s(st.get("seconds"))]
        ratio = p.checks_ratio()
        rows.append(row + [p.same_cell(), "—" if ratio is None else f"{ratio:.2f}"])
    return table(head, rows)


def totals(pairs: list[Pair], max_size: int) -> dict:
    done = [p for p in pairs if p.ok()]
    both = [p for p in done if p.both_complete()]
    finished = [p for p in pairs if p.finished()]
    cmp = {(p.file, p.level): p.compare() for p in finished}

    def s(ps, pr, key):
        return sum(getattr(p, pr).stats.get(key, 0) or 0 for p in ps)

    t = {"pairs": len(pairs), "compared": len(done), "both_complete": len(both), "finished": len(finished),
         "localizations": s(done, "must", "localizations"),
         "localization_seconds": s(done, "must", "localization_seconds"),
         "no_loss": sum(1 for c in cmp.values() if not c["any_lost"]),
         "lost": [p for p in finished if cmp[(p.file, p.level)]["any_lost"]],
         "same_both": sum(1 for p in both if cmp[(p.file, p.level)]["same"]),
         "only_pruned": [p for p in done if not covered(p.none, max_size) and covered(p.must, max_size)],
         "only_unpruned": [p for p in done if covered(p.none, max_size) and not covered(p.must, max_size)],
         "errors": [p for p in finished if not p.ok()]}
    for pr in PRUNES:
        t[f"timeouts_{pr}"] = sum(1 for p in done if timed_out(getattr(p, pr)))
        for name, key in (("checks", "checks"), ("time", "seconds")):
            t[f"{name}_{pr}"], t[f"{name}_{pr}_both"] = s(done, pr, key), s(both, pr, key)
    return t


def totals_lines(t: dict, max_size: int) -> list[str]:
    return [
        f"* Pairs (file, level): {t['pairs']}; both runs without error: {t['compared']}; both complete: {t['both_complete']}"
        f"; timeouts: none {t['timeouts_none']}, must {t['timeouts_must']}",
        f"* SMT checks, all compared pairs: none {t['checks_none']}, must {t['checks_must']}, "
        f"ratio none/must **{_ratio(t['checks_none'], t['checks_must'])}**",
        f"* SMT checks, pairs where both runs completed: none {t['checks_none_both']}, must {t['checks_must_both']}, "
        f"ratio none/must **{_ratio(t['checks_none_both'], t['checks_must_both'])}**",
        f"* Search time (s), all compared pairs (a timed-out run counts its time limit): none {t['time_none']:.0f}, "
        f"must {t['time_must']:.0f}, ratio none/must {_ratio(t['time_none'], t['time_must'])}",
        f"* Search time (s), pairs where both completed: none {t['time_none_both']:.0f}, must {t['time_must_both']:.0f}, "
        f"ratio none/must {_ratio(t['time_none_both'], t['time_must_both'])}",
        f"* Must fault localizations (FOSFL calls): {t['localizations']} in {t['localization_seconds']:.0f} s",
        f"* Pairs where no repair was lost: **{t['no_loss']}/{t['finished']}** (pairs with a run error included: "
        f"their repairs found so far are compared too); both complete with identical repair "
        f"sets: {t['same_both']}/{t['both_complete']}",
        f"* Size ≤ {max_size} space covered only with pruning: {_labels(t['only_pruned'])}",
        f"* Size ≤ {max_size} space covered only without pruning: {_labels(t['only_unpruned'])}",
    ] + ([f"* Pairs with a run error: {_labels(t['errors'])}"] if t["errors"] else [])


EXPLAINED = (
    "*none* blocks only the buggy candidate (AllRepair, FM'16); *must* blocks every candidate that agrees with it "
    "on the must location set of its counterexample (FL-AllRepair, CAV'20 Sect. 6). Times are seconds since the "
    "start of the search, as reported by crepair: *first repair*; *covered k*: every candidate of size ≤ k explored "
    "(— = not reached); *total*: the whole search (a timed-out run stops at the limit). *SMT checks* include the "
    "re-checks of repairs; *FL calls* are the must fault localizations. *bound too small*: the unwinding bound B cuts "
    "off feasible runs of the original program (then results hold only up to B); *k vacuous* after a repair count: "
    "the bound cuts off runs of k of the *repaired* programs (e.g. a loop made to run past B), so they are correct "
    "only up to B (possible only with unwinding assumptions; with unwinding assertions such a candidate is not a "
    "repair). *fresh* in the checks count: candidates the incremental solver left undecided after "
    "2 s, checked again by a fresh solver (counted twice). *same repairs* compares the repair "
    "sets (a repair = its set of (offset, new token) edits): *yes* when both runs completed with equal sets; "
    "*n/a (timeout)* when one did not complete, with the repairs found by one run only — each of them is of a size "
    "the other run did not finish exploring; **NO** when a run explored all candidates of some size (without "
    "unknown checks) and still lacks a repair of that size that the other run found: that would be a bug "
    "(Proposition 1). *timeout* = outcome unknown at the time limit.")


def changes_lines(pairs_all: list[Pair], old_jobs: dict, where: str) -> list[str]:
    """Per (file, level) run by both: the outcomes, and the repairs (of
    either prune run) found only before or only now."""
    old = {(p.suite, p.file, p.level): p for p in make_pairs(old_jobs)}
    out = [f"## Changes compared with {where}", "", "Per (file, level): outcomes none/must before → now; the repairs "
           "(found by either run) that are gone (*vacuous*: labelled vacuous before) or new.", ""]
    n_gone = n_vacuous = n_new = 0
    for p in pairs_all:
        q = old.get((p.suite, p.file, p.level))
        if q is None or not p.finished() or not q.finished():
            continue
        before, now = ({repair_key(r): r for j in x.jobs() for r in j.repairs} for x in (q, p))
        gone = sorted((before[k] for k in before.keys() - now.keys()), key=repair_sort_key)
        new = sorted((now[k] for k in now.keys() - before.keys()), key=repair_sort_key)
        outcomes = ["/".join(j.outcome for j in x.jobs()) for x in (q, p)]
        vacuous = sum(1 for r in gone if is_vacuous(r))
        n_gone, n_vacuous, n_new = n_gone + len(gone), n_vacuous + vacuous, n_new + len(new)
        if gone or new or outcomes[0] != outcomes[1]:
            out.append(f"* {p.suite}/{p.file} L{p.level}: {outcomes[0]} → {outcomes[1]}; repairs {len(before)} → "
                       f"{len(now)}" + (f"; gone ({vacuous} of {len(gone)} vacuous): " if gone else "")
                       + ", ".join(md_escape(edits_label(r)) + ("" if is_vacuous(r) else " (**not vacuous**)")
                                   for r in gone)
                       + ("; new: " + ", ".join(md_escape(edits_label(r)) for r in new) if new else ""))
    return out + ["", f"In all: {n_gone} repairs gone ({n_vacuous} of them vacuous), {n_new} new.", ""]


def report(jobs: dict, meta: dict, final: bool, max_size: int, old: tuple[dict, str] | None = None) -> str:
    pairs_all = make_pairs(jobs)
    unwinding = meta.get("unwinding", "assumptions")
    out = header("Must-location pruning benchmark: AllRepair vs FL-AllRepair (crepair)", meta, jobs, final) + [
        f"* Options: `crepair.repair(file, level=L, max_size={max_size}, unwind=B, entry=E, timeout={meta['timeout']:g}, "
        f"prune=\"none\"|\"must\", unwinding=\"{unwinding}\")`"
        + ("" if "unwinding" in meta else " (before the option existed)") + f"; {meta['jobs']} runs in parallel "
        "(one worker process per (file, level, prune); the two runs of a (file, level) are scheduled next to each "
        "other" + (", so they mostly run at the same time under the same load)" if meta["jobs"] > 1 else ")"),
        "* Suites: " + "; ".join(
            f"{s}: `{d['folder']}`, levels {','.join(map(str, d['levels']))}, unwind {d['unwind']}, entry main"
            + (" (sum.c and sum2.c: entry sum, their main is empty)" if s == "loops" else "")
            for s, d in meta["suites"].items()),
        "", EXPLAINED, ""]
    per_suite = {}
    for s, d in meta["suites"].items():
        pairs = [p for p in pairs_all if p.suite == s]
        if pairs:
            out += [f"## {TITLES[s]} — `{d['folder']}` (levels {','.join(map(str, d['levels']))}, max_size "
                    f"{max_size}, unwind {d['unwind']})", ""] + suite_table(pairs) + [""]
            per_suite[s] = totals(pairs, max_size)
            out += [f"Totals ({s}):", ""] + totals_lines(per_suite[s], max_size) + [""]

    t_all = totals(pairs_all, max_size)
    rows = [[name, str(t["pairs"]), str(t["both_complete"]), str(t["checks_none"]), str(t["checks_must"]),
             _ratio(t["checks_none"], t["checks_must"]), _ratio(t["checks_none_both"], t["checks_must_both"]),
             f"{t['time_none']:.0f}", f"{t['time_must']:.0f}", _ratio(t["time_none"], t["time_must"]),
             _ratio(t["time_none_both"], t["time_must_both"]), f"{t['no_loss']}/{t['finished']}",
             str(len(t["only_pruned"]))] for name, t in list(per_suite.items()) + [("**all**", t_all)]]
    out += ["## Totals", ""] + table(
        ["suite", "pairs", "both complete", "checks none", "checks must", "ratio none/must", "ratio (both complete)",
         "time none (s)", "time must (s)", "time ratio", "time ratio (both complete)", "no repair lost",
         "covered only with pruning"], rows)
    out += [""] + totals_lines(t_all, max_size) + [""]

    out += ["## Repairs lost by one of the runs (Proposition 1 violations)", ""]
    if not t_all["lost"]:
        out += ["None: every repair found by one run and not the other is of a size the other run did not finish "
                "exploring.", ""]
    for p in t_all["lost"]:
        c = p.compare()
        out += [f"### {p.suite}/{p.file}, level {p.level}", ""]
        for side, other in (("none", "must"), ("must", "none")):
            for r in c["lost"][side]:
                out += [f"* missing with prune={side}, found with prune={other} (size {r['size']}, at "
                        f"{r['seconds']:.1f} s): {edits_label(r)}", "", "```diff", r["diff"].rstrip("\n"), "```", ""]
        out.append("")

    out += ["## Repairs found", "", "Each repair as its edits {line `old`→`new`}, with the time at which each run "
            "found it (— = not found); *vacuous*: the unwinding bound cuts off runs of the repaired program.", ""]
    for p in pairs_all:
        found: dict[frozenset, dict] = {}
        for pr in PRUNES:
            for r in getattr(p, pr).repairs if p.finished() else []:
                found.setdefault(repair_key(r), {"r": r})[pr] = r["seconds"]
        if found:
            out.append(f"* {p.suite}/{p.file} L{p.level}: " + "; ".join(
                f"{md_escape(edits_label(v['r']))}{' *vacuous*' if is_vacuous(v['r']) else ''} "
                f"(none {fmt_s(v.get('none'))} s, must {fmt_s(v.get('must'))} s)"
                for v in sorted(found.values(), key=lambda v: repair_sort_key(v["r"]))))
    out.append("")

    if old is not None:
        out += changes_lines(pairs_all, *old)
    errs = [j for j in jobs.values() if j.error]
    if errs:
        out += ["## Run errors", ""]
        if any(j.error.startswith("killed") for j in errs):
            out += ["A run *killed* after its time limit did not stop at the limit (crepair checks the deadline "
                    "only between steps, so one long step overran it). The repairs it had found before the kill are "
                    "kept, listed under *Repairs found* and compared with the other run; it has no final statistics.", ""]
        for j in sorted(errs, key=lambda j: j.key):
            found = f" ({len(j.repairs)} repairs found before)" if j.repairs else ""
            out.append(f"* {j.suite}/{j.file} level {j.level} prune={j.prune}: {md_escape(j.error)}{found}")
        out.append("")
    return "\n".join(out)
