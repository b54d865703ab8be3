"""The Codeflaws defects, and the benchmark's own checks of a patch.

A defect directory ``<contest>-<problem>-bug-<buggyId>-<fixedId>/`` holds
the buggy program ``<contest>-<problem>-<buggyId>.c``, the accepted one
``…-<fixedId>.c``, a ``Makefile``, the repair tests and the held-out tests;
two defects (133-A, 276-B) are stored gzipped file by file (``X.gz``), read
here as ``X``.

The checks compile a program as the defect's Makefile does
(``gcc $CFLAGS -c``, then ``gcc … $LDFLAGS``) and run it on tests; an output
is compared with the expected one as the defect's ``test-genprog.sh``
does: empty lines and leading and trailing white space of every line are
ignored.  Many held-out inputs were truncated when Codeflaws scraped them
from Codeforces (they end in ``...``), so the accepted program fails them;
the *valid* held-out tests of a defect are those whose input is not
truncated and that the accepted program passes (:func:`baseline`), and
only they are run on patches.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"(\d+)-([A-Z]\d?)-bug-(\d+)-(\d+)")
_TEST = re.compile(r"(heldout-input|input)-(pos|neg)(\d+)")
# files of a defect directory the repair tool may see (the rest: held-out tests, the accepted program, left-overs)
_REPAIR_FILES = re.compile(r"(input|output)-(pos|neg)\d+|Makefile|test-genprog\.sh")


@dataclass(frozen=True)
class Defect:
    """One defect: its directory name, class (ORRN, OILN, …) and folder."""

    name: str
    klass: str
    folder: Path

    @property
    def ids(self) -> tuple[str, str, str, str]:
        m = _NAME.fullmatch(self.name)
        if not m:
            raise ValueError(f"not a Codeflaws defect name: {self.name}")
        return m.group(1), m.group(2), m.group(3), m.group(4)

    @property
    def buggy(self) -> str:
        c, p, b, _ = self.ids
        return f"{c}-{p}-{b}.c"

    @property
    def accepted(self) -> str:
        c, p, _, f = self.ids
        return f"{c}-{p}-{f}.c"

    def files(self) -> dict[str, Path]:
        """The files of the folder by their name (``X.gz`` as ``X``)."""
        return {(p.name[:-3] if p.name.endswith(".gz") else p.name): p for p in sorted(self.folder.iterdir())}

    def data(self, name: str) -> bytes:
        path = self.files()[name]
        return gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()

    def text(self, name: str) -> str:
        return self.data(name).decode("utf-8", "surrogateescape")

    def tests(self, kind: str) -> list[tuple[str, str, str]]:
        """``(id, input name, output name)`` of the ``heldout`` tests
        (id ``N``) or the ``repair`` tests (ids ``pN``, ``nN``), by number."""
        out = []
        for name in self.files():
            m = _TEST.fullmatch(name)
            if m and (m.group(1) == "heldout-input") == (kind == "heldout"):
                prefix = "heldout-" if kind == "heldout" else ""
                tid = m.group(3) if kind == "heldout" else m.group(2)[0] + m.group(3)
                out.append((tid, name, f"{prefix}output-{m.group(2)}{m.group(3)}"))
        return sorted(out, key=lambda t: (t[0][:1] if kind == "repair" else "", int(t[0].lstrip("pn"))))

    def flags(self) -> tuple[list[str], list[str]]:
        """CFLAGS and LDFLAGS of the Makefile."""
        text = self.text("Makefile")

        def flag(key: str) -> list[str]:
            m = re.search(rf"^{key}\s*=(.*)$", text, re.M)
            return m.group(1).split() if m else []

        return flag("CFLAGS"), flag("LDFLAGS")


def load_defects(root: Path) -> list[Defect]:
    """The defects of ``root/defects.tsv`` (name TAB class), in its order."""
    out = []
    for line in (root / "defects.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip():
            name, klass = line.split("\t")[:2]
            out.append(Defect(name.strip(), klass.strip(), root / name.strip()))
    return out


def prepare(d: Defect, dest: Path) -> Path:
    """Copy what crepair may see into ``dest``: the buggy program, the
    Makefile, ``test-genprog.sh`` and the repair tests (gunzipped).
    Returns the buggy program's path."""
    dest.mkdir(parents=True)
    for name in d.files():
        if name == d.buggy or _REPAIR_FILES.fullmatch(name):
            (dest / name).write_bytes(d.data(name))
    if (dest / "test-genprog.sh").exists():
        (dest / "test-genprog.sh").chmod(0o755)
    return dest / d.buggy


