"""``crepair repair --scheme heap`` with --states and with --reference
--checkpoints, ``crepair localize --method gradient``, --apply."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crepair.cli import main

DATA = Path(__file__).parent / "data" / "heap"
PROG = DATA / "fig1_reverse.c"
SPEC = DATA / "fig2_states.json"

pytestmark = pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")

CORRECT = PROG.read_text().replace("temp1 != NULL", "current != NULL").replace(
    "temp2 = current->prev", "temp2 = current->next").replace(
    "        current = current->prev;\n    }\n}", "        current = current->prev;\n    }\n    if (temp1 != NULL)\n"
    "        head = temp1->prev;\n}")


def test_repair_with_states_json(capsys):
    code = main(["repair", str(PROG), "--scheme", "heap", "--states", str(SPEC), "--insert-slots", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["outcome"] == "repaired" and out["scheme"] == "heap"
    (rep,) = out["repairs"]
    assert sorted(c["replacement"] for c in rep["changes"]) == ["current != NULL", "head = current;",
                                                                 "temp2 = current->next;"]
    assert rep["evidence"]["kind"] == "MatchesStates"


def test_repair_against_a_reference_and_apply(tmp_path, capsys):
    buggy = tmp_path / "rev.c"
    buggy.write_text(CORRECT.replace("temp2 = current->next", "temp2 = current->prev"))
    ref = tmp_path / "ref.c"
    ref.write_text(CORRECT)
    code = main(["repair", str(buggy), "--scheme", "heap", "--states-from", str(ref), "--checkpoints", "reverse",
                 "--apply"])
    out = capsys.readouterr().out
    assert code == 0
    assert "temp2 = current->prev;  =>  temp2 = current->next;" in out
    assert buggy.read_text() == CORRECT and (tmp_path / "rev.c.orig").exists()


def test_original_correct_and_no_repair_exit_codes(tmp_path, capsys):
    ref = tmp_path / "ref.c"
    ref.write_text(CORRECT)
    assert main(["repair", str(ref), "--scheme", "heap", "--states-from", str(ref), "--checkpoints",
                 "reverse,loops"]) == 6
    # the missing head = ... needs an insertion slot: none allowed (given explicitly: no widening), no repair
    assert main(["repair", str(PROG), "--scheme", "heap", "--states", str(SPEC), "--insert-slots", "0"]) == 5
    capsys.readouterr()


def test_localize_gradient(capsys):
    code = main(["localize", str(PROG), "--method", "gradient", "--states", str(SPEC), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["method"] == "gradient" and out["total"] == 9
    assert 16 in [loc["line"] for loc in out["locations"]]


def test_usage_errors(capsys):
    assert main(["repair", str(PROG), "--scheme", "heap"]) == 2
    assert main(["repair", str(PROG), "--scheme", "heap", "--states", str(SPEC), "--checkpoints", "f"]) == 2
    assert main(["repair", str(PROG), "--scheme", "mutation", "--states", str(SPEC)]) == 2
    err = capsys.readouterr().err
    assert "--states SPEC.json or --states-from" in err and "used by --scheme heap only" in err


def test_heap_states_alone_select_the_heap_scheme(capsys):
    assert main(["repair", str(PROG), "--states", str(SPEC), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scheme"] == "heap" and out["repairs"]


def test_an_inserted_statement_reads_as_an_insertion_in_text(capsys):
    code = main(["repair", str(PROG), "--scheme", "heap", "--states", str(SPEC), "--insert-slots", "1"])
    out = capsys.readouterr().out
    assert code == 0
    # the same repair whatever heap runs came before in the process (the first model in a fixed order)
    assert f"{PROG}:19: insert   head = current;\n" in out
    assert "temp2 = current->prev;  =>  temp2 = current->next;" in out


def test_the_readme_command_without_insert_slots_widens_to_one_slot_and_repairs():
    """The README's example as typed from the repository root: no
    --insert-slots, so 0 slots (no repair) and then 1 are tried."""
    root = Path(__file__).parents[1]
    run = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "tests/data/heap/fig1_reverse.c", "--scheme",
                          "heap", "--states", "tests/data/heap/fig2_states.json"], cwd=root, capture_output=True,
                         text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(root / "src")})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no repair with 0 insertion slot(s); trying 1\n" in run.stdout
    assert "tests/data/heap/fig1_reverse.c:19: insert   head = current;" in run.stdout
    assert "repaired: 1 repair(s) with 1 insertion slot(s)" in run.stdout


def test_localize_gradient_against_a_reference_and_its_usage_error(tmp_path, capsys):
    buggy = tmp_path / "rev.c"
    buggy.write_text(CORRECT.replace("temp2 = current->next", "temp2 = current->prev"))
    ref = tmp_path / "ref.c"
    ref.write_text(CORRECT)
    code = main(["localize", str(buggy), "--method", "gradient", "--states-from", str(ref), "--checkpoints", "reverse",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    wrong = next(i for i, text in enumerate(buggy.read_text().split("\n"), start=1) if "temp2 = current->prev" in text)
    assert code == 0 and out["function"] == "reverse" and wrong in [loc["line"] for loc in out["locations"]]
    assert main(["localize", str(buggy), "--method", "gradient", "--checkpoints", "reverse"]) == 2
    assert "--states SPEC.json or --states-from" in capsys.readouterr().err
