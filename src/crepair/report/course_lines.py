"""Lines of a student's program mapped to lines of the model solution.

The course report draws where the repairs of an assignment fall on the
model solution, so each changed line of a submission needs a line of the
model.  The method is kept simple so that a teacher can predict it:

1. each line of both files becomes its tuple of C tokens (Pygments'
   ``CLexer``; comments and whitespace dropped, so layout and comments do
   not matter, names and literals do);
2. ``difflib.SequenceMatcher`` (``autojunk`` off) aligns the two
   sequences of token lines; a line in an ``equal`` block maps to its
   partner;
3. a line in a ``replace`` block maps to the model line of that block
   with the most similar tokens (``SequenceMatcher.ratio`` over the two
   token tuples; ties: the first) if that ratio is at least
   ``MIN_SIMILARITY``; a line in a ``delete`` block (no model
   counterpart), a less similar one and a line without tokens that is not
   in an ``equal`` block map to nothing.

>>> line_map("int x;\\nx = 1;\\n", "int x;\\n/* set */\\nx = 2;\\n")
{1: 1, 2: 3}
"""

from __future__ import annotations

import difflib

#: the least token similarity (``SequenceMatcher.ratio``, 0..1) of a changed
#: line and the model line it maps to
MIN_SIMILARITY = 0.5


def token_lines(source: str) -> list[tuple[str, ...]]:
    """The C tokens of each line of ``source`` (index 0 is line 1);
    comments and whitespace are left out."""
    from pygments.lexers import CLexer
    from pygments.token import Comment, Text, Whitespace

    dropped = (Comment.Single, Comment.Multiline, Comment.Special, Comment.Hashbang)

    count = source.count("\n") + (0 if source.endswith("\n") else 1)
    lines: list[list[str]] = [[] for _ in range(max(count, 0))]
    line = 0
    for _, kind, value in CLexer(stripnl=False, ensurenl=False).get_tokens_unprocessed(source):
        blank = kind in Whitespace or (kind in Text and not value.strip())
        if blank or kind is Comment or any(kind in d for d in dropped):
            line += value.count("\n")
            continue
        text = value.strip()
        if text and line < len(lines):
            lines[line].append(text)
        line += value.count("\n")
    return [tuple(t) for t in lines]


def line_map(student: str, model: str) -> dict[int, int]:
    """Student line -> model line (both 1-based) by the method of the module
    docstring; lines that map to nothing are absent."""
    a, b = token_lines(student), token_lines(model)
    out: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
        elif tag == "replace":
            for i in range(i1, i2):
                if not a[i]:
                    continue
                ratios = [difflib.SequenceMatcher(None, a[i], b[j], autojunk=False).ratio() for j in range(j1, j2)]
                if max(ratios) >= MIN_SIMILARITY:
                    out[i + 1] = j1 + ratios.index(max(ratios)) + 1
    return out
