#!/usr/bin/env python3
"""Benchmark: TCAS repaired through ``--reference`` on the SIR files themselves.

For each of the 41 faulty versions, runs::

    crepair.repair("sir/versions/vN/tcas.c", reference="sir/original.c", entry="alt_sep_test",
                   init=["initialize"], assume=[...], level=L, max_size=S)

(the command line ``crepair repair vN/tcas.c --reference original.c --entry
alt_sep_test --init initialize --assume ...``), with the ``--assume``
expressions taken from the ``__CPROVER_assume`` lines of
``spec/tcas_vN.c``, at level 1 (max_size 2) and level 2 (max_size 1) as
``tcas_mutation.py`` does on the spec files.  Every repair is applied to the
SIR file as is (no mapping) and run on the 1608 tests of the universe with
``sir/check_universe.sh``.  The repairs are compared with those the spec
files give (``bench/results/tcas-mutation.json``, mapped onto SIR there):
same patched SIR text or not.

Usage (from the repository root)::

    python bench/tcas_reference.py [--versions 1,2,...] [--levels 1,2] [--first] [--timeout 300] [--jobs 2]

The markdown report goes to stdout and to ``bench/results/tcas-reference.md``
(raw data to ``bench/results/tcas-reference.json``); progress to stderr.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import fmt_s, header, outcome_text, repairs_cell, table, vs  # noqa: E402
from harness.records import edits, search_records  # noqa: E402
from harness.runner import Job, main  # noqa: E402
from tcas_sir import apply_edits  # noqa: E402
from tcas_universe import ALL_VERSIONS, LEVEL_MAX_SIZE, NOTES, TcasBench, by_universe_result, level_table, \
    universe_cell, universe_sections  # noqa: E402

SPEC_RESULTS = Path(__file__).resolve().parent / "results" / "tcas-mutation.json"
# what a reader of the table needs to know about single versions (checked by hand on the files)
EXPLAIN = {
    11: "v11: the spec file `spec/tcas_v11.c` is not the SIR program: where SIR v11 tests "
        "`if (need_upward_RA)`, the spec file tests `if (need_upward_RA && need_downward_RA)` (then "
        "`UPWARD_RA`), a third fault that no size-2 level-1 repair fixes together with the two `<=`; on the "
        "SIR file, restoring `<` in `Own_Below_Threat` and `Own_Above_Threat` (size 2) is a repair: with "
        "strict comparisons both advisories are never needed at once, and the repair passes the universe",
    28: "v28: `Climb_Inhibit == 1` is equivalent to the original `Climb_Inhibit` only within the "
        "assumptions (`Climb_Inhibit` in [0, 1]); the one failing universe test has `Climb_Inhibit` = 4, "
        "outside them (the spec files give the same repair, with the same result)",
}
_ASSUME = re.compile(r"^\s*__CPROVER_assume\((.*)\)\s*;", re.M)


def assumptions(spec_text: str) -> list[str]:
    """The ``__CPROVER_assume`` conditions of a spec file's ``main`` (commented ones excluded)."""
    return _ASSUME.findall(spec_text)


@dataclass
class ReferenceJob(Job):
    SETUP = ("max_size", "timeout", "unwind", "first", "assume")
    PARAMS = ("path", "reference", "assume", "level", "max_size", "timeout", "unwind", "first")

    version: int
    level: int
    max_size: int
    path: str = ""
    reference: str = ""
    assume: list = field(default_factory=list)
    timeout: float = 300
    unwind: int = 8
    first: bool = False

    @property
    def key(self) -> tuple:
        return (self.version, self.level)


def spec_repairs(sir_texts: dict[int, str]) -> dict[tuple[int, int], list[str]]:
    """The patched SIR texts of the spec files' repairs per (version, level),
    from tcas_mutation.py's raw JSON ({} when absent)."""
    if not SPEC_RESULTS.exists():
        return {}
    out = {}
    for run in json.loads(SPEC_RESULTS.read_text(encoding="utf-8")).get("runs", []):
        v, lv = run["version"], run["level"]
        if v not in sir_texts:
            continue
        texts = []
        for r in run.get("repairs", []):
            maps = r.get("mapping") or []
            if maps and all(m.get("ok") for m in maps):
                texts.append(apply_edits(sir_texts[v], [(m["start"], m["end"], e["new"])
                                                        for m, e in zip(maps, edits(r))]))
        out[(v, lv)] = texts
    return out


