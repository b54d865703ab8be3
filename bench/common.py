"""Helpers shared by the benchmark scripts in bench/.

The scripts are run as ``python bench/NAME.py`` from the repository root,
so ``bench/`` is on ``sys.path`` and they import this module as ``common``.

* :func:`export_snapshot` exports ``src/`` of a git commit with
  ``git archive``; workers then import crepair from there (``pythonpath_env``),
  so edits to the working tree during a long run do not leak into it.
  :class:`BenchBase` holds a run's scratch folder and the workers'
  environment; :func:`pin_crepair` picks the crepair the workers run
  (``--rev``/``--live``) and describes it for the report.
* :func:`run_worker` runs one worker process that writes JSON lines
  (:func:`emit`), with a hard time limit; a crash or a kill is returned as
  text and the lines written so far are kept.  In the worker,
  :func:`record_worker` records an exception as an ``error`` line;
  :func:`repair_record` and :func:`done_record` build the ``repair`` and
  ``done`` lines.  :func:`take_records` fills a job from the lines.
* :func:`run_benchmark` runs the jobs in a thread pool, rewrites the report
  after each one and handles Ctrl-C; :func:`resumable` and
  :func:`job_from_record` restore the jobs of an earlier run (``--resume``,
  ``--report-only``).
* :func:`benchmark_parser`, :func:`add_rerun_options` and
  :func:`add_output_option` add the command-line options the scripts share.
* :func:`machine`, :func:`versions_info`, :func:`git_commit` describe the
  set-up for report headers (:func:`setup_meta`); :func:`fmt_s` and
  :func:`md_escape` format markdown table cells; :func:`write_results`
  writes the report and the raw JSON.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------


def emit(fh, record: dict) -> None:
    """Write one JSON line and flush it (a killed worker keeps what it wrote)."""
    fh.write(json.dumps(record) + "\n")
    fh.flush()


def read_records(path: Path) -> list[dict]:
    """The JSON lines of a worker's output file (a torn last line is dropped)."""
    records = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return records


