"""A project copy to patch, build and test, never touching the user's files.

``Workspace(project, recipe)`` copies the project directory into a fresh
temporary directory (symbolic links stay links; ``.git`` and held-out
tests ``heldout-*`` are left out; every copied file and folder is made
writable by its owner).  Next to the copy it keeps its own ``bin`` folder
with crepair's compiler wrapper ``crepair-cc`` (package data) and links
``gcc`` and ``cc`` to it, first on ``PATH`` during builds, so Makefiles
that name gcc directly are built through the wrapper too.

The wrapper runs the real compiler (``$CREPAIR_REAL_CC``, default the
``gcc`` on ``PATH``) with the caller's arguments minus ``-Werror*``, then
the flags of ``$CREPAIR_CFLAGS``: ``build(extra_cflags=...)`` sets them,
e.g. ``--coverage -O0`` for coverage builds.  Builds run ``make -B`` (every
target remade, so the same copy can be rebuilt with other flags) — or the
user's ``--build`` command, which must then rebuild what changed itself.

>>> with spec.workspace() as ws:                         # doctest: +SKIP
...     ws.replace("prog.c", patched)
...     result = ws.build()
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from crepair import toolchain
from crepair.errors import MissingTool
from crepair.testsuite.spec import HELDOUT, BuildKind, BuildRecipe
from crepair.toolchain.scratch import scratch_folder

WRAPPER = "crepair-cc"
GCOV_FLUSH = "gcov-flush.h"
_ERRORS = (": error:", ": fatal error:", "undefined reference")  # the compiler's and the linker's
_FALLBACKS = ("error:", "Error ")


@dataclass(frozen=True, slots=True)
class BuildResult:
    """One build: ``ok`` when the command exited with 0 (within the time
    limit); ``log``: its standard output and error; ``seconds``: wall clock."""

    ok: bool
    log: str
    seconds: float

    @property
    def first_error(self) -> str:
        """The compiler's first error line (else the log's last line), for
        a one-line message; empty when ``ok``."""
        if self.ok:
            return ""
        lines = [line.strip() for line in self.log.splitlines() if line.strip()]
        for marks in (_ERRORS, _FALLBACKS):
            for line in lines:
                if any(mark in line for mark in marks):
                    return line
        return lines[-1] if lines else "the build failed"


def _ignore(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n == ".git" or n.startswith(HELDOUT)}


def _copy(src: str, dst: str) -> str:
    shutil.copy2(src, dst)
    mode = os.stat(dst).st_mode
    if not mode & stat.S_IWUSR:
        os.chmod(dst, mode | stat.S_IWUSR)
    return dst


class Workspace:
    """A writable copy of ``project`` (a directory), built by ``recipe``.

    Use it in a ``with`` block (or call :meth:`close`): the temporary
    directory is removed on exit.  Several workspaces may exist at once;
    one workspace is not meant for concurrent builds.  Raises
    ``MissingTool`` when no real compiler is found, ``OSError`` when the
    project cannot be copied.
    """

    def __init__(self, project: str | Path, recipe: BuildRecipe):
        self.project = Path(project).resolve()
        self.recipe = recipe
        real = shutil.which(os.environ.get("CREPAIR_REAL_CC", "gcc"))
        if real is None:
            raise MissingTool("crepair builds with gcc, which was not found: install gcc, "
                              "or set CREPAIR_REAL_CC to a C compiler")
        self._real_cc = str(Path(real).resolve())
        self._tmp, self._finalizer = scratch_folder(self, "crepair-")
        self.root = self._tmp / (self.project.name or "project")
        """The project copy (absolute): where builds and drivers run."""
        self.bin = self._tmp / "bin"
        self.bin.mkdir()
        shutil.copytree(self.project, self.root, symlinks=True, ignore=_ignore, copy_function=_copy)
        for folder, _, _ in os.walk(self.root):
            mode = os.stat(folder).st_mode
            if not mode & stat.S_IWUSR:
                os.chmod(folder, mode | stat.S_IWUSR | stat.S_IXUSR)
        package = resources.files("crepair.testsuite") / "cc"
        for name in (WRAPPER, GCOV_FLUSH):
            (self.bin / name).write_bytes((package / name).read_bytes())
        (self.bin / WRAPPER).chmod(0o755)
        for alias in ("gcc", "cc"):
            (self.bin / alias).symlink_to(WRAPPER)
        self.cc = str(self.bin / WRAPPER)
        """The compiler wrapper's absolute path (what CC is set to)."""

    @property
    def gcov_flush_header(self) -> Path:
        """A header that, ``-include``d in a coverage build, writes the
        coverage counters when the program dies of a signal."""
        return self.bin / GCOV_FLUSH

    def path(self, relative: str | os.PathLike) -> Path:
        """The absolute path in the copy of ``relative`` (a path relative to
        the project root); raises ``ValueError`` if it would leave the copy."""
        rel = Path(os.path.normpath(relative))
        if rel.is_absolute() or rel.parts[:1] == ("..",):
            raise ValueError(f"{relative}: not a path inside the project")
        return self.root / rel

    def replace(self, relative: str | os.PathLike, text: bytes) -> None:
        """Put ``text`` (bytes) in the copy at ``relative``, as a new regular
        file: a symbolic link there is replaced, never written through.
        Raises ``ValueError`` for a path leaving the copy."""
        target = self.path(relative)
        if not target.parent.resolve().is_relative_to(self.root.resolve()):
            raise ValueError(f"{relative}: its folder is a link out of the project")
        if target.is_symlink() or target.exists():
            target.unlink()
        target.write_bytes(text)

    def restore(self, relative: str | os.PathLike) -> None:
        """Put the project's own file ``relative`` back in the copy."""
        self.replace(relative, (self.project / self.path(relative).relative_to(self.root)).read_bytes())

    def environment(self, extra_cflags: Sequence[str] = (), env: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment of a build: the caller's, ``env`` on top, then
        ``CC`` (the wrapper), ``CREPAIR_REAL_CC``, ``CREPAIR_CFLAGS`` (the
        ``extra_cflags``, which must not contain spaces) and ``PATH``."""
        for flag in extra_cflags:
            if not flag or any(ch.isspace() for ch in flag):
                raise ValueError(f"compiler flag {flag!r}: flags go through CREPAIR_CFLAGS and cannot hold spaces")
        merged = dict(os.environ)
        merged.update(env or {})
        merged.update({
            "CC": self.cc, "CREPAIR_REAL_CC": self._real_cc, "CREPAIR_CFLAGS": " ".join(extra_cflags),
            "PATH": f"{self.bin}{os.pathsep}{merged.get('PATH', os.defpath)}",
        })
        return merged

    def build_command(self) -> tuple[list[str], Path]:
        """The recipe's command line and working directory in this copy."""
        r = self.recipe
        here = self.root / r.directory
        if r.kind == BuildKind.MAKE:
            return ["make", "-B", f"CC={self.cc}", *([r.target] if r.target else [])], here
        if r.kind == BuildKind.SHELL:
            return ["/bin/sh", "-c", r.command or ""], here
        source = r.target or ""
        return [self.cc, "-std=gnu99", "-w", source, "-o", Path(source).stem, "-lm"], here

    def build(self, extra_cflags: Sequence[str] = (), env: Mapping[str, str] | None = None,
              timeout: float | None = None) -> BuildResult:
        """Build the copy with ``extra_cflags`` appended to every compiler
        call, ``env`` added to the environment, at most ``timeout`` seconds
        (None: no limit; past it the build's process group is killed and
        the result is not ok).  The recipe's ``output``, when known, is
        removed first.  Raises ``MissingTool`` when make is needed and
        missing; a failing build is a result, not an exception."""
        argv, here = self.build_command()
        if argv[0] == "make":
            toolchain.find("make",
                           "the project has a Makefile but make was not found: install make, or give --build CMD")
        environ = self.environment(extra_cflags, env)
        if self.recipe.kind == BuildKind.MAKE and self.recipe.target:
            environ.setdefault("LDLIBS", "-lm")  # make's built-in PROG: PROG.c rule, as a direct build links
        if self.recipe.output:
            self.path(self.recipe.output).unlink(missing_ok=True)
        done = toolchain.run(argv, cwd=here, env=environ, stderr=toolchain.STDOUT, timeout=timeout, text=True)
        log = done.stdout + (f"\nerror: the build took longer than {timeout:g} s" if done.timed_out else "")
        return BuildResult(done.ok, log, done.seconds)

    def close(self) -> None:
        """Remove the temporary directory (idempotent)."""
        self._finalizer()

    def __enter__(self) -> "Workspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
