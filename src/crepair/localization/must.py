"""Must fault localization by program-formula slicing (FOSFL, I-FOSFL).

Rothenberg & Grumberg, "Must Fault Localization for Program Repair",
CAV'20, Sect. 5 and Appendix A:

* the static dependency graph (SDG) of the program formula (Def. 3, Sect.
  5.2): an edge ``v -> w`` when ``w`` occurs in the right-hand side of the
  S_assign constraint defining ``v``; for a Φ-assignment
  ``v = ite(b, v1, v2)`` the edges ``v -> vars(b)``, ``v -> v1`` annotated
  ``b`` and ``v -> v2`` annotated ``¬b``;
  operands that C evaluates conditionally (``&&``, ``||``, ``?:``) are
  annotated alike, and array reads depend on the element the model reads
  (``_Walk``);
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
of the same program (I-FOSFL, Sect. 5.4): build it with the alternatives;
the walk follows the alternative the mutated program selects.

The right-hand sides are translated once into a DAG of integers
(``crepair.solver.dag.TermGraph``), with the dependencies that hold in every model
precomputed, so that a walk calls z3 only to evaluate the conditions and
indices it reaches.

>>> # F = fosfl(DependencyGraph(formula), formula, model).origins  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from crepair.encode.formula import ProgramFormula
from crepair.frontend import Span
from crepair.solver import dag, smt


@dataclass(frozen=True, slots=True)
class Origin:
    """The statement a constraint encodes: a repairable ``location`` index
    (or None for other assignments), its source ``span`` and ``function``."""

    location: int | None
    span: Span
    function: str | None


Node = str | tuple[str, int]
"""A slice node: a variable's name, or ``(array name, element index)``."""


@dataclass(frozen=True, slots=True)
class _Definition:
    origin: Origin | None  # None: a Φ-assignment
    rhs: tuple[smt.Term, ...]  # the alternatives of a location copy, else one term
    nodes: tuple[int, ...]  # ``rhs`` as nodes of the graph's TermGraph


class DependencyGraph:
    """The static dependency graph of a program formula (CAV'20 Def. 3).

    ``definitions[v]`` holds the right-hand side(s) of the constraint
    defining variable ``v`` and its origin (None for Φ).  The edges of
    ``v`` go to the variables of that right-hand side; an edge is annotated
    with the condition under which the operand is evaluated (``_Walk``
    computes the edges a model satisfies).  The alternatives of every
    location copy are kept, so the graph serves every mutated program
    (I-FOSFL); a walk follows the alternative the mutated program selects.
    Every right-hand side is translated once into ``terms``, a DAG of
    integers, so that walks do not call z3 but to evaluate conditions;
    ``static[n]`` holds the dependencies of term node ``n`` when they are
    the same in every model (else None).  Built once in O(size of the
    right-hand sides); ``demand`` adds the demand formula's terms.
    """

    def __init__(self, formula: ProgramFormula):
        self.terms = dag.TermGraph()
        self.definitions: dict[str, _Definition] = {}
        for c in formula.s_assign:
            lhs, rhs = smt.eq_sides(c.term)
            self._define(lhs, Origin(None, c.span, c.function), (rhs,))
        for copy in formula.copies:
            loc = formula.locations[copy.location]
            self._define(copy.lhs, Origin(loc.index, loc.span, loc.function), tuple(copy.alternatives))
        for c in formula.s_phi:
            lhs, rhs = smt.eq_sides(c.term)
            self._define(lhs, None, (rhs,))
        self._demand: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())  # z3 ids, nodes
        self.static: list[frozenset[Node] | None] = []
        self._extend_static()

    def _extend_static(self) -> None:
        """``static[n]``: the variables of term node ``n`` if its
        dependencies are the same in every model (no conditional operand or
        array read below it), else None.  Extended to every node of
        ``terms`` (children come before their parents)."""
        terms, static = self.terms, self.static
        for node in range(len(static), len(terms)):
            kind = terms.kinds[node]
            if kind == "var":
                found: frozenset[Node] | None = frozenset((terms.names[node],))
            elif kind in _DYNAMIC:
                found = None
            else:
                below = [static[c] for c in terms.children[node]]
                found = None if None in below else frozenset().union(*below)
            static.append(found)

    def _define(self, lhs: smt.Term, origin: Origin | None, rhs: tuple[smt.Term, ...]) -> None:
        self.definitions[dag.name(lhs)] = _Definition(origin, rhs, tuple(self.terms.add(t) for t in rhs))

    def demand(self, formula: ProgramFormula) -> tuple[int, ...]:
        """The nodes of ``formula.demand()`` (the last answer is cached)."""
        terms = formula.demand()
        ids = tuple(t.get_id() for t in terms)
        if ids != self._demand[0]:
            self._demand = ids, tuple(self.terms.add(t) for t in terms)
            self._extend_static()
        return self._demand[1]


