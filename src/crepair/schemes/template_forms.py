"""The forms of a template: replacement and refinement, as terms and as C.

Könighofer & Bloem, FMCAD'11, Sect. III-E: a component's expression is
replaced by a linear template over the variables in scope, ``k0 + k1·v1 +
… + kn·vn`` for values, ``k0 + k1·v1 + … + kn·vn OP 0`` for conditions (OP
a template parameter over ``< <= > >= == !=``).

f1x (Mechtaev et al., TOSEM'18, Fig. 10) adds REFINEMENT of a truth value
``e``: ``e && b`` and ``e || b``, which keep the original expression and
strengthen or weaken it by a new condition ``b``.  Here ``b`` is the
linear condition template above, so its constants are synthesized by the
same counterexample-guided refinement (a dropped conjunct ``&& (x > 600)``
is found as ``x - 600 > 0``), not enumerated.  Refinement applies to
components that are truth values: conditions, and right-hand sides or
returns whose expression is a comparison or a logical operation
(:func:`is_truth_value`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from crepair.encode.formula import Location, LocationKind, ProgramFormula
from crepair.frontend.tokens import tokenize
from crepair.solver import smt

OPERATORS = ("<", "<=", ">", ">=", "==", "!=")
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}  # OP' with -a OP 0 iff a OP' 0
COEFFICIENT_BITS = 12  # coefficients of variables range over [-2048, 2047]



class Shape(enum.Enum):
    """How a template stands for a component's expression ``e``."""

    REPLACE = "replace"  # the template instead of e (FMCAD'11)
    AND = "&&"  # e && b (f1x REFINEMENT)
    OR = "||"  # e || b (f1x REFINEMENT)


@dataclass(frozen=True, slots=True)
class Template:
    """The template of one component: parameters ``k[0]`` (constant) and
    ``k[1:]`` (coefficients of ``names``), and ``op`` for conditions (also
    for the condition ``b`` of a refinement); ``shape`` says how it
    stands for the component's expression."""

    location: Location
    names: tuple[str, ...]
    k: tuple[smt.Term, ...]
    op: smt.Term | None
    shape: Shape = Shape.REPLACE

    def params(self) -> list[smt.Term]:
        return list(self.k) + ([self.op] if self.op is not None else [])

    @property
    def unit(self) -> bool:
        """Whether the coefficients range over {-1, 0, 1} only (refinements)."""
        return self.shape != Shape.REPLACE


def template_for(location: Location, formula: ProgramFormula, shape: Shape = Shape.REPLACE) -> Template:
    """The template of ``location`` of ``formula`` in ``shape``, over the
    scalar variables in scope at its first copy, except those read
    uninitialized at some copy (their value is an input of the formula
    labelled ``(uninitialized)``: a template reading it would have
    undefined behaviour, and the candidate search would use it as an
    oracle, a free value per input)."""
    copies = [c for c in formula.copies if c.location == location.index and not c.check]
    garbage = {str(i.term) for i in formula.inputs if i.label.endswith("(uninitialized)")}
    unset = {v.name for c in copies for v in c.scope if str(v.term) in garbage}
    names = tuple(v.name for v in copies[0].scope if v.name not in unset) if copies else ()
    tag = "" if shape == Shape.REPLACE else f"{shape.name.lower()}_"
    k = (smt.BitVec(f"k{tag}{location.index}_0", 32),) + tuple(
        smt.BitVec(f"k{tag}{location.index}_{i}", COEFFICIENT_BITS) for i in range(1, len(names) + 1)
    )
    condition = location.kind == LocationKind.CONDITION or shape != Shape.REPLACE
    op = smt.BitVec(f"op{tag}{location.index}", 3) if condition else None
    return Template(location, names, k, op, shape)


def sum_bits(n: int) -> int:
    """Bits in which ``k0 ± v1 ± … ± vn`` (32-bit values) cannot overflow:
    |sum| ≤ (n + 1)·2^31."""
    return 33 + (n + 1).bit_length()


