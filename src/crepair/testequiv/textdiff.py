"""Token-level differences of C expression texts, for the anti-pattern
rules (:mod:`crepair.testequiv.antipatterns`): what a candidate's
replacement changed of the site's original text.

>>> changed("i < n - 1", "i < 1")
(('n', '-'), ())
"""

from __future__ import annotations

import functools
import re

TOKEN_RE = re.compile(r"""[A-Za-z_]\w*|\.?\d(?:[eEpP][-+]|[\w.])*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'"""
                      r"|->|\+\+|--|<<=|>>=|<=|>=|==|!=|&&|\|\||<<|>>|[-+*/%&|^]=|\S")


@functools.lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[str, ...]:
    """The C tokens of an expression's text (candidates hold no comments
    or directives)."""
    return tuple(TOKEN_RE.findall(text))


def changed(before: str, after: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tokens of ``before`` and ``after`` between their common
    leading and trailing tokens."""
    a, b = tokens(before), tokens(after)
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[len(a) - 1 - j] == b[len(b) - 1 - j]:
        j += 1
    return a[i:len(a) - j], b[i:len(b) - j]


@functools.lru_cache(maxsize=65536)
def flat(text: str) -> str:
    text = "".join(text.split())
    while text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
        text = text[1:-1]
    return text


def balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@functools.lru_cache(maxsize=65536)
def parts(text: str) -> tuple[str, ...]:
    """The operands of the top-level ``&&``/``||`` chain of ``text``
    (parentheses around it removed)."""
    text = flat(text) if text else ""
    if not text:
        return ()
    parts, depth, start, k = [], 0, 0, 0
    while k < len(text):
        ch = text[k]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and text[k:k + 2] in ("&&", "||"):
            parts.append(text[start:k])
            start = k + 2
            k += 1
        k += 1
    parts.append(text[start:])
    return tuple(parts)
