"""Test-driven repair across several files of a project (f1x's ``--files
prog.c lib.c`` and file localization): the linked search space, meta-programs
with candidate-id offsets linked into one program, coverage of several
files, and repairs that name and write the file they change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from crepair import api
from crepair.frontend import load_program
from crepair.localization.spectrum import rank_files
from crepair.records import text_span
from crepair.testequiv.candidates import Candidate, Schema, SearchSpace, Site, SiteKind
from crepair.testequiv.linked import link
from crepair.testequiv.metaprogram import instrument, partition_generation, read_partition, run_environment, \
    write_partition
from crepair.testequiv.space import build_space
from crepair.testsuite import collect_spectrum, load_tests

GCC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(GCC is None or shutil.which("make") is None, reason="gcc and make are needed")

MAIN = """\
#include <stdio.h>
#include <stdlib.h>
#include "lib.h"

int main(int argc, char *argv[]) {
  int a = atoi(argv[1]), b = atoi(argv[2]);
  if (condition(a, b))
    printf("%d\\n", 0);
  else
    printf("%d\\n", 1);
  return 0;
}
"""
LIB = "#include \"lib.h\"\n\nint condition(int a, int b) {\n  return a > b;\n}\n"
DRIVER = """\
#!/bin/sh
case "$1" in
  p1) test "$(./program 1 2)" = 1 ;;
  p2) test "$(./program 2 1)" = 0 ;;
  n1) test "$(./program 2 2)" = 0 ;;
  *) exit 1 ;;
