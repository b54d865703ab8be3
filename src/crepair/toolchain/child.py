"""A Python call in a forked child process, under a hard time limit.

Some solver calls do not answer their own time limit (z3 on floating-point
formulas ignores its interrupt).  :func:`call_in_child` runs such a call in
a child made with ``fork`` (it shares nothing with the parent after the
fork: z3's state is copied, not shared), returns its result through a
pipe (pickled), and kills the child's process group when the time is up.
Only where ``fork`` exists (Linux, macOS); elsewhere the call runs in this
process.  :class:`ChildCall` starts such a call and leaves the caller to
go on meanwhile (a check that can run beside the search).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import time
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


class ChildCall:
    """``fn(*args)`` started now in a forked child (see the module's
    docstring); :meth:`result` waits for its answer, :meth:`cancel` kills
    it.  Where ``fork`` does not exist the call runs here, at once."""

    def __init__(self, fn: Callable[..., T], *args: Any):
        self.started = time.monotonic()
        self._proc = self._receive = None
        self._here: tuple[str, Any] | None = None
        if "fork" not in multiprocessing.get_all_start_methods():
            try:
                self._here = ("value", fn(*args))
            except Exception as exc:  # noqa: BLE001 - raised by result(), as from a child
                self._here = ("error", exc)
            return
        ctx = multiprocessing.get_context("fork")
        self._receive, send = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_child, args=(send, fn, args), daemon=True)
        self._proc.start()
        send.close()

    def result(self, timeout: float) -> tuple[bool, Any]:
        """``(True, value)`` once the child answers, waiting at most
        ``timeout`` seconds more (plus a half-second grace), or ``(False,
        None)`` when it did not answer in time or died; either way the child
        is gone afterwards.  An exception raised by the call is raised here."""
        if self._here is not None:
            kind, value = self._here
        else:
            try:
                if self._receive is None or not self._receive.poll(max(0.0, timeout) + _GRACE):
                    return False, None
                try:
                    kind, value = pickle.loads(self._receive.recv_bytes())
                except (EOFError, OSError):
                    return False, None  # the child died before it answered
            finally:
                self.cancel()
        if kind == "error":
            raise value
        return True, value

    def cancel(self) -> None:
        """Kills the child and its process group (nothing once it is gone)."""
        if self._receive is not None:
            self._receive.close()
            self._receive = None
        if self._proc is not None:
            if self._proc.is_alive():
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    self._proc.kill()
            self._proc.join(1.0)
            self._proc = None


def call_in_child(fn: Callable[..., T], *args: Any, timeout: float) -> tuple[bool, T | None]:
    """``(True, fn(*args))`` computed in a forked child within ``timeout``
    seconds (plus a half-second grace), or ``(False, None)`` when the child
    did not answer in time or died (it is killed with its process group).
    An exception raised by ``fn`` is raised here.  ``fn``'s result must
    pickle."""
    call = ChildCall(fn, *args)
    try:
        return call.result(timeout)
    finally:
        call.cancel()
