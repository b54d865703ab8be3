"""C integer operators as bit-vector terms (gcc on x86-64).

Signed division truncates toward zero (``bvsdiv``), ``%`` takes the sign of
the dividend (``bvsrem``), ``>>`` on signed values is arithmetic, overflow
wraps.  Comparisons and logical operators give ``int`` 0/1.  Where C leaves
the result undefined, :func:`undefined_cases` gives the conditions under
which the operation is defined (the encoder asserts them).
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.formula import Violation
from crepair.errors import BadInput, SourcePoint, UnsupportedConstruct
from crepair.solver import fp, smt
from crepair.typed.model import integer_literal


@dataclass(frozen=True, slots=True)
class Value:
    """A C value: ``term`` is a bit-vector of ``ctype.bits`` bits;
    ``boolean``, when set, is a Boolean term equivalent to ``term != 0``."""

    term: smt.Term
    ctype: ct.IntType
    boolean: smt.Term | None = None


def bool_value(b: smt.Term) -> Value:
    """The ``int`` 0/1 value of Boolean term ``b``."""
    return Value(smt.If(b, smt.BitVecVal(1, 32), smt.BitVecVal(0, 32)), ct.INT, b)


def to_bool(v: Value) -> smt.Term:
    """``v != 0`` as a Boolean term."""
    if v.boolean is not None:
        return v.boolean
    if isinstance(v.ctype, ct.FloatType):
        return smt.Not(fp.is_zero(v.term, v.ctype.bits))
    return v.term != smt.BitVecVal(0, v.ctype.bits)


def convert(v: Value, to: ct.IntType) -> Value:
    """Conversion of ``v`` to type ``to`` (C11 6.3.1.2-3, modulo 2^bits)."""
    if to.is_bool:
        b = to_bool(v)
        return Value(smt.If(b, smt.BitVecVal(1, to.bits), smt.BitVecVal(0, to.bits)), to, b)
    frm = v.ctype
    term = v.term
    if isinstance(to, ct.FloatType) or isinstance(frm, ct.FloatType):
        return Value(_float_convert(term, frm, to), to)
    if to.bits < frm.bits:
        term = smt.Extract(to.bits - 1, 0, term)
    elif to.bits > frm.bits:
        term = (smt.SignExt if frm.signed else smt.ZeroExt)(to.bits - frm.bits, term)
    return Value(term, to, v.boolean if to.bits >= frm.bits else None)


def _float_convert(term: smt.Term, frm: ct.IntType, to: ct.IntType) -> smt.Term:
    """C11 6.3.1.4-5 as SSE converts: to a float rounded to nearest; to an
    integer truncated toward zero (through 64 bits, as ``cvttsd2si``; a
    value out of the target's range is undefined, its result unspecified)."""
    if isinstance(frm, ct.FloatType) and isinstance(to, ct.FloatType):
        return term if frm.bits == to.bits else fp.resize(term, frm.bits, to.bits)
    if isinstance(to, ct.FloatType):
        return fp.from_integer(term, frm.signed, to.bits)
    wide = fp.to_integer(term, frm.bits, 64, to.signed or to.bits < 64)
    return wide if to.bits == 64 else smt.Extract(to.bits - 1, 0, wide)


FLOAT_OPERATORS = {"+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!="}  # the binary operators C allows on floats
_RELATIONAL = {"<", "<=", ">", ">=", "==", "!="}


def apply_binary(op: str, a: Value, b: Value) -> Value:
    """``a op b`` for every C integer binary operator except ``&&``/``||``."""
    if op in ("<<", ">>"):
        left = convert(a, ct.promote(a.ctype))
        amount = convert(convert(b, ct.promote(b.ctype)), ct.IntType(left.ctype.bits, False)).term
        if op == "<<":
            return Value(left.term << amount, left.ctype)
        shifted = left.term >> amount if left.ctype.signed else smt.LShR(left.term, amount)
        return Value(shifted, left.ctype)
    t = ct.common(a.ctype, b.ctype)
    x, y = convert(a, t).term, convert(b, t).term
    if isinstance(t, ct.FloatType):
        if op not in FLOAT_OPERATORS:
            raise ValueError(f"operator {op!r} on a floating operand")
        if op in _RELATIONAL:
            return bool_value(fp.compare(op, x, y, t.bits))
        return Value(fp.binary(op, x, y, t.bits), t)
    if op in _RELATIONAL:
        return bool_value(_compare(op, x, y, t.signed))
    if op == "+":
        return Value(x + y, t)
    if op == "-":
        return Value(x - y, t)
    if op == "*":
        return Value(x * y, t)
    if op == "/":
        return Value(x / y if t.signed else smt.UDiv(x, y), t)
    if op == "%":
        return Value(smt.SRem(x, y) if t.signed else smt.URem(x, y), t)
    if op == "&":
        return Value(x & y, t)
    if op == "|":
        return Value(x | y, t)
    if op == "^":
        return Value(x ^ y, t)
    raise ValueError(f"unknown binary operator {op!r}")


@dataclass(frozen=True, slots=True)
class Defined:
    """A condition under which a binary operation is defined: ``kind`` is
    DIVISION_BY_ZERO, DIVISION_OVERFLOW or SHIFT; ``ok`` the Boolean term;
    ``operands`` the terms a counterexample shows, read as signed iff
    ``signed``."""

    kind: Violation
    ok: smt.Term
    operands: tuple[smt.Term, ...]
    signed: bool


def undefined_cases(op: str, a: Value, b: Value) -> list[Defined]:
    """The definedness conditions of ``a op b`` on gcc x86-64 (C11 6.5.5,
    6.5.7): ``/`` and ``%`` by zero, and ``MIN / -1``, ``MIN % -1`` of a
    signed type (both trap: ``idiv`` raises SIGFPE); ``<<``/``>>`` by a
    negative amount or by at least the promoted left operand's width.
    Operands are converted as :func:`apply_binary` converts them.  Empty
    for every other operator."""
    if op in ("<<", ">>"):
        width = ct.promote(a.ctype).bits
        amount = convert(b, ct.promote(b.ctype))
        n, bits, limit = amount.term, amount.ctype.bits, smt.BitVecVal(width, amount.ctype.bits)
        ok = smt.And(n >= smt.BitVecVal(0, bits), n < limit) if amount.ctype.signed else smt.ULT(n, limit)
        return [Defined(Violation.SHIFT, ok, (n, smt.BitVecVal(width, bits)), amount.ctype.signed)]
    if op not in ("/", "%"):
        return []
    t = ct.common(a.ctype, b.ctype)
    if isinstance(t, ct.FloatType):  # x / 0.0 is an infinity or a NaN (IEEE 754), not undefined
        return []
    x, y = convert(a, t).term, convert(b, t).term
    cases = [Defined(Violation.DIVISION_BY_ZERO, y != smt.BitVecVal(0, t.bits), (x, y), t.signed)]
    if t.signed:
        minimum, minus_one = smt.BitVecVal(1 << (t.bits - 1), t.bits), smt.BitVecVal(-1, t.bits)
        cases.append(Defined(Violation.DIVISION_OVERFLOW, smt.Not(smt.And(x == minimum, y == minus_one)), (x, y), True))
    return cases


def _compare(op: str, x, y, signed: bool):
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if signed:
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    return {"<": smt.ULT, "<=": smt.ULE, ">": smt.UGT, ">=": smt.UGE}[op](x, y)


def apply_unary(op: str, a: Value) -> Value:
    """``op a`` for ``-``, ``+``, ``~`` and ``!``."""
    if op == "!":
        return bool_value(smt.Not(to_bool(a)))
    v = convert(a, ct.promote(a.ctype))
    if isinstance(v.ctype, ct.FloatType) and op in ("-", "+"):
        return Value(fp.negate(v.term, v.ctype.bits), v.ctype) if op == "-" else v
    if isinstance(v.ctype, ct.FloatType):
        raise ValueError(f"operator {op!r} on a floating operand")
    if op == "-":
        return Value(-v.term, v.ctype)
    if op == "+":
        return v
    if op == "~":
        return Value(~v.term, v.ctype)
    raise ValueError(f"unknown unary operator {op!r}")


def parse_int_literal(text: str) -> tuple[int, ct.IntType]:
    """Value and type of a C integer literal (C11 6.4.4.1, LP64:
    :func:`crepair.typed.model.integer_literal`; ``long long`` is the
    64-bit ``long`` here).  Raises ``ValueError`` when ``text`` is not one."""
    parsed = integer_literal(text)
    if parsed is None:
        raise ValueError(f"not an integer constant: {text}")
    value, ctype = parsed
    return value & ((1 << ctype.bits) - 1), ct.of_model(ctype)


_SIMPLE_ESCAPES = {
    "n": 10, "t": 9, "r": 13, "\\": 92, "'": 39, '"': 34, "?": 63, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27,
}
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"


def string_bytes(literal: str, where: SourcePoint) -> bytes:
    """The bytes of a narrow C string literal's text ``literal`` (with its
    quotes), without the terminating NUL (C11 6.4.5; gcc's UTF-8 execution
    character set).  Raises ``UnsupportedConstruct`` for wide and Unicode
    literals and escapes beyond one byte.

    >>> string_bytes('"a\\\\x41\\\\n"', None)
    b'aA\\n'
    """
    if not literal.startswith('"'):
        raise UnsupportedConstruct(where, f"wide or Unicode string literal {literal[:12]}")
    body = literal[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt in _OCTAL:
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in _OCTAL:
                j += 1
            code = int(body[i + 1 : j], 8)
            if code > 255:
                raise UnsupportedConstruct(where, f"octal escape \\{body[i + 1:j]} out of range")
            out.append(code)
            i = j
        elif nxt == "x":
            j = i + 2
            while j < len(body) and body[j] in _HEX:
                j += 1
            code = int(body[i + 2 : j], 16) if j > i + 2 else None
            if code is None or code > 255:
                # pycparser joins "\x41" "b" into "\x41b": the escape would run on
                raise UnsupportedConstruct(where, f"hex escape \\x{body[i + 2:j]} in a string literal")
            out.append(code)
            i = j
        else:
            raise UnsupportedConstruct(where, f"escape \\{nxt} in a string literal")
    return bytes(out)



def constant_value(node: c_ast.Constant, where: SourcePoint) -> Value:
    """The value of a constant node (integer or character)."""
    if node.type == "char":
        try:  # decoded as a string literal's text is: one byte, the same escapes
            data = string_bytes('"' + node.value[1:-1] + '"', where) if node.value.startswith("'") else b""
        except UnsupportedConstruct:
            data = b""
        if len(data) != 1:
            raise UnsupportedConstruct(where, f"character constant {node.value}")
        code = data[0]
        # a character constant is an int holding the value of a (signed) char
        return Value(smt.BitVecVal(code - 256 if code > 127 else code, 32), ct.INT)
    if node.type == "string":
        raise UnsupportedConstruct(where, "string literal")
    if node.type in ("float", "double", "long double"):
        return float_constant(node.value, where)
    try:
        value, ctype = parse_int_literal(node.value)
    except ValueError:
        raise BadInput(f"bad integer constant {node.value}", where) from None
    return Value(smt.BitVecVal(value, ctype.bits), ctype)


def float_constant(text: str, where: SourcePoint) -> Value:
    """A floating constant (C11 6.4.4.2): ``double``, ``float`` with an
    ``f``/``F`` suffix, rounded to nearest as gcc rounds it.  Raises
    ``UnsupportedConstruct`` for ``long double`` and hexadecimal constants."""
    body = text.rstrip("fFlL")
    suffix = text[len(body):].lower()
    if suffix not in ("", "f") or body.lower().startswith("0x"):
        raise UnsupportedConstruct(where, f"floating constant {text} (long double or hexadecimal)")
    mantissa, _, exponent = body.lower().partition("e")
    if mantissa.startswith("."):
        mantissa = "0" + mantissa
    if mantissa.endswith("."):
        mantissa += "0"
    ctype = ct.FLOAT if suffix == "f" else ct.DOUBLE
    return Value(fp.from_decimal(mantissa + (f"e{exponent}" if exponent else ""), ctype.bits), ctype)
