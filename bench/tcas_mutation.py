#!/usr/bin/env python3
"""Benchmark: crepair's mutation repair on the 41 faulty TCAS versions (SIR).

Runs ``crepair.repair`` on ``SHARED/benchmarks/tcas/spec/tcas_vN.c`` at
level 1 (max_size 2) and level 2 (max_size 1), then checks every repair
against the real SIR program: each mutation is mapped onto
``SHARED/benchmarks/tcas/sir/versions/vN/tcas.c`` and the patched program
is run on the SIR test universe (1608 tests) by ``check_universe.sh``.

Usage (from the repository root)::

    python bench/tcas_mutation.py [--shared ../shared] [--timeout 600]
                                  [--versions 1,2,...] [--jobs 2]

The markdown report goes to stdout and to ``bench/results/tcas-mutation.md``
(raw data to ``bench/results/tcas-mutation.json``); progress goes to stderr.
See bench/README.md.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402  (bench/common.py)
    BenchBase,
    add_output_option,
    benchmark_parser,
    done_record,
    emit as _emit,
    fmt_s as _fmt_s,
    md_escape as _md_escape,
    outcome_text,
    output_paths,
    pin_crepair,
    read_records,
    record_worker,
    repair_record,
    run_benchmark,
    run_worker,
    setup_meta,
    stamp_meta,
    start_record,
    take_records,
    write_results,
)
ALL_VERSIONS = list(range(1, 42))
LEVEL_MAX_SIZE = {1: 2, 2: 1}  # level -> max_size
ASSUME_MARKER = "//<ASSUME_CORRECT>"
UNIVERSE_SIZE = 1608

# Published AllRepair results on TCAS (Rothenberg & Grumberg, FM'16).
PUBLISHED_L1 = {1, 3, 6, 9, 10, 12, 20, 25, 31, 32, 39}
PUBLISHED = {1: PUBLISHED_L1, 2: PUBLISHED_L1 | {16, 17, 28, 35, 36, 40, 41}}

NOTES = {
    38: "v38 declares `Positive_RA_Alt_Thresh[3]` but writes/reads index 3 "
    "(array out of bounds, undefined behaviour), so its universe result is not meaningful; "
    "the spec's `AllRepair_correct_*` functions use the same undersized global array, so the "
    "spec cannot see the fault",
}


# ---------------------------------------------------------------------------
# Worker: one crepair run, written as JSON lines (so a killed worker still
# leaves the repairs it found).
# ---------------------------------------------------------------------------


DONE_FIELDS = ("repairs", "checks", "unknown_checks", "covered", "space", "locations", "seconds", "complete")


def worker_main(spec: str, level: int, max_size: int, timeout: float, unwind: int, out: str) -> int:
    def search(fh, t0: float) -> None:
        import crepair

        run = crepair.repair(spec, level=level, max_size=max_size, timeout=timeout, unwind=unwind, entry="main")
        _emit(fh, start_record(t0, run, crepair.__file__))
        for n, r in enumerate(run, 1):
            _emit(fh, repair_record(n, r))
        _emit(fh, done_record(run.stats, DONE_FIELDS, t0))

    return record_worker(out, search)


# ---------------------------------------------------------------------------
# Mapping spec mutations onto the SIR program.
# ---------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?[uUlLfF]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|.)
    """,
    re.S | re.X,
)


@dataclass(frozen=True)
class Tok:
    text: str
    start: int
    end: int
    line: int  # 1-based


def tokenize(text: str, limit: int | None = None) -> list[Tok]:
    """C tokens of ``text[:limit]`` without whitespace and comments."""
    text = text if limit is None else text[:limit]
    out: list[Tok] = []
    line = 1
    pos = 0
    for m in _TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if m.lastgroup not in ("ws", "comment"):
            out.append(Tok(m.group(), m.start(), m.end(), line))
    return out


