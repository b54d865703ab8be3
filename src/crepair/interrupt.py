"""Ctrl-C (SIGINT) that stops a run, even in the middle of a z3 check;
SIGTERM (``kill``, a batch system's time limit) stops it the same way, so
that its temporary folders and child processes go as they do on Ctrl-C.

z3 catches SIGINT itself while it checks (unless its parameter ``ctrl_c``
is off): the check answers ``unknown`` and Python never sees the signal,
so a run would go on (and, say, apply a repair).  With z3's handling off
(:func:`crepair.solver.smt.leave_ctrl_c_to_caller`), :class:`InterruptWatch`
keeps Python's handler in place, and a watcher thread woken by the signal
(``signal.set_wakeup_fd``) calls ``on_signal`` (the command line passes
one that interrupts the z3 checks in progress) every 0.1 s until the run
has stopped, so an interrupt that lands between two checks is not lost.

``KeyboardInterrupt`` is raised in the main thread once: by the handler,
but not inside z3's Python code nor a finalizer (``__del__``), where it
would become a ``ctypes.ArgumentError`` or be printed and ignored; there
the watcher asks again 0.1 s later (``_thread.interrupt_main``), and the
solver wrapper and the encoder raise it at their next step
(:func:`stop_if_requested`).  A second one, from a handler call still
pending, would escape the command line's ``except``.

The state is the process's, as signal handlers are: one watch at a time,
in the main thread.  No import of z3 here: the command line installs the
watch before it loads the stages.
"""

from __future__ import annotations

import _thread
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable

_REQUESTED = threading.Event()  # SIGINT or SIGTERM arrived (process-wide, as the signal is)
_RAISED = threading.Event()  # KeyboardInterrupt raised for it
_RETRY_SECONDS = 0.1
_STOPPING = (signal.SIGINT, signal.SIGTERM)  # the signals that stop a run
_RECEIVED: list[int] = []  # the stopping signals that arrived, in order


def terminated() -> bool:
    """Whether the run was stopped by SIGTERM rather than Ctrl-C (the
    command line then exits 143, as a shell reports a terminated process)."""
    return bool(_RECEIVED) and _RECEIVED[0] == signal.SIGTERM


def requested() -> bool:
    """Whether SIGINT arrived while an :class:`InterruptWatch` was installed."""
    return _REQUESTED.is_set()


def stop_solvers() -> None:
    """Interrupt the z3 checks in progress, if z3 is loaded (an
    ``on_signal`` for :class:`InterruptWatch`; nothing is imported here)."""
    smt = sys.modules.get("crepair.solver.smt")
    if smt is not None:
        smt.interrupt_checks()


def stop_if_requested() -> None:
    """Raise ``KeyboardInterrupt`` if SIGINT arrived (:func:`requested`);
    the solver wrapper calls it around every check, the encoder between
    statements."""
    if _REQUESTED.is_set():
        _RAISED.set()
        raise KeyboardInterrupt


def _unsafe(frame) -> bool:
    """Whether ``frame`` or a caller runs z3's Python code, a finalizer or
    a garbage-collector callback (``gc.callbacks``, e.g. hypothesis's
    timer: an exception there is printed and ignored)."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        if name == "z3" or name.startswith("z3.") or frame.f_code.co_name == "__del__" or frame.f_code in callbacks:
            return True
        frame = frame.f_back
    return False


def _on_sigint(signum, frame) -> None:
    if not _RECEIVED:
        _RECEIVED.append(signum)
    _REQUESTED.set()
    if not _RAISED.is_set() and not _unsafe(frame):
        _RAISED.set()
        raise KeyboardInterrupt


class InterruptWatch:
    """A ``with`` block in which SIGINT or SIGTERM stops the run (module
    docstring); ``on_signal``: called from the watcher thread once the
    signal came, and again every 0.1 s until the block ends.  Installs
    nothing outside the main thread; leaves SIGINT alone when it is ignored
    (a background job), and SIGTERM when someone else handles or ignores it."""

    def __init__(self, on_signal: Callable[[], None] | None = None) -> None:
        self._on_signal = on_signal
        self._pipe: tuple[int, int] | None = None
        self._old_fd = -1
        self._old_handlers: dict[int, object] = {}
        self._thread: threading.Thread | None = None
        self.fired = False  # SIGINT or SIGTERM arrived within the block (set on leaving it)

    def __enter__(self) -> "InterruptWatch":
        if threading.current_thread() is not threading.main_thread():
            return self
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return self
        _REQUESTED.clear()
        _RAISED.clear()
        _RECEIVED.clear()
        read, write = os.pipe()
        os.set_blocking(write, False)
        self._pipe = (read, write)
        self._old_handlers = {sig: signal.signal(sig, _on_sigint) for sig in _STOPPING
                              if sig == signal.SIGINT or signal.getsignal(sig) is signal.SIG_DFL}
        self._old_fd = signal.set_wakeup_fd(write)
        self._thread = threading.Thread(target=self._watch, args=(read,), name="crepair-sigint", daemon=True)
        self._thread.start()
        return self

    def _watch(self, read: int) -> None:
        while True:
            try:
                data = os.read(read, 64)
            except OSError:
                return
            if not data:
                return
            came = [sig for sig in self._old_handlers if sig in data]
            if came:
                if not _RECEIVED:
                    _RECEIVED.append(came[0])
                break
        _REQUESTED.set()
        while self._pipe is not None:
            if self._on_signal is not None:
                self._on_signal()
            if not _RAISED.is_set():
                _thread.interrupt_main()  # the handler again, at a safe point this time
            threading.Event().wait(_RETRY_SECONDS)

    def __exit__(self, *exc) -> None:
        if self._pipe is None:
            return
        self.fired = _REQUESTED.is_set()
        read, write = self._pipe
        self._pipe = None
        signal.set_wakeup_fd(self._old_fd)
        if self.fired:
            _RAISED.set()  # a handler call still pending must not raise outside the block
        else:
            for sig, handler in self._old_handlers.items():
                signal.signal(sig, handler)
        os.close(write)
        self._thread.join(timeout=1)
        os.close(read)
        _REQUESTED.clear()
