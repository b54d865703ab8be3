#!/usr/bin/env python3
"""Benchmark: the bounded engine (``crepair verify``) on every suite, with z3, Bitwuzla and the portfolio.

Issue 28, item 5.  For each problem and each solver S, one fresh process at a
time (``bench/solvers.py``'s ``run``)::

    crepair verify FILE [--reference REF] [--unwind B] [--entry F] --timeout T --json --solver S

and its outcome: a verdict (verified, violated, bound-too-small, unknown; a
*hard stop*, the command line's last resort 1 s past ``--timeout``, is an
unknown), *rejected* (the JSON error of kind bad-input: the first construct
crepair does not model, at file:line:col), *error* (any other error) or
*killed* (60 s past the time limit); the solver that decided the violation
check (the JSON's ``decided_by``) and the wall seconds of the process,
start-up included.  Suites:

* ``codeflaws``: the 106 Codeflaws defects as ``BUGGY.c --reference
  ACCEPTED.c --unwind 8`` (``bench/codeflaws_reference.py``; the gzipped
  files of 133-A and 276-B unpacked into a scratch folder);
* ``cpack``: C-Pack-IPAs (``bench/cpack_reference.py``'s ``selection``):
  every model solution against itself, and one submission per (year, lab,
  exercise), drawn with ``--seed``, against its model; ``--unwind 8``;
* ``tcas``: the 41 spec files at bound 8 (as ``bench/solvers.py``);
* ``loops``: ``loops/*.c`` at bound 3 (as ``bench/solvers.py``, whose
  ``bubblesort.c`` at bounds 8 and 12 is in ``scale`` here);
* ``scale``: the straight-line programs of ``bench/scale.py`` (its generator,
  seed and bound 1) of ``--scale-lines`` lines, each in its passing variant
  (verified) and its failing one (violated), and ``loops/bubblesort.c`` at
  bounds 8 and 12.

Decided verdicts must agree (bound-too-small is a verdict of its own, as in
``bench/solvers.py``): a disagreement is listed in the report and makes the
script exit 1.

The runs are kept in the JSON next to ``--output`` (written after every
problem); ``--resume`` keeps them and runs only the missing ones (and, with
``--retry-errors``, those that ended in an error); ``--render`` runs nothing
and rewrites the report from the JSON.

Usage (from the repository root)::

    python bench/engine.py [--suites codeflaws,cpack,tcas,loops,scale] [--solvers z3,bitwuzla,portfolio]
                           [--timeout 60] [--only REGEX] [--resume [--retry-errors]] [--render]
                           [--output bench/results/engine.md]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import solvers  # noqa: E402
from codeflaws_checks import load_defects  # noqa: E402
from cpack_reference import selection  # noqa: E402
from harness.markdown import md_escape, table  # noqa: E402
from harness.runner import write_atomic  # noqa: E402
from harness.setup import machine, software, utc_now, working_tree  # noqa: E402
from scale import UNWIND, generate  # noqa: E402

SUITES = ("codeflaws", "cpack", "tcas", "loops", "scale")
SOLVERS = ("z3", "bitwuzla", "portfolio")
BOUND = 8  # the unwinding bound of the reference problems (codeflaws_reference.py and cpack_reference.py)
BUBBLESORT = ("bubblesort B=8", "bubblesort B=12")  # bench/solvers.py's loops problems that go to the scale suite
FAILED = ("error", "killed")

Problem = tuple[str, str, list[str]]  # (suite, name, the arguments of crepair verify before --timeout)


# ------------------------------------------------------------------ problems
def problems(suites: list[str], scratch: Path, seed: int, lines: list[int]) -> list[Problem]:
    """The problems of ``suites``, in the order of :data:`SUITES`; files that
    must be written (generated programs, gunzipped defects) go to ``scratch``."""
    shared = solvers.SHARED
    out: list[Problem] = []
    for suite in [s for s in SUITES if s in suites]:
        if suite == "codeflaws" and (shared / "codeflaws" / "defects.tsv").is_file():
            for d in load_defects(shared / "codeflaws"):
                files = d.files()
                buggy, accepted = (_plain(files[n], scratch / d.name) for n in (d.buggy, d.accepted))
                out.append((suite, d.name, [str(buggy), "--reference", str(accepted), "--unwind", str(BOUND)]))
        elif suite == "cpack":
            for name, program, model in selection(shared / "c-pack-ipas", 1, seed):
                out.append((suite, name, [str(program), "--reference", str(model), "--unwind", str(BOUND)]))
        elif suite in ("tcas", "loops"):
            out += [p for p in solvers.problems([suite]) if p[1] not in BUBBLESORT]
        elif suite == "scale":
            for n in lines:
                for failing in (False, True):
                    path = scratch / f"straight_{n}{'_failing' if failing else ''}.c"
                    path.write_text(generate("straight", n, failing), encoding="utf-8")
                    out.append((suite, f"straight {n}" + (" failing" if failing else ""),
                                [str(path), "--unwind", str(UNWIND["straight"])]))
            out += [(suite, name, a) for _, name, a in solvers.problems(["loops"]) if name in BUBBLESORT]
    if not out:
        print(f"warning: no problems in {', '.join(suites)} (benchmarks looked for in {shared})", file=sys.stderr)
    return out


def _plain(path: Path, folder: Path) -> Path:
    """``path``, or for ``X.gz`` its text unpacked into ``folder/X``."""
    if not path.name.endswith(".gz"):
        return path
    folder.mkdir(parents=True, exist_ok=True)
    plain = folder / path.name[:-3]
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    return plain


# ------------------------------------------------------------------ runs
def run(arguments: list[str], solver: str, timeout: float) -> dict:
    """One run (:func:`solvers.run`): its record, with an error of kind
    bad-input turned into the outcome ``rejected`` (reason: the message)."""
    r = solvers.run(arguments, solver, timeout)
    if r["outcome"] == "error" and r.get("kind") == "bad-input":
        r = {**r, "outcome": "rejected", "reason": r.get("message", "")}
    return r


def hard_stop(r: dict) -> bool:
    return r["outcome"] == "error" and solvers.HARD_STOP in r.get("reason", "")


def errored(r: dict) -> bool:
    """Neither a verdict nor a rejection (a hard stop is an unknown: a verdict)."""
    return r["outcome"] in FAILED and not hard_stop(r)


def natural(name: str) -> list:
    """A sort key that orders the numbers in ``name`` by value (tcas_v2 before tcas_v10)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def disagreements(runs: dict) -> list[str]:
    """``suite problem: solver verdict, ...`` of each problem whose decided verdicts differ."""
    out = []
    for suite in [s for s in SUITES if s in runs]:
        for name in sorted(runs[suite], key=natural):
            results = runs[suite][name]
            if solvers.disagreement(results):
                out.append(f"{suite} {name}: " + ", ".join(f"{s} {r['outcome']}" for s, r in sorted(results.items())))
    return out