def instantiate(t: Template, copy) -> smt.Term:
    """The template's value at one location copy (its Vals): a term of the
    copy's ``lhs`` sort.  The replacement templates compute in 32-bit two's
    complement (FMCAD'11); the condition ``b`` of a refinement has unit
    coefficients (:attr:`Template.unit`, ``±v`` or nothing per variable)
    and sums in :func:`sum_bits` bits, where it cannot overflow, so that ``x - 600 > 0``
    means ``x > 600`` as printed."""
    by_name = {v.name: v for v in copy.scope}
    bits = sum_bits(len(t.names)) if t.unit else 32
    total = t.k[0] if bits == 32 else smt.SignExt(bits - 32, t.k[0])
    for name, k in zip(t.names, t.k[1:]):
        v = by_name.get(name)
        if v is None:
            continue
        term = v.term
        if v.bits < bits:
            term = (smt.SignExt if v.signed else smt.ZeroExt)(bits - v.bits, term)
        elif v.bits > bits:
            term = smt.Extract(bits - 1, 0, term)
        if t.unit:  # k in {-1, 0, 1} (a hard constraint of the search)
            zero = smt.BitVecVal(0, bits)
            total = total + smt.If(k == smt.BitVecVal(1, k.size()), term,
                                   smt.If(k == smt.BitVecVal(0, k.size()), zero, -term))
        else:
            total = total + smt.SignExt(bits - COEFFICIENT_BITS, k) * term
    if t.op is None:
        width = smt.width(copy.lhs)
        if width < 32:
            return smt.Extract(width - 1, 0, total)
        if width > 32:
            return smt.SignExt(width - 32, total)
        return total
    zero = smt.BitVecVal(0, bits)
    result = total != zero
    for code in reversed(range(len(OPERATORS))):
        cmp = {
            "<": total < zero, "<=": total <= zero, ">": total > zero,
            ">=": total >= zero, "==": total == zero, "!=": total != zero,
        }[OPERATORS[code]]
        result = smt.If(t.op == smt.BitVecVal(code, 3), cmp, result)
    if t.shape == Shape.REPLACE and isinstance(copy.lhs, smt.BoolTerm):
        return result
    if t.shape != Shape.REPLACE:
        original = copy.alternatives[0]
        truth = original if isinstance(original, smt.BoolTerm) else original != smt.BitVecVal(0, smt.width(original))
        result = smt.And(truth, result) if t.shape == Shape.AND else smt.Or(truth, result)
    if isinstance(copy.lhs, smt.BoolTerm):
        return result
    return smt.If(result, smt.BitVecVal(1, smt.width(copy.lhs)), smt.BitVecVal(0, smt.width(copy.lhs)))


def render(t: Template, values: dict[str, int]) -> str:
    """The instantiated template as readable C (zero terms dropped,
    ``x + -1`` as ``x - 1``); a refinement as ``e && (b)`` / ``e || (b)``
    with ``e`` the location's text (parenthesized when needed)."""
    terms = []
    for name, k in zip(t.names, t.k[1:]):
        c = values[str(k)]
        if c:
            terms.append((c, name))
    const = values[str(t.k[0])]
    parts: list[str] = []
    for c, name in terms:
        mag = abs(c)
        body = name if mag == 1 else f"{mag} * {name}"
        if not parts:
            parts.append(body if c > 0 else f"-{body}")
        else:
            parts.append(f"+ {body}" if c > 0 else f"- {body}")
    if t.op is None:
        if const or not parts:
            if not parts:
                parts.append(str(const))
            else:
                parts.append(f"+ {const}" if const > 0 else f"- {-const}")
        return " ".join(parts)
    op = OPERATORS[values[str(t.op)]]
    if terms and all(c < 0 for c, _ in terms):  # -x - y + k OP 0 as x + y OP' k: no negation to overflow
        terms = [(-c, n) for c, n in terms]
        parts = [p.replace("-", "+", 1) if i else p.lstrip("-") for i, p in enumerate(parts)]
        const, op = -const, _FLIPPED[op]
    if not parts:
        truth = {"<": const < 0, "<=": const <= 0, ">": const > 0, ">=": const >= 0, "==": const == 0, "!=": const != 0}
        b = "1" if truth[op] else "0"
    elif len(terms) == 2 and const == 0 and {terms[0][0], terms[1][0]} == {1, -1}:
        pos = next(n for c, n in terms if c == 1)
        neg = next(n for c, n in terms if c == -1)
        b = f"{pos} {op} {neg}"
    else:
        b = f"{' '.join(parts)} {op} {-const}"
    if t.shape == Shape.REPLACE:
        return b
    e = t.location.text
    if _top_level(e) - {t.shape.value, "(", ")"} & {"&&", "||", "?", "=", ","}:
        e = f"({e})"
    return f"{e} {t.shape.value} ({b})"


_RELATIONAL = {"<", "<=", ">", ">=", "==", "!="}
_LOGICAL = {"&&", "||"}
_BITWISE = {"&", "|", "^"}


def _top_level(text: str) -> set[str]:
    """The operator tokens of C expression ``text`` outside any brackets
    (outer parentheses around the whole text removed first)."""
    toks = [t.text for t in tokenize(text, skip_directives=False)]
    while len(toks) >= 2 and toks[0] == "(" and toks[-1] == ")" and _matches(toks):
        toks = toks[1:-1]
    depth, out = 0, set()
    for tok in toks:
        if tok in ("(", "["):
            depth += 1
        elif tok in (")", "]"):
            depth -= 1
        elif depth == 0 and not (tok[0].isalnum() or tok[0] in "_'\"."):
            out.add(tok)
    if toks and toks[0] == "!":
        out.add("!prefix")
    return out


def _matches(toks: list[str]) -> bool:
    """Whether the first token's parenthesis closes at the last token."""
    depth = 0
    for i, tok in enumerate(toks):
        depth += tok == "("
        depth -= tok == ")"
        if depth == 0:
            return i == len(toks) - 1
    return False


def is_truth_value(location: Location) -> bool:
    """Whether ``location`` is a truth value: a condition, or a value whose
    expression is at its top level a logical operation (``&&``, ``||``,
    a leading ``!``) or a comparison not under a bitwise operator, and not
    a conditional, assignment or comma expression."""
    if location.kind == LocationKind.CONDITION:
        return True
    top = _top_level(location.text)
    if top & {"?", "=", ",", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}:
        return False
    if top & _LOGICAL:
        return True
    if "!prefix" in top and len(top - {"!prefix", "!"}) == 0:
        return True
    return bool(top & _RELATIONAL) and not top & _BITWISE
