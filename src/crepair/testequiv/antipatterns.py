"""Anti-patterns: rules that keep overfitting candidates out of the space.

Tan, Yoshida, Prasad, Roychoudhury, "Anti-patterns in Search-Based Program
Repair", FSE'16, §3, list transformations that make a patch pass the tests
by removing functionality rather than fixing it.  Those that apply to
crepair's expression- and guard-level space (Fig. 10 of f1x, TOSEM'18)
are filters on its candidates; deletion is f1x's ``if (0) s`` (a GUARD
whose code is ``0``):

- A1 anti-delete CFG exit node: no deleting a ``return`` or a call to
  ``exit``/``abort``/``_Exit``/``assert``;
- A2 anti-delete control statement: no deleting a ``break`` or a
  ``continue`` (crepair never deletes an ``if``, loop or ``switch``);
- A3 anti-delete single-statement CFG: no deleting the only statement of
  a block or of a branch or loop body, unless it is a call that only
  writes output (``printf``, ``puts``, ``putchar``): every test's expected
  output sees that deletion, and a leftover debug print in a loop is a
  common defect (Codeflaws 230-A);
- A4 anti-delete set-before-if: no deleting a statement that sets a
  variable the condition of the ``if`` right after it reads;
- A6 anti-append trivial condition: no condition (a changed or added
  condition, a guard) with a new operand of ``&&``/``||`` that reads no
  variable (``1``, ``3 > 0``) or compares a thing to itself (``x == x``);
- A7 anti-delete loop-counter update: no deleting a statement that writes
  a variable the condition of a loop around it reads.

A5 (anti-append early exit) does not apply: crepair inserts no ``return``,
``goto`` or ``break``.  The paper's numbering is given as remembered (the
paper is not in the project's folder).  crepair adds two rules of its own
(issue 29, the overfitting patches seen on Codeflaws 109-D and 110-A):

- CONSTANT_BOUND: no variable of a loop condition or an array subscript
  replaced by a constant (``i < n - 1`` -> ``i < 1``) unless a constant
  stood there, nor made constant by an operator (``a[i + 1]`` ->
  ``a[i % 1]``);
- MEMBER_CONSTANT: no constant of a membership test ``x == 4 || x == 7``
  changed to another constant (the set comes from the problem's
  statement);
- UNUSED_MAIN_PARAMETER: no candidate reads (or assigns) a parameter of
  ``main`` that ``main`` never reads (``int main(int argc, char *argv[])`` of a program
  that reads standard input: ``argc`` is 1 in every test, a constant in
  disguise; Codeflaws 109-D's first patch put it for a loop variable);
- CONSTANT_CONDITION: C1 in the condition of an ``if``, ``?:`` or an
  operand of ``&&``/``||``: no variable of a comparison replaced by a
  constant (``i >= n - 1`` -> ``1 >= n - 1``, ``a > b`` -> ``a > 1``);
- SELF_READ: the value of ``v = e`` (or ``T v = e``) that does not read
  ``v`` is not made to read it (``m = n`` -> ``m = m``, a deletion in
  disguise; ``t = b + 1`` -> ``t = b + t``, the stale value);
- UNIFORM_CHAIN: in a chain of three or more comparisons with one
  relational operator (``b == a || b == c || c == d``, a list of cases) no
  comparison's operator changed (``b == c`` -> ``b > c``);
- LOOP_START: the constant that starts a ``for`` counter moves by one at
  most, and not below zero (``i = 0`` -> ``i = 3`` skips iterations the
  tests happen not to need; ``i = -1`` indexes before an array);
- UNASSIGNED_READ: no candidate reads a local not yet assigned where it
  runs (never assigned, initialized or passed by address before it, nor
  in a loop around it): its value is indeterminate, a constant of the
  test machine (``... || j <= 18``; ``if (a > b) s = a`` -> ``if (s > b)``);
- LOOP_INVARIANT: in a loop, no variable the loop assigns in a subscript
  or loop condition replaced by variables it does not assign
  (``for (i = 0; i < m; i++) ... a[i]`` -> ``a[m]``: C1 with a variable
  that is constant in the loop);
- ITERATION_CONSTANT: no added condition (a refinement's or a guard's
  atom) compares a variable a loop around it assigns with a literal other
  than 0 and 1, nor with any literal in the loop's own condition
  (``i < n - 1 && i < 1``, ``... && i < 27``, ``if (i != 9) s``: how many
  iterations the tests' inputs have; ``if (i > 0)``, a first iteration's
  exception, stays).

C1 and C4 count a named constant (a macro, an enumerator) or a call like a
variable: ``i < LEN`` -> ``i < 1`` is left out, ``i < LEN - 1`` kept.

The rules C4–C9 read the roles of :mod:`crepair.testequiv.roles`.

Each rule is a function ``(place, draft, original) -> bool`` (True:
remove); :func:`crepair.testequiv.pruning.pruned` applies the chosen ones.

>>> AntiPattern.CONSTANT_BOUND.label
'crepair: anti-replace bound by constant'
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from typing import Protocol

from pycparser import c_ast

from crepair.errors import UsageError
from crepair.testequiv.candidates import Schema, SiteKind
from crepair.testequiv.scope import VarKind
from crepair.testequiv.place import Place
from crepair.testequiv.ctext import patch_key
from crepair.testequiv.textdiff import changed, flat, parts, tokens

_EXITS = {"exit", "abort", "_Exit", "_exit", "quick_exit", "assert", "__assert_fail"}
_OUTPUTS = {"printf", "puts", "putchar"}  # calls that only write output (A3 lets them be deleted)
_RELATIONAL = {"==", "!=", "<", "<=", ">", ">="}
_LOGICAL = {"&&", "||", "?", ":"}


class AntiPattern(enum.Enum):
    """The rules, valued by their number (the paper's Ax, or crepair's own)."""

    EXIT_NODE = "A1"
    CONTROL_STATEMENT = "A2"
    SINGLE_STATEMENT = "A3"
    SET_BEFORE_IF = "A4"
    TRIVIAL_CONDITION = "A6"
    LOOP_COUNTER = "A7"
    CONSTANT_BOUND = "C1"
    MEMBER_CONSTANT = "C2"
    UNUSED_MAIN_PARAMETER = "C3"
    CONSTANT_CONDITION = "C4"
    SELF_READ = "C5"
    UNIFORM_CHAIN = "C6"
    LOOP_START = "C7"
    UNASSIGNED_READ = "C8"
    LOOP_INVARIANT = "C9"
    ITERATION_CONSTANT = "C10"

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    AntiPattern.EXIT_NODE: "A1 anti-delete CFG exit node",
    AntiPattern.CONTROL_STATEMENT: "A2 anti-delete control statement",
    AntiPattern.SINGLE_STATEMENT: "A3 anti-delete single-statement CFG",
    AntiPattern.SET_BEFORE_IF: "A4 anti-delete set-before-if",
    AntiPattern.TRIVIAL_CONDITION: "A6 anti-append trivial condition",
    AntiPattern.LOOP_COUNTER: "A7 anti-delete loop-counter update",
    AntiPattern.CONSTANT_BOUND: "crepair: anti-replace bound by constant",
    AntiPattern.MEMBER_CONSTANT: "crepair: anti-change membership constant",
    AntiPattern.UNUSED_MAIN_PARAMETER: "crepair: anti-read unused main parameter",
    AntiPattern.CONSTANT_CONDITION: "crepair: anti-replace compared variable by constant",
    AntiPattern.SELF_READ: "crepair: anti-read the assigned variable",
    AntiPattern.UNIFORM_CHAIN: "crepair: anti-change one operator of a uniform chain",
    AntiPattern.LOOP_START: "crepair: anti-skip loop iterations",
    AntiPattern.UNASSIGNED_READ: "crepair: anti-read unassigned local",
    AntiPattern.LOOP_INVARIANT: "crepair: anti-make loop access invariant",
    AntiPattern.ITERATION_CONSTANT: "crepair: anti-count loop iterations by constant",
}


class Draft(Protocol):
    """What a rule reads of a candidate (space.py's draft)."""

    schema: Schema
    code: str
    replacement: str
    param: int | None
    lhs: str


def _deletion(d: Draft) -> bool:
    return d.schema is Schema.GUARD and d.code == "0"


def exit_node(p: Place, d: Draft, original: str) -> bool:
    """A1: deleting a return or an exit call."""
    if not _deletion(d):
        return False
    return isinstance(p.node, c_ast.Return) or _calls(p.node, _EXITS)


def control_statement(p: Place, d: Draft, original: str) -> bool:
    """A2: deleting a break or a continue."""
    return _deletion(d) and isinstance(p.node, (c_ast.Break, c_ast.Continue))


def single_statement(p: Place, d: Draft, original: str) -> bool:
    """A3: deleting the only statement of a block, branch or loop body
    (not an output call: its deletion is what each test's output checks)."""
    return _deletion(d) and p.alone and not _calls(p.node, _OUTPUTS)


def _calls(node: c_ast.Node, names: set[str]) -> bool:
    """``node`` is a call of one of ``names`` by name."""
    return isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in names


def set_before_if(p: Place, d: Draft, original: str) -> bool:
    """A4: deleting an assignment to what the next ``if`` tests."""
    return _deletion(d) and bool(_named(p.writes) & _named(p.before_if))


def loop_counter(p: Place, d: Draft, original: str) -> bool:
    """A7: deleting the update of a variable an enclosing loop tests."""
    return _deletion(d) and bool(_named(p.writes) & _named(p.loop_reads))


def _named(names: tuple[str, ...]) -> set[str]:
    """The variables of a read or write set, without ``"*"`` (any: a call,
    a pointer), which is no evidence of a dependency."""
    return set(names) - {"*"}


def trivial_condition(p: Place, d: Draft, original: str) -> bool:
    """A6: a new operand of ``&&``/``||`` in a changed condition that
    reads no variable or compares an operand with itself.  Refinements,
    guards and atoms (``d.param`` set) add atoms ``x op y`` of two
    variables or ``x op c``, never trivial: only other changes are read."""
    if not p.condition or d.schema is not Schema.EXPRESSION or d.param is not None:
        return False
    known = set(map(flat, parts(original[p.span.start:p.span.end])))
    return any(flat(part) not in known and _trivial(part, p) for part in parts(d.replacement))


def constant_bound(p: Place, d: Draft, original: str) -> bool:
    """crepair's C1: a variable of a loop condition or array subscript
    replaced by a constant, or made constant by an operator that discards
    it (``i % 1``, ``i * 0``, ``i & 0``)."""
    return p.bound and _made_constant(p, d, original)


def constant_condition(p: Place, d: Draft, original: str) -> bool:
    """crepair's C4: C1 in any other condition."""
    return p.condition and _made_constant(p, d, original)


def _made_constant(p: Place, d: Draft, original: str) -> bool:
    if d.schema is not Schema.EXPRESSION:
        return False
    before = original[p.span.start:p.span.end]
    if len(_ANNIHILATE.findall(d.replacement)) > len(_ANNIHILATE.findall(before)):
        return True
    old, new = changed(before, d.replacement)
    if any(t in _LOGICAL for t in old + new):
        return False
    if sum(t in _RELATIONAL for t in old) != sum(t in _RELATIONAL for t in new):
        return False
    return any(_valued(t, p) for t in old) and not any(_valued(t, p) for t in new)


def _valued(token: str, p: Place) -> bool:
    """A variable, a named constant or a function's name: a value that is not a literal."""
    return token in p.scope or (bool(_IDENT.match(token)) and token != "sizeof")


def member_constant(p: Place, d: Draft, original: str) -> bool:
    """crepair's C2: a membership test's constant changed to a constant."""
    if not p.members or d.schema is not Schema.EXPRESSION:
        return False
    old_text = original[p.span.start:p.span.end]
    old, new = changed(old_text, d.replacement)
    if not old or not new or any(_IDENT.match(t) for t in old + new):
        return False
    start, end, _ = patch_key(original, p.span, d.replacement)
    return any(m0 <= start and end <= m1 for m0, m1 in p.members)


def unused_main_parameter(p: Place, d: Draft, original: str) -> bool:
    """crepair's C3: a candidate reads a parameter of ``main`` that
    ``main`` never reads and the site does not name, or assigns it (a
    write nothing reads)."""
    if p.function.name != "main":
        return False
    unused = {name for name, v in p.scope.items()
              if v.kind is VarKind.PARAM and not p.function.uses.get(name)}
    if not unused:
        return False
    before = set(tokens(original[p.span.start:p.span.end]))
    return getattr(d, "lhs", "") in unused or any(t in unused and t not in before for t in tokens(d.code))


def self_read(p: Place, d: Draft, original: str) -> bool:
    """crepair's C5: the value of ``v = e`` made to read ``v`` (also by
    its operator: ``v = e`` -> ``v += e``, :mod:`crepair.testequiv.assignops`)."""
    if d.schema is Schema.EXPRESSION and p.kind is SiteKind.STMT:
        return isinstance(p.node, c_ast.Assignment) and p.node.op == "=" and d.code.startswith(f"({d.lhs}) ")
    v = p.roles.assigned
    if not v or d.schema is not Schema.EXPRESSION:
        return False
    return v not in tokens(original[p.span.start:p.span.end]) and v in tokens(d.replacement)


def uniform_chain(p: Place, d: Draft, original: str) -> bool:
    """crepair's C6: the operator of one comparison of a uniform chain changed."""
    if not p.roles.chains or d.schema is not Schema.EXPRESSION:
        return False
    before = original[p.span.start:p.span.end]
    old, new = changed(before, d.replacement)
    if len(old) != 1 or len(new) != 1 or old[0] not in _RELATIONAL or new[0] not in _RELATIONAL:
        return False
    start, end, _ = patch_key(original, p.span, d.replacement)
    return any(c0 <= start and end <= c1 for c0, c1 in p.roles.chains)


def loop_start(p: Place, d: Draft, original: str) -> bool:
    """crepair's C7: a ``for`` counter's starting constant moved by more
    than one, or below zero (a variable may replace it)."""
    c = p.roles.start
    if c is None or d.schema is not Schema.EXPRESSION:
        return False
    text = "".join(d.replacement.split()).strip("()")
    try:
        value = int(text, 0)
    except ValueError:
        return False
    return abs(value - c) > 1 or value < 0 <= c


def unassigned_read(p: Place, d: Draft, original: str) -> bool:
    """crepair's C8: a candidate reads a local not yet assigned at the
    site (that the site does not already read)."""
    if not p.roles.unassigned:
        return False
    before = set(tokens(original[p.span.start:p.span.end]))
    return any(t in p.roles.unassigned and t not in before for t in tokens(d.code))


def loop_invariant(p: Place, d: Draft, original: str) -> bool:
    """crepair's C9: a subscript or loop condition's variable that a loop
    around it assigns replaced by variables it does not assign."""
    vary = p.roles.varying
    if not p.bound or not vary or d.schema is not Schema.EXPRESSION:
        return False
    old, new = changed(original[p.span.start:p.span.end], d.replacement)
    return any(t in vary for t in old) and not any(t in vary for t in new) and any(t in p.scope for t in new)


def iteration_constant(p: Place, d: Draft, original: str) -> bool:
    """crepair's C10: an added atom ``v op k``, ``v`` assigned in a loop
    around the place, ``k`` a literal (not 0 or 1, unless in a loop's
    own condition)."""
    if d.schema not in (Schema.REFINEMENT, Schema.GUARD) or d.code == "0" or not p.roles.varying:
        return False
    toks = tokens(d.replacement)
    if d.schema is Schema.GUARD:
        atom = toks[toks.index("if") + 2:][:3] if "if" in toks else ()
    else:
        while toks and toks[-1] == ")":
            toks = toks[:-1]
        atom = toks[-3:]
    if len(atom) != 3 or atom[1] not in _RELATIONAL or atom[0] not in p.roles.varying or not atom[2][:1].isdigit():
        return False
    return (p.bound and p.condition) or atom[2] not in ("0", "1")


RULES: dict[AntiPattern, Callable[[Place, Draft, str], bool]] = {
    AntiPattern.EXIT_NODE: exit_node,
    AntiPattern.CONTROL_STATEMENT: control_statement,
    AntiPattern.SINGLE_STATEMENT: single_statement,
    AntiPattern.SET_BEFORE_IF: set_before_if,
    AntiPattern.TRIVIAL_CONDITION: trivial_condition,
    AntiPattern.LOOP_COUNTER: loop_counter,
    AntiPattern.CONSTANT_BOUND: constant_bound,
    AntiPattern.MEMBER_CONSTANT: member_constant,
    AntiPattern.UNUSED_MAIN_PARAMETER: unused_main_parameter,
    AntiPattern.CONSTANT_CONDITION: constant_condition,
    AntiPattern.SELF_READ: self_read,
    AntiPattern.UNIFORM_CHAIN: uniform_chain,
    AntiPattern.LOOP_START: loop_start,
    AntiPattern.UNASSIGNED_READ: unassigned_read,
    AntiPattern.LOOP_INVARIANT: loop_invariant,
    AntiPattern.ITERATION_CONSTANT: iteration_constant,
}


def anti_pattern_rules(text: str) -> frozenset[AntiPattern]:
    """The rules named by ``text``: ``"all"``, ``"none"`` or rule numbers
    separated by commas (``"A1,A6,C1"``, any case).  Raises
    ``UsageError`` naming the unknown ones."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if words == ["all"]:
        return frozenset(AntiPattern)
    if words == ["none"]:
        return frozenset()
    known = {r.value: r for r in AntiPattern}
    bad = [w for w in words if w.upper() not in known]
    if bad or not words:
        raise UsageError(f"--anti-patterns: {', '.join(bad) or repr(text)} is not all, none or a rule number "
                         f"({', '.join(known)})")
    return frozenset(known[w.upper()] for w in words)


_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
_ANNIHILATE = re.compile(r"(?:%\s*\(?\s*1|(?:\*|(?<!&)&)\s*\(?\s*0)(?![\w.])|(?<![\w.])0\s*\)?\s*(?:\*|&(?!&))")


def _trivial(part: str, p: Place) -> bool:
    words = tokens(part)
    if not any(t in p.scope for t in words):
        return True
    for op in _RELATIONAL:
        for k, t in enumerate(words):
            if t == op and words[:k] == words[k + 1:]:
                return True
    return False
