"""The motivating example of Wolverine2 (Verma & Roy, §2.1, Fig. 1/2):
``reverse`` of a doubly linked list with three bugs, repaired in two calls
against the states of Fig. 2 (c)-(f), every repair re-checked by running
the patched program under gdb; the final program reverses lists of length
0-6."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from crepair.frontend import load_program
from crepair.heap.build import build_function
from crepair.heap.localize import suspicious
from crepair.heap.states import load_spec
from crepair.records import Scheme
from crepair.schemes.heap import HeapOptions, HeapScheme, MatchesStates

DATA = Path(__file__).parent / "data" / "heap"
PROG = DATA / "fig1_reverse.c"
SPEC = DATA / "fig2_states.json"

pytestmark = pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")


def _session_call(program, spec, slots):
    scheme = HeapScheme(program, HeapOptions("reverse", states=str(SPEC), insert_slots=slots), spec=spec)
    repairs = list(scheme.repairs())
    return scheme, repairs


def test_first_call_repairs_the_loop_body():
    program = load_program(PROG, real_c=True)
    spec = load_spec(SPEC).prefix(4)  # entry, loop head before iterations 1, 2, 3 (Fig. 2 (c), (d))
    scheme, repairs = _session_call(program, spec, 0)
    assert len(repairs) == 1
    (change,) = repairs[0].changes
    assert (change.span.line, change.kind, change.before, change.after) == (
        16, "statement", "temp2 = current->prev;", "temp2 = current->next;")
    assert [(e.old, e.new) for e in change.edits] == [("prev", "next")]
    assert repairs[0].scheme == Scheme.HEAP
    assert isinstance(repairs[0].evidence, MatchesStates) and repairs[0].evidence.forced
    assert scheme.stats.tau == (0, 1, 0) and scheme.stats.widenings == 1
    # Algorithm 2 clears current = head (line 13) and current->next = temp1 (line 18)
    assert scheme.stats.suspicious == [1, 2, 4, 5, 6, 7, 9]


def _driver(text: str) -> str:
    """The repaired program with its main replaced by one that reverses
    lists of length 0..6 and checks both directions."""
    body = text[:text.index("int main()")]
    return body + """
#include <stdio.h>
int main(void) {
    for (int len = 0; len <= 6; len++) {
        head = NULL;
        for (int k = 1; k <= len; k++) push(k);      /* head: len, ..., 1 */
        reverse();                                   /* head: 1, ..., len */
        struct node *p = head, *last = NULL;
        for (int k = 1; k <= len; k++) {
            if (p == NULL || p->data != k || p->prev != last) { printf("bad %d\\n", len); return 1; }
            last = p;
            p = p->next;
        }
        if (p != NULL) { printf("long %d\\n", len); return 1; }
    }
    printf("ok\\n");
    return 0;
}
"""


def test_second_call_repairs_condition_and_inserts_head_and_the_result_reverses(tmp_path):
    program = load_program(PROG, real_c=True)
    full = load_spec(SPEC)
    _, (first,) = _session_call(program, full.prefix(4), 0)
    patched = load_program(PROG, text=first.patched, real_c=True)  # hot-patched, the session goes on
    scheme, repairs = _session_call(patched, full, 1)
    assert len(repairs) == 1
    kinds = {c.kind: c for c in repairs[0].changes}
    assert set(kinds) == {"condition", "insertion"}
    assert (kinds["condition"].span.line, kinds["condition"].before, kinds["condition"].after) == (
        14, "temp1 != NULL", "current != NULL")
    assert kinds["insertion"].after == "head = current;"
    assert 14 < kinds["insertion"].span.line < 20  # inside the loop body, before current moves on
    assert scheme.stats.tau == (1, 0, 1)
    assert not repairs[0].evidence.forced  # every call ends at the exit: nothing forced
    src = tmp_path / "final.c"
    src.write_text(_driver(repairs[0].patched))
    exe = tmp_path / "final"
    subprocess.run(["gcc", "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (0, "ok\n")


def test_the_original_program_crashes_on_the_forced_trace():
    from crepair.heap.execute import check_against, decisions, record

    program = load_program(PROG, real_c=True)
    fn = build_function(program, "reverse")
    spec = load_spec(SPEC).prefix(4)
    run = record(program, fn, force=decisions(spec, fn), limit=4, calls=1)
    assert run.crashed  # the buggy body sets current to NULL and the forced second iteration dereferences it
    assert check_against(spec, run)


def test_localization_keeps_the_faulty_statement_of_the_first_call():
    program = load_program(PROG, real_c=True)
    fn = build_function(program, "reverse")
    found = suspicious(fn, load_spec(SPEC).prefix(4))
    assert 6 in found and 3 not in found and 8 not in found
