"""The heap IR from the project's front-end, states as JSON, the command
line (errors with file:line:col, exit codes) and fault injection."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crepair.cli import main
from crepair.errors import BadInput, UnsupportedConstruct
from crepair.frontend import load_program
from crepair.heap.build import build_function
from crepair.heap.states import State, load_spec, save_spec, spec_of_json

DATA = Path(__file__).parent / "data" / "heap"
PROG = DATA / "fig1_reverse.c"
SPEC = DATA / "fig2_states.json"
needs_gdb = pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")


def test_fig1_as_guarded_statements():
    fn = build_function(load_program(PROG, real_c=True), "reverse")
    assert [i.text() for i in fn.instrs] == [
        "temp1 = NULL;", "temp2 = NULL;", "current = head;", "(temp1 != NULL)", "temp1 = current->prev;",
        "temp2 = current->prev;", "current->prev = temp2;", "current->next = temp1;", "current = current->prev;"]
    assert [i.line for i in fn.instrs] == [12, 12, 13, 14, 15, 16, 17, 18, 19]
    assert [lp.line for lp in fn.loops()] == [14]
    assert fn.variables == {"head": "ptr:node", "current": "ptr:node", "temp1": "ptr:node", "temp2": "ptr:node"}
    assert fn.structs["node"] == {"data": "int", "next": "ptr:node", "prev": "ptr:node"}


@pytest.mark.parametrize("body, where, what", [
    ("p = p->next->next;", "5:9", "a field of an expression"),
    ("while (p) { break; }", "5:17", "Break"),
    ("p = q(p);", "5:9", "this expression"),
])
def test_outside_the_subset_names_file_line_col(tmp_path, body, where, what):
    path = tmp_path / "u.c"
    path.write_text("#include <stdlib.h>\nstruct node { int data; struct node *next; };\nstruct node *q(struct node *);\n"
                    f"void f(struct node *p) {{\n    {body}\n}}\n")
    with pytest.raises(UnsupportedConstruct) as exc:
        build_function(load_program(path, real_c=True), "f")
    assert str(exc.value).startswith(f"{path}:{where}: unsupported construct: ")
    assert what in str(exc.value)


def test_cli_reports_unsupported_in_one_line(tmp_path, capsys):
    path = tmp_path / "u.c"
    path.write_text("struct node { struct node *next; };\nvoid f(struct node *p) {\n    p = p->next->next;\n}\n")
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"function": "f", "trace": [{"at": "entry", "state": {"vars": {}, "nodes": {}}}]}))
    code = main(["repair", str(path), "--scheme", "heap", "--states", str(spec)])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1 and f"{path}:3:9: unsupported construct" in err


def test_states_round_trip_and_errors(tmp_path):
    spec = load_spec(SPEC)
    assert spec.function == "reverse" and [len(t) for t in spec.traces] == [7, 4, 3]
    save_spec(spec, tmp_path / "again.json")
    assert load_spec(tmp_path / "again.json") == spec
    assert spec.prefix(4).events == 4
    with pytest.raises(BadInput, match="node names are n1, n2"):
        spec_of_json({"function": "f", "trace": [{"at": "entry", "state": {"vars": {}, "nodes": {"x": {}}}}]})
    with pytest.raises(BadInput, match="starts with the function's entry"):
        spec_of_json({"function": "f", "trace": [{"at": "exit", "state": None}]})
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(BadInput, match="not JSON"):
        load_spec(bad)
    want = State({"p": "n1"}, {"n1": {"next": None}})
    assert want.differences(State({"p": "n2"}, {"n1": {"next": None}})) == ["p"]
    assert want.differences(State({"p": "n1"}, {})) == ["n1.next"]


@needs_gdb
def test_reference_states_recorded_with_gdb():
    from crepair.heap.execute import record

    text = PROG.read_text().replace("temp1 != NULL", "current != NULL").replace(
        "temp2 = current->prev", "temp2 = current->next")
    program = load_program(PROG, text=text, real_c=True)
    run = record(program, build_function(program, "reverse"))
    assert not run.crashed and [len(t) for t in run.spec.traces] == [7, 4, 3]
    first = run.spec.traces[0]
    assert first[0].state.vars == {"head": "n4"}  # entry: globals and parameters only
    assert first[0].state.nodes["n4"] == {"data": 10, "next": "n3", "prev": None}
    assert first[1].state.vars["current"] == "n4" and first[1].state.vars["temp1"] is None
    assert first[-1].state.nodes["n1"] == {"data": 2, "next": "n2", "prev": None}  # reversed (head not set)


@needs_gdb
def test_inject_is_deterministic_and_every_version_fails(tmp_path, capsys):
    correct = tmp_path / "rev.c"
    correct.write_text(PROG.read_text().replace("temp1 != NULL", "current != NULL").replace(
        "temp2 = current->prev", "temp2 = current->next"))
    args = ["inject", str(correct), "--function", "reverse", "--mutations", "1", "-n", "3", "--seed", "7"]
    assert main(args + ["-o", str(tmp_path / "a")]) == 0
    assert main(args + ["-o", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    versions = sorted(p.name for p in (tmp_path / "a").glob("rev_v*.c"))
    assert versions == ["rev_v1.c", "rev_v2.c", "rev_v3.c"]
    for v in versions:
        assert (tmp_path / "a" / v).read_text() == (tmp_path / "b" / v).read_text()
        record = json.loads((tmp_path / "a" / v.replace(".c", ".json")).read_text())
        assert len(record["mutations"]) == 1 and record["failure"]


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    src = Path(__file__).parents[1] / "src"
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(src)})


@needs_gdb
def test_injected_versions_of_a_program_with_a_local_header_are_repairable_where_they_are(tmp_path):
    """``crepair inject`` copies the ``#include "sll.h"`` header next to the
    versions it writes: verify and repair --scheme heap run from DIR."""
    node = "struct node {\n    int data;\n    struct node *next;\n    struct node *prev;\n};\n"
    correct = PROG.read_text().replace("temp1 != NULL", "current != NULL").replace(
        "temp2 = current->prev", "temp2 = current->next")
    assert node in correct
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sll.h").write_text("#ifndef SLL_H\n#define SLL_H\n" + node + "#endif\n")
    (tmp_path / "src" / "rev.c").write_text(correct.replace(node, '#include "sll.h"\n'))
    run = _cli("inject", "rev.c", "--function", "reverse", "-n", "1", "--seed", "7", "-o", "../out",
               cwd=tmp_path / "src")
    assert run.returncode == 0, run.stderr
    out = tmp_path / "out"
    assert (out / "sll.h").read_text() == (tmp_path / "src" / "sll.h").read_text()
    run = _cli("verify", "rev_v1.c", cwd=out)
    assert run.returncode == 0, run.stderr
    run = _cli("repair", "rev_v1.c", "--scheme", "heap", "--states", "spec.json", cwd=out)
    assert run.returncode == 0 and "repaired: 1 repair(s)" in run.stdout, run.stdout + run.stderr


def test_inject_help_names_the_files_it_writes(capsys):
    with pytest.raises(SystemExit):
        main(["inject", "--help"])
    assert "PROG_vK.c, PROG_vK.json and spec.json" in " ".join(capsys.readouterr().out.split())


def test_a_state_naming_an_unknown_variable_is_bad_input():
    from crepair.heap.repair import repair_ir

    program = load_program(PROG, real_c=True)
    spec = spec_of_json({"function": "reverse", "trace": [
        {"at": "entry", "state": {"vars": {"head": None}, "nodes": {}}},
        {"at": "loop", "line": 14, "state": {"vars": {"curent": None}, "nodes": {}}}]})
    with pytest.raises(BadInput, match="'curent' is not a variable of reverse"):
        repair_ir(build_function(program, "reverse"), spec)
