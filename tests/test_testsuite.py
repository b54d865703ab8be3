"""Test specifications, project copies, builds, test runs and coverage, on
small projects written here: a driver-contract project (Makefile + test.sh)
and a folder of input/output pairs without a Makefile."""

from __future__ import annotations

import hashlib
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cprog import SHARED
from crepair.errors import BadInput, UsageError
from crepair import testsuite as ts  # a module, so pytest does not take TestOutcome & co. for test classes
from crepair.testsuite import BuildKind, Workspace, collect_spectrum, load_tests, normalize_output, run_test, run_tests

Outcome = ts.TestOutcome

# prints "big" for x > 2, else "small": the intended condition is x >= 2
PROG = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int unused;
    int x = atoi(argv[1]);
#ifdef CREPAIR_TEST_FLAG
    return 7;
#endif
    if (x > 2)
        printf("big\n");
    else
        printf("small\n");
    return 0;
}
"""

# -Werror with an unused variable: only the wrapper's dropping of -Werror lets it build
MAKEFILE = "CC = false\nCFLAGS = -Wall -Werror\nall: prog\nprog: prog.c\n\t$(CC) $(CFLAGS) prog.c -o prog\n"

DRIVER = """#!/bin/sh
case "$1" in
    p1) [ "$(./prog 1)" = small ] ;;
    p2) [ "$(./prog 5)" = big ] ;;
    p3) [ "$(./prog 2)" = big ] ;;
    slow) sleep 30 & echo $! > child.pid; while :; do :; done ;;
    child) sleep 30 & echo $! > child.pid; exit 0 ;;
    gave-up) exit 124 ;;
    *) exit 1 ;;
