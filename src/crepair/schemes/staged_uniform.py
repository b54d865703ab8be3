"""One presentation error made at every output call: the same FORMAT edit
at each literal it applies to, as one repair (crepair's own).

A student who forgets the final newline forgets it in every ``printf`` of
the program — one per branch of an ``if`` chain, each test exercising one
branch.  f1x's search changes one location at a time, and a partial fix
that repairs one branch passes only the tests of that branch, so the
rounds of a staged run (:mod:`crepair.schemes.staged`) would need one
round per branch.  Here each *uniform edit* (:data:`UNIFORM`) is applied at
once to every FORMAT site whose candidates hold it, when that is two sites
or more (one site is the search's own business): a few whole programs,
each checked like any other plausible patch.

Each site's edit is one of the site's FORMAT candidates
(:mod:`crepair.testequiv.formats`), so the patch keeps what those
guarantee (gcc's format check, the arguments' types).  Offsets are 0-based
character offsets into the original, ends exclusive.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from crepair.frontend import load_program
from crepair.patch import apply_edits, unified_diff
from crepair.records import PassesTests, Repair, Scheme
from crepair.schemes.staged_spans import named
from crepair.schemes.test_driven_patches import candidate_repair
from crepair.testequiv.candidates import Candidate, Schema
from crepair.testequiv.formats import literal_body, without_prompt
from crepair.testequiv.space import SpaceOptions, build_space


def _newline_added(body: str) -> str | None:
    return None if body.endswith("\\n") else body + "\\n"


def _newline_deleted(body: str) -> str | None:
    return body[:-2] if body.endswith("\\n") and len(body) > 2 else None


def _blank_before_newline_deleted(body: str) -> str | None:
    return body[:-3] + "\\n" if body.endswith(" \\n") else None


UNIFORM: tuple[tuple[str, Callable[[str], str | None]], ...] = (
    ("a newline at the end of every output", _newline_added),
    ("no newline at the end of any output", _newline_deleted),
    ("no blank before the final newline of any output", _blank_before_newline_deleted),
    ("no words before the first value of any output", without_prompt),
)


def uniform_repairs(path: Path, original: str, literals: tuple[str, ...], seconds: float,
                    name: str | Path | None = None) -> list[Repair]:
    """The uniform edits (:data:`UNIFORM`, in that order) of ``original``
    (the text of the program at ``path``, a copy with its headers beside)
    that apply at two FORMAT sites or more, each as an unchecked
    :class:`Repair` of a staged run (one change per site; evidence
    ``PassesTests(0, 0)``: nothing run yet) found after ``seconds``, its
    changes and diff naming the file ``name`` (None: ``path``).
    ``literals``: the reference's output literals (the space's, for the
    sites' candidates).  Raises what :func:`crepair.frontend.load_program`
    raises."""
    name = str(path if name is None else name)
    program = load_program(path, real_c=True)
    space = build_space(program, options=SpaceOptions(schemas=frozenset({Schema.FORMAT}), literals=literals))
    at_site: dict[int, dict[str, Candidate]] = {}  # per site, its FORMAT candidates by replacement
    for cand in space.candidates:
        if cand.tail is None:
            at_site.setdefault(cand.site, {})[cand.replacement] = cand
    out: list[Repair] = []
    for _, edit in UNIFORM:
        chosen = []
        for site in space.sites:
            body = literal_body(site.text)
            new = None if body is None else edit(body)
            if new is not None and f'"{new}"' in at_site.get(site.id, {}):
                chosen.append(at_site[site.id][f'"{new}"'])
        if len(chosen) < 2:
            continue
        patched = apply_edits(original, [(space.sites[c.site].span.start, space.sites[c.site].span.end,
                                          c.replacement) for c in chosen])
        none = PassesTests(0, 0)
        changes = tuple(candidate_repair(program, space, c, patched, seconds, none).changes[0] for c in chosen)
        out.append(Repair(Scheme.TEST_DRIVEN, named(changes, name), unified_diff(name, original, patched), patched,
                          seconds, none, stage="reference (staged)"))
    return out
