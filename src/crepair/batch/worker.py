"""The worker process of one job: limits, then the job's API call.

Started as ``python -m crepair.batch.worker LIMITS REQUEST`` by
:func:`crepair.batch.job.run_job`, where LIMITS is a JSON object
``{"memory_mb": M, "cpu_seconds": S}`` (either may be null) and REQUEST a
:class:`~crepair.batch.request.Request` as JSON (``as_dict``).  The worker
sets the limits on itself with ``resource.setrlimit`` (address space
RLIMIT_AS in MiB, the smaller of M and the job's own ``--memory``, and as
much for z3; processor time RLIMIT_CPU in seconds), asks Linux to kill it
when its parent dies (so a killed batch leaves no workers), calls the
request's verb (:func:`crepair.batch.execute.execute`) and writes one JSON
line to standard output: ``{"exit_code": int, "report": the command's JSON
report}`` (an error of crepair is a report ``{"error": {"kind", "message",
"exit_code"}}``, as ``crepair COMMAND --json`` prints it; an exception
of crepair's own is an internal error), or ``{"error": "out-of-memory",
"message": ...}`` when the call ran out of memory (a crash that kills the
process writes nothing; the parent records the signal).

A run whose time limit the wall clock enforces too (``Request.hard_stop``:
z3 does not always stop a check at its limit) is stopped
:data:`HARD_STOP_GRACE` seconds after it (counted from the worker's start,
``WALL_CLOCK_SAFETY`` times the limit with ``--reproducible``), with the
report of an unknown outcome (exit 4), as the command line stops.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import threading
import time

from crepair.errors import out_of_memory
from crepair.exit_codes import ERROR_KINDS, ExitCode

#: seconds past a run's time limit before the worker stops it whatever it does (as ``crepair COMMAND``)
HARD_STOP_GRACE = 2.0


def set_limits(memory_mb: int | None, cpu_seconds: float | None) -> None:
    """Lower this process's address space to ``memory_mb`` MiB and its
    processor time to ``cpu_seconds`` (rounded up); None leaves a limit as
    it is.  Limits are never raised above the current hard limit."""
    for kind, value in ((resource.RLIMIT_AS, None if memory_mb is None else memory_mb * 1024 * 1024),
                        (resource.RLIMIT_CPU, None if cpu_seconds is None else int(cpu_seconds) + 1)):
        if value is None:
            continue
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, hard))


def die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies (prctl
    PR_SET_PDEATHSIG); elsewhere nothing."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def _write(envelope: dict) -> None:
    sys.__stdout__.write(json.dumps(envelope) + "\n")
    sys.__stdout__.flush()


def _error(code: ExitCode, message: str) -> dict:
    return {"exit_code": int(code),
            "report": {"error": {"kind": ERROR_KINDS[code], "message": message, "exit_code": int(code)}}}


def _hard_stop(request, started: float) -> threading.Timer | None:
    """The wall-clock safety net of the run (module docstring), started."""
    if not request.hard_stop or not request.timeout:
        return None
    from crepair import toolchain
    from crepair.schemes.time_limit import arm_hard_stop

    def expire() -> None:
        _write(_error(ExitCode.UNKNOWN, f"unknown: the run did not stop at the time limit (--timeout "
                                        f"{request.timeout:g} s, from the start); stopped {HARD_STOP_GRACE:g} s later"))
        toolchain.kill_children()
        os._exit(0)

    return arm_hard_stop(started, request.timeout, HARD_STOP_GRACE, expire, reproducible=request.reproducible)


def _memory(limits: dict, request) -> int:
    """The worker's memory limit in MiB: the smaller of the batch's and the
    job's own; neither: half of the physical memory (as the command line)."""
    given = [m for m in (limits.get("memory_mb"), request.memory_mb) if m]
    if given:
        return min(given)
    return max(64, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2 // (1 << 20))


def run(limits: dict, request_data: dict) -> dict:
    """The envelope (module docstring) of the request ``request_data``
    run under ``limits``."""
    started = time.monotonic()  # the time limit counts from here, as the command line's from its start
    die_with_parent()
    try:
        from crepair.batch.request import Request

        request = Request.of(request_data)
        megabytes = _memory(limits, request)
        set_limits(megabytes, limits.get("cpu_seconds"))
        from crepair.batch.execute import execute
        from crepair.errors import BadInput, CRepairError, MissingTool, UsageError
        from crepair.solver import smt

        smt.limit_memory(megabytes)
        timer = _hard_stop(request, started)
        try:
            code, report = execute(request, started)
        except UsageError as exc:
            return _error(ExitCode.USAGE, str(exc))
        except MissingTool as exc:
            return _error(ExitCode.MISSING_TOOL, str(exc))
        except BadInput as exc:
            return _error(ExitCode.BAD_INPUT, str(exc))
        except CRepairError as exc:
            return _error(ExitCode.INTERNAL, str(exc))
        finally:
            if timer is not None:
                timer.cancel()
        return {"exit_code": int(code), "report": json.loads(report)}
    except Exception as exc:  # noqa: BLE001 - this job's outcome, recorded by the parent
        message = f"{type(exc).__name__}: {exc}"
        if out_of_memory(exc):
            return {"error": "out-of-memory", "message": message}
        return _error(ExitCode.INTERNAL, f"{message} (a defect of crepair: please report it)")


def main(argv: list[str]) -> int:
    from crepair.interrupt import InterruptWatch, stop_solvers

    try:
        with InterruptWatch(stop_solvers):  # SIGTERM from the batch: the run's clean-up runs, then 143
            envelope = run(json.loads(argv[0]), json.loads(argv[1]))
    except KeyboardInterrupt:
        return ExitCode.TERMINATED
    except MemoryError:
        envelope = {"error": "out-of-memory", "message": "MemoryError"}
    _write(envelope)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
