"""The import rules of the package layout (README, "Layout"; STYLE.md 1, 4).

Every module under ``src/crepair`` is parsed with :mod:`ast`, never
imported, and every import anywhere in it (also inside functions and
``TYPE_CHECKING`` blocks) is checked:

* ``crepair.localization`` does not import ``crepair.schemes`` (schemes
  come after localization in the pipeline);
* ``crepair.batch`` does not import ``crepair.cli`` (a worker calls the
  API, the CLI only composes);
* ``crepair.report`` reads records only (:data:`REPORT_READS`);
* ``crepair.typed`` (the typed C layer) reads the front-end's output only:
  it sits between pycparser and the engines, which import it;
* only ``crepair.solver`` imports z3, Bitwuzla and PySAT;
* only ``crepair.toolchain`` starts processes (imports ``subprocess`` or
  ``pexpect``, calls ``os.system`` and the like): the debug shell's gdb
  driver and its Graphviz drawing too;
* no package binds a name of one of its submodules to something else (as
  ``crepair.solver.optimizer``, a function, once hid the module).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "crepair"

#: what the renderers may import besides the standard library, third-party
#: packages and ``crepair.report`` itself: the records of every stage (the
#: README's "records -> report"): the shared records and the run's record,
#: the option records, errors, spans, the results of verify (``bmc``,
#: ``counterexample``, ``encode.formula``'s Unwinding and Violation) and of localize, and the
#: heap states; ``debug.picture`` draws memory graphs (the heap pictures of
#: the HTML report) and is the one renderer outside ``report``
REPORT_READS = frozenset({
    "crepair.records", "crepair.run_record", "crepair.options", "crepair.errors", "crepair.version",
    "crepair.frontend", "crepair.frontend.spans", "crepair.bmc", "crepair.counterexample", "crepair.encode.formula",
    "crepair.localization.result", "crepair.localization.spectrum", "crepair.heap.states", "crepair.debug.picture",
})

_OS_STARTS = frozenset({"system", "popen", "posix_spawn", "posix_spawnp", "fork", "forkpty", "execv", "execve",
                        "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnl"})


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, tuple[Path, ast.Module]]:
    return {_module_name(p): (p, ast.parse(p.read_text(encoding="utf-8"), str(p)))
            for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path, tree: ast.Module) -> list[tuple[int, str]]:
    """(line, imported module) of every import in the module; ``from M
    import x`` gives ``M.x`` when that is a module of crepair, else ``M``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((node.lineno, sub if sub in MODULES else base))
    return out


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _violations(importer: str, rule) -> list[str]:
    out = []
    for name, (path, tree) in MODULES.items():
        if not _within(name, importer):
            continue
        for line, imported in _imports(name, path, tree):
            if rule(imported):
                out.append(f"{path.relative_to(SRC)}:{line}: imports {imported}")
    return out


def test_the_modules_are_found():
    assert {"crepair.solver", "crepair.report.text", "crepair.localization.gradient", "crepair.batch.worker"} \
        <= set(MODULES)


def test_localization_does_not_import_schemes():
    assert _violations("crepair.localization", lambda m: _within(m, "crepair.schemes")) == []


def test_batch_does_not_import_the_cli():
    assert _violations("crepair.batch", lambda m: _within(m, "crepair.cli")) == []


def test_report_reads_records_only():
    def bad(m: str) -> bool:
        return _within(m, "crepair") and not _within(m, "crepair.report") and m not in REPORT_READS

    assert _violations("crepair.report", bad) == []


def test_the_typed_layer_reads_the_front_end_only():
    def bad(m: str) -> bool:
        return _within(m, "crepair") and not any(_within(m, p) for p in ("crepair.typed", "crepair.frontend"))

    assert _violations("crepair.typed", bad) == []
    assert "crepair.typed.model" in MODULES


def test_only_the_solver_package_imports_z3_bitwuzla_and_pysat():
    out = []
    for name, (path, tree) in MODULES.items():
        if _within(name, "crepair.solver"):
            continue
        out += [f"{path.relative_to(SRC)}:{line}: imports {m}" for line, m in _imports(name, path, tree)
                if m.split(".")[0] in ("z3", "pysat", "bitwuzla")]
    assert out == []


def _starts(name: str, path: Path, tree: ast.Module) -> list[str]:
    out = [f"{path.relative_to(SRC)}:{line}: imports {m}" for line, m in _imports(name, path, tree)
           if m.split(".")[0] in ("subprocess", "pexpect")]
    out += [f"{path.relative_to(SRC)}:{n.lineno}: os.{n.attr}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "os"
            and n.attr in _OS_STARTS]
    return out


def test_only_the_toolchain_starts_processes():
    out = []
    for name, (path, tree) in MODULES.items():
        if not _within(name, "crepair.toolchain"):
            out += _starts(name, path, tree)
    assert out == []


def test_the_process_check_itself():
    """The rule of :func:`test_only_the_toolchain_starts_processes` sees
    what the debug shell's driver and pictures once did."""
    tree = ast.parse("import subprocess\nimport os\nos.fork()\n")
    assert _starts("crepair.debug.driver", SRC / "crepair" / "debug" / "driver.py", tree) == [
        "crepair/debug/driver.py:1: imports subprocess", "crepair/debug/driver.py:3: os.fork"]


def _bindings(tree: ast.Module, package: str):
    """(line, name, what) of every top-level binding of a package's
    ``__init__``; ``what`` is the module an import binds (None: not a module)."""
    for node in tree.body:
        nodes = node.body + node.orelse if isinstance(node, (ast.If, ast.Try)) else [node]
        for n in nodes:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield n.lineno, n.name, None
            elif isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for t in targets:
                    for x in ast.walk(t):
                        if isinstance(x, ast.Name):
                            yield n.lineno, x.id, None
            elif isinstance(n, ast.ImportFrom):
                base = n.module or ""
                if n.level:
                    anchor = package.split(".")
                    base = ".".join(anchor[: len(anchor) - n.level + 1] + ([base] if base else []))
                for a in n.names:
                    sub = f"{base}.{a.name}"
                    yield n.lineno, a.asname or a.name, sub if sub in MODULES else None
            elif isinstance(n, ast.Import):
                for a in n.names:
                    yield n.lineno, a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]


def test_no_package_name_hides_a_submodule():
    out = []
    for name, (path, tree) in MODULES.items():
        if path.name != "__init__.py":
            continue
        for line, bound, what in _bindings(tree, name):
            sub = f"{name}.{bound}"
            if sub in MODULES and what != sub:
                out.append(f"{path.relative_to(SRC)}:{line}: '{bound}' hides the module {sub}")
    assert out == []


@pytest.mark.parametrize("text, expected", [
    ("def optimizer(): pass\n", ["optimizer"]),
    ("from crepair.solver.optimizer import optimizer\n", ["optimizer"]),
    ("from crepair.solver import optimizer\n", []),
    ("from crepair.solver.optimizer import Optimizer\n", []),
])
def test_the_shadowing_check_itself(text, expected):
    assert "crepair.solver.optimizer" in MODULES
    tree = ast.parse(text)
    hidden = [b for _, b, what in _bindings(tree, "crepair.solver")
              if f"crepair.solver.{b}" in MODULES and what != f"crepair.solver.{b}"]
    assert hidden == expected
