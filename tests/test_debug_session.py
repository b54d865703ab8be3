"""``crepair debug`` commands one by one: mistakes give one line and the
session goes on; checkpoints, save/load, rewrite, concrete, time limits,
crashes; the pictures; the interactive shell in a pseudo-terminal."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from crepair.debug.commands import Shell
from crepair.debug.picture import dot_picture, text_picture
from crepair.debug.session import Session
from crepair.heap.states import State, load_spec

DATA = Path(__file__).parent / "data"
PROG = DATA / "heap" / "fig1_reverse.c"
needs_gdb = pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")


def _shell(path=PROG, **kw) -> Shell:
    return Shell(Session(str(path), "reverse", **kw))


TO_LOOP = "start; next; next; next; next; step; next"  # §2.1: through the pushes, into reverse, to its loop head
ITERATION = "next; next; next; next; next"  # one iteration of the loop body, back at the loop head


def test_text_picture_marks_program_and_user_changes():
    before = State({"head": "n2", "current": "n2"}, {"n1": {"data": 1, "next": None}, "n2": {"data": 2, "next": "n1"}})
    after = State({"head": "n2", "current": "n1"}, {"n1": {"data": 1, "next": None}, "n2": {"data": 5, "next": None}})
    assert text_picture(after, before, {"n2.data"}).splitlines() == [
        "  head -> n2   current* -> n1",
        "  [n1| data = 1 | next -> NULL ]   <- current",
        "  [n2| data! = 5 | next* -> NULL ]   <- head",
        "  (* changed by the program since the last state, ! changed by you)"]
    dot = dot_picture(after, before, {"n2.data"})
    assert 'n2:next -> null2 [label="next", color="red"' in dot
    assert '<data> data = 5' in dot and "var_head -> n2 [style=dashed];" in dot


@needs_gdb
def test_mistakes_give_one_line_and_the_session_goes_on(tmp_path):
    sh = _shell()
    try:
        for line, expected in [
            ("repair", "error: repair: the specification is empty (commit states with 'spec' first)"),
            ("next", "error: the program is not running: 'start' it"),
            ("frobnicate", "error: unknown command 'frobnicate' (type help)"),
        ]:
            assert sh.run(line) == (expected, False)
        assert sh.run("start")[0].startswith("line 34 in main: push(2); push(4); push(8); push(10); (statement 1 of 4)")
        out, _ = sh.run("change curent n3")
        assert out == "error: change: 'curent' is not a variable of reverse here (variables: head)"
        assert sh.run("enter")[0] == "error: enter/leave: the program is not at a loop head (use next)"
        sh.run(TO_LOOP.removeprefix("start; "))
        assert sh.run("change current 7")[0] == "error: change: current is a pointer; give a node (n1, n2, ...) or NULL"
        assert sh.run("change n4->data n3")[0] == "error: change: n4->data is an integer; give a number"
        assert sh.run("change n9->next NULL")[0] == "error: change: no node 'n9' (nodes: n1, n2, n3, n4)"
        assert sh.run("change n4->nxt NULL")[0] == "error: change: a node has no field 'nxt' (fields: data, next, prev)"
        assert sh.run("change current banana")[0] == \
            "error: change: 'banana' is not a value (a node n1, n2, ..., NULL or a number)"
        assert sh.run("break 99")[0].startswith("error: break: the session stops at reverse's entry, loop heads (lines 14)")
        assert sh.run("resume 3")[0] == "error: resume: no checkpoint 3 (checkpoints: none yet)"
        assert sh.run("spec")[0] == "program state added to the specification: checkpoint 1"
        out, _ = sh.run("change n2->data 7")  # an integer field, after the mistakes: the session went on
        assert "[n2| data! = 7 |" in out
        assert sh.run("quit") == ("", True)
    finally:
        sh.session.close()


@needs_gdb
def test_a_program_that_does_not_compile(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text(PROG.read_text().replace("int main() {", "int main() {\n    struct node *q = 5 * head;"))
    sh = _shell(bad)  # a type error the parser lets through and gcc refuses
    out, done = sh.run("start; help")
    first, *rest = out.splitlines()
    assert first.startswith(f"error: {bad}: does not compile: ") and not done
    assert rest[0].startswith("commands")
    broken = tmp_path / "broken.c"
    broken.write_text(PROG.read_text().replace("int main() {", "int main() {\n    f(;"))
    from crepair.cli import main

    assert main(["debug", str(broken), "--script", "-"]) == 3  # a syntax error: one line, exit 3 (bad input)


@needs_gdb
def test_a_crash_and_a_hang_are_reported(tmp_path):
    sh = _shell()
    try:
        sh.run(f"{TO_LOOP}; enter; {ITERATION}; enter")
        out, _ = sh.run("next")  # bug 2 set current to NULL: line 15 of the forced second iteration dereferences it
        assert out.startswith("the program crashed (SIGSEGV in reverse)")
        assert sh.run("next")[0] == "error: the program crashed: 'start' again or 'resume' a checkpoint"
    finally:
        sh.session.close()
    hang = tmp_path / "hang.c"
    hang.write_text(PROG.read_text().replace("int main() {", "int main() {\n    for (volatile int i = 1; i; ) ;"))
    sh = _shell(hang, timeout=3.0)
    assert sh.run("start")[0].startswith("line 34 in main: for (volatile int i = 1; i; ) ;")
    out, _ = sh.run("next")
    assert out == "error: no answer from the program within 3 s (it hangs?); the run was stopped, 'start' again"
    assert sh.run("show")[0] == "error: show: the program is not running: 'start' it"


@needs_gdb
def test_checkpoint_hopping_save_load_rewrite_and_concrete(tmp_path):
    sh = _shell()
    try:
        sh.run(TO_LOOP)
        assert sh.run(f"spec; enter; {ITERATION}; change current n3; change n4 -> prev n3; spec")[0].count("checkpoint") == 2
        sh.run(f"enter; {ITERATION}; change current n2; change n3 -> prev n2; spec")
        assert sh.run(f"save {tmp_path / 'spec.json'}")[0].endswith("(1 calls, 4 events)")
        saved = load_spec(tmp_path / "spec.json")
        assert [e.at for e in saved.traces[0]] == ["entry", "loop", "loop", "loop"]
        assert saved.traces[0][2].state.vars == {"current": "n3"}
        assert saved.traces[0][2].state.nodes["n4"] == {"data": 10, "next": None, "prev": "n3"}
        # concrete: with line 16 (bug 2) trusted, the repair leaves it and inserts a statement before it
        # that gives temp2 the right node (the lock is a hard constraint: no bound of Algorithm 1 relaxes it)
        assert sh.run("concrete 16")[0] == "trusted lines: 16"
        assert sh.run("concrete 2")[0] == "error: concrete: no statement of reverse on line 2 (lines 12-19)"
        out, _ = sh.run("repair")
        assert "τ_grd 0, τ_stm 0, τ_ins 1" in out and "-        temp2 = current->prev;" not in out
        assert "+        current->prev = current->next;" in out
        assert sh.run("resume 3")[0].startswith("resumed checkpoint 3")  # back to before that repair
        assert sh.session.text == PROG.read_text()
        sh.session.trusted.clear()
        out, _ = sh.run("repair")
        assert "+        temp2 = current->next;" in out
        # hop back to checkpoint 1: the program before the repair, at the first loop head
        out, _ = sh.run("resume 1")
        assert out.startswith("resumed checkpoint 1\nloop head, line 14: while (temp1 != NULL) { (call 1, visit 1)")
        assert sh.session.text == PROG.read_text()
        assert sh.session.spec().events == 2
        target = tmp_path / "out.c"
        assert sh.run(f"rewrite {target}")[0] == f"repaired program written to {target} (no repair so far: the program as it was)"
        assert sh.run(f"rewrite {target}")[0].startswith(f"error: rewrite: {target} exists")
    finally:
        sh.session.close()
    # load: a new session follows the saved trace (its loop decisions forced) and can repair at once
    sh = _shell()
    try:
        out, _ = sh.run(f"load {tmp_path / 'spec.json'}")
        assert "the run follows it\nloop head, line 14" in out and "(call 1, visit 3)" in out
        assert sh.session.spec() == saved
        assert "+        temp2 = current->next;" in sh.run("repair")[0]
    finally:
        sh.session.close()


@needs_gdb
def test_rewrite_over_the_original_needs_apply_and_keeps_a_backup(tmp_path):
    prog = tmp_path / "fig1.c"
    prog.write_text(PROG.read_text())
    sh = _shell(prog)
    try:
        sh.run(f"{TO_LOOP}; spec; enter; {ITERATION}; change current n3; change n4 -> prev n3; spec; repair")
        assert sh.run(f"rewrite {prog}")[0].startswith(f"error: rewrite: {prog} exists")
        assert prog.read_text() == PROG.read_text()
        out, _ = sh.run(f"rewrite {prog} --apply")
        assert out == f"repaired program written to {prog} (backup {prog}.orig)"
        assert prog.read_text() == sh.session.text != PROG.read_text()  # one iteration: any fix of line 16 fitting it
        assert prog.read_text().splitlines()[15] != PROG.read_text().splitlines()[15]
        assert Path(f"{prog}.orig").read_text() == PROG.read_text()
    finally:
        sh.session.close()


@needs_gdb
def test_the_interactive_shell_in_a_pseudo_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    src = Path(__file__).parents[1] / "src"
    child = pexpect.spawn(sys.executable, ["-m", "crepair.cli", "debug", str(PROG)], cwd=str(tmp_path),
                          env={"PYTHONPATH": str(src), "TERM": "dumb", "PATH": "/usr/bin:/bin"},
                          encoding="utf-8", timeout=60, dimensions=(50, 200))
    try:
        for command, answer in [("start", "line 34 in main: push(2);"), ("next", "(statement 2 of 4)"),
                                (TO_LOOP.removeprefix("start; next; "), "loop head, line 14"),
                                ("change currrent n3", "'currrent' is not a variable of reverse here"),
                                ("spec", "checkpoint 1"), ("enter", "line 15: temp1 = current->prev;"),
                                ("next", "line 16: temp2 = current->prev;"), ("next; next; next; next", "visit 2"),
                                ("change current n3", "current! -> n3"),
                                ("change n4->prev n3", "prev! -> n3"), ("spec", "checkpoint 2"),
                                ("repair", "repair synthesized")]:
            child.expect_exact("(crepair) ")
            child.sendline(command)
            child.expect_exact(answer)
        child.expect_exact("temp2 = current->next;")
        child.expect_exact("(crepair) ")
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


@needs_gdb
def test_next_runs_one_statement_and_spec_refuses_a_point_between_events():
    sh = _shell()
    try:
        first = lambda line: sh.run(line)[0].splitlines()[0]
        assert first("start") == "line 34 in main: push(2); push(4); push(8); push(10); (statement 1 of 4)"
        assert first("next") == "line 34 in main: push(2); push(4); push(8); push(10); (statement 2 of 4)"
        assert "[n1| data* = 2 | next* -> NULL | prev* -> NULL ]   <- head" in sh.run("show")[0]
        assert first("next; next; next").startswith("line 34")
        assert first("show") == "line 35 in main: reverse();"
        sh.run("start")
        assert first("step") == "line 24 in push: struct node *n = malloc(sizeof(struct node));"
        assert first("next; next; next; next; next; next") == "line 25 in push: n->data = data;"
        assert first("show") == "line 31 in push: }"
        # back in main after push(2): the count goes on from the instructions run on the line
        assert first("next") == "line 34 in main: push(2); push(4); push(8); push(10); (statement 2 of 4)"
        assert first("next; next; next").startswith("line 34") and first("show") == "line 35 in main: reverse();"
        assert first("step") == "line 13: current = head; (call 1)"  # the entry passed, the declarations run
        assert [v.at for v in sh.session.calls[0]] == ["entry"]
        assert sh.run("spec")[0] == ("error: spec: line 13 is not an observation point; the heap engine's "
                                     "specification holds states at reverse's entry, loop heads and exit (next on to one)")
        out, _ = sh.run("change temp1 n2")  # a change between events: the program's state, not the specification
        assert out.splitlines()[1].startswith("  head -> n4   temp1! -> n2")
        out, _ = sh.run("next")
        assert out.splitlines()[0] == "loop head, line 14: while (temp1 != NULL) { (call 1, visit 1)"
        assert "current* -> n4   temp1 -> n2" in out
        assert first("spec") == "program state added to the specification: checkpoint 1"
        assert first("next") == "line 15: temp1 = current->prev; (call 1)"  # the guard holds (temp1 is n2)
        assert first("next; next; next; next; next").startswith("line 16")
        assert first("leave") == "exit of reverse (call 1)"  # the closing brace is no statement
        assert first("next") == "line 36 in main: head = NULL;"
        assert first("next; next").startswith("line 37 in main: push(7);")
        assert first("show") == "line 38 in main: reverse();"
        assert first("next") == "line 13: current = head; (call 2)"  # the function under repair is always entered
        assert first("next; leave") == "loop head, line 14: while (temp1 != NULL) { (call 2, visit 1)"
        assert first("show") == "exit of reverse (call 2)"
        assert first("next; next; step; next; next") == "line 39 in main: head = NULL;"
        assert first("show") == "exit of reverse (call 3)"
        assert first("next; next") == "line 41 in main: return 0;"
        assert first("show") == "line 42 in main: }"
        assert first("next") == "the program ended"
        assert [[v.at for v in c] for c in sh.session.calls] == [["entry", "loop", "loop", "exit"],
                                                                 ["entry", "loop", "exit"], ["entry", "loop", "exit"]]
    finally:
        sh.session.close()


@needs_gdb
def test_break_continue_finish_over_the_calls_of_main():
    sh = _shell()
    try:
        first = lambda line: sh.run(line)[0].splitlines()[0]
        assert first("start").startswith("line 34 in main")
        assert first("break reverse") == "breakpoint at reverse"
        assert first("continue") == "entry of reverse (call 1)"
        assert first("next") == "line 13: current = head; (call 1)"
        assert first("finish") == "exit of reverse (call 1)"
        assert first("continue") == "entry of reverse (call 2)"
        assert first("continue") == "entry of reverse (call 3)"
        assert first("continue") == "the program ended"
        assert first("next") == "error: the program is not running: 'start' it"
        assert first("break 14") == "breakpoint at 14"
        first("start")
        assert first("continue") == "entry of reverse (call 1)"  # the breakpoints stay over a new start
        assert first("continue") == "loop head, line 14: while (temp1 != NULL) { (call 1, visit 1)"
    finally:
        sh.session.close()


@needs_gdb
def test_the_programs_input_and_output_stay_apart_from_the_session(tmp_path):
    prog = tmp_path / "io.c"
    text = PROG.read_text().replace("#include <stdlib.h>", "#include <stdlib.h>\n#include <stdio.h>")
    prog.write_text(text.replace("    return 0;\n}", '    int k = 0;\n    if (scanf("%d", &k) == 1) printf("read %d\\n", k);\n'
                                 '    return 0;\n}'))
    (tmp_path / "in.txt").write_text("42\n")
    sh = _shell(prog, stdin=str(tmp_path / "in.txt"))
    try:
        out, _ = sh.run("start; continue")
        assert out.splitlines()[0] == "line 35 in main: push(2); push(4); push(8); push(10); (statement 1 of 4)"
        assert out.endswith("the program ended; its output:\nread 42")
        assert "read 42" not in out.split("the program ended")[0]
    finally:
        sh.session.close()


def test_a_gdb_session_that_does_not_quit_is_killed_with_what_it_started():
    """toolchain.gdb.stop: asked to quit, a session that does not end
    within its grace is killed with its whole process group (gdb and the
    program it debugs), as the driver's close does."""
    import os
    import time

    from crepair import toolchain
    from crepair.toolchain import gdb as gdb_host

    proc = toolchain.spawn(["sh", "-c", "sleep 60 & sleep 60"])
    asked = []
    start = time.monotonic()
    gdb_host.stop(proc, lambda: asked.append(True), grace=0.2)
    assert asked == [True] and proc.returncode is not None and time.monotonic() - start < 10
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)  # the background sleep, until the kernel reaps it
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("a process of the session's group still runs")
    gdb_host.stop(proc, lambda: asked.append(True))  # ended already: nothing asked
    assert asked == [True]
