"""Which files of a project a test-driven run may change, and their
linked search space (f1x's ``--files a.c b.c`` and file localization).

Explicit files: the program and the files the user names after it, every
one inside the project directory.  File localization: the project's ``.c``
files that every failing test executes (from coverage), ranked by their
most suspicious line (Ochiai and the other formulas count tests, so scores
of lines of different files compare), ties: the program first, then by path.

Paths: *project* paths are POSIX and relative to the project (what a
workspace replaces); *display* paths are the user's (what diffs, records
and ``--apply`` name): the path as given for an explicit file, else the
path relative to the current directory (absolute when it lies above it).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from crepair.errors import UsageError
from crepair.localization.spectrum import RankedLine
from crepair.testequiv.linked import LinkedSpace, link

_SKIP_DIRS = {".git", ".hg", ".svn"}


def project_path(project: Path, given: str | Path) -> str:
    """The project path of the C file ``given`` (a path from the current
    directory).  Raises ``UsageError`` when it is missing or outside
    ``project``."""
    path = Path(given)
    if not path.is_file():
        raise UsageError(f"{given}: no such file")
    real = path.resolve()
    if not real.is_relative_to(project):
        raise UsageError(f"{given}: not inside the project directory {project} (every file to change must be)")
    return real.relative_to(project).as_posix()


def c_files(project: Path) -> tuple[str, ...]:
    """The project paths of every ``.c`` file of ``project`` (version
    control folders and ``heldout-*`` files left out), sorted."""
    found = []
    for folder, dirs, names in os.walk(project):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        here = Path(folder).relative_to(project)
        found += [(here / n).as_posix() for n in names if n.endswith(".c") and not n.startswith("heldout-")]
    return tuple(sorted(found))


def localized(ranking: Sequence[RankedLine], max_files: int | None = None) -> tuple[str, ...]:
    """The files of a :func:`~crepair.localization.spectrum.rank_files`
    ranking, in the order of their first (most suspicious) line, at most
    ``max_files`` (None: all)."""
    files = list(dict.fromkeys(r.file for r in ranking))
    return tuple(files if max_files is None else files[:max_files])


def display_path(project: Path, file: str) -> str:
    """The display path of project path ``file``."""
    path = project / file
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") else Path(rel).as_posix()


def linked_space(project: Path, files: Sequence[tuple[str, str]], ranking: Sequence[RankedLine],
                 lines: Collection[int] | None = None, options=None) -> LinkedSpace:
    """Load every file (``(project path, display path)`` pairs, the
    program first) and build its search space over its lines that every
    failing test executes (``ranking``; ``lines``: only these lines of the
    first file), linked in one global order by the lines' ranks
    (``options``: the :class:`~crepair.testequiv.space.SpaceOptions`,
    None for the defaults).  Raises
    ``BadInput`` for a file that does not parse."""
    from crepair.frontend import load_program
    from crepair.testequiv.space import SpaceOptions, build_space

    parts = []
    for k, (file, shown) in enumerate(files):
        program = load_program(shown, real_c=True)
        order = {r.line: i for i, r in enumerate(ranking) if r.file == file}
        wanted = set(order)
        if k == 0 and lines is not None:
            wanted &= set(lines)
        space = build_space(program, lines=wanted, rank=order, options=options or SpaceOptions())
        parts.append((file, program, space, order))
    return link(parts)
