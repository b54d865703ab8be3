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
        self._exact: dict[int, str | None] = {}

    def expression(self, node: c_ast.Node) -> str | None:
        """Exactly the user's tokens, macro uses only as whole operands:
        a node whose operator or leaves a candidate may change."""
        key = id(node)
        if key not in self._exact:
            try:
                first, last = self._spans.balanced_extent(node)
            except (InternalError, IndexError):
                self._exact[key] = "no exact source span"
            else:
                self._exact[key] = self._tokens(node, first, last)
        return self._exact[key]

    def site(self, node: c_ast.Node, *keywords: c_ast.Node) -> str | None:
        """``node`` may be a site: it is not itself a macro use, its first
        and last tokens, its neighbours and ``keywords`` (the statement
        keyword or operator that makes it a site) are the user's, every
        token maps inside its span and no directive lies within.  Macro
        uses inside are fine: a candidate keeps or changes the text, and
        the compiler expands it alike in the patch and the meta-program."""
        try:
            first, last = self._spans.balanced_extent(node)
        except (InternalError, IndexError):
            return "no exact source span"
        if self.macro_use(first, last):
            return "a macro use"
        if not self.anchored(node, *keywords):
            return "inside a macro expansion"
        return self._bounded(first, last)

    def statement(self, node: c_ast.Node) -> str | None:
        """A simple statement, its ``;`` included, written by the user (as
        :meth:`site`: macro uses inside are fine)."""
        try:
            first, last = self._spans.statement_extent(node)
        except (InternalError, IndexError):
            return "no exact source span (a statement made by a macro?)"
        return self._bounded(first, last)

    def compound(self, node: c_ast.Node) -> str | None:
        """A compound statement (``if``, a loop, ``switch``) written by the
        user, from its keyword to its last ``;`` or ``}``."""
        try:
            first, last = self._spans.compound_extent(node)
        except (InternalError, IndexError):
            return "no exact source span (a statement made by a macro?)"
        return self._bounded(first, last)

    def _bounded(self, first: int, last: int) -> str | None:
        spans = self._spans
        head, tail = spans.token(first), spans.token(last)
        if not (self._edge(first, first - 1) and self._edge(last, last + 1)):
            return "part of a macro expansion"
        if any(not head.start <= spans.token(i).start <= spans.token(i).end <= tail.end
               for i in range(first, last + 1)):
            return "tokens that do not match the file (inside a macro expansion)"
        if not (self._adjacent(first - 1, head.start, before=True)
                and self._adjacent(last + 1, tail.end, before=False)):
            return "part of a macro expansion"
        if self.has_directive(head.start, tail.end):
            return "a preprocessor directive inside"
        return None

    def _adjacent(self, i: int, at: int, before: bool) -> bool:
        """No token of the user's text lies between token ``i`` (the
        neighbour of a site) and offset ``at`` (the site's edge): the
        site's span and its neighbours tile the file as the parse does."""
        try:
            tok = self._spans.token(i) if i >= 0 else None
        except IndexError:
            tok = None
        if tok is None or tok.from_macro:
            return True  # a neighbouring macro use: its mapped position says nothing
        lo, hi = (tok.end, at) if before else (at, tok.start)
        if lo > hi:
            return False
        return not tokenize(self._program.original[lo:hi], skip_directives=True)

    def _edge(self, i: int, outside: int) -> bool:
        """Token ``i`` at a site's edge is the user's, or a whole macro
        use begins or ends there (the token beyond maps elsewhere)."""
        tok = self._spans.token(i)
        if not tok.from_macro:
            return True
        if tok.start == tok.end:
            return False
        try:
            beyond = self._spans.token(outside) if outside >= 0 else None
        except IndexError:
            beyond = None
        return beyond is None or (beyond.start, beyond.end) != (tok.start, tok.end)

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
