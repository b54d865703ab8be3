"""Utilities over z3 terms: names, shapes, renaming, substitution,
definition elimination and cardinality (re-exported by
:mod:`crepair.solver.smt`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import z3
from z3 import z3core

if TYPE_CHECKING:
    from crepair.solver.smt import Model

def constant_names(terms: Iterable[z3.ExprRef]) -> set[str]:
    """Names of the uninterpreted constants occurring in ``terms``."""
    return {c.decl().name() for c in constants(terms)}


def eq_sides(term: z3.ExprRef) -> tuple[z3.ExprRef, z3.ExprRef]:
    """The two sides of an equation ``lhs == rhs``."""
    if not z3.is_eq(term):
        raise ValueError(f"not an equation: {term}")
    lhs, rhs = term.children()
    return lhs, rhs


def is_ite(term: z3.ExprRef) -> bool:
    return z3.is_app_of(term, z3.Z3_OP_ITE)


_BOOL_KINDS = {
    z3.Z3_OP_AND: "and", z3.Z3_OP_OR: "or", z3.Z3_OP_NOT: "not", z3.Z3_OP_IMPLIES: "implies",
    z3.Z3_OP_ITE: "ite", z3.Z3_OP_TRUE: "true", z3.Z3_OP_FALSE: "false",
}


def bool_kind(term: z3.ExprRef) -> str:
    """The connective at the top of a Boolean term, or "atom"."""
    if not z3.is_bool(term) or not z3.is_app(term):
        return "atom"
    return _BOOL_KINDS.get(term.decl().kind(), "atom")


_SHAPES = {
    z3.Z3_OP_ITE: "ite", z3.Z3_OP_AND: "and", z3.Z3_OP_OR: "or", z3.Z3_OP_IMPLIES: "implies",
    z3.Z3_OP_SELECT: "select", z3.Z3_OP_STORE: "store", z3.Z3_OP_CONST_ARRAY: "const-array",
}


def shape(term: z3.ExprRef) -> tuple[str, tuple[z3.ExprRef, ...]]:
    """The top of a term for dependency walks: ``("var", ())`` for an
    uninterpreted constant, ``("value", ())`` for a literal, one of "ite",
    "and", "or", "implies", "select", "store", "const-array" with the
    children, or ``("app", children)`` for any other application."""
    if z3.is_const(term):
        kind = term.decl().kind()
        return ("var", ()) if kind == z3.Z3_OP_UNINTERPRETED else ("value", ())
    if not z3.is_app(term):
        return "app", tuple(term.children())
    return _SHAPES.get(term.decl().kind(), "app"), tuple(term.children())


def _unchecked(function):
    """The C function behind one of ``z3core``'s wrappers, without the
    wrapper's check of z3's error code after the call (about a microsecond
    each): for the reads of a walk over valid terms, which cannot fail.
    The wrapper itself if this z3 builds its wrappers otherwise."""
    defaults = getattr(function, "__defaults__", None) or ()
    return getattr(defaults[-1], "f", function) if defaults else function


_AST_KIND, _TO_APP, _NUM_ARGS, _ARG, _APP_DECL, _DECL_KIND, _DECL_NAME, _BODY = (_unchecked(f) for f in (
    z3core.Z3_get_ast_kind, z3core.Z3_to_app, z3core.Z3_get_app_num_args,
    z3core.Z3_get_app_arg, z3core.Z3_get_app_decl, z3core.Z3_get_decl_kind, z3core.Z3_get_decl_name,
    z3core.Z3_get_quantifier_body))


def _raw_walk(terms: list[z3.ExprRef]) -> Iterator[tuple[object, int, object, int]]:
    """Every distinct node of ``terms`` once, as (raw AST pointer, z3 AST
    kind, the raw application and its number of arguments, or None and 0
    for a node that is no application), through z3's C API on raw
    pointers (a wrapper object per node made walks four times slower: 6.6
    s for the 123,000 nodes of Codeflaws 300-B's equivalence check), each
    read without the wrappers' error check (:func:`_unchecked`).  A
    quantifier's or lambda's body is walked."""
    ref = terms[0].ctx.ref()
    seen: set[int] = set()
    stack = [t.as_ast() for t in terms]
    while stack:
        ast = stack.pop()
        key = ast.value  # a node's address: terms are hash-consed, and every node lives while its root does
        if key in seen:
            continue
        seen.add(key)
        kind = _AST_KIND(ref, ast)
        if kind == z3.Z3_APP_AST:
            app = _TO_APP(ref, ast)
            n = _NUM_ARGS(ref, app)
            yield ast, kind, app, n
            stack.extend(_ARG(ref, app, i) for i in range(n))
            continue
        yield ast, kind, None, 0
        if kind == z3.Z3_QUANTIFIER_AST:
            stack.append(_BODY(ref, ast))


def constants(terms: Iterable[z3.ExprRef]) -> list[z3.ExprRef]:
    """The uninterpreted constants occurring in ``terms`` (deterministic
    order: by name; a lambda's bound variables are none)."""
    terms = list(terms)
    if not terms:
        return []
    ctx = terms[0].ctx
    ref = ctx.ref()
    found: dict[str, object] = {}
    for ast, _, app, n in _raw_walk(terms):
        if app is not None and n == 0 and _DECL_KIND(ref, decl := _APP_DECL(ref, app)) == z3.Z3_OP_UNINTERPRETED:
            found.setdefault(z3.z3._symbol2py(ctx, _DECL_NAME(ref, decl)), ast)
    return [z3.z3._to_expr_ref(found[name], ctx) for name in sorted(found)]


def applications(terms: Sequence[z3.ExprRef], op: int) -> list[z3.ExprRef]:
    """The distinct applications of the z3 operator ``op`` (a ``Z3_OP_*``
    kind) in ``terms``, in walk order (deterministic)."""
    if not terms:
        return []
    ctx = terms[0].ctx
    ref = ctx.ref()
    return [z3.z3._to_expr_ref(ast, ctx) for ast, _, app, _ in _raw_walk(list(terms))
            if app is not None and _DECL_KIND(ref, _APP_DECL(ref, app)) == op]


def lambdas(terms: Sequence[z3.ExprRef]) -> list[z3.QuantifierRef]:
    """The distinct lambda terms in ``terms``, in walk order."""
    if not terms:
        return []
    ctx = terms[0].ctx
    ref = ctx.ref()
    return [z3.z3._to_expr_ref(ast, ctx) for ast, kind, _, _ in _raw_walk(list(terms))
            if kind == z3.Z3_QUANTIFIER_AST and z3core.Z3_is_lambda(ref, ast)]


def renamer(terms: Iterable[z3.ExprRef], suffix: str, keep: Iterable[str] = ()):
    """A function that renames every constant of ``terms`` but those named in
    ``keep`` to ``name!suffix`` (a fresh copy of a formula, e.g. one per
    input of a database)."""
    keep = set(keep)
    pairs = []
    for c in constants(terms):
        if c.decl().name() in keep:
            continue
        fresh = z3.Const(f"{c.decl().name()}!{suffix}", c.sort())
        pairs.append((c, fresh))
    mapping = {c.get_id(): fresh for c, fresh in pairs}

    def rename(term: z3.ExprRef) -> z3.ExprRef:
        if z3.is_const(term) and term.get_id() in mapping:
            return mapping[term.get_id()]
        return z3.substitute(term, *pairs) if pairs else term

    return rename


def value_of(model: Model, term: z3.ExprRef) -> z3.ExprRef:
    """The model's value of ``term`` as a term (for arrays too)."""
    return model.eval_term(term)


def substitute(term: z3.ExprRef, mapping: dict[str, z3.ExprRef]) -> z3.ExprRef:
    """``term`` with the constants named in ``mapping`` replaced, simplified."""
    pairs = [(c, mapping[c.decl().name()]) for c in constants([term]) if c.decl().name() in mapping]
    return z3.simplify(z3.substitute(term, *pairs)) if pairs else term


def eliminate_definitions(term: z3.ExprRef, keep: list[z3.ExprRef]) -> z3.ExprRef:
    """``term`` with the constants defined by equations substituted away (z3
    tactics simplify, propagate-values, solve-eqs), keeping the constants in
    ``keep`` (e.g. template parameters shared with other formulas): the
    result is satisfiable with given values of ``keep`` iff ``term`` is.
    Turns a program run with fixed inputs into constraints over ``keep``."""
    # solve-eqs only eliminates constants: hide the kept ones as applications
    shields: dict[int, z3.FuncDeclRef] = {}
    pairs = []
    for i, c in enumerate(keep):
        bits = c.size()
        f = shields.setdefault(bits, z3.Function(f"kept!{bits}", z3.BitVecSort(16), z3.BitVecSort(bits)))
        pairs.append((c, f(z3.BitVecVal(i, 16))))
    hidden = z3.substitute(term, *pairs) if pairs else term
    goal = z3.Goal()
    goal.add(hidden)
    reduced = z3.Then("simplify", "propagate-values", "solve-eqs", "simplify")(goal).as_expr()
    return z3.substitute(reduced, *[(app, c) for c, app in pairs]) if pairs else reduced


def at_most(lits: Sequence[z3.ExprRef], k: int) -> z3.ExprRef:
    """The pseudo-Boolean constraint: at most ``k`` of ``lits`` hold."""
    return z3.AtMost(*lits, k) if lits else z3.BoolVal(True)

