"""stdin as a bounded stream of input tokens (see also :mod:`crepair.encode.stdio`).

Input.  stdin is a sequence of whitespace-separated *tokens*, an
unconstrained array ``stdin`` of 64-bit values indexed from 0, with the
characters of string tokens in a second array; the path state holds the
index of the next token (the SSA variable ``$stdin``).  The k-th
conversion a run of ``scanf`` performs reads token k: ``%d %i %u %x %o``
(with ``hh h l ll j z t``) take the token's low bits, as glibc's
``strtol`` result converted to the argument's type; ``%c`` and
``getchar()`` its low 8 bits (so whitespace is not read by ``%c``: the
stream holds tokens, not layout); ``%s`` a string of 1 to ``--input-bound``
(or the field width) characters, neither NUL nor whitespace, stored with
its NUL.  Literal text and whitespace in a format match anything;
the stream's length is an input too (``stdin$length``, shared like the
tokens): a conversion at or beyond it fails, and ``scanf`` returns the
number of values stored, or ``EOF`` (-1) when the input ended before the
first conversion (``getchar()`` then returns ``EOF``).  The input holds
every token that a ``scanf`` whose result the program ignores (a call
statement) reads: only a tested ``scanf`` (``while (scanf(...) == 2)``)
meets the end of the input, as the judge's input contract says.  ``gets``
and ``fgets(s, n, stdin)`` read a token as a line (0 to L characters,
none NUL or newline; ``fgets`` keeps its newline).  A conversion into a
wider variable writes its low bytes only (``long long n; scanf("%d", &n)``), as on x86-64; into a
narrower one it writes past the object and is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode import streams
from crepair.encode.chararrays import CharArrays
from crepair.encode.formats import Conversion, parse_format
from crepair.encode.formula import Constraint, Input, UnwindingCut, Violation
from crepair.encode.ops import string_bytes
from crepair.encode.ops import Value, convert
from crepair.encode.walk import Ctx, State, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import fp, smt

STDIN = "$stdin"  # env key: the index of the next token
WHITESPACE = (9, 10, 11, 12, 13, 32)


@dataclass(slots=True)
class StdioState:
    """The streams of one encoding: the token values and string
    characters (shared by every run of the encoding), whether outputs are
    recorded, and the first run's output once rewound."""

    tokens: smt.Term
    chars: smt.Term
    length: smt.Term
    recorded: bool
    discarded: frozenset[int] = frozenset()  # ids of the scanf calls that are statements
    saved: tuple[smt.Term, smt.Term] | None = None
    rewound: bool = False



def not_space(c: smt.Term) -> smt.Term:
    """``c`` (a character term) is not white space."""
    return smt.And(*[c != smt.bv(w, smt.width(c)) for w in WHITESPACE])


