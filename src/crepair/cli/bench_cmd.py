"""``crepair bench SUITE``: run a benchmark suite with ``crepair batch`` and write its tables."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

from crepair.cli.common import ExitCode, at_least


def add_parser(sub) -> None:
    b = sub.add_parser("bench", help="run a benchmark suite (bench/suites/SUITE.yaml) and write its tables")
    b.add_argument("suite", metavar="SUITE", help="suite name (a file SUITE.yaml in --suites) or a suite file")
    b.add_argument("--suites", default="bench/suites", metavar="DIR", help="folder of the suites (default: bench/suites)")
    b.add_argument("--results", default="bench/results/batch", metavar="DIR",
                   help="where SUITE.jsonl (the batch results) and SUITE.md (the tables) go, unless the suite names its "
                        "output (default: bench/results/batch)")
    b.add_argument("--jobs", type=at_least(1), default=os.cpu_count() or 1, metavar="N",
                   help="jobs at once (default: all cores)")
    b.add_argument("--resume", action="store_true", help="keep the results already in SUITE.jsonl, run the others")
    b.add_argument("--only", metavar="REGEX", help="run only the jobs whose id matches REGEX (the tables show all)")
    b.add_argument("--report-only", action="store_true", help="run nothing: write the tables from SUITE.jsonl")
    b.add_argument("--memory", type=at_least(64), default=4096, metavar="MB", help="memory limit of each worker in MiB")
    b.add_argument("--executor", choices=["process", "ray"], default="process", help="as for crepair batch")
    b.add_argument("--address", metavar="ADDR", help="with --executor ray: the cluster")


def _commit() -> tuple[str, str]:
    """(HEAD commit, uncommitted changes of src/) of the repository here ("" if none)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "src"], capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "", ""
    return commit, dirty


def _header(title: str, suite: dict, jobs: int, done: int, started: str, wall: float | None,
            commit: str, dirty: str) -> list[str]:
    from importlib.metadata import version

    from crepair.version import __version__

    date = f"{started}, wall time {wall / 60:.1f} min" if wall is not None else (
        f"tables written {started} from the results file (`--report-only`)")
    return [
        f"# {title}", "",
        f"* Date: {date}; {done}/{jobs} jobs have results"
        + ("" if done == jobs else " (**PARTIAL**: `--resume` completes it)"),
        f"* crepair {__version__}, commit {commit or 'unknown'}" + (" (with uncommitted edits in src/)" if dirty else ""),
        f"* Machine: nproc {os.cpu_count()}, {platform.system()} {platform.release()}; Python "
        f"{platform.python_version()}, z3-solver {version('z3-solver')}; load average (1 min) "
        f"{os.getloadavg()[0]:.2f}",
        f"* Command: `crepair {' '.join(sys.argv[1:]) if sys.argv[0].endswith(('crepair', '__main__.py')) else 'bench'}`",
        "", (suite.get("about") or "").strip(), "",
    ]


def run(args: argparse.Namespace) -> int:
    from crepair.batch import JobLimits, ResultsFile
    from crepair.batch.bench import load_suite, printer_tables, suite_paths
    from crepair.batch.display import BatchDisplay
    from crepair.batch.executors import process_pool, ray_pool
    from crepair.batch.run import run_batch
    from crepair.errors import BadInput

    path = Path(args.suite) if args.suite.endswith((".yaml", ".yml")) else Path(args.suites) / f"{args.suite}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in Path(args.suites).glob("*.yaml")) if Path(args.suites).is_dir() else []
        raise BadInput(f"{path}: no such suite" + (f" (suites: {', '.join(known)})" if known else ""))
    suite, jobs = load_suite(path)
    raw, report = suite_paths(path, suite, Path(args.results))
    raw.parent.mkdir(parents=True, exist_ok=True)
    results = ResultsFile(raw)
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    commit, dirty = _commit()  # at the start: the commit of the checkout when the jobs began
    start = time.monotonic()
    if not args.report_only:
        limits = JobLimits(timeout=suite.get("timeout", 600), memory_mb=args.memory)
        if args.executor == "ray":
            execute = lambda todo: ray_pool(todo, limits, args.jobs, args.address)  # noqa: E731
        else:
            execute = lambda todo: process_pool(todo, limits, args.jobs)  # noqa: E731
        display: list[BatchDisplay] = []
        try:
            chosen = [j for j in jobs if re.search(args.only, j.id)] if args.only else jobs
            run_batch(chosen, results, execute, resume=args.resume,
                      started=lambda kept, todo: display.append(BatchDisplay(len(chosen), kept, sys.stderr.isatty(),
                                                                             False)),
                      finished=lambda r: display[0].finished(r))
        finally:
            if display:
                display[0].stop()
    records = {r["id"]: r for r in results.records()}
    done = sum(1 for j in jobs if j.id in records)
    wall = None if args.report_only else time.monotonic() - start
    lines = _header(suite.get("title", path.stem), suite, len(jobs), done, started, wall, commit, dirty) + (
        printer_tables(path, suite, jobs, records, report.with_suffix("")))
    report.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"tables: {report}; results: {raw}", file=sys.stderr)
    return ExitCode.OK