class _Lines:
    """Tokens grouped by physical line (only lines that have tokens)."""

    def __init__(self, toks: list[Tok]):
        self.toks = toks
        self.keys: list[tuple[str, ...]] = []
        self.numbers: list[int] = []
        self.members: list[list[int]] = []  # token indices per line
        for i, t in enumerate(toks):
            if not self.numbers or self.numbers[-1] != t.line:
                self.numbers.append(t.line)
                self.members.append([])
                self.keys.append(())
            self.members[-1].append(i)
            self.keys[-1] = self.keys[-1] + (t.text,)
        self.index_of_line = {n: k for k, n in enumerate(self.numbers)}


class Mapper:
    """Maps offsets of the spec file onto the SIR file of the same version."""

    def __init__(self, spec_text: str, sir_text: str):
        cut = spec_text.find(ASSUME_MARKER)
        self.spec_text = spec_text
        self.sir_text = sir_text
        self.spec_toks = tokenize(spec_text, cut if cut >= 0 else None)
        self.sir_toks = tokenize(sir_text)
        self.spec_lines = _Lines(self.spec_toks)
        self.sir_lines = _Lines(self.sir_toks)
        self._opcodes = None

    # global token alignment (fallback)
    def _align(self, p: int) -> tuple[int | None, str]:
        if self._opcodes is None:
            sm = difflib.SequenceMatcher(
                None, [t.text for t in self.spec_toks], [t.text for t in self.sir_toks], autojunk=False
            )
            self._opcodes = sm.get_opcodes()
        for tag, i1, i2, j1, j2 in self._opcodes:
            if i1 <= p < i2:
                if tag == "equal":
                    return j1 + (p - i1), ""
                spec_chunk = " ".join(t.text for t in self.spec_toks[i1:i2])
                sir_chunk = " ".join(t.text for t in self.sir_toks[j1:j2]) or "(nothing)"
                what = "spec-only text" if tag == "delete" else "text that differs from SIR"
                return None, f"token `{self.spec_toks[p].text}` is in {what} `{spec_chunk}` (SIR: `{sir_chunk}`)"
        return None, "token outside the aligned region"

    def _context_score(self, spec_li: int, sir_li: int, width: int = 6) -> int:
        score = 0
        for d in range(1, width + 1):
            for s, q in ((spec_li - d, sir_li - d), (spec_li + d, sir_li + d)):
                if 0 <= s < len(self.spec_lines.keys) and 0 <= q < len(self.sir_lines.keys):
                    score += self.spec_lines.keys[s] == self.sir_lines.keys[q]
        return score

    def map(self, start: int, end: int, old_text: str) -> dict:
        """Where the spec token at ``start:end`` is in SIR.

        Returns ``{"ok": True, "start", "end", "sir_line", "spec_line", "method"}``
        or ``{"ok": False, "reason"}``.
        """
        p = next((i for i, t in enumerate(self.spec_toks) if t.start == start), None)
        if p is None or self.spec_toks[p].end != end:
            return {"ok": False, "reason": f"mutation {start}:{end} `{old_text}` is not a single C token of the spec"}
        tok = self.spec_toks[p]
        spec_li = self.spec_lines.index_of_line[tok.line]
        key = self.spec_lines.keys[spec_li]
        pos_in_line = self.spec_lines.members[spec_li].index(p)
        candidates = [q for q, k in enumerate(self.sir_lines.keys) if k == key]
        q_tok = None
        method = ""
        if candidates:
            if len(candidates) > 1:
                scores = {q: self._context_score(spec_li, q) for q in candidates}
                best = max(scores.values())
                tied = [q for q in candidates if scores[q] == best]
            else:
                tied = candidates
            if len(tied) == 1:
                q_tok = self.sir_lines.members[tied[0]][pos_in_line]
                method = "line" if len(candidates) == 1 else "line+context"
            else:
                j, _ = self._align(p)
                if j is not None and any(j in self.sir_lines.members[q] for q in tied):
                    q_tok, method = j, "line+alignment"
                else:
                    lines = ", ".join(str(self.sir_lines.numbers[q]) for q in tied)
                    return {"ok": False, "reason": f"spec line {tok.line} matches SIR lines {lines} equally well"}
        else:
            j, why = self._align(p)
            if j is None:
                return {"ok": False, "reason": f"spec line {tok.line} has no equal SIR line and {why}"}
            q_tok, method = j, "token alignment"
        sir_tok = self.sir_toks[q_tok]
        if sir_tok.text != old_text:
            return {
                "ok": False,
                "reason": f"SIR token at line {sir_tok.line} is `{sir_tok.text}`, not `{old_text}`",
            }
        return {
            "ok": True,
            "start": sir_tok.start,
            "end": sir_tok.end,
            "sir_line": sir_tok.line,
            "spec_line": tok.line,
            "method": method,
        }

    def map_span(self, start: int, end: int, old_text: str) -> dict:
        """Where the spec text at ``start:end`` (one or more whole tokens,
        e.g. the whole expression a template repair replaces) is in SIR.

        A single token is mapped by :meth:`map` (so mutation repairs map as
        before).  For several tokens, the first one is mapped by :meth:`map`
        and the SIR tokens that follow it must be the same as the spec's
        (comments and whitespace do not matter).  If they are not, the
        tokens are mapped through the token alignment of the two files:
        every token of the range must be in an equal block, except for
        spec-only tokens at either end of the range, which are dropped
        (e.g. `(a < b) && 1` in the spec is `(a < b)` in SIR), and the SIR
        tokens between the first and last mapped token must all be mapped.
        Returns the same dict as :meth:`map`; for several tokens also with
        ``sir_text`` (the SIR text replaced) and, when spec-only tokens were
        dropped, ``dropped``.
        """
        idx = [i for i, t in enumerate(self.spec_toks) if start <= t.start and t.end <= end]
        if not idx or self.spec_toks[idx[0]].start != start or self.spec_toks[idx[-1]].end != end:
            return {"ok": False, "reason": f"text {start}:{end} `{old_text}` is not a sequence of whole C tokens of the spec"}
        if len(idx) == 1:
            return self.map(start, end, old_text)
        p, q = idx[0], idx[-1]
        spec_words = [t.text for t in self.spec_toks[p:q + 1]]
        first = self.spec_toks[p]
        m = self.map(first.start, first.end, first.text)
        if m["ok"]:
            j = next(i for i, t in enumerate(self.sir_toks) if t.start == m["start"])
            if [t.text for t in self.sir_toks[j:j + len(spec_words)]] == spec_words:
                last = self.sir_toks[j + len(spec_words) - 1]
                return {
                    "ok": True, "start": m["start"], "end": last.end, "sir_line": m["sir_line"],
                    "spec_line": m["spec_line"], "method": m["method"] + " (expression)",
                    "sir_text": self.sir_text[m["start"]:last.end],
                }
        # token alignment of the whole files
        self._align(p)  # computes the opcodes
        mapped: list[tuple[int, int]] = []  # (spec index, SIR index)
        unmapped: list[int] = []
        for k in range(p, q + 1):
            j, _ = self._align(k)
            if j is None:
                unmapped.append(k)
            else:
                mapped.append((k, j))
        if not mapped:
            return {"ok": False, "reason": f"no token of `{old_text}` (spec line {first.line}) is in SIR"}
        ks = [k for k, _ in mapped]
        inner = [k for k in unmapped if ks[0] < k < ks[-1]]
        if inner:
            words = " ".join(self.spec_toks[k].text for k in inner)
            return {"ok": False, "reason": f"`{old_text}` (spec line {first.line}) contains `{words}`, which differs from SIR"}
        for k in unmapped:  # at the ends: must be spec-only text, not text that differs from SIR
            for tag, i1, i2, j1, j2 in self._opcodes:
                if i1 <= k < i2 and tag != "delete":
                    return {"ok": False, "reason": f"`{old_text}` (spec line {first.line}): token `{self.spec_toks[k].text}` "
                            "differs from SIR"}
        js = [j for _, j in mapped]
        if js != list(range(js[0], js[-1] + 1)):
            extra = " ".join(t.text for i, t in enumerate(self.sir_toks[js[0]:js[-1] + 1], js[0]) if i not in js)
            return {"ok": False, "reason": f"`{old_text}` (spec line {first.line}): SIR has extra tokens `{extra}`"}
        s_tok, e_tok = self.sir_toks[js[0]], self.sir_toks[js[-1]]
        out = {
            "ok": True, "start": s_tok.start, "end": e_tok.end, "sir_line": s_tok.line, "spec_line": first.line,
            "method": "token alignment (expression)", "sir_text": self.sir_text[s_tok.start:e_tok.end],
        }
        if unmapped:
            out["dropped"] = " ".join(self.spec_toks[k].text for k in unmapped)
        return out


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for start, end, new in sorted(edits):
        if start < pos:
            raise ValueError("overlapping edits")
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


