"""Test-driven repair runs: what ``codeflaws.py`` and ``f1x_tests.py`` share.

* :func:`run_crepair` runs ``python -m crepair.cli repair ... --json`` (the
  crepair the worker imports: the harness puts the snapshot first on
  PYTHONPATH, and the command inherits it) and reads its one JSON object;
* :func:`run_records` turns that object into the harness's records
  (``repair`` records as in ``harness/records.py``, plus the run's
  ``tests``, ``space`` and ``exploration`` in the ``done`` record's stats);
* :func:`patched`, :func:`same_program` and :func:`changed_lines` look at a
  patch the way the benchmark does, independently of crepair: the edits of
  a repair record are applied to the original text (offsets 0-based, end
  exclusive, right to left), and programs are compared as C token
  sequences (``tcas_sir.tokenize``: whitespace and comments dropped,
  parentheses around one token dropped,
  preprocessor lines kept).

Exit codes of ``crepair repair`` in test-driven mode: 0 plausible patch
found, 122 none in the search space, 123 no failing test, 4 unknown or
time limit, 2 usage, 3 bad input.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tcas_sir import apply_edits, tokenize

EXIT_CODES = {0: "plausible patch", 122: "no patch in the space", 123: "no failing test", 4: "unknown / time limit",
              2: "usage error", 3: "bad input", 7: "missing tool", 70: "internal error"}
GRACE = 120.0  # seconds crepair may run past its own --timeout before the worker kills it


def read_text(path: Path) -> str:
    """A file as crepair reads it: UTF-8 with surrogateescape, no newline translation."""
    return Path(path).read_bytes().decode("utf-8", "surrogateescape")


def write_text(path: Path, text: str) -> None:
    Path(path).write_bytes(text.encode("utf-8", "surrogateescape"))


# ---------------------------------------------------------------------------
# Running crepair
# ---------------------------------------------------------------------------


def crepair_command(args: list[str]) -> list[str]:
    """The argv of ``crepair ARGS`` run with this worker's Python and crepair."""
    return [sys.executable, "-m", "crepair.cli", *args]


def shown(args: list[str]) -> str:
    """``crepair ARGS`` as a shell-like string for the report."""
    return "crepair " + " ".join(a if a and all(c not in a for c in " '\"$") else repr(a) for a in args)


def _end(proc: subprocess.Popen, grace: float = 3.0) -> None:
    """Stop the run ``proc`` (a session of its own): SIGTERM, which crepair
    takes as Ctrl-C (its temporary folders go), then SIGKILL to whatever is
    left of its session ``grace`` seconds later."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=grace)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def run_crepair(args: list[str], cwd: Path, timeout: float) -> dict:
    """Run ``crepair ARGS`` in ``cwd``; it is killed ``GRACE`` s after
    ``timeout``.  Returns ``{"command", "exit", "json" (the parsed object or
    None), "stderr" (its last lines), "wall", "killed"}``."""
    t0 = time.monotonic()
    proc = subprocess.Popen(crepair_command(args), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ), start_new_session=True)
    killed = False
    try:
        out, err = proc.communicate(timeout=timeout + GRACE)
    except subprocess.TimeoutExpired:
        killed = True
        _end(proc)
        out, err = proc.communicate()
    except BaseException:  # Ctrl-C or SIGTERM (the harness's _stop): its session is its own, no signal reaches it
        _end(proc)
        raise
    try:
        data = json.loads(out.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        data = None
    tail = err.decode("utf-8", "replace").strip().splitlines()[-5:]
    return {"command": shown(args), "exit": proc.returncode, "json": data if isinstance(data, dict) else None,
            "stderr": "\n".join(tail), "wall": time.monotonic() - t0, "killed": killed}


def call_failure(call: dict) -> str:
    """Why a crepair call gave no result ("" when it gave one).  An internal
    or usage error is a failure (a bug of crepair or of the benchmark, to be
    run again with ``--retry-errors``); bad input or a missing tool is a
    result (outcome ``bad-input``, ``missing-tool``)."""
    if call["killed"]:
        return f"crepair did not stop within its time limit + {GRACE:g} s and was killed"
    if call["json"] is None:
        return f"crepair exited with {call['exit']} without JSON output" + (
            f": {call['stderr'].splitlines()[-1]}" if call["stderr"] else "")
    err = call["json"].get("error")
    if isinstance(err, dict) and err.get("kind") in ("internal", "usage"):
        return f"crepair {err['kind']} error (exit {call['exit']}): {err.get('message', '')}"
    return ""


# ---------------------------------------------------------------------------
# Its JSON as harness records
# ---------------------------------------------------------------------------

_REPAIR_KEYS = {"size", "scheme", "seconds", "vacuous", "changes", "evidence", "diff", "patched"}


def repair_record(n: int, r: dict) -> dict:
    """The ``n``-th repair of crepair's JSON as a harness ``repair`` record;
    other scalar fields of the repair (a cost or rank, if crepair gives
    one) are kept as they are."""
    ev = r.get("evidence")
    changes = []
    for c in r.get("changes", []):
        loc = c.get("location") or c.get("span") or {}
        edits = [{"start": e["span"]["start"], "end": e["span"]["end"], "old": e.get("old", ""), "new": e["new"],
                  "line": e["span"].get("line")} for e in c.get("edits", [])]
        changes.append({"line": loc.get("line"), "start": loc.get("start"), "end": loc.get("end"),
                        "function": c.get("function"), "kind": c.get("kind"),
                        "before": c.get("original", c.get("before")), "after": c.get("replacement", c.get("after")),
                        "edits": edits})
    rec = {"type": "repair", "index": n, "size": r.get("size", len(changes)), "seconds": r.get("seconds"),
           "scheme": r.get("scheme", "test-driven"), "vacuous": False,
           "evidence": ev.get("text", "") if isinstance(ev, dict) else str(ev or ""), "diff": r.get("diff", ""),
           "changes": changes}
    rec.update({k: v for k, v in r.items() if k not in _REPAIR_KEYS and isinstance(v, (str, int, float, bool))})
    return rec


def run_stats(data: dict, call: dict) -> dict:
    """The ``stats`` of a ``done`` record: crepair's ``tests``, ``space``,
    ``exploration`` and ``seconds``, the exit code and the wall time of
    the call, and the ranking's record (``semantic_ranking``)."""
    return {"tests": data.get("tests", {}), "space": data.get("space", {}),
            "exploration": data.get("exploration", {}), "seconds": data.get("seconds"),
            "semantic_ranking": data.get("semantic_ranking"),
            "exit": call["exit"], "call_wall": call["wall"], "command": call["command"]}


