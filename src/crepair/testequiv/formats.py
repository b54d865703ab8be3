"""Format strings as repair sites: small edits of an output call's literal.

A student's most common wrong answer is the output's format: a missing or
extra newline, a space before it, ``%d`` where ``%ld`` or ``%.2f`` was
meant.  The string-literal format of ``printf`` and ``fprintf(stdout,
...)`` and the argument of ``puts`` are sites of the FORMAT schema, whose
candidates are the literal with one small edit (:func:`format_edits`):

- a ``\\n`` appended or deleted at the end, inserted or deleted at the start;
- a space inserted before the final ``\\n`` (or at the end);
- each space, tab and ``\\n`` outside a conversion deleted, or swapped
  (space or tab -> ``\\n``, ``\\n`` -> space, tab -> space);
- every space (or every tab) right before a ``\\n`` deleted at once,
  when there are several (``"%d \\n%d \\n"`` -> ``"%d\\n%d\\n"``);
- a trailing space or tab moved to the front (``"%d "`` -> ``" %d"``);
- the words before the first conversion or after the last deleted (a
  prompt or a sentence around the value: ``"O maior é %d\\n"`` ->
  ``"%d\\n"``, ``"%d é o maior"`` -> ``"%d\\n"``);
- one conversion changed to a related one that still matches its
  argument's type as gcc's ``-Wformat`` checks it: ``%d``/``%i``/``%u`` with
  the length modifier of the (promoted) integer argument (``%d`` -> ``%ld``
  for a ``long``), ``%c`` <-> ``%d`` for an ``int``-promoted argument,
  ``%f`` -> ``%.1f``/``%.2f``/``%.3f``/``%lf`` (and back) for a ``double``,
  ``%f`` <-> ``%d`` when the argument's type says the other.  The number of
  conversions never changes; no conversion changes when an argument's type
  is unknown, a ``*`` width is used, or the conversions do not match the
  arguments one to one;
- the lines after a ``\\n`` inside the literal dropped (output that is
  not wanted: a second line); the last conversions go with them, and the
  patch deletes their arguments when they are free of side effects (else
  there is no such edit; :func:`dropped_arguments`);
- the letters outside conversions and escapes in another case: the first
  letter's case swapped (``"second\\n"`` -> ``"Second\\n"``), all upper
  case (``"yes"`` -> ``"YES"``), all lower case.

With a reference implementation at hand, the literals its own output
calls print (:func:`output_literals`) are candidates too, at each format
whose arguments their conversions consume, or the first ones
(:func:`literal_replacements`; widths, flags and precisions may differ):
the words a judge expects (``"-1"`` -> ``"0"``) and the widths of its
numbers (``"%2d:%2d"`` -> ``"%02d:%02d"``) are seldom one small edit away.

In a loop, a separator is often right on all but the first or last
iteration: :func:`separator_choices` gives the pairs of literals a
conditional format ``(b) ? when_true : when_false`` chooses between
(crepair's CONDITIONAL FORMAT candidates, :mod:`crepair.testequiv.space`).

This schema is crepair's own (not in f1x's Fig. 10; TOSEM'18 §5 leaves
string literals out).  Each edit costs one node, as an operator change.

Texts are the literal's C source (escapes as written, quotes included).

>>> format_edits('"%d"', (INT,))[:4]
['"%d\\\\n"', '"%d "', '"\\\\n%d"', '"%i"']
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pycparser import c_ast

from crepair.typed.model import INT, CType, TypeKind, promote


class FormatCall(enum.Enum):
    """How a call's literal is read: a ``printf`` format (conversions
    consume the arguments after it) or text written as is (``puts``)."""

    PRINTF = "printf"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class FormatArgument:
    """The literal argument of an output call: its index among the call's
    arguments (0-based), how it is read, and the arguments its conversions
    consume (pycparser nodes, in order)."""

    index: int
    call: FormatCall
    rest: tuple[c_ast.Node, ...] = ()


def format_argument(call: c_ast.FuncCall) -> FormatArgument | None:
    """The string-literal format (or text) argument of ``printf(fmt,
    ...)``, ``fprintf(stdout, fmt, ...)`` or ``puts(text)``; None for any
    other call or when that argument is not a string literal."""
    if not isinstance(call.name, c_ast.ID) or call.args is None:
        return None
    args = call.args.exprs
    name = call.name.name
    if name == "printf" and args:
        found = FormatArgument(0, FormatCall.PRINTF, tuple(args[1:]))
    elif name == "fprintf" and len(args) >= 2 and isinstance(args[0], c_ast.ID) and args[0].name == "stdout":
        found = FormatArgument(1, FormatCall.PRINTF, tuple(args[2:]))
    elif name == "puts" and len(args) == 1:
        found = FormatArgument(0, FormatCall.TEXT)
    else:
        return None
    literal = args[found.index]
    return found if isinstance(literal, c_ast.Constant) and literal.type == "string" else None


_LITERAL = re.compile(r'"((?:\\.|[^"\\\n])*)"\Z', re.S)
_UNIT = re.compile(r"\\(?:[0-7]{1,3}|x[0-9a-fA-F]+|.)|.", re.S)
_CONVERSION = re.compile(
    r"%(?P<flags>[-+ #0']*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
    r"(?P<len>hh|h|ll|l|L|q|j|z|t)?(?P<conv>[diouxXfFeEgGaAcspn%])"
)
_LENGTH = {3: "", 4: "l", 5: "ll"}
_FLOATS = "fFeEgGaA"
_SEPARATORS = (" ", "\\t", "\\n")
_WORD = re.compile(r"[A-Za-z\u0080-\U0010ffff]")  # a letter (accented ones too): text that is a word


def format_edits(literal: str, arg_types: tuple[CType, ...] | None) -> list[str]:
    """The edited literals of ``literal`` (a C string literal's source,
    quotes included), each differing from it, without repeats, in a fixed
    order.  ``arg_types``: the types of the arguments a ``printf`` format
    consumes, in order (None: the literal is written as is, ``puts``, and
    has no conversions).  A literal that is not one plain ``"..."`` (a
    prefix such as ``L"..."``, adjacent literals) has no edits."""
    m = _LITERAL.match(literal)
    if m is None:
        return []
    body = m.group(1)
    protected: set[int] = set()
    conversions = list(_CONVERSION.finditer(body)) if arg_types is not None else []
    for c in conversions:
        protected.update(range(c.start(), c.end()))
    units = [(u.start(), u.group(0)) for u in _UNIT.finditer(body)]
    bodies: list[str] = []
    if body.endswith("\\n"):
        bodies += [body[:-2], body[:-2] + " \\n"]
    else:
        bodies += [body + "\\n", body + " "]
    bodies.append(body[2:] if body.startswith("\\n") else "\\n" + body)
    for at, unit in units:
        if at in protected or unit not in _SEPARATORS:
            continue
        for other in ("",) + tuple(o for o in ("\\n", " ") if o != unit):
            bodies.append(body[:at] + other + body[at + len(unit):])
    for sep in (" ", "\\t"):
        if body.count(sep + "\\n") > 1:
            bodies.append(body.replace(sep + "\\n", "\\n"))
    for sep in (" ", "\\t"):
        if body.endswith(sep) and len(body) > len(sep):
            bodies.append(sep + body[:-len(sep)])
    if conversions:
        bodies += _prompt_edits(body, conversions[0].start(), conversions[-1].end())
    bodies += _dropped_lines(body, units, protected)
    if arg_types is not None:
        bodies += _conversion_edits(body, conversions, arg_types)
    bodies += _case_edits(units, protected)
    out: list[str] = []
    for b in bodies:
        text = f'"{b}"'
        if b != body and text not in out:
            out.append(text)
    return out


def _prompt_edits(body: str, first: int, last: int) -> list[str]:
    """The words around the conversions deleted: the text before the
    first (a prompt, ``"Resultado: %d\\n"`` -> ``"%d\\n"``), the text after
    the last (``"%d é o maior"`` -> ``"%d"``), or both, each also with a
    newline at the end when it has none; only
    text that holds a word (a letter), as separators have edits of their
    own."""
    head, tail = body[:first], body[last:]
    nl = "\\n" if tail.endswith("\\n") else ""
    kept = []
    if _WORD.search(head):
        kept.append(body[first:])
    if _WORD.search(tail):
        kept.append(body[:last] + nl)
    if _WORD.search(head) and _WORD.search(tail):
        kept.append(body[first:last] + nl)
    return [b for k in kept for b in (k, k if k.endswith("\\n") else k + "\\n")]


def _dropped_lines(body: str, units: list[tuple[int, str]], protected: set[int]) -> list[str]:
    """The lines after each ``\\n`` inside ``body`` dropped (an extra line
    of output: ``"%s\\nlength: %d\\n"`` -> ``"%s\\n"``).  The conversions
    dropped are the last ones; the arguments they consumed are left over
    (:func:`dropped_arguments`: the patch deletes them)."""
    return [body[:at + 2] for at, unit in units if unit == "\\n" and at not in protected and at + 2 < len(body)]


def _case_edits(units: list[tuple[int, str]], protected: set[int]) -> list[str]:
    """The body (as ``units``: (offset, character or escape)) with the
    letters outside conversions (offsets in ``protected``) and escapes in
    another case: the first letter's swapped, all upper, all lower."""
    letters = {k for k, (at, u) in enumerate(units) if at not in protected and len(u) == 1 and u.isalpha()}
    if not letters:
        return []

    def spelled(change) -> str:
        return "".join(change(u) if k in letters else u for k, (_, u) in enumerate(units))

    first = min(letters)
    swapped = "".join(u.swapcase() if k == first else u for k, (_, u) in enumerate(units))
    return [swapped, spelled(str.upper), spelled(str.lower)]


