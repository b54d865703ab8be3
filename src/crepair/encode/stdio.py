"""stdout as a sequence of tokens, and the comparison of two programs'
outputs (stdin: :mod:`crepair.encode.stdin`).

Output.  The output is compared as the Codeflaws judge compares it
(``sed -e '/^$/d' -e 's/^[ \t]*//' | diff --ignore-trailing-space``):
empty lines, the blanks that start or end a line and the final newline do
not count; everything else does.  So the output is recorded as a sequence
of 89-bit *tokens* (the array ``$stdout``, its length ``$stdout_n``): a
number printed by ``%d %i %u %ld %lld %lu %llu`` (kind 1, its value in 65
bits), by ``%x %X %o`` (kinds 3-5), a double by ``%.Nf`` (kind 16 + N:
its sign and the rounded digits, which glibc's text is a function of), or a character that is not white
space (kind 2: ``%c``, ``%s``, ``puts``, ``putchar``, literal text,
``%%``), each with the number of blanks before it on its line (0 at the
start of a line) and whether a new line starts with it.  Blanks
(``' '``, tabs, ``\r``, ``\v``, ``\f``) are counted and newlines noted in the
path state (``$stdout_sp``, ``$stdout_line``: 0 nothing printed yet, 1
inside a line, 2 after a line's newline).  Field widths and padding of
numbers are not recorded.  Outputs are recorded only when the program is
compared with a ``--reference`` from ``main``; otherwise ``printf``'s
arguments are evaluated for their effects only.

Comparison (:mod:`crepair.reference`).  The harness runs the user's
``main``, then ``__crepair_rewind_stdio()`` (the reference reads stdin
again from its first token and writes a new output), then the
reference's ``main`` and ``__crepair_same_output()``: an assertion that
both outputs have the same length and the same records (the arrays are
equal: a store happens only below the length).
"""

from __future__ import annotations

from pycparser import c_ast

from crepair.encode import ctypes as ct
from crepair.encode.chararrays import CharSource
from crepair.encode.formula import Assertion, LocationKind, UnwindingCut, Violation
from crepair.encode.ops import Value, convert, to_bool
from crepair.encode.stdin import STDIN, Stdin, StdioState, not_space, statement_calls
from crepair.encode.walk import Ctx, State, has_effects
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.solver import fp, smt

STDOUT = "$stdout"  # array key: the records
STDOUT_N = "$stdout_n"  # env key: the number of tokens
STDOUT_SP = "$stdout_sp"  # env key: blanks since the last token on this line (16 bits)
STDOUT_LINE = "$stdout_line"  # env key: 0 nothing printed, 1 in a line, 2 after a newline (8 bits)
RECORD_BITS = 89
NUMBER, CHAR, HEX, HEX_UPPER, OCTAL = 1, 2, 3, 4, 5
FIXED = 16  # FIXED + N: a double printed by %.Nf (its sign bit, then the 64-bit digits)
_KINDS = {"d": NUMBER, "i": NUMBER, "u": NUMBER, "x": HEX, "X": HEX_UPPER, "o": OCTAL, "c": CHAR}
BLANKS = (9, 11, 12, 13, 32)
REWIND = "__crepair_rewind_stdio"
SAME_OUTPUT = "__crepair_same_output"
EQUAL = "__crepair_equal"  # __crepair_equal(a, b, "what"): the harness's comparison (Violation.NOT_EQUIVALENT)



def _record(kind: int, value: smt.Term, signed: bool, newline: smt.Term, spaces: smt.Term) -> smt.Term:
    """A token: ``kind`` (7 bits), ``newline`` (1 bit: a line starts with
    it), ``spaces`` (16 bits: blanks before it) and ``value`` in 65 bits."""
    extend = smt.SignExt if signed else smt.ZeroExt
    wide = extend(RECORD_BITS - smt.width(value), value) & smt.bv((1 << 65) - 1, RECORD_BITS)
    head = (smt.bv(kind, RECORD_BITS) << 82) | (smt.ZeroExt(RECORD_BITS - 8, newline) << 81)
    return head | (smt.ZeroExt(RECORD_BITS - 16, spaces) << 65) | wide


