"""C text for candidates: operator precedence and minimal parentheses.

A candidate's replacement is the user's text with one part changed, so
the new part is placed into the old context: it gets parentheses exactly
when the context binds tighter than the new part's top operator (C11
§6.5; levels below, higher binds tighter).

>>> place("a || b", ASSIGN), place("a || b", BINARY["&&"])
('a || b', '(a || b)')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Container

from pycparser import c_ast

from crepair.frontend.spans import Span
from crepair.frontend.tokens import tokenize
from crepair.typed.model import integer_literal

COMMA, ASSIGN, TERNARY, UNARY, PRIMARY = 1, 2, 3, 14, 15
BINARY = {
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9,
    "<": 10, "<=": 10, ">": 10, ">=": 10, "<<": 11, ">>": 11,
    "+": 12, "-": 12, "*": 13, "/": 13, "%": 13,
}


def node_precedence(node: c_ast.Node) -> int:
    """The precedence of ``node``'s top operator (ignoring parentheses)."""
    match node:
        case c_ast.BinaryOp(op=op):
            return BINARY.get(op, PRIMARY)
        case c_ast.UnaryOp(op=op) if op in ("p++", "p--"):
            return PRIMARY
        case c_ast.UnaryOp() | c_ast.Cast():
            return UNARY
        case c_ast.TernaryOp():
            return TERNARY
        case c_ast.Assignment():
            return ASSIGN
        case c_ast.ExprList():
            return COMMA
    return PRIMARY


def operand_context(parent: c_ast.Node, child: c_ast.Node) -> int:
    """The least precedence ``child`` may have as an operand of ``parent``
    without parentheses (left-associative binary operators)."""
    match parent:
        case c_ast.BinaryOp(op=op, left=left):
            level = BINARY.get(op, PRIMARY)
            return level if child is left else level + 1
        case c_ast.UnaryOp(op=op) if op in ("p++", "p--"):
            return PRIMARY
        case c_ast.UnaryOp() | c_ast.Cast():
            return UNARY
        case c_ast.TernaryOp(cond=cond, iffalse=iffalse):
            return TERNARY + 1 if child is cond else (TERNARY if child is iffalse else COMMA)
        case c_ast.Assignment() | c_ast.FuncCall() | c_ast.Decl() | c_ast.InitList():
            return ASSIGN
        case c_ast.ArrayRef(subscript=sub) if child is sub:
            return COMMA
        case c_ast.ArrayRef() | c_ast.StructRef():
            return PRIMARY
    return COMMA


def text_precedence(text: str, node_level: int) -> int:
    """The precedence of ``text`` (the source of a node whose own level is
    ``node_level``): PRIMARY when parentheses enclose all of it."""
    toks = [t.text for t in tokenize(text, skip_directives=False)]
    if len(toks) >= 2 and toks[0] == "(" and toks[-1] == ")":
        depth = 0
        for i, t in enumerate(toks):
            depth += t == "("
            depth -= t == ")"
            if depth == 0:
                return PRIMARY if i == len(toks) - 1 else node_level
    return node_level


def place(text: str, context: int, level: int | None = None, before: str = "") -> str:
    """``text`` (whose top operator has precedence ``level``; computed from
    the text when None, for simple texts) made fit for a position that
    requires at least ``context``; ``before`` is the character before the
    position (``-`` then ``-1`` must not become ``--1``)."""
    if level is None:
        level = _guess_level(text)
    if level < context or (text[:1] in "+-" and before in ("+", "-")):
        return f"({text})"
    return text


def _guess_level(text: str) -> int:
    toks = [t.text for t in tokenize(text, skip_directives=False)]
    if len(toks) == 1:
        return PRIMARY
    if toks[0] in ("-", "+", "!", "~", "*", "&") and len(toks) == 2:
        return UNARY
    depth, level = 0, PRIMARY
    for i, t in enumerate(toks):
        if t in ("(", "["):
            depth += 1
        elif t in (")", "]"):
            depth -= 1
        elif depth == 0 and t in BINARY and i > 0 and toks[i - 1] not in BINARY:
            level = min(level, BINARY[t])
        elif depth == 0 and t == "?":
            level = min(level, TERNARY)
    if level == PRIMARY and toks[0] == "(" and toks[-1] != ")":
        return UNARY  # a cast
    return level


#: two characters that read as one token, or start a comment, when written side by side (C11 §6.4.6)
_GLUE = {"//", "/*", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "&&", "||", "<<", ">>", "->",
         "==", "!=", "<=", ">=", "##", "<:", ":>", "<%", "%>", "%:", ".."}


