"""Acceptance checks on the real TCAS benchmark (skipped without ../shared)."""

import pytest

import crepair
from crepair.cli import main
from cprog import SHARED

TCAS = SHARED / "tcas" / "spec"
pytestmark = pytest.mark.skipif(not TCAS.exists(), reason="shared benchmarks absent")


def test_v1_level_1_has_exactly_the_published_repair(capsys):
    path = TCAS / "tcas_v1.c"
    assert main(["repair", str(path), "--level", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nrepair ") == 1
    diff_lines = [l for l in out.splitlines() if l.startswith(("+", "-")) and not l.startswith(("---", "+++"))]
    original = path.read_text().splitlines()[103]
    assert "Down_Separation > ALIM()" in original
    assert diff_lines == ["-" + original, "+" + original.replace("Down_Separation > ALIM()", "Down_Separation >= ALIM()")]
    assert "@@ -101,7 +101,7 @@" in out


@pytest.mark.parametrize(
    "version, level, line, old, new",
    [
        (10, 1, None, None, None),  # needs two mutations
        (35, 2, 92, "Climb_Inhibit", "!Climb_Inhibit"),  # swapped ?: branches
        (16, 2, 79, "400", "399"),
    ],
)
def test_published_versions_are_repaired(version, level, line, old, new):
    run = crepair.repair(TCAS / f"tcas_v{version}.c", level=level, max_size=2 if level == 1 else 1, timeout=300)
    repairs = list(run)
    assert repairs, run.stats
    if version == 10:
        assert [r.size for r in repairs] == [2]
        assert {(c.span.line, e.old, e.new) for c in repairs[0].changes for e in c.edits} == {
            (134, "<=", "<"), (140, "<=", "<")}
    else:
        assert (line, old, new) in {(c.span.line, e.old, e.new) for r in repairs for c in r.changes for e in c.edits}
    for r in repairs:  # every reported repair verifies on its own
        assert r.patched != (TCAS / f"tcas_v{version}.c").read_text()
