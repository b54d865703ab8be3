"""Jobs, worker processes, the pool, resuming and the command line.

A suite script defines a :class:`Benchmark` subclass and calls
:func:`main`::

    class TcasMutation(Benchmark):
        name = "tcas-mutation"             # bench/results/tcas-mutation.{md,json}
        ...
    if __name__ == "__main__":
        sys.exit(main(TcasMutation(__file__), __doc__))

Each job runs ``python SCRIPT --_worker PARAMS OUT`` (a copy of bench/
made at the start, so bench/ can be edited during a long run), which calls
the suite's :meth:`Benchmark.work` with the job's parameters.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import ClassVar

from harness.records import read_records, take_records, upgrade_repair, worker
from harness.setup import REPO, Crepair, setup_meta, stamp_meta, utc_now

FINISHED = ("done", "error")


@dataclass(kw_only=True)
class Job:
    """One worker run.  Subclasses add the fields that name the job and its
    set-up (among them ``timeout``); ``SETUP`` lists those a resumed run
    must share, ``PARAMS`` those the worker gets."""

    SETUP: ClassVar[tuple[str, ...]] = ()
    PARAMS: ClassVar[tuple[str, ...]] = ()

    status: str = "pending"  # pending | running | done | error
    outcome: str = ""  # the run's RepairOutcome value
    stopped: str = ""  # its StopReason value
    reason: str = ""  # why it is unknown
    error: str = ""
    traceback: str = ""
    repairs: list = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # the scheme's stats (as_dict) and wall_seconds
    start: dict = field(default_factory=dict)
    wall: float = 0.0
    commit: str = ""
    finished: str = ""
    resumed: bool = False

    @property
    def key(self) -> tuple:
        raise NotImplementedError

    def params(self) -> dict:
        """What the worker gets."""
        return {k: getattr(self, k) for k in self.PARAMS}

    def same_setup(self, rec: dict) -> bool:
        return all(rec.get(k) == getattr(self, k) for k in self.SETUP)

    def record(self) -> dict:
        """The job for the raw JSON: its own fields first, then the results."""
        rec = {k: v for k, v in asdict(self).items() if k != "resumed"}
        own = [k for k in rec if k not in Job.__dataclass_fields__]
        return {k: rec[k] for k in own + [k for k in rec if k not in own]}

    @classmethod
    def from_record(cls, rec: dict) -> "Job":
        """A job of the raw JSON (any format); a run that was still running
        is pending again."""
        job = cls(**{k: rec[k] for k in rec if k in cls.__dataclass_fields__})
        job.repairs = [upgrade_repair(r) for r in job.repairs]
        if not job.outcome and job.stats.get("outcome"):  # old format: the scheme's outcome
            job.outcome = job.stats["outcome"]
        if job.status == "running":
            job.status = "pending"
        return job


_WORKERS: set[subprocess.Popen] = set()  # workers running now (each kills its own crepair run when stopped)


def _stop(signum, frame) -> None:
    """SIGTERM as Ctrl-C: the benchmark writes its partial results and
    stops its workers, and a worker its crepair run (which runs in a
    session of its own, where no signal to this process group reaches)."""
    raise KeyboardInterrupt


def run_worker(cmd: list[str], out: Path, timeout: float, grace: float | None, cwd: Path, env: dict) -> str:
    """Run a worker; "" if it exited with 0 or 1 (1: it recorded its error),
    else what went wrong.  It is killed after 2 × timeout + 180 s or, with
    ``grace``, ``grace`` s after its search's time limit (the search starts
    when it writes its first record)."""
    t0 = time.monotonic()
    deadline = t0 + 2 * timeout + 180
    started = False
    err = out.with_suffix(".stderr")
    proc = None
    try:
        with open(err, "w", encoding="utf-8") as fh:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=fh, cwd=cwd, env=env)
            _WORKERS.add(proc)
            while proc.poll() is None:
                time.sleep(0.5)
                if grace is not None and not started and out.exists():
                    with open(out, encoding="utf-8") as rf:
                        if rf.readline().endswith("\n"):
                            started = True
                            deadline = time.monotonic() + timeout + grace
                if time.monotonic() > deadline:
                    proc.kill()
                    proc.wait()
                    if started:
                        return f"killed {grace:g} s after the search's time limit (the search did not stop at {timeout:g} s)"
                    return f"killed after {time.monotonic() - t0:.0f} s (the hard limit)"
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    finally:
        _WORKERS.discard(proc)  # None: never started
    if proc.returncode not in (0, 1):
        tail = " | ".join(err.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-2:])
        return f"worker exited with {proc.returncode}" + (f": {tail}" if tail else "")
    return ""


class Benchmark:
    """What a suite script defines.  Class attributes: ``name`` (the report
    bench/results/NAME.md), ``holding`` (what ``--shared`` holds), ``job``
    (the :class:`Job` subclass), ``modules`` (bench modules the workers
    import), ``grace`` (see :func:`run_worker`).  The parent's state:
    ``args``, ``shared``, ``lock``, ``tmp`` (scratch, removed at the end)."""

    name = ""
    holding = "benchmarks/"
    job = Job
    modules: tuple[str, ...] = ()
    grace: float | None = None

    def __init__(self, script: str):
        self.script = Path(script).resolve()
        self.lock = threading.Lock()

    # -- what a suite defines ------------------------------------------------
    def add_options(self, ap: argparse.ArgumentParser) -> None:
        """The suite's own command-line options."""

    def missing(self) -> str:
        """Why the benchmark cannot run here ("" if it can)."""
        return "" if (self.shared / "benchmarks").is_dir() else f"{self.shared / 'benchmarks'} not found"

    def jobs(self) -> dict:
        """The selected jobs by key, in the order they should run."""
        raise NotImplementedError

    def meta(self) -> dict:
        """The suite's options, recorded in the raw JSON's ``meta``."""
        return {}

    @staticmethod
    def work(params: dict, fh, t0: float) -> None:
        """The worker: run crepair with ``params`` and write the records."""
        raise NotImplementedError

    def after(self, job: Job, others: list[dict]) -> None:
        """After a job's worker ended, with its records of other types."""

    def report(self, jobs: dict, meta: dict, final: bool) -> str:
        raise NotImplementedError

    def progress(self, job: Job) -> str:
        raise NotImplementedError

    def extra_json(self) -> dict:
        """More top-level fields of the raw JSON."""
        return {}

    def load_extra(self, data: dict) -> None:
        """Take back :meth:`extra_json` from an earlier raw JSON."""

    def sort_key(self, job: Job):
        return job.key

    # -- the parent -----------------------------------------------------------
    def run_job(self, job: Job) -> Job:
        job.status = "running"
        t0 = time.monotonic()
        out = self.tmp / ("-".join(map(str, job.key)) + ".jsonl")
        cmd = [sys.executable, str(self.worker_script), "--_worker", json.dumps(job.params()), str(out)]
        crash = run_worker(cmd, out, job.timeout, self.grace, self.tmp, self.crepair.env)
        job.wall = time.monotonic() - t0
        job.commit, job.finished = self.crepair.commit_id, utc_now()
        others = take_records(job, read_records(out), crash, self.crepair.imported_by)
        self.after(job, others)
        return job

    def copy_scripts(self) -> Path:
        """Copy bench/ (the script, ``modules`` and the harness) into the
        scratch folder; the workers run the copy."""
        here = self.script.parent
        dest = self.tmp / "bench"
        shutil.copytree(here / "harness", dest / "harness", ignore=shutil.ignore_patterns("__pycache__"))
        for name in (self.script.name, *self.modules):
            shutil.copy2(here / name, dest / name)
        return dest / self.script.name

    def load(self, path: Path) -> tuple[dict, dict]:
        """The meta and the jobs (by key) of a raw JSON."""
        data = json.loads(path.read_text(encoding="utf-8"))
        self.load_extra(data)
        jobs = {}
        for rec in data.get("runs", []):
            job = self.job.from_record(rec)
            jobs[job.key] = job
        return data.get("meta", {}), jobs

    def to_json(self, jobs: dict, meta: dict) -> dict:
        runs = [j.record() for j in sorted(jobs.values(), key=self.sort_key)]
        return {"meta": meta, **self.extra_json(), "runs": runs}


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def parser(bench: Benchmark, doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--shared", default=str(REPO.parent / "shared"),
                    help=f"folder holding {bench.holding} (default: ../shared)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per crepair run (default 600)")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (default 2)")
    ap.add_argument("--rev", default=None, help="run the crepair of this git commit, exported with git archive "
                    "(default HEAD; with --resume, the commit recorded in the raw JSON)")
    ap.add_argument("--live", action="store_true", help="run the installed crepair (working tree) instead of --rev")
    ap.add_argument("--resume", action="store_true", help="keep the runs already in the raw JSON that have the "
                    "same set-up, and run only the missing ones")
    ap.add_argument("--retry-errors", action="store_true", help="with --resume, run again the runs that ended in an error")
    ap.add_argument("--rerun", action="store_true", help="with --resume, run again the finished runs of the current "
                    "selection (e.g. --only) with this --rev; the others stay as they are")
    ap.add_argument("--report-only", action="store_true", help="run nothing: rewrite the markdown report from the raw JSON")
    ap.add_argument("--output", default=str(REPO / "bench" / "results" / f"{bench.name}.md"),
                    help=f"markdown report (default bench/results/{bench.name}.md); raw JSON next to it")
    bench.add_options(ap)
    return ap


