"""Hot-patching by instruction screening (Wolverine2 §3, Algorithm
execute-statement): a repair's edits carried out by gdb on the program that
keeps running — the changed statement skipped and the new one evaluated,
the repaired loop condition deciding at the loop hook, an inserted
statement run where the repaired program has it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crepair.debug.screen import describe, screening
from test_debug_fig1 import crepair

DATA = Path(__file__).parent / "data"
PROG = DATA / "heap" / "fig1_reverse.c"
LOOPS = {14: 14}


def test_the_papers_second_repair_as_screening_actions():
    old = PROG.read_text()
    new = (old.replace("temp2 = current->prev;", "temp2 = current->next;")
           .replace("while (temp1 != NULL) {", "while (current != NULL) {")
           .replace("        current = current->prev;\n    }\n", "        current = current->prev;\n    }\n"
                    "    head = temp1->prev;\n"))
    screen = screening(old, new, LOOPS)
    assert screen == {"changed": {"16": "temp2 = current->next"}, "deleted": [], "guards": {"14": "current != 0"},
                      "after": {}, "before": {"21": ["head = temp1->prev"]}}
    assert describe(screen) == ("line 16 replaced; loop at line 14 decided by the new condition; "
                                "1 statement(s) run before line 21")


def test_an_insertion_at_the_end_of_the_loop_body_runs_after_its_last_statement():
    old = PROG.read_text()
    new = old.replace("        current = current->prev;\n", "        current = current->prev;\n        head = current;\n")
    assert screening(old, new, LOOPS)["after"] == {"19": ["head = current"]}
    gone = old.replace("        current->next = temp1;\n", "")
    assert screening(old, gone, LOOPS)["deleted"] == [18]


def test_edits_gdb_cannot_carry_out_fall_back_to_recompiling():
    old = PROG.read_text()
    assert screening(old, old.replace("    if (head != NULL)", "    if (head == NULL)"), LOOPS) is None  # not a statement
    assert screening(old, old.replace("        temp1 = current->prev;\n", "        if (current) { temp1 = 0; }\n"),
                     LOOPS) is None


@pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")
def test_the_session_goes_on_over_main_s_next_call_with_the_repairs_screened(tmp_path):
    paper = [c for c in (DATA / "debug" / "fig1_session.txt").read_text().splitlines()
             if c and not c.startswith(("#", "rewrite", "quit"))]
    script = paper + ["next; next; next", "step", "next", "next", "next; next; next; next; next", "next", "quit"]
    (tmp_path / "s.txt").write_text("\n".join(script) + "\n")
    out = crepair("debug", str(PROG), "--script", str(tmp_path / "s.txt"), code=9)  # FIX3 fails on call 2: exit 9
    first, second = out.split("(crepair) repair\n")[1:]
    assert "hot-patched by instruction screening: line 16 replaced\n" in first
    # the running program was not restarted: the user's changes of the second iteration are still there
    assert "loop head, line 14: while (temp1 != NULL) { (call 1, visit 3)\n  head -> n4   current! -> n2" in first
    assert first.count("line 16: temp2 = current->next;   (hot-patched) (call 1)") == 2
    assert ("hot-patched by instruction screening: line 16 replaced; loop at line 14 decided by the new condition; "
            "1 statement(s) run before line 21") in second
    after = second.split("(crepair) step\n")[1]
    # call 2 (the list [7]): the repaired condition enters the loop without 'enter', then ends it
    assert after.splitlines()[0] == "line 13: current = head; (call 2)"
    assert "(crepair) next\nloop head, line 14: while (current != NULL) { (call 2, visit 1)" in after
    assert "(crepair) next\nline 15: temp1 = current->prev; (call 2)" in after
    assert "loop head, line 14: while (current != NULL) { (call 2, visit 2)\n  head -> n5   current* -> NULL" in after
    # the paper's FIX3 dereferences temp1 = NULL on a list of one node: one line, and the session goes on
    assert ("error: the repaired statement 'head = temp1->prev;' fails here: Cannot access memory at address 0x10\n"
            "line 21: } (call 2)") in after
    assert after.rstrip().endswith("(crepair) quit")
