"""One search space over several files of a project (f1x's ``--files
a.c b.c``).

Each file has its own :class:`~crepair.testequiv.candidates.SearchSpace`
(its own dense site and candidate ids, the ids its meta-program is built
with) and its own meta-program, compiled as its own translation unit; the
runtime's tables are ``static`` per unit, so each unit gets a range of
*runtime ids*: the file's candidate ``c`` is ``offset + c``, the offsets
laid end to end (:func:`crepair.testequiv.metaprogram.instrument`,
``offset=``).

The search needs one space in one order: :func:`link` merges the files'
spaces into a combined ``SearchSpace`` whose ids are *search ids*
(candidates in global search order: cost, then the site's global rank,
then the shorter replacement, the replacement text; sites numbered file
by file).  A site stays in its file, so the candidates of a site — the
members a test-equivalence class may have (Algorithm 3) — are those of one
file.  Within one file the order is the file's own, so one file linked
alone gives back its space with the same ids.

Source: Mechtaev, Gao, Tan, Roychoudhury, TOSEM'18, §4 (Algorithm 3), §5;
the f1x tool's ``--files``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from crepair.frontend import CProgram
from crepair.testequiv.candidates import SearchSpace


@dataclass(frozen=True, slots=True)
class FilePart:
    """One file of a linked space: ``file``, its path relative to the
    project (POSIX); ``program``, it loaded; ``space``, its own search space
    (local ids); ``offset``, the runtime id of its candidate 0;
    ``site_offset``, the search id of its site 0."""

    file: str
    program: CProgram
    space: SearchSpace
    offset: int
    site_offset: int


@dataclass(frozen=True, slots=True)
class LinkedSpace:
    """The files' parts and the combined ``space`` (search ids).
    ``owner[p]`` is the index in ``parts`` of search candidate ``p``'s
    file and ``local[p]`` its id in that file's space; ``search[k][c]`` the
    search id of file ``k``'s candidate ``c``; ``runtime[p]`` the runtime id
    of search candidate ``p`` and ``by_runtime[r]`` the search id of runtime
    id ``r`` (tables: a class is hundreds of ids, at every execution)."""

    parts: tuple[FilePart, ...]
    space: SearchSpace
    owner: tuple[int, ...]
    local: tuple[int, ...]
    search: tuple[tuple[int, ...], ...]
    runtime: tuple[int, ...] = field(init=False)
    by_runtime: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:  # the tables, derived once from the fields above
        object.__setattr__(self, "runtime", tuple(self.parts[k].offset + c for k, c in zip(self.owner, self.local)))
        # the files' runtime ids are laid end to end
        object.__setattr__(self, "by_runtime", tuple(n for ids in self.search for n in ids))

    def part(self, p: int) -> FilePart:
        """The file of search candidate ``p``."""
        return self.parts[self.owner[p]]

    def runtime_id(self, p: int) -> int:
        """The ``CREPAIR_CANDIDATE`` of search candidate ``p``."""
        return self.runtime[p]

    def runtime_ids(self, ps: Iterable[int]) -> frozenset[int]:
        return frozenset(map(self.runtime.__getitem__, ps))

    def search_ids(self, rs: Iterable[int]) -> frozenset[int]:
        """The search ids of runtime ids ``rs`` (ids of no file are dropped)."""
        table, n = self.by_runtime, len(self.by_runtime)
        return frozenset(table[r] for r in rs if 0 <= r < n)

    def lift(self, k: int, classes: Mapping[int, frozenset[int]]) -> dict[int, frozenset[int]]:
        """Classes of file ``k``'s local candidate ids (e.g.
        :func:`~crepair.testequiv.deps.dependency_classes`) in search ids."""
        ids = self.search[k]
        return {ids[c]: frozenset(ids[m] for m in cls) for c, cls in classes.items()}


def link(parts: Sequence[tuple[str, CProgram, SearchSpace, Mapping[int, int]]]) -> LinkedSpace:
    """The linked space of ``parts``: per file its project-relative path,
    its program, its space and its line ranks (1-based line -> global rank,
    0 = most suspicious; a site's rank is its first line's, unranked last).
    Sites are ordered by (rank, file's place in ``parts``, the site's own
    ``order``); candidates by (cost, site position, length and text of the
    replacement, file, local id).  The combined sites keep their spans (so
    their file) with ``order`` the global position; nothing is mutated."""
    sites, linked_parts, offset, site_offset = [], [], 0, 0
    for k, (file, program, space, ranks) in enumerate(parts):
        linked_parts.append(FilePart(file, program, space, offset, site_offset))
        for s in space.sites:
            sites.append((ranks.get(s.span.line, math.inf), k, s.order, site_offset + s.id, s))
        offset += len(space.candidates)
        site_offset += len(space.sites)
    position = {gid: n for n, (*_, gid, _) in enumerate(sorted(sites, key=lambda x: x[:3]))}
    combined_sites = tuple(replace(s, id=gid, order=position[gid]) for *_, gid, s in sorted(sites, key=lambda x: x[3]))
    drafts = []
    for k, part in enumerate(linked_parts):
        for c in part.space.candidates:
            gsite = part.site_offset + c.site
            drafts.append((c.cost, position[gsite], len(c.replacement), c.replacement, k, c.id, gsite, c))
    drafts.sort(key=lambda d: d[:6])
    candidates = tuple(d[7] if d[7].id == n and d[7].site == d[6] else replace(d[7], id=n, site=d[6])
                       for n, d in enumerate(drafts))  # one file: mostly the same ids (no copy)
    skipped = tuple(s for part in linked_parts for s in part.space.skipped)
    search = [[0] * len(part.space.candidates) for part in linked_parts]
    for n, d in enumerate(drafts):
        search[d[4]][d[5]] = n
    pruned: dict[str, int] = {}
    for part in linked_parts:
        for rule, n in part.space.pruned:
            pruned[rule] = pruned.get(rule, 0) + n
    return LinkedSpace(tuple(linked_parts), SearchSpace(combined_sites, candidates, skipped, tuple(pruned.items())),
                       tuple(d[4] for d in drafts), tuple(d[5] for d in drafts), tuple(map(tuple, search)))
