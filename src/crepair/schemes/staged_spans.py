"""Spans of the staged run's repairs (see :mod:`crepair.schemes.staged`):
the run searches copies of the user's file, and its second round searches
the original with the first round's change applied; these functions name
the user's file again and move a second-round change's spans back onto
the original's text.  Offsets are 0-based character offsets, ends
exclusive (:class:`~crepair.frontend.spans.Span`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from crepair.frontend.spans import Span
from crepair.patch import unified_diff
from crepair.records import Change, Edit, Repair, text_span


def named(changes: tuple[Change, ...], name: str) -> tuple[Change, ...]:
    """``changes`` of the copy that was searched, their spans naming the file ``name``."""
    return tuple(dataclasses.replace(c, span=dataclasses.replace(c.span, file=name),
                                     edits=tuple(dataclasses.replace(e, span=dataclasses.replace(e.span, file=name))
                                                 for e in c.edits)) for c in changes)


def span_back(span: Span, edits: list[Edit], original: str) -> Span:
    """``span`` of the text after ``edits`` (edits of ``original``) as a
    span of ``original`` (an end inside an edit moves to the edit's end)."""
    def back(offset: int) -> int:
        shift = 0
        for e in sorted(edits, key=lambda e: e.span.start):
            new_start = e.span.start + shift
            if offset <= new_start:
                break
            grown = len(e.new) - (e.span.end - e.span.start)
            if offset < new_start + len(e.new):
                return e.span.end if offset > new_start else e.span.start
            shift += grown
        return offset - shift

    return text_span(span.file, original, back(span.start), back(span.end))


def relative_to_original(rep: Repair, path: Path, original: str, first: tuple[Change, ...]) -> Repair:
    """``rep``, a change of ``original`` with the changes ``first``
    applied, as a repair of ``original`` (the file at ``path``): ``first``
    followed by its own changes, their spans moved back over ``first``'s
    edits, and the diff from ``original``."""
    edits = [e for c in first for e in c.edits]
    changes = tuple(dataclasses.replace(c, span=span_back(c.span, edits, original),
                                        edits=tuple(dataclasses.replace(e, span=span_back(e.span, edits, original))
                                                    for e in c.edits)) for c in rep.changes)
    return dataclasses.replace(rep, diff=unified_diff(str(path), original, rep.patched),
                               changes=merged(first, changes, original, rep.patched))


def merged(first: tuple[Change, ...], later: tuple[Change, ...], original: str, patched: str) -> tuple[Change, ...]:
    """``first`` then ``later`` (changes searched on top of ``first``, spans
    moved back onto ``original``), a later change that overlaps a first one
    folded into it: one change of ``original``'s text there into
    ``patched``'s (``"a\\n)"`` then ``"a)"`` then ``"a)\\n"`` is one change,
    not two whose edits overlap).  Changes in source order."""
    every = [e for c in (*first, *later) for e in c.edits]  # spans of original; each grows the text by its own
    out = list(first)
    for change in later:
        hit = next((i for i, f in enumerate(out) if _overlap(f.span, change.span)), None)
        if hit is None:
            out.append(change)
            continue
        f = out[hit]
        start, end = min(f.span.start, change.span.start), max(f.span.end, change.span.end)
        ahead = [e for e in every if e.span.end <= start and e.span.start < start]
        inside = [e for e in every if e not in ahead and start <= e.span.start and e.span.end <= end]
        shift = sum(len(e.new) - len(e.old) for e in ahead)
        grown = sum(len(e.new) - len(e.old) for e in inside)
        span = text_span(f.span.file, original, start, end)
        old, new = original[start:end], patched[start + shift:end + shift + grown]
        out[hit] = dataclasses.replace(f, span=span, before=old, after=new, edits=(Edit(span, old, new),))
    return tuple(sorted(out, key=lambda c: (c.span.start, c.span.end)))


def _overlap(a: Span, b: Span) -> bool:
    """Whether spans ``a`` and ``b`` share text, start together, or one is
    empty and touches the other (a later change inside text a first one
    inserted at the end of its span maps back to an empty span there)."""
    if a.start < b.end and b.start < a.end or a.start == b.start:
        return True
    return (a.start == a.end or b.start == b.end) and (a.start <= b.start <= a.end or b.start <= a.start <= b.end)
