"""``crepair debug`` on Wolverine2's session of §2.1 (Fig. 1 program, Fig. 2
pictures) as a script: the paper's commands in order, two ``repair`` calls
(bug 2, then bugs 1 and 3 with one insertion), ``rewrite``, and the
pictures of Fig. 2 (a)-(f)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
PROG = DATA / "heap" / "fig1_reverse.c"

pytestmark = pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")


def crepair(*args: str, cwd: Path | None = None, code: int = 0) -> str:
    """``crepair ARGS`` in a fresh process, as a person runs it (from
    ``cwd``): its output (exit ``code`` asserted).  Fresh, because among
    repairs of equal cost the one z3 returns can depend on the solver work
    done earlier in the process."""
    src = Path(__file__).parents[1] / "src"
    run = subprocess.run([sys.executable, "-c", "import sys; from crepair.cli import main; sys.exit(main(sys.argv[1:]))",
                          *args], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(src)}, timeout=600,
                         cwd=cwd)
    assert run.returncode == code, run.stdout[-2000:] + run.stderr
    return run.stdout


def _session(tmp_path, script: str) -> str:
    text = (DATA / "debug" / script).read_text().replace("OUT/", f"{tmp_path}/")
    (tmp_path / "s.txt").write_text(text)
    return crepair("debug", str(PROG), "--script", str(tmp_path / "s.txt"), "--pictures", str(tmp_path / "pics"))


@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    """The paper's session, run once: (its folder, its transcript)."""
    tmp = tmp_path_factory.mktemp("fig1")
    return tmp, _session(tmp, "fig1_session.txt")


def _edges(dot: Path) -> set[tuple[str, str, str]]:
    """(source, field or 'var', target) of each arrow of a DOT picture; NULL targets as 'NULL'."""
    out = set()
    for a, b, attrs in re.findall(r"^\s*(\S+) -> (\S+) \[(.*)\];$", dot.read_text(), re.M):
        b = "NULL" if b.startswith("null") else b
        if a.startswith("var_"):
            out.add((a[4:], "var", b))
        else:
            node, field = a.split(":")
            out.add((node, field, b))
    return out


def _marked(dot: Path, color: str) -> set[str]:
    return {m for m in re.findall(r"^\s*(\S+) -> \S+ \[.*color=\"" + color + r"\"", dot.read_text(), re.M)}


def _diffs(out: str) -> list[str]:
    return re.findall(r"^(?:\+|-)(?!\+\+|--).*$", out, re.M)


def test_the_papers_session_repairs_bug_2_then_bugs_1_and_3(paper):
    tmp_path, out = paper
    assert [int(x) for x in re.findall(r"checkpoint (\d+)", out)] == [1, 2, 3, 4]
    assert out.count("repair synthesized") == 2 and "error:" not in out
    first, second = out.split("repair synthesized")[1:]
    assert _diffs(first.split("checked:")[0]) == ["-        temp2 = current->prev;", "+        temp2 = current->next;"]
    # the paper's FIX1 and FIX3 (Fig. 1): the condition, and head set after the loop (one insertion)
    assert _diffs(second.split("checked:")[0]) == ["-    while (temp1 != NULL) {", "+    while (current != NULL) {",
                                                   "+    head = temp1->prev;"]
    assert "τ_grd 1, τ_stm 0, τ_ins 1" in second
    fixed = (tmp_path / "fixed.c").read_text()
    assert "temp2 = current->next;" in fixed and "while (current != NULL)" in fixed
    assert PROG.read_text().count("temp2 = current->prev;") == 1  # the original is untouched
    # the list of main's first call, reversed by the rewritten program
    body = fixed[:fixed.index("int main()")] + """
#include <stdio.h>
int main(void) {
    push(2); push(4); push(8); push(10);
    reverse();
    for (struct node *p = head; p; p = p->next) printf("%d%s", p->data, p->prev ? "" : "<");
    printf("\\n");
    return 0;
}
"""
    (tmp_path / "main.c").write_text(body)
    subprocess.run(["gcc", "-o", str(tmp_path / "main"), str(tmp_path / "main.c")], check=True)
    run = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "2<4810\n")


def test_the_script_is_the_papers_commands_in_order():
    """§2.1's transcript: start, four nexts through push, step into reverse,
    next, spec, enter, five nexts through an iteration, ..., leave, change,
    spec, repair (the paper's iterations 3 and 4 written out like the first)."""
    words = [c.strip() for line in (DATA / "debug" / "fig1_session.txt").read_text().splitlines()
             if not line.startswith("#") for c in line.split(";") if c.strip()]
    assert words[:5] == ["start", "next", "next", "next", "next"] and words[5:8] == ["step", "next", "spec"]
    assert words[8:14] == ["enter"] + ["next"] * 5
    assert words.count("next") == 4 + 1 + 5 * 4 and words.count("repair") == 2
    assert "watch" not in " ".join(words)


