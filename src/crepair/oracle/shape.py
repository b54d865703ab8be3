"""What a wrong output looks like, and where the output is written.

The staged run against a reference (:mod:`crepair.schemes.staged`)
searches a small part of the space first when the original's wrong
outputs point at the output statements:

- PRESENTATION: every wrong output has the expected characters but for
  white space (``*-*`` for ``* - *``, ``1 2 \\n`` for ``1 2\\n``) — a course
  judge's "presentation error"; the output formats and the output calls
  inserted before statements are searched first;
- OUTPUT: the wrong outputs differ from the expected ones by whole tokens
  printed too many or too few (a prompt, a debugging print, a missing
  label), never by a token printed differently; the sites on the lines of
  output calls are searched first;
- OTHER: anything else (a value printed wrong).
"""

from __future__ import annotations

import difflib
import enum
import re
from collections.abc import Iterable

_OUTPUT_CALL = re.compile(r"\b(printf|fprintf|puts|putchar|fputs|putc|fputc|fwrite)\s*\(")


class Shape(enum.Enum):
    """The shape of a program's wrong outputs (see the module docstring)."""

    PRESENTATION = "presentation"
    OUTPUT = "output"
    OTHER = "other"


def failure_shape(pairs: Iterable[tuple[bytes, bytes]]) -> Shape | None:
    """The shape of the wrong outputs among ``pairs`` of (actual,
    expected) outputs; None when every pair is equal."""
    wrong = [(got, want) for got, want in pairs if got != want]
    if not wrong:
        return None
    if all(b"".join(got.split()) == b"".join(want.split()) for got, want in wrong):
        return Shape.PRESENTATION
    for got, want in wrong:
        ops = difflib.SequenceMatcher(None, got.split(), want.split(), autojunk=False).get_opcodes()
        if any(tag == "replace" for tag, *_ in ops):
            return Shape.OTHER
    return Shape.OUTPUT


def output_lines(text: str) -> frozenset[int]:
    """The 1-based lines of ``text`` (C source) that call an output
    function of ``<stdio.h>`` (comments and strings are not told apart:
    a line too many only widens the first stage)."""
    return frozenset(n for n, line in enumerate(text.splitlines(), start=1) if _OUTPUT_CALL.search(line))
