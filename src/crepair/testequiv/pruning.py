"""Applying the anti-pattern rules to a space's drafts
(:mod:`crepair.testequiv.antipatterns`; Tan et al., FSE'16, §3, and
crepair's own rules of issue 29).

A rule is asked about a draft only when it could remove it: each rule has
a *gate*, a necessary condition of its firing that reads the place alone,
and the schemas of the drafts it judges.  Both are computed once per
(place, schema), not per draft: a space holds tens of thousands of drafts
over a few dozen places, and most places play no role any rule reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pycparser import c_ast

from crepair.testequiv.antipatterns import RULES, AntiPattern, Draft
from crepair.testequiv.candidates import Schema, SiteKind
from crepair.testequiv.place import Place
from crepair.testequiv.scope import VarKind

_DELETE = frozenset({Schema.GUARD})  # a deletion is the GUARD ``if (0) s``
_EXPRESSION = frozenset({Schema.EXPRESSION})
_ANY = frozenset(Schema)


def _main_unused(p: Place) -> bool:
    return p.function.name == "main" and any(v.kind is VarKind.PARAM and not p.function.uses.get(name)
                                             for name, v in p.scope.items())


#: per rule: the schemas of the drafts it can remove, and a condition on the place it needs (each implied by
#: the rule's own test; ``test_antipatterns.py::test_a_rule_is_asked_only_where_its_gate_lets_it_fire``)
GATES: dict[AntiPattern, tuple[frozenset[Schema], Callable[[Place], bool]]] = {
    AntiPattern.EXIT_NODE: (_DELETE, lambda p: p.kind is SiteKind.STMT),
    AntiPattern.CONTROL_STATEMENT: (_DELETE, lambda p: isinstance(p.node, (c_ast.Break, c_ast.Continue))),
    AntiPattern.SINGLE_STATEMENT: (_DELETE, lambda p: bool(p.alone)),
    AntiPattern.SET_BEFORE_IF: (_DELETE, lambda p: bool(p.writes and p.before_if)),
    AntiPattern.TRIVIAL_CONDITION: (_EXPRESSION, lambda p: bool(p.condition)),
    AntiPattern.LOOP_COUNTER: (_DELETE, lambda p: bool(p.writes and p.loop_reads)),
    AntiPattern.CONSTANT_BOUND: (_EXPRESSION, lambda p: bool(p.bound)),
    AntiPattern.MEMBER_CONSTANT: (_EXPRESSION, lambda p: bool(p.members)),
    AntiPattern.UNUSED_MAIN_PARAMETER: (_ANY, _main_unused),
    AntiPattern.CONSTANT_CONDITION: (_EXPRESSION, lambda p: bool(p.condition)),
    AntiPattern.SELF_READ: (_EXPRESSION, lambda p: p.kind is SiteKind.STMT or bool(p.roles.assigned)),
    AntiPattern.UNIFORM_CHAIN: (_EXPRESSION, lambda p: bool(p.roles.chains)),
    AntiPattern.LOOP_START: (_EXPRESSION, lambda p: p.roles.start is not None),
    AntiPattern.UNASSIGNED_READ: (_ANY, lambda p: bool(p.roles.unassigned)),
    AntiPattern.LOOP_INVARIANT: (_EXPRESSION, lambda p: bool(p.bound and p.roles.varying)),
    AntiPattern.ITERATION_CONSTANT: (frozenset({Schema.REFINEMENT, Schema.GUARD}), lambda p: bool(p.roles.varying)),
}


def pruned(drafts: Iterable[Draft], places: list[Place], original: str, rules: frozenset[AntiPattern],
           place_of: Callable[[Draft], int]) -> tuple[list[Draft], dict[AntiPattern, int]]:
    """The drafts no rule of ``rules`` removes, in their order, and per
    rule the number it removed (a draft counts for the first rule, in
    enum order, that removes it).  ``place_of(d)``: the index of ``d``'s
    place in ``places``.  Nothing is mutated."""
    chosen = [r for r in AntiPattern if r in rules]
    kept: list[Draft] = []
    counts = {r: 0 for r in chosen}
    asked: dict[tuple[int, Schema], list[tuple[AntiPattern, Callable]]] = {}
    for d in drafts:
        i = place_of(d)
        p = places[i]
        checks = asked.get((i, d.schema))
        if checks is None:
            checks = asked[i, d.schema] = [(r, RULES[r]) for r in chosen
                                           if d.schema in GATES[r][0] and GATES[r][1](p)]
        hit = next((r for r, rule in checks if rule(p, d, original)), None)
        if hit is None:
            kept.append(d)
        else:
            counts[hit] += 1
    return kept, counts
