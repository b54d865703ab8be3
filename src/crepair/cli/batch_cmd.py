"""``crepair batch``: many verify/localize/repair runs, isolated, resumable.

The parent reads each job's words once, with the command line's parser and
checks (:func:`request_of`), into the
:class:`~crepair.batch.request.Request` its worker runs through the API
(:mod:`crepair.batch.worker`); a job the parser or the checks refuse is a
:class:`~crepair.batch.request.Refusal`, recorded without a worker.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import io
import os
import shlex
import sys
import time

from crepair.cli.common import ExitCode, at_least, seconds
from crepair.errors import UsageError
from crepair.options import AUTO_SOLVER, DEFAULT_TIMEOUT


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


_UNSET = object()  # the --timeout of a job that gives none


@functools.lru_cache(maxsize=1)
def _job_parser() -> tuple[argparse.ArgumentParser, dict]:
    """The parser of a job's words (``COMMAND PROGRAM OPTIONS``: the
    command line's verify, localize and repair) and each command's own
    ``--timeout`` default; a job's ``--timeout`` not given parses as
    ``_UNSET``."""
    from crepair.cli import localize_cmd, repair_cmd, verify_cmd
    from crepair.cli.common import JsonArgumentParser

    p = JsonArgumentParser(prog="crepair")
    sub = p.add_subparsers(dest="command", required=True, parser_class=JsonArgumentParser)
    for cmd in (verify_cmd, localize_cmd, repair_cmd):
        cmd.add_parser(sub)
    defaults = {}
    for name, sp in sub.choices.items():
        defaults[name] = sp.get_default("timeout")
        sp.set_defaults(timeout=_UNSET)
    return p, defaults


def _refuse_outputs(args: argparse.Namespace) -> None:
    for option in ("html", "sarif", "apply"):
        if getattr(args, option, None):
            raise UsageError(f"--{option}: not in a batch job (the job's report is its record in the results "
                             "file; crepair batch --html writes a report of every job)")


def _sorted(values) -> list[str]:
    return sorted(str(getattr(v, "value", v)) for v in values)


def request_of(job, default_timeout: float | None = DEFAULT_TIMEOUT):
    """The :class:`~crepair.batch.request.Request` of ``job`` (a
    :class:`~crepair.batch.manifest.Job`): its words read by the command
    line's parser and checked as ``crepair COMMAND`` checks them (the
    route of :mod:`~crepair.cli.repair_cmd` and
    :mod:`~crepair.cli.localize_cmd`); ``default_timeout`` (seconds, None:
    none) is the time limit of a job that sets none.  Raises
    ``UsageError`` for words the command line refuses and for what a batch
    job cannot do (``--html``, ``--sarif``, ``--apply``)."""
    from crepair.batch.request import Command, Request, Run
    from crepair.cli import heap_cmd, localize_cmd, repair_cmd, staged_cmd
    from crepair.cli.common import checks_of, reference_of
    from crepair.options import Method, ReferenceOptions
    from crepair.specification import Runner, Specification, TestSuite

    parser, defaults = _job_parser()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            args = parser.parse_args([job.command, job.program, *job.args])
    except SystemExit:  # --help: argparse prints it and exits
        raise UsageError("--help: not in a batch job") from None
    own = args.timeout is not _UNSET
    if not own:
        args.timeout = defaults[args.command]
    _refuse_outputs(args)
    command = Command(args.command)
    checks = {"checks": dataclasses.asdict(checks_of(args))} if hasattr(args, "no_standard_checks") else {}
    # --solver only when given: a job's options are its identity (--resume), the default's too
    solver = {"solver": args.solver} if args.solver != AUTO_SOLVER else {}
    bounded = {"unwind": args.unwind, "entry": args.entry, **checks, **solver}
    made = dict(command=command, program=job.program, memory_mb=args.memory)

    def tests() -> TestSuite:
        return TestSuite(tests_dir=args.tests_dir, driver=args.tests, test_ids=tuple(args.test_ids or ()),
                         compare=args.compare, build=args.build, project=args.project)

    def request(run: Run, spec: Specification, options: dict, **fields) -> Request:
        timeout = fields.pop("timeout", args.timeout)
        if not own:
            timeout = default_timeout
        return Request(run=run, spec=spec, timeout=timeout, options=tuple(sorted(options.items())), **made,
                       **fields)

    if command == Command.VERIFY:
        return request(Run.VERIFY, Specification(reference=reference_of(args)), bounded)
    if command == Command.LOCALIZE:
        method = localize_cmd.route(args)
        if method == "gradient":  # its timeout: the worker's kill time only
            return request(Run.GRADIENT, Specification(states=heap_cmd.heap_states(args)), {})
        if method == Method.SPECTRUM.value:
            return request(Run.SPECTRUM, Specification(tests=tests()),  # its timeout: the worker's kill time only
                           {"test_timeout": args.test_timeout, "formula": args.formula or "ochiai"})
        return request(Run.LOCALIZE, Specification(reference=reference_of(args)), {
            **bounded, "method": method, "components": _sorted(args.components), "inputs": args.inputs,
            "max_diagnoses": args.max_diagnoses, "max_size": args.max_size, "no_mutate": _sorted(args.no_mutate),
            "mutate_main": args.mutate_main})
    runner = repair_cmd.route(args)
    first = 1 if args.first else args.max_repairs
    if runner == Runner.HEAP:
        options = heap_cmd.repair_options(args)
        return request(Run.HEAP, Specification(states=heap_cmd.heap_states(args)), options)
    if runner == Runner.STAGED:
        spec = Specification(reference=ReferenceOptions.of(args.reference, (), (), args.input_bound),
                             tests=tests() if args.tests_dir is not None else None)
        return request(Run.STAGED, spec, {
            "compare": args.compare, "unwind": args.unwind, "input_bound": args.input_bound,
            "test_timeout": args.test_timeout, **solver, "cache": staged_cmd.cache_folder(args),
            "max_repairs": None if args.all else (1 if args.first else (args.max_repairs or 1))},
            timeout=args.timeout or None)
    if runner == Runner.TESTS:
        return request(Run.TESTS, Specification(tests=tests()), {
            "test_timeout": args.test_timeout, "partition": not args.no_partition, "all": args.all,
            "max_repairs": first, "lines": None if args.lines is None else sorted(args.lines),
            "formula": args.formula, "localize_files": args.localize_files is not None,
            "max_files": args.localize_files or None, "anti_patterns": args.anti_patterns},
            more_files=tuple(args.more_files))
    return request(Run.BOUNDED, Specification(reference=reference_of(args)), {
        **bounded, "schemes": list(args.scheme or ["mutation"]), "level": args.level or 1,
        "schedule": args.scheme is None and args.level is None,
        "unwinding": "assumptions" if args.unwinding_assumptions else "assertions", "max_size": args.max_size,
        "max_repairs": first, "no_mutate": _sorted(args.no_mutate), "mutate_main": args.mutate_main,
        "prune": args.prune, "components": _sorted(args.components), "inputs": args.inputs,
        "max_refinements": args.max_refinements, "repairs_per_diagnosis": args.repairs_per_diagnosis,
        "max_terms": args.max_terms}, reproducible=args.reproducible)


def plan(jobs, default_timeout: float | None = DEFAULT_TIMEOUT) -> dict:
    """Job id -> its :func:`request_of`, or the
    :class:`~crepair.batch.request.Refusal` of the error it raised (a
    job's bad words are that job's outcome, not the batch's)."""
    from crepair.batch.request import Refusal
    from crepair.cli.common import error_of
    from crepair.errors import CRepairError

    out = {}
    for job in jobs:
        try:
            out[job.id] = request_of(job, default_timeout)
        except CRepairError as exc:
            code, kind, _ = error_of(exc)
            out[job.id] = Refusal(kind, str(exc), int(code))
    return out


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from crepair.batch import JobLimits, ResultsFile, read_jobs
    from crepair.batch.display import BatchDisplay, summary_table
    from crepair.batch.executors import process_pool, ray_pool
    from crepair.batch.job import NO_ANSWER
    from crepair.batch.run import run_batch

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
    requests = plan(jobs, args.timeout)
    if args.executor == "ray":
        execute = functools.partial(ray_pool, limits=limits, workers=args.jobs, address=args.address,
                                    requests=requests)
    else:
        execute = functools.partial(process_pool, limits=limits, workers=args.jobs, requests=requests)
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
