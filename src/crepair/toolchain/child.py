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

import atexit
import os
import pickle
import signal
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")

_GRACE = 0.5  # seconds the child has to send its result after the limit before it is killed
_LIVE: set[int] = set()  # process ids of children not yet reaped: killed when this process exits


def _child(conn: Connection, fn: Callable[..., Any], args: tuple, nice: int = 0) -> None:
    os.setpgid(0, 0)  # its own process group: Ctrl-C reaches the parent, which kills it
    if nice:
        os.nice(nice)
    try:
        conn.send_bytes(pickle.dumps(("value", fn(*args))))
    except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises or reports it
        try:
            conn.send_bytes(pickle.dumps(("error", exc)))
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            conn.send_bytes(pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}"))))
    finally:
        conn.close()


def _kill(pid: int) -> None:
    """Kills the child ``pid`` and its process group, and reaps it."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            kill(target, signal.SIGKILL)
            break
        except (ProcessLookupError, PermissionError):
            continue
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    _LIVE.discard(pid)


def _kill_live() -> None:
    """Kills every child not yet reaped (at this process's exit)."""
    for pid in list(_LIVE):
        _kill(pid)


def _first_at_exit() -> None:
    """Registers :func:`_kill_live` as the exit handler that runs first
    (handlers run last registered, first run): a run's scratch folder is
    removed at exit by a ``weakref.finalize`` registered before, and a child
    still writing in it (a check beside the search, at Ctrl-C) made the
    removal meet new files and leave the folder behind."""
    atexit.unregister(_kill_live)
    atexit.register(_kill_live)


class ChildCall:
    """``fn(*args)`` started now in a forked child (see the module's
    docstring); :meth:`result` waits for its answer, :meth:`cancel` kills
    it.  Made with ``os.fork`` itself (not ``multiprocessing``, whose
    children may not have children: a bounded check run in a child starts
    Bitwuzla in one).  Where ``fork`` does not exist the call runs here,
    at once.  ``nice``: the child's niceness increment (0: this process's
    priority), for a call that runs beside work of this process and must
    not slow it down."""

    def __init__(self, fn: Callable[..., T], *args: Any, nice: int = 0):
        self.started = time.monotonic()
        self._pid: int | None = None
        self._receive: Connection | None = None
        self._here: tuple[str, Any] | None = None
        if not hasattr(os, "fork"):
            try:
                self._here = ("value", fn(*args))
            except Exception as exc:  # noqa: BLE001 - raised by result(), as from a child
                self._here = ("error", exc)
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: answer through the pipe, then leave without the parent's exit handlers
            os.close(read)
            try:
                _child(Connection(write), fn, args, nice)
            finally:
                os._exit(0)
        os.close(write)
        self._pid, self._receive = pid, Connection(read)
        _LIVE.add(pid)
        _first_at_exit()

    @property
    def running(self) -> bool:
        """Whether the child has not been killed or reaped yet."""
        return self._pid is not None

    def wait(self, timeout: float) -> bool:
        """Whether the answer is ready (or the child gone), waiting at most
        ``timeout`` seconds; the child is left running either way."""
        if self._here is not None or self._receive is None:
            return True
        return self._receive.poll(max(0.0, timeout))

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
        if self._pid is not None:
            _kill(self._pid)
            self._pid = None


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