class Stdio(Stdin):
    """Encodes ``printf``, ``puts``, ``putchar`` and the harness's stream
    intrinsics (see the module docstring), over :class:`Stdin`."""

    def _stdio_begin(self, state: State, recorded: bool) -> None:
        """Start the streams: token 0 next, no output yet."""
        self._stdio = StdioState(smt.smt_array("stdin", 64), smt.smt_array("stdin$chars", 8),
                                 smt.BitVec("stdin$length", 32), recorded, frozenset(statement_calls(self._p.ast)))
        state.env[STDIN] = smt.bv(0)
        self._start_output(state)

    def _start_output(self, state: State) -> None:
        state.env[STDOUT_N] = smt.bv(0)
        state.env[STDOUT_SP] = smt.bv(0, 16)
        state.env[STDOUT_LINE] = smt.bv(0, 8)
        self._arrays[STDOUT] = smt.K(smt.BitVecSort(32), smt.bv(0, RECORD_BITS))

    # --------------------------------------------------------------- output
    def _emit(self, kind: int, value: smt.Term, signed: bool, ctx: Ctx, node: c_ast.Node,
              when: smt.Term | None = None) -> None:
        """Append a token on this path, if ``when``."""
        self._check_deadline()  # a printf of a long text emits many tokens
        state = ctx.state
        env = state.env
        n, line, sp = env[STDOUT_N], env[STDOUT_LINE], env[STDOUT_SP]
        newline = smt.simplify(smt.If(line == smt.bv(2, 8), smt.bv(1, 8), smt.bv(0, 8)))
        spaces = smt.simplify(smt.If(line == smt.bv(1, 8), sp, smt.bv(0, 16)))
        record = smt.simplify(_record(kind, value, signed, newline, spaces))
        path = state if when is None else State(smt.And(state.guard, when), env)
        self._store_element(path, STDOUT, n, record, self._p.spans.span(node), write_only=True)
        if when is None:
            env[STDOUT_N], env[STDOUT_LINE], env[STDOUT_SP] = n + smt.bv(1), smt.bv(1, 8), smt.bv(0, 16)
        else:
            env[STDOUT_N] = smt.simplify(n + smt.If(when, smt.bv(1), smt.bv(0)))
            env[STDOUT_LINE] = smt.simplify(smt.If(when, smt.bv(1, 8), line))
            env[STDOUT_SP] = smt.simplify(smt.If(when, smt.bv(0, 16), sp))

    def _blank(self, ctx: Ctx, when: smt.Term | None = None) -> None:
        env = ctx.state.env
        more = env[STDOUT_SP] + smt.bv(1, 16)
        env[STDOUT_SP] = more if when is None else smt.simplify(smt.If(when, more, env[STDOUT_SP]))

    def _newline(self, ctx: Ctx, when: smt.Term | None = None) -> None:
        env = ctx.state.env
        line = smt.If(env[STDOUT_LINE] == smt.bv(1, 8), smt.bv(2, 8), env[STDOUT_LINE])
        if when is None:
            env[STDOUT_LINE], env[STDOUT_SP] = smt.simplify(line), smt.bv(0, 16)
        else:
            env[STDOUT_LINE] = smt.simplify(smt.If(when, line, env[STDOUT_LINE]))
            env[STDOUT_SP] = smt.simplify(smt.If(when, smt.bv(0, 16), env[STDOUT_SP]))

    def _emit_text(self, data: bytes, ctx: Ctx, node: c_ast.Node, when: smt.Term | None = None) -> None:
        for b in data:
            if b == 10:
                self._newline(ctx, when)
            elif b in BLANKS:
                self._blank(ctx, when)
            else:
                self._emit(CHAR, smt.bv(b, 8), False, ctx, node, when)

    def _emit_choice(self, arg: c_ast.TernaryOp, ctx: Ctx, node: c_ast.Node, what: str) -> None:
        """``%s`` of ``c ? "yes" : "no"`` or ``c > 0 ? s1 : s2``: the
        condition is a repairable location; the text printed is the string
        it selects (an array's string is read, and checked, only on the
        runs that select it)."""
        arms = [self._array_argument(a, ctx, what) for a in (arg.iftrue, arg.iffalse)]
        cond, ctx.state = self._located(arg.cond, ctx.state, LocationKind.CONDITION, None, name="cond")
        for arm, when in zip(arms, (cond, smt.Not(cond))):
            if arm.literal is not None:
                self._emit_text(arm.literal[: arm.literal.index(0)], ctx, node, when)
            else:
                selected = Ctx(State(smt.And(ctx.state.guard, when), ctx.state.env), ctx.cache, ctx.overrides,
                               ctx.record, ctx.checks)
                self._emit_string(arm, selected, node, when)

    def _emit_char(self, c: smt.Term, ctx: Ctx, node: c_ast.Node, when: smt.Term | None = None) -> None:
        """Print character ``c`` (8 bits), if ``when``."""
        c = smt.simplify(c)
        if smt.is_bv_value(c):  # a known character: only its own kind of token (no terms for the other two)
            self._emit_text(bytes([c.as_long()]), ctx, node, when)
            return
        within = (lambda t: t) if when is None else (lambda t: smt.simplify(smt.And(when, t)))
        self._emit(CHAR, c, False, ctx, node, within(not_space(c)))
        self._blank(ctx, within(smt.Or(*[c == smt.bv(b, 8) for b in BLANKS])))
        self._newline(ctx, within(c == smt.bv(10, 8)))

    def _emit_string(self, src: CharSource, ctx: Ctx, node: c_ast.Node, when: smt.Term | None = None) -> None:
        """Print the string at ``src`` (if ``when``)."""
        if src.literal is not None:
            self._emit_text(src.literal[: src.literal.index(0)], ctx, node, when)
            return
        if src.elem.bits != 8:
            raise UnsupportedConstruct(self._point(src.node), f"string '{src.name}' of {src.elem.name}")
        chars, length = self._scan_length(src, ctx, node)
        for j, c in enumerate(chars):
            shown = smt.simplify(smt.bv(j) < length)
            if smt.is_false(shown):
                break  # past the end of the string on every path
            if smt.is_true(shown):
                self._emit_char(c, ctx, node, when)
            else:
                self._emit_char(c, ctx, node, shown if when is None else smt.And(when, shown))

    def _printf(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``printf(fmt, ...)`` (``fprintf(stdout, fmt, ...)``: ``first`` 1)."""
        first = 1 if name == "fprintf" else 0
        fmt = args[first] if len(args) > first else None
        if isinstance(fmt, c_ast.TernaryOp) and all(isinstance(b, c_ast.Constant) and b.type == "string"
                                                    for b in (fmt.iftrue, fmt.iffalse)):
            return self._printf_choice(name, node, args, first, ctx)
        if not self._stdio.recorded:
            return self._unrecorded(name, node, args, ctx)
        if first and self._stream(args[0], ctx, name) != "stdout":
            return self._unrecorded(name, node, args, ctx)  # stderr is not compared
        pieces = self._format(name, node, args, first, scan=False)
        values = iter(args[first + 1:])
        for piece in pieces:
            if isinstance(piece, bytes):
                self._emit_text(piece, ctx, node)
                continue
            arg = next(values)
            if piece.letter == "s" and isinstance(arg, c_ast.TernaryOp):
                self._emit_choice(arg, ctx, node, f"{name} {piece.text}")
                continue
            if piece.letter == "s":
                self._emit_string(self._array_argument(arg, ctx, f"{name} {piece.text}"), ctx, node)
                continue
            if piece.letter == "f":
                self._emit_fixed(piece, arg, ctx, node, name)
                continue
            ptype = ct.IntType(max(piece.bits, 32), piece.signed, name=piece.text)
            term, ctx.state = self._located(arg, ctx.state, LocationKind.ARGUMENT, ptype,
                                            name=f"{name}@{self._line(node)}::arg")
            if piece.letter == "c":
                self._emit_char(smt.Extract(7, 0, term), ctx, node)
            else:
                value = term if piece.bits >= 32 else smt.Extract(piece.bits - 1, 0, term)
                self._emit(_KINDS[piece.letter], value, piece.signed, ctx, node)
        self._excess(values, ctx)
        return Value(self._fresh(f"{name}@{self._line(node)}", ct.INT), ct.INT)

    def _printf_choice(self, name: str, node: c_ast.FuncCall, args: list, first: int, ctx: Ctx) -> Value:
        """``printf(c ? "fmt1" : "fmt2", ...)``: each path prints its format."""
        fmt = args[first]
        cond = to_bool(self._expr(fmt.cond, ctx))
        states = []
        for branch, taken in ((fmt.iftrue, cond), (fmt.iffalse, smt.Not(cond))):
            sub = Ctx(ctx.state.fork(taken), {}, {}, True)
            self._printf(name, node, args[:first] + [branch] + args[first + 1:], sub)
            states.append(sub.state)
        ctx.state = self._merge(states, ctx.state.guard, branch=cond)
        return Value(self._fresh(f"{name}@{self._line(node)}", ct.INT), ct.INT)

    def _emit_fixed(self, piece, arg: c_ast.Node, ctx: Ctx, node: c_ast.FuncCall, name: str) -> None:
        """``%.Nf`` of a double: one token of kind ``FIXED + N`` holding the
        sign and the digits glibc prints (crepair.solver.fp.fixed); a run
        printing an infinity, a NaN or a value of 2^63 / 10^N or more is cut
        ("printf %f")."""
        term, ctx.state = self._located(arg, ctx.state, LocationKind.ARGUMENT, ct.DOUBLE,
                                        name=f"{name}@{self._line(node)}::arg")
        value, ok = fp.fixed(term, 64, piece.precision)
        beyond = smt.simplify(smt.And(ctx.state.guard, smt.Not(ok)))
        if not smt.is_false(beyond):
            span = self._p.spans.span(node)
            self.formula.cuts.append(UnwindingCut(beyond, span, f"printf {piece.text} of an infinity, a NaN or a "
                                                  "huge value"))
            self._assume(self.formula.unwinding_assumptions, smt.Not(beyond), span)
        self._emit(FIXED + piece.precision, value, False, ctx, node)

    def _unrecorded(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        for arg in args:  # the output is not compared; the arguments' side effects are
            if has_effects(arg):
                self._expr(arg, ctx)
        return Value(self._fresh(f"{name}@{self._line(node)}", ct.INT), ct.INT)

    def _puts(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``puts(s)``: the characters of ``s``, then a newline;
        ``fputs(s, stdout)``: the characters alone."""
        expected = 2 if name == "fputs" else 1
        if len(args) != expected:
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {expected}", self._point(node))
        if not self._stdio.recorded or (name == "fputs" and self._stream(args[1], ctx, name) != "stdout"):
            return self._unrecorded(name, node, args, ctx)
        self._emit_string(self._array_argument(args[0], ctx, name), ctx, node)
        if name == "puts":
            self._newline(ctx)
        return Value(self._fresh(f"{name}@{self._line(node)}", ct.INT), ct.INT)

    def _putchar(self, name: str, node: c_ast.FuncCall, args: list, ctx: Ctx) -> Value:
        """``putchar(c)``, ``fputc(c, stdout)``, ``putc(c, stdout)``: the
        character ``(unsigned char) c``, which it returns (to another
        stream: not compared)."""
        expected = 1 if name == "putchar" else 2
        if len(args) != expected:
            raise BadInput(f"call to '{name}' with {len(args)} arguments, expected {expected}", self._point(node))
        if not self._stdio.recorded or (expected == 2 and self._stream(args[1], ctx, name) != "stdout"):
            value = convert(self._expr(args[0], ctx), ct.INT).term
        else:
            value, ctx.state = self._located(args[0], ctx.state, LocationKind.ARGUMENT, ct.INT,
                                             name=f"{name}@{self._line(node)}::arg")
            self._emit_char(smt.Extract(7, 0, value), ctx, node)
        return Value(smt.ZeroExt(24, smt.Extract(7, 0, value)), ct.INT)

    # ------------------------------------------------------------ harness
    def _rewind_stdio(self, ctx: Ctx) -> Value:
        """The reference's run starts: stdin from its first token, a new output."""
        self._stdio.saved = (self._arrays[STDOUT], ctx.state.env[STDOUT_N])
        self._stdio.rewound = True
        ctx.state.env[STDIN] = smt.bv(0)
        self._start_output(ctx.state)
        return Value(smt.bv(0), ct.VOID)

    def _same_output(self, node: c_ast.FuncCall, ctx: Ctx) -> Value:
        """Assert that this output equals the one saved by the rewind."""
        if self._stdio.saved is None:
            raise BadInput(f"{SAME_OUTPUT}() before {REWIND}()", self._point(node))
        array, n = self._stdio.saved
        same = smt.And(n == ctx.state.env[STDOUT_N], array == self._arrays[STDOUT])
        self.formula.assertions.append(Assertion(ctx.state.guard, same, self._p.spans.span(node),
                                                 Violation.NOT_EQUIVALENT, "the output"))
        return Value(smt.bv(0), ct.VOID)