_KINDS = {"i": "d", "o": "u", "x": "u", "X": "u", **{f: "f" for f in _FLOATS}}


def _consumed(body: str) -> list[tuple[str, str]]:
    """The arguments the conversions of ``body`` consume, in order, each as
    (length modifier, kind): an ``int`` for a ``*`` width or precision,
    then the conversion's own (``%d`` and ``%i`` alike, the unsigned ``%u
    %o %x %X`` alike, every floating one alike).  Conversions that differ
    only in flags, width or precision (``%2d``, ``%02d``; ``%.2f``,
    ``%f``) consume the same."""
    out: list[tuple[str, str]] = []
    for c in _CONVERSION.finditer(body):
        if c.group("conv") != "%":
            out += [("", "d")] * ((c.group("width") == "*") + (c.group("prec") == "*"))
            out.append((c.group("len") or "", _KINDS.get(c.group("conv"), c.group("conv"))))
    return out


def literal_replacements(literal: str, arg_types: tuple[CType, ...] | None, literals: Sequence[str]) -> list[str]:
    """The ``literals`` (C string literals' source, quotes included) that
    may stand in place of ``literal`` at an output call: plain ``"..."``
    literals other than it whose conversions consume what ``literal``'s
    first ones do (all, or the first few: the arguments left over are
    evaluated and ignored, C11 7.21.6.1p2; flags, widths and precisions
    may differ, ``"%2d"`` -> ``"%02d"``), in the same order (a ``puts`` text,
    ``arg_types`` None: literals without a ``%``), without repeats, in the
    order given."""
    m = _LITERAL.match(literal)
    if m is None:
        return []
    own = _consumed(m.group(1)) if arg_types is not None else None
    out: list[str] = []
    for other in literals:
        o = _LITERAL.match(other)
        if o is None or other == literal or other in out:
            continue
        body = o.group(1)
        if own is None and "%" not in body:
            out.append(other)
        elif own is not None and "%" not in _CONVERSION.sub("", body):
            theirs = _consumed(body)
            if theirs == own or (0 < len(theirs) < len(own) and own[:len(theirs)] == theirs):
                out.append(other)
    return out


