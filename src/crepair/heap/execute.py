"""Real executions: the compiled program run under gdb, its states read.

The program is compiled (``gcc -g -O0``) from a *harness*: the user's text
with allocation wrappers (so nodes can be named n1, n2, … in order of
allocation) and each loop condition of the function under repair wrapped
in ``__crepair_loop(LINE, (cond))`` (a loop-head visit; gdb may force its
decision, as the ``enter``/``leave`` commands of a Wolverine2 session).
Memory the program allocates and the function's uninitialized locals hold
bytes 0xA5 (no node, the integer 0xA5A5A5A5), as the encoding assumes.
gdb runs :mod:`crepair.heap.gdb_helper` (gdb's Python API; started and
configured by :mod:`crepair.toolchain.gdb`) and sends back
the whole memory graph at each event as JSON lines; the solver never runs
inside gdb.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from crepair import toolchain
from crepair.frontend import CProgram
from crepair.heap.ir import INT, Function, loop_lines
from crepair.heap.states import Event, Spec, State
from crepair.toolchain.gdb import LIB, LIB_VAR, compile_harness, gdb_command, graph_config, tool
from crepair.toolchain.scratch import scratch

_PRELUDE = """#include <stdlib.h>
void *__crepair_malloc(unsigned long);
void *__crepair_calloc(unsigned long, unsigned long);
void __crepair_free(void *);
int __crepair_loop(int line, int c);
void __crepair_exit(void);
#define malloc(n) __crepair_malloc(n)
#define calloc(n, m) __crepair_calloc(n, m)
#define free(p) __crepair_free(p)
#line 1 "{path}"
"""

_EPILOGUE = """
#include <string.h>
#undef malloc
#undef calloc
#undef free
void *__crepair_nodes[4096];
char __crepair_freed[4096];
int __crepair_count;
void *__crepair_malloc(unsigned long n) {
    void *p = malloc(n);
    if (p) memset(p, 0xA5, n);  /* uninitialized memory, the same on every run */
    if (__crepair_count < 4096) __crepair_nodes[__crepair_count++] = p;
    return p;
}
void *__crepair_calloc(unsigned long n, unsigned long m) {
    void *p = calloc(n, m);
    if (__crepair_count < 4096) __crepair_nodes[__crepair_count++] = p;
    return p;
}
void __crepair_free(void *p) {
    for (int i = __crepair_count - 1; i >= 0; i--)
        if (__crepair_nodes[i] == p && !__crepair_freed[i]) { __crepair_freed[i] = 1; break; }
    free(p);
}
__attribute__((noinline)) int __crepair_loop(int line, int c) { return c; }
__attribute__((noinline)) void __crepair_exit(void) { }
"""


@dataclass(frozen=True, slots=True)
class Run:
    """A recorded execution: the ``events`` (as a :class:`Spec` trace),
    ``crashed`` (the program stopped on a signal inside the function, or
    gdb failed: ``error``)."""

    spec: Spec
    crashed: bool
    error: str = ""


def harness(text: str, fn: Function, path: str, lines: list[int] | None = None, exit_hook: bool = False) -> str:
    """The harness source of ``text`` (the program whose IR is ``fn``);
    loop ``k`` of ``fn`` (source order) reports line ``lines[k]`` (default:
    its own line — the original's lines when ``text`` is a patched copy).
    ``exit_hook``: each ``return`` of ``fn`` (and the end of its body)
    first calls ``__crepair_exit()``, where gdb reads the locals the exit
    state holds (the postcondition of the last segment specifies them, as
    Algorithm 2's soundness needs: Wolverine2 Appendix A)."""
    loops = fn.loops()
    lines = lines or [lp.line for lp in loops]
    edits = []
    if exit_hook:
        for ins in fn.instrs:
            if ins.stmt is not None and ins.stmt.kind == "return":
                edits.append((ins.span.start, "{ __crepair_exit(); "))
                edits.append((ins.span.end, " }"))
        if fn.body.gaps and fn.body.gaps[-1].offset >= 0:
            edits.append((fn.body.gaps[-1].offset, "__crepair_exit(); "))
    for lp, line in zip(loops, lines):
        edits.append((lp.instr.span.start, f"__crepair_loop({line}, ("))
        edits.append((lp.instr.span.end, "))"))
    for at, ty in fn.uninit:  # an uninitialized local holds 0xA5 bytes, as malloc'ed memory does
        edits.append((at, " = (int)0xA5A5A5A5" if ty == INT else " = (void *)0xA5A5A5A5A5A5A5A5UL"))
    for off, new in sorted(edits, reverse=True):
        text = text[:off] + new + text[off:]
    return _PRELUDE.replace("{path}", path.replace("\\", "\\\\").replace('"', '\\"')) + text + _EPILOGUE


def record(program: CProgram, fn: Function, text: str | None = None, force: dict[int, int] | None = None,
           limit: int = 10_000, lines: list[int] | None = None, timeout: float = 30.0, calls: int = 100) -> Run:
    """Compile ``text`` (default: the program's own) and run it under gdb,
    recording the first ``calls`` calls of ``fn`` (one trace each):
    entry, loop-head visits, exit (with the locals at its return).
    ``force``: loop event number (0-based) -> forced decision (0 leave, 1
    enter).  ``limit``: stop after that many events; ``timeout``: seconds
    for the compile and the gdb run together (past it: a crashed run whose
    error is "time-out").  Raises
    ``MissingTool`` (gcc, gdb) and ``BadInput`` when the program does not
    compile."""
    gcc, gdb = tool("gcc"), tool("gdb")
    text = program.original if text is None else text
    with scratch("crepair-heap-") as tmp:
        start = time.monotonic()
        exe = compile_harness(gcc, harness(text, fn, program.path, lines, exit_hook=True), program.path, Path(tmp),
                              timeout)
        timeout = max(timeout - (time.monotonic() - start), 0.05)  # the whole run (compile and gdb) within it
        cfg = {**graph_config(fn, exe), "limit": limit, "calls": calls,
               "force": {str(k): v for k, v in (force or {}).items()}, "stdout": str(Path(tmp) / "out")}
        (Path(tmp) / "cfg.json").write_text(json.dumps(cfg))
        env = dict(os.environ, CREPAIR_HEAP_CONFIG=str(Path(tmp) / "cfg.json"), **{LIB_VAR: LIB})
        gdb_run = toolchain.run(gdb_command(gdb, Path(__file__).with_name("gdb_helper.py")), text=True, env=env,
                                timeout=timeout, cwd=tmp)
        if gdb_run.timed_out:
            return Run(Spec(fn.name, ()), True, "time-out")
        out = gdb_run.stdout
    traces, crashed, error = [], False, ""
    for line in out.splitlines():
        if line.startswith("@@CREPAIR-ERROR"):
            crashed, error = True, line[16:]
        elif line.startswith("@@CREPAIR "):
            ev = json.loads(line[10:])
            if ev["at"] == "crash":
                crashed, error = True, f"stopped in {ev.get('where')}"
                continue
            st = ev.get("state")
            if ev["at"] == "entry":
                traces.append([])
            traces[-1].append(Event(ev["at"], ev.get("line", 0), None if st is None else State.of_json(st)))
    return Run(Spec(fn.name, tuple(tuple(t) for t in traces)), crashed, error)


def decisions(spec: Spec, fn: Function) -> dict[int, int]:
    """The loop decisions of ``spec``'s trace: loop event number (0-based)
    -> 1 when the next event visits the same loop or one inside it, else 0
    (the last event has none)."""
    inner = {lp.line: loop_lines(lp.body) | {lp.line} for lp in fn.loops()}
    out, k = {}, 0
    for trace in spec.traces:
        for i, ev in enumerate(trace):
            if ev.at != "loop":
                continue
            if i + 1 < len(trace):
                nxt = trace[i + 1]
                out[k] = int(nxt.at == "loop" and nxt.line in inner.get(ev.line, {ev.line}))
            k += 1
    return out


def check_against(spec: Spec, run: Run) -> list[str]:
    """What ``run`` does differently from ``spec`` (empty: it satisfies
    it): events missing or of another kind, entities of other values."""
    out = []
    for i, trace in enumerate(spec.traces):
        got_trace = run.spec.traces[i] if i < len(run.spec.traces) else ()
        for k, want in enumerate(trace):
            if k >= len(got_trace):
                why = f": {run.error}" if run.crashed else ""
                out.append(f"call {i + 1}, event {k} ({want.at}) never happens{why}")
                break
            got = got_trace[k]
            if (got.at, got.line) != (want.at, want.line):
                out.append(f"call {i + 1}, event {k}: {got.at} {got.line or ''} instead of {want.at} {want.line or ''}")
                break
            if want.state is not None:
                diff = want.state.differences(got.state or State())
                if diff:
                    out.append(f"call {i + 1}, event {k} ({want.at}): differs in {', '.join(diff)}")
        if out:
            break
    return out
