"""crepair.toolchain: the one place that starts processes."""

import os
import time

import pytest

from crepair import toolchain
from crepair.errors import MissingTool


def test_run_captures_the_output_and_the_exit_status(tmp_path):
    done = toolchain.run(["sh", "-c", "cat; echo err >&2; pwd; exit 3"], input=b"in\n", cwd=tmp_path)
    assert (done.returncode, done.ok, done.timed_out) == (3, False, False)
    assert done.stdout == f"in\n{os.path.realpath(tmp_path)}\n".encode() and done.stderr == b"err\n"


def test_run_merges_stderr_and_decodes_text():
    done = toolchain.run(["sh", "-c", "echo a; echo b >&2"], stderr=toolchain.STDOUT, text=True)
    assert done.ok and done.stdout == "a\nb\n" and done.stderr == ""


def test_a_time_out_kills_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "pid"
    start = time.monotonic()
    done = toolchain.run(["sh", "-c", f"sleep 60 & echo $! > {pid_file}; wait"], timeout=0.5)
    assert done.timed_out and done.returncode is None and time.monotonic() - start < 10
    grandchild = int(pid_file.read_text())
    for _ in range(50):  # the killed grandchild is reaped by init shortly
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the background sleep outlived the time-out")


def test_a_missing_tool_is_a_missing_tool_error_with_the_remedy():
    with pytest.raises(MissingTool, match="cannot run /no/such/tool: .*: install it"):
        toolchain.run(["/no/such/tool"], remedy="install it")
    with pytest.raises(MissingTool, match="^crepair needs xyz: apt-get install xyz$"):
        toolchain.find("crepair-no-such-tool", "crepair needs xyz: apt-get install xyz")
    assert toolchain.find("crepair-no-such-tool", "unused", "sh").endswith("/sh")


def _sleep_then(value, seconds):
    import time as _time

    _time.sleep(seconds)
    return value


def _fail():
    raise ValueError("from the child")


def _unsupported():
    from crepair.errors import SourcePoint, UnsupportedConstruct

    raise UnsupportedConstruct(SourcePoint("p.c", 3, 7), "goto")


def test_crepair_s_errors_cross_from_a_child_whole():
    # UnsupportedConstruct's own arguments (where, construct) once made it fail to unpickle in the parent: a
    # TypeError reported as crepair's internal error instead of the file:line:col of the construct
    from crepair.errors import SourcePoint, UnsupportedConstruct
    from crepair.toolchain.child import call_in_child

    with pytest.raises(UnsupportedConstruct) as caught:
        call_in_child(_unsupported, timeout=5)
    error = caught.value
    assert (str(error), error.construct, error.where) == ("p.c:3:7: unsupported construct: goto", "goto",
                                                          SourcePoint("p.c", 3, 7))


def test_a_call_in_a_child_returns_its_value_raises_its_error_and_is_killed_at_the_limit():
    import time as _time

    from crepair.toolchain.child import call_in_child

    assert call_in_child(_sleep_then, {"a": [1, 2]}, 0.0, timeout=5) == (True, {"a": [1, 2]})
    with pytest.raises(ValueError, match="from the child"):
        call_in_child(_fail, timeout=5)
    start = _time.monotonic()
    assert call_in_child(_sleep_then, 1, 30.0, timeout=0.5) == (False, None)  # a call that ignores every limit
    assert _time.monotonic() - start < 3


def test_a_started_child_call_runs_beside_the_caller_and_is_gone_once_answered_or_cancelled():
    # the staged run starts the reference's bounded check before its search and asks for the answer later
    import time as _time

    from crepair.toolchain.child import ChildCall

    call = ChildCall(_sleep_then, "ready", 0.5)
    _time.sleep(0.8)  # the caller works meanwhile: the answer is there when asked for
    start = _time.monotonic()
    assert call.result(5) == (True, "ready")
    assert _time.monotonic() - start < 0.3 and not call.running
    hung = ChildCall(_sleep_then, 1, 30.0)
    pid = hung._pid
    assert hung.running and not hung.wait(0.1)
    hung.cancel()
    assert not hung.running and hung.result(5) == (False, None)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(ValueError, match="from the child"):
        ChildCall(_fail).result(5)


def test_a_child_call_beside_the_caller_can_run_at_a_lower_priority():
    from crepair.toolchain.child import ChildCall

    assert ChildCall(os.nice, 0, nice=5).result(5) == (True, os.nice(0) + 5)
    assert ChildCall(os.nice, 0).result(5) == (True, os.nice(0))


def test_at_exit_a_live_child_dies_before_the_folder_it_writes_in_is_removed(tmp_path):
    """A run's scratch folder is removed at exit by a ``weakref.finalize``
    (Ctrl-C included) while a check started beside the search may still be
    writing in it: the child must be killed first, or the removal meets new
    files and leaves the folder behind."""
    import subprocess
    import sys
    from pathlib import Path

    script = f"""
import shutil, sys, tempfile, weakref, time
from pathlib import Path
from crepair.toolchain.child import ChildCall

def scribble(folder):
    k = 0
    while True:
        k += 1
        (Path(folder) / f"f{{k}}").write_text("x")

class Run:
    pass

run = Run()
folder = tempfile.mkdtemp(prefix="crepair-exit-", dir={str(tmp_path)!r})
removal = weakref.finalize(run, shutil.rmtree, folder, ignore_errors=True)
child = ChildCall(scribble, folder)
time.sleep(0.3)
sys.exit(0)
"""
    src = Path(__file__).resolve().parents[1] / "src"
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(src)},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert list(tmp_path.glob("crepair-exit-*")) == []