def outcome_of(call: dict) -> tuple[str, str, str]:
    """(outcome, stopped, reason) of a call that gave JSON: crepair's own,
    or for an error object (usage, bad input, …) its kind and message."""
    data = call["json"]
    err = data.get("error")
    if isinstance(err, dict):
        return err.get("kind", "error"), "", err.get("message", "")
    return data.get("outcome", "?"), str(data.get("stopped") or ""), str(data.get("reason") or "")


def exploration(job) -> dict:
    return job.stats.get("exploration", {}) if job is not None else {}


# ---------------------------------------------------------------------------
# Patches as the benchmark sees them
# ---------------------------------------------------------------------------


def edit_list(rec: dict) -> list[tuple[int, int, str]]:
    return sorted((e["start"], e["end"], e["new"]) for c in rec["changes"] for e in c["edits"])


def patched(original: str, rec: dict) -> str:
    """``original`` with the edits of repair record ``rec`` applied."""
    return apply_edits(original, edit_list(rec))


def token_texts(text: str) -> list[str]:
    """The C tokens of ``text``, with parentheses around a single token
    dropped (``(b)`` is ``b``): the only normalisation beyond layout."""
    toks = [t.text for t in tokenize(text)]
    out: list[str] = []
    for tok in toks:
        out.append(tok)
        if tok == ")" and len(out) >= 3 and out[-3] == "(" and out[-2] not in ("(", ")"):
            before = out[-4] if len(out) >= 4 else ""
            if not (before.isidentifier() or before in (")", "]")):  # not a call f(x) or a cast's operand
                out[-3:] = [out[-2]]
    return out


def same_program(a: str, b: str) -> bool:
    """Whether two C texts have the same tokens (whitespace and comments ignored)."""
    return token_texts(a) == token_texts(b)


def patch_key(rec: dict) -> str:
    """A repair as a short string of its edits, ``start:end:new;…``."""
    return ";".join(f"{s}:{e}:{n}" for s, e, n in edit_list(rec))


def changed_lines(original: str, rec: dict) -> tuple[int, str, str]:
    """The first changed line (1-based) and the original lines that hold
    the edits before and after the patch, whitespace runs collapsed."""
    edits = edit_list(rec)
    if not edits:
        return 0, "", ""
    lo = original.rfind("\n", 0, edits[0][0]) + 1
    hi = original.find("\n", max(edits[-1][1], edits[-1][0]))
    hi = len(original) if hi < 0 else hi
    after = apply_edits(original[lo:hi], [(s - lo, e - lo, n) for s, e, n in edits])
    return original.count("\n", 0, lo) + 1, " ".join(original[lo:hi].split()), " ".join(after.split())


def change_cell(original: str, rec: dict) -> str:
    """A repair as ``L12: before → after`` (the changed lines)."""
    line, before, after = changed_lines(original, rec)
    return f"L{line}: {before or '(empty)'} → {after or '(empty)'}" if line else "(no edit)"
