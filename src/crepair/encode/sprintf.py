"""``sprintf(dest, fmt, ...)`` into a char array: the bytes glibc writes.

The format (a string literal, :func:`~crepair.encode.formats.parse_format`)
is cut into pieces as ``printf``'s is (:mod:`crepair.encode.stdio`); each
piece becomes characters with a length (a term): literal text, ``%c`` (one
byte), ``%s`` (the string at an array, up to its NUL, as ``strcpy`` reads
it, :mod:`crepair.encode.chararrays`) and the integer conversions ``%d
%i %u`` with any length modifier: the decimal digits of the value converted
as the modifier says (``%hhd`` prints the ``signed char``), a ``-`` before
a negative one, no padding.  Flags, a field width and a precision are
rejected (one line), as is every other conversion.  The characters and the
terminating NUL are stored at ``dest[0 ..]``; every index written is checked
against ``dest``'s size (ARRAY_BOUNDS: ``char s[4]`` cannot hold
``"1987"``).  The result is the number of characters, the NUL excluded
(``int``), as C11 7.21.6.6 says.
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.chararrays import CharArrays
from crepair.encode.formats import Conversion
from crepair.encode.formula import LocationKind
from crepair.encode.ops import Value
from crepair.encode.walk import Ctx
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import smt



def decimal(value: smt.Term, signed: bool) -> tuple[list[smt.Term], smt.Term]:
    """The characters glibc's ``%d``/``%u`` print for bit-vector ``value``
    (read as signed iff ``signed``): 8-bit terms ``c_0 .. c_(k-1)`` (the
    ones at and past the length are unspecified) and the length (32-bit).

    >>> chars, n = decimal(smt.BitVecVal(-305, 32), True)
    >>> bytes(smt.simplify(c).as_long() for c in chars[:smt.simplify(n).as_long()])
    b'-305'
    """
    bits = value.size()
    negative = smt.BoolVal(False)
    magnitude = value
    if signed:
        negative = value < smt.bv(0, bits)
        magnitude = smt.If(negative, -value, value)  # the minimum's negation is itself, unsigned: its magnitude
    count = len(str((1 << bits) - 1))
    digits = []  # digits[k]: the digit of 10^k
    rest = magnitude
    for _ in range(count):
        digits.append(smt.Extract(7, 0, smt.URem(rest, smt.bv(10, bits))) + smt.bv(ord("0"), 8))
        rest = smt.UDiv(rest, smt.bv(10, bits))
    length = smt.bv(1)  # the number of digits
    for k in range(1, count):
        length = smt.If(smt.UGE(magnitude, smt.bv(10 ** k, bits)), smt.bv(k + 1), length)
    sign = smt.If(negative, smt.bv(1), smt.bv(0))
    chars = []
    for p in range(count + 1):  # position p from the left: the sign, then the digit of 10^(length - 1 - (p - sign))
        digit = smt.bv(0, 8)
        for k in range(count):
            digit = smt.If(sign + length - smt.bv(1 + p) == smt.bv(k), digits[k], digit)
        chars.append(smt.If(smt.And(negative, p == 0), smt.bv(ord("-"), 8), digit) if p == 0 else digit)
    return chars, sign + length


class Sprintf(CharArrays):
    """Encodes ``sprintf`` into a char array (see module docstring)."""

    def _sprintf(self, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``sprintf(dest, fmt, ...)`` on the path of ``ctx``; raises
        ``UnsupportedConstruct`` for a conversion it does not print and
        ``BadInput`` for arguments that do not match the format."""
        if len(args) < 2:
            raise BadInput(f"call to 'sprintf' with {len(args)} arguments, expected at least 2", self._point(node))
        pieces = self._format("sprintf", node, args, 1, scan=False)
        dest = self._array_argument(args[0], ctx, "sprintf")
        if dest.var is None:
            raise UnsupportedConstruct(self._point(args[0]), "sprintf into a string literal")
        values = iter(args[2:])
        written = smt.bv(0)
        for piece in pieces:
            if isinstance(piece, bytes):
                chars, length = [smt.bv(b, 8) for b in piece], smt.bv(len(piece))
            else:
                chars, length = self._sprintf_piece(piece, next(values), node, ctx)
            self._sprintf_store(dest, chars, length, written, node, ctx)
            written = smt.simplify(written + length)
        self._excess(values, ctx)
        self._sprintf_store(dest, [smt.bv(0, 8)], smt.bv(1), written, node, ctx)
        return Value(written, ct.INT)

    def _sprintf_piece(self, piece: Conversion, arg: c_ast.Node, node: c_ast.FuncCall, ctx: Ctx
                       ) -> tuple[list[smt.Term], smt.Term]:
        what = f"sprintf {piece.text}"
        if piece.letter == "s" and piece.width is None and piece.text == "%s":
            return self._scan_length(self._array_argument(arg, ctx, what), ctx, node)
        if piece.letter not in "diuc" or piece.text.lstrip("%").rstrip("diuchljztqL")[:1] != "":
            raise UnsupportedConstruct(self._point(node), f"{what} (sprintf prints %d %i %u %c %s without flags, "
                                       "width or precision)")
        ptype = ct.IntType(max(piece.bits, 32), piece.signed, name=piece.text)
        term, ctx.state = self._located(arg, ctx.state, LocationKind.ARGUMENT, ptype,
                                        name=f"sprintf@{self._line(node)}::arg")
        if piece.letter == "c":
            return [smt.Extract(7, 0, term)], smt.bv(1)
        value = term if piece.bits >= 32 else smt.Extract(piece.bits - 1, 0, term)
        return decimal(value, piece.signed)

    def _sprintf_store(self, dest, chars: list[smt.Term], length: smt.Term, at: smt.Term, node: c_ast.Node,
                       ctx: Ctx) -> None:
        """``dest[at + j] = chars[j]`` for ``j < length``, each index checked."""
        if not chars:
            return
        self._check_within(dest, at + length - smt.bv(1), ctx, node, when=length != smt.bv(0))
        for j, c in enumerate(chars):
            self._store_at(dest, smt.simplify(at + smt.bv(j)), c, ctx.state, node, when=smt.bv(j) < length)