# ------------------------------------------------------------------ report
def summary(runs: dict, shown: list[str]) -> list[str]:
    """Per suite and solver: problems, taken, decided, rejected, errors, wall seconds."""
    rows = []
    for suite in [s for s in SUITES if s in runs]:
        for s in shown:
            rs = [res[s] for res in runs[suite].values() if s in res]
            if not rs:
                continue
            rejected = sum(r["outcome"] == "rejected" for r in rs)
            errors = sum(errored(r) for r in rs)
            decided = [r["wall"] for r in rs if r["outcome"] in solvers.DECIDED]
            rows.append([suite, s, str(len(rs)), str(len(rs) - rejected - errors), str(len(decided)), str(rejected),
                         str(errors), f"{statistics.median(decided):.1f}" if decided else "—",
                         f"{sum(r['wall'] for r in rs):.0f}"])
    return table(["suite", "solver", "problems", "taken", "decided", "rejected", "errors",
                  "median wall of the decided (s)", "total wall (s)"], rows)


def note(results: dict) -> str:
    """What the runs of a problem said besides their verdicts: a rejection's
    construct, an error, why a run is unknown (prefixed by the solvers when
    not all said it)."""
    said: dict[str, list[str]] = {}
    for s, r in results.items():
        if r["outcome"] not in solvers.DECIDED and r.get("reason") and not hard_stop(r):
            said.setdefault(str(r["reason"]).splitlines()[0][:160], []).append(s)
    return "; ".join(text if len(who) == len(results) else f"{', '.join(who)}: {text}" for text, who in said.items())


