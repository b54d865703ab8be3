"""The standard streams as values of ``FILE *``.

A program may hold ``stdin``, ``stdout`` or ``stderr`` in a variable, a
parameter or a member (``FILE *f = stdin; read(f);``) and read or write
through it with ``fscanf``, ``fgets``, ``fgetc``/``getc``, ``fprintf``,
``fputs`` and ``fputc``/``putc``.  Such a value is a tag of type
:data:`crepair.encode.ctypes.STREAM` (1 ``stdin``, 2 ``stdout``, 3
``stderr``: never 0, as a standard stream is never ``NULL``).  A stream
call is encoded as the call on that stream (``fscanf(f, …)`` as
``scanf(…)`` when ``f`` is ``stdin``) when the tag is the same on every
path that reaches the call (its term simplifies to a constant, as it does
after ``f = stdin`` and any number of calls passing ``f`` on, once the
SSA variables in it are replaced by their definitions as the program is
written: :func:`propagated`; a repair candidate that changes which stream
a variable holds is read as the original, and is checked by its runs);
otherwise
the call is rejected as unsupported.  Streams opened with ``fopen`` are not
modelled (a call to ``fopen`` is a library function not modelled).

>>> stream_name(constant("stdout"), None, "fprintf")
'stdout'
"""

from __future__ import annotations

from crepair.solver import smt
from crepair.encode import ctypes as ct
from crepair.encode.ops import Value
from crepair.errors import UnsupportedConstruct

#: the standard streams' tags (1-based: a standard stream is not NULL)
TAGS = {"stdin": 1, "stdout": 2, "stderr": 3}
_NAMES = {tag: name for name, tag in TAGS.items()}


def constant(name: str) -> Value:
    """The value of the identifier ``stdin``, ``stdout`` or ``stderr``
    (``name`` must be a key of :data:`TAGS`)."""
    return Value(smt.BitVecVal(TAGS[name], ct.STREAM.bits), ct.STREAM)


def propagated(term: smt.Term, definitions: list[tuple[smt.Term, smt.Term]]) -> smt.Term:
    """``term`` with the SSA variables in it replaced by their definitions,
    simplified: ``definitions`` are (variable, right-hand side) pairs of
    the encoding (assignments, Φ-assignments, the original expression of
    each location copy: the program as written), read from the last back,
    again while a pass replaced a variable and one is left (a definition
    may stand after its uses in the list; at most :data:`PASSES` passes)."""
    term = smt.simplify(term)
    left = smt.constant_names([term])
    for _ in range(PASSES):
        replaced = False
        for var, rhs in reversed(definitions):
            if not left:
                return term
            if smt.is_bv_value(var) or var.decl().name() not in left:
                continue
            term = smt.substitute(term, {var.decl().name(): rhs})
            left, replaced = smt.constant_names([term]), True
        if not replaced:
            break
    return term


#: passes of :func:`propagated` over the definitions
PASSES = 4


def stream_name(value: Value, where, what: str) -> str:
    """The standard stream ``value`` holds on every path: ``"stdin"``,
    ``"stdout"`` or ``"stderr"``.  Raises ``UnsupportedConstruct`` at
    ``where`` (a :class:`crepair.errors.SourcePoint` or None) when ``value`` is
    not a ``FILE *`` or its stream is not one fixed standard stream
    (``what`` names the call)."""
    if not isinstance(value.ctype, ct.StreamType):
        raise UnsupportedConstruct(where, f"{what} on a stream that is not a FILE * value")
    term = smt.simplify(value.term)
    name = _NAMES.get(term.as_long()) if smt.is_bv_value(term) else None
    if name is None:
        raise UnsupportedConstruct(where, f"{what} on a stream that is not always the same one of stdin, stdout "
                                          "and stderr (streams opened with fopen are not modelled)")
    return name
