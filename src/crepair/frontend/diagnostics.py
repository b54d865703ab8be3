"""Bad input as one line naming the position in the user's file.

pycparser's parse errors name a position in the preprocessed text, or none
at all (end of input); gcc's and pycparser's limits show up as
``RecursionError``.  These helpers turn each into a ``BadInput`` with
file:line:col of the original file (1-based, columns in characters).
"""

from __future__ import annotations

import re
from pathlib import PurePath

from pycparser import c_ast, c_parser

from crepair.errors import BadInput, SourcePoint, UnsupportedConstruct
from crepair.frontend.preprocess import USER_FILE, Preprocessed, compiler_error
from crepair.frontend.spans import SpanIndex

MAX_DEPTH = 300
"""Deepest AST crepair takes (nodes from the file's root, about the nesting
of expressions and statements); the recursive walkers of the later stages
run within Python's default recursion limit up to about 450."""

_PARSE_ERROR = re.compile(r"^(.*?):(\d+):(\d+): (.*)$", re.S)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<]([^">\n]+)[">]', re.M)


def include_point(path: str, original: str, spans: SpanIndex, header: str) -> SourcePoint:
    """Where the file includes ``header`` (a name gcc reports), else 1:1."""
    for m in _INCLUDE.finditer(original):
        if PurePath(m[1]).name == PurePath(header).name:
            return spans.make_span(m.start(1), m.end(1)).point
    return SourcePoint(path, 1, 1)


def syntax_error(message: str, parser: c_parser.CParser, pre: Preprocessed, spans: SpanIndex) -> BadInput:
    """pycparser's error as one line naming the position in the user's file."""
    m = _PARSE_ERROR.match(message)
    if m:
        file, line, col, what = m[1], int(m[2]), int(m[3]), m[4]
    else:  # some pycparser errors name no position: use the next token's
        file, _, what = message.partition(": ")
        tok = getattr(parser, "_peek", lambda: None)()
        if what == "At end of input" or tok is None or not getattr(tok, "lineno", None):
            return _end_of_input(pre, spans, what)
        line, col, what = tok.lineno, tok.column, f"{what} before '{tok.value}'"
    if file != USER_FILE:
        where = include_point(pre.path, pre.original, spans, file)
        return BadInput(f"in the included file {file}:{line}:{col}: syntax error: {what}", where)
    where = spans.pp_point(line, col)
    if what.startswith("Illegal character"):
        return _illegal_character(what, where, pre.original)
    gcc = compiler_error(pre)
    if gcc is not None and gcc[0].line == where.line:
        return BadInput(gcc[1], gcc[0])
    if what.startswith("before: "):
        what = f"before '{what[len('before: '):]}'"
    return BadInput(f"syntax error {what}" if what.startswith("before") else f"syntax error: {what}", where)


def _illegal_character(what: str, where: SourcePoint, original: str) -> BadInput:
    line = original.split("\n")[where.line - 1] if where.line <= original.count("\n") + 1 else ""
    word = re.match(r"\w*", line[where.column - 1 :])[0]
    if any(ord(ch) > 127 for ch in word):  # gcc spells it with \u escapes, which pycparser rejects
        return UnsupportedConstruct(where, f"identifier with non-ASCII characters '{word}'")
    ch = line[where.column - 1 : where.column] or "?"
    if "\udc80" <= ch <= "\udcff":
        byte = ord(ch) - 0xDC00
        return BadInput(f"syntax error: byte 0x{byte:02X} that is not UTF-8 (outside a comment or string)", where)
    return BadInput(f"syntax error: {what}", where)


def _end_of_input(pre: Preprocessed, spans: SpanIndex, what: str) -> BadInput:
    opened: list[int] = []
    for i, tok in enumerate(pre.tokens):
        if tok.text == "{":
            opened.append(i)
        elif tok.text == "}" and opened:
            opened.pop()
    if opened:
        where = spans.make_span(pre.tokens[opened[-1]].start, pre.tokens[opened[-1]].end).point
        return BadInput("syntax error at end of file: this '{' is never closed", where)
    what = "unexpected end of file" if what == "At end of input" else f"{what} at end of file"
    end = pre.tokens[-1].end if pre.tokens else 0
    return BadInput(f"syntax error: {what}", spans.make_span(end, end).point)


def too_deep_for_the_parser(pre: Preprocessed, spans: SpanIndex) -> UnsupportedConstruct:
    """pycparser ran out of stack: name the deepest bracket of the file."""
    depth, deepest, at = 0, 0, 0
    for tok in pre.tokens:
        if tok.text in "([{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, tok.start
        elif tok.text in ")]}":
            depth -= 1
    where = spans.make_span(at, at + 1).point
    return UnsupportedConstruct(where, f"brackets nested {deepest} deep (too deep for the C parser)")


def check_depth(ast: c_ast.FileAST, spans: SpanIndex) -> None:
    """Raise ``BadInput`` at the first node deeper than ``MAX_DEPTH``.

    Iterative, so that it works where the recursive walkers would not."""
    stack: list[tuple[c_ast.Node, int]] = [(ast, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise UnsupportedConstruct(
                spans.point(node), f"expression or statement nested more than {MAX_DEPTH} levels deep"
            )
        stack.extend((child, depth + 1) for _, child in node.children())