def per_problem(problems_of_suite: dict, shown: list[str]) -> list[str]:
    rows = []
    for name in sorted(problems_of_suite, key=natural):
        results = problems_of_suite[name]
        cells = [name]
        for s in shown:
            r = results.get(s)
            cells += [solvers.verdict_cell(r), f"{r['wall']:.1f}"] if r else ["not run", "—"]
        rows.append(cells + ["**NO**" if solvers.disagreement(results) else "yes", note(results)])
    return table(["problem"] + [c for s in shown for c in (f"{s} verdict", f"{s} s")] + ["agree", "note"], rows)


SUITE_TEXT = {
    "codeflaws": f"`BUGGY.c --reference ACCEPTED.c --unwind {BOUND}`, the 106 defects",
    "cpack": f"`SUB.c --reference MODEL.c --unwind {BOUND}`: each model solution against itself (`model/...`) and "
             "one submission per (year, lab, exercise), drawn with the seed above",
    "tcas": "`tcas/spec/tcas_vN.c --unwind 8`",
    "loops": "`loops/*.c --unwind 3` (`--entry sum` for sum and sum2)",
    "scale": "generated straight-line programs (`bench/scale.py`, `--unwind 1`), the passing variant (its assertion "
             "holds) and the failing one; `loops/bubblesort.c` at bounds 8 and 12",
}


def render(stored: dict) -> tuple[str, int]:
    """The markdown report of the stored runs, and the number of disagreements."""
    runs = stored["runs"]
    every = [r for suite in runs.values() for results in suite.values() for r in results.values()]
    present = {s for suite in runs.values() for results in suite.values() for s in results}
    shown = [s for s in SOLVERS if s in present] + sorted(present - set(SOLVERS))
    bad = disagreements(runs)
    out = ["# The bounded engine: crepair verify with z3, Bitwuzla and the portfolio", "",
           "* Invocations (one run at a time; the portfolio runs both solvers at once; other work may have run "
           "beside; seconds are wall-clock):"]
    for inv in stored["invocations"]:
        out.append(f"  * {inv['date']}, commit {_short(inv['commit'])}: `{inv['command']}` ({inv['minutes']} min, "
                   f"{inv['runs']} runs; load average (1 min) at the start {inv['load'][0]}, at the end "
                   f"{inv['load'][1]}); machine: {inv['machine']}; {inv['software']}")
    commits = Counter(r.get("commit", "?") for r in every)
    if len(commits) > 1:
        out.append("* **The runs used several commits**: " + ", ".join(f"{c} ({n} runs)" for c, n in commits.items()))
    timeouts = sorted({r.get("timeout", 0) for r in every})
    out += [f"* Each run: `crepair verify ... --timeout {'/'.join(f'{t:g}' for t in timeouts)} --json --solver S` in "
            "a fresh process; seconds: its wall time, start-up included; *(name)* after a verdict: the solver that "
            "decided the violation check; *hard stop*: the command line's last resort 1 s past --timeout (z3 did "
            "not stop), an unknown; *rejected*: an error of kind bad-input (the construct in the note); *taken*: "
            "a verdict (unknown included), not a rejection nor an error; *decided*: verified, violated or "
            "bound-too-small",
            f"* C-Pack-IPAs seed: {stored.get('seed', 1)}",
            f"* Disagreements between decided verdicts: {len(bad)}"]
    out += [f"  * {md_escape(line)}" for line in bad]
    out += ["", "## Summary", ""] + summary(runs, shown)
    for suite in [s for s in SUITES if s in runs]:
        out += ["", f"## {suite}", "", SUITE_TEXT[suite], ""] + per_problem(runs[suite], shown)
    return "\n".join(out) + "\n", len(bad)


# ------------------------------------------------------------------ driver
def _software() -> str:
    try:
        return f"{software()}, bitwuzla {version('bitwuzla')}"
    except Exception:  # noqa: BLE001
        return software()


def _short(commit: str) -> str:
    """A commit as :func:`working_tree` describes it, shortened: 12 digits, and a mark for uncommitted src/."""
    return commit[:12] + (" + uncommitted src/" if "uncommitted" in commit else "")


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def _kept(r: dict | None, timeout: float, retry_errors: bool) -> bool:
    """Whether ``--resume`` keeps the stored run ``r`` (same time limit; not an error to retry)."""
    return r is not None and r.get("timeout") == timeout and not (retry_errors and errored(r))


