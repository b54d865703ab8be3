"""The JSON-lines records of a worker, and reading them back.

A worker writes, flushing each line, a ``start`` record once
``crepair.repair`` has checked the original program, one ``repair``
record per repair as it is found, and a ``done`` record with the run's
outcome and its scheme's statistics; a suite may add records of its own
(e.g. ``localize``).  An exception becomes an ``error`` record.

Repair records (offsets 0-based, end exclusive; lines 1-based)::

    {"type": "repair", "index": 1, "size": 1, "seconds": 1.7, "scheme": "mutation",
     "vacuous": false, "evidence": "...", "diff": "...",
     "changes": [{"line", "start", "end", "function", "kind", "before", "after",
                  "edits": [{"start", "end", "old", "new", "line"}]}]}

Raw JSON written before the records carried edits (changes with
``start``/``end``/``old_text``/``new_text``/``original``/``replacement``)
is read through :func:`upgrade_repair`.
"""

from __future__ import annotations

import json
import time
import traceback
from pathlib import Path


def emit(fh, record: dict) -> None:
    """Write one JSON line and flush it (a killed worker keeps what it wrote)."""
    fh.write(json.dumps(record) + "\n")
    fh.flush()


def emit_verify(fh, t0: float, check) -> None:
    """The ``result`` and ``done`` records of one ``crepair.verify`` run:
    ``check()`` makes the call (a ``CRepairError`` it raises is a
    rejection, its message the record's ``rejected``); ``t0`` is the
    worker's start (``time.monotonic()``)."""
    import time

    from crepair.errors import CRepairError

    try:
        result = check()
    except CRepairError as exc:
        emit(fh, {"type": "result", "rejected": str(exc)})
        emit(fh, {"type": "done", "outcome": "rejected", "stopped": "", "reason": "", "stats": {},
                  "wall_seconds": time.monotonic() - t0})
        return
    cex = result.counterexample
    emit(fh, {"type": "result", "violated": cex.violated.value if cex else None,
              "too_small": result.bound.too_small, "decided_by": getattr(result, "solver", ""),
              "found_within": getattr(result, "found_within", 0)})
    emit(fh, {"type": "done", "outcome": result.outcome.value, "stopped": "", "reason": result.reason,
              "stats": {"seconds": result.seconds}, "wall_seconds": time.monotonic() - t0})


def worker(out: str, search) -> int:
    """The body of a worker process: ``search(fh, t0)`` writes the records
    to the file ``out``; an exception is recorded as an ``error`` record
    (exit status 1)."""
    with open(out, "w", encoding="utf-8") as fh:
        t0 = time.monotonic()
        try:
            search(fh, t0)
        except BaseException as exc:  # noqa: BLE001 - record everything
            emit(fh, {"type": "error", "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
                      "wall_seconds": time.monotonic() - t0})
            return 1
    return 0


def start_record(run, t0: float) -> dict:
    """After ``crepair.repair`` returned ``run``: set-up time, the bound
    check of the original, the mutation search space (if any), and the
    file crepair was imported from."""
    import crepair

    stats = run.stats.as_dict()
    rec = {"type": "start", "setup_seconds": time.monotonic() - t0, "bound": run.bound.message(),
           "too_small": run.bound.too_small, "needed": run.bound.needed}
    rec.update({k: stats[k] for k in ("locations", "space") if k in stats})
    rec["crepair_file"] = crepair.__file__
    return rec


def repair_record(n: int, r) -> dict:
    """The ``n``-th repair ``r`` (a ``crepair.Repair``) as a record."""
    return {
        "type": "repair", "index": n, "size": r.size, "seconds": r.seconds, "scheme": r.scheme.value,
        "vacuous": r.vacuous, "evidence": r.evidence.describe(), "diff": r.diff,
        "changes": [{"line": c.span.line, "start": c.span.start, "end": c.span.end, "function": c.function,
                     "kind": c.kind, "before": c.before, "after": c.after,
                     "edits": [{"start": e.span.start, "end": e.span.end, "old": e.old, "new": e.new,
                                "line": e.span.line} for e in c.edits]}
                    for c in r.changes],
    }


def done_record(run, t0: float, scheme=None) -> dict:
    """The end of a run: its outcome, why it stopped, the reason of an
    UNKNOWN, and the statistics of ``scheme`` (default: the first)."""
    stats = run.stats if scheme is None else run.scheme_stats(scheme)
    return {"type": "done", "outcome": run.outcome.value, "stopped": run.stopped.value,
            "reason": run.unknown_reason, "stats": stats.as_dict(), "wall_seconds": time.monotonic() - t0}


def search_records(fh, t0: float, run, scheme=None) -> None:
    """Write the start, repair and done records of ``run``."""
    emit(fh, start_record(run, t0))
    for n, r in enumerate(run, 1):
        emit(fh, repair_record(n, r))
    emit(fh, done_record(run, t0, scheme))


# ---------------------------------------------------------------------------
# Reading them back (the parent)
# ---------------------------------------------------------------------------


def read_records(path: Path) -> list[dict]:
    """The JSON lines of a worker's output (a torn last line is dropped)."""
    records = []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return records


def take_records(job, records: list[dict], crash: str, imported) -> list[dict]:
    """Fill ``job`` from its worker's records; ``crash`` (the worker's exit)
    becomes its error if the worker wrote none, and so does a crepair that
    ``imported(start)`` denies.  Returns the records of other types."""
    others = []
    for rec in records:
        kind = rec["type"]
        if kind == "start":
            job.start = rec
            if not imported(rec):
                crash = crash or f"worker imported crepair from {rec.get('crepair_file')}, not the snapshot"
        elif kind == "repair":
            job.repairs.append(rec)
        elif kind == "done":
            job.outcome, job.stopped, job.reason = rec["outcome"], rec["stopped"], rec["reason"]
            job.stats = {**rec["stats"], "wall_seconds": rec["wall_seconds"]}
        elif kind == "error":
            job.error = rec["error"]
            job.traceback = rec.get("traceback", "")
        else:
            others.append(rec)
    if not job.outcome and not job.error:
        job.error = crash or "worker produced no result"
    elif crash and not job.error:
        job.error = crash
    job.status = "error" if job.error else "done"
    return others


def upgrade_repair(r: dict) -> dict:
    """A repair record of any format as one of the current format (old
    records: one edit per change; no ``vacuous`` when it was not recorded)."""
    if all("edits" in c for c in r.get("changes", [])):
        return r
    changes = [{"line": c["line"], "start": c["start"], "end": c["end"], "function": c.get("function"),
                "kind": c.get("kind"), "before": c.get("original", c["old_text"]),
                "after": c.get("replacement", c["new_text"]),
                "edits": [{"start": c["start"], "end": c["end"], "old": c["old_text"], "new": c["new_text"],
                           "line": c["line"]}]}
               for c in r["changes"]]
    return {**r, "scheme": r.get("scheme", "mutation"), "changes": changes}


def edits(r: dict) -> list[dict]:
    """The edits of a repair record, in source order."""
    return sorted((e for c in r["changes"] for e in c["edits"]), key=lambda e: e["start"])


def edits_label(r: dict) -> str:
    """A repair as ``{L104 `>`→`>=`, …}``."""
    return "{" + ", ".join(f"L{e['line']} `{e['old']}`→`{e['new']}`" for e in edits(r)) + "}"


def repair_key(r: dict) -> frozenset:
    """What makes two repairs the same: their (offset, new text) edits."""
    return frozenset((e["start"], e["new"]) for e in edits(r))
