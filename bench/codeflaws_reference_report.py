"""The tables of ``crepair bench codeflaws-reference`` (the suite printer
interface of ``crepair.batch.bench``: :func:`tables`).

Each defect ran ``crepair repair BUGGY.c --reference ACCEPTED.c
--tests-dir DEFECT ...`` (``bench/suites/codeflaws-reference.yaml``).
The benchmark then judges the first repair of each record itself, never
from what crepair reports about it (:func:`check`): the repair's unified
diff is applied to the buggy program with ``patch``, the result is built
as the defect's Makefile does and run on the defect's *valid* held-out
tests (not truncated, passed by the accepted program:
``codeflaws_checks.baseline``), outputs compared as Codeflaws' judge
compares them; *identical* means the patched program has the accepted
program's C tokens (``tdrepair.same_program``).  Only the evidence level
(proof, tests, plausible) is crepair's own, read from the record.

The checks are cached in OUTPUT.checks.json (the held-out oracle by
defect, each check by defect and diff), so ``--report-only`` is quick.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codeflaws_checks import Defect, Programs, baseline, load_defects  # noqa: E402
from tdrepair import same_program  # noqa: E402

HELDOUT_TIMEOUT = 2.0  # seconds per held-out test execution (bench/codeflaws.py's default)
LEVELS = ("proof", "tests", "plausible")
#: outcomes of a job that gave no answer (crepair.batch.job's failures, crepair's own errors)
ERRORS = ("timeout", "out-of-memory", "crash", "bad-input", "usage", "missing-tool", "internal")


def defect_of(job) -> Defect:
    """The defect of a suite job (its program's folder; class from meta)."""
    folder = Path(job.program).parent
    return Defect(folder.name, str(dict(job.meta).get("class", "?")), folder)


def first_repair(record: dict | None) -> dict | None:
    """The first non-vacuous repair of a record (None: none, or not run)."""
    return next((r for r in (record or {}).get("repairs") or () if not r.get("vacuous")), None)


def apply_diff(d: Defect, diff: str, scratch: Path) -> str | None:
    """The buggy program of ``d`` with the unified ``diff`` applied by
    ``patch`` (no fuzz; the diff's file names are ignored), or None when
    it does not apply."""
    scratch.mkdir(parents=True, exist_ok=True)
    target = scratch / d.buggy
    target.write_bytes(d.data(d.buggy))
    p = subprocess.run(["patch", "--batch", "--silent", "--fuzz=0", "--no-backup-if-mismatch", "--reject-file=-",
                        target.name], input=diff.encode("utf-8", "surrogateescape"), cwd=scratch, capture_output=True)
    return target.read_bytes().decode("utf-8", "surrogateescape") if p.returncode == 0 else None


def check(d: Defect, diff: str, valid: list[int], scratch: Path) -> dict:
    """The benchmark's verdict on one repair of ``d``: ``applies``,
    ``identical`` and ``heldout`` (``Programs.run`` on the ``valid``
    held-out test numbers: passed, total, ok, failing, or error)."""
    text = apply_diff(d, diff, scratch / "patch")
    if text is None:
        return {"applies": False}
    heldout = Programs(d, scratch / "build", HELDOUT_TIMEOUT).run(text, "heldout", valid)
    return {"applies": True, "identical": same_program(text, d.text(d.accepted)), "heldout": heldout}


def checked(d: Defect, repair: dict, cache: dict) -> dict:
    """:func:`check` of ``repair`` through ``cache`` (``baseline`` by
    defect, ``checks`` by defect and diff; both filled in place)."""
    diff = repair.get("diff") or ""
    key = f"{d.name} {hashlib.sha1(diff.encode('utf-8', 'surrogateescape')).hexdigest()}"
    if key not in cache["checks"]:
        scratch = Path(tempfile.mkdtemp(prefix="codeflaws-reference-"))
        try:
            if d.name not in cache["baseline"]:
                cache["baseline"][d.name] = baseline(d, scratch / "baseline", HELDOUT_TIMEOUT)
            oracle = cache["baseline"][d.name]
            cache["checks"][key] = ({"error": oracle["error"]} if "error" in oracle
                                    else check(d, diff, oracle["valid"], scratch))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return cache["checks"][key]


def row_of(job, record: dict | None, cache: dict) -> dict:
    """One defect's row: outcome, wall seconds, and its first repair's
    evidence level, seconds, change and benchmark check."""
    d = defect_of(job)
    row = {"defect": d.name, "class": d.klass, "outcome": (record or {}).get("outcome") or "not run",
           "seconds": (record or {}).get("seconds")}
    first = first_repair(record)
    if first is not None and row["outcome"] == "repaired":
        change = "; ".join(f"{c.get('original', '')} → {c.get('replacement', '')}" for c in first.get("changes") or ())
        row.update(evidence=first.get("evidence_level"), first_seconds=first.get("seconds"), change=change,
                   check=checked(d, first, cache))
    return row


def passes(row: dict) -> bool:
    return bool(((row.get("check") or {}).get("heldout") or {}).get("ok"))


def class_table(rows: list[dict]) -> list[str]:
    out = ["| class | defects | repaired | proof | tests | plausible | held-out pass | identical | exhausted | "
           "unknown | other | errors | median wall s |", "|" + "---|" * 13]
    for klass in sorted({r["class"] for r in rows}) + ["all"]:
        rs = [r for r in rows if klass in ("all", r["class"])]
        rep = [r for r in rs if r["outcome"] == "repaired"]
        known = ("repaired", "exhausted", "no-repair", "unknown", *ERRORS)
        walls = [r["seconds"] for r in rs if r["seconds"] is not None]
        cells = [len(rs), len(rep), *(sum(r.get("evidence") == v for r in rep) for v in LEVELS),
                 sum(map(passes, rep)), sum(bool((r.get("check") or {}).get("identical")) for r in rep),
                 sum(r["outcome"] in ("exhausted", "no-repair") for r in rs),
                 sum(r["outcome"] == "unknown" for r in rs), sum(r["outcome"] not in known for r in rs),
                 sum(r["outcome"] in ERRORS for r in rs), f"{statistics.median(walls):.1f}" if walls else "—"]
        out.append(f"| {'**all**' if klass == 'all' else klass} | " + " | ".join(map(str, cells)) + " |")
    return out


def heldout_cell(row: dict) -> str:
    c = row.get("check")
    if c is None:
        return ""
    if not c.get("applies", True):
        return "diff does not apply"
    h = c.get("heldout") or {}
    if "error" in c or "error" in h:
        return "error: " + (c.get("error") or h["error"])[:80]
    return f"{h['passed']}/{h['total']}" + ("" if h["ok"] else " ✗")


def defect_table(rows: list[dict]) -> list[str]:
    out = ["| defect | class | outcome | evidence | held-out | identical | first repair s | wall s | change |",
           "|" + "---|" * 9]
    for r in rows:
        fs, wall = r.get("first_seconds"), r["seconds"]
        change = r.get("change", "").replace("|", "\\|").replace("\n", " ")
        out.append(f"| {r['defect']} | {r['class']} | {r['outcome']} | {r.get('evidence') or ''} | "
                   f"{heldout_cell(r)} | {'yes' if (r.get('check') or {}).get('identical') else ''} | "
                   f"{'' if fs is None else f'{fs:.1f}'} | {'' if wall is None else f'{wall:.1f}'} | "
                   f"{change[:100]} |")
    return out


def left_out(jobs: list) -> str:
    """``; not in the suite: ...``: the defects of defects.tsv without a job
    (those stored gzipped named so), or ""."""
    root = defect_of(jobs[0]).folder.parent if jobs else None
    if root is None or not (root / "defects.tsv").is_file():
        return ""
    ids = {job.id for job in jobs}
    missing = [d for d in load_defects(root) if d.name not in ids]
    gzipped = [d.name for d in missing if any(p.name.endswith(".gz") for p in d.folder.iterdir())]
    others = [d.name for d in missing if d.name not in gzipped]
    return "".join([
        f"; not in the suite, stored gzipped file by file (crepair reads neither a gzipped program nor gzipped tests; "
        f"`bench/codeflaws.py --reference` runs them from gunzipped copies): {', '.join(gzipped)}" if gzipped else "",
        f"; not in the suite either: {len(others)} other defects of defects.tsv" if others else ""])


def tables(suite: dict, jobs: list, records: dict[str, dict], output: Path) -> list[str]:
    """The report's markdown lines under the header (``output``: the
    results' stem; OUTPUT.checks.json caches the checks, OUTPUT.json gets
    the rows)."""
    cache_path = output.with_name(output.name + ".checks.json")
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    cache = {"baseline": cache.get("baseline", {}), "checks": cache.get("checks", {})}
    rows = [row_of(job, records.get(job.id), cache) for job in jobs]
    cache_path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    output.with_name(output.name + ".json").write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    done = [r for r in rows if r["outcome"] != "not run"]
    return [f"{len(done)} of the suite's {len(rows)} defects run{left_out(jobs)}"
            ". *held-out pass*: the benchmark's own build of the first repair passes every valid held-out test; "
            "*identical*: it has the accepted program's C tokens; evidence levels are crepair's; *other*: outcomes "
            "such as no-failing-test.", "", "## Per class", "", *class_table(done), "", "## Per defect", "",
            *defect_table(done)]
