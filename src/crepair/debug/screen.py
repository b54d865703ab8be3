"""Instruction screening for hot-patching (Wolverine2 §3, Algorithm
execute-statement): what a repair changed, as actions gdb carries out on
the program that keeps running.

The running program was compiled from ``old`` (its lines are the ones gdb
reports); the repair's text is ``new``.  Their line difference gives, per
line of ``old`` (1-based, keys are strings for JSON):

* ``changed``: a statement the repair replaced — gdb skips the line and
  evaluates the new statement (the paper's IR2gdbStm / gdb_exec_stm);
* ``deleted``: a statement the repair removed — skipped;
* ``guards``: a loop head whose condition changed — at the loop hook the
  decision is the new condition's value;
* ``after`` / ``before``: inserted statements, evaluated when the line
  before them has run (``after``) or when the run reaches the line after
  them (``before``: after a loop's closing brace or a block's opening one).

A statement here is one C assignment or call on a line of its own; gdb
evaluates it as an expression (``NULL`` as 0).  Anything else (a changed
``if``, a new block, several statements on a line) returns None: the
session then falls back to compiling the repaired program and replaying
the run to the same point.
"""

from __future__ import annotations

import difflib
import re

_STMT = re.compile(r"^\s*([^;{}]*[^;{}\s])\s*;\s*(//.*)?$")
_LOOP = re.compile(r"^\s*while\s*\((.*)\)\s*\{?\s*(//.*)?$")
_KEYWORDS = ("if", "else", "for", "while", "do", "return", "switch", "case", "goto", "break", "continue")


def _statement(line: str) -> str | None:
    """The expression of a one-statement line (without the ``;``), None
    for anything else."""
    m = _STMT.match(line)
    if not m or re.match(r"\s*(%s)\b" % "|".join(_KEYWORDS), m.group(1)):
        return None
    if re.match(r"\s*(struct\s+\w+|int|char|long|unsigned|short|void|const)\b", m.group(1)):
        return None  # a declaration
    return _gdb(m.group(1))


def _gdb(expr: str) -> str:
    return re.sub(r"\bNULL\b", "0", expr).strip()


def screening(old: str, new: str, loops: dict[int, int]) -> dict | None:
    """The screening actions taking the run of ``old`` to ``new`` (see the
    module's docstring); ``loops`` maps the loop lines of ``old`` to the
    lines their hook reports.  None: not expressible, rebuild instead."""
    a, b = old.splitlines(), new.splitlines()
    out: dict = {"changed": {}, "deleted": [], "guards": {}, "after": {}, "before": {}}
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op == "replace" and i2 - i1 == j2 - j1:
            for k in range(i2 - i1):
                line, old_line, new_line = i1 + k + 1, a[i1 + k], b[j1 + k]
                lo, ln = _LOOP.match(old_line), _LOOP.match(new_line)
                if lo and ln and line in loops:
                    out["guards"][str(loops[line])] = _gdb(ln.group(1))
                elif _statement(old_line) is not None and _statement(new_line) is not None:
                    out["changed"][str(line)] = _statement(new_line)
                else:
                    return None
        elif op == "delete":
            if any(_statement(x) is None for x in a[i1:i2]):
                return None
            out["deleted"].extend(range(i1 + 1, i2 + 1))
        elif op == "insert":
            stmts = [_statement(x) for x in b[j1:j2]]
            if any(s is None for s in stmts) or i1 == 0:
                return None
            prev = a[i1 - 1]
            if _statement(prev) is not None:
                out["after"].setdefault(str(i1), []).extend(stmts)
            elif i1 < len(a):
                out["before"].setdefault(str(i1 + 1), []).extend(stmts)
            else:
                return None
        else:
            return None
    return out


def describe(screen: dict) -> str:
    """One line: what the screening does (lines of the running program)."""
    parts = [f"line {k} replaced" for k in screen["changed"]]
    parts += [f"line {k} skipped" for k in screen["deleted"]]
    parts += [f"loop at line {k} decided by the new condition" for k in screen["guards"]]
    parts += [f"{len(v)} statement(s) run after line {k}" for k, v in screen["after"].items()]
    parts += [f"{len(v)} statement(s) run before line {k}" for k, v in screen["before"].items()]
    return "; ".join(parts) or "nothing"