def literal_body(literal: str) -> str | None:
    """The text between the quotes of a plain ``"..."`` literal (C source,
    escapes as written); None for any other (a prefix such as ``L"..."``,
    adjacent literals)."""
    m = _LITERAL.match(literal)
    return None if m is None else m.group(1)


def without_prompt(body: str) -> str | None:
    """``body`` (a literal's text, :func:`literal_body`) from its first
    conversion on, when the text before it holds a word (a prompt:
    ``Resultado: %d\\n`` -> ``%d\\n``, the first of the edits of
    :func:`format_edits` that delete words); None otherwise."""
    first = _CONVERSION.search(body)
    return body[first.start():] if first is not None and _WORD.search(body[:first.start()]) else None


def dropped_arguments(edited: str, ends: Sequence[int], pure: int) -> tuple[int, int] | None:
    """The text a patch deletes besides when the format literal becomes
    ``edited``: offsets ``(start, end)`` (0-based, end exclusive; empty,
    ``start == end``, when its conversions consume every argument) from the
    end of the last argument still consumed to the end of the last one,
    ``ends`` being the end offsets of the literal and of each argument
    after it (a ``puts`` text: the literal's alone).  None when the
    arguments dropped would include one of the first ``len(ends) - 1 -
    pure`` (one with side effects, which the patch must keep) or when
    ``edited`` needs more arguments than there are."""
    body = literal_body(edited)
    used = len(_consumed(body)) if body is not None and len(ends) > 1 else len(ends) - 1
    if used > len(ends) - 1 or len(ends) - 1 - used > pure:
        return None
    return ends[used], ends[-1]


