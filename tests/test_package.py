"""The package's shape: every module imports, verbs do not shadow
packages, only ``crepair.solver`` creates solvers, files stay small."""

import importlib
import pkgutil
import re
from pathlib import Path

import crepair

SRC = Path(crepair.__file__).parent


def modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(crepair.__path__, "crepair.") if not m.name.endswith("__main__"))


def test_every_module_imports_as_a_module():
    names = modules()
    assert "crepair.schemes.template" in names and "crepair.localization.must" in names and "crepair.bmc" in names
    for name in names:
        module = importlib.import_module(name)
        assert module.__name__ == name


def test_the_verbs_are_functions_and_the_packages_are_nouns():
    import crepair.localization.must
    import crepair.schemes.template

    assert callable(crepair.verify) and callable(crepair.localize) and callable(crepair.repair)
    assert crepair.schemes.template.TemplateRepair and crepair.localization.must.fosfl


def test_only_the_solver_package_creates_solvers_and_imports_z3():
    pattern = re.compile(r"\b(SmtSolver|Optimizer|Minicard|Solver|SolverFor)\(|^\s*(import z3|from z3|import pysat|from pysat)",
                         re.M)
    offenders = []
    for path in SRC.rglob("*.py"):
        if "solver" in path.relative_to(SRC).parts:
            continue
        for match in pattern.finditer(path.read_text()):
            offenders.append(f"{path.relative_to(SRC)}: {match.group(0).strip()}")
    assert offenders == []


def test_no_module_is_longer_than_one_sitting():
    long = {str(p.relative_to(SRC)): n for p in SRC.rglob("*.py") if (n := len(p.read_text().splitlines())) > 420}
    assert long == {}


def test_the_memory_graph_is_read_under_gdb_by_one_module():
    """The heap recorder and the debug shell's live driver share one
    capture (crepair/toolchain/gdb_graph.py) and one launcher."""
    found = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                   if re.search(r"^def (table|value)\(|__crepair_nodes\"\)", p.read_text(), re.M))
    assert found == ["toolchain/gdb_graph.py"]
    for helper in ("heap/gdb_helper.py", "debug/gdb_live.py"):
        assert "import gdb_graph" in (SRC / helper).read_text()
    for host in ("heap/execute.py", "debug/driver.py"):
        assert "from crepair.toolchain.gdb import" in (SRC / host).read_text()
