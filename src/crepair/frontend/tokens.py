"""A position-keeping C tokenizer, used only to map source spans.

pycparser parses the preprocessed text and knows where each leaf token
starts; this tokenizer recovers every token with its exact character span, in
the original file and in the preprocessed text, so that crepair can point at
operators and rewrite single tokens in the user's file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v\ufeff]+)
  | (?P<nl>\n)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<chr>'(?:\\.|[^'\\\n])+')
  | (?P<num>(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uUlLfF]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^!~<>=?:;,.(){}\[\]\#])
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

# The keywords of C11 (ISO/IEC 9899:2011 §6.4.1) and the gcc spellings
# pycparser accepts: identifier-shaped tokens that name no variable.
C_KEYWORDS = frozenset({
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "__inline", "__inline__", "__int128", "__restrict", "__restrict__",
})


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``text``; ``start``/``end`` are 0-based offsets (end exclusive);
    ``line``/``column`` are 1-based."""

    text: str
    start: int
    end: int
    line: int
    column: int


def tokenize(text: str, *, skip_directives: bool) -> list[Token]:
    """Tokens of ``text`` in order, without white space and comments.

    With ``skip_directives`` the lines that begin with ``#`` (preprocessor
    directives, with their backslash continuations) yield no tokens.
    """
    tokens: list[Token] = []
    line, line_start = 1, 0
    at_line_start = True
    in_directive = False
    for m in _TOKEN_RE.finditer(text):
        kind, value = m.lastgroup, m.group()
        if kind == "nl":
            if not (in_directive and _continued(text, m.start())):
                in_directive = False
            line, line_start, at_line_start = line + 1, m.end(), True
            continue
        if kind in ("ws", "comment"):
            newlines = value.count("\n")
            if newlines:
                line += newlines
                line_start = m.start() + value.rindex("\n") + 1
            continue
        if skip_directives and at_line_start and value == "#":
            in_directive = True
        at_line_start = False
        if in_directive:
            continue
        tokens.append(Token(value, m.start(), m.end(), line, m.start() - line_start + 1))
    return tokens


def _continued(text: str, newline: int) -> bool:
    """Whether the line ending at offset ``newline`` ends in a backslash (before any CR)."""
    i = newline - 1
    while i >= 0 and text[i] == "\r":
        i -= 1
    return i >= 0 and text[i] == "\\"