def output_literals(ast: c_ast.Node) -> tuple[str, ...]:
    """The literals the output calls of ``ast`` (a pycparser tree) print
    (:func:`format_argument`), in source order, without repeats."""
    found: dict[str, None] = {}

    class _Calls(c_ast.NodeVisitor):
        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            fmt = format_argument(node)
            if fmt is not None:
                found.setdefault(node.args.exprs[fmt.index].value, None)
            self.generic_visit(node)

    _Calls().visit(ast)
    return tuple(found)


def separator_choices(literal: str) -> list[tuple[str, str]]:
    """Pairs ``(when_true, when_false)`` of literals for a conditional
    format ``(b) ? when_true : when_false`` in place of ``literal`` (a C
    string literal's source): a separator (space, tab, ``\\n``) at the
    literal's end or start printed on some iterations only — the literal
    with and without it, and a trailing space or tab moved to the front
    (``(i > 0) ? " %d" : "%d"``).  Empty for a literal that is not one
    plain ``"..."``."""
    m = _LITERAL.match(literal)
    if m is None:
        return []
    body = m.group(1)
    out: list[tuple[str, str]] = []
    for sep in (" ", "\\t", "\\n"):
        if body.endswith(sep) and len(body) > len(sep):
            bare = body[:-len(sep)]
            out.append((body, bare))
            if sep != "\\n":
                out += [(sep + bare, bare), (bare + "\\n", body)]
        elif body.startswith(sep) and len(body) > len(sep):
            out.append((body, body[len(sep):]))
    if not body.endswith("\\n"):
        out.append((body + "\\n", body))
    return [(f'"{a}"', f'"{b}"') for a, b in dict.fromkeys(out)]


def _conversion_edits(body: str, conversions: list[re.Match], arg_types: tuple[CType, ...]) -> list[str]:
    if "%" in _CONVERSION.sub("", body):
        return []  # a % that is no conversion: gcc's format would not parse
    used = [c for c in conversions if c.group("conv") != "%"]
    if any("*" in (c.group("width") or "") + (c.group("prec") or "") for c in used) or len(used) != len(arg_types):
        return []
    out: list[str] = []
    for c, t in zip(used, arg_types):
        head = "%" + c.group("flags") + (c.group("width") or "")
        for spec in _related(c, t):
            out.append(body[:c.start()] + head + spec + body[c.end():])
    return out


def _related(c: re.Match, t: CType) -> list[str]:
    """Conversion tails (precision, length, letter) related to ``c`` that
    fit an argument of type ``t``, without ``c``'s own."""
    conv, length, prec = c.group("conv"), c.group("len") or "", c.group("prec")
    own = ("." + prec if prec is not None else "") + length + conv
    ints = _int_length(t)
    floating = t.kind == TypeKind.FLOAT and t.text in ("double", "float")
    specs: list[str] = []
    if conv in "diu" and ints is not None:
        specs += [("." + prec if prec is not None else "") + ints + k for k in "diu"]
        if ints == "" and not prec:
            specs.append("c")
    elif conv == "c" and ints == "":
        specs.append("d")
    elif conv in _FLOATS and floating and length in ("", "l"):
        for p in (None, "1", "2", "3"):
            specs.append(("" if p is None else "." + p) + conv)
        toggled = "" if length == "l" else "l"
        specs.append(("." + prec if prec is not None else "") + toggled + conv)
    if conv in _FLOATS and ints is not None:
        specs.append(ints + "d")
    if conv in "diuc" and floating:
        specs.append("f")
    return [s for s in dict.fromkeys(specs) if s != own]


def _int_length(t: CType) -> str | None:
    """The length modifier of a (promoted) integer argument, None for
    anything else."""
    if t.kind != TypeKind.INTEGER:
        return None
    return _LENGTH.get(promote(t).rank)


__all__ = ["FormatArgument", "FormatCall", "dropped_arguments", "format_argument", "format_edits", "literal_body",
           "literal_replacements", "output_literals", "separator_choices", "without_prompt"]
