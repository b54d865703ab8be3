"""Is a node's text the user's own?  Macro and directive checks for sites.

The front-end maps every preprocessed token back to the user's file by
aligning the tokens of each line; a macro's expansion maps to the macro's
use, and inside a function-like macro the alignment may even pair tokens
of the expansion with the arguments'.  A site is therefore taken only when
its tokens are exactly the user's tokens, in order, except whole operands
that are one complete macro use (``n < N``, ``x = MAXN``): those are
opaque leaves.  Its neighbouring tokens and the keyword or operator that
makes it a site must be the user's too, or the site sits inside an
expansion (``CHECK(a > b)`` expanding to an ``if``).
"""

from __future__ import annotations

import re

from pycparser import c_ast

from crepair.errors import InternalError
from crepair.frontend.parse import CProgram
from crepair.frontend.tokens import tokenize

_DIRECTIVE = re.compile(r"^[ \t]*#", re.M)


class Verbatim:
    """Checks spans of one program; methods return None when the text is
    the user's own, else a short reason (for ``SearchSpace.skipped``)."""

    def __init__(self, program: CProgram):
        self._program = program
        self._spans = program.spans

    def expression(self, node: c_ast.Node) -> str | None:
        """``node``'s tokens are the user's, macro uses only as whole operands."""
        try:
            first, last = self._spans.balanced_extent(node)
        except (InternalError, IndexError):
            return "no exact source span"
        return self._tokens(node, first, last)

    def statement(self, node: c_ast.Node, expr: c_ast.Node | None) -> str | None:
        """A simple statement (``expr`` its expression, if any) including its ``;``."""
        try:
            first, last = self._spans.statement_extent(node)
        except (InternalError, IndexError):
            return "no exact source span (a statement made by a macro?)"
        return self._tokens(expr, first, last)

    def clean(self, *indices: int) -> bool:
        """The tokens at ``indices`` are the user's (not from a macro)."""
        try:
            return not any(self._spans.token(i).from_macro for i in indices if i >= 0)
        except IndexError:
            return False

    def anchored(self, node: c_ast.Node, *keywords: c_ast.Node) -> bool:
        """The tokens just outside ``node``'s span and the tokens of the
        ``keywords`` nodes (a statement's keyword, an operator's node) are
        the user's."""
        try:
            first, last = self._spans.balanced_extent(node)
            marks = [first - 1, last + 1]
            for k in keywords:
                if isinstance(k, (c_ast.BinaryOp, c_ast.Assignment)):
                    marks.append(self._spans.op_index(k))
                else:
                    marks.append(self._spans.token_at(k))
        except (InternalError, IndexError):
            return False
        return self.clean(*marks)

    def has_directive(self, start: int, end: int) -> bool:
        """A preprocessor directive line begins within ``original[start:end]``."""
        return _DIRECTIVE.search(self._program.original, start, end) is not None

    def _tokens(self, node: c_ast.Node | None, first: int, last: int) -> str | None:
        spans = self._spans
        start, end = spans.token(first).start, spans.token(last).end
        if self.has_directive(start, end):
            return "a preprocessor directive inside"
        leaves = self._leaves(node) if node is not None else {}
        original = [(t.start + start, t.end + start)
                    for t in tokenize(self._program.original[start:end], skip_directives=True)]
        k, i = 0, first
        while i <= last:
            tok = spans.token(i)
            if not tok.from_macro:
                if k >= len(original) or original[k] != (tok.start, tok.end):
                    return "tokens that do not match the file (inside a macro expansion)"
                k, i = k + 1, i + 1
                continue
            stop = leaves.get(i)
            if stop is None or tok.start == tok.end:
                return "part of a macro expansion"
            if k >= len(original) or original[k][0] != tok.start:
                return "tokens that do not match the file (inside a macro expansion)"
            while k < len(original) and original[k][1] <= tok.end:
                k += 1
            if original[k - 1][1] != tok.end:
                return "part of a macro expansion"
            i = stop + 1
        return None if k == len(original) else "tokens that do not match the file"

    def _leaves(self, node: c_ast.Node) -> dict[int, int]:
        """First token -> last token of each subtree of ``node`` that is
        exactly one complete macro use."""
        spans = self._spans
        out: dict[int, int] = {}
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, c_ast.Typename):
                continue
            try:
                first, last = spans.balanced_extent(n)
            except (InternalError, IndexError):
                stack.extend(c for _, c in n.children())
                continue
            if self.macro_use(first, last):
                out.setdefault(first, last)
                continue
            stack.extend(c for _, c in n.children())
        return out

    def macro_use(self, first: int, last: int) -> bool:
        """Tokens ``first..last`` are the whole expansion of one macro use."""
        spans = self._spans
        head = spans.token(first)
        if not head.from_macro or head.start == head.end or last - first + 1 != head.expansion_size:
            return False
        return all(
            spans.token(i).from_macro and (spans.token(i).start, spans.token(i).end) == (head.start, head.end)
            for i in range(first, last + 1)
        ) and (first == 0 or (spans.token(first - 1).start, spans.token(first - 1).end) != (head.start, head.end))

    def is_macro_leaf(self, node: c_ast.Node) -> bool:
        """``node`` is one complete macro use (an opaque operand)."""
        try:
            return self.macro_use(*self._spans.balanced_extent(node))
        except (InternalError, IndexError):
            return False
