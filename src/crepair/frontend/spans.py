"""Exact source spans of pycparser nodes.

pycparser gives each leaf the position where it starts; this module walks
the expression tree over the token map of ``preprocess`` and finds each
node's first and last token and each operator's own token.  A node's span
is widened to balanced parentheses, so ``(a > b)`` highlights whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.errors import InternalError, SourcePoint
from crepair.frontend.preprocess import USER_FILE, MappedToken, Preprocessed


@dataclass(frozen=True, slots=True)
class Span:
    """A character span of the original file.

    ``start``/``end``: 0-based offsets, end exclusive.  ``line``/``column``,
    ``end_line``/``end_column``: 1-based, the end position inclusive.
    """

    file: str
    start: int
    end: int
    line: int
    column: int
    end_line: int
    end_column: int

    @property
    def point(self) -> SourcePoint:
        return SourcePoint(self.file, self.line, self.column)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


_PREFIX_UNARY = {"-", "+", "!", "~", "++", "--", "*", "&", "sizeof"}


class SpanIndex:
    """Maps pycparser nodes of one translation unit to original spans."""

    def __init__(self, pre: Preprocessed):
        self._pre = pre
        self._tokens: tuple[MappedToken, ...] = pre.tokens
        self._at = {(t.line, t.pp_column): i for i, t in enumerate(self._tokens)}
        self._line_starts = [0]
        for i, ch in enumerate(pre.original):
            if ch == "\n":
                self._line_starts.append(i + 1)
        self._extent_cache: dict[int, tuple[int, int]] = {}

    # -- positions --------------------------------------------------------
    def point(self, node: c_ast.Node) -> SourcePoint:
        """file:line:col (1-based, original file) where ``node`` starts; a
        node of an included header (crepair's own) keeps the header's
        file:line:col (never a line of the user's file)."""
        coord = node.coord
        if coord is None:
            return SourcePoint(self._pre.path, 1, 1)
        if coord.file and coord.file != USER_FILE:
            return SourcePoint(coord.file, coord.line, coord.column or 1)
        idx = self._at.get((coord.line, coord.column))
        if idx is not None:
            return self._position(self._tokens[idx].start)
        return SourcePoint(self._pre.path, coord.line, 1)

    def pp_point(self, line: int, pp_column: int) -> SourcePoint:
        """file:line:col in the original file of the preprocessed token that
        pycparser reports at ``line`` (original, 1-based) and ``pp_column``
        (1-based, in the preprocessed line); the first token at or after it,
        else the end of ``line``."""
        idx = self._at.get((line, pp_column))
        if idx is None:
            later = [i for i, t in enumerate(self._tokens) if (t.line, t.pp_column) >= (line, pp_column)]
            if later and self._tokens[later[0]].line == line:
                idx = later[0]
        if idx is not None:
            return self._position(self._tokens[idx].start)
        if 0 < line <= len(self._line_starts):
            end = self._pre.original.find("\n", self._line_starts[line - 1])
            end = len(self._pre.original) if end < 0 else end
            return self._position(end - 1 if end > 0 and self._pre.original[end - 1] == "\r" else end)
        return SourcePoint(self._pre.path, line, pp_column)

    def _position(self, offset: int) -> SourcePoint:
        lo, hi = 0, len(self._line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return SourcePoint(self._pre.path, lo + 1, offset - self._line_starts[lo] + 1)

    def token(self, idx: int) -> MappedToken:
        return self._tokens[idx]

    def make_span(self, start: int, end: int) -> Span:
        a = self._position(start)
        b = self._position(max(end - 1, start))
        return Span(self._pre.path, start, end, a.line, a.column, b.line, b.column)

    def line_span(self, node: c_ast.Node) -> Span:
        """From where statement ``node`` starts to the end of that line."""
        point = self.point(node)
        start = self._line_starts[point.line - 1] + point.column - 1
        end = self._pre.original.find("\n", start)
        end = len(self._pre.original) if end < 0 else end
        if end > start and self._pre.original[end - 1] == "\r":
            end -= 1
        return self.make_span(start, end)

    # -- expressions ------------------------------------------------------
    def span(self, node: c_ast.Node) -> Span:
        """The original span of expression ``node``, parentheses balanced."""
        first, last = self.extent(node)
        first, last = self._balance(first, last)
        return self.make_span(self._tokens[first].start, self._tokens[last].end)

    def op_index(self, node: c_ast.Node) -> int:
        """Token index of the operator of a BinaryOp, Assignment or UnaryOp."""
        if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment)):
            left = node.left if isinstance(node, c_ast.BinaryOp) else node.lvalue
            return self._skip(self.extent(left)[1] + 1, ")", +1)
        if isinstance(node, c_ast.UnaryOp):
            first, last = self.extent(node.expr)
            if node.op in ("p++", "p--"):
                return self._skip(last + 1, ")", +1)
            return self._skip(first - 1, "(", -1)
        raise InternalError(f"node {type(node).__name__} has no operator token")

    def const_index(self, node: c_ast.Constant) -> int:
        return self._leaf(node)

    def extent(self, node: c_ast.Node) -> tuple[int, int]:
        """First and last token index of ``node`` (inner parentheses excluded)."""
        key = id(node)
        hit = self._extent_cache.get(key)
        if hit is None:
            hit = self._extent(node)
            self._extent_cache[key] = hit
        return hit

    def _extent(self, node: c_ast.Node) -> tuple[int, int]:
        match node:
            case c_ast.ID() | c_ast.Constant():
                i = self._leaf(node)
                return i, i
            case c_ast.BinaryOp(left=l, right=r):
                return self.extent(l)[0], self.extent(r)[1]
            case c_ast.Assignment(lvalue=l, rvalue=r):
                return self.extent(l)[0], self.extent(r)[1]
            case c_ast.TernaryOp(cond=c, iffalse=f):
                return self.extent(c)[0], self.extent(f)[1]
            case c_ast.UnaryOp(op="sizeof", expr=c_ast.Typename()):
                first = self._leaf(node)
                return first, self._close(first + 1, "(", ")")
            case c_ast.UnaryOp(op=op, expr=e):
                first, last = self.extent(e)
                if op in ("p++", "p--"):
                    return first, self._skip(last + 1, ")", +1)
                if op == "sizeof" and not isinstance(e, c_ast.Typename):
                    return self._skip(first - 1, "(", -1), last
                return self._skip(first - 1, "(", -1), last
            case c_ast.FuncCall(name=n):
                first, last = self.extent(n)
                return first, self._close(last + 1, "(", ")")
            case c_ast.ArrayRef(name=n):
                first, last = self.extent(n)
                return first, self._close(last + 1, "[", "]")
            case c_ast.Cast(expr=e):
                first, last = self.extent(e)
                i = self._skip(first - 1, "(", -1)
                # step back over the type to its opening parenthesis
                depth = 0
                while i > 0:
                    t = self._tokens[i].text
                    if t == ")":
                        depth += 1
                    elif t == "(":
                        depth -= 1
                        if depth == 0:
                            break
                    i -= 1
                return i, last
            case c_ast.ExprList(exprs=es) if es:
                return self.extent(es[0])[0], self.extent(es[-1])[1]
            case c_ast.StructRef(name=n, field=f):
                return self.extent(n)[0], self.extent(f)[1]
        raise InternalError(f"no span for {type(node).__name__} at {node.coord}")

    def token_at(self, node: c_ast.Node) -> int:
        """Index of the token where ``node``'s coordinate points (a leaf, a
        declarator's name, a statement's keyword).  Raises ``InternalError``
        when no token starts there."""
        return self._leaf(node)

    def balanced_extent(self, node: c_ast.Node) -> tuple[int, int]:
        """First and last token index of expression ``node`` with the
        parentheses :meth:`span` adds (the tokens of ``span(node)``)."""
        return self._balance(*self.extent(node))

    def statement_extent(self, node: c_ast.Node) -> tuple[int, int]:
        """First and last token index of a simple statement: an expression
        statement (``node`` is its expression), ``return``, ``break``,
        ``continue`` or ``goto``, the last token being its ``;``.  Raises
        ``InternalError`` when the tokens do not end in ``;`` (a statement
        made by a macro, say)."""
        match node:
            case c_ast.Return(expr=e) if e is not None:
                first, last = self._leaf(node), self.balanced_extent(e)[1] + 1
            case c_ast.Return() | c_ast.Break() | c_ast.Continue():
                first = self._leaf(node)
                last = first + 1
            case c_ast.Goto():
                first = self._leaf(node)
                last = first + 2
            case _:
                first, last = self.balanced_extent(node)
                last += 1
        if last >= len(self._tokens) or self._tokens[last].text != ";":
            raise InternalError(f"statement {type(node).__name__} at {node.coord} does not end in ';'")
        return first, last

    def compound_extent(self, node: c_ast.Node) -> tuple[int, int]:
        """First and last token index of a compound statement -- ``if``,
        ``for``, ``while``, ``do``, ``switch`` or a ``{ ... }`` block -- the
        last token being the ``;`` or ``}`` that ends it.  Raises
        ``InternalError`` when the tokens do not match (a macro)."""
        first = self._leaf(node)
        match node:
            case c_ast.Compound():
                last = self._close(first, "{", "}")
            case c_ast.If(iftrue=t, iffalse=f):
                last = self._statement_end(f if f is not None else t)
            case c_ast.For(stmt=s) | c_ast.While(stmt=s) | c_ast.Switch(stmt=s):
                last = self._statement_end(s)
            case c_ast.DoWhile(cond=c):
                last = self.balanced_extent(c)[1] + 2  # the cond's ")" and ";"
                if last >= len(self._tokens) or self._tokens[last].text != ";":
                    raise InternalError(f"do statement at {node.coord} does not end in ';'")
            case _:
                raise InternalError(f"{type(node).__name__} at {node.coord} is not a compound statement")
        return first, last

    def _statement_end(self, node: c_ast.Node) -> int:
        if isinstance(node, (c_ast.Compound, c_ast.If, c_ast.For, c_ast.While, c_ast.Switch, c_ast.DoWhile)):
            return self.compound_extent(node)[1]
        if isinstance(node, c_ast.EmptyStatement):
            return self._leaf(node)
        return self.statement_extent(node)[1]

    def compound_span(self, node: c_ast.Node) -> Span:
        """The original span of a compound statement (:meth:`compound_extent`)."""
        first, last = self.compound_extent(node)
        return self.make_span(self._tokens[first].start, self._tokens[last].end)

    def statement_span(self, node: c_ast.Node) -> Span:
        """The original span of a simple statement including its ``;``
        (see :meth:`statement_extent`)."""
        first, last = self.statement_extent(node)
        return self.make_span(self._tokens[first].start, self._tokens[last].end)

    def _leaf(self, node: c_ast.Node) -> int:
        coord = node.coord
        idx = self._at.get((coord.line, coord.column)) if coord else None
        if idx is None:
            raise InternalError(f"token of {type(node).__name__} at {coord} not found")
        return idx

    def _skip(self, i: int, paren: str, step: int) -> int:
        while 0 <= i < len(self._tokens) and self._tokens[i].text == paren:
            i += step
        return i

    def _close(self, i: int, open_: str, close: str) -> int:
        i = self._skip(i, ")", +1) if open_ != ")" else i
        depth = 0
        while i < len(self._tokens):
            t = self._tokens[i].text
            if t == open_:
                depth += 1
            elif t == close:
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        raise InternalError("unbalanced brackets in token stream")

    def _balance(self, first: int, last: int) -> tuple[int, int]:
        depth = low = 0
        for t in self._tokens[first : last + 1]:
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
                low = min(low, depth)
        while low < 0 and first > 0 and self._tokens[first - 1].text == "(":
            first, low, depth = first - 1, low + 1, depth + 1
        while depth > 0 and last + 1 < len(self._tokens) and self._tokens[last + 1].text == ")":
            last, depth = last + 1, depth - 1
        return first, last
