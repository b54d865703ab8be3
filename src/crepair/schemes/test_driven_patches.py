"""Helpers of the test-driven scheme (f1x, Mechtaev et al., TOSEM'18): a
candidate's patched text and its :class:`~crepair.records.Repair`, whose
edit is the smallest run of whole tokens that differs; the candidates
each passing test cannot tell from the original (their site is not
executed on it).  Offsets are 0-based character offsets, ends
exclusive."""

from __future__ import annotations

from crepair.frontend import CProgram
from crepair.patch import apply_edits, unified_diff
from crepair.records import Change, Edit, PassesTests, Repair, Scheme, text_span
from crepair.testequiv.candidates import Candidate, SearchSpace


def candidate_repair(program: CProgram, space: SearchSpace, cand: Candidate, patched: str, seconds: float,
                     evidence: PassesTests) -> Repair:
    """The :class:`Repair` record of candidate ``cand``, whose whole patched
    text is ``patched`` (:func:`patched_text`): one change at its site, whose
    edit is the smallest run of whole tokens that differs (so ``>`` → ``>=``
    reads as such).  ``space`` is ``program``'s own (the record names
    ``program.path``: its spans, its diff, ``Repair.file``)."""
    site = space.sites[cand.site]
    before, after = site.text, cand.replacement
    start, end, new = token_edit(before, after)
    start, end = site.span.start + start, site.span.start + end
    text, path = program.original, program.path
    edits, span = (Edit(text_span(path, text, start, end), text[start:end], new),), site.span
    if cand.tail is not None:  # the arguments a format with fewer conversions leaves: deleted too
        at, to = cand.tail
        edits += (Edit(text_span(path, text, at, to), text[at:to], ""),)
        span = text_span(path, text, site.span.start, to)
        before, after = text[site.span.start:to], after + text[site.span.end:at]
    change = Change(span, site.function, cand.schema.value, before, after, edits)
    return Repair(Scheme.TEST_DRIVEN, (change,), unified_diff(path, text, patched), patched, seconds, evidence)


def token_edit(before: str, after: str) -> tuple[int, int, str]:
    """The tokens that differ between two texts: ``(start, end, new)`` with
    ``before[start:end]`` replaced by ``new`` giving ``after``; tokens
    common to both ends are left out, the end ones first (so that text
    inserted before a statement reads as an insertion: ``if (b) s`` is
    ``if (b)`` added before ``s``, however ``s`` begins)."""
    from crepair.frontend.tokens import tokenize

    b, a = tokenize(before, skip_directives=False), tokenize(after, skip_directives=False)
    j = 0
    while j < min(len(a), len(b)) and a[-1 - j].text == b[-1 - j].text:
        j += 1
    i = 0
    while i < min(len(a), len(b)) - j and a[i].text == b[i].text:
        i += 1
    b_lo, b_hi = (b[i - 1].end if i else 0), (b[len(b) - j].start if j else len(before))
    a_lo, a_hi = (a[i - 1].end if i else 0), (a[len(a) - j].start if j else len(after))
    while b_lo < b_hi and a_lo < a_hi and before[b_lo] == after[a_lo] and before[b_lo].isspace():
        b_lo, a_lo = b_lo + 1, a_lo + 1
    while b_lo < b_hi and a_lo < a_hi and before[b_hi - 1] == after[a_hi - 1] and before[b_hi - 1].isspace():
        b_hi, a_hi = b_hi - 1, a_hi - 1
    return b_lo, b_hi, after[a_lo:a_hi]


def patched_text(original: str, space: SearchSpace, cand: Candidate) -> str:
    """``original`` (the text ``space`` was built from) with candidate
    ``cand``'s replacement at its site (and its ``tail`` deleted)."""
    site = space.sites[cand.site]
    tail = [] if cand.tail is None else [(*cand.tail, "")]
    return apply_edits(original, [(site.span.start, site.span.end, cand.replacement), *tail])


def unexecuted_classes(spectrum, space: SearchSpace, file_of: dict, main) -> dict[str, frozenset[int]]:
    """Per passing test, the candidates whose site the original program
    does not execute on it: such a candidate runs exactly as the original
    up to the end, so it passes too — one test-equivalence class with the
    original (Definition 1.1), read off the coverage run.  A site counts as
    not executed only when none of its lines is; tests whose coverage is
    gcov's estimate (a crash or a time-out) are left out."""
    by_site: dict[int, list[int]] = {}
    for c in space.candidates:
        by_site.setdefault(c.site, []).append(c.id)
    out: dict[str, frozenset[int]] = {}
    for t in spectrum.passing:
        if not t.exact:
            continue
        lines_of = dict(t.files) or {main: t.lines}
        ids: set[int] = set()
        for site in space.sites:
            lines = lines_of.get(file_of.get(site.span.file))
            if lines is not None and not any(n in lines for n in range(site.span.line, site.span.end_line + 1)):
                ids.update(by_site.get(site.id, ()))
        out[t.test] = frozenset(ids)
    return out


_NOT_MADE = object()  # the probe before the first plausible patch
