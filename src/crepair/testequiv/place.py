"""A place of the user's program where candidates may differ, before the
space builder numbers it as a :class:`~crepair.testequiv.candidates.Site`
(found by :mod:`crepair.testequiv.sites`, read by the space builder and
the anti-patterns)."""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from crepair.frontend.spans import Span
from crepair.testequiv.candidates import SiteKind
from crepair.testequiv.ctext import COMMA
from crepair.testequiv.roles import Roles
from crepair.testequiv.scope import Function, Var
from crepair.typed.model import CType


@dataclass(slots=True)
class Place:
    """A site before numbering.  ``node``: the expression (EXPR), the
    statement (STMT; an expression statement's expression) or the Decl
    (DECL).  ``scope``: the variables visible there by name.  ``block``:
    text inserted before the statement needs braces (it is the only
    statement of a branch or loop); ``dangling``: it is the then-branch of
    an ``if`` with an ``else`` (a guard needs braces).  ``literal``: the
    EXPR is an output call's string literal, a FORMAT site
    (:mod:`crepair.testequiv.formats`), whose conversions consume
    arguments of ``format_types`` (None: written as is, ``puts``);
    ``format_ends``: the end offsets of the literal and of each argument
    after it, ``format_pure``: how many of the last arguments are free of
    side effects (a candidate with fewer conversions may drop those).
    What the anti-patterns (:mod:`crepair.testequiv.antipatterns`) read:
    ``bound``: the EXPR is (inside) a loop condition or an array
    subscript; ``alone``: the STMT is the only statement of its block or
    branch; ``before_if``: the names the condition of the ``if`` right
    after the STMT reads; ``loop_reads``: the names the conditions of the
    loops around the STMT (or the FORMAT literal) read; ``members``: the spans (offsets, end
    exclusive) of the constants inside the place of a membership test
    ``x == c1 || x == c2 ...`` (or ``x != c1 && x != c2 ...``); ``roles``:
    what else the rules read (:mod:`crepair.testequiv.roles`).
    ``output_only``: a compound statement (``if``, a loop, ``switch``) in
    a loop body, a STMT place for OUTPUT candidates only (an output call
    written before it).  ``after_loop``: the STMT directly follows a loop
    in its block, whose span this is (offsets, end exclusive): where COPY
    candidates insert a statement of that loop (:mod:`crepair.testequiv.copies`)."""

    kind: SiteKind
    node: c_ast.Node
    span: Span
    function: Function
    type: CType
    scope: dict[str, Var]
    condition: bool = False
    side_effect_free: bool = True
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    block: bool = False
    dangling: bool = False
    context: int = COMMA
    literal: bool = False
    format_types: tuple[CType, ...] | None = None
    format_ends: tuple[int, ...] = ()
    format_pure: int = 0
    bound: bool = False
    alone: bool = False
    before_if: tuple[str, ...] = ()
    loop_reads: tuple[str, ...] = ()
    members: tuple[tuple[int, int], ...] = ()
    roles: Roles = Roles()
    output_only: bool = False
    after_loop: tuple[int, int] | None = None
