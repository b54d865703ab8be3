"""What a reference implementation answers, kept from one run to the next.

A teacher repairs hundreds of submissions against one model solution, a
contest judge many programs against one accepted one: every staged run
(:mod:`crepair.schemes.staged`) asks the same reference for its outputs on
test inputs (the given tests always, generated inputs often) and runs the
same bounded check of the reference alone (whether its runs fit the
unwinding bound, several seconds).  The answers depend only on the
reference's preprocessed text, the compiler, crepair's own code and the
question, so they are kept in one SQLite file (``reference.sqlite`` in the
cache folder; the command line's default is ``$XDG_CACHE_HOME/crepair``,
else ``~/.cache/crepair``), under a *fingerprint* of all these.

Only answers that do not depend on the time a run had are kept: an output,
or a rejection by a sanitizer, a signal or builds that disagree — never a
time limit reached; the reference's bounded check only when every bound it
tried was decided.  A cache that cannot be read or written is left alone
(the run computes everything, as without one); nothing of the user's is
in it beyond what the reference prints.  The answers under a fingerprint
no run has used for :data:`KEEP_DAYS` days (another version of crepair,
a model solution edited since) are dropped when a cache is opened.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from crepair import toolchain

FILE_NAME = "reference.sqlite"
BUSY_SECONDS = 10.0  # how long a write waits for another run holding the file
KEEP_DAYS = 30  # the answers under a fingerprint no run used for this long are dropped
_SCHEMA = ("CREATE TABLE IF NOT EXISTS answers (fingerprint TEXT, kind TEXT, question BLOB, answer BLOB, "
           "PRIMARY KEY (fingerprint, kind, question))",
           "CREATE TABLE IF NOT EXISTS used (fingerprint TEXT PRIMARY KEY, at REAL)")


def default_folder() -> Path:
    """The cache folder the command line uses without ``--cache``:
    ``$XDG_CACHE_HOME/crepair``, else ``~/.cache/crepair``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "crepair"


@cache
def _code_digest() -> bytes:
    """A digest of crepair's own code (every ``.py``, ``.h`` and ``.c``
    file of the package): answers computed by another version are not used."""
    root, digest = Path(__file__).resolve().parent.parent, hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".h", ".c") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def fingerprint(reference: Path, timeout: float = 60.0) -> str | None:
    """The fingerprint of the reference at ``reference``: its text as gcc
    preprocesses it (its folder on the include path, as it is built), the
    compiler (path, size and time of change) and crepair's code; None when
    gcc cannot preprocess it (then nothing is kept).  Raises
    ``MissingTool`` without gcc."""
    gcc = toolchain.find("gcc", "gcc not found: install gcc (e.g. apt-get install gcc)")
    done = toolchain.run([gcc, "-E", "-P", "-std=gnu99", "-I", str(reference.parent), str(reference)],
                         timeout=timeout)
    if not done.ok:
        return None
    stat = os.stat(os.path.realpath(gcc))
    digest = hashlib.sha256(_code_digest())
    digest.update(f"{os.path.realpath(gcc)}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    digest.update(done.stdout if isinstance(done.stdout, bytes) else done.stdout.encode())
    return digest.hexdigest()


def question_of(*parts: bytes | str) -> bytes:
    """A question's key: the digest of ``parts`` (a kind's settings, then an input)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.digest()


@dataclass(slots=True)
class ReferenceCache:
    """The kept answers of one reference (its :func:`fingerprint`) in the
    SQLite file at ``path``.  :meth:`get` reads, :meth:`put` queues an
    answer and :meth:`flush` writes the queue in one transaction (from
    any thread: one at a time).  ``hits``/``misses`` count :meth:`get`'s answers;
    ``broken``: the file could not be read or written (the cache is off)."""

    path: Path
    fingerprint: str
    hits: int = 0
    misses: int = 0
    broken: bool = False
    _queued: list[tuple[str, bytes, bytes | None]] = field(default_factory=list)
    _connection: sqlite3.Connection | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def open(cls, folder: str | Path | None, reference: str | Path) -> "ReferenceCache | None":
        """The cache of ``reference`` in ``folder`` (created when missing),
        or None: no folder, a reference gcc cannot preprocess, or a folder
        that cannot be written."""
        if folder is None:
            return None
        key = fingerprint(Path(reference))
        if key is None:
            return None
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            kept = cls(Path(folder) / FILE_NAME, key)
            kept._connect()
        except (OSError, sqlite3.Error):
            return None
        return kept

    def _connect(self) -> sqlite3.Connection:
        """The open file; opening it records this fingerprint's use and drops the answers of the fingerprints
        unused for :data:`KEEP_DAYS` days."""
        if self._connection is None:
            connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS, check_same_thread=False)
            with connection:
                for statement in _SCHEMA:
                    connection.execute(statement)
                now = time.time()
                connection.execute("INSERT OR REPLACE INTO used VALUES (?, ?)", (self.fingerprint, now))
                stale = [row[0] for row in connection.execute("SELECT fingerprint FROM used WHERE at < ?",
                                                              (now - KEEP_DAYS * 86400.0,))]
                for key in stale:
                    connection.execute("DELETE FROM answers WHERE fingerprint = ?", (key,))
                    connection.execute("DELETE FROM used WHERE fingerprint = ?", (key,))
            self._connection = connection
        return self._connection

    def get(self, kind: str, question: bytes) -> tuple[bool, bytes | None]:
        """(True, the answer) when one is kept for ``question`` of ``kind``
        (an answer may be None: e.g. an input the reference rejects), else
        (False, None)."""
        if self.broken:
            return False, None
        try:
            with self._lock:
                row = self._connect().execute(
                    "SELECT answer FROM answers WHERE fingerprint = ? AND kind = ? AND question = ?",
                    (self.fingerprint, kind, question)).fetchone()
        except sqlite3.Error:
            self.broken = True
            return False, None
        if row is None:
            self.misses += 1
            return False, None
        self.hits += 1
        return True, row[0]

    def put(self, kind: str, question: bytes, answer: bytes | None) -> None:
        """Queue ``answer`` to ``question`` of ``kind`` (written by :meth:`flush`)."""
        if not self.broken:
            with self._lock:
                self._queued.append((kind, question, answer))

    def flush(self) -> None:
        """Write the queued answers (another run's answer to the same
        question is replaced: both are the same)."""
        with self._lock:
            rows, self._queued = [(self.fingerprint, *q) for q in self._queued], []
            if self.broken or not rows:
                return
            try:
                with self._connect() as connection:
                    connection.executemany("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?)", rows)
            except sqlite3.Error:
                self.broken = True

    def close(self) -> None:
        """Flush and close the file."""
        self.flush()
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