def run_worker(cmd: list[str], hard: float, cwd: Path, env: dict) -> str:
    """Run a worker command; return "" if it exited with 0 or 1 (1: the
    worker recorded an error itself), else a description of the crash."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=hard, cwd=cwd, env=env)
        if p.returncode not in (0, 1):
            tail = " | ".join(p.stderr.strip().splitlines()[-2:])
            return f"worker exited with {p.returncode}" + (f": {tail}" if tail else "")
    except subprocess.TimeoutExpired:
        return f"killed after the hard limit of {hard:.0f} s"
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    return ""


def imported_from_snapshot(start_record: dict, snapshot_src: Path | None) -> bool:
    """Whether a worker imported crepair from the snapshot (always true
    when no snapshot is used)."""
    if snapshot_src is None:
        return True
    return Path(start_record.get("crepair_file", "")).resolve().is_relative_to(snapshot_src.resolve())


def record_worker(out: str, search) -> int:
    """The body of a worker process: open its output file ``out`` and call
    ``search(fh, t0)``, which writes the records with :func:`emit` (``t0``:
    ``time.monotonic()`` at the start).  An exception is written as an
    ``error`` record (message, traceback, wall time) and gives the exit
    status 1; else 0."""
    with open(out, "w", encoding="utf-8") as fh:
        t0 = time.monotonic()
        try:
            search(fh, t0)
        except BaseException as exc:  # noqa: BLE001 - record everything
            emit(
                fh,
                {
                    "type": "error",
                    "error": f"{type(exc).__name__}: {exc}",
                    "traceback": traceback.format_exc(),
                    "wall_seconds": time.monotonic() - t0,
                },
            )
            return 1
    return 0


def start_record(t0: float, run, crepair_file: str, **fields) -> dict:
    """The ``start`` record of a mutation-scheme run ``run`` (of
    ``crepair.repair``): the set-up time since ``t0``, the locations, the
    search space per repair size, the bound message, then ``fields`` and the
    file crepair was imported from (see :func:`imported_from_snapshot`)."""
    return {
        "type": "start",
        "setup_seconds": time.monotonic() - t0,
        "locations": run.stats.locations,
        "space": {str(k): v for k, v in run.stats.space.items()},
        "bound": run.bound.message(),
        **fields,
        "crepair_file": crepair_file,
    }


def change_record(c, **fields) -> dict:
    """One change of a crepair repair (an item of ``Repair.changes``) as a
    JSON record: the mutated range and its texts, its line, the original and
    replacement text; then ``fields``."""
    return {
        "start": c.mutation.start,
        "end": c.mutation.end,
        "old_text": c.mutation.old_text,
        "new_text": c.mutation.new_text,
        "line": c.location.span.line,
        "original": c.original,
        "replacement": c.replacement,
        **fields,
    }


def repair_record(n: int, r, change_fields=None, **fields) -> dict:
    """The ``repair`` record of the ``n``-th repair ``r`` of a run: index,
    size, seconds, then ``fields``, the diff and the changes
    (:func:`change_record`, with ``change_fields(c)`` added when given)."""
    return {
        "type": "repair",
        "index": n,
        "size": r.size,
        "seconds": r.seconds,
        **fields,
        "diff": r.diff,
        "changes": [change_record(c, **(change_fields(c) if change_fields else {})) for c in r.changes],
    }


def done_record(stats, names: tuple[str, ...], t0: float) -> dict:
    """The ``done`` record of a run: ``stats.outcome`` and the attributes
    ``names`` of ``stats`` (crepair's run statistics), in that order, dicts
    with their keys as strings; then the worker's wall time since ``t0``."""
    rec = {"type": "done", "outcome": stats.outcome.value}
    for name in names:
        value = getattr(stats, name)
        rec[name] = {str(k): v for k, v in value.items()} if isinstance(value, dict) else value
    rec["wall_seconds"] = time.monotonic() - t0
    return rec


def take_records(job, records: list[dict], crash: str, snapshot_src: Path | None) -> list[dict]:
    """Fill ``job`` from its worker's records (:func:`read_records`):
    ``start``, ``repairs``, ``stats`` and ``outcome`` (the ``done`` record),
    ``error``; then ``status`` ("done" or "error").  ``crash`` (from
    :func:`run_worker`) becomes the error if the worker recorded none, and so
    does a crepair not imported from the snapshot ``snapshot_src``.
    Returns the records of other types, in order."""
    others = []
    for rec in records:
        if rec["type"] == "start":
            job.start = rec
            if not imported_from_snapshot(rec, snapshot_src):
                crash = crash or f"worker imported crepair from {rec.get('crepair_file')}, not the snapshot"
        elif rec["type"] == "repair":
            job.repairs.append(rec)
        elif rec["type"] == "done":
            job.stats = rec
            job.outcome = rec["outcome"]
        elif rec["type"] == "error":
            job.error = rec["error"]
            job.stats.setdefault("traceback", rec.get("traceback", ""))
        else:
            others.append(rec)
    if not job.stats.get("outcome") and not job.error:
        job.error = crash or "worker produced no result"
    elif crash and not job.error:
        job.error = crash
    job.status = "error" if job.error else "done"
    return others


# ---------------------------------------------------------------------------
# Running the jobs
# ---------------------------------------------------------------------------


class BenchBase:
    """What a benchmark run keeps: its options, the ``shared`` folder, a
    lock for the report, a scratch folder ``tmp`` (removed at the end), and
    the environment of the workers with the crepair they import
    (``crepair_src``: the snapshot's ``src/``, None for the installed one;
    ``commit``: its commit id, or the description of the working tree)."""

    def __init__(self, args, prefix: str):
        self.args = args
        self.shared = Path(args.shared).resolve()
        self.lock = threading.Lock()
        self.tmp = Path(tempfile.mkdtemp(prefix=prefix))
        self.env = dict(os.environ)
        self.crepair_src: Path | None = None  # snapshot's src/ (None: the installed crepair)
        self.commit = ""

    def snapshot(self, rev: str) -> str:
        """Export ``rev``'s src/ with ``git archive`` and make the workers
        import crepair from there, so edits to the working tree during the
        run do not leak into it.  Returns the full commit id."""
        commit, self.crepair_src = export_snapshot(rev, self.tmp / "crepair-snapshot")
        self.env = pythonpath_env(self.env, self.crepair_src)
        self.commit = commit
        return commit

    def copy_scripts(self, script: str, *modules: str) -> Path:
        """Copy the bench script ``script`` (its ``__file__``), the bench
        ``modules`` it imports and ``common.py`` into ``tmp/bench`` and
        return the copy of the script: the workers run the copy, so editing
        bench/ during a long run does not change the runs still to come."""
        scripts = self.tmp / "bench"
        scripts.mkdir()
        here = Path(script).resolve().parent
        for name in (Path(script).name, *modules, "common.py"):
            shutil.copy2(here / name, scripts / name)
        return scripts / Path(script).name


def pin_crepair(bench: BenchBase, args, old_meta: dict | None = None, note_head: bool = True) -> str | None:
    """Choose the crepair that ``bench``'s workers run (``args.live``,
    ``args.rev``) and return its description for the report, or None (after
    a message on stderr, with ``bench.tmp`` removed) when it cannot be
    exported.  ``--live``: the installed crepair (the working tree;
    ``bench.commit`` is set to the description); else ``src/`` of
    ``args.rev``, by default the commit recorded in ``old_meta`` (the meta
    of the resumed runs) or HEAD, exported by :meth:`BenchBase.snapshot`,
    with a warning if the resumed runs used another commit.  ``note_head``:
    also name HEAD when it is not the exported commit."""
    if args.live:
        commit = git_commit() + " — working tree (--live)"
        bench.commit = commit
        return commit
    recorded = (old_meta or {}).get("commit_id") or ""
    rev = args.rev or recorded or "HEAD"
    try:
        cid = bench.snapshot(rev)
    except Exception as exc:  # noqa: BLE001
        print(f"cannot export crepair at {rev!r} ({exc}); use --live to run the installed crepair", file=sys.stderr)
        shutil.rmtree(bench.tmp, ignore_errors=True)
        return None
    commit = cid + " (src/ exported with git archive; uncommitted edits not included)"
    if recorded and recorded != cid:
        print(f"warning: resuming runs of {recorded} with {cid}", file=sys.stderr)
    if note_head:
        try:
            head = resolve_commit("HEAD")
        except Exception:  # noqa: BLE001
            head = ""
        if head and head != cid:
            commit += f"; HEAD at the start of this invocation: {head}"
    return commit


def run_benchmark(bench: BenchBase, todo: list, run_job, progress, write, jobs: dict, parallel: int,
                  reset_running: bool = True) -> int:
    """Run ``run_job(job)`` for each job of ``todo``, ``parallel`` at a time
    in threads (an exception is recorded as the job's error).  As each job
    ends: its ``progress(job)`` line goes to stderr and ``write(final=False)``
    rewrites the report (under ``bench.lock``).  At the end:
    ``write(final=...)`` (final when every job of ``jobs`` is done or an
    error), the report goes to stdout, ``bench.tmp`` is removed, and 0 is
    returned.  On Ctrl-C: the jobs not started are cancelled, those running
    are marked pending again (with ``reset_running``), the partial results
    are written, and 130 is returned."""

    def guarded(job):
        try:
            return run_job(job)
        except Exception as exc:  # noqa: BLE001
            job.error = f"{type(exc).__name__}: {exc}"
            job.status = "error"
            return job

    pool = ThreadPoolExecutor(max_workers=max(1, parallel))
    try:
        futures = [pool.submit(guarded, job) for job in todo]
        for fut in as_completed(futures):
            job = fut.result()
            print(progress(job), file=sys.stderr, flush=True)
            with bench.lock:
                write(final=False)
    except KeyboardInterrupt:
        print("interrupted: writing partial results", file=sys.stderr)
        pool.shutdown(wait=False, cancel_futures=True)
        if reset_running:
            for j in jobs.values():
                if j.status == "running":
                    j.status = "pending"
        write(final=False)
        shutil.rmtree(bench.tmp, ignore_errors=True)
        return 130
    pool.shutdown(wait=True)
    text = write(final=all(j.status in ("done", "error") for j in jobs.values()))
    print(text)
    shutil.rmtree(bench.tmp, ignore_errors=True)
    return 0


# ---------------------------------------------------------------------------
# Resuming
# ---------------------------------------------------------------------------


def job_from_record(cls, rec: dict):
    """The job (of the dataclass ``cls``) of a run record of the raw JSON;
    fields the record lacks get their defaults, and a run that was still
    running when the JSON was written is pending again."""
    job = cls(**{k: rec[k] for k in rec if k in cls.__dataclass_fields__})
    if job.status == "running":
        job.status = "pending"
    return job


def resumable(runs: list[dict], jobs: dict, key, cls, retry_errors: bool) -> dict:
    """The runs of an earlier invocation that ``--resume`` keeps, as
    ``{key(rec): job}`` (:func:`job_from_record`, marked ``resumed``), in
    the order of ``runs``: the finished ones (done or error), except those
    selected again (in ``jobs``) with another setup (``same_setup``) and,
    with ``retry_errors``, those selected again that ended in an error."""
    kept = {}
    for rec in runs:
        k = key(rec)
        job = jobs.get(k)
        if rec["status"] not in ("done", "error") or (job is not None and not job.same_setup(rec)):
            continue
        if rec["status"] == "error" and retry_errors and job is not None:
            continue
        restored = job_from_record(cls, rec)
        restored.resumed = True
        kept[k] = restored
    return kept


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------


def benchmark_parser(doc: str, holding: str) -> argparse.ArgumentParser:
    """The argument parser of a bench script (described by the first
    paragraph of its docstring ``doc``) with ``--shared`` (the folder holding
    ``holding``) and ``--timeout``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=str(REPO.parent / "shared"),
                    help=f"folder holding {holding} (default: ../shared)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per crepair run (default 600)")
    return ap


def add_rerun_options(ap: argparse.ArgumentParser, what: str, resume_help: str, report_only_help: str) -> None:
    """Add ``--rev``, ``--live``, ``--resume`` (help ``resume_help``),
    ``--retry-errors`` (of the ``what``, e.g. "runs") and ``--report-only``
    (help ``report_only_help``)."""
    ap.add_argument("--rev", default=None,
                    help="run the crepair of this git commit, exported with git archive (default HEAD; with --resume, "
                    "the commit recorded in the raw JSON)")
    ap.add_argument("--live", action="store_true", help="run the installed crepair (working tree) instead of --rev")
    ap.add_argument("--resume", action="store_true", help=resume_help)
    ap.add_argument("--retry-errors", action="store_true",
                    help=f"with --resume, run again the {what} that ended in an error")
    ap.add_argument("--report-only", action="store_true", help=report_only_help)


def add_output_option(ap: argparse.ArgumentParser, name: str) -> None:
    """Add ``--output``, the markdown report (default
    ``bench/results/NAME.md``; the raw JSON goes next to it)."""
    ap.add_argument("--output", default=str(REPO / "bench" / "results" / f"{name}.md"),
                    help=f"markdown report (default bench/results/{name}.md); raw JSON next to it")


def output_paths(output: str) -> tuple[Path, Path]:
    """The markdown report ``output`` and the raw JSON next to it; their
    folder is created."""
    out_md = Path(output)
    out_md.parent.mkdir(parents=True, exist_ok=True)
    return out_md, out_md.with_suffix(".json")


# ---------------------------------------------------------------------------
# Pinning crepair to a commit
# ---------------------------------------------------------------------------


def resolve_commit(rev: str) -> str:
    return subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()


def export_snapshot(rev: str, dest: Path) -> tuple[str, Path]:
    """Export ``rev``'s ``src/`` with ``git archive`` into ``dest`` (created).
    Returns (full commit id, path of the exported ``src``)."""
    commit = resolve_commit(rev)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit, "src"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return commit, dest / "src"


def pythonpath_env(env: dict, src: Path) -> dict:
    """A copy of ``env`` whose PYTHONPATH starts with ``src``."""
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join([str(src)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


# ---------------------------------------------------------------------------
# Describing the set-up
# ---------------------------------------------------------------------------


def utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
        return head + (" (with uncommitted changes under src/)" if dirty else "")
    except Exception:  # noqa: BLE001
        return "unknown"


def nproc() -> str:
    try:
        return subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return str(os.cpu_count())


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"nproc {nproc()}" + (f", {cpu}" if cpu else "") + f", {platform.system()} {platform.release()}"


def setup_meta(commit: str, script: str, argv: list[str], old_meta: dict | None = None,
               commit_id: str | None = None) -> dict:
    """The first fields of a report's ``meta``: the date (that of the
    resumed runs' ``old_meta``, else now), the crepair ``commit`` (and
    ``commit_id`` when given), machine, software and the command line of
    ``bench/SCRIPT``."""
    meta = {"date": (old_meta or {}).get("date") or utc_now(), "commit": commit}
    if commit_id is not None:
        meta["commit_id"] = commit_id
    meta.update({"machine": machine(), "software": versions_info(),
                 "command": f"python bench/{script} " + " ".join(argv)})
    return meta


def stamp_meta(meta: dict, t_start: float, final: bool) -> None:
    """Record in ``meta`` the wall time since ``t_start`` (``time.monotonic()``)
    and, when the results are final, the time they were finished."""
    meta["wall"] = time.monotonic() - t_start
    if final:
        meta["finished"] = utc_now()


def versions_info() -> str:
    parts = [f"Python {platform.python_version()}"]
    for mod in ("z3", "pysat", "pycparser"):
        try:
            from importlib.metadata import version

            name = {"z3": "z3-solver", "pysat": "python-sat"}.get(mod, mod)
            parts.append(f"{name} {version(name)}")
        except Exception:  # noqa: BLE001
            pass
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


def outcome_text(job) -> str:
    """A job's outcome, followed by its error if it has one."""
    if not job.error:
        return job.outcome or ""
    return (job.outcome + "; " if job.outcome else "") + "error: " + job.error


def fmt_s(x) -> str:
    return "—" if x is None else f"{x:.1f}"


def md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_results(out_md: Path, text: str, data: dict) -> None:
    """Write the markdown report ``text`` to ``out_md`` and the raw data to
    the JSON file next to it (both with :func:`write_atomic`)."""
    write_atomic(out_md, text + "\n")
    write_atomic(out_md.with_suffix(".json"), json.dumps(data, indent=1) + "\n")
