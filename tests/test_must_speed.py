"""FOSFL's walk over the integer DAG (``crepair.solver.dag.TermGraph``) against the
straightforward walk over z3 terms: the same important variables, slices
and must sets (CAV'20 Algorithms 1-3) for the same model, on the paper's
examples, generated programs and, when ../shared is present, TCAS."""

import random

import pytest

from crepair.encode import encode
from crepair.frontend import load_program
from crepair.localization.must import DependencyGraph, fosfl
from crepair.mutation import MutationLevel, MutationUnit
from crepair.solver import smt
from crepair.solver.smt import SmtSolver, Verdict
from cprog import SHARED, write_c
from test_must import ABS_VALUE, ARRAY_TEMPLATE, FOO, SHORT_TEMPLATE, TEMPLATE

TCAS = SHARED / "tcas" / "spec"


class ReferenceWalk:
    """The model-based dependencies of ``must._Walk``, computed on z3 terms
    with one model evaluation per question (the code before the DAG)."""

    def __init__(self, model):
        self.model = model
        self.memo = {}

    def value(self, term):
        value = self.model.eval_term(term)
        return value.as_signed_long() if smt.is_bv_value(value) else smt.is_true(value)

    def term(self, root):
        key = root.get_id()
        if key not in self.memo:
            self.memo[key] = self._term(root)
        return self.memo[key]

    def _term(self, root):
        kind, children = smt.shape(root)
        if kind == "var":
            return frozenset((str(root),))
        if kind == "ite":
            cond, then, other = children
            return self.term(cond) | self.term(then if self.value(cond) else other)
        if kind in ("and", "or", "implies"):
            nodes = set()
            for i, child in enumerate(children):
                nodes |= self.term(child)
                value = self.value(child)
                if kind == "implies" and i == 0:
                    value = not value
                if value == (kind in ("or", "implies")):
                    break
            return frozenset(nodes)
        if kind == "select":
            array, index = children
            return self.term(index) | self.element(array, self.value(index))
        return frozenset().union(*(self.term(c) for c in children))

    def element(self, array, index):
        kind, children = smt.shape(array)
        if kind == "var":
            return frozenset(((str(array), index),))
        if kind == "store":
            inner, at, value = children
            here = self.value(at) == index
            return self.term(at) | (self.term(value) if here else self.element(inner, index))
        if kind == "ite":
            cond, then, other = children
            return self.term(cond) | self.element(then if self.value(cond) else other, index)
        if kind == "const-array":
            return self.term(children[0])
        return self.term(array)


def reference_fosfl(sdg, formula, model, selected):
    """(origins, important, influence) by CAV'20 Algorithms 3, 1 and 2."""
    walk = ReferenceWalk(model)
    important = set()
    stack = [(t, True) for t in formula.demand()]
    while stack:
        term, positive = stack.pop()
        kind = smt.bool_kind(term)
        children = term.children()
        if kind == "not":
            stack.append((children[0], not positive))
        elif kind in ("and", "or") and (kind == "and") == positive:
            stack.extend((c, positive) for c in children)
        elif kind in ("and", "or"):
            stack.extend([next((c, positive) for c in children if model.eval_bool(c) == positive)])
        elif kind == "implies" and positive:
            a, b = children
            stack.extend([next((c, p) for c, p in ((a, False), (b, True)) if model.eval_bool(c) == p)])
        elif kind == "implies":
            stack.extend([(children[0], True), (children[1], False)])
        elif kind == "ite":
            c, t, e = children
            stack.extend([(c, True), (t, positive)] if model.eval_bool(c) else [(c, False), (e, positive)])
        elif kind == "atom":
            important |= walk.term(term)
    influence = set()
    stack = list(important)
    while stack:
        node = stack.pop()
        if node in influence:
            continue
        influence.add(node)
        name, index = (node, None) if isinstance(node, str) else node
        definition = sdg.definitions.get(name)
        if definition is None:
            continue
        rhs = definition.rhs[selected.get(definition.origin.location, 0) if len(definition.rhs) > 1 else 0]
        stack.extend(walk.term(rhs) if index is None else walk.element(rhs, index))
    origins = set()
    for node in influence:
        definition = sdg.definitions.get(node if isinstance(node, str) else node[0])
        if definition is None or definition.origin is None:
            continue
        if not isinstance(node, str):
            kind, children = smt.shape(definition.rhs[0])
            if kind != "store" or walk.value(children[1]) != node[1]:
                continue
        origins.add(definition.origin)
    return origins, important, influence