def normal(output: bytes) -> list[str]:
    """An output as ``test-genprog.sh`` compares it."""
    return [line.strip() for line in output.decode("utf-8", "replace").split("\n") if line.strip()]


class Programs:
    """Compiles programs of defect ``d`` in ``scratch`` and runs them on its
    tests; results are cached by the program's text."""

    def __init__(self, d: Defect, scratch: Path, timeout: float):
        self.d, self.scratch, self.timeout = d, scratch, timeout
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._exe: dict[str, Path | str] = {}
        self._runs: dict[tuple, dict] = {}

    def build(self, text: str) -> Path | str:
        """The executable of ``text``, or gcc's error."""
        key = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        if key not in self._exe:
            folder = self.scratch / key
            folder.mkdir(exist_ok=True)
            src, obj, exe = folder / self.d.buggy, folder / "prog.o", folder / "prog"
            src.write_bytes(text.encode("utf-8", "surrogateescape"))
            cflags, ldflags = self.d.flags()
            err = ""
            for cmd in (["gcc", *cflags, "-c", str(src), "-o", str(obj)], ["gcc", str(obj), "-o", str(exe), *ldflags]):
                p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
                if p.returncode != 0:
                    err = "gcc: " + " | ".join(p.stderr.strip().splitlines()[-3:])
                    break
            self._exe[key] = err or exe
        return self._exe[key]

    def run(self, text: str, kind: str, ids: list | None = None) -> dict:
        """``text`` on the ``heldout`` or ``repair`` tests (only ``ids`` if
        given): ``{"passed", "total", "ok", "failing": [first ids]}`` or
        ``{"error"}``."""
        exe = self.build(text)
        if isinstance(exe, str):
            return {"error": exe}
        wanted = None if ids is None else {str(i) for i in ids}
        tests = [t for t in self.d.tests(kind) if wanted is None or t[0] in wanted]
        failing = [tid for tid, inp, out in tests if not self.passes(exe, inp, out)]
        return {"passed": len(tests) - len(failing), "total": len(tests), "ok": not failing and bool(tests),
                "failing": failing[:10]}

    def passes(self, exe: Path, inp: str, out: str) -> bool:
        key = (str(exe), inp)
        if key not in self._runs:
            try:
                p = subprocess.run([str(exe)], input=self.d.data(inp), capture_output=True, timeout=self.timeout,
                                   cwd=exe.parent)
                got = normal(p.stdout)
            except subprocess.TimeoutExpired:
                got = None
            self._runs[key] = {"ok": got is not None and got == normal(self.d.data(out))}
        return self._runs[key]["ok"]


def baseline(d: Defect, scratch: Path, timeout: float) -> dict:
    """The held-out oracle of ``d``: ``valid`` (the numbers of the held-out
    tests whose input is not truncated — does not end in ``...`` — and that
    the accepted program passes), ``total``, ``truncated``, the buggy
    program on the valid held-out tests, and both programs on the repair
    tests."""
    programs = Programs(d, scratch, timeout)
    try:
        accepted, buggy = d.text(d.accepted), d.text(d.buggy)
        exe = programs.build(accepted)
        if isinstance(exe, str):
            return {"error": f"accepted program: {exe}"}
        tests = d.tests("heldout")
        truncated = {t for t, i, _ in tests if d.data(i).rstrip().endswith(b"...")}
        valid = [int(t) for t, i, o in tests if t not in truncated and programs.passes(exe, i, o)]
        return {"total": len(tests), "valid": valid, "truncated": len(truncated),
                "buggy": programs.run(buggy, "heldout", valid), "repair_accepted": programs.run(accepted, "repair"),
                "repair_buggy": programs.run(buggy, "repair")}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class CodeflawsSuite:
    """Where a Codeflaws benchmark finds the defects (a mixin of the
    harness's ``Benchmark``: ``root`` and ``missing``)."""

    @property
    def root(self) -> Path:
        return self.shared / "benchmarks" / "codeflaws"

    def missing(self) -> str:
        return "" if (self.root / "defects.tsv").is_file() else f"{self.root / 'defects.tsv'} not found"
