#!/usr/bin/env python3
"""Benchmark: crepair's mutation repair on the 41 faulty TCAS versions (SIR).

Runs ``crepair.repair`` on ``SHARED/benchmarks/tcas/spec/tcas_vN.c`` at
level 1 (max_size 2) and level 2 (max_size 1), checks every repair on the
SIR program and its test universe (``tcas_universe``), and compares the
versions repaired with the published AllRepair results (FM'16, Table 2).

Usage (from the repository root)::

    python bench/tcas_mutation.py [--versions 1,2,...] [--levels 1,2] [--timeout 600] [--jobs 2]

The markdown report goes to stdout and to ``bench/results/tcas-mutation.md``
(raw data to ``bench/results/tcas-mutation.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import fmt_s, header, outcome_text, repairs_cell, table, vs  # noqa: E402
from harness.records import search_records  # noqa: E402
from harness.runner import Job, main  # noqa: E402
from tcas_universe import ALL_VERSIONS, NOTES, TcasBench, baseline_cell, by_universe_result, universe_cell, \
    universe_sections  # noqa: E402

LEVEL_MAX_SIZE = {1: 2, 2: 1}  # level -> max_size
PUBLISHED_L1 = {1, 3, 6, 9, 10, 12, 20, 25, 31, 32, 39}
PUBLISHED = {1: PUBLISHED_L1, 2: PUBLISHED_L1 | {16, 17, 28, 35, 36, 40, 41}}  # AllRepair, FM'16


@dataclass
class MutationJob(Job):
    SETUP = ("max_size", "timeout", "unwind")
    PARAMS = ("path", "level", "max_size", "timeout", "unwind")

    version: int
    level: int
    max_size: int
    path: str = ""
    timeout: float = 600
    unwind: int = 8

    @property
    def key(self) -> tuple:
        return (self.version, self.level)


def maintainer_note(v: int, r: dict) -> list[str]:
    """The explanation placeholder after a repair that fails the universe
    check, with a suggestion from the failing-test analysis."""
    f = r.get("failures") or {}
    if not f:
        return ["Explanation (maintainer): _TODO_", ""]
    if "error" in f:
        return []
    if f["inside"] == 0 and f["undecided"] == 0 and f["failing"]:
        suggestion = ("bounded-equivalent to the spec but differs on universe inputs outside the spec's "
                      "assumptions (every failing test violates a `__CPROVER_assume` condition)")
    else:
        suggestion = ("some failing tests satisfy the spec's assumptions — the spec (its `AllRepair_correct_*` "
                      "reference or its encoding) does not constrain this behaviour; needs a look")
    return [f"Explanation (maintainer): _TODO — suggested: {suggestion}._", ""]


class TcasMutation(TcasBench):
    name = "tcas-mutation"
    job = MutationJob

    def add_options(self, ap) -> None:
        super().add_options(ap)
        ap.add_argument("--levels", type=lambda s: sorted({int(x) for x in s.split(",")}), default=[1, 2],
                        help="mutation levels to run (default 1,2)")

    def jobs(self) -> dict:
        a = self.args
        if any(lv not in LEVEL_MAX_SIZE for lv in a.levels):
            raise SystemExit("--levels: 1 and/or 2")
        jobs = [MutationJob(v, lv, LEVEL_MAX_SIZE[lv], str(self.spec(v)), a.timeout, a.unwind)
                for v in a.versions for lv in a.levels]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"versions": self.args.versions, "levels": self.args.levels, "unwind": self.args.unwind}

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        run = crepair.repair(p["path"], level=p["level"], max_size=p["max_size"], timeout=p["timeout"],
                             unwind=p["unwind"], entry="main")
        search_records(fh, t0, run)

    def level_table(self, jobs: dict, level: int, versions: list[int]) -> list[str]:
        max_size = LEVEL_MAX_SIZE[level]
        sizes = range(1, max_size + 1)
        head = (["version", "outcome", "repairs", "first repair (s)"] + [f"covered size {k} (s)" for k in sizes]
                + ["SMT checks", "wall (s)", "universe results per repair", "unrepaired SIR version"])
        rows = []
        for v in versions:
            job = jobs.get((v, level))
            name = f"v{v}" + (" †" if v in NOTES else "")
            base = baseline_cell(self.baseline.get(v))
            if job is None or job.status in ("pending", "running"):
                rows.append([name, job.status if job else "not run"] + [""] * (len(head) - 3) + [base])
                continue
            st = job.stats
            checks = "—" if st.get("checks") is None else str(st["checks"])
            if st.get("unknown_checks"):
                checks += f" ({st['unknown_checks']} unknown)"
            first = job.repairs[0]["seconds"] if job.repairs else None
            rows.append([name, outcome_text(job), repairs_cell(job), fmt_s(first)]
                        + [fmt_s(st.get("covered", {}).get(str(k))) for k in sizes]
                        + [checks, f"{job.wall:.0f}", "; ".join(universe_cell(r) for r in job.repairs) or "—", base])
        return table(head, rows)

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        versions, levels = meta["versions"], meta["levels"]
        timeout, unwind = meta["timeout"], meta["unwind"]
        out = header("TCAS mutation-repair benchmark (crepair)", meta, jobs, final) + [
            f"* Options: `crepair.repair(spec, level=L, max_size=S, timeout={timeout:g}, unwind={unwind}, "
            f"entry=\"main\")` with (L, S) in {', '.join(f'({lv}, {LEVEL_MAX_SIZE[lv]})' for lv in levels)}; "
            f"{meta['jobs']} runs in parallel (one worker process per (version, level)); versions: "
            f"{'all 41' if versions == ALL_VERSIONS else vs(versions)}",
            f"* Inputs: `{self.tcas}/spec/tcas_vN.c`; universe check: `bash {self.check_script} PATCHED.c` "
            "on the SIR version `sir/versions/vN/tcas.c` with each repair's edits mapped onto it",
            "",
            "Times are seconds since the start of the search (after parsing and encoding), as reported by "
            "crepair: *first repair* is the first verified repair, *covered size k* is when every candidate "
            "of size ≤ k had been explored (— = not reached). *wall* is the whole worker process (parse, "
            "encode, bound check, search). *SMT checks* counts the re-checks of repairs too. *k vacuous* after "
            "a repair count: k repairs are correct only because the unwinding bound cuts off their runs. The "
            "last column is the faulty SIR program itself on the universe. Universe checks ran after each "
            "search, outside its time budget.",
            "",
        ]
        for level in levels:
            out += [f"## Level {level} (max_size {LEVEL_MAX_SIZE[level]})", ""]
            out += self.level_table(jobs, level, versions) + [""]
        if any(v in NOTES for v in versions):
            out += ["† " + "; ".join(NOTES[v] for v in versions if v in NOTES) + ".", ""]

        repaired = {lv: {v for v in versions if (v, lv) in jobs and jobs[(v, lv)].repairs} for lv in levels}
        union = set().union(*repaired.values())
        out += ["## Totals", ""]
        out += [f"* Level {lv}: {len(repaired[lv])}/{len(versions)} versions repaired: {vs(repaired[lv])}"
                for lv in levels]
        out.append(f"* Union: {len(union)}/{len(versions)} versions repaired: {vs(union)}")
        out += ["", "Comparison with the published AllRepair results (level 1: v1 v3 v6 v9 v10 v12 v20 v25 v31 "
                "v32 v39; level 2 additionally v16 v17 v28 v35 v36 v40 v41)"
                + ("" if versions == ALL_VERSIONS else ", restricted to the versions run") + ":", ""]
        rows = []
        pub_union = set().union(*(PUBLISHED[lv] for lv in levels)) & set(versions)
        for lv, pub, ours in [(str(lv), PUBLISHED[lv] & set(versions), repaired[lv]) for lv in levels] + [
                ("union", pub_union, union)]:
            rows.append([lv, str(len(pub)), str(len(ours)), str(len(pub & ours)), vs(ours - pub), vs(pub - ours)])
        out += table(["level", "published", "crepair", "both", "only crepair", "only published"], rows) + [""]

        all_repairs = [(f"v{j.version}, level {j.level}", j.version, r)
                       for _, j in sorted(jobs.items()) for r in j.repairs]
        n_pass, failing, unmapped, errors = by_universe_result(all_repairs)
        out += [f"Universe: {len(all_repairs)} repairs in total; {n_pass} pass all tests, {len(failing)} FAIL, "
                f"{len(unmapped)} unmapped, {len(errors)} could not be checked.", ""]
        out += universe_sections(failing, unmapped, errors, maintainer_note, undecided=" (too few arguments)")
        errs = sorted((j for j in jobs.values() if j.error), key=lambda j: (j.level, j.version))
        if errs:
            out += ["## Run errors", ""] + [f"* v{j.version}, level {j.level}: {j.error}" for j in errs] + [""]
        return "\n".join(out)

    def progress(self, job: MutationJob) -> str:
        cov = job.stats.get("covered", {})
        first = job.repairs[0]["seconds"] if job.repairs else None
        return (f"v{job.version} L{job.level}: {outcome_text(job) or '?'}, repairs {repairs_cell(job)}, "
                f"first {fmt_s(first)} s, "
                + ", ".join(f"covered{k} {fmt_s(cov.get(str(k)))} s" for k in range(1, job.max_size + 1))
                + f", checks {job.stats.get('checks', '-')}, wall {job.wall:.0f} s | "
                + ("; ".join(universe_cell(r) for r in job.repairs) or "-"))


if __name__ == "__main__":
    sys.exit(main(TcasMutation(__file__), __doc__))
