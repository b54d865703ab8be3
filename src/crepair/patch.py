"""Repairs as unified diffs of the user's original text, and ``--apply``.

Only the replaced tokens change; comments, macros and layout stay.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Sequence
from pathlib import Path

from crepair.errors import InternalError


def apply_edits(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied.

    Offsets are 0-based, end exclusive, in ``text``; edits must not overlap.
    """
    out, pos = [], 0
    for start, end, new in sorted(edits):
        if start < pos:
            raise InternalError("overlapping edits")
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def unified_diff(path: str, before: str, after: str, context: int = 3) -> str:
    """A unified diff from ``before`` to ``after`` labelled with ``path``."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path.lstrip('/')}",
        tofile=f"b/{path.lstrip('/')}",
        n=context,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def apply_to_file(path: str | Path, patched: str) -> Path:
    """Write ``patched`` to ``path`` after copying the original to
    ``path.orig`` (or ``.orig.N`` if that exists).  Returns the backup path."""
    path = Path(path)
    backup = path.with_name(path.name + ".orig")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.orig.{n}")
        n += 1
    shutil.copy2(path, backup)
    path.write_text(patched, encoding="utf-8", errors="surrogateescape")
    return backup