# ---------------------------------------------------------------------------
# SIR universe
# ---------------------------------------------------------------------------


_COUNTS = re.compile(r"(\d+) passed, (\d+) failed")


def check_universe(script: Path, c_file: Path) -> dict:
    """Run check_universe.sh; ``{"passed", "failed", "ok"}`` or ``{"error"}``."""
    try:
        p = subprocess.run(
            ["bash", str(script), str(c_file)], capture_output=True, text=True, timeout=900
        )
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


def run_universe(binary: Path, universe: list[str], timeout: float = 10) -> list[str]:
    outs = []
    for line in universe:
        try:
            p = subprocess.run(
                [str(binary), *line.split()], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout
            )
            out = p.stdout.decode(errors="replace").replace("\n", " ")
        except subprocess.TimeoutExpired:
            out = "<timeout>"
        outs.append(out)
    return outs


def analyse_failures(patched: Path, sir_dir: Path, spec_text: str, work: Path) -> dict:
    """Run the patched program on the universe ourselves and describe the
    failing tests w.r.t. the spec's assumptions."""
    universe = (sir_dir / "universe").read_text().splitlines()
    expected = (sir_dir / "expected_outputs").read_text().split("\n")[: len(universe)]
    binary = work / "patched.bin"
    p = subprocess.run(["gcc", "-w", "-std=gnu89", "-o", str(binary), str(patched)], capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": "gcc: " + p.stderr.strip()[-300:]}
    outs = run_universe(binary, universe)
    assume = Assumptions(spec_text)
    failing = [i for i, (o, e) in enumerate(zip(outs, expected)) if o != e]
    inside, outside, unknown = [], [], []
    by_conjunct: dict[str, int] = {}
    for i in failing:
        bad = assume.violated(universe[i].split())
        if bad is None:
            unknown.append(i)
        elif bad:
            outside.append(i)
            for c in bad:
                by_conjunct[c] = by_conjunct.get(c, 0) + 1
        else:
            inside.append(i)

    def example(i: int) -> dict:
        bad = assume.violated(universe[i].split())
        return {
            "test": i + 1,
            "input": " ".join(universe[i].split()),
            "expected": expected[i].strip(),
            "got": outs[i].strip(),
            "violates": bad,
        }

    return {
        "failing": len(failing),
        "inside": len(inside),
        "outside": len(outside),
        "undecided": len(unknown),
        "by_conjunct": by_conjunct,
        "example_inside": example(inside[0]) if inside else None,
        "example_outside": example(outside[0]) if outside else None,
        "example_undecided": example(unknown[0]) if unknown else None,
    }


# ---------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------


@dataclass
class Job:
    version: int
    level: int
    max_size: int
    status: str = "pending"  # pending | running | done | error
    outcome: str = ""
    error: str = ""
    repairs: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)
    start: dict = field(default_factory=dict)
    wall: float = 0.0


