"""How a run of the meta-program is driven and what it leaves: environment
variables, the partition file and the trace file.

Environment of one run (every process of a test inherits it):

- ``CREPAIR_CANDIDATE=<id>``: the running candidate (a decimal id of the
  search space); unset, empty, ``-1`` or an id the meta-program does not
  have: the original program, every site behaving exactly as the original.
  A program linking several meta-programs (one per file, see
  ``instrument(..., offset=K)``) gives each a range of ids: the one whose
  range holds the id runs it, the others behave as the original and leave
  the partition and trace files alone.  Ids in the partition file are the
  same global ids.
- ``CREPAIR_PARTITION=<path>``: the candidates whose membership in the
  running candidate's test-equivalence class is computed (value
  projection, Algorithm 1 of TOSEM'18 §3.3).  See *Partition file*.
- ``CREPAIR_TRACE=<path>``: append the executed STMT and DECL sites (for the
  dependency-based relation, §3.4).  See *Trace file*.
- ``CREPAIR_STEPS=<n>``: a process that executes the running candidate's
  site more than ``n`` times kills itself (SIGKILL), as a time-out would:
  a candidate that loops forever in its own code ends in microseconds, not
  at the time limit.  All STMT and DECL sites together may execute ``16 n``
  times (whether a candidate runs there or not; not EXPR sites, which the
  others' evaluation may run): a loop the candidate's site is not in ends
  too.  Unlike a time-out, these limits are deterministic, so the process
  first writes its class (step 2 below): each candidate of the class
  executes every statement just as often.  Unset or not a number: no limit.

Partition file (text): decimal candidate ids, one a line, and optionally a
first line ``# crepair-partition gen=<n>``; other ``#`` lines and tokens
that are not decimal numbers are ignored.  :func:`write_partition` writes
it with ``gen=0``.  Each process of the test that executes the running
candidate's site reads the file at the site's first execution, then (under
an exclusive ``flock`` of ``<path>.lock``, writing through
``<path>.crepair-tmp.<pid>`` renamed over ``<path>``):

1. at once rewrites it to the running candidate alone (if it was listed),
   ``gen`` + 1: what a process killed from then on (SIGKILL, or SIGTERM at
   a time-out) leaves, because agreeing with the running candidate so far
   says nothing about a run that was stopped;
2. at exit (``exit`` or the end of ``main``), when out of steps and at a
   fault it causes itself (SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT, SIGTRAP,
   SIGSYS), rewrites it
   to the class: the listed candidates of the running candidate's site and
   group whose value equalled the running candidate's at every execution of
   the site (and, for a fault of the running candidate inside the site,
   that fault there the same way: the same signal, or, when it was the
   original expression that faulted, reading ``__cr_e``), plus the running
   candidate; intersected with the file's content when another process
   (a ``fork``-ed child, a process run at the same time) wrote it meanwhile.

A process that never executes the site leaves the file alone: every listed
candidate survives it.  So a test that runs the program several times, one
after the other, narrows the file run by run (intersection).  Listed ids of
other sites never survive an execution of the site; listed ids of the site
in other groups, with side effects, or of a site whose candidates are not
partitioned (DECL; EXPR sites with side effects) leave at its first
execution.  The result is always a subset of the listed ids.

Trace file (binary, little-endian unsigned 32-bit words, appended with one
``write`` per chunk): chunks ``0xFFFFFFFE, pid, count, site_1 .. site_count``;
a process's last chunk is followed by ``0xFFFFFFFF, pid`` (complete: exit or
a fault of its own) or ``0xFFFFFFFD, pid`` (truncated after 1,048,576
entries).  A process without either marker was killed: its trace is
incomplete.  Only STMT and DECL sites are recorded (EXPR sites and code that
is no site are not); a ``fork``-ed child that does not ``exec`` repeats its
parent's unflushed entries.

Source: Mechtaev, Gao, Tan, Roychoudhury, "Test-Equivalence Analysis for
Automatic Patch Generation", TOSEM'18, §3.3, §3.4, §5.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from crepair.errors import InternalError

CANDIDATE_ENV = "CREPAIR_CANDIDATE"
PARTITION_ENV = "CREPAIR_PARTITION"
TRACE_ENV = "CREPAIR_TRACE"
STEPS_ENV = "CREPAIR_STEPS"
ORIGINAL = -1  # CREPAIR_CANDIDATE of the original program

RUNTIME_HEADER = Path(__file__).resolve().parent / "runtime" / "crepair_rt.h"

TRACE_CHUNK = 0xFFFFFFFE
TRACE_END = 0xFFFFFFFF
TRACE_CUT = 0xFFFFFFFD
TRACE_LIMIT = 1_048_576  # entries per process


def run_environment(candidate: int | None = None, *, partition: str | os.PathLike | None = None,
                    trace: str | os.PathLike | None = None, steps: int | None = None) -> dict[str, str]:
    """The ``CREPAIR_*`` variables of one run: ``candidate`` None or
    :data:`ORIGINAL` for the original program; ``steps``: the most
    executions of the candidate's site (None: no limit).  A new dict."""
    env = {CANDIDATE_ENV: str(ORIGINAL if candidate is None else candidate)}
    if partition is not None:
        env[PARTITION_ENV] = os.fspath(partition)
    if trace is not None:
        env[TRACE_ENV] = os.fspath(trace)
    if steps is not None:
        env[STEPS_ENV] = str(steps)
    return env


