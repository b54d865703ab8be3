"""The search space of test-driven repair as data: sites and candidates.

A *site* is one place of the user's program where candidates differ (the
paper's "location"): an expression whose value the candidates replace, or a
statement before which they insert a guard or an assignment.  A
*candidate* is one element of the search space (Definition 4.1): the
program with exactly one site changed.  Candidates of one site that fall in
the same *group* may be test-equivalent by value (Definition 3.4): the
meta-program's runtime compares their values at every execution of the
site (value projection, Algorithm 1).  Candidates of different groups are
never merged.

Source: Mechtaev, Gao, Tan, Roychoudhury, "Test-Equivalence Analysis for
Automatic Patch Generation", TOSEM'18, §3–§5 and Fig. 10.

Offsets are 0-based into the original text, end exclusive; ids are 0-based
and dense (``sites[i].id == i``, ``candidates[j].id == j``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from crepair.frontend.spans import Span


class Schema(enum.Enum):
    """The transformation schemas M of Fig. 10 (and §5), and crepair's FORMAT."""

    EXPRESSION = "expression"  # modify a side-effect-free integer/pointer expression or condition
    REFINEMENT = "refinement"  # e && b, e || b
    GUARD = "guard"  # if (b) s; if (0) s is deletion
    ASSIGNMENT = "assignment"  # insert v = e; before a statement
    INITIALIZATION = "initialization"  # give an uninitialized local an initializer
    FORMAT = "format"  # a small edit of an output call's string literal (crepair's own; testequiv.formats)
    OUTPUT = "output"  # insert a newline (or, in a loop, a guarded separator) before a statement (crepair's own)
    COPY = "copy"  # after a loop, a copy of a statement of its body (crepair's own; testequiv.copies)


class SiteKind(enum.Enum):
    """How the meta-program instruments a site."""

    EXPR = "expr"  # the expression's value is replaced; candidates are C expressions
    STMT = "stmt"  # before a statement: a guard and/or an inserted assignment
    DECL = "decl"  # right after a declaration without initializer: INITIALIZATION only


@dataclass(frozen=True, slots=True)
class Site:
    """A repairable place of the original program.

    ``span``: the expression (EXPR), the whole statement (STMT), including
    a statement's ``;``, or the declared name (DECL: ``x`` of ``int a, x;``,
    which INITIALIZATION replaces by ``x = 0``).  ``text``:
    ``original[span.start:span.end]``.  ``function``: the enclosing
    function.  ``value_type``: the C type of an EXPR site's value as C text:
    ``"int"`` for conditions (their value is the truth value, 0 or 1);
    integers by their canonical name (``"long long"``, ``"unsigned int"``,
    ``"char"``, ``"_Bool"``; typedefs such as ``size_t`` resolved, enums
    ``"int"``); pointers as ``T *`` with ``T`` spelled as the program does
    (``"char *"``, ``"const char *"``, ``"struct node *"``, a typedef's
    name), to be used where the program's own types are declared.  The
    declared type for DECL sites; ``"void"`` for STMT sites.
    ``condition``: the expression is used as a truth value (if/while/do/for
    or ``?:`` condition, operand of ``&&``/``||``).
    ``side_effect_free``: the expression may be evaluated more than once
    (no assignment, ``++``/``--`` or call); only then does the meta-program
    evaluate other candidates beside the running one.
    ``reads``/``writes`` (STMT and DECL sites): the variable names the
    statement may read / write, ``"*"`` meaning any (a call, a write through
    a pointer); used by the dependency-based relation (§3.4).
    ``order``: the site's rank by suspiciousness (0 = most suspicious).
    ``variables``: the visible variables the site's candidates name (read
    in ``code``, or assigned as ``lhs``) with their types as C text,
    arrays decayed to pointers (``("n", "int")``, ``("a", "int *")``; ``""``
    for a type without a simple name), sorted by name: what a
    meta-program that evaluates candidates outside the function needs.
    """

    id: int
    kind: SiteKind
    span: Span
    text: str
    function: str
    value_type: str = "void"
    condition: bool = False
    side_effect_free: bool = True
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    order: int = 0
    variables: tuple[tuple[str, str], ...] = ()


PARAM = "__CR_PARAM"
"""How a candidate's ``code`` reads its parameter (:attr:`Candidate.param`)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One element of the search space: site ``site`` changed by ``schema``.

    ``code`` is what the meta-program runs, as C text over the variables
    visible at the site and, for EXPR sites, ``__cr_e`` (the value of the
    original expression, evaluated once by the site):

    - EXPR site: an expression of the site's value type, e.g.
      ``"x >= y"``, ``"__cr_e && (n != 0)"``; at a condition site it is
      used as a truth value (``(code) != 0``: it may be a pointer) and
      ``__cr_e`` is the original's truth value;
    - STMT site, GUARD: the guard condition (``"0"`` for deletion);
    - STMT site, ASSIGNMENT and INITIALIZATION: the right-hand side, with
      the assigned variable in ``lhs``;
    - STMT site, COPY: the copied statement as a statement expression,
      ``({ if (s == 2) putchar('0'); })``, run before the statement.

    ``group``: candidates of one site are compared by value only within a
    group (an assignment's left-hand side; a schema whose candidates are
    never partitioned gets a group of its own per candidate).
    ``replacement``: the text that replaces ``site.span`` in the patched
    program (so the patch is ``original[:start] + replacement +
    original[end:]``).  ``cost``: f1x's syntactic cost in tenths: ten per AST
    node added, changed or removed (§5), less f1x's preference by rule (two
    for its preferred rules, one for refinement; ``exprs.tenths``); lower is
    tried first.
    ``variables``: the names the candidate reads (for the dependency-based
    relation, §3.4).  ``param``: f1x's parameter (§5; its PARAMETER node):
    when not None, ``code`` reads the integer constant ``param`` (type
    ``int``) as :data:`PARAM`, so that the candidates that differ only in
    it share one body in the meta-program (``replacement`` spells it);
    only at EXPR sites, in guards and in guarded output calls.

    ``tail``: FORMAT candidates with fewer conversions than the literal
    (a line of output dropped) only: the offsets (0-based, end exclusive)
    of the original's text the patch deletes besides, the arguments no
    conversion consumes any more (``, n`` of ``printf("%d\\n", n)`` ->
    ``printf("\\n")``), side-effect free; the meta-program runs the call
    with them, which C ignores (C11 7.21.6.1p2).

    OUTPUT candidates: ``code`` is the output call (a newline or a space
    written before the statement), or, when ``lhs`` holds the output call,
    the atom that guards it (``if (code) lhs; s``: a separator written on
    some iterations of a loop), compared by its value within the call's
    group.
    """

    id: int
    site: int
    schema: Schema
    code: str
    replacement: str
    cost: int
    group: int = 0
    lhs: str = ""
    variables: tuple[str, ...] = ()
    param: int | None = None
    tail: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class SearchSpace:
    """Sites and candidates of one program, candidates in the order they
    are tried (cost, then ``Site.order``, ``Site.id``, shorter replacement, replacement text:
    deterministic).  ``skipped``
    lists ``(point, why)`` for places that are not sites (unsupported
    types, file-scope initializers, macros…): each is noted, none fails.
    ``pruned``: per anti-pattern rule (its number, ``"A1"``…), the
    candidates it removed, for the rules that were on."""

    sites: tuple[Site, ...]
    candidates: tuple[Candidate, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    pruned: tuple[tuple[str, int], ...] = ()