_DYNAMIC = frozenset({"ite", "and", "or", "implies", "select"})  # kinds whose dependencies depend on the model


class _Walk:
    """Model-based dependencies (the edges of Algorithm 1 whose annotation
    the model satisfies), of terms and of array elements, memoized for one
    model.

    Def. 3 annotates the operands of a Φ-assignment with their branch
    condition.  C evaluates ``a && b``, ``a || b`` and ``c ? x : y`` as
    control flow (the paper's simplification turns them into conditionals),
    so their operands get the same treatment wherever they occur: ``b``
    depends on ``a``'s value, ``x`` on ``c``'s.  An array read ``A[i]``
    depends on ``i`` and on element ``μ(i)`` of ``A`` only; an element of
    ``store(A, j, v)`` is ``v`` if ``μ(j)`` is that element, else the element
    of ``A`` (the index expressions are never repairable locations: only the
    stored value is).  The values of the nodes returned determine the
    term's value in every program that keeps them, which is what the must
    property (Theorem 3) needs.

    Terms are nodes of ``sdg.terms``; the dependencies of a term without
    conditional operands or array reads are the same in every model
    (``sdg.static``); the model is asked only for the values of the
    conditions and indices the walk reaches (once each).
    """

    def __init__(self, sdg: DependencyGraph, model: smt.Model):
        self._graph = sdg.terms
        self._static = sdg.static
        self._model = model
        self._values: dict[int, int | bool] = {}
        self._memo: dict[int, frozenset[Node]] = {}
        self._elements: dict[tuple[int, int], frozenset[Node]] = {}

    def value(self, node: int) -> int | bool:
        """The model's value of ``node`` (a signed int or a bool)."""
        values = self._values
        if node not in values:
            values[node] = self._graph.value(self._model, node)
        return values[node]

    def term(self, root: int) -> frozenset[Node]:
        """The nodes ``root``'s value depends on in the model."""
        found = self._static[root]
        if found is not None:
            return found
        memo = self._memo
        found = memo.get(root)
        if found is not None:
            return found
        graph = self._graph
        kind = graph.kinds[root]
        children = graph.children[root]
        if kind == "ite":
            cond, then, other = children
            result = self.term(cond) | self.term(then if self.value(cond) else other)
        elif kind == "and" or kind == "or" or kind == "implies":
            # operands left to right up to the first that decides the value
            decides = kind != "and"  # the value that decides: true for ∨ and ⇒ (¬a ∨ b)
            nodes: set[Node] = set()
            last = len(children) - 1
            for i, child in enumerate(children):
                nodes |= self.term(child)
                if i == last:
                    break
                value = self.value(child)
                if kind == "implies":
                    value = not value
                if value == decides:
                    break
            result = frozenset(nodes)
        elif kind == "select":
            array, index = children
            result = self.term(index) | self.element(array, self.value(index))
        elif len(children) == 1:  # any other term with a model-dependent operand
            result = self.term(children[0])
        else:  # stores and other whole-array terms, arithmetic, comparisons
            result = frozenset().union(*(self.term(c) for c in children))
        memo[root] = result
        return result

    def stores(self, array: int, index: int) -> bool:
        """Whether the array term is a store to element ``index``."""
        graph = self._graph
        return graph.kinds[array] == "store" and self.value(graph.children[array][1]) == index

    def element(self, array: int, index: int) -> frozenset[Node]:
        """The nodes element ``index`` of the array term depends on."""
        key = (array, index)
        found = self._elements.get(key)
        if found is not None:
            return found
        graph = self._graph
        kind = graph.kinds[array]
        children = graph.children[array]
        if kind == "var":
            result = frozenset(((graph.names[array], index),))
        elif kind == "store":
            inner, at, value = children
            here = self.value(at) == index
            result = self.term(at) | (self.term(value) if here else self.element(inner, index))
        elif kind == "ite":
            cond, then, other = children
            result = self.term(cond) | self.element(then if self.value(cond) else other, index)
        elif kind == "const-array":
            result = self.term(children[0])
        else:
            result = self.term(array)
        self._elements[key] = result
        return result


