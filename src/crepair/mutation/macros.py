"""Macro bodies as repairable text: where an expanded token was written.

A ``#define NAME body`` constant (TCAS v13: ``#define OLEV 600+100``) is
expanded by the preprocessor at each use, and the token map of
:mod:`crepair.frontend.preprocess` gives every expanded token the span of
the macro's *use* (the name ``OLEV``).  A mutation of such a token is an
edit of the ``#define`` line: this module finds, for a token of an
expansion, the token of the macro body it came from, with its exact span
in the original text.

Only what one edit of the body repairs soundly is offered
(:meth:`MacroBodies.body_token` returns None otherwise):

* an object-like macro (no parameters), defined once and never
  ``#undef``-ined, whose body tokens are exactly its expansion (no macro
  inside the body);
* used at exactly one place of the file and named in no other macro's
  body, so that the edited ``#define`` changes the program only where the
  mutated expression is (in particular, never the specification).
"""

from __future__ import annotations

from dataclasses import dataclass

from crepair.frontend.parse import CProgram
from crepair.frontend.tokens import Token, tokenize


@dataclass(frozen=True, slots=True)
class MacroBody:
    """An object-like macro: ``name`` and its ``tokens`` (with their 0-based
    spans in the original text) on its ``#define`` line (1-based ``line``)."""

    name: str
    line: int
    tokens: tuple[Token, ...]


def object_macros(original: str) -> tuple[dict[str, MacroBody], set[str]]:
    """The object-like macros of ``original`` defined exactly once and never
    ``#undef``-ined (by name), and the names of every macro (object- or
    function-like) whose definitions are ambiguous or that are undefined."""
    tokens = tokenize(original, skip_directives=False)
    found: dict[str, MacroBody] = {}
    excluded: set[str] = set()
    for i, tok in enumerate(tokens):
        first_on_line = i == 0 or tokens[i - 1].line < tok.line
        if tok.text != "#" or not first_on_line or i + 2 >= len(tokens):
            continue
        directive, name = tokens[i + 1], tokens[i + 2]
        if directive.line != tok.line or name.line != tok.line:
            continue
        if directive.text == "undef":
            excluded.add(name.text)
            continue
        if directive.text != "define":
            continue
        j = i + 3
        body = []
        while j < len(tokens) and tokens[j].line == tok.line:  # continuation lines are not offered
            body.append(tokens[j])
            j += 1
        function_like = bool(body) and body[0].text == "(" and body[0].start == name.end
        if name.text in found or function_like or _continued(original, tok.line):
            excluded.add(name.text)
            continue
        found[name.text] = MacroBody(name.text, tok.line, tuple(body))
    return {n: m for n, m in found.items() if n not in excluded}, excluded


def _continued(original: str, line: int) -> bool:
    text = original.split("\n")[line - 1].rstrip("\r")
    return text.endswith("\\")


class MacroBodies:
    """Maps expanded tokens of one program to their macro-body tokens."""

    def __init__(self, program: CProgram):
        self._program = program
        self._macros, excluded = object_macros(program.original)
        uses: dict[str, int] = {}
        for tok in tokenize(program.original, skip_directives=True):
            uses[tok.text] = uses.get(tok.text, 0) + 1
        in_bodies = {t.text for m in self._macros.values() for t in m.tokens}
        self._usable = {
            name for name in self._macros
            if uses.get(name, 0) == 1 and name not in in_bodies and name not in excluded
            and not any(t.text in self._macros or t.text in excluded for t in self._macros[name].tokens)
        }

    def body_token(self, index: int) -> tuple[MacroBody, Token] | None:
        """The macro and body token that the preprocessed token at
        ``index`` (an index of ``program.spans``) was expanded from; None
        when the token is not from a usable macro (see module docstring)."""
        spans = self._program.spans
        tok = spans.token(index)
        if not tok.from_macro:
            return None
        name = self._program.original[tok.start : tok.end]
        if name not in self._usable:
            return None
        first = index
        while first > 0 and _same_use(spans.token(first - 1), tok):
            first -= 1
        macro = self._macros[name]
        run = []
        i = first
        while i < first + len(macro.tokens) + 1:
            try:
                t = spans.token(i)
            except IndexError:
                break
            if not _same_use(t, tok):
                break
            run.append(t.text)
            i += 1
        if run != [t.text for t in macro.tokens]:
            return None
        return macro, macro.tokens[index - first]


def _same_use(a, b) -> bool:
    return a.from_macro and (a.start, a.end, a.line) == (b.start, b.end, b.line)
