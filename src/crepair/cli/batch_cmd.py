"""``crepair batch``: many verify/localize/repair runs, isolated, resumable."""

from __future__ import annotations

import argparse
import functools
import os
import shlex
import sys
import time

from crepair.cli.common import ExitCode, at_least, seconds
from crepair.options import DEFAULT_TIMEOUT


def add_parser(sub) -> None:
    b = sub.add_parser("batch", help="run many jobs (a folder, a glob or a manifest), each in its own process")
    b.add_argument("items", metavar="ITEMS",
                   help="a folder (its .c files), a quoted glob, or a manifest (.jsonl or .yaml; see "
                        "crepair.batch.manifest)")
    b.add_argument("--command", dest="job_command", choices=["verify", "localize", "repair"], default="repair",
                   help="command of every program of a folder or glob, default of a manifest's jobs "
                        "(default: repair)")
    b.add_argument("--options", default="", metavar="'OPTS'",
                   help="options given to every job, as one quoted string (e.g. '--level 2 --max-size 1')")
    b.add_argument("-o", "--output", default="crepair-batch.jsonl", metavar="FILE",
                   help="results, one JSON object per job, appended as jobs finish (default: crepair-batch.jsonl)")
    b.add_argument("--resume", action="store_true", help="keep the results already in FILE, run the other jobs")
    b.add_argument("--jobs", type=at_least(1), default=os.cpu_count() or 1, metavar="N",
                   help="jobs at once (default: all cores)")
    b.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT, metavar="S",
                   help="time limit of a job that sets none (its --timeout); the worker is killed at "
                        f"S + max(60, S/2), 0 for none (default: {DEFAULT_TIMEOUT:g}, as crepair repair)")
    b.add_argument("--memory", type=at_least(64), default=4096, metavar="MB",
                   help="address-space limit of each worker in MiB (default: 4096)")
    b.add_argument("--executor", choices=["process", "ray"], default="process",
                   help="process: worker processes on this machine; ray: Ray tasks (pip install 'crepair[ray]')")
    b.add_argument("--address", metavar="ADDR",
                   help="with --executor ray: the cluster (e.g. ray://head:10001 or auto; default: a local Ray)")
    b.add_argument("--html", metavar="FILE", help="also write an HTML report of every job (one file; for a course, "
                                                  "an index with a page per assignment beside it)")
    b.add_argument("--quiet", action="store_true", help="no progress display")
    b.add_argument("--course", action="store_true",
                   help="ITEMS is a course folder shaped like C-Pack-IPAs: write its course manifest to FILE with "
                        "the suffix .course.yaml (see crepair.batch.course) and run it")


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from crepair.batch import JobLimits, ResultsFile, read_jobs
    from crepair.batch.display import BatchDisplay, summary_table
    from crepair.batch.executors import process_pool, ray_pool
    from crepair.batch.job import NO_ANSWER
    from crepair.batch.run import run_batch
    from crepair.errors import UsageError

    if args.address and args.executor != "ray":
        raise UsageError("--address needs --executor ray")
    try:
        extra = shlex.split(args.options)
    except ValueError as exc:
        raise UsageError(f"--options: {exc}") from None
    items = args.items
    if args.course:
        from crepair.batch.course import manifest_beside, write_course_manifest

        items = str(manifest_beside(args.output))
        course = write_course_manifest(args.items, items)
        n = len(course["assignments"])
        print(f"course manifest: {items} ({n} assignment{'s' if n != 1 else ''})", file=sys.stderr)
    jobs = read_jobs(items, args.job_command, extra)
    limits = JobLimits(timeout=args.timeout, memory_mb=args.memory)
    if args.executor == "ray":
        execute = functools.partial(ray_pool, limits=limits, workers=args.jobs, address=args.address)
    else:
        execute = functools.partial(process_pool, limits=limits, workers=args.jobs)
    display: list[BatchDisplay] = []

    def started(kept, todo):
        if kept and not args.quiet:
            print(f"resuming: {len(kept)} of {len(jobs)} jobs already in {args.output}", file=sys.stderr)
        display.append(BatchDisplay(len(jobs), kept, sys.stderr.isatty(), args.quiet))

    start = time.monotonic()
    try:
        records = run_batch(jobs, ResultsFile(args.output), execute, resume=args.resume,
                            started=started, finished=lambda r: display[0].finished(r))
    finally:
        if display:
            display[0].stop()
    Console(highlight=False).print(summary_table(records, len(jobs), time.monotonic() - start))
    from crepair.report.course import assignment_table, is_course

    if is_course(records):
        Console(highlight=False).print(assignment_table(records))
    if args.html:
        from crepair.report.course_html import write_html

        pages = write_html(args.html, records, title=f"crepair batch {items}")
        print(f"HTML report: {args.html}" + (f" (and {len(pages) - 1} pages beside it)" if len(pages) > 1 else ""),
              file=sys.stderr)
    failed = [r for r in records if r.get("outcome") in NO_ANSWER]
    if failed:
        kinds = sorted({r["outcome"] for r in failed})
        print(f"crepair batch: {len(failed)} of {len(records)} jobs gave no answer ({', '.join(kinds)}); "
              f"see {args.output}", file=sys.stderr)
        return ExitCode.PARTIAL_FAILURE
    return ExitCode.OK
