"""One job in its own worker process, and the record of how it ended.

:func:`run_job` starts ``python -m crepair.batch.worker`` (a new process
group) with the job's :class:`~crepair.batch.request.Request` (its words
read once by the parent), waits for it at most the job's kill time, and
returns the job's *record*: the object the results file holds, one per
job::

    {"id", "program", "command", "args",   # the job (crepair.batch.manifest.Job)
     "outcome",      # the command's outcome (repaired, no-repair, verified, violated, ...),
                     # or timeout / out-of-memory / crash / bad-input / usage / missing-tool / internal
     "exit_code",    # crepair's exit code (None if the worker died or was killed)
     "seconds",      # wall time of the worker process
     "repairs",      # repair: the repairs of the JSON report (scheme, stage, size, diff, ...), else []
     "report",       # the command's JSON report without "repairs" (None if there is none)
     "message",      # why the job failed (error, signal), else ""
     "finished"}     # UTC time, ISO 8601

A crash, a hang or an exhausted memory limit in one job is that job's
outcome; the caller goes on with the others.  A job the parent refused
(:class:`~crepair.batch.request.Refusal`: a bad option, a bad value) gets
its record without a worker.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import sys
import time
from dataclasses import dataclass

from crepair import toolchain
from crepair.batch.manifest import Job
from crepair.batch.request import Refusal, Request, request_or_refusal
from crepair.options import DEFAULT_TIMEOUT
from crepair.solver import WALL_CLOCK_SAFETY

TERM_GRACE = 2.0  # seconds a worker has after SIGTERM to clean up before SIGKILL
#: outcomes of a job that did not end with the command's own answer
FAILURES = ("timeout", "out-of-memory", "crash")
#: outcomes of a job that gave no answer about its program (``crepair
#: batch`` then exits 9): the failures, and the command's own errors
#: other than bad input (an internal error, a missing tool, a bad option)
NO_ANSWER = FAILURES + ("internal", "missing-tool", "usage")


@dataclass(frozen=True, slots=True)
class JobLimits:
    """Per-job limits: ``timeout`` seconds is the time limit of a job that
    sets none (None: none), put into its request when the parent makes it
    (:func:`crepair.cli.batch_cmd.plan`); the worker is killed
    max(``grace``, half the limit) seconds after the request's limit
    (crepair checks its deadline between steps, so one long step can
    overrun it), and its processor time is limited likewise; a job
    with ``--reproducible`` counts its limit in z3 resource units and stops
    by the wall clock only at ``WALL_CLOCK_SAFETY`` times it, so it is
    killed that much later;
    ``memory_mb``: address space of the worker in MiB (None: none)."""

    timeout: float | None = DEFAULT_TIMEOUT
    memory_mb: int | None = 4096
    grace: float = 60.0

    def kill_after(self, request: Request) -> float | None:
        """Seconds after which the worker of ``request`` is killed (None:
        never, the job's own ``--timeout 0``): its time limit plus the grace."""
        timeout = request.timeout
        if timeout and request.reproducible:  # its limit is counted in resource units
            timeout *= WALL_CLOCK_SAFETY
        return None if not timeout else timeout + max(self.grace, timeout / 2)


def command_line(job: Job, request: Request, limits: JobLimits) -> list[str]:
    """The worker's command line for ``job`` and its ``request``."""
    worker_limits = {"memory_mb": limits.memory_mb, "cpu_seconds": limits.kill_after(request)}
    return [sys.executable, "-m", "crepair.batch.worker", json.dumps(worker_limits), request.to_json()]


def _outcome(envelope: dict | None, returncode: int) -> tuple[str, int | None, dict | None, str]:
    """(outcome, exit code, report, message) of a finished worker."""
    if envelope is None:
        if returncode < 0:
            name = signal.Signals(-returncode).name
            if -returncode == signal.SIGXCPU:
                return "timeout", None, None, f"processor time limit ({name})"
            return "crash", None, None, f"killed by {name}"
        return "crash", None, None, f"worker exited with status {returncode} without a result"
    if "error" in envelope:
        return envelope["error"], None, None, envelope.get("message", "")
    report = envelope.get("report")
    code = envelope.get("exit_code")
    if report is None:
        return "internal", code, None, "the worker wrote no JSON report"
    if "error" in report:
        return report["error"]["kind"], code, None, report["error"]["message"]
    return str(report.get("outcome", "unknown")), code, report, ""


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def refused(job: Job, refusal: Refusal) -> dict:
    """The record of a job the parent refused (no worker ran)."""
    return {**job.as_dict(), "outcome": refusal.kind, "exit_code": refusal.exit_code, "seconds": 0.0,
            "repairs": [], "report": None, "message": refusal.message, "finished": _now()}


def run_job(job: Job | dict, request: Request | Refusal | dict, limits: JobLimits | dict | None = None,
            running: set | None = None) -> dict:
    """Run ``job`` (a :class:`Job` or its ``as_dict()``), whose words the
    parent read into ``request`` (a :class:`~crepair.batch.request.Request`,
    a :class:`~crepair.batch.request.Refusal`, or its ``as_dict()``), in a
    new worker process under ``limits`` (a :class:`JobLimits` or its
    fields as a dict; default: ``JobLimits()``) and return its record
    (module docstring).  Never raises for a failure of the job; the worker
    is killed (its whole process group) if it outlives
    ``limits.kill_after`` or if this call is interrupted.  ``running``: a
    set the live worker (its ``Popen``) is in while it runs, for a caller
    that must kill it from another thread (:func:`kill`)."""
    job = job if isinstance(job, Job) else Job.of(job)
    request = request_or_refusal(request)
    if isinstance(request, Refusal):
        return refused(job, request)
    limits = limits if isinstance(limits, JobLimits) else JobLimits(**(limits or {}))
    env = dict(os.environ, PYTHONHASHSEED="0")  # deterministic output (STYLE.md, 11)
    start = time.monotonic()
    proc = toolchain.spawn(command_line(job, request, limits), text=True, errors="surrogateescape", env=env)
    if running is not None:
        running.add(proc)
    try:
        stdout, stderr = proc.communicate(timeout=limits.kill_after(request))
        killed = False
    except toolchain.TimeoutExpired:
        kill(proc)
        stdout, stderr = proc.communicate()
        killed = True
    except BaseException:
        kill(proc)
        raise
    finally:
        if running is not None:
            running.discard(proc)
    seconds = time.monotonic() - start
    if killed:
        outcome, code, report, message = "timeout", None, None, f"killed after {seconds:.0f} s"
    else:
        envelope = None
        for line in reversed(stdout.strip().splitlines()):
            try:
                envelope = json.loads(line)
                break
            except json.JSONDecodeError:
                continue
        outcome, code, report, message = _outcome(envelope, proc.returncode)
        if outcome == "crash" and stderr.strip():
            message += ": " + stderr.strip().splitlines()[-1][:300]
        if outcome == "crash" and limits.memory_mb:  # running out of address space often looks like this
            message += f" (memory limit {limits.memory_mb} MiB)"
    repairs = report.pop("repairs", []) if report else []
    return {
        **job.as_dict(), "outcome": outcome, "exit_code": code, "seconds": round(seconds, 3),
        "repairs": repairs, "report": report, "message": message,
        "finished": _now(),
    }


def kill(proc: toolchain.Process, grace: float = TERM_GRACE) -> None:
    """Stop the worker ``proc`` and the processes it started: SIGTERM to
    its process group, which crepair takes as Ctrl-C (its temporary
    folders and children go), then SIGKILL to what is left once the worker
    ended or ``grace`` seconds passed."""
    toolchain.kill_group(proc, signal.SIGTERM)
    end = time.monotonic() + grace
    while time.monotonic() < end and proc.poll() is None:
        time.sleep(0.05)
    toolchain.kill_group(proc)
