"""A Python call in a forked child process, under a hard time limit.

Some solver calls do not answer their own time limit (z3 on floating-point
formulas ignores its interrupt).  :func:`call_in_child` runs such a call in
a child made with ``fork`` (it shares nothing with the parent after the
fork: z3's state is copied, not shared), returns its result through a
pipe (pickled), and kills the child's process group when the time is up.
Only where ``fork`` exists (Linux, macOS); elsewhere the call runs in this
process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_GRACE = 0.5  # seconds the child has to send its result after the limit before it is killed


def _child(conn, fn: Callable[..., Any], args: tuple) -> None:
    os.setpgid(0, 0)
    try:
        conn.send_bytes(pickle.dumps(("value", fn(*args))))
    except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises or reports it
        try:
            conn.send_bytes(pickle.dumps(("error", exc)))
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            conn.send_bytes(pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}"))))
    finally:
        conn.close()


def call_in_child(fn: Callable[..., T], *args: Any, timeout: float) -> tuple[bool, T | None]:
    """``(True, fn(*args))`` computed in a forked child within ``timeout``
    seconds (plus a half-second grace), or ``(False, None)`` when the child
    did not answer in time or died (it is killed with its process group).
    An exception raised by ``fn`` is raised here.  ``fn``'s result must
    pickle."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return True, fn(*args)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
    proc.start()
    send.close()
    try:
        if not receive.poll(max(0.0, timeout) + _GRACE):
            return False, None
        try:
            kind, value = pickle.loads(receive.recv_bytes())
        except (EOFError, OSError):
            return False, None  # the child died before it answered
        if kind == "error":
            raise value
        return True, value
    finally:
        receive.close()
        if proc.is_alive():
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        proc.join(1.0)
