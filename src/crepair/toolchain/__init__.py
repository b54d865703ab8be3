"""The one place that starts processes: gcc (``-E``, compiles,
``--coverage``), gcov, make and build commands, test drivers and programs
under test, gdb, the batch workers (DESIGN.md, ``toolchain/``).

:func:`run` runs a command to its end (or its time limit) and returns a
:class:`Completed` record; :func:`spawn` starts one for a caller that
watches it (a test run reading its output as it comes, a batch worker, a
gdb session); :func:`kill_group` ends a started command and everything it
started; :func:`find` is the path of a tool or a ``MissingTool`` error that
says how to install it.  Every command runs in a new session (process
group), so that killing it leaves no grandchildren behind.  The gdb
sessions' host side is :mod:`crepair.toolchain.gdb`, their gdb side
``gdb_graph.py``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from crepair.errors import MissingTool

#: the standard streams a caller may ask for (as in :mod:`subprocess`)
PIPE, DEVNULL, STDOUT = subprocess.PIPE, subprocess.DEVNULL, subprocess.STDOUT
#: what :func:`spawn` returns; ``Popen.wait``/``communicate`` raise it on their time limit
Process, TimeoutExpired = subprocess.Popen, subprocess.TimeoutExpired


@dataclass(frozen=True, slots=True)
class Completed:
    """A command that ended: its ``argv``; ``returncode`` (negative: killed
    by that signal; None: killed at the time limit, ``timed_out``); its
    ``stdout`` and ``stderr`` (bytes, or str with ``text``; ``b""``/``""``
    when not captured or merged into stdout); ``seconds`` of wall time."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: bytes | str
    stderr: bytes | str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """It ended by itself with exit status 0."""
        return self.returncode == 0


def find(name: str, missing: str, *alternatives: str) -> str:
    """The path of the program ``name`` (else of the first of
    ``alternatives`` found).  Raises ``MissingTool`` with the message
    ``missing`` (what needs the tool, and how to install it) when none is
    found."""
    for candidate in (name, *alternatives):
        found = shutil.which(candidate)
        if found:
            return found
    raise MissingTool(missing)


#: seconds an interrupted command has to end on SIGTERM before SIGKILL
STOP_GRACE = 1.0


def run(argv: Sequence[str], *, timeout: float | None = None, cwd: str | os.PathLike | None = None,
        env: Mapping[str, str] | None = None, input: bytes | str | None = None, text: bool = False,
        errors: str = "replace", stdout: int = PIPE, stderr: int = PIPE, remedy: str = "",
        memory: int | None = None, lift_memory_limit: bool = False) -> Completed:
    """Run ``argv`` to its end, at most ``timeout`` seconds (None: no
    limit; past it the command's whole process group is killed and the
    record says ``timed_out``; interrupted by an exception — Ctrl-C, SIGTERM —
    the group gets SIGTERM, and SIGKILL ``STOP_GRACE`` seconds later, and the
    exception goes on), in ``cwd`` with the environment ``env``
    (None: this process's), ``input`` on its standard input (None: none,
    /dev/null); ``text``: decode the output as UTF-8 (undecodable bytes as
    ``errors`` says: replaced by default); ``stdout``/``stderr``: PIPE (captured), DEVNULL, or STDOUT
    (stderr merged into stdout).  Raises ``MissingTool`` (saying
    ``remedy``) when the command cannot be started; a failing command is a
    result, not an exception."""
    start = time.monotonic()
    proc = spawn(argv, cwd=cwd, env=env, stdin=PIPE if input is not None else DEVNULL, stdout=stdout,
                 stderr=stderr, text=text, errors=errors, remedy=remedy, memory=memory,
                 lift_memory_limit=lift_memory_limit)
    timed_out = False
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        timed_out = True
    except BaseException:  # Ctrl-C, SIGTERM: ask first, so that gcc deletes its temporary files (/tmp/cc*)
        kill_group(proc, signal.SIGTERM)
        try:
            proc.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            pass
        finally:  # whatever is left of the group (also on a second interrupt)
            kill_group(proc)
            proc.wait()
        raise
    empty = "" if text else b""
    return Completed(tuple(str(a) for a in argv), None if timed_out else proc.returncode,
                     empty if out is None else out, empty if err is None else err,
                     time.monotonic() - start, timed_out)


def spawn(argv: Sequence[str], *, cwd: str | os.PathLike | None = None, env: Mapping[str, str] | None = None,
          stdin=DEVNULL, stdout=PIPE, stderr=PIPE, text: bool = False, errors: str = "replace",
          remedy: str = "", memory: int | None = None, lift_memory_limit: bool = False,
          pass_fds: Sequence[int] = ()) -> Process:
    """Start ``argv`` in a new session (its own process group) and return
    it; the caller waits for it and ends it with :func:`kill_group`.
    ``stdin``: DEVNULL, PIPE or an open file descriptor; ``text`` and
    ``errors`` as for :func:`run`; ``pass_fds``: further open file
    descriptors the command inherits (e.g. the pipes of a gdb session,
    :func:`crepair.toolchain.gdb.start`).  Raises
    ``MissingTool`` (saying ``remedy``) when it cannot be started.
    ``memory``: bytes of address space the command may use (None: no
    limit of its own); ``lift_memory_limit``: the command runs without the
    address-space limit this process set itself (``--memory``) — for
    sanitizer builds, which reserve terabytes they never use; the
    system's hard limit stays."""
    def limit() -> None:  # in the child, before exec
        import resource

        if lift_memory_limit:
            hard = resource.getrlimit(resource.RLIMIT_AS)[1]
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    try:
        return subprocess.Popen(list(argv), cwd=cwd, env=None if env is None else dict(env), stdin=stdin,
                                stdout=stdout, stderr=stderr, text=text or None,
                                errors=errors if text else None, start_new_session=True, pass_fds=tuple(pass_fds),
                                preexec_fn=limit if memory is not None or lift_memory_limit else None)
    except OSError as exc:
        raise MissingTool(f"cannot run {argv[0]}: {exc.strerror or exc}" + (f": {remedy}" if remedy else "")) \
            from None


def kill_group(proc: Process | int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to the process group of ``proc`` (a started command or
    its pid): the command and whatever it started.  A group already gone
    is no error."""
    pid = proc if isinstance(proc, int) else proc.pid
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_children(sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to every child process of this process and to its
    process group (gcc, tests, gdb: each started in a group of its own by
    :func:`spawn`; a child not yet in its own group gets it alone), before
    ``os._exit``, which would leave them running (Linux:
    ``/proc/PID/task/*/children``; elsewhere nothing)."""
    import glob

    for name in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        try:
            pids = [int(pid) for pid in open(name).read().split()]
        except (OSError, ValueError):
            continue
        for pid in pids:
            kill_group(pid, sig)
            try:
                os.kill(pid, sig)
            except OSError:
                pass


__all__ = ["DEVNULL", "PIPE", "STDOUT", "Completed", "Process", "TimeoutExpired", "find", "kill_children", "kill_group",
           "run", "spawn"]
