"""Executors: where the workers of a batch run.

Both take the jobs, their requests (by job id: the
:class:`~crepair.batch.request.Request` or
:class:`~crepair.batch.request.Refusal` the parent read from the job's
words, :func:`crepair.cli.batch_cmd.plan`) and their
:class:`~crepair.batch.job.JobLimits` and yield each job's record as soon
as it finishes (in finishing order):

* :func:`process_pool`: on this machine, at most ``workers`` worker
  processes at once;
* :func:`ray_pool`: on a Ray cluster (``address``; None starts a local
  Ray with ``workers`` CPUs), one Ray task per job, each starting the same
  worker process on its node, so a job's record is the same as in the
  process pool.  Needs the optional extra ``crepair[ray]``.

Closing the generator (or an interruption) stops the running workers
(SIGTERM, which crepair takes as Ctrl-C, then SIGKILL after
:data:`~crepair.batch.job.TERM_GRACE` seconds) and runs no further job.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
from collections.abc import Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from crepair import toolchain
from crepair.batch.job import TERM_GRACE, JobLimits, kill, run_job
from crepair.batch.manifest import Job
from crepair.batch.request import Refusal, Request
from crepair.errors import MissingTool


def process_pool(jobs: list[Job], limits: JobLimits, workers: int,
                 requests: Mapping[str, Request | Refusal]) -> Iterator[dict]:
    """The records of ``jobs`` (their ``requests`` by id) run by at most
    ``workers`` (≥ 1) worker processes on this machine, in finishing order."""
    running: set = set()  # the live workers (set.add/discard are atomic under the GIL)
    stop = threading.Event()

    def one(job: Job) -> dict | None:
        return None if stop.is_set() else run_job(job, requests[job.id], limits, running)

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crepair-job")
    pending = {pool.submit(one, job) for job in jobs}
    try:
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:  # the records of the jobs killed here are dropped: --resume runs them again
        stop.set()
        for future in pending:
            future.cancel()
        for proc in list(running):  # SIGTERM to all at once: each cleans up as on Ctrl-C
            toolchain.kill_group(proc, signal.SIGTERM)
        wait(pending, timeout=TERM_GRACE)
        while not all(f.done() for f in pending):
            for proc in list(running):
                kill(proc, grace=0)
            wait(pending, timeout=0.2)
        pool.shutdown(wait=True)


def ray_pool(jobs: list[Job], limits: JobLimits, workers: int | None, address: str | None,
             requests: Mapping[str, Request | Refusal]) -> Iterator[dict]:
    """The records of ``jobs`` (their ``requests`` by id) run as Ray tasks (one CPU each) on the
    cluster at ``address`` (None: a local Ray with ``workers`` CPUs, shut
    down at the end), in finishing order.  Raises ``MissingTool`` when ray
    is not installed.  A task that Ray loses (node died) is recorded as a
    crash with Ray's message."""
    try:
        import ray
    except ImportError:
        raise MissingTool("--executor ray needs Ray: pip install 'crepair[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(run_job)
    plain = dataclasses.asdict(limits)
    pending = {task.remote(job.as_dict(), requests[job.id].as_dict(), plain): job for job in jobs}
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                job = pending.pop(ref)
                try:
                    yield ray.get(ref)
                except ray.exceptions.RayError as exc:
                    yield _lost(job, exc)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _lost(job: Job, exc: Exception) -> dict:
    import datetime

    message = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
    return {**job.as_dict(), "outcome": "crash", "exit_code": None, "seconds": None, "repairs": [],
            "report": None, "message": f"Ray: {message}",
            "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
