"""The results file of a batch: one JSON object a line, appended as jobs finish.

Each line is a job's record (:mod:`crepair.batch.job`), written with one
``write`` and flushed to disk (``fsync``) before the next job's, so an
interrupted batch loses nothing already written but, at worst, a last line
cut short, which :meth:`ResultsFile.open` drops.  ``--resume`` keeps the
records there and runs only the jobs whose ``id`` has none.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from crepair.errors import BadInput, UsageError


class ResultsFile:
    """The JSON-lines results file at ``path``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._fh = None

    def records(self) -> list[dict]:
        """The complete records in the file, in file order (a line cut
        short by an interruption is skipped; later records of the same id
        replace earlier ones).  Raises ``BadInput`` for a line that is not
        a record."""
        if not self.path.exists():
            return []
        text = self.path.read_text(encoding="utf-8", errors="surrogateescape")
        lines = text.split("\n")
        if not text.endswith("\n"):
            lines = lines[:-1]  # the last line was cut short
        by_id: dict[str, dict] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                raise BadInput(f"{self.path}:{number}: not a results line (JSON object)") from None
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                raise BadInput(f"{self.path}:{number}: a results line has an \"id\", a string")
            by_id[record["id"]] = record
        return list(by_id.values())

    def open(self, resume: bool) -> dict[str, dict]:
        """Open for appending and return the records already there by id.
        Without ``resume`` the file must not exist (``UsageError``: crepair
        never overwrites results); with it, a last line cut short is
        removed first.  ``UsageError`` too when the path is not a regular
        file or cannot be written (e.g. under a regular file)."""
        if self.path.exists() and not self.path.is_file():
            raise UsageError(f"-o {self.path}: not a regular file (-o names the results file)")
        if self.path.exists() and not resume:
            raise UsageError(f"{self.path} exists: give --resume to continue that batch, or another --output")
        try:
            done = {r["id"]: r for r in self.records()} if resume else {}
            if self.path.exists():
                data = self.path.read_bytes()
                if data and not data.endswith(b"\n"):
                    with open(self.path, "r+b") as fh:
                        fh.truncate(data.rfind(b"\n") + 1)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", errors="surrogateescape")
        except OSError as exc:
            raise UsageError(f"-o {self.path}: cannot write the results there: {exc.strerror or exc}") from None
        return done

    def append(self, record: dict) -> None:
        """Write ``record`` as one line and flush it to disk."""
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
