"""The driver (Wolverine2 §3): gdb run from crepair's own process.

gdb runs :mod:`crepair.debug.gdb_live` (started, configured and stopped by
:mod:`crepair.toolchain.gdb`, as the heap engine's recorder) and talks JSON lines over two pipes
of their own; gdb's console output is discarded and the program reads and
writes files, so the program's input/output, gdb's traffic and the
session's never mix.  Every request has a time limit (seconds); a crash of
the program is an event, a hang or a dead gdb a :class:`DriverError` — the
session reports it and goes on.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import tempfile
import time
from pathlib import Path

from crepair.errors import BadInput
from crepair.frontend import CProgram
from crepair.heap.execute import harness
from crepair.toolchain import gdb as gdb_host
from crepair.toolchain.gdb import LIB, LIB_VAR, compile_harness, graph_config, tool
from crepair.heap.ir import Function


class DriverError(Exception):
    """gdb did not answer in time or died; the message is one line."""


class Driver:
    """One live run of ``text`` (the program ``program``'s current text,
    function ``fn``) under gdb.  ``lines``: the loop lines reported for the
    loops of ``fn`` (source order; default their own).  ``args``: the
    program's command-line arguments; ``stdin``: a file for its input;
    ``timeout``: seconds per request; ``layout``: the statement layout of
    :func:`crepair.debug.layout.layout` (statement-level ``next``).
    Raises ``MissingTool`` (gcc, gdb) and ``BadInput`` (does not
    compile).  Use as a context manager or call :meth:`close`."""

    def __init__(self, program: CProgram, fn: Function, text: str, lines: list[int] | None = None,
                 args: list[str] | None = None, stdin: str | None = None, timeout: float = 30.0,
                 layout: dict | None = None):
        gcc, gdb = tool("gcc", "crepair debug"), tool("gdb", "crepair debug")
        self.timeout = timeout
        self.tmp = tempfile.TemporaryDirectory(prefix="crepair-debug-")
        tmp = Path(self.tmp.name)
        try:
            exe = compile_harness(gcc, harness(text, fn, program.path, lines), program.path, tmp)
        except BadInput:
            self.tmp.cleanup()
            raise
        self.output = tmp / "out"
        cfg = {**graph_config(fn, exe), "stdin": stdin or os.devnull, "stdout": str(self.output),
               "args": " ".join(shlex.quote(a) for a in (args or [])),
               "source": os.path.realpath(program.path), "loop_lines": [lp.line for lp in fn.loops()],
               **(layout or {"multi": {}, "skip": []})}
        (tmp / "cfg.json").write_text(json.dumps(cfg))
        to_gdb_r, self._to_gdb = os.pipe()
        self._from_gdb, from_gdb_w = os.pipe()
        env = dict(os.environ, CREPAIR_DEBUG_CONFIG=str(tmp / "cfg.json"), CREPAIR_DEBUG_IN=str(to_gdb_r),
                   CREPAIR_DEBUG_OUT=str(from_gdb_w), **{LIB_VAR: LIB})
        helper = Path(__file__).with_name("gdb_live.py")
        try:
            self.proc = gdb_host.start(gdb, helper, env, tmp, pass_fds=(to_gdb_r, from_gdb_w))
        except BaseException:
            for fd in (self._to_gdb, self._from_gdb):
                os.close(fd)
            self.tmp.cleanup()
            raise
        finally:
            os.close(to_gdb_r)
            os.close(from_gdb_w)
        self._buf = b""

    def request(self, **req) -> dict:
        """Send one request, return its event (a dict, see
        :mod:`crepair.debug.gdb_live`).  Raises ``ValueError`` with gdb's
        one-line reason for a refused request and ``DriverError`` on a
        time-out or a dead gdb (the driver is then closed)."""
        try:
            os.write(self._to_gdb, (json.dumps(req) + "\n").encode())
        except OSError:
            self.close()
            raise DriverError("gdb has stopped") from None
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as sel:
            sel.register(self._from_gdb, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.close()
                    raise DriverError(f"no answer from the program within {self.timeout:g} s (it hangs?); "
                                      "the run was stopped, 'start' again")
                chunk = os.read(self._from_gdb, 65536)
                if not chunk:
                    self.close()
                    raise DriverError("gdb has stopped")
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        ans = json.loads(line)
        if not ans["ok"]:
            raise ValueError(ans["error"])
        return ans["event"]

    def program_output(self) -> str:
        """What the program wrote so far (stdout and stderr)."""
        try:
            return self.output.read_text(errors="replace")
        except OSError:
            return ""

    def close(self) -> None:
        gdb_host.stop(self.proc, lambda: os.write(self._to_gdb, b'{"cmd": "quit"}\n'))
        for fd in (self._to_gdb, self._from_gdb):
            try:
                os.close(fd)
            except OSError:
                pass
        self.tmp.cleanup()

    def __enter__(self) -> "Driver":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