class TcasReference(TcasBench):
    name = "tcas-reference"
    job = ReferenceJob

    def add_options(self, ap) -> None:
        super().add_options(ap)
        ap.add_argument("--levels", type=lambda s: sorted({int(x) for x in s.split(",")}), default=[1, 2],
                        help="mutation levels to run (default 1,2)")
        ap.add_argument("--first", action="store_true", help="stop each run after its first repair")

    def jobs(self) -> dict:
        a = self.args
        ref = str(self.tcas / "sir" / "original.c")
        jobs = [ReferenceJob(v, lv, LEVEL_MAX_SIZE[lv], str(self.sir_file(v)), ref,
                             assumptions(self.spec(v).read_text(encoding="utf-8", errors="surrogateescape")),
                             a.timeout, a.unwind, a.first)
                for v in a.versions for lv in a.levels]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"versions": self.args.versions, "levels": self.args.levels, "unwind": self.args.unwind,
                "first": self.args.first}

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        run = crepair.repair(p["path"], reference=p["reference"], entry="alt_sep_test", init=["initialize"],
                             assume=p["assume"], level=p["level"], max_size=p["max_size"], timeout=p["timeout"],
                             unwind=p["unwind"], max_repairs=1 if p["first"] else None)
        search_records(fh, t0, run)

    def check_repairs(self, job: Job) -> None:
        """Apply each repair to the SIR file and run the universe."""
        v = job.version
        sir_text = self.sir_file(v).read_text(encoding="utf-8", errors="surrogateescape")
        spec_text = self.spec(v).read_text(encoding="utf-8", errors="surrogateescape")
        spec = spec_repairs({v: sir_text}).get((v, job.level))
        for r in job.repairs:
            patched_text = apply_edits(sir_text, [(e["start"], e["end"], e["new"]) for e in edits(r)])
            r["as_spec"] = None if spec is None else patched_text in spec
            self.check_sir(job, r, sir_text, patched_text, spec_text)

    def spec_cell(self, v: int, level: int, job: ReferenceJob, spec: dict) -> str:
        texts = spec.get((v, level))
        if texts is None:
            return "—"
        same = sum(1 for r in job.repairs if r.get("as_spec"))
        return f"{len(texts)} repairs; {same} of ours among them"

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        versions, levels = meta["versions"], meta["levels"]
        sir = {v: self.sir_file(v).read_text(encoding="utf-8", errors="surrogateescape") for v in versions}
        spec = spec_repairs(sir)
        out = header("TCAS through --reference on the SIR files (crepair)", meta, jobs, final) + [
            f"* Options: `crepair.repair(\"sir/versions/vN/tcas.c\", reference=\"sir/original.c\", "
            f"entry=\"alt_sep_test\", init=[\"initialize\"], assume=[the __CPROVER_assume conditions of "
            f"spec/tcas_vN.c], level=L, max_size=S, timeout={meta['timeout']:g}, unwind={meta['unwind']}"
            + (", max_repairs=1" if meta.get("first") else "") + ")` with (L, S) in "
            f"{', '.join(f'({lv}, {LEVEL_MAX_SIZE[lv]})' for lv in levels)}; {meta['jobs']} runs in parallel; "
            f"versions: {'all 41' if versions == ALL_VERSIONS else vs(versions)}",
            "* The same run on the command line: `crepair repair vN/tcas.c --reference original.c --entry "
            "alt_sep_test --init initialize --assume 'High_Confidence>=0 && High_Confidence<=1' ...`",
            f"* Universe check: `bash {self.check_script} PATCHED.c` on the repaired SIR file (no mapping: the "
            "repair is an edit of that file)",
            "* *spec file*: the repairs `tcas_mutation.py` finds on `spec/tcas_vN.c` (mapped onto SIR), and how "
            "many of ours give the same patched SIR text",
            "",
        ]
        for level in levels:
            out += [f"## Level {level} (max_size {LEVEL_MAX_SIZE[level]})", ""]
            out += level_table(jobs, level, versions, self.baseline, checks=False,
                               extra=("spec file (tcas-mutation)",
                                      lambda v, job, level=level: self.spec_cell(v, level, job, spec))) + [""]
        if any(v in NOTES for v in versions):
            out += ["† " + "; ".join(NOTES[v] for v in versions if v in NOTES) + ".", ""]
        ours = {lv: {v for v in versions if (v, lv) in jobs and jobs[(v, lv)].repairs} for lv in levels}
        theirs = {lv: {v for v in versions if spec.get((v, lv))} for lv in levels}
        out += ["## Totals", ""]
        rows = []
        for lv in levels:
            rows.append([str(lv), str(len(theirs[lv])), str(len(ours[lv])), str(len(ours[lv] & theirs[lv])),
                         vs(ours[lv] - theirs[lv]) or "none", vs(theirs[lv] - ours[lv]) or "none"])
        u_ours, u_theirs = set().union(*ours.values()), set().union(*theirs.values())
        rows.append(["union", str(len(u_theirs)), str(len(u_ours)), str(len(u_ours & u_theirs)),
                     vs(u_ours - u_theirs) or "none", vs(u_theirs - u_ours) or "none"])
        out += table(["level", "versions repaired by the spec files", "by --reference", "both",
                      "only --reference", "only the spec files"], rows) + [""]
        all_repairs = [(f"v{j.version}, level {j.level}", j.version, r)
                       for _, j in sorted(jobs.items()) for r in j.repairs]
        n_pass, failing, unmapped, errors = by_universe_result(all_repairs)
        same = sum(1 for _, _, r in all_repairs if r.get("as_spec"))
        out += [f"* {EXPLAIN[v]}" for v in sorted(EXPLAIN) if v in versions] + [""]
        out += [f"Universe: {len(all_repairs)} repairs in total; {n_pass} pass all tests, {len(failing)} FAIL, "
                f"{len(errors)} could not be checked. {same} of them are repairs the spec files give too.", ""]
        out += universe_sections(failing, unmapped, errors, lambda v, r: [], undecided=" (too few arguments)")
        errs = sorted((j for j in jobs.values() if j.error), key=lambda j: (j.level, j.version))
        if errs:
            out += ["## Run errors", ""] + [f"* v{j.version}, level {j.level}: {j.error}" for j in errs] + [""]
        return "\n".join(out)

    def progress(self, job: ReferenceJob) -> str:
        first = job.repairs[0]["seconds"] if job.repairs else None
        return (f"v{job.version} L{job.level}: {outcome_text(job) or '?'}, repairs {repairs_cell(job)}, "
                f"first {fmt_s(first)} s, wall {job.wall:.0f} s | "
                + ("; ".join(universe_cell(r) for r in job.repairs) or "-") + (f" | {job.error}" if job.error else ""))


if __name__ == "__main__":
    sys.exit(main(TcasReference(__file__), __doc__))
