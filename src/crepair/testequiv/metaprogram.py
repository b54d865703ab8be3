"""The meta-program: one program holding every candidate of a search space.

Every site is instrumented once in the user's source, by exact span edits
of the original text; the result is compiled once (gcc, ``-std=gnu99`` or
any GNU dialect: statement expressions, ``__typeof__``) and the candidate
to run is chosen at run time (``CREPAIR_CANDIDATE``).  While it runs, the
runtime computes the running candidate's value-based test-equivalence class
on the fly (the augmented semantics of Fig. 7 and the value projection of
Algorithm 1, TOSEM'18 §3.3; f1x's implementation, §5).  The environment and
the partition and trace files are described in
:mod:`crepair.testequiv.protocol`.

Layout of the text returned by :func:`instrument`: generated tables (per
candidate its site, group, flags and parameter; per site its kind), the runtime
``runtime/crepair_rt.h`` pasted whole (it includes no header), then
``#line 1 "<file>"`` and the user's text with the sites replaced.  The
inserted code holds no newline, so compiler messages keep the user's line
numbers (only a multi-line EXPR site containing a preprocessor directive
shifts the lines after it).

Sites (the running candidate is ``r``; "tracked" candidates are the others
of ``r``'s site and group listed in the partition file):

- EXPR ``e`` becomes a statement expression.  Original program, or ``r``
  elsewhere: ``e`` is evaluated once, as before (a condition as ``!!(e)``).
  ``r`` here: ``e`` is evaluated into ``__cr_e`` (typed
  ``__typeof__(0 ? (e) : (e))``, i.e. ``e``'s promoted, unqualified type;
  ``int`` 0/1 for conditions) when ``r`` reads ``__cr_e``, or, guarded,
  when a tracked candidate does; then every tracked candidate is evaluated
  under a guard (a SIGFPE/SIGSEGV/SIGBUS/SIGILL it raises is caught by the
  runtime's handler, which ``_longjmp``s back and drops it), then ``r``
  itself, unguarded (it crashes as the patched program does); the site
  yields ``r``'s value converted to ``__cr_e``'s type.  A ``switch`` over
  candidate ids, in the site's scope, holds every candidate's code, one
  body per distinct code (candidates that differ only in their parameter,
  ``__CR_PARAM``, read from the table ``__cr_cand_param``, share it).  At a
  site with side effects (``side_effect_free`` false) only ``r`` is
  evaluated, and ``e`` exactly once if ``r`` reads ``__cr_e``, else not at
  all, as in the patched program.
- STMT ``s`` becomes ``{ <site code> if (__cr_g) s }``: GUARD candidates'
  value is ``!!(code)`` and ``r``'s sets ``__cr_g``; ASSIGNMENT candidates'
  value is ``code`` converted to ``lhs``'s (promoted) type and ``r`` assigns
  it to ``lhs`` before ``s``; EXPRESSION candidates (an assignment's
  operator changed, :mod:`crepair.testequiv.assignops`) likewise, but
  ``r`` assigns in place of ``s`` (``__cr_g`` cleared); OUTPUT candidates (an output call, never
  tracked: it has side effects) have the value 0 and ``r`` makes its call
  before ``s``; COPY candidates (a statement expression) likewise.  Only candidates of one group are compared.
- DECL ``x`` (a declarator's name, as the space builder gives it) becomes
  ``x = ({ typeof(x) v = x; if (r is one of the site's) v = code; v; })``:
  unless running, the variable is initialized with its own indeterminate
  value, as uninitialized (gcc -O0 reads the same stack slot).
- DECL ``d`` (the whole declaration, ``;`` included) becomes ``d if (r is
  here) switch (r) { case id: lhs = (code); break; ... }``; never
  partitioned.

Values are compared as ``long long`` (pointers through ``intptr_t``;
condition and guard values as 0/1); a value the conversion does not give
back exactly (a float with a fraction) matches nothing.

Nesting: sites are nested by span containment (an EXPR inside a STMT's
statement, a condition operand inside a larger condition; equal spans nest
in id order); an inner site's code is generated into the outer one's text,
so each site's text appears once.  Sites that overlap without nesting raise
``InternalError``.

Contract on the search space (the builder's side): EXPR sites are integer
or pointer rvalues in evaluated, non-constant contexts inside functions;
STMT spans are statements (never declarations, labels excluded); every
candidate's code is one line without comments, side-effect-free (a code
that may have side effects is evaluated only when running), and one that
reads ``__cr_e`` evaluates the original expression first, as ``e && b`` does;
its value has the site's type (else the meta-program converts it to
``__cr_e``'s type where the patched program might not); ``replacement``
must keep the code one operand in its context (parenthesized), as the
meta-program does.

Compile the meta-program, and the patched programs it stands for, at
``-O0``: gcc folds some undefined behaviour away when optimizing (``0 % b``
with ``b == 0``), differently in each program.  Even at ``-O0`` it drops a
trapping division whose value cannot matter (``(c % b > 0) && 0 > 0``) in
the patched program, where the meta-program still evaluates it and
crashes: a candidate's undefined behaviour is the one thing the two may
disagree on.  Linux only.  The running
candidate's site must not run in two threads at once.  The runtime's
handlers for SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT, SIGTRAP and SIGSYS
are installed at the first execution of the running site (or the first
traced site) and hand over to the program's own handlers at a crash; in
a program that installs its own for one of them later, a tracked
candidate's fault reaches the program's handler, and a program that
recovers from a crash has its class written at the crash (the insurance
holds in both).

Source: Mechtaev, Gao, Tan, Roychoudhury, "Test-Equivalence Analysis for
Automatic Patch Generation", TOSEM'18, §3.3 (Fig. 7, Algorithm 1), §5.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from crepair.errors import InternalError
from crepair.testequiv.candidates import PARAM, Candidate, Schema, SearchSpace, Site, SiteKind
from crepair.testequiv.protocol import (
    CANDIDATE_ENV,
    ORIGINAL,
    PARTITION_ENV,
    RUNTIME_HEADER,
    TRACE_ENV,
    ProcessTrace,
    partition_generation,
    read_partition,
    read_trace,
    run_environment,
    write_partition,
)

__all__ = [
    "CANDIDATE_ENV", "ORIGINAL", "PARTITION_ENV", "RUNTIME_HEADER", "TRACE_ENV", "ProcessTrace", "instrument",
    "partition_generation", "read_partition", "read_trace", "run_environment", "runtime_text", "write_partition",
]

_USES_E = re.compile(r"\b__cr_e\b")
_SIDE_EFFECTS = re.compile(r"\+\+|--|<<=|>>=|[-+*/%&|^]=|(?<![=!<>])=(?!=)|\b(?!sizeof\b)[A-Za-z_]\w*\s*\(")
_COMMENT_OR_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_LITERALS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_KIND_CODE = {SiteKind.EXPR: 1, SiteKind.STMT: 2, SiteKind.DECL: 3}
_TRACKS = 4
_USES_E_FLAG, _OPAQUE_FLAG = 1, 2  # __CR_USES_E, __CR_OPAQUE of crepair_rt.h
_SCHEMAS = {
    SiteKind.EXPR: {Schema.EXPRESSION, Schema.REFINEMENT, Schema.FORMAT},
    SiteKind.STMT: {Schema.GUARD, Schema.ASSIGNMENT, Schema.OUTPUT, Schema.COPY, Schema.EXPRESSION},
    SiteKind.DECL: {Schema.INITIALIZATION},
}

# Evaluates the tracked candidates (guarded) and the running one; a guarded
# fault comes back to the one __cr_setjmp of the site, before it (the
# volatile counter has moved past the faulting candidate).
_LOOP = "while ((__cr_c = __cr_pick(__cr_i++)) != -2) if (__cr_c >= 0) { switch (__cr_c) { %s } %s }"


def runtime_text() -> str:
    """The C runtime pasted into every meta-program."""
    return RUNTIME_HEADER.read_text()


def instrument(original: str, space: SearchSpace, *, file: str | None = None, offset: int | None = None) -> str:
    """The meta-program of ``original`` (the whole text of the file the
    sites of ``space`` are in) as C text.  ``file``: the name given to
    ``#line`` (default: the sites' ``span.file``).  ``offset``: None for a
    program of its own; else the meta-program is one of several files
    linked together, and ``CREPAIR_CANDIDATE`` and the partition file name
    its candidate ``c`` as ``offset + c`` (the files' id ranges must not
    overlap); it then behaves as the original, and opens neither the
    partition nor the trace file, unless it holds the running candidate
    (the trace lists its own site ids).  Arguments are not mutated.
    Raises ``ValueError`` for a negative ``offset`` and ``InternalError``
    when ``space`` breaks the contract of the module docstring (a site's ``text`` differs from its span in
    ``original``, ids are not dense, spans overlap without nesting, a
    candidate's schema does not fit its site's kind, a code spans lines).

    >>> from crepair.records import text_span
    >>> src = "int f(int x) { return x + 1; }\\n"
    >>> site = Site(0, SiteKind.EXPR, text_span("f.c", src, 22, 27), "x + 1", "f", "int")
    >>> space = SearchSpace((site,), (Candidate(0, 0, Schema.EXPRESSION, "x - 1", "(x - 1)", 1),))
    >>> instrument(src, space).splitlines()[-1][:47]
    'int f(int x) { return ({ typedef __typeof__(0 ?'
    >>> run_environment(0, partition="class.txt")
    {'CREPAIR_CANDIDATE': '0', 'CREPAIR_PARTITION': 'class.txt'}
    """
    if offset is not None and offset < 0:
        raise ValueError(f"offset {offset}: candidate ids are non-negative")
    sites = space.sites
    by_site: list[list[Candidate]] = [[] for _ in sites]
    for index, site in enumerate(sites):
        if site.id != index:
            raise InternalError(f"site ids are not dense: sites[{index}].id == {site.id}")
        if original[site.span.start:site.span.end] != site.text:
            raise InternalError(f"site {site.id} at {site.span}: its text is not the span of the original")
    for index, cand in enumerate(space.candidates):
        _check_candidate(index, cand, sites)
        by_site[cand.site].append(cand)
    chosen = [s for s in sites if by_site[s.id] or s.kind is not SiteKind.EXPR]
    name = file if file is not None else (sites[0].span.file if sites else "<input>")
    body = _render(original, 0, len(original), _nest(chosen), by_site)
    return "".join([_tables(space, offset), '#line 1 "crepair_rt.h"\n', runtime_text(),
                    f'\n#line 1 "{_c_string(name)}"\n', body])


def _check_candidate(index: int, cand: Candidate, sites: Sequence[Site]) -> None:
    if cand.id != index:
        raise InternalError(f"candidate ids are not dense: candidates[{index}].id == {cand.id}")
    if not 0 <= cand.site < len(sites):
        raise InternalError(f"candidate {cand.id}: no site {cand.site}")
    site = sites[cand.site]
    if cand.schema not in _SCHEMAS[site.kind]:
        raise InternalError(f"candidate {cand.id}: a {cand.schema.value} candidate at {site.kind.value} site {site.id}")
    if not _one_line_c(cand.code):
        raise InternalError(f"candidate {cand.id}: code {cand.code!r} is not one line of C without comments")
    if (cand.schema in (Schema.ASSIGNMENT, Schema.INITIALIZATION) or site.kind is SiteKind.STMT and
            cand.schema is Schema.EXPRESSION) and not cand.lhs.strip():
        raise InternalError(f"candidate {cand.id}: an {cand.schema.value} without lhs")
    if (cand.param is not None) != (PARAM in cand.code):
        raise InternalError(f"candidate {cand.id}: parameter {cand.param} but code {cand.code!r} (reads {PARAM}?)")
    if cand.param is not None and cand.schema in (Schema.ASSIGNMENT, Schema.INITIALIZATION):
        raise InternalError(f"candidate {cand.id}: a parameter in an {cand.schema.value} (only evaluated in a "
                            "site's switch (__cr_c), which assignments and DECL sites do not share)")
    if site.kind is not SiteKind.EXPR and _code_flags(cand.code) & _USES_E_FLAG:
        raise InternalError(f"candidate {cand.id}: __cr_e at a {site.kind.value} site")


# the same codes come again in each stage's space of one program: what is read of a code alone is kept
@functools.lru_cache(maxsize=1 << 16)
def _one_line_c(code: str) -> bool:
    """Whether ``code`` is one line of C without comments (outside its literals)."""
    bare = _LITERALS.sub('""', code)
    return not ("\n" in code or "//" in bare or "/*" in bare or not code.strip())


@functools.lru_cache(maxsize=1 << 16)
def _code_flags(code: str) -> int:
    """``_USES_E_FLAG`` when ``code`` reads ``__cr_e``, ``_OPAQUE_FLAG``
    when it may have side effects (outside its literals)."""
    bare = _LITERALS.sub('""', code)
    return (_USES_E_FLAG if _USES_E.search(bare) else 0) | (_OPAQUE_FLAG if _SIDE_EFFECTS.search(bare) else 0)


def _site_flags(site: Site) -> int:
    tracks = site.kind is SiteKind.STMT or (site.kind is SiteKind.EXPR and site.side_effect_free)
    return _KIND_CODE[site.kind] | (_TRACKS if tracks else 0)


def _tables(space: SearchSpace, offset: int | None) -> str:
    def table(ctype: str, name: str, values: list[int]) -> str:
        if 2 * sum(v != 0 for v in values) < len(values):  # mostly zeros: the others by designated initializers
            items = ", ".join(f"[{i}] = {v}" for i, v in enumerate(values) if v)
        else:
            items = ", ".join(map(str, values + [0]))
        return f"static const {ctype} {name}[{len(values) + 1}] = {{{items}}};\n"

    cands = space.candidates
    return "".join([
        "/* crepair meta-program (generated by crepair.testequiv.metaprogram; the runtime follows) */\n",
        f"#define __CR_NSITES {len(space.sites)}\n#define __CR_NCAND {len(cands)}\n",
        f"#define __CR_OFFSET {offset or 0}\n#define __CR_LINKED {0 if offset is None else 1}\n",
        table("int", "__cr_cand_site", [c.site for c in cands]),
        table("int", "__cr_cand_group", [c.group for c in cands]),
        table("unsigned char", "__cr_cand_flags", [_code_flags(c.code) for c in cands]),
        table("unsigned char", "__cr_site_flags", [_site_flags(s) for s in space.sites]),
        table("int", "__cr_cand_param", [c.param or 0 for c in cands]),
        f"#define {PARAM} (__cr_cand_param[__cr_c])\n",
    ])


_Tree = list[tuple[Site, "_Tree"]]


def _nest(sites: Sequence[Site]) -> _Tree:
    """The sites as a forest by span containment (equal spans: lower id outside)."""
    roots: _Tree = []
    stack: list[tuple[Site, _Tree]] = []
    for site in sorted(sites, key=lambda s: (s.span.start, -s.span.end, s.id)):
        while stack and stack[-1][0].span.end <= site.span.start and _bounds(stack[-1][0]) != _bounds(site):
            stack.pop()
        if stack and site.span.end > stack[-1][0].span.end:
            raise InternalError(f"sites {stack[-1][0].id} and {site.id} overlap without nesting at {site.span}")
        node: tuple[Site, _Tree] = (site, [])
        (stack[-1][1] if stack else roots).append(node)
        stack.append(node)
    return roots


def _bounds(site: Site) -> tuple[int, int]:
    return site.span.start, site.span.end


def _render(original: str, lo: int, hi: int, nodes: _Tree, by_site: list[list[Candidate]]) -> str:
    parts: list[str] = []
    pos = lo
    for site, children in nodes:
        parts.append(original[pos:site.span.start])
        inner = _render(original, site.span.start, site.span.end, children, by_site)
        parts.append(_SITE_CODE[site.kind](site, inner, by_site[site.id]))
        pos = site.span.end
    parts.append(original[pos:hi])
    return "".join(parts)


def _expr(site: Site, inner: str, cands: list[Candidate]) -> str:
    s = site.id
    if site.condition:
        head, value, orig = "volatile int __cr_e, __cr_v;", "!!", f"!!({inner})"
    else:
        raw = _one_line(site.text)
        head = f"typedef __typeof__(0 ? ({raw}) : ({raw})) __cr_T; volatile __cr_T __cr_e, __cr_v;"
        value, orig = "", f"({inner})"
    cases = _cases(cands, lambda c: f"__cr_v = {value}({c.code});")
    loop = _LOOP % (cases, "__cr_put(__CR_KEY(__cr_v), __CR_EXACT(__cr_v));")
    return (f"({{ {head} volatile int __cr_i = -1; int __cr_c, __cr_m = "
            f"__builtin_expect(__cr_on[{s}], 0) ? __cr_mode({s}) : 0; if (__cr_m && __cr_n) __cr_setjmp(__cr_jb); "
            f"if (__cr_i < 0) {{ __cr_i = 0; if (__cr_m != 2) {{ __cr_e = {orig}; if (__cr_m) __cr_eok_set(); }} }} "
            f"if (__cr_m) {{ {loop} __cr_e = __cr_v; }} __cr_e; }})")


def _stmt(site: Site, inner: str, cands: list[Candidate]) -> str:
    s = site.id
    if not inner.rstrip().endswith((";", "}")):
        raise InternalError(f"STMT site {s} at {site.span}: {site.text!r} is not a whole statement")
    if not cands:
        return f"{{ if (__builtin_expect(__cr_on[{s}], 0)) __cr_enter({s}); {inner} }}"
    cases = _cases(cands, lambda c: f"__CR_G(({c.code}))" if c.schema is Schema.GUARD
                   else f"__CR_S(({c.code}), ({c.lhs}))" if c.schema is Schema.OUTPUT and c.lhs
                   else f"__CR_O(({c.code}))" if c.schema in (Schema.OUTPUT, Schema.COPY)
                   else f"__CR_R(({c.lhs}), ({c.code}))" if c.schema is Schema.EXPRESSION
                   else f"__CR_A(({c.lhs}), ({c.code}))")
    loop = _LOOP % (cases, "__cr_put(__cr_k, __cr_x);")
    return (f"{{ volatile int __cr_g = 1; if (__builtin_expect(__cr_on[{s}], 0) && __cr_enter({s})) {{ "
            f"volatile int __cr_i = 0; int __cr_c, __cr_x = 1; long long __cr_k = 0; "
            f"if (__cr_n) __cr_setjmp(__cr_jb); {loop} }} "
            f"if (__cr_g) {inner} }}")


def _decl(site: Site, inner: str, cands: list[Candidate]) -> str:
    s = site.id
    if not inner.rstrip().endswith(";"):  # the declarator's name: initialize it with itself unless running
        if not inner.strip().isidentifier():
            raise InternalError(f"DECL site {s} at {site.span}: {site.text!r} is neither a declaration nor a name")
        cases = " ".join(f"case {c.id}: __cr_v = ({c.code}); break;" for c in cands)
        run = f" if (__builtin_expect(__cr_on[{s}], 0) && __cr_enter({s})) switch (__cr_cand) {{ {cases} }}"
        return f"{inner} = ({{ __typeof__({inner}) __cr_v = {inner};{run if cands else ''} __cr_v; }})"
    if not cands:
        return f"{inner} if (__builtin_expect(__cr_on[{s}], 0)) __cr_enter({s});"
    cases = " ".join(f"case {c.id}: ({c.lhs}) = ({c.code}); break;" for c in cands)
    return f"{inner} if (__builtin_expect(__cr_on[{s}], 0) && __cr_enter({s})) switch (__cr_cand) {{ {cases} }}"


_SITE_CODE = {SiteKind.EXPR: _expr, SiteKind.STMT: _stmt, SiteKind.DECL: _decl}


def _cases(cands: list[Candidate], body) -> str:
    """The cases of a site's ``switch (__cr_c)``: candidates whose ``body``
    is the same text share it (``case 3: case 7: ...``) — those that differ
    only in their parameter (:attr:`Candidate.param`) do — so gcc compiles
    each body once."""
    shared: dict[str, list[int]] = {}
    for c in cands:
        shared.setdefault(body(c), []).append(c.id)
    return " ".join(_labels(ids) + f"{code} break;" for code, ids in shared.items())


def _labels(ids: list[int]) -> str:
    """``case`` labels of the ascending ``ids``, a run of consecutive ids
    as one GNU case range (``case 3 ... 9:``): less text for gcc to read."""
    out, k = [], 0
    while k < len(ids):
        j = k
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(f"case {ids[k]}: " if j == k else f"case {ids[k]} ... {ids[j]}: ")
        k = j + 1
    return "".join(out)


def _one_line(text: str) -> str:
    """``text`` without comments and line breaks (unless it holds a
    preprocessor directive, which needs its own line)."""
    text = _COMMENT_OR_LITERAL.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0), text)
    text = text.replace("\\\n", "")
    if re.search(r"^\s*#", text, re.M):
        return text
    return text.replace("\r", " ").replace("\n", " ")


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