class Stdin(CharArrays):
    """Encodes ``scanf``, ``getchar``, ``gets`` and ``fgets`` (see the module docstring)."""

    def _format(self, name: str, node: c_ast.FuncCall, args: list, index: int, scan: bool) -> list:
        if len(args) <= index:
            raise BadInput(f"call to '{name}' without a format", self._point(node))
        fmt = args[index]
        if not (isinstance(fmt, c_ast.Constant) and fmt.type == "string"):
            raise UnsupportedConstruct(self._point(fmt), f"{name} with a format that is not a string literal")
        pieces = parse_format(string_bytes(fmt.value, self._point(fmt)), self._point(fmt), scan=scan)
        wanted = sum(1 for p in pieces if isinstance(p, Conversion) and not p.suppress)
        if wanted > len(args) - index - 1:
            raise BadInput(f"call to '{name}' with {len(args) - index - 1} arguments for {wanted} conversions",
                           self._point(node))
        return pieces

    def _excess(self, rest, ctx: Ctx) -> None:
        """The arguments ``rest`` left once a format is exhausted: "evaluated
        (as always) but otherwise ignored" (C11 7.21.6.1p2, 7.21.6.2p2); only
        those with side effects need encoding."""
        for arg in rest:
            if has_effects(arg):
                self._expr(arg, ctx)

    def _token(self, label: str | None, node: c_ast.Node, ctx: Ctx, conv: Conversion | None = None
               ) -> tuple[smt.Term, smt.Term]:
        """Read the next token: (its 64-bit value, its index); an input
        named ``label`` (none if None) in the first run, shown as the value
        conversion ``conv`` stores (its low bits, signed as it is)."""
        state = ctx.state
        pos = state.env[STDIN]
        line = self._line(node)
        tok = self._fresh(f"stdin@{line}", ct.LONG)
        self.formula.s_assign.append(Constraint(tok == smt.Select(self._stdio.tokens, pos),
                                                self._p.spans.span(node), self._function))
        state.env[STDIN] = pos + smt.bv(1)
        if label is not None and not self._stdio.rewound:
            shown, signed = tok, True
            if conv is not None and 0 < conv.bits < 64:
                shown, signed = smt.Extract(conv.bits - 1, 0, tok), conv.signed
            self.formula.inputs.append(Input(label, line, shown, signed, guard=state.guard))
        return tok, pos

    def _stream(self, arg: c_ast.Node, ctx: Ctx, what: str) -> str:
        """The standard stream the ``FILE *`` argument ``arg`` holds
        (:func:`crepair.encode.streams.stream_name`); ``UnsupportedConstruct``
        when it is not one fixed standard stream."""
        value = self._expr(arg, ctx)
        if isinstance(value.ctype, ct.StreamType) and not smt.is_bv_value(smt.simplify(value.term)):
            f = self.formula  # a variable's stream: its SSA definitions are read (not for stdout named as it is)
            definitions = [smt.eq_sides(c.term) for c in f.s_assign + f.s_phi if smt.is_eq(c.term)]
            definitions += [(c.lhs, c.alternatives[0]) for c in f.copies]
            value = Value(streams.propagated(value.term, definitions), value.ctype)
        return streams.stream_name(value, self._point(arg), what)

    def _read_stream(self, arg: c_ast.Node, ctx: Ctx, what: str) -> None:
        """Raises ``UnsupportedConstruct`` unless ``arg`` holds ``stdin``."""
        if self._stream(arg, ctx, what) != "stdin":
            raise UnsupportedConstruct(self._point(arg), f"{what} from a stream other than stdin")

    def _scanf(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``scanf(fmt, ...)``, ``fscanf(stdin, fmt, ...)``: every
        conversion reads the next token, if any."""
        if name == "fscanf":
            if not args:
                raise BadInput("call to 'fscanf' without a stream", self._point(node))
            self._read_stream(args[0], ctx, name)
            args = args[1:]
        pieces = self._format(name, node, args, 0, scan=True)
        conversions = [p for p in pieces if isinstance(p, Conversion)]
        length = self._stdio.length
        first = ctx.state.env[STDIN]
        if id(node) in self._stdio.discarded:  # the program trusts the input to hold these tokens
            self._assume(self.formula.assumptions,
                         smt.Implies(ctx.state.guard, smt.ULE(first + smt.bv(len(conversions)), length)), None)
        targets = iter(args[1:])
        stored, result = 0, None
        outer = ctx.state
        ends = []  # (the input ends before conversion k, values stored before it)
        for piece in conversions:
            pos = outer.env[STDIN]
            there = smt.ULT(pos, length)
            ends.append((smt.Not(there), stored))
            ctx.state = State(smt.And(outer.guard, there), outer.env)
            target = None if piece.suppress else next(targets)
            if piece.letter == "s":
                self._scan_string(piece, target, node, ctx)
            elif piece.letter == "f":
                self._scan_float(piece, target, f"{name} {piece.text}", node, ctx, there)
            else:
                tok, _ = self._token(f"{name} {piece.text}", node, ctx, piece)
                if target is not None:
                    self._scan_store(target, smt.Extract(piece.bits - 1, 0, tok), piece, ctx, there)
            stored += target is not None
        ctx.state = outer
        self._excess(targets, ctx)
        result = smt.bv(stored)
        for ended, before in reversed(ends):
            result = smt.If(ended, smt.bv(before if before else -1), result)
        return Value(smt.simplify(result), ct.INT)

    def _scan_float(self, piece: Conversion, target, label: str, node: c_ast.FuncCall, ctx: Ctx,
                    there: smt.Term) -> None:
        """``%f``/``%lf``: the next token is an integer, read as the float
        ``strtod`` gives for its text (exact up to 2^24 / 2^53, else rounded
        to nearest).  Only integer inputs are tried: a run that reads one
        is marked as cut ("float input"), so a verdict of no violation is
        reported bounded, never verified; a violation is real."""
        tok, _ = self._token(label, node, ctx)
        span = self._p.spans.span(node)
        self.formula.cuts.append(UnwindingCut(ctx.state.guard, span, "float input (integer values tried only)"))
        if target is not None:
            self._scan_store(target, fp.from_integer(tok, True, piece.bits), piece, ctx, there)

    def _scan_store(self, target: c_ast.Node, value: smt.Term, conv: Conversion, ctx: Ctx, when: smt.Term) -> None:
        """Store ``value`` (``conv.bits`` wide) into the object ``&x``,
        ``&a[i]``, ``a + i``, ``&s.x``, ``&p->x`` or another pointer points
        to, if ``when`` (else it keeps its value)."""
        place = None
        if isinstance(target, c_ast.UnaryOp) and target.op == "&" and isinstance(target.expr, c_ast.ID):
            var = self._lookup(target.expr)
            if isinstance(var.ctype, ct.ArrayType):
                raise UnsupportedConstruct(self._point(target), f"scanf {conv.text} into an array")
            src, ctype, old = None, var.ctype, ctx.state.env[var.key]
        elif self._element_target(target):
            src = self._array_argument(target, ctx, f"scanf {conv.text}")
            self._check_within(src, smt.bv(0), ctx, target)
            ctype, old = src.elem, self._char_at(src, 0)
        else:  # &s.x, &a[i].x, &p->x, a + i + 1, p: through the memory model's places
            src, place = None, self._scan_place(target, conv, ctx)
            ctype, old = place.ctype, place.read()
        if ctype.bits < conv.bits:  # glibc writes conv.bits / 8 bytes: past the object (undefined behaviour)
            self._check(Ctx(ctx.state, {}, {}, True), Violation.POINTER_BOUNDS, target, smt.Not(when),
                        subject=f"scanf {conv.text} into a {ctype.bits}-bit {ctype.name}",
                        operands=(smt.bv(conv.bits // 8 - 1, 64), smt.bv(ctype.bits // 8, 64)))
            value = smt.Extract(ctype.bits - 1, 0, value)  # a run that goes on keeps the low bytes (little-endian)
        if ctype.is_bool:
            raise UnsupportedConstruct(self._point(target), f"scanf {conv.text} into a _Bool")
        if ctype.bits > conv.bits:  # x86-64 is little-endian: the low bytes change
            keep = smt.bv(((1 << ctype.bits) - 1) ^ ((1 << conv.bits) - 1), ctype.bits)
            value = (old & keep) | smt.ZeroExt(ctype.bits - conv.bits, value)
        if place is not None:
            place.update(ctx, lambda current: smt.If(when, value, current))
        elif src is None:
            fresh = self._fresh(var.key, ctype)
            value = smt.simplify(smt.If(when, value, old))
            self.formula.s_assign.append(Constraint(fresh == value, self._p.spans.span(target), self._function))
            ctx.state.env[var.key] = fresh
        else:
            self._store_at(src, 0, value, ctx.state, target)

    def _element_target(self, target: c_ast.Node) -> bool:
        """Whether ``target`` is ``&a[i]`` or ``a + i`` of an array variable ``a``
        (stored as an array element, :class:`~crepair.encode.chararrays.CharSource`)."""
        if isinstance(target, c_ast.UnaryOp) and target.op == "&" and isinstance(target.expr, c_ast.ArrayRef):
            name = target.expr.name
        elif isinstance(target, c_ast.BinaryOp) and target.op == "+":
            name = target.left if isinstance(target.left, c_ast.ID) else target.right
        else:
            return False
        if isinstance(name, c_ast.ArrayRef):  # &a[i][j]: a row of a multi-dimensional array
            return True
        return isinstance(name, c_ast.ID) and isinstance(self._lookup(name).ctype, ct.ArrayType)

    def _scan_place(self, target: c_ast.Node, conv: Conversion, ctx: Ctx):
        """The object a scanf argument points to: ``&lvalue`` (a struct
        member, an element through a pointer) or a pointer expression."""
        if isinstance(target, c_ast.UnaryOp) and target.op == "&":
            return self._place(target.expr, ctx)
        pointer = self._expr(target, ctx)
        if not isinstance(pointer.ctype, ct.PointerType):
            raise UnsupportedConstruct(self._point(target), f"scanf {conv.text} argument that is not a pointer")
        return self._pointee(self._pointer_value(pointer, target), target, ctx)

    def _scan_string(self, conv: Conversion, target: c_ast.Node | None, node: c_ast.FuncCall, ctx: Ctx) -> None:
        """``%s``: a token of 1 to L characters, none NUL or whitespace, and its NUL."""
        limit = self._input_bound() if conv.width is None else min(conv.width, self._input_bound())
        self._read_string(target, node, ctx, f"scanf {conv.text}", limit, 1, False)

    def _read_string(self, target: c_ast.Node | None, node: c_ast.FuncCall, ctx: Ctx, what: str, limit: int,
                     shortest: int, line: bool) -> None:
        """Read a string token of ``shortest`` to ``limit`` characters into
        the array ``target`` names (None: skip it): a word (no NUL, no
        whitespace) or, with ``line``, a line (no NUL, no newline; spaces
        allowed).  Character j of token k is ``stdin$chars[k * (L + 1) + j]``
        (L the input bound), so that every run reads the same characters."""
        tok, pos = self._token(None, node, ctx)
        state = ctx.state
        length = smt.Extract(31, 0, tok)
        where = self._p.spans.span(node)
        self.formula.assumptions.append(Constraint(
            smt.Implies(state.guard, smt.And(length >= smt.bv(shortest), length <= smt.bv(limit))), where))
        base = pos * smt.bv(self._input_bound() + 1)
        chars = []
        for j in range(limit):
            c = smt.Select(self._stdio.chars, base + smt.bv(j))
            chars.append(c)
            allowed = c != smt.bv(10, 8) if line else not_space(c)
            ok = smt.Implies(smt.bv(j) < length, smt.And(c != smt.bv(0, 8), allowed))
            self.formula.assumptions.append(Constraint(smt.Implies(state.guard, ok), where))
        if not self._stdio.rewound:  # the string as an input: its characters
            shown = smt.smt_array(f"stdin@{self._line(node)}$s#{next(self._ssa)}", 8)
            value = smt.K(smt.BitVecSort(32), smt.bv(0, 8))
            for j, c in enumerate(chars):
                value = smt.Store(value, smt.bv(j), smt.If(smt.bv(j) < length, c, smt.bv(0, 8)))
            self.formula.s_assign.append(Constraint(shown == value, where, self._function))
            self.formula.inputs.append(Input(what, self._line(node), shown, False, is_array=True, size=length,
                                             guard=state.guard))
        if target is None:
            return
        dest = self._array_argument(target, ctx, what)
        if dest.elem.bits != 8:
            raise UnsupportedConstruct(self._point(target), f"{what} into an array of {dest.elem.name}")
        self._check_within(dest, length, ctx, target)
        for j in range(limit + 1):
            value = smt.If(smt.bv(j) < length, chars[j], smt.bv(0, 8)) if j < limit else smt.bv(0, 8)
            self._store_at(dest, j, value, state, node, when=smt.bv(j) <= length if j else None)

    def _gets(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``gets(s)``, ``fgets(s, n, stdin)``: the next token as a line of
        0 to L characters (``fgets``: at most n - 2, then its newline),
        and its NUL; 1 (not NULL), or 0 (NULL) at the end of the input."""
        expected = 1 if name == "gets" else 3
        if len(args) != expected:
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {expected}", self._point(node))
        if name == "fgets":
            self._read_stream(args[2], ctx, name)
        limit = self._input_bound()
        if name == "fgets":
            n = smt.simplify(convert(self._expr(args[1], ctx), ct.INT).term)
            if not smt.is_bv_value(n) or n.as_signed_long() < 2:
                raise UnsupportedConstruct(self._point(args[1]), "fgets with a size that is not a constant >= 2")
            limit = min(limit, n.as_signed_long() - 2)
        outer = ctx.state
        pos = outer.env[STDIN]
        there = smt.ULT(pos, self._stdio.length)
        if id(node) in self._stdio.discarded:
            self._assume(self.formula.assumptions, smt.Implies(outer.guard, there), None)
        ctx.state = State(smt.And(outer.guard, there), outer.env)
        self._read_string(args[0], node, ctx, f"{name}()", limit, 0, True)
        if name == "fgets":  # the newline, then the NUL, after the line's characters
            dest = self._array_argument(args[0], ctx, name)
            length = smt.Extract(31, 0, smt.Select(self._stdio.tokens, pos))
            self._check_within(dest, length + smt.bv(1), ctx, args[0])
            self._store_at(dest, length, smt.bv(10, 8), ctx.state, node)
            self._store_at(dest, length + smt.bv(1), smt.bv(0, 8), ctx.state, node)
        ctx.state = outer
        return Value(smt.If(there, smt.bv(1), smt.bv(0)), ct.INT)

    def _fgetc(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``fgetc(stdin)``, ``getc(stdin)``: as ``getchar()``."""
        if len(args) != 1:
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected 1", self._point(node))
        self._read_stream(args[0], ctx, name)
        return self._getchar(node, ctx)

    def _getchar(self, node: c_ast.FuncCall, ctx: Ctx) -> Value:
        """``getchar()``: the low byte of the next token, as an unsigned
        char, or ``EOF`` at the end of the input."""
        tok, pos = self._token("getchar()", node, ctx)
        byte = smt.ZeroExt(24, smt.Extract(7, 0, tok))
        return Value(smt.If(smt.ULT(pos, self._stdio.length), byte, smt.bv(-1)), ct.INT)


_STATEMENT_FIELDS = {c_ast.Compound: ("block_items",), c_ast.If: ("iftrue", "iffalse"), c_ast.While: ("stmt",),
                     c_ast.DoWhile: ("stmt",), c_ast.For: ("stmt", "init", "next"), c_ast.Case: ("stmts",),
                     c_ast.Default: ("stmts",), c_ast.Label: ("stmt",)}


def statement_calls(ast: c_ast.Node) -> list[int]:
    """The ids of the calls under ``ast`` that are statements (their value unused)."""
    out, stack = [], [ast]
    while stack:
        node = stack.pop()
        for attr in _STATEMENT_FIELDS.get(type(node), ()):
            value = getattr(node, attr)
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, c_ast.FuncCall):
                    out.append(id(child))
        stack.extend(child for _, child in node.children())
    return out
