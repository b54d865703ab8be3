"""SARIF 2.1.0 for must location sets (one result per location).

Columns in SARIF regions are 1-based, count code points
(``columnKind``), and ``endColumn`` is exclusive.
"""

from __future__ import annotations

import json
from pathlib import Path

from crepair.version import __version__
from crepair.localization.result import LocalizeResult
from crepair.localization.spectrum import Formula, SpectrumResult

_RULE = "crepair.must-location"


def localize_sarif(result: LocalizeResult) -> str:
    """The must location set of ``result`` as a SARIF 2.1.0 log (JSON text)."""
    uri = Path(result.path).as_posix()
    n = len(result.locations)
    cex = result.counterexample
    what = "assertion violation" if cex is None or cex.violated.value.endswith("assertion") else \
        f"{cex.violated.value} at {cex.assertion} ({cex.detail})"
    violated = {} if cex is None else {"violated": cex.violated.value, "detail": cex.detail}
    results = []
    for rank, origin in enumerate(result.locations, start=1):
        span = origin.span
        results.append(
            {
                "ruleId": _RULE,
                "level": "warning",
                "rank": 100.0,
                "message": {
                    "text": f"must location {rank} of {n}: every repair of the {what} "
                    f"changes at least one of the {n} locations of this set"
                },
                "properties": violated,
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": uri},
                            "region": {
                                "startLine": span.line,
                                "startColumn": span.column,
                                "endLine": span.end_line,
                                "endColumn": span.end_column + 1,
                            },
                        },
                        "logicalLocations": [{"name": origin.function or "", "kind": "function"}],
                    }
                ],
            }
        )
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "crepair",
                        "version": __version__,
                        "rules": [
                            {
                                "id": _RULE,
                                "name": "MustLocation",
                                "shortDescription": {"text": "Location of a must location set (FOSFL, CAV'20)"},
                                "fullDescription": {
                                    "text": "Every repair within the mutation or arbitrary-expression scheme "
                                    "changes at least one location of the set."
                                },
                            }
                        ],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2)


_SPECTRUM_RULE = "crepair.suspicious-line"


def _sarif_rank(formula: Formula, score: float) -> float:
    """SARIF's 0-100 priority: 100 x the score for Ochiai and Tarantula
    (in [0, 1]); 100 s / (1 + s) for DStar (unbounded, ``inf`` -> 100)."""
    if formula == Formula.DSTAR:
        return 100.0 if score == float("inf") else round(100 * score / (1 + score), 3)
    return round(100 * score, 3)


def spectrum_sarif(result: SpectrumResult) -> str:
    """The ranked lines of a spectrum-based localization as a SARIF 2.1.0
    log (JSON text): one result per line, most suspicious first, with the
    score and test counts in ``properties``."""
    uri = Path(result.path).as_posix()
    n = len(result.ranking)
    name = result.formula.value
    results = [
        {
            "ruleId": _SPECTRUM_RULE,
            "level": "note",
            "rank": _sarif_rank(result.formula, r.score),
            "message": {
                "text": f"suspicious line {rank} of {n} ({name} "
                f"{'inf' if r.score == float('inf') else f'{r.score:.4f}'}): executed by "
                f"{r.executed_by_failing} of {len(result.failing)} failing and "
                f"{r.executed_by_passing} of {len(result.passing)} passing tests"
            },
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": r.line}}}],
            "properties": {
                "formula": name, "score": "inf" if r.score == float("inf") else r.score, "rank": rank,
                "executedByFailing": r.executed_by_failing, "executedByPassing": r.executed_by_passing,
            },
        }
        for rank, r in enumerate(result.ranking, start=1)
    ]
    rule = {
        "id": _SPECTRUM_RULE,
        "name": "SuspiciousLine",
        "shortDescription": {"text": "Line ranked by spectrum-based fault localization"},
        "fullDescription": {
            "text": "A line executed by every failing test, scored by how rarely passing tests execute it "
            "(Ochiai: Abreu et al. 2007; Tarantula: Jones & Harrold 2005; DStar: Wong et al. 2014)."
        },
    }
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "crepair", "version": __version__, "rules": [rule]}},
                  "results": results}],
    }
    return json.dumps(log, indent=2)