def important_vars(demand: Iterable[int], walk: _Walk) -> set[Node]:
    """Variables of a partial model of ``∧ demand`` (CAV'20 Algorithm 3).

    ``demand``: nodes of the walk's term graph (``DependencyGraph.demand``).
    The formula is walked in negation normal form: all conjuncts, and of a
    disjunction only the first disjunct the walk's model satisfies.  The
    variables of an atom are the nodes its value depends on (``_Walk.term``:
    array reads give element nodes).
    """
    graph = walk._graph
    kinds, children_of = graph.kinds, graph.children
    result: set[Node] = set()
    seen: set[tuple[int, bool]] = set()  # shared subterms are walked once per polarity
    stack: list[tuple[int, bool]] = [(t, True) for t in demand]
    while stack:
        item = stack.pop()
        if item in seen:
            continue
        seen.add(item)
        term, positive = item
        kind = kinds[term]
        if kind == "not":
            stack.append((children_of[term][0], not positive))
        elif kind == "and" or kind == "or":
            children = children_of[term]
            if (kind == "and") == positive:  # a conjunction in NNF
                stack.extend((c, positive) for c in children)
            else:  # a disjunction: keep the first satisfied disjunct
                for c in children:
                    if walk.value(c) == positive:
                        stack.append((c, positive))
                        break
        elif kind == "implies":
            a, b = children_of[term]  # a -> b  ==  ¬a ∨ b
            if positive:
                for c, pol in ((a, False), (b, True)):
                    if walk.value(c) == pol:
                        stack.append((c, pol))
                        break
            else:  # ¬(a -> b) == a ∧ ¬b
                stack.extend([(a, True), (b, False)])
        elif kind == "ite":
            c, t, e = children_of[term]  # (c ∧ t) ∨ (¬c ∧ e), and its negation alike
            if walk.value(c):
                stack.extend([(c, True), (t, positive)])
            else:
                stack.extend([(c, False), (e, positive)])
        elif kind == "value":  # true, false
            continue
        else:  # an atom
            result |= walk.term(term)
    return result


def compute_slice(
    sdg: DependencyGraph,
    model: smt.Model,
    var: Node,
    visited: set[Node],
    *,
    selected: dict[int, int] | None = None,
    walk: _Walk | None = None,
) -> set[Node]:
    """Add to ``visited`` the nodes reachable from ``var`` along edges whose
    annotation ``model`` satisfies (CAV'20 Algorithm 1, ModelBasedDFS);
    returns ``visited`` (InfluenceVars, mutated in place).

    ``selected`` maps a location index to the alternative the program
    selects there (default 0, the original expression); ``walk`` shares the
    model's memo between calls.
    """
    walk = walk or _Walk(sdg, model)
    selected = selected or {}
    definitions = sdg.definitions
    stack: list[Node] = [var]
    while stack:
        node = stack.pop()
        if node in visited:
            continue
        visited.add(node)
        name, index = (node, None) if isinstance(node, str) else node
        definition = definitions.get(name)
        if definition is None:
            continue  # an input
        rhs = definition.nodes
        if len(rhs) > 1:
            rhs = rhs[selected.get(definition.origin.location, 0)]
        else:
            rhs = rhs[0]
        targets = walk.term(rhs) if index is None else walk.element(rhs, index)
        stack.extend(targets - visited)
    return visited


@dataclass(frozen=True, slots=True)
class MustResult:
    """FOSFL's answer: ``origins`` (the must location set F, in source
    order), the important variables and the nodes of the slices."""

    origins: tuple[Origin, ...]
    important: frozenset[Node]
    influence: frozenset[Node]

    @property
    def locations(self) -> frozenset[int]:
        """Indices of the repairable locations in F."""
        return frozenset(o.location for o in self.origins if o.location is not None)


def fosfl(
    sdg: DependencyGraph, formula: ProgramFormula, model: smt.Model, selected: dict[int, int] | None = None
) -> MustResult:
    """The must location set of the bug ``model`` exhibits (CAV'20 Alg. 2).

    ``sdg`` must be the dependency graph of ``formula`` (or of a formula
    with the same variables: I-FOSFL); ``model`` satisfies the program
    formula, i.e. it is a counterexample, of the mutated program that takes
    alternative ``selected[i]`` at location ``i`` (default: the original
    program).  An element node ``(A, k)`` contributes the origin of ``A``'s
    definition only if that definition stores element ``k``.  Only
    ``sdg`` changes: it keeps the translation of the demand formula.
    """
    walk = _Walk(sdg, model)
    important = important_vars(sdg.demand(formula), walk)
    influence: set[Node] = set()
    for v in sorted(important, key=str):
        compute_slice(sdg, model, v, influence, selected=selected, walk=walk)
    origins = set()
    for node in influence:
        name = node if isinstance(node, str) else node[0]
        definition = sdg.definitions.get(name)
        if definition is None or definition.origin is None:
            continue
        if not isinstance(node, str) and not walk.stores(definition.nodes[0], node[1]):
            continue
        origins.add(definition.origin)
    ordered = tuple(sorted(origins, key=lambda o: (o.span.start, o.span.end, o.location is None)))
    return MustResult(ordered, frozenset(important), frozenset(influence))

