"""The search space of test-driven repair, built from a parsed C program.

f1x (Mechtaev, Gao, Tan, Roychoudhury, "Test-Equivalence Analysis for
Automatic Patch Generation", TOSEM'18) defines its search space by the
transformation schemas M of Fig. 10, adapted to C in §5:

- EXPRESSION: change one node of a side-effect-free integer or pointer
  expression (:mod:`crepair.testequiv.exprs`); a condition may also be
  replaced by an atom or negated;
- REFINEMENT: ``e && b`` and ``e || b`` for a condition ``e``;
- GUARD: ``if (b) s`` for a statement ``s``; ``if (0) s`` deletes it;
- ASSIGNMENT: ``v = e; s``;
- INITIALIZATION: ``int x;`` becomes ``int x = 0;`` (Prophet's schema);
- FORMAT: one small edit of an output call's string literal (crepair's
  own, :mod:`crepair.testequiv.formats`), cost 1, each candidate in a
  group of its own (never merged by value); in a loop also
  ``(b) ? t : f`` choosing the literal with or without a separator, ``b``
  an atom over a variable the loop conditions read (cost 4, as a guard),
  one group per pair ``t, f`` (compared by the chosen literal's address:
  equal addresses print the same text; candidates differing only in the
  parameter share one body, so one literal);
- COPY: after a loop, a statement of its body written again (crepair's
  own, :mod:`crepair.testequiv.copies`; cost: the nodes it adds, at least
  a guard's 4), each in a group of its own: the last item of the input
  left pending;
- OUTPUT: a newline written before a statement, ``putchar('\\n'); s``
  (``printf("\\n"); s`` when the program never calls ``putchar``), in a
  program that includes ``<stdio.h>`` (crepair's own, cost 2: a call and
  a constant): a missing final or row-ending newline, the most common
  presentation error of students' programs.  Inside a loop body, also a
  space, and a space or newline written on some iterations only, ``if
  (b) putchar(' '); s`` (``b`` an atom over a variable a loop condition
  reads, with no parameter; cost 5: a separator between items, the next
  most common one),
  compared by ``b``'s value; there the places are also the compound
  statements (``if``, loops, ``switch``), for OUTPUT only.

Atoms ``b`` are ``x op y``, ``x op c`` (``op`` relational, ``x``, ``y``
visible integer variables, ``c`` a constant of the site or f1x's condition
parameter ``0..max_condition_parameter``, 64 as f1x's
``maxConditionParameter``) and ``p == NULL``, ``p != NULL`` for pointers.
Atoms that differ only in the parameter share one body in the
meta-program (:attr:`Candidate.param`), which keeps it small: the space
grows ~10x at conditions and guards, the meta-program's code does not.
Cost is f1x's: the number of AST nodes added, changed or removed (§5): 1 for an operator, a leaf, a negation or an
initializer; 2 for ``x ± 1`` or a deletion (an ``if`` and a ``0``); the
tree distance for an atom replacing a condition (the changed nodes when
both compare two leaves, else the condition's size + 2); 3 for an
inserted ``v = x``, 5 for ``v = v ± 1``; 4 for a refinement or a guard
(the ``&&``, ``||`` or ``if`` and a three-node atom).  A patched program
is proposed once: a change inside a smaller site is that site's, and of
candidates making the same text the first in search order is kept.
Candidates that match an anti-pattern (Tan et al., FSE'16:
:mod:`crepair.testequiv.antipatterns`) are left out, and counted.

Bounds (:class:`SpaceOptions`): the variables of a site are ranked, those
in the site first, then by the distance in lines to their nearest use in
the function, and only the first ``max_variables`` (5) integer and pointer
variables take part (``max_pointers`` (2) pointers in atoms); constants
are 0, 1 and the function's most frequent ones, ``max_constants`` (6) in
all; a constant may also become ``0..max_parameter`` (10, f1x's
parameter) and the given ``constants`` (a reference's).  Past the first
``max_candidates`` (200,000) of the search order the candidates are dropped (noted in ``skipped``): the meta-program
embeds every distinct candidate body, and gcc -O0 compiles 40,000 small
cases in 4 s when each site has its own function (25 s as one switch).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from pycparser import c_ast

from crepair.frontend.parse import CProgram
from crepair.frontend.tokens import tokenize
from crepair.testequiv.antipatterns import AntiPattern
from crepair.testequiv.pruning import pruned
from crepair.testequiv.assignops import operator_changes
from crepair.testequiv.atoms import Atom, is_concrete, site_atoms
from crepair.testequiv.candidates import Candidate, Schema, SearchSpace, Site, SiteKind
from crepair.testequiv.copies import COPY_COST, loop_copies
from crepair.testequiv.ctext import BINARY, UNARY, names_in, node_precedence, patch_key, place, text_precedence
from crepair.testequiv.formats import dropped_arguments, format_edits, literal_replacements, separator_choices
from crepair.testequiv.exprs import GOOD, OK, RELATIONAL, Mutator, Pool, size, tenths
from crepair.testequiv.place import Place
from crepair.testequiv.sites import collect
from crepair.testequiv.scope import Var, VarKind
from crepair.testequiv.verbatim import Verbatim
from crepair.typed import infer, model

ATOM_COST, GUARD_COST, DELETE_COST, INIT_COST, FORMAT_COST, OUTPUT_COST = 3, 4, 2, 1, 1, 2
OUTPUT_GROUP = 1 << 30  # an OUTPUT candidate is compared with no other (its own group at its site)
OPERATOR_GROUP = 1 << 29  # an assignment's operator changes: compared with each other by the value they assign
COPY_GROUP = 1 << 28  # a COPY candidate is compared with no other


@dataclass(frozen=True, slots=True)
class SpaceOptions:
    """Bounds of the space (see the module docstring); ``schemas``: the
    schemas to generate; ``anti_patterns``: the rules whose candidates are
    left out (:mod:`crepair.testequiv.antipatterns`; all by default);
    ``literals``: string literals (C source) that may replace a format's
    literal whose conversions they share (a reference's output literals;
    :func:`~crepair.testequiv.formats.literal_replacements`); ``constants``:
    more ``(value, C spelling)`` a constant may become (a reference's: ``EOF``)."""

    max_variables: int = 5
    max_pointers: int = 2
    max_constants: int = 6
    max_parameter: int = 10
    max_condition_parameter: int = 64
    max_candidates: int = 200_000
    schemas: frozenset[Schema] = field(default_factory=lambda: frozenset(Schema))
    anti_patterns: frozenset[AntiPattern] = field(default_factory=lambda: frozenset(AntiPattern))
    literals: tuple[str, ...] = ()
    constants: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class _Draft:
    cost: int
    place: int
    schema: Schema
    code: str
    replacement: str
    group: int = 0
    lhs: str = ""
    param: int | None = None
    tail: tuple[int, int] | None = None


def build_space(program: CProgram, lines: Collection[int] | None = None, rank: Mapping[int, float] | None = None,
                options: SpaceOptions = SpaceOptions()) -> SearchSpace:
    """The search space of ``program`` (loaded with ``real_c=True``).

    ``lines``: 1-based lines of the user's file; only sites whose first
    line is among them (None: every site).  ``rank``: line -> rank, lower
    is more suspicious; sites are ordered by the rank of their first line
    (unranked lines last), then by position.  Candidates are in search
    order: (cost, site order, site id, shorter replacement, replacement); ids are dense.  Sites
    are numbered in source order; sites without candidates are left out, but for the statements outside
    ``lines``: numbered last, they count a run's steps (``CREPAIR_STEPS``): a loop there ends too.
    Nothing is raised for constructs that are not sites: they are noted
    in ``skipped``.  ``program`` is not mutated.
    """
    types = infer.Types(program.ast)
    places, notes = collect(program, types)
    wanted = None if lines is None else set(lines)
    everywhere = places
    if wanted is not None:  # and, for COPY candidates, the statement after a loop with a site on the lines
        places = [p for p in places if p.span.line in wanted or Schema.COPY in options.schemas and p.after_loop and
                  any(q.span.line in wanted and p.after_loop[0] <= q.span.start < p.after_loop[1] for q in everywhere)]
    taken = {id(p) for p in places}
    counting = [p for p in everywhere if p.kind == SiteKind.STMT and wanted is not None and id(p) not in taken]
    places.sort(key=lambda p: (p.span.start, -p.span.end, p.kind.value))
    builder = _Builder(program, types, options, everywhere, wanted)
    drafts = [d for i, p in enumerate(places) for d in builder.candidates(i, p, places)]
    ranks = rank or {}
    order = sorted(range(len(places)), key=lambda i: (ranks.get(places[i].span.line, float("inf")), i))
    position = {i: k for k, i in enumerate(order)}
    drafts.sort(key=lambda d: (d.cost, position[d.place], d.place, len(d.replacement), d.replacement))
    kept, seen = [], set()
    for d in drafts:
        key = patch_key(program.original, places[d.place].span, d.replacement)
        if key not in seen:
            seen.add(key)
            kept.append(d)
    kept, removed = pruned(kept, places, program.original, options.anti_patterns, lambda d: d.place)
    if len(kept) > options.max_candidates:
        dropped = kept[options.max_candidates:]
        notes.append((f"{program.path}:1:1", f"{len(dropped)} candidates of cost {dropped[0].cost} or more "
                      f"beyond max_candidates={options.max_candidates} left out"))
        kept = kept[:options.max_candidates]
    used = sorted({d.place for d in kept})
    site_id = {p: k for k, p in enumerate(used)}
    site_order = {p: k for k, p in enumerate(sorted(used, key=lambda p: position[p]))}
    names: dict[int, set[str]] = {p: set() for p in used}
    candidates = []
    for j, d in enumerate(kept):
        read = names_in(d.code, places[d.place].scope)
        lhs = names_in(d.lhs, places[d.place].scope) if d.schema is Schema.EXPRESSION else [d.lhs]  # l of l op= r
        names[d.place].update(read, lhs if d.lhs and d.schema is not Schema.OUTPUT else [])
        candidates.append(Candidate(j, site_id[d.place], d.schema, d.code, d.replacement, d.cost, d.group, d.lhs, read,
                                    d.param, d.tail))
    sites = tuple(_site(program, places[p], site_id[p], site_order[p], names[p]) for p in used)
    sites += tuple(_site(program, p, len(used) + k, len(used) + k, set()) for k, p in enumerate(counting))
    return SearchSpace(sites, tuple(candidates), tuple(notes), tuple((r.value, n) for r, n in removed.items()))


def _site(program: CProgram, p: Place, ident: int, order: int, names: set[str]) -> Site:
    text = program.original[p.span.start:p.span.end]
    value_type = p.type.text if p.kind != SiteKind.STMT else "void"
    own = {p.node.name: p.type} if p.kind == SiteKind.DECL else {}
    variables = tuple((n, model.decay(own[n] if n in own else p.scope[n].type).text) for n in sorted(names))
    return Site(ident, p.kind, p.span, text, p.function.name, value_type, p.condition, p.side_effect_free,
                p.reads, p.writes, order, variables)


_STDIO = re.compile(r"^\s*#\s*include\s*<stdio\.h>", re.M)
_NULL_HEADERS = re.compile(r"^\s*#\s*include\s*<(stdio|stdlib|string|stddef|time|locale|wchar|unistd)\.h>", re.M)


class _Builder:
    def __init__(self, program: CProgram, types: infer.Types, options: SpaceOptions, everywhere: list[Place],
                 wanted: set[int] | None):
        self._original = program.original
        self._everywhere, self._wanted = everywhere, wanted  # every place (the sources of copies); the sites' lines
        self._options = options
        self._verbatim = Verbatim(program)
        self._mutator = Mutator(program, types, self._verbatim)
        self._types = types
        self._null = "NULL" if _NULL_HEADERS.search(program.original) else "0"
        self._newline = (None if not _STDIO.search(program.original) else "putchar('\\n')"
                         if re.search(r"\bputchar\s*\(", program.original) else 'printf("\\n")')

    def candidates(self, i: int, p: Place, places: list[Place]) -> list[_Draft]:
        o = self._options
        ints = self._ranked(p, lambda v: v.integer, o.max_variables)
        ptrs = self._ranked(p, lambda v: v.pointer, o.max_variables)
        consts = self._constants(p)
        schemas = o.schemas
        out: list[_Draft] = []
        if p.kind == SiteKind.DECL:
            if Schema.INITIALIZATION in schemas:
                name = p.node.name
                out.append(_Draft(tenths(INIT_COST), i, Schema.INITIALIZATION, "0", f"{name} = 0", 0, name))
            return out
        atoms = site_atoms(ints, ptrs[:o.max_pointers], consts, self._null, o.max_condition_parameter)
        if p.literal:
            return self._format(i, p, atoms) if Schema.FORMAT in schemas else out
        if p.kind == SiteKind.STMT:
            copies = loop_copies(p, self._everywhere, self._original) if Schema.COPY in schemas else []
            here = self._wanted is None or p.span.line in self._wanted
            return (self._statement(i, p, atoms, ints, consts) if here else []) + [
                _Draft(tenths(max(COPY_COST, c.nodes)), i, Schema.COPY, c.code, c.replacement, COPY_GROUP + k)
                for k, c in enumerate(copies)]
        if Schema.EXPRESSION in schemas and p.side_effect_free:
            params = tuple((v, str(v)) for v in range(o.max_parameter + 1))
            spare = _merge(consts, p.function.constants, params, o.constants)  # for a constant
            pool = Pool(tuple(ints), tuple(ptrs), tuple(consts), spare, self._null)
            inner = [(q.span.start, q.span.end) for q in places if q.kind == SiteKind.EXPR and q.side_effect_free
                     and p.span.start <= q.span.start and q.span.end <= p.span.end and q.span != p.span]
            for ch in self._mutator.changes(p, pool, inner):
                repl = self._original[p.span.start:ch.start] + ch.text + self._original[ch.end:p.span.end]
                out.append(_Draft(ch.cost, i, Schema.EXPRESSION, repl, repl))
        if p.condition:
            out.extend(self._condition(i, p, atoms))
        return out

    def _format(self, i: int, p: Place, atoms: list[Atom]) -> list[_Draft]:
        """FORMAT candidates: the literal's small edits, and in a loop the
        conditional formats ``(b) ? t : f`` (:func:`separator_choices`)
        whose atom ``b`` compares a variable a loop condition around it
        reads (cost of an edit and an atom, as a guard)."""
        text = self._original[p.span.start:p.span.end]
        edits = format_edits(text, p.format_types)
        edits += [e for e in literal_replacements(text, p.format_types, self._options.literals) if e not in edits]
        tails = [dropped_arguments(e, p.format_ends, p.format_pure) for e in edits]  # None: an argument to keep
        out = [_Draft(tenths(FORMAT_COST), i, Schema.FORMAT, e, e, group, tail=t if t[0] < t[1] else None)
               for group, (e, t) in enumerate(zip(edits, tails), start=1) if t is not None]
        group = len(edits)
        for when_true, when_false in separator_choices(text) if p.loop_reads else ():
            group += 1  # one group per pair: its candidates yield one of two literals, compared by address
            for a in (a for a in atoms if a.left in p.loop_reads and a.right != self._null):
                bonus = 0 if is_concrete(a.right, self._null) else GOOD
                out.append(_Draft(tenths(FORMAT_COST + ATOM_COST, bonus), i, Schema.FORMAT,
                                  f"({a.code}) ? {when_true} : {when_false}",
                                  f"({a.text}) ? {when_true} : {when_false}", group, param=a.param))
        return out

    def _condition(self, i: int, p: Place, atoms: list[Atom]) -> list[_Draft]:
        schemas = self._options.schemas
        text = self._original[p.span.start:p.span.end]
        context = self._mutator.root_context(p)
        level = text_precedence(text, node_precedence(p.node))
        out: list[_Draft] = []
        flat = _flat(text)
        root = _root_parts(p.node, self._mutator)
        if Schema.EXPRESSION in schemas and not _is_predicate(p.node):
            negated = "!" + (text if level >= UNARY else f"({text})")
            out.append(_Draft(tenths(1, GOOD), i, Schema.EXPRESSION, "!__cr_e", place(negated, context, UNARY)))
        for a in atoms:
            if _flat(a.text) == flat:
                continue
            concrete = is_concrete(a.right, self._null)
            if Schema.EXPRESSION in schemas and p.side_effect_free:
                cost = tenths(_distance(root, (a.left, a.op, a.right)), 0 if concrete else GOOD)
                out.append(_Draft(cost, i, Schema.EXPRESSION, a.code, place(a.text, context, BINARY[a.op]),
                                  param=a.param))
            if Schema.REFINEMENT in schemas:
                for joint in ("&&", "||"):
                    e = text if level >= BINARY[joint] else f"({text})"
                    repl = place(f"{e} {joint} {a.text}", context, BINARY[joint])
                    out.append(_Draft(tenths(1 + ATOM_COST, 0 if concrete else OK), i, Schema.REFINEMENT,
                                      f"__cr_e {joint} ({a.code})", repl, param=a.param))
        return out

    def _statement(self, i: int, p: Place, atoms, ints: list[Var], consts) -> list[_Draft]:
        schemas = self._options.schemas
        s = self._original[p.span.start:p.span.end]
        out: list[_Draft] = []
        if p.output_only:
            return self._output(i, p, s, atoms) if Schema.OUTPUT in schemas and self._newline is not None else out
        if Schema.GUARD in schemas:
            wrap = "{{ {} }}" if p.dangling else "{}"
            out.append(_Draft(tenths(DELETE_COST, GOOD), i, Schema.GUARD, "0", wrap.format(f"if (0) {s}")))
            for a in atoms:
                bonus = 0 if is_concrete(a.right, self._null) else GOOD
                out.append(_Draft(tenths(GUARD_COST, bonus), i, Schema.GUARD, a.code,
                                  wrap.format(f"if ({a.text}) {s}"), param=a.param))
        if Schema.ASSIGNMENT in schemas:
            wrap = "{{ {} }}" if p.block else "{}"
            targets = sorted(v.name for v in ints if not v.type.const)
            for group, v in enumerate(targets, start=1):
                if v in p.writes and v not in p.reads and "*" not in p.reads:
                    continue  # overwritten at once
                values = [(w.name, 3) for w in ints if w.name != v]
                values += [(spelling, 3) for _, spelling in consts]
                values += [(f"{v} + 1", 5), (f"{v} - 1", 5)]
                for e, cost in values:
                    out.append(_Draft(tenths(cost), i, Schema.ASSIGNMENT, e, wrap.format(f"{v} = {e}; {s}"), group, v))
        if Schema.EXPRESSION in schemas and isinstance(p.node, c_ast.Assignment):
            lhs, rhs = (self._mutator.text_of(n) for n in (p.node.lvalue, p.node.rvalue))
            for ch in operator_changes(p.node, s, lhs, rhs, self._types, p.scope):
                out.append(_Draft(tenths(1, GOOD), i, Schema.EXPRESSION, ch.code, ch.replacement, OPERATOR_GROUP, lhs))
        if Schema.OUTPUT in schemas and self._newline is not None:
            out += self._output(i, p, s, atoms)
        return out

    def _output(self, i: int, p: Place, s: str, atoms: list[Atom]) -> list[_Draft]:
        """OUTPUT candidates before the statement ``s``: a newline; in a
        loop also a space, and a space or newline written on some
        iterations only, ``if (b) putchar(' '); s`` (``b`` an atom over a
        variable a loop condition around reads and another variable or a
        constant of the function, not f1x's parameter: a separator
        between items is written from or up to a bound the loops know),
        compared by ``b``'s value within the group of its call."""
        line_start = self._original.rfind("\n", 0, p.span.start) + 1
        indent = self._original[line_start:p.span.start]

        def before(call: str) -> str:
            return (f"{{ {call} {s} }}" if p.block else f"{call}\n{indent}{s}" if not indent.strip()
                    else f"{call} {s}")

        out = [_Draft(tenths(OUTPUT_COST), i, Schema.OUTPUT, self._newline, before(f"{self._newline};"),
                      OUTPUT_GROUP)]
        if not p.loop_reads:
            return out
        space = self._newline.replace("\\n", " ")
        out.append(_Draft(tenths(OUTPUT_COST), i, Schema.OUTPUT, space, before(f"{space};"), OUTPUT_GROUP + 1))
        for group, call in enumerate((space, self._newline), start=OUTPUT_GROUP + 2):
            for a in (a for a in atoms if a.left in p.loop_reads and a.right != self._null and a.param is None):
                bonus = 0 if is_concrete(a.right, self._null) else GOOD
                out.append(_Draft(tenths(OUTPUT_COST + ATOM_COST, bonus), i, Schema.OUTPUT, a.code,
                                  before(f"if ({a.text}) {call};"), group, call))
        return out

    def _ranked(self, p: Place, keep, limit: int) -> list[Var]:
        text = self._original[p.span.start:p.span.end]
        own = {t.text for t in tokenize(text, skip_directives=False)}
        line = p.span.line
        exclude = p.node.name if p.kind == SiteKind.DECL else None

        def key(v: Var):
            uses = p.function.uses.get(v.name, [])
            far = min((abs(u - line) for u in uses), default=1 << 30)
            return (v.name not in own, far, v.kind != VarKind.LOCAL, v.name)

        chosen = sorted((v for v in p.scope.values() if keep(v) and v.name != exclude), key=key)
        return chosen[:limit]

    def _constants(self, p: Place) -> list[tuple[int, str]]:
        out = [(0, "0"), (1, "1")]
        for value, spelling in p.function.constants.items():
            if len(out) >= self._options.max_constants:
                break
            if value not in (0, 1):
                out.append((value, spelling))
        return out


def _merge(*groups) -> tuple[tuple[int, str], ...]:
    seen: dict[int, str] = {}
    for group in groups:
        for value, spelling in (group.items() if isinstance(group, dict) else group):
            seen.setdefault(value, spelling)
    return tuple(seen.items())


def _flat(text: str) -> str:
    return "".join(text.split())


def _is_predicate(node: c_ast.Node) -> bool:
    return (isinstance(node, c_ast.BinaryOp) and node.op in RELATIONAL) or (
        isinstance(node, c_ast.UnaryOp) and node.op == "!")


def _root_parts(node: c_ast.Node, mutator: Mutator) -> tuple[str, str, str] | int:
    """A comparison of two leaves as (left, op, right), else its size."""
    n = size(node)
    if isinstance(node, c_ast.BinaryOp) and node.op in RELATIONAL and n == 3:
        return _flat(mutator.text_of(node.left)), node.op, _flat(mutator.text_of(node.right))
    return n


def _distance(root: tuple[str, str, str] | int, atom: tuple[str, str, str]) -> int:
    """f1x's distance of substituting a whole condition by an atom (its
    ``substitutionDistance``: depth of the old plus depth of the new, less
    one), with depths counted as here in nodes: every atom costs the same
    at one site, and a change of one leaf is the leaf schema's (cheaper)."""
    if isinstance(root, tuple):
        return 3
    return root + ATOM_COST - 1