esac
"""


def write(path: Path, text: str, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n") if text.startswith("\n") else text)
    if mode is not None:
        path.chmod(mode)
    return path


def driver_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write(root / "prog.c", PROG)
    write(root / "Makefile", MAKEFILE)
    write(root / "test.sh", DRIVER, 0o755)
    return root


# reads n, prints n*n; n == 3 crashes (a failing test with coverage); n < 0 loops forever
SQUARE = r"""
#include <stdio.h>
int main(void) {
    int n;
    scanf("%d", &n);
    if (n == 3)
        *(volatile int *)0 = 1;
    while (n < 0)
        ;
    printf("%d  \n\n", n * n);
    return 0;
}
"""


def folder_project(tmp_path: Path) -> Path:
    root = tmp_path / "sq"
    write(root / "square.c", SQUARE)
    tests = {"pos1": ("2", "4\n"), "pos2": ("5", "25"), "neg1": ("3", "9\n"), "pos10": ("1", "1 \n\n\n")}
    for name, (given, expected) in tests.items():
        write(root / "tests" / f"input-{name}", given + "\n")
        write(root / "tests" / f"output-{name}", expected)
    # held-out tests are never read; a lone heldout input would break a listing that took it in
    write(root / "tests" / "heldout-input-pos1", "-1\n")
    write(root / "tests" / "heldout-input-pos2", "7\n")
    write(root / "tests" / "heldout-output-pos1", "1\n")
    return root


def tree_hash(root: Path) -> dict[str, str]:
    out = {}
    for folder, _, names in os.walk(root):
        for n in names:
            p = Path(folder, n)
            data = os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
            out[str(p.relative_to(root))] = hashlib.sha256(data + oct(p.lstat().st_mode).encode()).hexdigest()
    return out


def dead(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


_OPENED: list[str] = []
_TRACK = {"on": False}


def _audit(event: str, args) -> None:
    if _TRACK["on"] and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def test_driver_outcomes_come_from_running_the_program(tmp_path):
    root = driver_project(tmp_path)
    spec = load_tests(root / "prog.c", driver=root / "test.sh", test_ids=["p1", "p2", "p3"])
    assert spec.build.kind == BuildKind.MAKE and spec.in_project and spec.driver == "test.sh"
    counter = ts.TestCounter()
    with spec.workspace() as ws:
        built = ws.build()
        assert built.ok, built.log  # CC=false and -Werror in the Makefile: the wrapper is CC, -Werror dropped
        runs = run_tests(spec, ws, counter=counter)
        assert {t: r.outcome for t, r in runs.items()} == {
            "p1": Outcome.PASS, "p2": Outcome.PASS, "p3": Outcome.FAIL}  # p3 fails, whatever its name
        assert runs["p3"].exit_code == 1 and counter.executions == 3
        # flags appended by CREPAIR_CFLAGS reach the build, and make -B rebuilds the same copy
        assert ws.build(("-DCREPAIR_TEST_FLAG",)).ok
        assert run_test(spec, "p1", ws).outcome == Outcome.FAIL
        assert ws.build().ok and run_test(spec, "p1", ws).passed


def test_a_relative_driver_is_found_in_the_project_and_runs_from_the_copy(tmp_path, monkeypatch):
    root = driver_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    spec = load_tests(root / "prog.c", driver="test.sh", test_ids=["p1"])
    assert spec.driver == "test.sh" and spec.in_project
    with spec.workspace() as ws:
        assert spec.invocation("p1", ws.root).argv == (str(ws.root / "test.sh"), "p1")


def test_time_outs_kill_the_whole_process_group(tmp_path):
    root = driver_project(tmp_path)
    spec = load_tests(root / "prog.c", driver=root / "test.sh", test_ids=["slow", "child", "gave-up"])
    with spec.workspace() as ws:
        assert ws.build().ok
        start = time.monotonic()
        run = run_test(spec, "slow", ws, timeout_ms=300)
        assert run.outcome == Outcome.TIMEOUT and 0.29 < run.seconds < 2 and time.monotonic() - start < 2
        child = int((ws.root / "child.pid").read_text())
        deadline = time.monotonic() + 2
        while not dead(child) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert dead(child)
        # a driver that ends normally leaves nothing behind either
        assert run_test(spec, "child", ws).passed
        child = int((ws.root / "child.pid").read_text())
        time.sleep(0.05)
        assert dead(child)
        assert run_test(spec, "gave-up", ws).outcome == Outcome.TIMEOUT  # exit 124


def test_extra_environment_reaches_the_test(tmp_path):
    root = tmp_path / "env"
    write(root / "prog.c", "int main(void) { return 0; }\n")
    write(root / "t.sh", '#!/bin/sh\n[ "$CREPAIR_CHOICE" = "$1" ]\n', 0o755)
    spec = load_tests(root / "prog.c", driver=root / "t.sh", test_ids=["3"])
    assert spec.build.kind == BuildKind.DIRECT
    with spec.workspace() as ws:
        assert ws.build().ok and (ws.root / "prog").exists()
        assert run_test(spec, "3", ws, env={"CREPAIR_CHOICE": "3"}).passed
        assert run_test(spec, "3", ws, env={"CREPAIR_CHOICE": "4"}).outcome == Outcome.FAIL


def test_folder_tests_compare_stdout_and_never_read_held_out_files(tmp_path):
    root = folder_project(tmp_path)
    _OPENED.clear()
    _TRACK["on"] = True
    try:
        spec = load_tests(root / "square.c", tests_dir=root / "tests")
        with spec.workspace() as ws:
            assert not any(p.name.startswith("heldout-") for p in ws.root.rglob("*"))
            assert ws.build().ok
            runs = run_tests(spec, ws, timeout_ms=2000)
            ws.replace("square.c", b"int main(void) { return nope; }\n")
            assert not ws.build().ok  # and leaves no stale program behind
            assert run_test(spec, "pos1", ws).outcome == Outcome.FAIL and not (ws.root / "square").exists()
        spectrum = collect_spectrum(spec)
    finally:
        _TRACK["on"] = False
    assert _OPENED and not [p for p in _OPENED if "heldout" in p]
    assert spec.ids == ("neg1", "pos1", "pos2", "pos10") and spec.build.kind == BuildKind.DIRECT
    assert {t: r.outcome for t, r in runs.items()} == {
        "neg1": Outcome.FAIL, "pos1": Outcome.PASS, "pos2": Outcome.PASS, "pos10": Outcome.PASS}
    assert runs["neg1"].exit_code < 0  # killed by SIGSEGV
    # the crashing test still has coverage (gcov's estimate near the crash, and marked so)
    lines = {t.test: t.lines for t in spectrum.tests}
    assert {4, 5} <= lines["neg1"] and {4, 5, 7, 9, 10} <= lines["pos1"] and 6 not in lines["pos1"]
    assert [t.test for t in spectrum.tests if not t.exact] == ["neg1"]
    assert [t.test for t in spectrum.failing] == ["neg1"]


def test_an_endless_program_times_out(tmp_path):
    root = folder_project(tmp_path)
    write(root / "tests" / "input-loop", "-4\n")
    write(root / "tests" / "output-loop", "16\n")
    spec = load_tests(root / "square.c", tests_dir=root / "tests", test_ids=["loop", "pos1"])
    assert spec.ids == ("loop", "pos1")
    with spec.workspace() as ws:
        assert ws.build().ok
        run = run_test(spec, "loop", ws, timeout_ms=200)
    assert run.outcome == Outcome.TIMEOUT and run.seconds < 1.5 and run.exit_code is None


def test_output_comparison_ignores_trailing_whitespace_only():
    assert normalize_output(b"1 2  \r\n3\t\n\n\n") == normalize_output(b"1 2\n3") == b"1 2\n3"
    assert normalize_output(b" 1\n") != normalize_output(b"1\n")
    assert normalize_output(b"1\n\n2\n") != normalize_output(b"1\n2\n")


def test_the_project_directory_is_never_changed(tmp_path):
    root = driver_project(tmp_path)
    outside = write(tmp_path / "outside.h", "#define LIMIT 2\n")
    (root / "limit.h").symlink_to(outside)
    write(root / ".git" / "HEAD", "ref: refs/heads/main\n")
    (root / "prog.c").chmod(0o444)
    before, outside_before = tree_hash(root), outside.read_bytes()
    spec = load_tests(root / "prog.c", driver=root / "test.sh", test_ids=["p1", "p3"])
    with Workspace(root, spec.build) as ws, Workspace(root, spec.build) as other:
        assert (ws.root / "limit.h").is_symlink() and not (ws.root / ".git").exists()
        ws.replace("limit.h", b"#define LIMIT 9\n")  # replaces the link, never writes through it
        ws.replace("prog.c", PROG.replace("x > 2", "x >= 2").encode())  # the copy of a read-only file
        assert ws.build().ok and other.build().ok
        assert run_test(spec, "p3", ws).passed and not run_test(spec, "p3", other).passed
        ws.restore("prog.c")
        assert ws.build().ok and not run_test(spec, "p3", ws).passed
        with pytest.raises(ValueError):
            ws.replace("../escape.c", b"")
        copies = (ws.root, other.root)
    collect_spectrum(spec)
    assert not any(c.exists() for c in copies)
    assert tree_hash(root) == before and outside.read_bytes() == outside_before


def test_a_build_failure_gives_the_compilers_first_error(tmp_path):
    root = tmp_path / "bad"
    write(root / "prog.c", "int main(void) {\n    return missing + 1;\n}\nint g(void) { return also_missing; }\n")
    write(root / "t.sh", "#!/bin/sh\nexit 0\n", 0o755)
    spec = load_tests(root / "prog.c", driver=root / "t.sh", test_ids=["p1"])
    with spec.workspace() as ws:
        built = ws.build()
    assert not built.ok and built.first_error.startswith("prog.c:2:") and "missing" in built.first_error
    with pytest.raises(BadInput, match="prog.c:2:.*missing"):
        collect_spectrum(spec)


def test_a_custom_build_command_gets_the_wrapper_as_cc(tmp_path):
    root = tmp_path / "custom"
    write(root / "src" / "prog.c", PROG)
    write(root / "t.sh", '#!/bin/sh\n[ "$(./out/prog 5)" = big ]\n', 0o755)
    build = 'mkdir -p out && $CC -Werror -Wall src/prog.c -o out/prog'
    spec = load_tests(root / "src" / "prog.c", driver=root / "t.sh", test_ids=["p2"], build=build, project=root)
    assert str(spec.program) == "src/prog.c" and spec.build.kind == BuildKind.SHELL
    spectrum = collect_spectrum(spec)
    assert spectrum.program == "src/prog.c" and [t.outcome for t in spectrum.tests] == [Outcome.PASS]
    assert {5, 9, 10, 13} <= spectrum.tests[0].lines and 12 not in spectrum.tests[0].lines


@pytest.mark.parametrize(
    "kwargs, error, what",
    [
        ({}, UsageError, "either"),
        ({"driver": "t.sh", "tests_dir": "tests"}, UsageError, "either"),
        ({"driver": "t.sh"}, UsageError, "--test-ids"),
        ({"driver": "nope.sh", "test_ids": ["p1"]}, UsageError, "no such file"),
        ({"driver": "plain.sh", "test_ids": ["p1"]}, UsageError, "not executable"),
        ({"driver": "t.sh", "test_ids": ["p1", "p1"]}, UsageError, "twice"),
        ({"tests_dir": "missing"}, UsageError, "no such directory"),
        ({"tests_dir": "empty"}, UsageError, "no tests"),
        ({"tests_dir": "tests", "test_ids": ["pos1", "pos7"]}, UsageError, "no test pos7"),
        ({"tests_dir": "lonely"}, BadInput, "input-pos1 has no output-pos1"),
        ({"tests_dir": "tests", "project": "elsewhere"}, UsageError, "not inside"),
    ],
)
def test_invalid_specifications_say_what_is_wrong(tmp_path, monkeypatch, kwargs, error, what):
    root = folder_project(tmp_path)
    write(root / "t.sh", "#!/bin/sh\nexit 0\n", 0o755)
    write(root / "plain.sh", "#!/bin/sh\nexit 0\n", 0o644)
    (root / "empty").mkdir()
    write(root / "lonely" / "input-pos1", "1\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(root)
    if "project" in kwargs:
        kwargs = {**kwargs, "project": tmp_path / "elsewhere"}
    with pytest.raises(error, match=what):
        load_tests(root / "square.c", **kwargs)
    with pytest.raises(BadInput, match="no such file"):
        load_tests(root / "nope.c", tests_dir="tests")


codeflaws = SHARED / "codeflaws" / "198-A-bug-9683801-9684235"


@pytest.mark.skipif(not codeflaws.is_dir(), reason="the Codeflaws benchmark is not here")
def test_a_codeflaws_defect_builds_with_its_makefile_and_fails_its_negative_test():
    spec = load_tests(codeflaws / "198-A-9683801.c", tests_dir=codeflaws)
    assert spec.build.kind == BuildKind.MAKE and spec.build.target is None  # its Makefile says FILENAME=...
    assert "neg1" in spec.ids and not any("heldout" in t for t in spec.ids)
    spectrum = collect_spectrum(spec)
    assert [t.test for t in spectrum.failing] == ["neg1"]
    fixed = load_tests(codeflaws / "198-A-9684235.c", tests_dir=codeflaws)
    assert fixed.build.target == "198-A-9684235"
    assert not collect_spectrum(fixed).failing


def test_a_makefile_that_does_not_name_the_program_builds_it_by_makes_rule(tmp_path):
    root = tmp_path / "m"
    write(root / "root.c", "#include <math.h>\n#include <stdio.h>\n"
          "int main(void) { double x; scanf(\"%lf\", &x); printf(\"%g\\n\", sqrt(x)); return 0; }\n")
    write(root / "Makefile", "LDFLAGS = -lm\nall:\n\t@echo not this one\n")
    write(root / "input-a", "16\n")
    write(root / "output-a", "4\n")
    spec = load_tests(root / "root.c", tests_dir=root)
    assert spec.build.kind == BuildKind.MAKE and spec.build.target == "root"
    with spec.workspace() as ws:
        built = ws.build()
        assert built.ok, built.log  # -lm before root.c in make's rule: LDLIBS=-lm links sqrt
        assert run_test(spec, "a", ws).passed
