"""The local headers of a C file: those its ``#include "..."`` lines name
that exist next to the including file (as gcc looks them up first),
followed into the headers they include in turn.

>>> local_headers(Path("prog.c"))  # doctest: +SKIP
[PosixPath('sll.h'), PosixPath('util/list.h')]
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from crepair.frontend.source import decode

_QUOTE_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def local_headers(path: Path) -> list[Path]:
    """The local headers ``path`` includes, directly or through another
    local header: paths relative to ``path``'s folder (they may start with
    ``..``), sorted, each once.  A header named but not found next to its
    includer is left out (the preprocessor reports it).  Reads files only;
    raises ``OSError`` when ``path`` cannot be read."""
    base = Path(os.path.abspath(path.parent))
    found: set[Path] = set()
    todo = [Path(os.path.abspath(path))]
    while todo:
        current = todo.pop()
        text = decode(current.read_bytes())
        for name in _QUOTE_INCLUDE.findall(text):
            header = Path(os.path.normpath(current.parent / name))
            if header.is_file() and header not in found:
                found.add(header)
                todo.append(header)
    return sorted(Path(os.path.relpath(h, base)) for h in found)
