"""Must fault localization by program-formula slicing (FOSFL, I-FOSFL).

Rothenberg & Grumberg, "Must Fault Localization for Program Repair",
CAV'20, Sect. 5 and Appendix A:

* the static dependency graph (SDG) of the program formula (Def. 3, Sect.
  5.2): an edge ``v -> w`` when ``w`` occurs in the right-hand side of the
  S_assign constraint defining ``v``; for a Φ-assignment
  ``v = ite(b, v1, v2)`` the edges ``v -> vars(b)``, ``v -> v1`` annotated
  ``b`` and ``v -> v2`` annotated ``¬b``;
* ``important_vars`` (Algorithm 3): the variables of a partial model of the
  demand formula — negation normal form, every conjunct, the first
  disjunct the model satisfies;
* ``compute_slice`` (Algorithm 1): model-based reachability in the SDG
  (an edge is followed only if the model satisfies its annotation);
* ``fosfl`` (Algorithm 2): the origins of the S_assign constraints in the
  union of the slices of the important variables (Φ constraints skipped).

The result F is an S_mut- and S_arb-must location set (Theorem 3): every
repair changes at least one location of F.  The SDG depends only on the
variables of each right-hand side, so one SDG serves every mutated program
of the same program (I-FOSFL, Sect. 5.4): build it with the alternatives.

>>> # F = fosfl(DependencyGraph(formula), formula, model).origins  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crepair.encode.formula import ProgramFormula
from crepair.frontend import Span
from crepair.solver import smt


@dataclass(frozen=True, slots=True)
class Origin:
    """The statement a constraint encodes: a repairable ``location`` index
    (or None for other assignments), its source ``span`` and ``function``."""

    location: int | None
    span: Span
    function: str | None


@dataclass(frozen=True, slots=True)
class _Edge:
    target: str
    annotation: smt.Term | None  # None: true


class DependencyGraph:
    """The static dependency graph of a program formula (CAV'20 Def. 3).

    Nodes are the names of the formula's variables; ``assign[v]`` is the
    origin of the S_assign constraint defining ``v``.  The alternatives of
    every location copy are all included, so the graph serves every mutated
    program (I-FOSFL).  Built once in O(size of the formula).
    """

    def __init__(self, formula: ProgramFormula):
        self.edges: dict[str, list[_Edge]] = {}
        self.assign: dict[str, Origin] = {}
        for c in formula.s_assign:
            lhs, rhs = smt.eq_sides(c.term)
            self._add_assign(lhs, [rhs], Origin(None, c.span, c.function))
        for copy in formula.copies:
            loc = formula.locations[copy.location]
            self._add_assign(copy.lhs, copy.alternatives, Origin(loc.index, loc.span, loc.function))
        for c in formula.s_phi:
            lhs, rhs = smt.eq_sides(c.term)
            self._add_phi(str(lhs), rhs)

    def _add_assign(self, lhs: smt.Term, rhs: Iterable[smt.Term], origin: Origin) -> None:
        name = str(lhs)
        self.assign[name] = origin
        targets = sorted(smt.constant_names(list(rhs)))
        self.edges.setdefault(name, []).extend(_Edge(t, None) for t in targets)

    def _add_phi(self, name: str, term: smt.Term) -> None:
        out = self.edges.setdefault(name, [])
        path: list[smt.Term] = []
        while smt.is_ite(term):
            cond, then, other = term.children()
            here = smt.conjunction(path) if path else None
            out.extend(_Edge(t, here) for t in sorted(smt.constant_names([cond])))
            taken = smt.conjunction(path + [cond])
            out.extend(_Edge(t, taken) for t in sorted(smt.constant_names([then])))
            path.append(smt.Not(cond))
            term = other
        last = smt.conjunction(path) if path else None
        out.extend(_Edge(t, last) for t in sorted(smt.constant_names([term])))


def important_vars(demand: Iterable[smt.Term], model: smt.Model) -> set[str]:
    """Variables of a partial model of ``∧ demand`` (CAV'20 Algorithm 3).

    The formula is walked in negation normal form: all conjuncts, and of a
    disjunction only the first disjunct ``model`` satisfies.
    """
    result: set[str] = set()
    seen: set[tuple[int, bool]] = set()  # shared subterms are walked once per polarity
    stack: list[tuple[smt.Term, bool]] = [(t, True) for t in demand]
    while stack:
        term, positive = stack.pop()
        key = (term.get_id(), positive)
        if key in seen:
            continue
        seen.add(key)
        kind = smt.bool_kind(term)
        if kind == "not":
            stack.append((term.children()[0], not positive))
        elif kind in ("and", "or"):
            children = term.children()
            if (kind == "and") == positive:  # a conjunction in NNF
                stack.extend((c, positive) for c in children)
            else:  # a disjunction: keep the first satisfied disjunct
                for c in children:
                    if model.eval_bool(c) == positive:
                        stack.append((c, positive))
                        break
        elif kind == "implies":
            a, b = term.children()  # a -> b  ==  ¬a ∨ b
            disjuncts = [(a, not positive), (b, positive)] if positive else None
            if positive:
                for c, pol in disjuncts:
                    if model.eval_bool(c) == pol:
                        stack.append((c, pol))
                        break
            else:  # ¬(a -> b) == a ∧ ¬b
                stack.extend([(a, True), (b, False)])
        elif kind == "ite":
            c, t, e = term.children()  # (c ∧ t) ∨ (¬c ∧ e), and its negation alike
            if model.eval_bool(c):
                stack.extend([(c, True), (t, positive)])
            else:
                stack.extend([(c, False), (e, positive)])
        elif kind in ("true", "false"):
            continue
        else:  # an atom
            result |= smt.constant_names([term])
    return result


def compute_slice(sdg: DependencyGraph, model: smt.Model, var: str, visited: set[str]) -> set[str]:
    """Add to ``visited`` the variables reachable from ``var`` along edges
    whose annotation ``model`` satisfies (CAV'20 Algorithm 1, ModelBasedDFS);
    returns ``visited`` (InfluenceVars, mutated in place)."""
    cache: dict[int, bool] = {}
    stack = [var]
    while stack:
        v = stack.pop()
        if v in visited:
            continue
        visited.add(v)
        for edge in sdg.edges.get(v, ()):
            if edge.target in visited:
                continue
            if edge.annotation is not None:
                key = edge.annotation.get_id()
                ok = cache.get(key)
                if ok is None:
                    ok = cache[key] = model.eval_bool(edge.annotation)
                if not ok:
                    continue
            stack.append(edge.target)
    return visited


@dataclass(frozen=True, slots=True)
class MustResult:
    """FOSFL's answer: ``origins`` (the must location set F, in source
    order), the important variables and the variables of the slices."""

    origins: tuple[Origin, ...]
    important: frozenset[str]
    influence: frozenset[str]

    @property
    def locations(self) -> frozenset[int]:
        """Indices of the repairable locations in F."""
        return frozenset(o.location for o in self.origins if o.location is not None)


def fosfl(sdg: DependencyGraph, formula: ProgramFormula, model: smt.Model) -> MustResult:
    """The must location set of the bug ``model`` exhibits (CAV'20 Alg. 2).

    ``sdg`` must be the dependency graph of ``formula`` (or of a formula
    with the same variables: I-FOSFL); ``model`` satisfies the program
    formula, i.e. it is a counterexample.  Nothing is mutated.
    """
    demand = [c.term for c in formula.assumptions + formula.unwinding_assumptions]
    demand.append(formula.violation())
    important = important_vars(demand, model)
    influence: set[str] = set()
    for v in sorted(important):
        compute_slice(sdg, model, v, influence)
    origins = {sdg.assign[v] for v in influence if v in sdg.assign}
    ordered = tuple(sorted(origins, key=lambda o: (o.span.start, o.span.end, o.location is None)))
    return MustResult(ordered, frozenset(important), frozenset(influence))
