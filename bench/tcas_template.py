#!/usr/bin/env python3
"""Benchmark: crepair's template repair on the 41 faulty TCAS versions (SIR).

Runs ``crepair.repair(spec, scheme="template", ...)`` (model-based diagnosis
and linear templates, Könighofer & Bloem, FMCAD'11) and
``crepair.localize(spec, method="diagnosis", ...)`` on
``SHARED/benchmarks/tcas/spec/tcas_vN.c``, checks every repair on the SIR
program and its test universe (``tcas_universe``), then compares with the
mutation scheme's results in ``bench/results/tcas-mutation.json``
(``template_report``).

Usage (from the repository root)::

    python bench/tcas_template.py [--versions 2,7,...] [--timeout 600] [--jobs 2] [--resume]

The markdown report goes to stdout and to ``bench/results/tcas-template.md``
(raw data to ``bench/results/tcas-template.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.markdown import fmt_s, outcome_text  # noqa: E402
from harness.records import emit, search_records  # noqa: E402
from harness.runner import Job, main  # noqa: E402
from harness.setup import REPO  # noqa: E402
from tcas_universe import TcasBench, universe_cell  # noqa: E402
from template_report import PAPER, report  # noqa: E402


@dataclass
class TemplateJob(Job):
    SETUP = ("timeout", "unwind", "max_size", "components", "max_refinements", "repairs_per_diagnosis",
             "max_diagnoses", "inputs")
    PARAMS = ("path",) + SETUP

    version: int
    timeout: float
    unwind: int
    max_size: int
    components: list
    max_refinements: int
    repairs_per_diagnosis: int
    max_diagnoses: int
    inputs: int
    path: str = ""
    localize: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        return (self.version,)


def load_mutation(path: Path) -> dict:
    """The mutation results: ``{"levels": {1: versions, 2: versions}, "run":
    versions run, "commit", "date", "timeout", "path"}`` or ``{"error"}``."""
    if not path.exists():
        return {"error": f"{path} not found"}
    data = json.loads(path.read_text(encoding="utf-8"))
    levels: dict[int, set[int]] = {}
    for r in data.get("runs", []):
        levels.setdefault(r["level"], set()).update([r["version"]] if r.get("repairs") else [])
    meta = data.get("meta", {})
    return {"levels": levels, "run": {r["version"] for r in data.get("runs", []) if r.get("status") in ("done", "error")},
            "commit": meta.get("commit", "?"), "date": meta.get("date", "?"), "timeout": meta.get("timeout"),
            "path": str(path)}


class TcasTemplate(TcasBench):
    name = "tcas-template"
    job = TemplateJob
    modules = TcasBench.modules + ("template_report.py",)

    def add_options(self, ap) -> None:
        super().add_options(ap)
        ap.add_argument("--max-size", type=int, default=2, help="largest diagnosis (default 2)")
        ap.add_argument("--components", default="rhs,cond", help="diagnosis components (default rhs,cond)")
        ap.add_argument("--max-refinements", type=int, default=10)
        ap.add_argument("--repairs-per-diagnosis", type=int, default=5)
        ap.add_argument("--max-diagnoses", type=int, default=10)
        ap.add_argument("--inputs", type=int, default=2, help="failing inputs for the diagnosis (default 2)")
        ap.add_argument("--order", choices=("priority", "numeric"), default="priority",
                        help="priority (default): the FMCAD'11 versions first, then versions the mutation scheme "
                        "did not repair, then the rest; numeric: v1, v2, ...")
        ap.add_argument("--mutation-json", default=str(REPO / "bench" / "results" / "tcas-mutation.json"),
                        help="mutation-scheme results to compare with (default bench/results/tcas-mutation.json)")

    @property
    def mutation(self) -> dict:
        if not hasattr(self, "_mutation"):
            self._mutation = load_mutation(Path(self.args.mutation_json))
        return self._mutation

    def options(self) -> dict:
        a = self.args
        components = sorted({c.strip() for c in a.components.split(",") if c.strip()})
        if not components or any(c not in ("rhs", "cond") for c in components):
            raise SystemExit("--components: a comma-separated subset of rhs,cond")
        return {"timeout": a.timeout, "unwind": a.unwind, "max_size": a.max_size, "components": components,
                "max_refinements": a.max_refinements, "repairs_per_diagnosis": a.repairs_per_diagnosis,
                "max_diagnoses": a.max_diagnoses, "inputs": a.inputs}

    def jobs(self) -> dict:
        versions = self.args.versions
        if self.args.order == "priority":  # the paper's versions, then those mutation did not repair
            mut = set().union(*self.mutation.get("levels", {}).values())
            versions = sorted(versions, key=lambda v: (v not in PAPER, v in mut, v))
        jobs = [TemplateJob(v, **self.options(), path=str(self.spec(v))) for v in versions]
        return {j.key: j for j in jobs}

    def meta(self) -> dict:
        return {"versions": self.args.versions, "options": {**self.options(), "jobs": self.args.jobs}}

    @staticmethod
    def work(p: dict, fh, t0: float) -> None:
        import crepair

        options = dict(max_size=p["max_size"], timeout=p["timeout"], unwind=p["unwind"], entry="main",
                       components=set(p["components"]), inputs=p["inputs"], max_diagnoses=p["max_diagnoses"])
        run = crepair.repair(p["path"], scheme="template", max_refinements=p["max_refinements"],
                             repairs_per_diagnosis=p["repairs_per_diagnosis"], **options)
        search_records(fh, t0, run)
        # the diagnoses on their own (time to diagnose); an error is recorded in the localize record
        t1 = time.monotonic()
        try:
            loc = crepair.localize(p["path"], method="diagnosis", **options)
            emit(fh, {"type": "localize", "outcome": loc.outcome.value, "seconds": loc.seconds,
                      "diagnoses": [{"size": d.size, "seconds": d.seconds, "components": [
                          {"line": c.span.line, "start": c.span.start, "end": c.span.end, "text": c.text,
                           "kind": c.kind.value, "function": c.function} for c in d.components]}
                          for d in loc.diagnoses],
                      "wall_seconds": time.monotonic() - t1})
        except BaseException as exc:  # noqa: BLE001
            emit(fh, {"type": "localize", "error": f"{type(exc).__name__}: {exc}", "wall_seconds": time.monotonic() - t1})

    def after(self, job: TemplateJob, others: list[dict]) -> None:
        job.localize = next((rec for rec in others if rec["type"] == "localize"), {})
        if job.error and job.repairs and not job.outcome:
            job.outcome = "repaired (partial)"
        super().after(job, others)

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        return report(self, jobs, meta, final)

    def progress(self, job: TemplateJob) -> str:
        st = job.stats
        first = job.repairs[0]["seconds"] if job.repairs else None
        ds = job.localize.get("diagnoses")
        return (f"v{job.version}: {outcome_text(job) or '?'}, diagnoses {len(ds) if ds is not None else '-'}, tried "
                f"{st.get('diagnoses', '-')}, repairs {len(job.repairs)}, first {fmt_s(first)} s, total "
                f"{fmt_s(st.get('seconds'))} s, checks {st.get('checks', '-')}, wall {job.wall:.0f} s | "
                + ("; ".join(universe_cell(r, why=False) for r in job.repairs) or "-"))


if __name__ == "__main__":
    sys.exit(main(TcasTemplate(__file__), __doc__))
