#!/usr/bin/env python3
"""Write the suite ``bench/suites/codeflaws-reference.yaml``: one job per
Codeflaws defect, ``crepair repair BUGGY.c --reference ACCEPTED.c
--tests-dir DEFECT --compare lines --timeout 300``, run by ``crepair bench
codeflaws-reference`` and reported by ``bench/codeflaws_reference_report.py``.

The job's tests folder is the defect's own: crepair never opens its
``heldout-*`` files (``crepair.testsuite.spec``).  Defects stored gzipped
file by file (133-A, 276-B: ``X.c.gz``, ``input-pos1.gz``, ...) are left
out: crepair reads neither a gzipped program (binary data) nor gzipped
tests.  Paths are written relative to the suite file.

    python bench/codeflaws_reference_suite.py [--root DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from codeflaws_checks import Defect, load_defects  # noqa: E402

CODEFLAWS = ROOT.parent / "shared" / "benchmarks" / "codeflaws"
SUITE = ROOT / "bench" / "suites" / "codeflaws-reference.yaml"
TIMEOUT = 300
COMPARE = "lines"  # Codeflaws' judge; see ABOUT

HEAD = """\
# crepair bench codeflaws-reference: every runnable Codeflaws defect repaired against its accepted program and its
# repair tests; bench/codeflaws_reference_report.py checks each first repair on the held-out tests.
# Written by bench/codeflaws_reference_suite.py: edit that script, not this file.
"""

ABOUT = """\
`crepair repair BUGGY.c --reference ACCEPTED.c --tests-dir DEFECT --compare lines --timeout 300` on {run} of the
{total} Codeflaws defects (`../shared/benchmarks/codeflaws/`), one worker process per job (`crepair batch`): the
staged run against the accepted program, with the defect's repair tests (`input-*`/`output-*`; crepair never opens
the folder's `heldout-*` files).{left_out}
`--compare lines` is Codeflaws' own judge (`test-genprog.sh`: blanks and tabs at the start of a line, white space at
its end and empty lines ignored). On the 2,091 runs of the accepted and the buggy programs on the repair tests,
crepair's default `trailing-whitespace` disagrees with the judge 18 times (the programs of 61-D, 83-A, 171-B and
518-C print `%I64d`, a number right-aligned in 64 columns under glibc, and the accepted ones fail their own tests
under it), and `tokens` once (118-B, whose bug is a doubled blank inside a line).
A repair is judged by the benchmark, not by crepair: the first repair's diff is applied to the buggy program
(`patch`), built as the defect's Makefile does and run on the valid held-out tests (input not truncated, passed by
the accepted program), outputs compared as the judge does (`bench/codeflaws_checks.py`); *identical*: the patched
program has the accepted program's C tokens (comments and layout ignored). The evidence level (proof, tests,
plausible) is crepair's.
"""
LEFT_OUT = """
Left out, stored gzipped file by file (crepair reads neither a gzipped program nor gzipped tests):
{names}; `bench/codeflaws.py --reference` runs all {total}
from gunzipped copies."""


def runnable(d: Defect) -> bool:
    """Whether crepair can read the defect as stored (no gzipped file)."""
    return not any(p.name.endswith(".gz") for p in d.folder.iterdir())


def job(d: Defect, base: str) -> dict:
    """The suite entry of defect ``d`` (``base``: its folder's parent, relative to the suite)."""
    folder = f"{base}/{d.name}"
    return {"id": d.name, "program": f"{folder}/{d.buggy}",
            "options": {"reference": f"{folder}/{d.accepted}", "tests_dir": folder, "compare": COMPARE,
                        "timeout": TIMEOUT},
            "meta": {"class": d.klass}}


def suite_text(root: Path, suite: Path) -> str:
    """The YAML of the suite at ``suite`` over the defects of ``root/defects.tsv``."""
    defects = load_defects(root)
    kept = [d for d in defects if runnable(d)]
    names = ", ".join(d.name for d in defects if d not in kept)
    base = Path(os.path.relpath(root.resolve(), suite.parent.resolve())).as_posix()
    left_out = LEFT_OUT.format(names=names, total=len(defects)) if names else ""
    about = ABOUT.format(run=len(kept), total=len(defects), left_out=left_out)
    lines = [HEAD.rstrip("\n"),
             "title: Codeflaws, repair against the accepted program and the repair tests (crepair bench)",
             "about: |", *("  " + line for line in about.splitlines()),
             f"timeout: {TIMEOUT}", "output: ../results/codeflaws-reference-suite",
             "printer: ../codeflaws_reference_report.py", "jobs:"]
    lines += ["  - " + yaml.safe_dump(job(d, base), default_flow_style=True, sort_keys=False, width=10**6).strip()
              for d in kept]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=CODEFLAWS, help=f"the Codeflaws folder (default: {CODEFLAWS})")
    ap.add_argument("--out", type=Path, default=SUITE, help=f"the suite file (default: {SUITE})")
    args = ap.parse_args()
    if not (args.root / "defects.tsv").is_file():
        print(f"{args.root / 'defects.tsv'}: not found (the shared benchmarks)", file=sys.stderr)
        return 3
    args.out.write_text(suite_text(args.root, args.out), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
