"""Dependency-based test-equivalence of inserted assignments (TOSEM'18 §3.4).

Two candidates that insert the same assignment ``v = e;`` before two
statements l1, l2 are test-equivalent (Definition 3.7) when, between the
two insertion points, nothing reads or overwrites ``v`` and nothing
overwrites a variable of ``e``: every execution of one insertion then has a
matching execution of the other with the same effect (the ASSIGN-NLR
segments of Fig. 8).

f1x computes the segments dynamically with Pin.  Here they are computed on
the statements of one block, where they hold for every test: l1 and l2 are
STMT sites of the same statement list, and every statement from l1 up to
(not including) l2 is a STMT site whose static reads and writes
(``Site.reads``/``writes``) leave ``v`` and ``e``'s variables alone, with no
call or access through a pointer (``"*"``), no jump (``return``,
``break``, ``continue``, ``goto``) and no label or declaration in between
(those are not STMT sites, so they break the run).  Straight-line code runs
every statement of such a run whenever it runs the first, so the relation
is a test-equivalence relation for every test, and its classes are unions
of the dynamic relation's.  The composition with value-based classes
(Definition 3.10) is :func:`close`.
"""

from __future__ import annotations

from collections.abc import Iterable

from pycparser import c_ast

from crepair.frontend import CProgram
from crepair.frontend.preprocess import in_user_file
from crepair.testequiv.candidates import Schema, SearchSpace, SiteKind

_JUMPS = (c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.Goto)


def _runs(program: CProgram, space: SearchSpace) -> list[list[int]]:
    """STMT site ids of each maximal run of consecutive site statements of
    one statement list, in order (non-sites and jumps end a run; a jump is
    the last statement of its run)."""
    by_start = {s.span.start: s.id for s in space.sites if s.kind == SiteKind.STMT}
    spans = program.spans
    runs: list[list[int]] = []

    class Blocks(c_ast.NodeVisitor):
        def visit_Compound(self, node: c_ast.Compound) -> None:
            run: list[int] = []
            for item in node.block_items or ():
                site = None
                if not isinstance(item, (c_ast.Decl, c_ast.Label, c_ast.Case, c_ast.Default, c_ast.Compound)):
                    try:
                        site = by_start.get(spans.statement_span(item).start)
                    except Exception:  # not a simple statement
                        site = None
                if site is None:
                    if len(run) > 1:
                        runs.append(run)
                    run = []
                else:
                    run.append(site)
                    if isinstance(item, _JUMPS):
                        if len(run) > 1:
                            runs.append(run)
                        run = []
                self.visit(item)
            if len(run) > 1:
                runs.append(run)

    for fn in program.functions.values():
        if in_user_file(fn):
            Blocks().visit(fn.body)
    return runs


def dependency_classes(program: CProgram, space: SearchSpace) -> dict[int, frozenset[int]]:
    """For each ASSIGNMENT candidate with an equivalent, its class under the
    dependency-based relation: the candidates inserting the same ``v = e``
    (same ``lhs`` and ``code``) before other statements of its run with no
    read or write of ``v`` and no write of ``e``'s variables in between.
    Candidate ids; the class contains the candidate itself."""
    sites = space.sites
    runs = _runs(program, space)
    run_of = {sid: k for k, run in enumerate(runs) for sid in run}
    by_assignment: dict[tuple[str, str], list[int]] = {}
    for c in space.candidates:
        if c.schema == Schema.ASSIGNMENT and c.site in run_of:
            by_assignment.setdefault((c.lhs, c.code), []).append(c.id)
    classes: dict[int, frozenset[int]] = {}
    for (lhs, _), ids in by_assignment.items():
        if len(ids) < 2:
            continue
        reads_of_e = set(space.candidates[ids[0]].variables) - {lhs}
        by_run: dict[int, dict[int, int]] = {}  # run -> site -> the candidate inserting there
        for i in ids:
            site = space.candidates[i].site
            by_run.setdefault(run_of[site], {})[site] = i
        for k, here in by_run.items():
            group: list[int] = []
            for sid in runs[k]:
                s = sites[sid]
                if sid in here:
                    group.append(here[sid])
                touched = set(s.reads) | set(s.writes)
                if "*" in touched or lhs in touched or reads_of_e & set(s.writes):
                    _record(classes, group)
                    group = []
            _record(classes, group)
    return classes


def _record(classes: dict[int, frozenset[int]], group: list[int]) -> None:
    if len(group) > 1:
        cls = frozenset(group)
        for i in group:
            classes[i] = cls


def close(cls: Iterable[int], deps: dict[int, frozenset[int]]) -> frozenset[int]:
    """The class under the composition of the value-based and the
    dependency-based relations (Definition 3.10): ``cls`` (a value-based
    class) with every member's dependency class added."""
    out = set(cls)
    for i in list(out):
        out |= deps.get(i, frozenset())
    return frozenset(out)
