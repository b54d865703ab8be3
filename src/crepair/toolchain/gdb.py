"""Running a program under gdb, the host side shared by the heap engine's
recorder (:func:`crepair.heap.execute.record`, one batch run) and the
debug shell's live driver (:class:`crepair.debug.driver.Driver`, a
session started by :func:`start` and ended by :func:`stop`).

Both compile a harness (``gcc -g -O0``), write a JSON configuration for
their gdb-side script and start ``gdb -q -nx -batch -x SCRIPT``.  The
gdb-side scripts read the memory graph with ``gdb_graph.py`` of this
folder (gdb's own Python runs them: it cannot import crepair, so the
folder is passed in the environment, :data:`LIB_VAR`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from crepair import toolchain
from crepair.errors import BadInput

LIB_VAR = "CREPAIR_GDB_LIB"  # the folder of gdb_graph.py, for the gdb-side scripts
LIB = str(Path(__file__).resolve().parent)


def tool(name: str, who: str = "the heap scheme") -> str:
    """The path of program ``name`` (gcc, gdb); raises ``MissingTool``
    saying that ``who`` runs programs under it."""
    return toolchain.find(name, f"{name} is not installed; {who} runs programs under it "
                                f"(install it, e.g. apt-get install {name})")


def compile_harness(gcc: str, source: str, program_path: str, folder: Path, timeout: float | None = None) -> Path:
    """Compile the harness text ``source`` of the program at
    ``program_path`` (its folder is on the include path, for its local
    headers) into ``folder``/prog, with debugging information and no
    optimization, in at most ``timeout`` seconds (None: no limit).
    Returns the executable; raises ``BadInput`` naming the program and
    gcc's first error line when it does not compile (or that gcc did not
    finish in time)."""
    src, exe = folder / "harness.c", folder / "prog"
    src.write_text(source)
    inc = str(Path(program_path).resolve().parent)
    cc = toolchain.run([gcc, "-g", "-O0", "-w", "-I", inc, "-o", str(exe), str(src)], text=True, timeout=timeout)
    if cc.timed_out:
        raise BadInput(f"{program_path}: gcc did not finish in {timeout:g} s")
    if cc.returncode != 0:
        first = cc.stderr.strip().splitlines()[0] if cc.stderr.strip() else ""
        raise BadInput(f"{program_path}: does not compile: {first}")
    return exe


def graph_config(fn, exe: Path) -> dict:
    """The configuration ``gdb_graph.graph`` reads, for the function ``fn``
    (a :class:`crepair.heap.ir.Function`) of the executable ``exe``:
    ``program``, ``function``, ``globals``, ``node_type`` (the struct its
    pointers point to, e.g. "struct node"; "int" if none) and ``fields``."""
    tags = {t[4:] for t in fn.variables.values() if t.startswith("ptr:")}
    tag = next((t for t in fn.structs if t in tags), None)
    return {"program": str(exe), "function": fn.name, "globals": list(fn.globals),
            "node_type": f"struct {tag}" if tag else "int", "fields": list(fn.structs.get(tag, {})) if tag else []}


def gdb_command(gdb: str, script: Path) -> list[str]:
    """The command line running the gdb-side ``script`` in batch mode,
    without the user's gdbinit."""
    return [gdb, "-q", "-nx", "-batch", "-x", str(script)]


def start(gdb: str, script: Path, env: Mapping[str, str], cwd: str | os.PathLike,
          pass_fds: Sequence[int] = ()) -> toolchain.Process:
    """Start gdb running the gdb-side ``script`` (:func:`gdb_command`) for
    a live session in ``cwd`` with the environment ``env``; gdb inherits
    the open descriptors ``pass_fds`` (the session's own pipes: its
    console's streams are discarded, so that the program's output, gdb's
    and the session's never mix).  gdb runs in its own process group
    (:func:`stop` ends it with the program it debugs).  Raises
    ``MissingTool`` when gdb cannot be started."""
    return toolchain.spawn(gdb_command(gdb, script), cwd=cwd, env=env, stdin=toolchain.DEVNULL,
                           stdout=toolchain.DEVNULL, stderr=toolchain.DEVNULL, pass_fds=pass_fds,
                           remedy="install gdb, e.g. apt-get install gdb")


def stop(proc: toolchain.Process, ask: Callable[[], None], grace: float = 2.0) -> None:
    """End the gdb session ``proc``: call ``ask()`` (which asks the
    gdb-side script to quit; it may raise ``OSError`` when gdb is gone),
    wait at most ``grace`` seconds, then kill gdb and the program it
    debugs (its process group).  A session that ended already is left
    as it is."""
    if proc.poll() is not None:
        return
    try:
        ask()
        proc.wait(grace)
    except (OSError, toolchain.TimeoutExpired):
        toolchain.kill_group(proc)
        proc.wait()