def glued(left: str, right: str) -> bool:
    """Whether C text ``right`` written right after ``left`` would change
    their tokens: the last character of one and the first of the other
    form a punctuator or a comment's start (``a/`` then ``*b``), or are
    both part of an identifier or number (``return`` then ``x``).

    >>> glued("a/", "*b"), glued("a / ", "*b"), glued("return", "x"), glued("a-", "(b)")
    (True, False, True, False)
    """
    a, b = left[-1:], right[:1]
    if not a or not b:
        return False
    return a + b in _GLUE or (a.isalnum() or a == "_") and (b.isalnum() or b == "_")


def join_text(left: str, right: str) -> str:
    """``left + right``, with a space between them when :func:`glued`."""
    return f"{left} {right}" if glued(left, right) else left + right


def char_text(value: int) -> str | None:
    """``value`` as a character constant when it is printable ASCII."""
    if 32 <= value < 127:
        ch = chr(value)
        return "'\\''" if ch == "'" else ("'\\\\'" if ch == "\\" else f"'{ch}'")
    return None


_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8, "f": 12, "v": 11,
                 "?": 63}


def char_literal(text: str) -> int | None:
    """The value of a plain character constant such as ``'a'`` or ``'\\n'``."""
    if len(text) < 3 or text[0] != "'" or text[-1] != "'":
        return None
    body = text[1:-1]
    if len(body) == 1:
        return ord(body) if ord(body) < 128 else None
    if body[0] != "\\":
        return None
    if len(body) == 2 and body[1] in _CHAR_ESCAPES:
        return _CHAR_ESCAPES[body[1]]
    try:
        value = int(body[2:], 16) if body[1] in "xX" else int(body[1:], 8)
    except ValueError:
        return None
    return value - 256 if value > 127 else value


def constant_value(node: c_ast.Node) -> int | None:
    """The value of an integer or character constant, possibly negated
    (``-1`` is a unary minus on ``1`` in the tree); None for anything else."""
    negative = isinstance(node, c_ast.UnaryOp) and node.op == "-"
    const = node.expr if negative else node
    if not isinstance(const, c_ast.Constant):
        return None
    if const.type == "char":
        value = char_literal(const.value)
    elif "int" in const.type:
        parsed = integer_literal(const.value)
        value = parsed[0] if parsed is not None else None
    else:
        return None
    if value is None:
        return None
    return -value if negative else value


def is_expression(node: c_ast.Node) -> bool:
    """Whether ``node`` is an expression (as a statement: an expression statement)."""
    return isinstance(node, (c_ast.Assignment, c_ast.FuncCall, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.ID,
                             c_ast.Constant, c_ast.Cast, c_ast.TernaryOp, c_ast.ExprList, c_ast.ArrayRef,
                             c_ast.StructRef))


_NAMES = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|(?<![\w.])(?<!->)([A-Za-z_]\w*)")
_MEMBER = re.compile(r"(\.|->)\s+")


def names_in(code: str, scope: Container[str]) -> tuple[str, ...]:
    """The names of ``scope`` that C text ``code`` uses, sorted (not a
    member after ``.``/``->``, nothing inside a literal)."""
    return tuple(n for n in _identifiers(code) if n in scope)


@functools.lru_cache(maxsize=1 << 16)  # the same codes come again in each stage's space of one program
def _identifiers(code: str) -> tuple[str, ...]:
    """The identifiers C text ``code`` uses, sorted, without duplicates
    (not a member after ``.``/``->``, nothing inside a literal)."""
    return tuple(sorted({m[1] for m in _NAMES.finditer(_MEMBER.sub(r"\1", code)) if m[1]}))


def patch_key(original: str, span: Span, replacement: str) -> tuple[int, int, str]:
    """The smallest change of ``original`` that replacing ``span`` by
    ``replacement`` makes, as (start, end, new text), offsets 0-based, end
    exclusive: equal keys, equal patched programs."""
    old = original[span.start:span.end]
    m, n = len(old), len(replacement)
    a = _common_length(min(m, n), lambda k: old[:k] == replacement[:k])
    b = _common_length(min(m, n) - a, lambda k: old[m - k:] == replacement[n - k:])
    return span.start + a, span.end - b, replacement[a:len(replacement) - b]


def _common_length(most: int, same: Callable[[int], bool]) -> int:
    """The largest ``k <= most`` with ``same(k)``, for a ``same`` true up
    to some length and false beyond (a common prefix or suffix), found by
    bisection: slices compare in C, a character loop in Python costs more
    on a long statement."""
    lo, hi = 0, most
    if same(hi):
        return hi
    while hi - lo > 1:  # same(lo), not same(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if same(mid) else (lo, mid)
    return lo
