#!/usr/bin/env python3
"""Benchmark: C-Pack-IPAs submissions as ``--reference`` problems (the bounded engine on real student programs).

For each selected program (issue 28's acceptance):

* every model solution ``reference_implementations/labNN/exMM.c``, checked
  against itself (``crepair verify MODEL.c --reference MODEL.c``): does the
  bounded engine take it (a verdict, not a rejection);
* submissions ``incorrect/year-Y/labNN/exMM/*.c`` of years 1–3:
  ``crepair verify SUB.c --reference MODEL.c --timeout T`` — taken or
  rejected (the first construct it does not model, at file:line:col), and
  decided (verified, violated or bound-too-small) or unknown.

By default ``--per-assignment 1`` submission per (year, lab, exercise),
drawn with ``--seed``; ``--per-assignment 0`` takes every submission.

Usage (from the repository root)::

    python bench/cpack_reference.py [--per-assignment 1] [--seed 1] [--timeout 60] [--jobs 1]

The markdown report goes to stdout and to ``bench/results/cpack-reference.md``
(raw data to ``bench/results/cpack-reference.json``); progress to stderr.
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import fmt_s, header, table  # noqa: E402
from harness.records import emit, emit_verify  # noqa: E402
from harness.runner import Benchmark, Job, main  # noqa: E402

_WHERE = re.compile(r"^\S+?:\d+:\d+: ")
DECIDED = ("verified", "violated", "bound-too-small")


def selection(root: Path, per_assignment: int, seed: int) -> list[tuple[str, Path, Path]]:
    """``(name, program, reference)`` of the programs to check, under ``root``
    (the C-Pack-IPAs folder): every model solution against itself (name
    ``model/labNN/exMM``), then ``per_assignment`` submissions (0: all) per
    (year, lab, exercise) that has a model solution, drawn with
    ``random.Random(seed)`` in the sorted order of the assignments, each
    against its model (name ``year-Y/labNN/exMM/FILE.c``)."""
    models = sorted((root / "reference_implementations").glob("lab*/ex*.c"))
    out = [(f"model/{m.parent.name}/{m.stem}", m, m) for m in models]
    groups: dict[tuple, list[Path]] = defaultdict(list)
    for sub in sorted(root.glob("incorrect/year-*/lab*/ex*/*.c")):
        groups[sub.parts[-4:-1]].append(sub)
    rng = random.Random(seed)
    for (year, lab, ex), subs in sorted(groups.items()):
        model = root / "reference_implementations" / lab / f"{ex}.c"
        if not model.is_file():
            continue
        chosen = subs if per_assignment <= 0 else sorted(rng.sample(subs, min(per_assignment, len(subs))))
        out += [(f"{year}/{lab}/{ex}/{s.name}", s, model) for s in chosen]
    return out


@dataclass
class CPackJob(Job):
    SETUP = ("timeout", "unwind")
    PARAMS = ("program", "reference", "timeout", "unwind")

    name: str  # model/labNN/exMM or year-Y/labNN/exMM/FILE
    program: str = ""
    reference: str = ""
    timeout: float = 60
    unwind: int = 8
    result: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        return (self.name.replace("/", "--"),)  # the key names the worker's scratch files

    @property
    def model(self) -> bool:
        return self.name.startswith("model/")


class CPackReference(Benchmark):
    name = "cpack-reference"
    holding = "benchmarks/c-pack-ipas"
    job = CPackJob

    @property
    def root(self) -> Path:
        return self.shared / "benchmarks" / "c-pack-ipas"

    def missing(self) -> str:
        return "" if (self.root / "reference_implementations").is_dir() else f"{self.root} not found"

    def add_options(self, ap) -> None:
        ap.set_defaults(timeout=60.0)
        ap.add_argument("--per-assignment", type=int, default=1,
                        help="submissions per (year, lab, exercise), 0 for all (default 1)")
        ap.add_argument("--seed", type=int, default=1, help="the draw of the submissions (default 1)")
        ap.add_argument("--unwind", type=int, default=8, help="unwinding bound (default 8)")
        ap.add_argument("--only", default="", metavar="REGEX",
                        help="run only the programs whose name (model/lab03/ex02, year-1/lab03/ex02/SUB.c) "
                             "this regular expression matches (re.search); with --resume --rerun the others "
                             "keep their results")
        ap.add_argument("--again", default="", metavar="OUTCOME",
                        help="with --resume --rerun: run again only the programs whose recorded outcome is OUTCOME "
                             "(e.g. unknown, after a change to the engine)")

    def jobs(self) -> dict:
        a = self.args
        jobs = [CPackJob(name=name, program=str(program), reference=str(reference), timeout=a.timeout,
                         unwind=a.unwind) for name, program, reference in selection(self.root, a.per_assignment,
                                                                                    a.seed)]
        if a.only:
            jobs = [j for j in jobs if re.search(a.only, j.name)]
        if a.again:
            if not (a.resume and a.rerun):  # alone, the new results file would hold only the runs selected again
                sys.exit("--again needs --resume --rerun")
            recorded = Path(a.output).with_suffix(".json")
            _, old = self.load(recorded) if recorded.exists() else ({}, {})
            again = {j.name for j in old.values() if j.outcome == a.again}
            jobs = [j for j in jobs if j.name in again]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"unwind": self.args.unwind, "per_assignment": self.args.per_assignment, "seed": self.args.seed}

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        emit(fh, {"type": "start", "crepair_file": crepair.__file__})
        emit_verify(fh, t0, lambda: crepair.verify(p["program"], reference=p["reference"], timeout=p["timeout"],
                                                   unwind=p["unwind"]))

    def after(self, job: Job, others: list[dict]) -> None:
        for rec in others:
            if rec["type"] == "result":
                job.result = {k: v for k, v in rec.items() if k != "type"}

    def progress(self, job: Job) -> str:
        return f"{job.name}: {job.result.get('rejected') or job.error or job.outcome} ({job.wall:.0f} s)"

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        out = header("C-Pack-IPAs through verify --reference (crepair)", meta, jobs, final)
        out += [f"* Timeout {meta['timeout']:g} s per run, unwinding bound {meta.get('unwind')}; "
                f"{meta.get('per_assignment')} submission(s) per (year, lab, exercise), seed {meta.get('seed')} "
                f"(0: all); {meta['jobs']} runs in parallel",
                "* `crepair verify SUB.c --reference MODEL.c`: the same stdin for both programs (a bounded stream "
                "of tokens), equal outputs and return values of `main`; a model solution is checked against itself",
                "* *taken*: a verdict (not a rejection naming an unsupported construct); *decided*: verified, "
                "violated or bound-too-small (not unknown) within the time limit", ""]
        runs = sorted(jobs.values(), key=lambda j: j.name)
        done = [j for j in runs if j.status in ("done", "error")]
        out += ["## Totals", ""]
        rows = []
        for label, pick in (("model solutions", lambda j: j.model),
                            *((f"submissions {y}", lambda j, y=y: j.name.startswith(y + "/"))
                              for y in ("year-1", "year-2", "year-3")),
                            ("all submissions", lambda j: not j.model)):
            group = [j for j in done if pick(j)]
            taken = [j for j in group if j.outcome and j.outcome != "rejected" and not j.error]
            decided = [j for j in taken if j.outcome in DECIDED]
            walls = sorted(j.wall for j in decided)
            rows.append([label, str(len(group)), f"{len(taken)} ({_pct(len(taken), len(group))})",
                         f"{len(decided)} ({_pct(len(decided), len(group))})",
                         ", ".join(f"{k} {v}" for k, v in sorted(Counter(j.outcome for j in taken).items())),
                         fmt_s(walls[len(walls) // 2] if walls else None)])
        out += table(["programs", "run", "taken", "decided", "verdicts", "median wall of the decided (s)"], rows)
        rejected = Counter(_WHERE.sub("", j.result.get("rejected", "").splitlines()[0])
                           for j in done if j.outcome == "rejected")
        if rejected:
            out += ["", "## First rejecting construct", ""]
            out += table(["construct", "programs"], [[c, str(n)] for c, n in rejected.most_common()])
        out += ["", "## Per program", ""]
        rows = []
        for j in runs:
            detail = j.result.get("rejected") or j.result.get("violated") or j.reason or ""
            if 0 < (j.result.get("found_within") or 0) < (meta.get("unwind") or 8):
                detail += f"; found within bound {j.result['found_within']}"
            rows.append([j.name, j.error or j.outcome or j.status, str(detail),
                         fmt_s(j.wall if j.status != "pending" else None)])
        out += table(["program", "outcome", "detail", "wall (s)"], rows)
        return "\n".join(out)


def _pct(n: int, total: int) -> str:
    return f"{100 * n / total:.0f} %" if total else "—"


if __name__ == "__main__":
    sys.exit(main(CPackReference(__file__), __doc__))