def _save(output: Path, stored: dict) -> int:
    text, bad = render(stored)
    output.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(output.with_suffix(".json"), json.dumps(stored, indent=1) + "\n")
    write_atomic(output, text)
    return bad


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suites", default=",".join(SUITES), help="comma-separated (default: all)")
    ap.add_argument("--solvers", default=",".join(SOLVERS), help="comma-separated (default: z3,bitwuzla,portfolio)")
    ap.add_argument("--timeout", type=float, default=60.0, help="--timeout of each run, seconds (default: 60)")
    ap.add_argument("--only", default="", metavar="REGEX", help="only the problems whose name it matches (re.search)")
    ap.add_argument("--seed", type=int, default=1, help="the draw of the C-Pack-IPAs submissions (default: 1)")
    ap.add_argument("--scale-lines", default="1000,5000", help="sizes of the generated programs (default: 1000,5000)")
    ap.add_argument("--output", type=Path, default=solvers.REPO / "bench" / "results" / "engine.md",
                    help="markdown report (default: bench/results/engine.md); the runs in the .json next to it")
    ap.add_argument("--resume", action="store_true", help="keep the stored runs; run only those missing (or stored "
                    "with another --timeout)")
    ap.add_argument("--retry-errors", action="store_true", help="with --resume: run again those that ended in an error")
    ap.add_argument("--render", action="store_true", help="run nothing: rewrite the report from the stored runs")
    args = ap.parse_args(argv)
    chosen = args.solvers.split(",")
    unknown = sorted(set(args.suites.split(",")) - set(SUITES)) + sorted(set(chosen) - set(SOLVERS) - {"sat"})
    if unknown:
        ap.error(f"unknown suite or solver: {', '.join(unknown)}")
    results = args.output.with_suffix(".json")
    stored = {"invocations": [], "seed": args.seed, "runs": {}}
    if (args.resume or args.render) and results.exists():
        stored = json.loads(results.read_text(encoding="utf-8"))
        if args.resume and stored.get("seed", args.seed) != args.seed:
            ap.error(f"--seed {args.seed}: the stored runs drew the C-Pack-IPAs submissions with {stored['seed']}")
    elif args.render:
        ap.error(f"--render: {results} not found")
    elif results.exists():
        print(f"warning: {results} is replaced (keep its runs with --resume)", file=sys.stderr)
    if args.render:
        bad = _save(args.output, stored)
        print(f"wrote {args.output} from {results}; disagreements: {bad}", file=sys.stderr)
        return 1 if bad else 0
    started = time.time()
    invocation = {"command": "python bench/engine.py " + shlex.join(argv), "commit": working_tree(),
                  "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)), "minutes": 0.0, "runs": 0,
                  "load": [_load(), _load()], "machine": machine(), "software": _software()}
    stored["invocations"].append(invocation)
    scratch = Path(tempfile.mkdtemp(prefix="crepair-engine-"))
    try:
        todo = [p for p in problems(args.suites.split(","), scratch, args.seed,
                                    [int(n) for n in args.scale_lines.split(",") if n])
                if re.search(args.only, p[1])]
        for suite, name, arguments in todo:
            row = stored["runs"].setdefault(suite, {}).setdefault(name, {})
            ran = []
            for s in chosen:
                if args.resume and _kept(row.get(s), args.timeout, args.retry_errors):
                    continue
                row[s] = {**run(arguments, s, args.timeout), "timeout": args.timeout,
                          "commit": _short(invocation["commit"]), "date": utc_now()}
                ran.append(s)
            if not ran:
                continue
            invocation["runs"] += len(ran)
            invocation["minutes"] = round((time.time() - started) / 60, 1)
            invocation["load"][1] = _load()
            _save(args.output, stored)
            cells = [f"{s}: {solvers.verdict_cell(row[s])} {row[s]['wall']:.1f} s" for s in ran]
            print(f"{suite} {name}: " + "; ".join(cells), file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    invocation["minutes"] = round((time.time() - started) / 60, 1)
    invocation["load"][1] = _load()
    if not invocation["runs"]:  # everything selected was stored already
        stored["invocations"].remove(invocation)
    bad = _save(args.output, stored)
    print(f"{invocation['runs']} runs; wrote {args.output}; disagreements between decided verdicts: {bad}",
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
