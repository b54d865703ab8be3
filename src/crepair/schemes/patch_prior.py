"""How many values a test-driven patch chose to fit the tests: its *choices*
(crepair issue 29, item 2: a term of the ranking of plausible patches).

A patch that changes an operator (``<`` -> ``<=``, ``&&`` -> ``||``) picks
one of a handful of alternatives; one that puts in a literal or a
variable (``i < 50`` -> ``i < 49``, ``m > x`` -> ``m > i``,
``&& n < 3``) picks one of many, and the more it may pick from, the more
easily a wrong patch fits a few tests by chance — the overfitting the
Codeflaws authors' anti-patterns (Tan et al., FSE'16) and QLOSE's
syntactic distance (D'Antoni et al., CAV'16) both guard against.  So,
among plausible patches of similar cost, each choice weighs next to the
semantic distance (:attr:`crepair.schemes.semantic_ranking.Ranked.score`).

    choices(P) = sum over P's changes of the identifiers and literals
                 (numbers, characters, strings) of the changed token run
                 of ``after`` that the changed run of ``before`` does not
                 hold (a multiset difference; keywords are not counted)

The changed runs are the tokens between the common leading and trailing
tokens (:func:`crepair.testequiv.textdiff.changed`).

>>> from types import SimpleNamespace as N
>>> choices(N(changes=(N(before="i<50", after="i<=50"),)))
0
>>> choices(N(changes=(N(before="i<50", after="i<49"),)))
1
>>> choices(N(changes=(N(before="i<n-1", after="i<n-1 && n < 3"),)))
2
"""

from __future__ import annotations

from collections import Counter

from crepair.frontend.tokens import C_KEYWORDS
from crepair.testequiv.textdiff import changed


def _chosen(token: str) -> bool:
    """Whether ``token`` is a value a patch picks: an identifier (not a
    keyword) or a literal."""
    first = token[0]
    if first.isalpha() or first == "_":
        return token not in C_KEYWORDS
    return first.isdigit() or first in "'\"" or (first == "." and len(token) > 1)


def choices(repair) -> int:
    """The number of values ``repair`` (a :class:`~crepair.records.Repair`,
    or anything whose ``changes`` have ``before`` and ``after`` texts)
    chose (see the module's formula); 0 for operator changes and
    deletions."""
    total = 0
    for change in repair.changes:
        old, new = changed(change.before, change.after)
        total += sum((Counter(t for t in new if _chosen(t)) - Counter(t for t in old if _chosen(t))).values())
    return total
