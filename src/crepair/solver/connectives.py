"""``And``, ``Or`` and ``If`` as :mod:`z3`'s, built straight through its C
API when the arguments are already terms of one context.

z3's Python constructors first find a common sort for their arguments and
cast each one to it (``_coerce_expr_list``): about 200 µs for a call whose
terms are all Booleans already, which is most of the encoder's calls (a
program printing 540 characters at symbolic positions makes 17,000 of
them).  Here such a call goes to ``Z3_mk_and``/``Z3_mk_or``/``Z3_mk_ite``
at once; z3's C API still checks the sorts (a mismatch raises
``z3.Z3Exception``, as z3's constructors do).  Any other call (Python
numbers or Booleans to cast, probes, a generator, mixed contexts) is z3's
own.  The terms built are the same (not simplified either way).
"""

from __future__ import annotations

import z3

_BOOL = z3.BoolRef
# the class of an if-then-else whose branches are of these classes (numerals are not)
_ITE_CLASS = {z3.BoolRef: z3.BoolRef, z3.BitVecRef: z3.BitVecRef, z3.BitVecNumRef: z3.BitVecRef,
              z3.ArrayRef: z3.ArrayRef}


def _boolean_app(make, args: tuple):
    """``make`` (Z3_mk_and or Z3_mk_or) of ``args`` (or of the one list or
    tuple given), when every one is a Boolean term of one context; None
    otherwise (the caller falls back to z3's own constructor)."""
    terms = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    if not terms or type(terms[0]) is not _BOOL:
        return None
    ctx = terms[0].ctx
    if any(type(term) is not _BOOL or term.ctx is not ctx for term in terms):
        return None
    n = len(terms)
    return _BOOL(make(ctx.ref(), n, (z3.Ast * n)(*[term.ast for term in terms])), ctx)


def And(*args):
    """The conjunction of Boolean terms (given one by one or as one list),
    as ``z3.And``."""
    term = _boolean_app(z3.Z3_mk_and, args)
    return z3.And(*args) if term is None else term


def Or(*args):
    """The disjunction of Boolean terms (given one by one or as one list),
    as ``z3.Or``."""
    term = _boolean_app(z3.Z3_mk_or, args)
    return z3.Or(*args) if term is None else term


def If(cond, then, other, ctx=None):
    """The term ``then`` where ``cond`` holds, ``other`` elsewhere, as
    ``z3.If`` (raises ``z3.Z3Exception`` when their sorts differ)."""
    kind = _ITE_CLASS.get(type(then))
    if (ctx is None and kind is not None and kind is _ITE_CLASS.get(type(other)) and type(cond) is _BOOL
            and cond.ctx is then.ctx is other.ctx):
        c = cond.ctx
        return kind(z3.Z3_mk_ite(c.ref(), cond.ast, then.ast, other.ast), c)
    return z3.If(cond, then, other, ctx)