class Bench(BenchBase):
    def __init__(self, args):
        super().__init__(args, "tcas-bench-")
        self.tcas = self.shared / "benchmarks" / "tcas"
        self.sir = self.tcas / "sir"
        self.script = self.sir / "check_universe.sh"
        self.baseline: dict[int, dict] = {}
        self.baseline_events: dict[int, threading.Event] = {}
        self.have_gcc = shutil.which("gcc") is not None

    def spec(self, v: int) -> Path:
        return self.tcas / "spec" / f"tcas_v{v}.c"

    def sir_file(self, v: int) -> Path:
        return self.sir / "versions" / f"v{v}" / "tcas.c"

    def run_present(self, job: Job) -> Job:
        """:meth:`run_job`, or a FileNotFoundError if the spec or the SIR
        file of the job's version is missing."""
        if not self.spec(job.version).exists() or not self.sir_file(job.version).exists():
            raise FileNotFoundError(f"{self.spec(job.version)} or {self.sir_file(job.version)}")
        return self.run_job(job)

    # -- one (version, level) job ----------------------------------------
    def run_job(self, job: Job) -> Job:
        job.status = "running"
        t0 = time.monotonic()
        out = self.tmp / f"v{job.version}-l{job.level}.jsonl"
        hard = 2 * self.args.timeout + 180
        cmd = [
            sys.executable, str(Path(__file__).resolve()), "--_worker",
            str(self.spec(job.version)), str(job.level), str(job.max_size),
            str(self.args.timeout), str(self.args.unwind), str(out),
        ]
        crash = run_worker(cmd, hard, self.tmp, self.env)
        job.wall = time.monotonic() - t0
        take_records(job, read_records(out), crash, self.crepair_src)
        self.check_job(job)
        return job

    def check_job(self, job: Job) -> None:
        """Check the job's repairs on the SIR universe and make sure the
        baseline of its version is there; after the search, so they do not
        eat its time budget.  A failure is recorded, not raised."""
        try:
            self.check_repairs(job)
        except Exception as exc:  # noqa: BLE001
            job.error = (job.error + "; " if job.error else "") + f"universe check: {type(exc).__name__}: {exc}"
        try:
            self.ensure_baseline(job.version)
        except Exception as exc:  # noqa: BLE001
            self.baseline[job.version] = {"error": f"{type(exc).__name__}: {exc}"}

    def ensure_baseline(self, v: int) -> None:
        with self.lock:
            ev = self.baseline_events.get(v)
            owner = ev is None
            if owner:
                ev = self.baseline_events[v] = threading.Event()
        if not owner:
            ev.wait()
            return
        try:
            if not self.have_gcc:
                self.baseline[v] = {"error": "gcc not found"}
            else:
                self.baseline[v] = check_universe(self.script, self.sir_file(v))
        finally:
            ev.set()

    def check_repairs(self, job: Job) -> None:
        if not job.repairs:
            return
        spec_text = self.spec(job.version).read_text(encoding="utf-8", errors="surrogateescape")
        sir_text = self.sir_file(job.version).read_text(encoding="utf-8", errors="surrogateescape")
        mapper = Mapper(spec_text, sir_text)
        for r in job.repairs:
            edits, maps, reasons = [], [], []
            for c in r["changes"]:
                m = mapper.map_span(c["start"], c["end"], c["old_text"])
                maps.append(m)
                if m["ok"]:
                    edits.append((m["start"], m["end"], c["new_text"]))
                else:
                    reasons.append(m["reason"])
            r["mapping"] = maps
            if reasons:
                r["universe"] = {"unmapped": "; ".join(reasons)}
                continue
            patched_text = apply_edits(sir_text, edits)
            r["sir_diff"] = "".join(
                difflib.unified_diff(
                    sir_text.splitlines(keepends=True),
                    patched_text.splitlines(keepends=True),
                    fromfile=f"a/versions/v{job.version}/tcas.c",
                    tofile=f"b/versions/v{job.version}/tcas.c",
                    n=1,
                )
            )
            if not self.have_gcc:
                r["universe"] = {"error": "gcc not found"}
                continue
            work = self.tmp / f"v{job.version}-l{job.level}-r{r['index']}"
            work.mkdir(parents=True, exist_ok=True)
            patched = work / "tcas.c"
            patched.write_text(patched_text, encoding="utf-8", errors="surrogateescape")
            res = check_universe(self.script, patched)
            r["universe"] = res
            if "error" not in res and not res["ok"]:
                try:
                    r["failures"] = analyse_failures(patched, self.sir, spec_text, work)
                except Exception as exc:  # noqa: BLE001
                    r["failures"] = {"error": f"{type(exc).__name__}: {exc}"}


