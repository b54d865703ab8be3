"""TCAS on the SIR test universe: the part the TCAS benchmarks share.

:class:`TcasBench` is a :class:`harness.runner.Benchmark` over the 41 spec
files ``benchmarks/tcas/spec/tcas_vN.c`` that, after each run, maps every
repair onto the SIR program (:mod:`tcas_sir`) and runs the patched program
on the 1608 tests of the universe with ``sir/check_universe.sh``; a
failing repair is analysed test by test against the spec's
``__CPROVER_assume`` conditions.  The unrepaired SIR program of each
version is the baseline.  The helpers at the end write the report sections
on universe results.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import threading
from pathlib import Path

from harness.markdown import fmt_s, outcome_text, repairs_cell, table
from harness.records import edits
from harness.runner import Benchmark, Job
from tcas_sir import Mapper, apply_edits

ALL_VERSIONS = list(range(1, 42))
LEVEL_MAX_SIZE = {1: 2, 2: 1}  # mutation level -> max_size of the TCAS mutation tables
NOTES = {
    38: "v38 declares `Positive_RA_Alt_Thresh[3]` but writes/reads index 3 "
    "(array out of bounds, undefined behaviour), so its universe result is not meaningful; "
    "the spec's `AllRepair_correct_*` functions use the same undersized global array, so the "
    "spec's assertion cannot see the fault (crepair's array-bounds check does)",
}
_COUNTS = re.compile(r"(\d+) passed, (\d+) failed")


def check_universe(script: Path, c_file: Path) -> dict:
    """Run check_universe.sh; ``{"passed", "failed", "ok"}`` or ``{"error"}``."""
    try:
        p = subprocess.run(["bash", str(script), str(c_file)], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return {"error": "check_universe.sh timed out"}
    m = _COUNTS.search(p.stdout)
    if not m:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        return {"error": f"check_universe.sh exit {p.returncode}: " + " | ".join(tail)}
    passed, failed = int(m.group(1)), int(m.group(2))
    return {"passed": passed, "failed": failed, "ok": p.returncode == 0 and failed == 0}


class Assumptions:
    """The input assumptions of a spec's ``main``: which argv each input is
    read from, and the ``__CPROVER_assume`` conjuncts."""

    _INPUT = re.compile(r"^\s*(\w+)\s*=\s*nondet_\w+\(\)\s*;\s*//\s*=\s*atoi\(argv\[(\d+)\]\)", re.M)
    _ASSUME = re.compile(r"^\s*__CPROVER_assume\((.*)\)\s*;", re.M)

    def __init__(self, spec_text: str):
        self.argv = {name: int(k) for name, k in self._INPUT.findall(spec_text)}
        self.conjuncts: list[str] = []
        for expr in self._ASSUME.findall(spec_text):
            self.conjuncts += [c.strip() for c in expr.split("&&")]

    @staticmethod
    def _py(expr: str) -> str:
        expr = expr.replace("&&", " and ").replace("||", " or ")
        return re.sub(r"!(?!=)", " not ", expr)

    @staticmethod
    def _atoi(s: str) -> int:
        m = re.match(r"\s*([-+]?\d+)", s)
        return int(m.group(1)) if m else 0

    def violated(self, args: list[str]) -> list[str] | None:
        """Conjuncts the universe input violates (None: cannot tell)."""
        if not self.argv or len(args) < max(self.argv.values()):
            return None
        env = {name: self._atoi(args[k - 1]) for name, k in self.argv.items()}
        bad = []
        for c in self.conjuncts:
            try:
                if not eval(self._py(c), {"__builtins__": {}}, dict(env)):  # noqa: S307 - spec text
                    bad.append(c)
            except Exception:  # noqa: BLE001
                return None
        return bad


def run_test(binary: Path, args: list[str]) -> str:
    try:
        p = subprocess.run([str(binary), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
        return p.stdout.decode(errors="replace").replace("\n", " ")
    except subprocess.TimeoutExpired:
        return "<timeout>"


def analyse_failures(patched: Path, sir_dir: Path, spec_text: str, work: Path) -> dict:
    """Run the patched program on the universe ourselves and sort the
    failing tests by the spec's assumptions: inside, outside (with the
    conjuncts violated) or undecided, with an example of each."""
    universe = [line.split() for line in (sir_dir / "universe").read_text().splitlines()]
    expected = (sir_dir / "expected_outputs").read_text().split("\n")[: len(universe)]
    binary = work / "patched.bin"
    p = subprocess.run(["gcc", "-w", "-std=gnu89", "-o", str(binary), str(patched)], capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": "gcc: " + p.stderr.strip()[-300:]}
    outs = [run_test(binary, args) for args in universe]
    assume = Assumptions(spec_text)
    kinds: dict[str, list[int]] = {"inside": [], "outside": [], "undecided": []}
    by_conjunct: dict[str, int] = {}
    for i in (i for i, (o, e) in enumerate(zip(outs, expected)) if o != e):
        bad = assume.violated(universe[i])
        kinds["undecided" if bad is None else "outside" if bad else "inside"].append(i)
        for c in bad or []:
            by_conjunct[c] = by_conjunct.get(c, 0) + 1

    def example(tests: list[int]) -> dict | None:
        return tests and {"test": tests[0] + 1, "input": " ".join(universe[tests[0]]),
                          "expected": expected[tests[0]].strip(), "got": outs[tests[0]].strip(),
                          "violates": assume.violated(universe[tests[0]])} or None

    return {"failing": sum(map(len, kinds.values())), **{k: len(v) for k, v in kinds.items()},
            "by_conjunct": by_conjunct, **{f"example_{k}": example(v) for k, v in kinds.items()}}


def parse_versions(s: str) -> list[int]:
    """``1,2,10-12`` as a sorted list of versions."""
    out: set[int] = set()
    for part in s.split(","):
        part = part.strip().lstrip("v")
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        elif part:
            out.add(int(part))
    bad = sorted(out - set(ALL_VERSIONS))
    if bad:
        raise argparse.ArgumentTypeError(f"no such TCAS version: {bad}")
    return sorted(out)


class TcasBench(Benchmark):
    """A benchmark over the TCAS spec files whose repairs are checked on the
    SIR universe after each run (outside the run's time budget)."""

    holding = "benchmarks/tcas"
    modules = ("tcas_sir.py", "tcas_universe.py")

    def __init__(self, script: str):
        super().__init__(script)
        self.baseline: dict[int, dict] = {}
        self._baseline_locks: dict[int, threading.Lock] = {}
        self.have_gcc = shutil.which("gcc") is not None

    def add_options(self, ap: argparse.ArgumentParser) -> None:
        ap.add_argument("--unwind", type=int, default=8, help="unwinding bound (default 8)")
        ap.add_argument("--versions", type=parse_versions, default=ALL_VERSIONS, help="e.g. 1,2,10-12 (default 1-41)")

    @property
    def tcas(self) -> Path:
        return self.shared / "benchmarks" / "tcas"

    @property
    def check_script(self) -> Path:
        return self.tcas / "sir" / "check_universe.sh"

    def spec(self, v: int) -> Path:
        return self.tcas / "spec" / f"tcas_v{v}.c"

    def sir_file(self, v: int) -> Path:
        return self.tcas / "sir" / "versions" / f"v{v}" / "tcas.c"

    def missing(self) -> str:
        return "" if (self.tcas / "spec").is_dir() else f"{self.tcas} not found"

    def extra_json(self) -> dict:
        return {"baseline": {str(v): b for v, b in sorted(self.baseline.items())}}

    def load_extra(self, data: dict) -> None:
        self.baseline.update({int(v): b for v, b in data.get("baseline", {}).items()})

    def after(self, job: Job, others: list[dict]) -> None:
        """Check the job's repairs on the SIR universe and make sure the
        baseline of its version is there; a failure is recorded, not raised."""
        try:
            self.check_repairs(job)
        except Exception as exc:  # noqa: BLE001
            job.error = (job.error + "; " if job.error else "") + f"universe check: {type(exc).__name__}: {exc}"
        try:
            self.ensure_baseline(job.version)
        except Exception as exc:  # noqa: BLE001
            self.baseline[job.version] = {"error": f"{type(exc).__name__}: {exc}"}

    def ensure_baseline(self, v: int) -> None:
        """The unrepaired SIR program of version ``v`` on the universe, once."""
        with self.lock:
            lock = self._baseline_locks.setdefault(v, threading.Lock())
        with lock:
            if v not in self.baseline:
                self.baseline[v] = (check_universe(self.check_script, self.sir_file(v)) if self.have_gcc
                                    else {"error": "gcc not found"})

    def check_repairs(self, job: Job) -> None:
        """Map each repair's edits onto SIR (``mapping``, ``sir_diff``) and
        check it (``universe``; ``failures`` when it fails)."""
        if not job.repairs:
            return
        v = job.version
        spec_text = self.spec(v).read_text(encoding="utf-8", errors="surrogateescape")
        sir_text = self.sir_file(v).read_text(encoding="utf-8", errors="surrogateescape")
        mapper = Mapper(spec_text, sir_text)
        for r in job.repairs:
            maps = [mapper.map_span(e["start"], e["end"], e["old"]) for e in edits(r)]
            r["mapping"] = maps
            reasons = [m["reason"] for m in maps if not m["ok"]]
            if reasons:
                r["universe"] = {"unmapped": "; ".join(reasons)}
                continue
            patched_text = apply_edits(sir_text, [(m["start"], m["end"], e["new"]) for m, e in zip(maps, edits(r))])
            self.check_sir(job, r, sir_text, patched_text, spec_text)

    def check_sir(self, job: Job, r: dict, sir_text: str, patched_text: str, spec_text: str) -> None:
        """Record repair ``r``'s patched SIR file of ``job``'s version: its
        diff (``sir_diff``), its universe result (``universe``) and, when it
        fails, why (``failures``)."""
        name = f"versions/v{job.version}/tcas.c"
        r["sir_diff"] = "".join(difflib.unified_diff(
            sir_text.splitlines(keepends=True), patched_text.splitlines(keepends=True),
            fromfile=f"a/{name}", tofile=f"b/{name}", n=1))
        if not self.have_gcc:
            r["universe"] = {"error": "gcc not found"}
            return
        work = self.tmp / ("-".join(map(str, job.key)) + f"-r{r['index']}")
        work.mkdir(parents=True, exist_ok=True)
        patched = work / "tcas.c"
        patched.write_text(patched_text, encoding="utf-8", errors="surrogateescape")
        r["universe"] = check_universe(self.check_script, patched)
        if "error" not in r["universe"] and not r["universe"]["ok"]:
            try:
                r["failures"] = analyse_failures(patched, self.tcas / "sir", spec_text, work)
            except Exception as exc:  # noqa: BLE001
                r["failures"] = {"error": f"{type(exc).__name__}: {exc}"}


# ---------------------------------------------------------------------------
# Report sections
# ---------------------------------------------------------------------------


def universe_cell(r: dict, why: bool = True) -> str:
    """A repair's universe result, e.g. ``r2 pass 1608/1608``; with ``why``,
    also the reason why it is unmapped or its check failed."""
    u = r.get("universe")
    tag = f"r{r['index']}"
    if u is None:
        return f"{tag} not checked"
    if "unmapped" in u:
        return f"{tag} unmapped ({u['unmapped']})" if why else f"{tag} unmapped"
    if "error" in u:
        return f"{tag} error ({u['error']})" if why else f"{tag} error"
    total = u["passed"] + u["failed"]
    return f"{tag} {'pass' if u['ok'] else 'FAIL'} {u['passed']}/{total}"


def baseline_cell(base: dict | None) -> str:
    """The unrepaired SIR program of a version on the universe
    (``Bench.baseline``), as a table cell."""
    if base is None:
        return "—"
    if "error" in base:
        return f"error ({base['error']})"
    return f"{'pass' if base['ok'] else 'fail'} {base['passed']}/{base['passed'] + base['failed']}"


def failure_lines(r: dict, undecided: str = "") -> list[str]:
    """Report lines on a repair ``r`` that fails the universe check: its diff
    on the spec and on SIR, and the failing tests w.r.t. the spec's
    assumptions (``r["failures"]``, see :func:`analyse_failures`) with an
    example of each kind; ``undecided`` follows the count of undecided
    tests."""
    out = ["Repair (spec file):", "", "```diff", r["diff"].rstrip("\n"), "```", ""]
    if r.get("sir_diff"):
        out += ["Mapped onto the SIR program:", "", "```diff", r["sir_diff"].rstrip("\n"), "```", ""]
    f = r.get("failures") or {}
    if "error" in f:
        out += [f"Failing-test analysis: error ({f['error']})", ""]
    elif f:
        conj = ", ".join(f"`{c}` {n}" for c, n in sorted(f["by_conjunct"].items(), key=lambda x: -x[1]))
        out.append(
            f"Failing tests: {f['failing']}; {f['outside']} violate the spec's `__CPROVER_assume` "
            f"conditions, {f['inside']} satisfy them"
            + (f", {f['undecided']} undecided{undecided}" if f["undecided"] else "")
            + "."
            + (f" Violated conditions (tests): {conj}." if conj else "")
        )
        for label, key in (("inside the assumptions", "example_inside"), ("outside the assumptions", "example_outside"),
                           ("undecided", "example_undecided")):
            ex = f.get(key)
            if ex:
                viol = f" — violates {', '.join(f'`{c}`' for c in ex['violates'])}" if ex["violates"] else ""
                out.append(
                    f"* Example {label}: test {ex['test']}, input `{ex['input']}`: expected `{ex['expected']}`, "
                    f"patched program printed `{ex['got']}`{viol}"
                )
        out.append("")
    return out


def by_universe_result(repairs: list[tuple[str, int, dict]]) -> tuple[int, list, list, list]:
    """Sort ``(label, version, repair)`` items by the repair's universe
    result: the number of repairs that pass, and the items that fail, that
    could not be mapped onto SIR, and whose check failed to run."""
    n_pass = sum(1 for _, _, r in repairs if r.get("universe", {}).get("ok"))
    failing = [x for x in repairs if "passed" in x[2].get("universe", {}) and not x[2]["universe"]["ok"]]
    unmapped = [x for x in repairs if "unmapped" in x[2].get("universe", {})]
    errors = [x for x in repairs if "error" in x[2].get("universe", {})]
    return n_pass, failing, unmapped, errors


def universe_sections(failing: list, unmapped: list, errors: list, explain, undecided: str = "") -> list[str]:
    """The report sections on the repairs that fail the universe check
    (:func:`failure_lines`, with ``undecided``, then the lines of
    ``explain(version, repair)``), that could not be mapped onto SIR, and
    whose check failed to run.  The items are those of
    :func:`by_universe_result`; a repair is named "LABEL, rN"."""
    out = ["## Repairs that fail the universe check", ""]
    if not failing:
        out += ["None.", ""]
    for label, v, r in failing:
        u = r["universe"]
        note = f" († {NOTES[v]})" if v in NOTES else ""
        out += [f"### {label}, r{r['index']}: FAIL {u['passed']}/{u['passed'] + u['failed']}{note}", ""]
        out += failure_lines(r, undecided)
        out += explain(v, r)
    if unmapped:
        out += ["## Repairs that could not be mapped onto the SIR program", ""]
        for label, _, r in unmapped:
            out += [f"### {label}, r{r['index']}", "", f"Reason: {r['universe']['unmapped']}", "",
                    "```diff", r["diff"].rstrip("\n"), "```", ""]
    if errors:
        out += ["## Repairs whose universe check failed to run", ""]
        out += [f"* {label}, r{r['index']}: {r['universe']['error']}" for label, _, r in errors] + [""]
    return out




def level_table(jobs: dict, level: int, versions: list[int], baseline: dict, *, checks: bool = True,
                extra: tuple[str, object] | None = None) -> list[str]:
    """The table of one mutation level: a row per version (``jobs`` by
    ``(version, level)``) with the outcome, repairs, first repair and
    covered sizes (s), the SMT checks (if ``checks``), wall time, universe
    result per repair, then ``extra`` = (heading, cell(version, job)) if
    given, and the unrepaired SIR version's result (``baseline``)."""
    sizes = range(1, LEVEL_MAX_SIZE[level] + 1)
    head = (["version", "outcome", "repairs", "first repair (s)"] + [f"covered size {k} (s)" for k in sizes]
            + (["SMT checks"] if checks else []) + ["wall (s)", "universe results per repair"]
            + ([extra[0]] if extra else []) + ["unrepaired SIR version"])
    rows = []
    for v in versions:
        job = jobs.get((v, level))
        name = f"v{v}" + (" †" if v in NOTES else "")
        base = baseline_cell(baseline.get(v))
        if job is None or job.status in ("pending", "running"):
            rows.append([name, job.status if job else "not run"] + [""] * (len(head) - 3) + [base])
            continue
        st = job.stats
        cells = [name, outcome_text(job), repairs_cell(job), fmt_s(job.repairs[0]["seconds"] if job.repairs else None)]
        cells += [fmt_s(st.get("covered", {}).get(str(k))) for k in sizes]
        if checks:
            count = "—" if st.get("checks") is None else str(st["checks"])
            cells.append(count + (f" ({st['unknown_checks']} unknown)" if st.get("unknown_checks") else ""))
        cells += [f"{job.wall:.0f}", "; ".join(universe_cell(r) for r in job.repairs) or "—"]
        cells += [extra[1](v, job)] if extra else []
        rows.append(cells + [base])
    return table(head, rows)