def resumed(bench: Benchmark, old: dict, jobs: dict, retry_errors: bool, rerun: bool = False) -> dict:
    """The finished runs of an earlier invocation that ``--resume`` keeps:
    all but those selected again with another set-up, with ``retry_errors``
    those selected again that ended in an error, and with ``rerun`` all
    those selected again."""
    kept = {}
    for key, job in old.items():
        new = jobs.get(key)
        if job.status not in FINISHED or (new is not None and (rerun or not new.same_setup(job.record()))):
            continue
        if job.status == "error" and retry_errors and new is not None:
            continue
        job.resumed = True
        kept[key] = job
    return kept


def main(bench: Benchmark, doc: str, argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    if argv[:1] == ["--_worker"]:
        params = json.loads(argv[1])
        return worker(argv[2], lambda fh, t0: bench.work(params, fh, t0))
    args = bench.args = parser(bench, doc).parse_args(argv)
    bench.shared = Path(args.shared).resolve()
    out_md = Path(args.output)
    out_json = out_md.with_suffix(".json")
    if args.report_only:
        if not out_json.exists():
            print(f"--report-only: {out_json} not found", file=sys.stderr)
            return 2
        meta, jobs = bench.load(out_json)
        final = bool(meta.get("finished")) and all(j.status in FINISHED for j in jobs.values())
        write_atomic(out_md, bench.report(jobs, meta, final) + "\n")
        print(f"wrote {out_md} from {out_json}", file=sys.stderr)
        return 0
    why = bench.missing()
    if why:
        print(f"skipping: {why} (use --shared DIR)", file=sys.stderr)
        return 0
    jobs = bench.jobs()
    old_meta: dict = {}
    if args.resume and out_json.exists():
        old_meta, old = bench.load(out_json)
        kept = resumed(bench, old, jobs, args.retry_errors, args.rerun)
        jobs.update(kept)
        print(f"resume: {len(kept)} runs taken from {out_json}", file=sys.stderr)
    out_md.parent.mkdir(parents=True, exist_ok=True)
    bench.tmp = Path(tempfile.mkdtemp(prefix=f"{bench.name}-"))
    try:
        bench.crepair = Crepair(args, bench.tmp, old_meta.get("commit_id", "") if args.resume else "")
        bench.worker_script = bench.copy_scripts()
        return _run(bench, jobs, argv, old_meta, out_md)
    except subprocess.CalledProcessError as exc:
        print(f"cannot export crepair at {args.rev or 'HEAD'!r} ({exc}); use --live to run the installed crepair",
              file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)


def _run(bench: Benchmark, jobs: dict, argv: list[str], old_meta: dict, out_md: Path) -> int:
    args = bench.args
    t_start = time.monotonic()
    meta = {**setup_meta(bench.crepair, bench.script.name, argv, old_meta), "timeout": args.timeout,
            "jobs": args.jobs, **bench.meta()}

    def write(final: bool) -> str:
        with bench.lock:
            stamp_meta(meta, t_start, final)
            text = bench.report(jobs, meta, final)
            write_atomic(out_md, text + "\n")
            write_atomic(out_md.with_suffix(".json"), json.dumps(bench.to_json(jobs, meta), indent=1) + "\n")
            return text

    def guarded(job: Job) -> Job:
        try:
            return bench.run_job(job)
        except Exception as exc:  # noqa: BLE001
            job.error, job.status = f"{type(exc).__name__}: {exc}", "error"
            return job

    todo = [j for j in jobs.values() if j.status == "pending"]
    print(f"running {len(todo)} of {len(jobs)} runs with {args.jobs} in parallel; report: {out_md}", file=sys.stderr)
    pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
    try:
        for fut in as_completed([pool.submit(guarded, job) for job in todo]):
            print(bench.progress(fut.result()), file=sys.stderr, flush=True)
            write(final=False)
    except KeyboardInterrupt:
        print("interrupted: writing partial results", file=sys.stderr)
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in list(_WORKERS):
            proc.terminate()
        for j in jobs.values():
            if j.status == "running":
                j.status = "pending"
        write(final=False)
        return 130
    pool.shutdown(wait=True)
    print(write(final=all(j.status in FINISHED for j in jobs.values())))
    return 0