# ---------------------------------------------------------------------------
# Report
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


def level_table(bench: Bench, jobs: dict, level: int, versions: list[int]) -> list[str]:
    max_size = LEVEL_MAX_SIZE[level]
    head = ["version", "outcome", "repairs", "first repair (s)", "covered size 1 (s)"]
    if max_size >= 2:
        head.append("covered size 2 (s)")
    head += ["SMT checks", "wall (s)", "universe results per repair", "unrepaired SIR version"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for v in versions:
        job = jobs.get((v, level))
        name = f"v{v}" + (" †" if v in NOTES else "")
        base_cell = baseline_cell(bench.baseline.get(v))
        if job is None or job.status in ("pending", "running"):
            row = [name, job.status if job else "not run"] + [""] * (len(head) - 3) + [base_cell]
            lines.append("| " + " | ".join(row) + " |")
            continue
        st = job.stats
        outcome = outcome_text(job)
        cov = st.get("covered", {})
        first = job.repairs[0]["seconds"] if job.repairs else None
        checks = st.get("checks")
        checks_cell = "—" if checks is None else str(checks)
        if st.get("unknown_checks"):
            checks_cell += f" ({st['unknown_checks']} unknown)"
        row = [name, outcome, str(len(job.repairs)), _fmt_s(first), _fmt_s(cov.get("1"))]
        if max_size >= 2:
            row.append(_fmt_s(cov.get("2")))
        univ = "; ".join(universe_cell(r) for r in job.repairs) or "—"
        row += [checks_cell, f"{job.wall:.0f}", univ, base_cell]
        lines.append("| " + " | ".join(_md_escape(c) for c in row) + " |")
    return lines


def _vs(s) -> str:
    return " ".join(f"v{v}" for v in sorted(s)) or "none"


def report(bench: Bench, jobs: dict, meta: dict, final: bool) -> str:
    a = bench.args
    versions = meta["versions"]
    levels = meta["levels"]
    out = ["# TCAS mutation-repair benchmark (crepair)", ""]
    if not final:
        out += ["**PARTIAL RESULTS** — the run was not finished when this file was written.", ""]
    done = sum(1 for j in jobs.values() if j.status in ("done", "error"))
    out += [
        f"* Date: {meta['date']} (finished {meta.get('finished', 'n/a')}; wall time {meta.get('wall', 0) / 60:.1f} min; {done}/{len(jobs)} runs done)",
        f"* crepair commit: {meta['commit']}",
        f"* Machine: {meta['machine']}; {meta['software']}",
        f"* Command: `{meta['command']}`",
        f"* Options: `crepair.repair(spec, level=L, max_size=S, timeout={a.timeout:g}, unwind={a.unwind}, entry=\"main\")` "
        f"with (L, S) in {', '.join(f'({lv}, {LEVEL_MAX_SIZE[lv]})' for lv in levels)}; {a.jobs} runs in parallel "
        f"(one worker process per (version, level)); versions: {'all 41' if versions == ALL_VERSIONS else _vs(versions)}",
        f"* Inputs: `{bench.tcas}/spec/tcas_vN.c`; universe check: `bash {bench.script} PATCHED.c` "
        f"on the SIR version `sir/versions/vN/tcas.c` with each repair's mutations mapped onto it",
        "",
        "Times are seconds since the start of the search (after parsing and encoding), as reported by "
        "crepair: *first repair* is the first verified repair, *covered size k* is when every candidate "
        "of size ≤ k had been explored (— = not reached). *wall* is the whole worker process (parse, "
        "encode, bound check, search). *SMT checks* counts the re-checks of repairs too. The last column "
        "is the faulty SIR program itself on the universe. Universe checks ran after each search, "
        "outside its time budget.",
        "",
    ]
    for level in levels:
        out += [f"## Level {level} (max_size {LEVEL_MAX_SIZE[level]})", ""]
        out += level_table(bench, jobs, level, versions)
        out += [""]
    if any(v in NOTES for v in versions):
        out += ["† " + "; ".join(NOTES[v] for v in versions if v in NOTES) + ".", ""]

    # totals
    repaired = {
        lv: {v for v in versions if (v, lv) in jobs and jobs[(v, lv)].repairs} for lv in levels
    }
    union = set().union(*repaired.values()) if repaired else set()
    out += ["## Totals", ""]
    for lv in levels:
        out.append(f"* Level {lv}: {len(repaired[lv])}/{len(versions)} versions repaired: {_vs(repaired[lv])}")
    out.append(f"* Union: {len(union)}/{len(versions)} versions repaired: {_vs(union)}")
    out += ["", "Comparison with the published AllRepair results (level 1: v1 v3 v6 v9 v10 v12 v20 v25 v31 v32 "
            "v39; level 2 additionally v16 v17 v28 v35 v36 v40 v41)"
            + ("" if versions == ALL_VERSIONS else ", restricted to the versions run") + ":", ""]
    out += ["| level | published | crepair | both | only crepair | only published |", "|---|---|---|---|---|---|"]
    for lv in levels:
        pub = PUBLISHED[lv] & set(versions)
        ours = repaired[lv]
        out.append(
            f"| {lv} | {len(pub)} | {len(ours)} | {len(pub & ours)} | {_vs(ours - pub)} | {_vs(pub - ours)} |"
        )
    pub_union = set().union(*(PUBLISHED[lv] for lv in levels)) & set(versions)
    out.append(
        f"| union | {len(pub_union)} | {len(union)} | {len(pub_union & union)} | {_vs(union - pub_union)} | {_vs(pub_union - union)} |"
    )
    out.append("")

    all_repairs = [(f"v{j.version}, level {j.level}", j.version, r) for key, j in sorted(jobs.items()) for r in j.repairs]
    n_pass, failing, unmapped, errors = by_universe_result(all_repairs)
    out.append(
        f"Universe: {len(all_repairs)} repairs in total; {n_pass} pass all tests, {len(failing)} FAIL, "
        f"{len(unmapped)} unmapped, {len(errors)} could not be checked."
    )
    out.append("")

    out += universe_sections(failing, unmapped, errors, maintainer_note, undecided=" (too few arguments)")
    errs = [j for j in jobs.values() if j.error]
    if errs:
        out += ["## Run errors", ""]
        for j in sorted(errs, key=lambda j: (j.level, j.version)):
            out.append(f"* v{j.version}, level {j.level}: {j.error}")
        out.append("")
    return "\n".join(out)


def to_json(jobs: dict, meta: dict, bench: Bench) -> dict:
    return {
        "meta": meta,
        "baseline": {str(v): b for v, b in bench.baseline.items()},
        "runs": [
            {
                "version": j.version, "level": j.level, "max_size": j.max_size, "status": j.status,
                "outcome": j.outcome, "error": j.error, "wall": j.wall, "start": j.start, "stats": j.stats,
                "repairs": j.repairs,
            }
            for _, j in sorted(jobs.items())
        ],
    }


def progress_line(job: Job) -> str:
    st = job.stats
    cov = st.get("covered", {})
    first = job.repairs[0]["seconds"] if job.repairs else None
    univ = "; ".join(universe_cell(r) for r in job.repairs) or "-"
    status = job.outcome or "?"
    if job.error:
        status += f" error: {job.error}"
    return (
        f"v{job.version} L{job.level}: {status}, repairs {len(job.repairs)}, first {_fmt_s(first)} s, "
        + ", ".join(f"covered{k} {_fmt_s(cov.get(str(k)))} s" for k in range(1, job.max_size + 1))
        + f", checks {st.get('checks', '-')}, wall {job.wall:.0f} s | {univ}"
    )


def tcas_parser(doc: str) -> argparse.ArgumentParser:
    """The argument parser of a TCAS bench script (:func:`common.benchmark_parser`)
    with ``--unwind`` and ``--versions``."""
    ap = benchmark_parser(doc, "benchmarks/tcas")
    ap.add_argument("--unwind", type=int, default=8, help="unwinding bound (default 8)")
    ap.add_argument("--versions", type=parse_versions, default=ALL_VERSIONS, help="e.g. 1,2,10-12 (default: 1-41)")
    return ap


def parse_versions(s: str) -> list[int]:
    out: set[int] = set()
    for part in s.split(","):
        part = part.strip().lstrip("v")
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    bad = [v for v in out if v not in ALL_VERSIONS]
    if bad:
        raise argparse.ArgumentTypeError(f"no such TCAS version: {bad}")
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_worker":
        spec, level, max_size, timeout, unwind, out = argv[1:7]
        return worker_main(spec, int(level), int(max_size), float(timeout), int(unwind), out)

    ap = tcas_parser(__doc__)
    ap.add_argument("--levels", type=lambda s: sorted({int(x) for x in s.split(",")}), default=[1, 2],
                    help="mutation levels to run (default 1,2)")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (default 2)")
    ap.add_argument("--rev", default="HEAD",
                    help="run the crepair of this git commit, exported with git archive (default HEAD)")
    ap.add_argument("--live", action="store_true",
                    help="run the installed crepair (the working tree, with any uncommitted edits) instead of --rev")
    add_output_option(ap, "tcas-mutation")
    args = ap.parse_args(argv)
    if any(lv not in LEVEL_MAX_SIZE for lv in args.levels):
        ap.error("levels must be 1 and/or 2")

    bench = Bench(args)
    if not (bench.shared / "benchmarks").is_dir() or not (bench.tcas / "spec").is_dir():
        print(f"skipping: {bench.shared / 'benchmarks' / 'tcas'} not found (use --shared DIR)", file=sys.stderr)
        shutil.rmtree(bench.tmp, ignore_errors=True)
        return 0
    missing = [v for v in args.versions if not bench.spec(v).exists() or not bench.sir_file(v).exists()]
    if missing:
        print(f"warning: files missing for {_vs(missing)}; recorded as errors", file=sys.stderr)
    if not bench.have_gcc:
        print("warning: gcc not found, universe checks skipped", file=sys.stderr)

    out_md, _ = output_paths(args.output)
    t_start = time.monotonic()
    commit = pin_crepair(bench, args, note_head=False)
    if commit is None:
        return 2
    meta = {
        **setup_meta(commit, "tcas_mutation.py", argv),
        "versions": args.versions,
        "levels": args.levels,
        "timeout": args.timeout,
        "unwind": args.unwind,
        "jobs": args.jobs,
    }
    jobs: dict[tuple[int, int], Job] = {}
    for v in args.versions:
        for lv in args.levels:
            jobs[(v, lv)] = Job(v, lv, LEVEL_MAX_SIZE[lv])

    def write(final: bool) -> str:
        stamp_meta(meta, t_start, final)
        text = report(bench, jobs, meta, final)
        write_results(out_md, text, to_json(jobs, meta, bench))
        return text

    print(f"running {len(jobs)} crepair runs with {args.jobs} in parallel; report: {out_md}", file=sys.stderr)
    return run_benchmark(bench, list(jobs.values()), bench.run_present, progress_line, write, jobs, args.jobs,
                         reset_running=False)


if __name__ == "__main__":
    sys.exit(main())
