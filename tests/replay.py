"""Replay a counterexample with gcc: compile the program with the
counterexample's input values and check that it fails where crepair says.

Inputs are ``nondet_*()`` calls (values returned in the order the run reads
them).  Uninitialized scalar locals cannot be set from outside: a
counterexample that reads one is replayed only if its value does not matter
(gcc's is whatever the stack holds); uninitialized arrays and entry
parameters are not replayed here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_TYPES = {
    "int": "int", "uint": "unsigned int", "unsigned": "unsigned int", "char": "char", "uchar": "unsigned char",
    "short": "short", "ushort": "unsigned short", "long": "long", "ulong": "unsigned long", "bool": "_Bool",
    "_Bool": "_Bool",
}


def _nondet(label: str) -> bool:
    return re.fullmatch(r"(__VERIFIER_)?nondet_\w+\(\)", label) is not None


def replayable(cex) -> bool:
    return all(_nondet(i.label) or (i.label.endswith("(uninitialized)") and isinstance(i.value, int))
               for i in cex.inputs if i.executed)


def shim(cex) -> str:
    """C definitions of the nondet functions returning the recorded values,
    and of the assumption functions (a failed assumption exits with 86)."""
    values = [i for i in cex.inputs if i.executed and _nondet(i.label)]
    names = sorted({i.label[:-2] for i in values} | {"nondet_int"})
    lines = ["#include <stdlib.h>", "#include <stdio.h>",
             f"static const long long crepair_values[] = {{{', '.join(str(int(i.value)) for i in values) or '0'}}};",
             f"static const int crepair_count = {len(values)};", "static int crepair_next;",
             "static long long crepair_take(void) {",
             "    if (crepair_next >= crepair_count) { fprintf(stderr, \"replay: more inputs read than recorded\\n\"); exit(87); }",
             "    return crepair_values[crepair_next++];", "}"]
    for name in names:
        ctype = _TYPES.get(name.split("nondet_", 1)[1], "int")
        lines.append(f"{ctype} {name}(void) {{ return ({ctype}) crepair_take(); }}")
    for assume in ("__CPROVER_assume", "__VERIFIER_assume", "assume"):
        lines.append(f"void {assume}(int c) {{ if (!c) {{ fprintf(stderr, \"replay: assumption fails\\n\"); exit(86); }} }}")
    return "\n".join(lines) + "\n"


def replay(path: Path, cex, tmp: Path) -> tuple[int, str]:
    """Compile ``path`` with the counterexample's inputs and run it; returns
    (exit status, standard error)."""
    (tmp / "shim.c").write_text(shim(cex))
    exe = tmp / "replayed"
    build = subprocess.run(
        ["gcc", "-std=gnu99", "-w", "-O0", "-include", "assert.h", "-o", str(exe), str(path), str(tmp / "shim.c")],
        capture_output=True, text=True, timeout=60,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    return run.returncode, run.stderr


def failed_line(stderr: str) -> int | None:
    """The line of the failed ``assert`` in glibc's message."""
    m = re.search(r":(\d+): [^:]*: Assertion", stderr)
    return int(m.group(1)) if m else None
