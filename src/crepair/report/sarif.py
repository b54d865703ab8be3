"""SARIF 2.1.0 for must location sets (one result per location).

Columns in SARIF regions are 1-based, count code points
(``columnKind``), and ``endColumn`` is exclusive.
"""

from __future__ import annotations

import json
from pathlib import Path

from crepair.version import __version__
from crepair.localization.result import LocalizeResult

_RULE = "crepair.must-location"


def localize_sarif(result: LocalizeResult) -> str:
    """The must location set of ``result`` as a SARIF 2.1.0 log (JSON text)."""
    uri = Path(result.path).as_posix()
    n = len(result.locations)
    results = []
    for rank, origin in enumerate(result.locations, start=1):
        span = origin.span
        results.append(
            {
                "ruleId": _RULE,
                "level": "warning",
                "rank": 100.0,
                "message": {
                    "text": f"must location {rank} of {n}: every repair of the assertion violation "
                    f"changes at least one of the {n} locations of this set"
                },
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