esac
"""


def two_files(root: Path) -> Path:
    """f1x's multifile test: the fault is lib.c's ``a > b``."""
    root.mkdir(exist_ok=True)
    (root / "program.c").write_text(MAIN)
    (root / "lib.c").write_text(LIB)
    (root / "lib.h").write_text("int condition(int a, int b);\n")
    (root / "Makefile").write_text("all: program\n\nprogram: lib.o\n")
    (root / "test.sh").write_text(DRIVER)
    (root / "test.sh").chmod(0o755)
    return root


def crepair(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from crepair.cli import main; sys.exit(main())",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=300)


TESTS = ("--tests", "test.sh", "--test-ids", "n1", "p1", "p2")


def test_the_fix_in_the_second_file_is_found_labelled_and_applied(tmp_path):
    root = two_files(tmp_path / "proj")
    proc = crepair("repair", "program.c", "lib.c", *TESTS, "--json", "--apply", cwd=root)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["file"] == "program.c" and data["files"] == ["program.c", "lib.c"]
    (rep,) = data["repairs"]
    assert rep["file"] == "lib.c" and rep["changes"][0]["location"]["file"] == "lib.c"
    assert [(e["old"], e["new"]) for e in rep["changes"][0]["edits"]] == [(">", ">=")]
    assert rep["diff"].startswith("--- a/lib.c\n+++ b/lib.c\n") and "+  return a >= b;" in rep["diff"]
    assert (root / "lib.c").read_text() == LIB.replace("a > b", "a >= b")
    assert (root / "lib.c.orig").read_text() == LIB and (root / "program.c").read_text() == MAIN
    assert "applied patch 1 to lib.c" in proc.stderr


def test_the_text_report_names_the_files_and_the_changed_one(tmp_path):
    root = two_files(tmp_path / "proj")
    proc = crepair("repair", "program.c", "lib.c", *TESTS, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("crepair repair program.c lib.c: scheme test-driven")
    assert "in 2 files" in proc.stdout and "  lib.c:4: > -> >=" in proc.stdout


def test_more_files_need_tests_and_the_project(tmp_path):
    root = two_files(tmp_path / "proj")
    proc = crepair("repair", "program.c", "lib.c", cwd=root)
    assert proc.returncode == 2 and "lib.c: several files are repaired by test-driven repair only" in proc.stderr
    (tmp_path / "other.c").write_text("int x;\n")
    proc = crepair("repair", "program.c", "../other.c", *TESTS, cwd=root)
    assert proc.returncode == 2 and "not inside the project directory" in proc.stderr
    proc = crepair("repair", "program.c", "lib.c", *TESTS, "--localize-files", cwd=root)
    assert proc.returncode == 2 and "not both" in proc.stderr


def test_the_spectrum_covers_every_file_asked_for(tmp_path):
    root = two_files(tmp_path / "proj")
    spec = load_tests(root / "program.c", driver=root / "test.sh", test_ids=["n1", "p1", "p2"])
    one = collect_spectrum(spec)
    both = collect_spectrum(spec, files=["lib.c"])
    assert one.files == () and both.files == ("program.c", "lib.c")
    assert [t.lines for t in both.tests] == [t.lines for t in one.tests]
    assert all(t.files["lib.c"] == {3, 4} for t in both.tests)
    assert both.of("lib.c").program == "lib.c" and both.of("lib.c").tests[0].lines == {3, 4}
    ranked = rank_files(both)
    assert {r.file for r in ranked} == {"program.c", "lib.c"}
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)


def test_one_file_linked_alone_keeps_its_space_and_two_interleave_by_cost(tmp_path):
    root = two_files(tmp_path / "proj")
    main, lib = load_program(root / "program.c", real_c=True), load_program(root / "lib.c", real_c=True)
    s_main, s_lib = build_space(main), build_space(lib)
    alone = link([("program.c", main, s_main, {})])
    assert alone.space == s_main and alone.local == tuple(range(len(s_main.candidates)))
    both = link([("program.c", main, s_main, {}), ("lib.c", lib, s_lib, {4: 0})])
    assert [c.cost for c in both.space.candidates] == sorted(c.cost for c in both.space.candidates)
    assert [c.id for c in both.space.candidates] == list(range(len(both.space.candidates)))
    assert both.parts[1].offset == len(s_main.candidates)
    for p, c in enumerate(both.space.candidates):
        part = both.part(p)
        mine = part.space.candidates[both.local[p]]
        assert (c.replacement, c.cost) == (mine.replacement, mine.cost)
        assert both.space.sites[c.site].span.file == part.program.path
        assert both.search_ids({both.runtime_id(p)}) == {p}
    # lib's site ranks first: among candidates of one cost, lib's come first
    first = both.space.candidates[0]
    assert both.space.sites[first.site].span.file.endswith("lib.c")


LIB_META = "int twice(int x) {\n  return x + x;\n}\n"
MAIN_META = ('#include <stdio.h>\nint twice(int x);\nint main(void) {\n  int y = 3;\n'
             '  printf("%d %d\\n", twice(y), y);\n  return 0;\n}\n')


def test_a_unit_that_does_not_own_the_candidate_behaves_as_the_original(tmp_path):
    start = LIB_META.index("x + x")
    site = Site(0, SiteKind.EXPR, text_span("lib.c", LIB_META, start, start + 5), "x + x", "twice", "int")
    codes = ["x * 3", "x + 3", "x - x"]  # on x = 3: 9, 6, 0
    space = SearchSpace((site,), tuple(Candidate(k, 0, Schema.EXPRESSION, c, f"({c})", 1) for k, c in enumerate(codes)))
    (tmp_path / "lib.c").write_text(instrument(LIB_META, space, offset=100))
    (tmp_path / "main.c").write_text(MAIN_META)
    done = subprocess.run([GCC, "-std=gnu99", "-w", "-O0", "lib.c", "main.c", "-o", "prog"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[:2000]

    def run(cand: int, listed=None, trace: bool = False) -> tuple[str, frozenset[int] | None, int]:
        part, log = tmp_path / "part", tmp_path / "trace"
        log.unlink(missing_ok=True)
        if listed is not None:
            write_partition(part, listed)
        env = run_environment(cand, partition=part if listed is not None else None, trace=log if trace else None)
        out = subprocess.run([str(tmp_path / "prog")], env={**os.environ, **env}, capture_output=True, text=True)
        cls = read_partition(part) if listed is not None else None
        gen = partition_generation(part) if listed is not None else 0
        assert log.exists() == (trace and 100 <= cand < 103)
        return out.stdout, cls, gen

    assert run(-1) == ("6 3\n", None, 0)
    for other in (0, 1, 2, 99, 103, 500):  # ids of other units: the original, files untouched
        assert run(other, listed={0, 1, 100, 101, 102}, trace=True) == ("6 3\n", frozenset({0, 1, 100, 101, 102}), 0)
    assert run(100)[0] == "9 3\n" and run(101)[0] == "6 3\n" and run(102)[0] == "0 3\n"
    # the owner projects its own (global) ids; ids of other units never survive
    out, cls, gen = run(101, listed={1, 100, 101, 102}, trace=True)
    assert out == "6 3\n" and cls == {101} and gen >= 1
    out, cls, _ = run(100, listed={5, 100, 102})
    assert out == "9 3\n" and cls == {100}
    # offset None (a program of its own) keeps the ids from 0
    assert "#define __CR_OFFSET 0\n#define __CR_LINKED 0\n" in instrument(LIB_META, space)


LOCALIZATION = {
    "program.c": '#include <stdio.h>\n#include <stdlib.h>\n#include "f.h"\n\n'
                 'int main(int argc, char *argv[]) {\n  int n = atoi(argv[1]);\n  f1(&n);\n'
                 '  printf("%d\\n", n);\n  return 0;\n}\n',
    "file1.c": '#include "f.h"\n\nvoid f1(int *i) {\n  skip();\n  f2(i);\n}\n',
    "file2.c": '#include "f.h"\n\nvoid f2(int *i) {\n  skip();\n  inc(i);\n  skip();\n  inc(i);\n}\n',
    "lib.c": '#include "f.h"\n\nvoid inc(int *i) {\n  (*i)++;\n}\n\nvoid skip(void) {}\n',
    "unused.c": '#include "f.h"\n\nint unused(int x) {\n  return x + 1;\n}\n',
    "f.h": "void f1(int *i);\nvoid f2(int *i);\nvoid inc(int *i);\nvoid skip(void);\nint unused(int x);\n",
    "Makefile": "all: program\n\nprogram: file1.o file2.o lib.o unused.o\n",
    "test.sh": '#!/bin/sh\ncase "$1" in\n  n1) test "$(./program 1)" = 2 ;;\n  n2) test "$(./program 2)" = 3 ;;\n'
               '  *) exit 1 ;;\nesac\n',
}


def test_file_localization_picks_the_files_the_failing_tests_execute(tmp_path):
    """f1x's localization test: the fix deletes one ``inc(i);`` of file2.c;
    unused.c is never executed, so never searched."""
    root = tmp_path / "proj"
    root.mkdir()
    for name, text in LOCALIZATION.items():
        (root / name).write_text(text)
    (root / "test.sh").chmod(0o755)
    run = api.repair_tests(root / "program.c", driver=root / "test.sh", test_ids=["n1", "n2"], localize_files=True,
                           timeout=120)
    (rep,) = list(run)
    assert {Path(f).name for f in run.stats.files} == {"program.c", "file1.c", "file2.c", "lib.c"}
    assert Path(rep.file).name == "file2.c" and rep.changes[0].kind == "guard"
    assert "if (0) inc(i);" in rep.patched and rep.patched.count("inc(i);") == 2
    assert rep.diff.splitlines()[0].endswith("file2.c")
    at_most_two = api.repair_tests(root / "program.c", driver=root / "test.sh", test_ids=["n1", "n2"],
                                   localize_files=True, max_files=2, timeout=120)
    assert len(at_most_two.stats.files) == 2
    at_most_two.close()
