"""The worker process of one job: limits, then the command as the CLI runs it.

Started as ``python -m crepair.batch.worker LIMITS COMMAND PROGRAM OPTIONS
--json`` by :func:`crepair.batch.job.run_job`, where LIMITS is a JSON
object ``{"memory_mb": M, "cpu_seconds": S}`` (either may be null).  The
worker sets them on itself with ``resource.setrlimit`` (address space
RLIMIT_AS in MiB, processor time RLIMIT_CPU in seconds), asks Linux to
kill it when its parent dies (so a killed batch leaves no workers), runs
``crepair.cli.main`` with its standard output captured, and writes one JSON
line to standard output: ``{"exit_code": int, "report": the command's JSON
report (or null)}``, or ``{"error": "out-of-memory" | "crash", "message":
...}`` when the command raised (a crash that kills the process writes
nothing; the parent records the signal).
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import signal
import sys


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


def _report(text: str):
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return {"error": {"kind": "internal", "message": f"not JSON: {text[:200]}"}}


def main(argv: list[str]) -> int:
    limits = json.loads(argv[0])
    die_with_parent()
    set_limits(limits.get("memory_mb"), limits.get("cpu_seconds"))
    out = io.StringIO()
    try:
        from crepair.cli import main as crepair_main

        with contextlib.redirect_stdout(out):
            code = crepair_main(argv[1:])
        envelope = {"exit_code": int(code), "report": _report(out.getvalue())}
    except MemoryError:
        envelope = {"error": "out-of-memory", "message": "MemoryError"}
    except Exception as exc:  # noqa: BLE001 - a crash is this job's outcome, recorded by the parent
        message = f"{type(exc).__name__}: {exc}"
        envelope = {"error": "out-of-memory" if "memory" in message.lower() else "crash", "message": message}
    sys.__stdout__.write(json.dumps(envelope) + "\n")
    sys.__stdout__.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