def test_the_pictures_of_fig2(paper):
    tmp_path, out = paper
    pics = tmp_path / "pics"
    chain = {("n1", "next", "NULL"), ("n1", "prev", "n2"), ("n2", "next", "n1"), ("n2", "prev", "n3"),
             ("n3", "next", "n2"), ("n3", "prev", "n4"), ("n4", "next", "n3"), ("n4", "prev", "NULL")}
    # the stops, one picture each: start and four nexts in main (01-05), step (06), next to the loop head (07) ...
    stops = re.findall(r"^(line \d+|loop head, line \d+|exit of)", out, re.M)
    assert len(stops) == len(list(pics.glob("*.dot"))) == 39
    assert out.count("line 34 in main: push(2); push(4); push(8); push(10);") == 4
    assert "(statement 4 of 4)" in out and "line 35 in main: reverse();" in out
    assert "(crepair) step\nline 13: current = head; (call 1)" in out  # the paper's step shows current = head;
    assert "(crepair) enter\nline 15: temp1 = current->prev; (call 1)" in out
    a = _edges(pics / "05-line.dot")  # (a) the list push() built, before reverse
    assert a == chain | {("head", "var", "n4")}
    b = _edges(pics / "13-loop.dot")  # (b) after the first iteration (five nexts), no changes: current and n4's fields NULL
    assert {("current", "var", "NULL"), ("n4", "next", "NULL"), ("n4", "prev", "NULL")} <= b
    assert _marked(pics / "13-loop.dot", "red") == {"var_current"}  # line 19 ran last; n4->next changed at line 18
    c = _edges(pics / "15-loop.dot")  # (c) the user's changes: current -> n3, n4->prev -> n3
    assert {("current", "var", "n3"), ("n4", "prev", "n3"), ("n4", "next", "NULL")} <= c
    assert _marked(pics / "15-loop.dot", "blue") == {"n4:prev", "var_current"}
    d = _edges(pics / "23-loop.dot")  # (d) after the second iteration and the changes
    assert {("current", "var", "n2"), ("n3", "prev", "n2"), ("n3", "next", "n4")} <= d
    e = _edges(pics / "30-loop.dot")  # (e) third iteration with the repair: nothing to change
    assert {("current", "var", "n1"), ("n2", "prev", "n1"), ("n2", "next", "n3")} <= e
    reversed_list = {("n1", "next", "n2"), ("n1", "prev", "NULL"), ("n2", "next", "n3"), ("n2", "prev", "n1"),
                     ("n3", "next", "n4"), ("n3", "prev", "n2"), ("n4", "next", "NULL"), ("n4", "prev", "n3")}
    f = _edges(pics / "36-loop.dot")  # (f) at the end of the fourth iteration: reversed, head still n4
    assert reversed_list | {("head", "var", "n4"), ("current", "var", "NULL")} <= f
    assert _edges(pics / "37-exit.dot") == reversed_list | {("head", "var", "n4")}  # after leave
    assert _edges(pics / "38-exit.dot") == reversed_list | {("head", "var", "n1")}  # change head n1
    assert _marked(pics / "38-exit.dot", "blue") == {"var_head"}


def test_the_pictures_as_svg(paper):
    if not shutil.which("dot"):
        pytest.skip("Graphviz dot is not installed (apt-get install graphviz)")
    svg = (paper[0] / "pics" / "15-loop.svg").read_text()  # Fig. 2 (c)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert all(f">{n}<" in svg for n in ("n1", "n2", "n3", "n4", "current", "head"))
    assert 'stroke="blue"' in svg and 'stroke="red"' not in svg  # the user's changes
    assert 'stroke="red"' in (paper[0] / "pics" / "13-loop.svg").read_text()  # Fig. 2 (b): the program's


def test_continued_over_three_calls_the_repair_reverses_every_list(tmp_path):
    out = _session(tmp_path, "fig1_three_calls.txt")
    second = out.split("repair synthesized")[2].split("checked:")[0]
    assert _diffs(second) == ["-    while (temp1 != NULL) {", "+    while (current != NULL) {",
                              "+        head = current;"]
    assert "(3 calls, 14 events)" in out
    fixed = (tmp_path / "fixed.c").read_text()
    body = fixed[:fixed.index("int main()")] + """
#include <stdio.h>
int main(void) {
    for (int len = 0; len <= 6; len++) {
        head = NULL;
        for (int k = 1; k <= len; k++) push(k);
        reverse();
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
    (tmp_path / "main.c").write_text(body)
    subprocess.run(["gcc", "-o", str(tmp_path / "main"), str(tmp_path / "main.c")], check=True)
    run = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "ok\n")


@pytest.mark.parametrize("name", ["fig1_reverse.c", "./fig1_reverse.c"])
def test_the_session_from_the_program_s_own_folder(tmp_path, name):
    """``cd DIR && crepair debug prog.c --script S``: gdb names a bare file
    by its absolute path; the session must still stop in main, enter one
    statement at a time and repair (it ran past main, exit 0, before)."""
    shutil.copy(PROG, tmp_path / "fig1_reverse.c")
    (tmp_path / "s.txt").write_text((DATA / "debug" / "fig1_session.txt").read_text().replace("OUT/", ""))
    out = crepair("debug", name, "--script", "s.txt", cwd=tmp_path)
    assert out.split("(crepair) start\n")[1].startswith("line 34 in main: push(2);")
    assert out.count("repair synthesized") == 2 and "error:" not in out
    fixed = (tmp_path / "fixed.c").read_text()
    assert "temp2 = current->next;" in fixed and "while (current != NULL)" in fixed


def test_a_session_whose_commands_fail_exits_9(tmp_path):
    (tmp_path / "s.txt").write_text("start\nfrobnicate\nnext\nquit\n")
    out = crepair("debug", str(PROG), "--script", str(tmp_path / "s.txt"), code=9)
    assert "error: unknown command 'frobnicate' (type help)" in out
