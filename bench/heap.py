"""Wolverine2's fault-injection experiment (Verma & Roy, §7.1) on our heap programs.

For each program of bench/heap/programs.json (a correct heap program and
its function under test), the correct program's run under gdb gives the
specification (states at each call's entry, every loop head and exit:
``--states-from --checkpoints F,loops``); ``crepair inject`` makes N buggy
versions per class ⟨1,0⟩ ⟨1,1⟩ ⟨2,0⟩ ⟨2,1⟩ (⟨x,y⟩: x mutations, y deleted
statements; seed = class and program number); each version is repaired with
Algorithm 2's localization on and off (insertion slots = y).  Reported per
class: versions, repaired (on / off), repair time median and max (on / off,
seconds, including the gdb re-check), widenings, the localization speed-up
(median of off/on over versions repaired both ways), and whether Algorithm
2's suspicious set ever missed an injected mutation (the injector's
record).  RQ4: Algorithm 2's set size against the rank of the faulty
location under Ochiai and Tarantula, the calls of ``main`` being the tests
(a call passes when it reaches every specified state).

    python bench/heap.py [-n 10] [--jobs 1] [--timeout 60] [--programs b01,b02] [--resume]

``--programs`` runs those programs in the order given (prefixes), the
others not; ``--resume`` keeps the runs of the output's JSON (each run
records the engine's commit) and runs only the (program, class) jobs it
lacks.  CREPAIR_BENCH_COMMIT names the engine's commit when the script
runs from an exported tree (git archive).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "src"))

from crepair.frontend import load_program  # noqa: E402
from crepair.heap.build import build_function  # noqa: E402
from crepair.heap.execute import check_against  # noqa: E402
from crepair.heap.inject import inject  # noqa: E402
from crepair.heap.localize import suspicious  # noqa: E402
from crepair.heap.states import Spec  # noqa: E402
from crepair.records import RepairOutcome  # noqa: E402
from crepair.heap.reference import reference_spec  # noqa: E402
from crepair.schemes.heap import HeapOptions, HeapScheme  # noqa: E402

CLASSES = [(1, 0), (1, 1), (2, 0), (2, 1)]
PROGRAMS = ROOT / "heap" / "programs"


def _repair(program, function: str, spec: Spec, slots: int, localization: bool, timeout: float,
            rechecks: dict) -> dict:
    t = time.monotonic()
    scheme = HeapScheme(program, HeapOptions(function, states="-", insert_slots=slots, localization=localization,
                                             timeout=timeout), spec=spec, rechecks=rechecks)
    reps = list(scheme.repairs())
    st = scheme.stats
    return {"outcome": st.outcome.value, "wall": round(time.monotonic() - t, 3),
            "seconds": round(st.repair_seconds + st.localize_seconds, 3), "widenings": st.widenings,
            "tau": list(st.tau), "rejected": st.rejected, "suspicious": st.suspicious, "locations": st.locations,
            "repair": [c.after for c in reps[0].changes] if reps else None}


def _spectrum(fn, spec: Spec, faulty: set[int], run) -> dict:
    """Ochiai and Tarantula ranks (1-based, ties counted pessimistically)
    of the best-ranked faulty location, calls as tests (``run``: the buggy
    version's recorded run)."""
    from crepair.heap.localize import _Forward

    cover, verdict = [], []
    for k, trace in enumerate(spec.traces):
        fwd = _Forward(fn, trace)
        fwd.run()
        ran = {w.index for kind, w, _ in fwd.steps if kind == "stmt"}
        ran |= {i.index for i in fn.instrs if i.cond is not None and any(
            kind == "stmt" and w.span.start > i.span.start for kind, w, _ in fwd.steps)}
        cover.append(ran)
        one = Spec(spec.function, (trace,))
        got = Spec(spec.function, (run.spec.traces[k],) if k < len(run.spec.traces) else ((),))
        verdict.append(not check_against(one, type(run)(got, run.crashed, run.error)))
    failed = sum(1 for v in verdict if not v)
    passed = len(verdict) - failed
    out = {}
    for name in ("ochiai", "tarantula"):
        scores = {}
        for ins in fn.instrs:
            ef = sum(1 for c, v in zip(cover, verdict) if ins.index in c and not v)
            ep = sum(1 for c, v in zip(cover, verdict) if ins.index in c and v)
            if name == "ochiai":
                scores[ins.index] = ef / math.sqrt(failed * (ef + ep)) if failed and ef + ep else 0.0
            else:
                f = ef / failed if failed else 0.0
                p = ep / passed if passed else 0.0
                scores[ins.index] = f / (f + p) if f + p else 0.0
        best = max((scores[i] for i in faulty), default=0.0)
        out[name] = sum(1 for s in scores.values() if s >= best)
    return out


def job(params: dict) -> list[dict]:
    """All versions of one program and class."""
    src = PROGRAMS / params["file"]
    x, y = params["cls"]
    out = []
    with tempfile.TemporaryDirectory(prefix="heap-bench-") as tmp:
        for h in PROGRAMS.glob("*.h"):
            shutil.copy(h, tmp)
        program = load_program(src, real_c=True)
        fn = build_function(program, params["function"])
        spec = reference_spec(program, fn, str(src), True)
        versions = inject(program, fn, spec, x, y, params["n"], params["seed"])
        for k, v in enumerate(versions, 1):
            path = Path(tmp) / f"{src.stem}_v{k}.c"
            path.write_text(v.text)
            rec = {"program": src.stem, "class": [x, y], "version": k, **v.as_json()}
            bprog = load_program(path, real_c=True)
            bfn = build_function(bprog, params["function"])
            found = suspicious(bfn, spec)
            faulty = set(v.faulty_locations)
            rec["loc_missed"] = sorted(faulty - found)
            rec["loc_missed_effective"] = sorted(
                loc for loc in rec["loc_missed"] if any(v.effective(program, fn, spec, k) for k, at in
                                                        enumerate(v.mutation_locations) if at == loc))
            rec["loc_size"], rec["locations"] = len(found), len(bfn.instrs)
            if params.get("localize_only"):
                out.append(rec)
                continue
            if faulty:
                rec["spectrum"] = _spectrum(bfn, spec, faulty, v.run)
            rechecks: dict = {}
            rec["on"] = _repair(bprog, params["function"], spec, y, True, params["timeout"], rechecks)
            rec["off"] = _repair(bprog, params["function"], spec, y, False, params["timeout"], rechecks)
            out.append(rec)
    return out


def _percent(part: int, whole: int) -> str:
    """``part/whole`` as a percentage that reads 100% only when all are (399/400 is 99.8%)."""
    value = 100 * part / whole
    return f"{value:.0f}%" if part in (0, whole) else f"{min(value, 99.9):.1f}%"


def _median(xs):
    return round(statistics.median(xs), 2) if xs else None


def report(runs: list[dict], meta: dict) -> str:
    done = {r["program"] for r in runs}
    missing = [m for m in meta.get("all", []) if m not in done]
    commits = sorted({r.get("commit") or meta["commit"] for r in runs}) or [meta["commit"]]
    lines = ["# Heap repair (Wolverine2, §7.1 fault injection)", ""]
    if missing:
        lines += [f"**PARTIAL**: {len(done)} of {len(meta['all'])} programs have runs; not run: "
                  f"{', '.join(missing)}.", ""]
    if meta.get("note"):
        lines += [meta["note"], ""]
    lines += [f"{len(done)} programs, N = {meta['n']} versions asked per class and program "
             f"(fewer when the injector found fewer distinct failing versions), timeout {meta['timeout']} s per "
             f"repair, specification: the correct program's states at each call's entry, every loop head and "
             f"exit (the exit with the function's locals at its return). Engine commit(s) {', '.join(commits)}, started {meta['date']}, {meta['jobs']} jobs on a 2-core machine shared "
             f"with other work. Times are the repair's own (Algorithm 2 + Algorithm 1's solver calls, seconds); "
             f"every reported repair was also re-checked by compiling and running it under gdb (not timed here: "
             f"the two runs share the re-check). Speed-up: time without / with localization, versions repaired "
             f"both ways. A localization miss: an injected (mutated) location outside Algorithm 2's suspicious set; "
             f"'effective': the mutation alone (on the correct program) fails the specification, or undoing it alone "
             f"changes the buggy version's run — the others are "
             f"equivalent on the specified runs (e.g. `prev->next` just after `prev = slow`), no state can show them "
             f"and no repair needs them; 'costly' misses are those where the repair with localization failed and the one without did not.", "",
             "| class | versions | repaired (loc. on) | repaired (loc. off) | median / max s (on) | "
             "median / max s (off) | median widenings | speed-up median / max | loc. misses: effective / all | "
             "mean suspicious / locations |", "|---|---|---|---|---|---|---|---|---|---|"]
    for x, y in CLASSES:
        rs = [r for r in runs if r["class"] == [x, y]]
        if not rs:
            continue
        on = [r for r in rs if r["on"]["outcome"] == RepairOutcome.REPAIRED.value]
        off = [r for r in rs if r["off"]["outcome"] == RepairOutcome.REPAIRED.value]
        ton = [r["on"]["seconds"] for r in on]
        toff = [r["off"]["seconds"] for r in off]
        both = [r["off"]["seconds"] / max(r["on"]["seconds"], 1e-3) for r in on if r in off]
        miss = sum(1 for r in rs if r["loc_missed"])
        real = sum(1 for r in rs if r.get("loc_missed_effective", r["loc_missed"]))
        costly = sum(1 for r in rs if r["loc_missed"] and r not in on and r in off)
        sus = statistics.mean(r["loc_size"] for r in rs)
        locs = statistics.mean(r["locations"] for r in rs)
        lines.append(
            f"| ⟨{x},{y}⟩ | {len(rs)} | {len(on)} ({_percent(len(on), len(rs))}) | {len(off)} "
            f"({_percent(len(off), len(rs))}) | {_median(ton)} / {max(ton, default=None)} | {_median(toff)} / "
            f"{max(toff, default=None)} | {_median([r['on']['widenings'] for r in on])} | {_median(both)} / "
            f"{round(max(both), 1) if both else None} | {real} / {miss} ({costly} costly) | {sus:.1f} / {locs:.1f} |")
    spec = [r for r in runs if "spectrum" in r]
    if spec:
        lines += ["", "RQ4 (versions with a mutation; the calls of main are the tests): mean number of locations "
                  "to inspect before the faulty one (ties pessimistic) — Algorithm 2: its whole suspicious set "
                  "(it is a set, not a ranking).", "",
                  "| method | mean locations inspected | faulty location found |", "|---|---|---|",
                  f"| Algorithm 2 | {statistics.mean(r['loc_size'] for r in spec):.2f} | "
                  f"{sum(1 for r in spec if not r['loc_missed'])}/{len(spec)} |"]
        for name in ("ochiai", "tarantula"):
            lines.append(f"| {name} | {statistics.mean(r['spectrum'][name] for r in spec):.2f} | "
                         f"{len(spec)}/{len(spec)} (a ranking of every location) |")
    per = {}
    for r in runs:
        p = per.setdefault(r["program"], [0, 0, 0])
        p[0] += 1
        p[1] += r["on"]["outcome"] == "repaired"
        p[2] += r["off"]["outcome"] == "repaired"
    lines += ["", "Per program (versions, repaired with localization on, off):", "",
              ", ".join(f"{k} {v[0]}/{v[1]}/{v[2]}" for k, v in sorted(per.items()))]
    return "\n".join(lines) + "\n"


def localize_report(runs: list[dict], meta: dict) -> str:
    """The ``--localize-only`` table: Algorithm 2 against the injector's
    record, no repairs."""
    done = {r["program"] for r in runs}
    missing = [m for m in meta.get("all", []) if m not in done]
    commits = sorted({r.get("commit") or meta["commit"] for r in runs}) or [meta["commit"]]
    lines = ["# Heap localization soundness (Algorithm 2 against the injector's record)", ""]
    if missing:
        lines += [f"**PARTIAL**: {len(done)} of {len(meta['all'])} programs; not run: {', '.join(missing)}.", ""]
    lines += [f"{len(done)} programs, N = {meta['n']} versions asked per class and program, the same versions "
              f"(seeds) as bench/results/heap.md; no repair. Engine commit(s) {', '.join(commits)}, started "
              f"{meta['date']}. A miss: a mutated location outside the suspicious set; 'effective': the mutation "
              f"alone fails the specification or undoing it alone changes the buggy run (the others are equivalent "
              f"on the specified runs: no state can show them, no repair needs them).", "",
              "| class | versions | misses: effective / all | mean suspicious / locations |", "|---|---|---|---|"]
    for x, y in CLASSES:
        rs = [r for r in runs if r["class"] == [x, y]]
        if rs:
            lines.append(f"| ⟨{x},{y}⟩ | {len(rs)} | {sum(1 for r in rs if r['loc_missed_effective'])} / "
                         f"{sum(1 for r in rs if r['loc_missed'])} | "
                         f"{statistics.mean(r['loc_size'] for r in rs):.1f} / "
                         f"{statistics.mean(r['locations'] for r in rs):.1f} |")
    misses = [r for r in runs if r["loc_missed"]]
    if misses:
        lines += ["", "Misses (program ⟨x,y⟩ version: mutations; missed locations; effective ones):", ""]
        lines += [f"- {r['program']} ⟨{r['class'][0]},{r['class'][1]}⟩ v{r['version']}: "
                  f"{r['mutations']}, deletions {r['deletions']}; missed {r['loc_missed']}; effective "
                  f"{r['loc_missed_effective']}" for r in misses]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--localize-only", action="store_true",
                    help="Algorithm 2 against the injector's record only (output results/heap-localize)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--programs", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    args.out = args.out or str(ROOT / "results" / ("heap-localize" if args.localize_only else "heap"))
    make_report = localize_report if args.localize_only else report
    manifest = json.loads((ROOT / "heap" / "programs.json").read_text())
    if args.programs:
        wanted = [p for w in args.programs.split(",") for p in manifest if p["file"].startswith(w)]
    else:
        small = [p for p in manifest if p["size"] == "small"]
        large = [p for p in manifest if p["size"] != "small"]
        wanted = [p for pair in zip(small, large) for p in pair] + small[len(large):] + large[len(small):]
    jobs = [{"file": p["file"], "function": p["function"], "cls": c, "n": args.n, "timeout": args.timeout,
             "seed": 1000 * (CLASSES.index(c) + 1) + manifest.index(p), "localize_only": args.localize_only}
            for p in wanted for c in CLASSES]
    import subprocess

    commit = os.environ.get("CREPAIR_BENCH_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    meta = {"all": [Path(p["file"]).stem for p in manifest], "programs": len(wanted), "n": args.n, "timeout": args.timeout, "commit": commit, "jobs": args.jobs,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    runs, errors = [], []
    if args.resume and Path(args.out + ".json").exists():
        old = json.loads(Path(args.out + ".json").read_text())
        runs, errors = old["runs"], old.get("errors", [])
        done = {(r["program"], tuple(r["class"])) for r in runs} | {(Path(e["file"]).stem, tuple(e["class"]))
                                                                   for e in errors}
        jobs = [j for j in jobs if (Path(j["file"]).stem, tuple(j["cls"])) not in done]
        meta["programs"] = len({r["program"] for r in runs} | {Path(j["file"]).stem for j in jobs})
    text = make_report(runs, meta)
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(job, j): j for j in jobs}
        for done, fut in enumerate(as_completed(futures), 1):
            j = futures[fut]
            try:
                got = fut.result()
            except Exception as exc:  # one program's failure does not stop the others
                errors.append({"file": j["file"], "class": j["cls"], "error": f"{type(exc).__name__}: {exc}"})
                got = []
            for r in got:
                r["commit"] = commit
            runs += got
            print(f"[{done}/{len(jobs)}] {j['file']} {j['cls']}: {len(got)} versions, "
                  f"{sum(r.get('on', {}).get('outcome') == 'repaired' for r in got)} repaired, "
                  f"{sum(1 for r in got if r['loc_missed_effective'])} effective misses", file=sys.stderr, flush=True)
            text = make_report(runs, meta) + ("\nErrors: " + json.dumps(errors) + "\n" if errors else "")
            Path(args.out + ".md").write_text(text)
            Path(args.out + ".json").write_text(json.dumps({"meta": meta, "runs": runs, "errors": errors}, indent=1))
    print(text)


if __name__ == "__main__":
    main()
