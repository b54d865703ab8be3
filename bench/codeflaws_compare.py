#!/usr/bin/env python3
"""Compare two Codeflaws first-patch runs of ``bench/codeflaws.py`` (raw
JSON), e.g. ``--rank cost`` (before) and ``--rank distance`` (after) on
the same ``--sample``: per defect the first patch of each, whether it
passes the held-out tests and is identical to the accepted fix; totals of
plausible, held-out pass and identical.  Only the partitioning runs
(first/P) are read.

Usage (from the repository root)::

    python bench/codeflaws_compare.py BEFORE.json AFTER.json [--labels cost,distance] [--output FILE.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def first_runs(path: Path) -> dict[str, dict]:
    """``{defect: run}`` of the first/P runs of a raw JSON."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {r["defect"]: r for r in data.get("runs", []) if r.get("explore") == "first" and r.get("partition")}


def first_patch(run: dict | None) -> dict | None:
    reps = (run or {}).get("repairs") or []
    return reps[0] if reps else None


def change(rep: dict | None) -> str:
    if rep is None:
        return "—"
    return "; ".join(f"L{e.get('line')} `{e.get('old') or '∅'}`→`{e.get('new') or '∅'}`"
                     for c in rep.get("changes", []) for e in c.get("edits", [])).replace("|", "\\|")


def heldout(rep: dict | None) -> str:
    h = (rep or {}).get("heldout") or {}
    if not h or "passed" not in h:
        return "—"
    return f"{'pass' if h.get('ok') else 'FAIL'} {h['passed']}/{h['total']}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--labels", default="before,after")
    ap.add_argument("--output", type=Path, default=None)
    a = ap.parse_args(argv)
    lb, la = a.labels.split(",")
    before, after = first_runs(a.before), first_runs(a.after)
    names = sorted(set(before) | set(after))
    rows, totals = [], {lb: [0, 0, 0], la: [0, 0, 0]}
    changed = 0
    for name in names:
        rb, ra = first_patch(before.get(name)), first_patch(after.get(name))
        for label, rep in ((lb, rb), (la, ra)):
            if rep is not None:
                totals[label][0] += 1
                totals[label][1] += bool((rep.get("heldout") or {}).get("ok"))
                totals[label][2] += bool(rep.get("identical"))
        differs = (rb or {}).get("diff") != (ra or {}).get("diff")
        changed += differs and rb is not None and ra is not None
        dist = "—" if ra is None or ra.get("distance") is None else str(ra["distance"])
        rows.append(f"| {name} | {change(rb)} | {heldout(rb)} | {'yes' if (rb or {}).get('identical') else 'no'} | "
                    f"{change(ra) if differs else 'same'} | {heldout(ra)} | "
                    f"{'yes' if (ra or {}).get('identical') else 'no'} | {dist} |")
    out = [f"# Codeflaws first patch: {lb} vs {la} ({len(names)} defects)", "",
           f"Raw data: `{a.before.name}` ({lb}), `{a.after.name}` ({la}); first patch with partitioning, "
           "held-out = the benchmark's held-out oracle, identical = same C tokens as the accepted program.", "",
           f"| | {lb} | {la} |", "|---|---|---|"]
    for k, what in enumerate(("plausible", "first patch passes held-out", "first patch identical")):
        out.append(f"| {what} | {totals[lb][k]} | {totals[la][k]} |")
    out += ["", f"First patch changed by {la}: {changed} defects.", "",
            f"| defect | first patch ({lb}) | held-out | identical | first patch ({la}) | held-out | identical | "
            "distance |", "|---|---|---|---|---|---|---|---|", *rows]
    text = "\n".join(out) + "\n"
    if a.output:
        a.output.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
