"""The command line as a user meets it: usage errors, JSON errors, hints."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from crepair.cli import ExitCode, main
from cprog import CLAMP_TOO_HIGH as BUGGY, write_c


@pytest.mark.parametrize(
    "args, what",
    [
        (["verify", "{f}", "--unwind", "-1"], "--unwind"),
        (["repair", "{f}", "--timeout", "-5"], "--timeout"),
        (["localize", "{f}", "--timeout", "-5"], "--timeout"),
        (["repair", "{f}", "--max-repairs", "0"], "--max-repairs"),
        (["repair", "{f}", "--max-size", "0"], "--max-size"),
        (["repair", "{f}", "--scheme", "foo"], "scheme 'foo'"),
        (["repair", "{f}", "--components", "foo"], "components 'foo'"),
        (["localize", "{f}", "--components", "foo", "--method", "diagnosis"], "components 'foo'"),
        (["localize", "{f}", "--inputs", "0"], "--inputs"),
        (["localize", "{f}", "--sarif", "{tmp}/no/such/folder/out.sarif"], "does not exist"),
        (["verify"], "required"),
    ],
)
def test_bad_options_are_one_line_usage_errors(tmp_path, capsys, args, what):
    path = write_c(tmp_path, BUGGY)
    argv = [a.format(f=path, tmp=tmp_path) for a in args]
    assert main(argv) == ExitCode.USAGE
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("crepair: ") and what in lines[0]
    assert "Traceback" not in captured.err
    # under --json the error is JSON on stdout too
    assert main(argv + ["--json"]) == ExitCode.USAGE
    data = json.loads(capsys.readouterr().out)
    assert data["error"]["kind"] == "usage" and data["error"]["exit_code"] == 2


def test_bad_input_under_json_is_json(tmp_path, capsys):
    path = write_c(tmp_path, "int main(void) { long double x = 1.0; return 0; }")
    assert main(["verify", str(path), "--json"]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["error"]["kind"] == "bad-input" and "prog.c:1:" in data["error"]["message"]
    assert len(captured.err.strip().splitlines()) == 1


def test_timeout_zero_means_no_limit_in_every_command(tmp_path, capsys):
    path = write_c(tmp_path, BUGGY)
    assert main(["verify", str(path), "--timeout", "0"]) == ExitCode.VIOLATED
    assert main(["localize", str(path), "--timeout", "0"]) == ExitCode.OK
    assert main(["localize", str(path), "--timeout", "0", "--method", "diagnosis"]) == ExitCode.OK
    assert main(["repair", str(path), "--timeout", "0", "--quiet", "--level", "2"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "timeout none" in out and "unknown" not in out


def test_first_reports_it_stopped_not_unknown(tmp_path, capsys):
    path = write_c(tmp_path, BUGGY)
    assert main(["repair", str(path), "--level", "2", "--first", "--quiet"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "stopped after 1 repair as asked" in out and "unknown" not in out
    assert "covered every candidate of size <=" in out or "covered part of size" in out


def test_a_closed_pipe_is_not_a_traceback(tmp_path):
    path = write_c(tmp_path, BUGGY)
    proc = subprocess.run(
        f"{sys.executable} -m crepair.cli repair {path} --level 2 | head -1",
        shell=True, capture_output=True, text=True, timeout=120,
    )
    assert proc.stdout.startswith("crepair repair")
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


ALL_IN_MAIN = """
    int main(void) {
        int x = nondet_int();
        __CPROVER_assume(x >= 0 && x <= 10);
        int y = x + 2;
        assert(y <= x);
        return 0;
    }
