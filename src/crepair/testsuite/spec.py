"""Test specifications: which tests a program has, how to build and run them.

Two forms, both on the user's project directory, which is only read:

* :class:`DriverTests`, f1x's driver contract (Mechtaev et al., TOSEM'18,
  and the f1x tool): ``DRIVER ID`` runs with the project copy as working
  directory; exit status 0 is a pass, 124 a time-out, anything else a
  failure.
* :class:`FolderTests`, a folder of stdin/stdout pairs in one of two
  namings: Codeflaws' (Tan et al., ICSE-C'17): ``input-X`` is the standard
  input of test ``X`` and ``output-X`` its expected standard output; or
  ``X.in``/``X.out`` (C-Pack-IPAs, Orvalho et al., APR'24, and most course
  judges).  Outputs are compared as the :class:`Comparison` says (default
  ``trailing-whitespace``: trailing whitespace on every line and trailing
  blank lines ignored; a course judge is ``exact``; Codeflaws' judge is
  ``lines``).  Files named
  ``heldout-*`` (tests kept back to measure overfitting) are never opened,
  nor listed among the tests.

Builds go through crepair's compiler wrapper (see ``workspace``): the
``--build`` command if given; else ``make`` when there is a Makefile (the
driver form: at the project root, its default target, as f1x does; the
folder form: in the program's folder, with target PROG — make's built-in
rule — unless the Makefile names PROG, as Codeflaws' ``FILENAME=PROG``
does, when its default target builds it); else ``gcc -std=gnu99 -w
PROG.c -o PROG -lm`` in the program's folder.

A specification never says which tests fail: that is found by running the
original program (:func:`crepair.testsuite.runner.run_tests`).

>>> spec = load_tests("prog.c", tests_dir="tests")       # doctest: +SKIP
>>> spec.ids                                              # doctest: +SKIP
('neg1', 'pos1', 'pos2')
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from crepair.errors import BadInput, UsageError

HELDOUT = "heldout-"
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


class BuildKind(enum.Enum):
    """How a project copy is built (always through crepair's compiler wrapper)."""

    MAKE = "make"  # make -B CC=<wrapper> [target], in `directory`
    SHELL = "shell"  # the user's --build command through /bin/sh, CC=<wrapper> in the environment
    DIRECT = "direct"  # <wrapper> -std=gnu99 -w PROG.c -o PROG -lm, in `directory`


@dataclass(frozen=True, slots=True)
class BuildRecipe:
    """A build: ``directory`` is relative to the project root (POSIX, ``.``
    for the root); ``target`` is the make target (MAKE, None: the default)
    or the source file's name (DIRECT); ``command`` the shell command
    (SHELL); ``output``: the program it makes, relative to the root, when
    known (removed before each build, so a failed build leaves none)."""

    kind: BuildKind
    directory: str = "."
    target: str | None = None
    command: str | None = None
    output: str | None = None


class Comparison(enum.Enum):
    """How a test's standard output is compared with the expected one."""

    EXACT = "exact"  # byte for byte (a course judge: a missing newline is a wrong answer)
    TRAILING_WHITESPACE = "trailing-whitespace"  # trailing blanks of lines, trailing blank lines ignored
    LINES = "lines"  # Codeflaws' judge: leading blanks and tabs and trailing white space of lines, blank lines ignored
    TOKENS = "tokens"  # the same whitespace-separated tokens

    def normalize(self, data: bytes) -> bytes:
        """``data`` in the form compared (``expected`` is stored so).
        ``lines`` is the comparison of Codeflaws' test script
        (``test-genprog.sh``: the output's empty lines deleted and each line's
        leading blanks and tabs, then ``diff --ignore-trailing-space``), made
        symmetric: blank lines are left out of both sides."""
        if self is Comparison.EXACT:
            return data
        if self is Comparison.TOKENS:
            return b" ".join(data.split())
        if self is Comparison.LINES:
            lines = (line.lstrip(b" \t").rstrip() for line in data.splitlines())
            return b"\n".join(line for line in lines if line)
        return normalize_output(data)


class Naming(enum.Enum):
    """How a folder names its stdin/stdout pairs."""

    CODEFLAWS = "input-X/output-X"
    SUFFIX = "X.in/X.out"

    def files(self, test_id: str) -> tuple[str, str]:
        """The (input, expected output) file names of ``test_id``."""
        if self is Naming.CODEFLAWS:
            return f"input-{test_id}", f"output-{test_id}"
        return f"{test_id}.in", f"{test_id}.out"


@dataclass(frozen=True, slots=True)
class Invocation:
    """One test execution: ``argv`` run in ``cwd`` (absolute paths), with
    standard input from the file ``stdin`` (None: empty) and, when
    ``expected`` is not None, standard output compared to it (both
    normalized by ``compare``)."""

    argv: tuple[str, ...]
    cwd: str
    stdin: str | None = None
    expected: bytes | None = None
    compare: Comparison = Comparison.TRAILING_WHITESPACE


@dataclass(frozen=True, slots=True)
class TestSpec:
    """What both forms share.  ``project``: the absolute project directory
    (never modified); ``program``: the program's source, relative to it;
    ``ids``: the test ids, in order; ``build``: how a copy is built."""

    project: Path
    program: PurePosixPath
    ids: tuple[str, ...]
    build: BuildRecipe

    def invocation(self, test_id: str, root: Path) -> Invocation:
        """How to run test ``test_id`` in the project copy at ``root``."""
        raise NotImplementedError

    def workspace(self):
        """A fresh :class:`~crepair.testsuite.workspace.Workspace` (a copy of
        the project), to be used in a ``with`` block."""
        from crepair.testsuite.workspace import Workspace

        return Workspace(self.project, self.build)


@dataclass(frozen=True, slots=True)
class DriverTests(TestSpec):
    """f1x's driver contract.  ``driver``: the driver's path relative to the
    project when ``in_project`` (it then runs from the copy), else absolute."""

    driver: str = ""
    in_project: bool = True

    def invocation(self, test_id: str, root: Path) -> Invocation:
        driver = str(root / self.driver) if self.in_project else self.driver
        return Invocation((driver, test_id), str(root))


@dataclass(frozen=True, slots=True)
class FolderTests(TestSpec):
    """Stdin/stdout pairs in ``folder`` (absolute), named as ``naming``
    says.  ``expected`` maps each id to its expected output, normalized by
    ``compare``."""

    folder: Path = Path()
    expected: Mapping[str, bytes] = field(default_factory=dict, hash=False)
    naming: Naming = Naming.CODEFLAWS
    compare: Comparison = Comparison.TRAILING_WHITESPACE

    def invocation(self, test_id: str, root: Path) -> Invocation:
        here = root / self.program.parent
        binary = here / self.program.stem
        stdin = str(self.folder / self.naming.files(test_id)[0])
        return Invocation((str(binary),), str(here), stdin, self.expected[test_id], self.compare)

    def input_path(self, test_id: str) -> Path:
        """The file holding test ``test_id``'s standard input."""
        return self.folder / self.naming.files(test_id)[0]


def normalize_output(data: bytes) -> bytes:
    """``data`` without trailing whitespace on any line and without
    trailing blank lines (lines end in ``\\n``, ``\\r\\n`` or ``\\r``)."""
    lines = [line.rstrip() for line in data.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return b"\n".join(lines)


def _natural(name: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def load_tests(
    program: str | Path,
    *,
    driver: str | Path | None = None,
    test_ids: Sequence[str] = (),
    tests_dir: str | Path | None = None,
    build: str | None = None,
    project: str | Path | None = None,
    compare: Comparison | str = Comparison.TRAILING_WHITESPACE,
) -> DriverTests | FolderTests:
    """The test specification of the C file ``program``.

    Exactly one of ``driver`` (with ``test_ids``) or ``tests_dir`` (with an
    optional subset ``test_ids``).  ``project``: the directory copied for
    every build (default: the program's directory); it must hold the
    program.  ``build``: a shell command run in the copy instead of the
    default build (``make`` with the wrapper as CC when the project has a
    Makefile, else a direct gcc of the program).  A ``driver`` given as a
    relative path is looked up from the current directory, then from the
    project; inside the project it runs from the copy.  ``compare``: how
    a folder test's output is compared (a :class:`Comparison` or its value;
    a driver judges its own tests).

    Raises ``UsageError`` for missing or contradictory options (no tests,
    unknown ids, a driver that is missing or not executable, a missing
    folder) and ``BadInput`` for unreadable files.  Reads the expected
    outputs; never opens ``heldout-*`` files.
    """
    src = Path(program)
    if not src.is_file():
        raise BadInput(f"{program}: no such file")
    src = src.resolve()
    root = Path(project).resolve() if project is not None else src.parent
    if not root.is_dir():
        raise UsageError(f"--project {project}: no such directory")
    if not src.is_relative_to(root):
        raise UsageError(f"--project {project}: {program} is not inside it")
    rel = PurePosixPath(src.relative_to(root).as_posix())
    if (driver is None) == (tests_dir is None):
        raise UsageError("give the tests either as --tests DRIVER --test-ids ID... or as --tests-dir DIR")
    ids = _check_ids(test_ids)
    try:
        compare = Comparison(compare)
    except ValueError:
        raise UsageError(f"--compare {compare}: not one of {', '.join(c.value for c in Comparison)}") from None
    if driver is not None:
        return _driver_tests(root, rel, driver, ids, build)
    return _folder_tests(root, rel, Path(tests_dir), ids, build, compare)


def _check_ids(test_ids: Sequence[str]) -> tuple[str, ...]:
    ids = tuple(str(t) for t in test_ids)
    for t in ids:
        if not t or t != t.strip() or t.startswith("-"):
            raise UsageError(f"--test-ids: {t!r} is not a test id")
    seen = set()
    for t in ids:
        if t in seen:
            raise UsageError(f"--test-ids: {t} is given twice")
        seen.add(t)
    return ids


def _build(build: str | None, root: Path, rel: PurePosixPath, make_dir: PurePosixPath,
           target: str | None, output: str | None) -> BuildRecipe:
    """``build`` through the shell; else make in ``make_dir`` when it has a
    Makefile (``target``, unless the Makefile names it: then its default
    target); else gcc on the program in its folder."""
    if build is not None:
        if not build.strip():
            raise UsageError("--build: the command is empty")
        return BuildRecipe(BuildKind.SHELL, command=build, output=output)
    makefiles = [root / make_dir / m for m in MAKEFILES if (root / make_dir / m).is_file()]
    if makefiles:
        if target is not None and _names(makefiles[0], target):
            target = None  # it names the program (Codeflaws: FILENAME=PROG): its default target builds it
        return BuildRecipe(BuildKind.MAKE, make_dir.as_posix(), target, output=output)
    return BuildRecipe(BuildKind.DIRECT, rel.parent.as_posix(), rel.name, output=(rel.parent / rel.stem).as_posix())


def _names(makefile: Path, stem: str) -> bool:
    try:
        text = makefile.read_text(errors="replace")
    except OSError as exc:
        raise BadInput(f"{makefile}: {exc.strerror}") from None
    return re.search(rf"(?<![\w.-]){re.escape(stem)}(?![\w-])", text) is not None


def _driver_tests(root: Path, rel: PurePosixPath, driver: str | Path, ids: tuple[str, ...],
                  build: str | None) -> DriverTests:
    if not ids:
        raise UsageError("--tests DRIVER needs the test ids: --test-ids ID...")
    given = Path(driver)
    path = given if given.exists() or given.is_absolute() else root / given
    if not path.is_file():
        raise UsageError(f"--tests {driver}: no such file")
    if not os.access(path, os.X_OK):
        raise UsageError(f"--tests {driver}: not executable (chmod +x {driver})")
    path = path.resolve()
    recipe = _build(build, root, rel, PurePosixPath("."), None, None)  # f1x runs `make` at the root
    inside = path.is_relative_to(root)
    where = path.relative_to(root).as_posix() if inside else str(path)
    return DriverTests(root, rel, ids, recipe, driver=where, in_project=inside)


def _folder_tests(root: Path, rel: PurePosixPath, folder: Path, ids: tuple[str, ...],
                  build: str | None, compare: Comparison = Comparison.TRAILING_WHITESPACE) -> FolderTests:
    if not folder.is_dir():
        raise UsageError(f"--tests-dir {folder}: no such directory")
    folder = folder.resolve()
    try:
        names = {e.name for e in os.scandir(folder) if not e.name.startswith(HELDOUT)}
    except OSError as exc:
        raise BadInput(f"--tests-dir {folder}: {exc.strerror}") from None
    naming, known = _pairs(folder, names)
    unknown = [t for t in ids if t not in known]
    if unknown:
        raise UsageError(f"--test-ids: no test {unknown[0]} in {folder} (it has {', '.join(known[:8])}"
                         f"{', ...' if len(known) > 8 else ''})")
    chosen = ids or tuple(known)
    expected = {}
    for t in chosen:
        out = folder / naming.files(t)[1]
        try:
            expected[t] = compare.normalize(out.read_bytes())
        except OSError as exc:
            raise BadInput(f"{out}: {exc.strerror}") from None
    recipe = _build(build, root, rel, rel.parent, rel.stem, (rel.parent / rel.stem).as_posix())
    return FolderTests(root, rel, chosen, recipe, folder=folder, expected=expected, naming=naming, compare=compare)


def _pairs(folder: Path, names: set[str]) -> tuple[Naming, list[str]]:
    """The naming of ``folder``'s tests and their ids in natural order.
    Raises ``BadInput`` for an input without its output, ``UsageError``
    when there are no tests or both namings are used."""
    found = {
        Naming.CODEFLAWS: [n[len("input-"):] for n in names if n.startswith("input-") and len(n) > len("input-")],
        Naming.SUFFIX: [n[:-len(".in")] for n in names if n.endswith(".in") and len(n) > len(".in")],
    }
    used = [naming for naming, ids in found.items() if ids]
    if not used:
        raise UsageError(f"--tests-dir {folder}: no tests (expected input-X/output-X or X.in/X.out pairs)")
    if len(used) > 1:
        raise UsageError(f"--tests-dir {folder}: both input-X/output-X and X.in/X.out tests; keep one naming")
    naming = used[0]
    known = sorted(found[naming], key=_natural)
    lonely = [t for t in known if naming.files(t)[1] not in names]
    if lonely:
        i, o = naming.files(lonely[0])
        raise BadInput(f"--tests-dir {folder}: {i} has no {o}")
    return naming, known
