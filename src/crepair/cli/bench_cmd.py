"""``crepair bench SUITE``: run a benchmark suite with ``crepair batch`` and write its tables."""

from __future__ import annotations

import argparse
import datetime
import shlex
import os
import platform
import random
import re
import sys
import time
from pathlib import Path

from crepair.cli.common import ExitCode, at_least


def add_parser(sub) -> None:
    b = sub.add_parser("bench", help="run a benchmark suite (bench/suites/SUITE.yaml) and write its tables")
    b.add_argument("suite", metavar="SUITE", help="suite name (a file SUITE.yaml in --suites) or a suite file")
    b.add_argument("--suites", default="bench/suites", metavar="DIR",
                   help="folder of the suites (default: bench/suites)")
    b.add_argument("--results", default="bench/results/batch", metavar="DIR",
                   help="where SUITE.jsonl (the batch results) and SUITE.md (the tables) go, unless the suite names "
                        "its output (default: bench/results/batch)")
    b.add_argument("--jobs", type=at_least(1), default=os.cpu_count() or 1, metavar="N",
                   help="jobs at once (default: all cores)")
    b.add_argument("--resume", action="store_true", help="keep the results already in SUITE.jsonl, run the others")
    b.add_argument("--only", metavar="REGEX", help="run only the jobs whose id matches REGEX (the tables show all)")
    b.add_argument("--shuffle", type=int, metavar="SEED",
                   help="run the jobs in a random order drawn with SEED, so that a partial run is a random sample "
                        "(default: the suite's order)")
    b.add_argument("--report-only", action="store_true", help="run nothing: write the tables from SUITE.jsonl")
    b.add_argument("--memory", type=at_least(64), default=4096, metavar="MB", help="memory limit of each worker in MiB")
    b.add_argument("--executor", choices=["process", "ray"], default="process", help="as for crepair batch")
    b.add_argument("--address", metavar="ADDR", help="with --executor ray: the cluster")


def _commit() -> tuple[str, str, str]:
    """(HEAD commit, uncommitted changes of src/) of the repository here
    ("" if none), and the folder of the crepair package that runs when it
    is not that repository's ``src/crepair`` ("": it is; else an installed
    copy, whose code the commit need not describe)."""
    import crepair
    from crepair import toolchain
    from crepair.errors import MissingTool

    package = Path(crepair.__file__).resolve().parent
    try:
        commit = toolchain.run(["git", "rev-parse", "HEAD"], text=True, timeout=10)
        dirty = toolchain.run(["git", "status", "--porcelain", "src"], text=True, timeout=10)
        top = toolchain.run(["git", "rev-parse", "--show-toplevel"], text=True, timeout=10)
    except MissingTool:
        return "", "", str(package)
    if commit.timed_out or dirty.timed_out or top.timed_out:
        return "", "", str(package)
    inside = Path(top.stdout.strip() or ".").resolve() / "src" / "crepair" == package
    return commit.stdout.strip(), dirty.stdout.strip(), "" if inside else str(package)


def _machine() -> dict:
    """This machine and its software, as a run records them (STEM.runs.json)."""
    from importlib.metadata import version

    return {"machine": f"nproc {os.cpu_count()}, {platform.system()} {platform.release()}",
            "software": f"Python {platform.python_version()}, z3-solver {version('z3-solver')}"}


def _machines(runs: list[dict], report: Path) -> str:
    """The "* Machine" line: the machines the runs recorded; for runs made
    before they were recorded, the line the report already has (its
    machine made the results, not the one re-rendering it); else "not
    recorded"."""
    seen = list(dict.fromkeys(f"{r['machine']}; {r.get('software', '')}".rstrip("; ") for r in runs
                              if r.get("machine")))
    if len(seen) > 1:
        return "* Machines (of the runs, the last run's last): " + " | ".join(seen)
    if seen:
        return f"* Machine: {seen[0]}"
    try:
        old = report.read_text(encoding="utf-8").splitlines()
    except OSError:
        old = []
    return next((line for line in old if line.startswith(("* Machine: ", "* Machines "))), "* Machine: not recorded")


def _header(title: str, suite: dict, jobs: int, done: int, started: str, wall: float | None,
            runs: list[dict], command: str, report: Path) -> list[str]:
    """The report's header; ``runs``: the invocations that made the results
    (crepair.batch.bench.read_runs), the last one this invocation's if it ran jobs.
    With ``wall`` None (``--report-only``) it depends on the stored data
    only (``report``: the tables written before, for their machine line)."""
    from crepair.version import __version__

    last = runs[-1].get("started") if runs else None
    date = f"{started}, wall time {wall / 60:.1f} min" if wall is not None else (
        f"{last or 'not recorded'} (the last run); tables re-rendered from the results file (`--report-only`)")
    commits = sorted({r.get("commit") or "unknown" for r in runs})
    made = "; ".join(f"{r.get('started')}: `{r.get('command')}` at {(r.get('commit') or 'unknown')[:12]}"
                     + (" with uncommitted edits in src/" if r.get("dirty") else "")
                     + (f" (the crepair that ran: the installed copy in {r['installed']}, not this checkout's src/)"
                        if r.get("installed") else "")
                     + f", load average {r.get('load', [0, 0])[0]:.2f} to {r.get('load', [0, 0])[-1]:.2f}"
                     for r in runs)
    return [
        f"# {title}", "",
        f"* Date: {date}; {done}/{jobs} jobs have results"
        + ("" if done == jobs else " (**PARTIAL**: `--resume` completes it)"),
        f"* crepair {__version__}, commit{'s' if len(commits) > 1 else ''} of the runs: "
        + (", ".join(commits) if runs else "not recorded"),
        f"* Runs: {made}" if runs else "* Runs: not recorded (results made before crepair bench kept STEM.runs.json)",
        _machines(runs, report),
        f"* Command: `{command}`",
        "* Cache: each invocation's jobs start from an empty cache folder (`$XDG_CACHE_HOME`); a job against a "
        "reference takes the answers an earlier job of the invocation kept (`crepair repair --cache`)",
        "", (suite.get("about") or "").strip(), "",
    ]


