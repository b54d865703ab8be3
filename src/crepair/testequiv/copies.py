"""COPY candidates: a statement of a loop's body written again right after the loop.

A loop that reads items one at a time often leaves the last item pending
when its input ends: a word not counted, a digit not printed, a state not
flushed (the model solution writes ``if (st == INI) putchar('0');`` after
its ``while (getchar() ...)`` loop; the student's loop body holds that very
statement, which runs only when another item follows).  The repair copies
a statement of the loop's own body to the statement right after the loop.
This is GenProg's insertion operator (Le Goues, Nguyen, Forrest, Weimer,
"GenProg: A Generic Method for Automatic Software Repair", TSE'12, §III:
statements are inserted from elsewhere in the same program) restricted to
one place and one source, so the space grows by a few candidates per loop;
crepair's own schema beside f1x's (TOSEM'18, Fig. 10).

A statement is copied when it is an expression statement or an ``if``
without a loop, ``switch``, jump, label or declaration inside, at most
:data:`MAX_TEXT` characters, no preprocessor line inside, and every
variable it names is, after the loop, the same variable as inside it (a
variable declared in the body is not visible there).  Each candidate is in
a group of its own (it has side effects: never compared by value); its
cost is f1x's, the AST nodes it adds (:attr:`Copy.nodes`), at least
:data:`COPY_COST`, a guard's (one statement inserted): a copy of a large
``if`` comes after every smaller change of the space.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pycparser import c_ast

from crepair.frontend.tokens import tokenize
from crepair.testequiv.candidates import SiteKind
from crepair.testequiv.ctext import names_in
from crepair.testequiv.exprs import size
from crepair.testequiv.place import Place

COPY_COST = 4
MAX_TEXT = 240  # characters of a copied statement (its text as written)
MAX_COPIES = 24  # per loop, the first in source order
_DIRECTIVE = re.compile(r"^[ \t]*#", re.M)
_NOT_COPIED = (c_ast.While, c_ast.DoWhile, c_ast.For, c_ast.Switch, c_ast.Break, c_ast.Continue, c_ast.Return,
               c_ast.Goto, c_ast.Label, c_ast.Decl, c_ast.DeclList, c_ast.Case, c_ast.Default)


@dataclass(frozen=True, slots=True)
class Copy:
    """One COPY candidate at a STMT place: ``code``, the copied statement
    as one line of C (a GNU statement expression ``({ ... })``, what the
    meta-program runs before the place's statement), and ``replacement``,
    the place's text with the copy written before it, indented as the
    place is; ``nodes``: the copied statement's AST nodes."""

    code: str
    replacement: str
    nodes: int


def loop_copies(target: Place, places: Sequence[Place], original: str) -> list[Copy]:
    """The COPY candidates at ``target`` (a STMT place with
    :attr:`Place.after_loop`; none for other places): the statements of
    the loop before it that may be copied (module docstring), in source
    order, the same text once, at most :data:`MAX_COPIES`.  ``places``:
    every place of the program (the copies' sources among them, whether
    or not a failing test runs them: the copy runs after the loop);
    ``original``: the program's text."""
    if target.kind is not SiteKind.STMT or target.after_loop is None or target.output_only:
        return []
    lo, hi = target.after_loop
    statement = original[target.span.start:target.span.end]
    out: list[Copy] = []
    seen: set[str] = set()
    for q in places:
        if q.kind is not SiteKind.STMT or not (lo <= q.span.start and q.span.end <= hi) or not _copyable(q.node):
            continue
        text = original[q.span.start:q.span.end]
        if len(text) > MAX_TEXT or _DIRECTIVE.search(text) or not _same_variables(text, q, target):
            continue
        line = " ".join(t.text for t in tokenize(text, skip_directives=False))
        if line in seen:
            continue
        seen.add(line)
        replacement = _before(original, target, statement, _indented(original, q, text), line)
        out.append(Copy("({ %s })" % line, replacement, size(q.node)))
        if len(out) == MAX_COPIES:
            break
    return out


def _copyable(node: c_ast.Node) -> bool:
    if isinstance(node, _NOT_COPIED):
        return False
    return all(_copyable(child) for _, child in node.children())


def _same_variables(text: str, source: Place, target: Place) -> bool:
    return all(target.scope.get(name) is source.scope[name] for name in names_in(text, source.scope))


def _indent(original: str, start: int) -> str:
    return original[original.rfind("\n", 0, start) + 1:start]


def _indented(original: str, source: Place, text: str) -> list[str]:
    """The copied text's lines, the source's indentation (the blanks
    before it on its line) taken off every line after the first."""
    base = _indent(original, source.span.start)
    lines = text.splitlines()
    return lines[:1] + [ln[len(base):] if ln.startswith(base) else ln.lstrip() for ln in lines[1:]]


def _before(original: str, target: Place, statement: str, lines: list[str], line: str) -> str:
    """``statement`` with the copy written before it: ``lines`` at the
    statement's indentation, each on a line of its own; where the
    statement does not start its line, or is a branch or loop body of its
    own (:attr:`Place.block`: then in braces), ``line`` (the copy's tokens
    on one line) before it."""
    indent = _indent(original, target.span.start)
    if target.block or indent.strip():
        return f"{{ {line} {statement} }}" if target.block else f"{line} {statement}"
    line_start = target.span.start - len(indent)
    newline = "\r\n" if original[line_start - 2:line_start] == "\r\n" else "\n"
    return newline.join(indent + ln if k else ln for k, ln in enumerate(lines)) + newline + indent + statement
