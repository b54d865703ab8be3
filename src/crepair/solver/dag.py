"""Terms as a DAG of ints, for walks that must not call into z3 per node.

FOSFL (CAV'20, Algorithms 1–3) walks the right-hand sides of the program
formula once per counterexample; :class:`TermGraph` translates each term
once into integer node ids with their kinds and children, and evaluates
in a model only what a walk asks for, through z3's C API.
"""

from __future__ import annotations

import z3

from crepair.solver.smt import Model
from crepair.solver.terms import _SHAPES


class TermGraph:
    """Terms as a DAG of small integers, for walks that visit many nodes
    without calling z3 per node (e.g. model-based slicing).

    Node ``n`` (0-based, in order of :meth:`add`) has ``kinds[n]``: "var",
    "value", "ite", "and", "or", "implies", "not", "select", "store",
    "const-array" or "app" (any other application; :func:`shape` with
    "not" told apart), ``children[n]`` (node ids, children before
    parents), ``names[n]`` (a variable's :func:`name`, else None) and
    ``literals[n]`` (a literal's Python value: a signed int or a bool,
    else None).  Shared subterms are one node.  The graph keeps its terms
    alive; it only grows.
    """

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.children: list[tuple[int, ...]] = []
        self.names: list[str | None] = []
        self.literals: list[int | bool | None] = []
        self._terms: list[z3.ExprRef] = []
        self._widths: list[int] = []  # of a bit-vector node, else 0
        self._nodes: dict[int, int] = {}  # z3 AST id -> node

    def __len__(self) -> int:
        return len(self.kinds)

    def add(self, term: z3.ExprRef) -> int:
        """The node of ``term``, added with its subterms if new."""
        nodes = self._nodes
        found = nodes.get(term.get_id())
        if found is not None:
            return found
        # post-order: a term is added once its children are nodes
        stack: list[tuple[z3.ExprRef, int, list | None]] = [(term, term.get_id(), None)]
        while stack:
            t, key, children = stack[-1]
            if key in nodes:
                stack.pop()
                continue
            if children is None:
                children = [(c, c.get_id()) for c in t.children()]
                stack[-1] = (t, key, children)
                stack.extend((c, k, None) for c, k in children if k not in nodes)
                continue
            stack.pop()
            kind, name, literal = "app", None, None
            if z3.is_app(t):
                op = t.decl().kind()
                if not children:
                    if op == z3.Z3_OP_UNINTERPRETED:
                        kind, name = "var", t.decl().name()
                    else:
                        kind = "value"
                        if op == z3.Z3_OP_TRUE or op == z3.Z3_OP_FALSE:
                            literal = op == z3.Z3_OP_TRUE
                        elif op == z3.Z3_OP_BNUM:
                            literal = t.as_signed_long()
                else:
                    kind = _SHAPES.get(op) or ("not" if op == z3.Z3_OP_NOT else "app")
            nodes[key] = len(self.kinds)
            self.kinds.append(kind)
            self.children.append(tuple(nodes[k] for _, k in children))
            self.names.append(name)
            self.literals.append(literal)
            self._terms.append(t)
            self._widths.append(t.size() if t.sort_kind() == z3.Z3_BV_SORT else 0)
        return nodes[term.get_id()]

    def value(self, model: Model, node: int) -> int | bool:
        """The value of node ``node`` in ``model`` (completed): a signed int
        for a bit-vector, else whether it is true (False for non-Boolean
        terms).  Calls z3's C API directly: no Python term is built."""
        literal = self.literals[node]
        if literal is not None:
            return literal
        native = model._model
        ctx = native.ctx.ref()
        out = (z3.Ast * 1)()
        if not z3.Z3_model_eval(ctx, native.model, self._terms[node].as_ast(), True, out):
            raise ValueError(f"z3 cannot evaluate {self._terms[node]} in the model")
        if self._widths[node]:
            if not z3.Z3_is_numeral_ast(ctx, out[0]):
                return False
            unsigned = int(z3.Z3_get_numeral_string(ctx, out[0]))
            bits = self._widths[node]
            return unsigned - (1 << bits) if unsigned >> (bits - 1) else unsigned
        return z3.Z3_get_bool_value(ctx, out[0]) == z3.Z3_L_TRUE


def name(term: z3.ExprRef) -> str:
    """The name of an uninterpreted constant (what ``str`` prints for it)."""
    return term.decl().name()