def compare_on_selections(path, entry, level, bound, samples, seed=0):
    """Compare the two walks on counterexamples of the original program and
    of ``samples`` mutated programs (one or two changed locations, drawn
    with ``seed``), all with one dependency graph (I-FOSFL).  Returns the
    number of counterexamples compared."""
    program = load_program(path)
    formula, mutants = encode(program, bound=bound, entry=entry, alternatives=MutationUnit(program, level))
    sdg = DependencyGraph(formula)
    locations = [l.index for l in formula.locations if len(mutants[l.index]) > 1]
    rng = random.Random(seed)
    selections = [{}]
    for _ in range(samples if locations else 0):
        chosen = rng.sample(locations, min(len(locations), rng.choice((1, 2))))
        selections.append({i: rng.randrange(1, len(mutants[i])) for i in chosen})
    compared = 0
    for selected in selections:
        solver = SmtSolver()
        solver.add(*formula.hard(), *formula.selected_copies(selected), formula.violation())
        if solver.check() != Verdict.SAT:
            continue
        model = solver.model()
        fast = fosfl(sdg, formula, model, selected)
        origins, important, influence = reference_fosfl(sdg, formula, model, selected)
        assert fast.important == important, selected
        assert fast.influence == influence, selected
        assert set(fast.origins) == origins, selected
        compared += 1
    return compared


def test_paper_examples(tmp_path):
    assert compare_on_selections(write_c(tmp_path, ABS_VALUE, "abs.c"), "absValue", MutationLevel.LEVEL_2, 1, 20)
    assert compare_on_selections(write_c(tmp_path, FOO, "foo.c"), "foo", MutationLevel.LEVEL_2, 1, 20)


@pytest.mark.parametrize(
    "template, e1, e2, c1",
    [
        (TEMPLATE, "x + y", "y * 3", "x > y"),
        (TEMPLATE, "2 * x", "x - 2", "x == 2"),
        (SHORT_TEMPLATE, "x > 0 ? y : x + 1", "(x < y) + 3", "x < 2 && (y > 0 || x == y)"),
        (SHORT_TEMPLATE, "x == y ? 2 : y", "y - 1", "x <= 3 || y == 1"),
        (ARRAY_TEMPLATE, "x + 1", "y - x", "x > y"),
        (ARRAY_TEMPLATE, "x > 0 ? y : x + 1", "x * 2", "x > y && y >= 0"),
    ],
)
def test_generated_programs(tmp_path, template, e1, e2, c1):
    # a wrong f: e1 and e2 swapped, against the specification with them in place
    correct = template.format(e1=e1, e2=e2, c1=c1)
    swapped = template.format(e1=e2, e2=e1, c1=c1)
    cut = "int AllRepair_correct_f("
    path = write_c(tmp_path, swapped[: swapped.index(cut)] + correct[correct.index(cut) :])
    assert compare_on_selections(path, "main", MutationLevel.LEVEL_2, 1, 40) > 0


@pytest.mark.skipif(not TCAS.exists(), reason="shared benchmarks absent")
@pytest.mark.parametrize("version", [1, 10, 36])
def test_tcas(version):
    assert compare_on_selections(TCAS / f"tcas_v{version}.c", "main", MutationLevel.LEVEL_1, 8, 25) > 0