def _fresh_cache():
    """Points the jobs' cache (``$XDG_CACHE_HOME/crepair``, :mod:`crepair.oracle.cache`) at a new empty folder for
    this invocation, so that its times do not depend on the runs before it (the first submission of each
    assignment computes the reference's answers; the others take what it kept); returns the undoing call."""
    import shutil
    import tempfile

    before, folder = os.environ.get("XDG_CACHE_HOME"), tempfile.mkdtemp(prefix="crepair-bench-cache-")
    os.environ["XDG_CACHE_HOME"] = folder

    def undo() -> None:
        if before is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = before
        shutil.rmtree(folder, ignore_errors=True)
    return undo


def run(args: argparse.Namespace) -> int:
    from crepair.batch import JobLimits, ResultsFile
    from crepair.batch.bench import add_run, load_suite, printer_tables, read_runs, suite_paths
    from crepair.batch.display import BatchDisplay
    from crepair.batch.executors import process_pool, ray_pool
    from crepair.batch.run import run_batch
    from crepair.cli.batch_cmd import plan
    from crepair.errors import BadInput

    path = Path(args.suite) if args.suite.endswith((".yaml", ".yml")) else Path(args.suites) / f"{args.suite}.yaml"
    if not path.exists():
        folder = path.parent
        if not folder.is_dir():  # e.g. run outside the repository root with the default --suites bench/suites
            raise BadInput(f"{path}: no such suite: the folder {folder.resolve()} does not exist (run crepair bench "
                           "from the repository root, or give --suites DIR or a suite file)")
        known = sorted(p.stem for p in folder.glob("*.yaml"))
        raise BadInput(f"{path}: no such suite in {folder.resolve()}"
                       + (f" (suites: {', '.join(known)})" if known else ""))
    suite, jobs = load_suite(path)
    raw, report = suite_paths(path, suite, Path(args.results))
    raw.parent.mkdir(parents=True, exist_ok=True)
    results = ResultsFile(raw)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    commit, dirty, installed = _commit()  # at the start: the commit of the checkout when the jobs began
    start = time.monotonic()
    load = os.getloadavg()[0]
    stem = report.with_suffix("")
    if not args.report_only:
        limits = JobLimits(timeout=suite.get("timeout", 600), memory_mb=args.memory)
        cache = _fresh_cache()  # before the plan: a job's request names its cache folder
        try:
            requests = plan(jobs, limits.timeout)
        except BaseException:
            cache()
            raise
        if args.executor == "ray":
            execute = lambda todo: ray_pool(todo, limits, args.jobs, args.address, requests)  # noqa: E731
        else:
            execute = lambda todo: process_pool(todo, limits, args.jobs, requests)  # noqa: E731
        display: list[BatchDisplay] = []
        run = {"started": started, "commit": commit, "dirty": bool(dirty), "installed": installed,
               "command": shlex.join(["crepair", *args.argv]), "load": [load, load], "minutes": None, **_machine()}
        add_run(stem, run)  # at once: an invocation killed (SIGTERM, SIGKILL) still names its commit
        try:
            chosen = [j for j in jobs if re.search(args.only, j.id)] if args.only else jobs
            if args.shuffle is not None:
                chosen = random.Random(args.shuffle).sample(chosen, len(chosen))
            run_batch(chosen, results, execute, resume=args.resume,
                      started=lambda kept, todo: display.append(BatchDisplay(len(chosen), kept, sys.stderr.isatty(),
                                                                             False)),
                      finished=lambda r: display[0].finished(r))
        finally:  # an interrupted invocation made results too
            cache()
            if display:
                display[0].stop()
            add_run(stem, {**run, "load": [load, os.getloadavg()[0]],
                           "minutes": round((time.monotonic() - start) / 60, 1)},
                    replace_last=True)
    records = {r["id"]: r for r in results.records()}
    done = sum(1 for j in jobs if j.id in records)
    wall = None if args.report_only else time.monotonic() - start
    lines = _header(suite.get("title", path.stem), suite, len(jobs), done, started, wall, read_runs(stem),
                    shlex.join(["crepair", *args.argv]), report) + (
        printer_tables(path, suite, jobs, records, stem))
    report.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"tables: {report}; results: {raw}", file=sys.stderr)
    return ExitCode.OK