def write_partition(path: str | os.PathLike, ids: Iterable[int]) -> None:
    """Write the partition file ``path`` listing ``ids`` (ascending,
    ``gen=0``), in place: its readers are the processes of the test run
    started after it returns (the search writes it before every execution,
    hundreds of ids each time).  Raises ``ValueError`` for a negative id
    and ``OSError`` when the file cannot be written."""
    ids = sorted(set(ids))
    if ids and ids[0] < 0:
        raise ValueError(f"candidate ids are non-negative, not {ids[0]}")
    global _ID_LINES
    lines = _ID_LINES
    if ids and ids[-1] >= len(lines):  # a longer table, rebound whole (threads may write partitions)
        lines = _ID_LINES = (*lines, *(f"{i}\n" for i in range(len(lines), 2 * ids[-1] + 1)))
    data = ("# crepair-partition gen=0\n" + "".join(map(lines.__getitem__, ids))).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


_ID_LINES: tuple[str, ...] = ()  # "<id>\n" of each id written so far: formatting them was most of the time


def _parse_partition(text: str, path: str | os.PathLike) -> tuple[frozenset[int], int]:
    ids: set[int] = set()
    gen = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("#"):
            for word in line[1:].split():
                if word.startswith("gen=") and word[4:].isdigit():
                    gen = int(word[4:])
            continue
        for token in line.replace(",", " ").split():
            if not token.isdigit():
                raise InternalError(f"{path}:{number}: {token!r} is not a candidate id")
            ids.add(int(token))
    return frozenset(ids), gen


def read_partition(path: str | os.PathLike) -> frozenset[int]:
    """The candidate ids listed in the partition file ``path``.  Raises
    ``OSError`` when it cannot be read, ``InternalError`` when a line is
    neither a comment nor decimal ids."""
    return _parse_partition(Path(path).read_text(), path)[0]


def partition_generation(path: str | os.PathLike) -> int:
    """How many times processes rewrote the partition file ``path`` since
    :func:`write_partition` (0: no process executed the site)."""
    return _parse_partition(Path(path).read_text(), path)[1]


@dataclass(frozen=True, slots=True)
class ProcessTrace:
    """The STMT/DECL sites one process executed, in order (``sites``: site
    ids); ``complete``: it exited or died of its own fault with every entry
    written; ``truncated``: it stopped recording at :data:`TRACE_LIMIT`."""

    pid: int
    sites: tuple[int, ...]
    complete: bool
    truncated: bool = False


def read_trace(path: str | os.PathLike) -> tuple[ProcessTrace, ...]:
    """The processes of a trace file, in the order of their first chunk; an
    empty tuple when ``path`` does not exist.  Raises ``InternalError`` on a
    malformed file."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return ()
    if len(data) % 4:
        raise InternalError(f"{path}: a trace is a sequence of 32-bit words ({len(data)} bytes)")
    words = struct.unpack(f"<{len(data) // 4}I", data)
    sites: dict[int, list[int]] = {}
    ends: dict[int, int] = {}
    i = 0
    while i < len(words):
        if words[i] in (TRACE_END, TRACE_CUT) and i + 1 < len(words):
            ends[words[i + 1]] = words[i]
            i += 2
            continue
        if words[i] != TRACE_CHUNK or i + 3 > len(words) or i + 3 + words[i + 2] > len(words):
            raise InternalError(f"{path}: malformed trace at word {i}")
        pid, count = words[i + 1], words[i + 2]
        sites.setdefault(pid, []).extend(words[i + 3:i + 3 + count])
        i += 3 + count
    return tuple(ProcessTrace(pid, tuple(s), pid in ends, ends.get(pid) == TRACE_CUT) for pid, s in sites.items())