"""


def test_localize_explains_when_everything_is_specification(tmp_path, capsys):
    path = write_c(tmp_path, ALL_IN_MAIN)
    assert main(["localize", str(path)]) == ExitCode.NO_REPAIR
    out = capsys.readouterr().out
    assert "no repairable location" in out and "--mutate-main" in out
    assert main(["localize", str(path), "--mutate-main"]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "must location set (2 locations)" in out and "prog.c:4:13 in main()" in out  # x + 2
    assert main(["repair", str(path), "--mutate-main", "--quiet"]) == ExitCode.OK
    assert "int y = x - 2;" in capsys.readouterr().out


def test_repair_gives_localize_s_mutate_main_hint_when_all_code_is_in_main(tmp_path):
    """Run as people do (a subprocess from the program's folder): "0
    repairable locations", exit 5, and the one line localize gives."""
    write_c(tmp_path, ALL_IN_MAIN)
    run = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "prog.c"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == ExitCode.NO_REPAIR, run.stderr
    hint = [line for line in run.stdout.splitlines() if "--mutate-main" in line]
    assert hint == ["Move the code under test out of main into a function, or pass --mutate-main to let the code "
                    "of main (not its assertions) be repaired."]


LONG_LOOP = """
    int main(void) {
        int s = 0;
        for (int i = 0; i < 13; i++)
            s = s + 1;
        int x = nondet_int();
        __CPROVER_assume(x >= 0 && x <= 3);
        assert(s + x != 2);
        return 0;
    }
"""


def test_bound_hint_is_the_smallest_bound_that_covers_every_run(tmp_path, capsys):
    path = write_c(tmp_path, LONG_LOOP)
    assert main(["verify", str(path), "--unwind", "4"]) == ExitCode.BOUND_TOO_SMALL
    out = capsys.readouterr().out
    assert "try --unwind 13" in out and "loop at" in out
    assert main(["verify", str(path), "--unwind", "13"]) == ExitCode.OK


def test_repair_names_the_loop_before_searching_when_the_bound_cuts_runs(tmp_path, capsys):
    path = write_c(tmp_path, LONG_LOOP.replace("s + x != 2", "x != 2"))
    main(["repair", str(path), "--unwind", "4", "--quiet", "--mutate-main"])
    out = capsys.readouterr().out
    header = out.split("\n\n")[0]
    assert "the original program's runs go beyond the bound" in header and "loop at" in header
    assert "try --unwind 13" in header


def test_version_from_the_command_and_from_python_m(capsys):
    import subprocess
    import sys

    from crepair.version import __version__

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"crepair {__version__}"
    done = subprocess.run([sys.executable, "-m", "crepair", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"crepair {__version__}"


def test_progress_goes_to_the_terminal_and_the_report_to_the_redirected_stdout(tmp_path):
    # Issue 25: with stdout in a file and stderr a terminal, the header and
    # the violation went to the screen through the live display; only the
    # mutation scheme showed progress, and none after the first repair.
    pexpect = pytest.importorskip("pexpect")
    from test_repair import RANGE_TWO_BUGS

    write_c(tmp_path, RANGE_TWO_BUGS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TERM="xterm")
    cmd = (f"{sys.executable} -m crepair.cli repair prog.c --scheme mutation,template --level 2 "
           "--timeout 20 > out.txt")
    child = pexpect.spawn("bash", ["-c", cmd], cwd=str(tmp_path), env=env, timeout=300)
    screen = child.read().decode(errors="replace")
    child.close()
    assert child.exitstatus == ExitCode.OK, screen
    out = (tmp_path / "out.txt").read_text()
    assert out.startswith("crepair repair prog.c: scheme mutation,template")
    assert "the original program: assertion violated: prog.c:10" in out
    assert "repair 1 (size 2, mutation" in out and "summary" in out
    assert "crepair repair prog.c" not in screen and "assertion violated" not in screen
    assert "repair 1" not in screen
    assert "mutation, size level" in screen
    # the template stage runs after the mutation repairs: the display goes on
    assert re.search(r"templates, (finding failing inputs|diagnosis \d+ of at most 10): \d+ candidates? checked", screen)


def test_an_argparse_error_names_the_command_once(tmp_path):
    # Issue 25: "crepair: error: crepair repair: ..." and a JSON message
    # that repeated "error:".
    write_c(tmp_path, BUGGY)
    proc = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "prog.c", "--level", "7", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == ExitCode.USAGE
    assert proc.stderr.startswith("crepair: error: argument --level: invalid choice")
    assert proc.stderr.count("crepair") == 1 and proc.stderr.count("error") == 1
    error = json.loads(proc.stdout)["error"]
    assert error["kind"] == "usage" and error["message"].startswith("argument --level: invalid choice")
    proc = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "missing.c", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == ExitCode.BAD_INPUT
    assert proc.stderr.startswith("crepair: error: cannot read missing.c")
    assert json.loads(proc.stdout)["error"]["message"].startswith("cannot read missing.c")


def test_sir_tcas_without_entry_names_argv_and_suggests_entry(tmp_path):
    # Issue 25: SIR's tcas.c reads argv[1..12]; the message blamed pointers.
    from cprog import SHARED

    source = SHARED / "tcas" / "sir" / "versions" / "v1" / "tcas.c"
    if not source.exists():
        pytest.skip("SIR TCAS not available")
    (tmp_path / "tcas.c").write_text(source.read_text())
    proc = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "tcas.c"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == ExitCode.BAD_INPUT
    line = proc.stderr.strip()
    assert "\n" not in line and "pointers are not supported" not in line
    assert line.startswith("crepair: error: tcas.c:160:")
    assert "argv[3]" in line and "--entry" in line


def test_every_printed_bounded_repair_states_its_evidence(tmp_path, capsys):
    sum_c = (Path(__file__).resolve().parents[1] / "examples" / "sum.c").read_text()
    assert main(["repair", str(write_c(tmp_path, sum_c, "sum.c"))]) == ExitCode.OK
    out = capsys.readouterr().out
    repairs = out.count("\nrepair ")
    assert repairs >= 1
    # sum.c's loop runs n <= 5 times: the proof covers every run (unwinding assertions)
    assert out.count("  evidence: verified: every run ends within unwinding bound 8 and satisfies every "
                     "assertion") == repairs
