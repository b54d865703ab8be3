"""The reference's answers kept between runs (crepair.oracle.cache): a
second submission against the same model solution asks the reference
nothing it answered before, and gets the same repair with the same evidence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from crepair.oracle import ReferenceProgram
from crepair.oracle.cache import FILE_NAME, ReferenceCache, fingerprint

SRC = Path(__file__).resolve().parents[1] / "src"

# sums the n numbers after n (the reference); its loop runs as long as n says: past any unwinding bound
REFERENCE = r"""#include <stdio.h>
int main(void) {
    int n, i, x, s = 0;
    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &x);
        s += x;
    }
    printf("%d\n", s);
    return 0;
}
"""


def crepair_json(*args: str, cwd: Path) -> tuple[int, dict]:
    """``crepair ... --json`` run as a user does, from ``cwd``, its standard output redirected to a file."""
    out = cwd / "out.json"
    with open(out, "w") as stdout:
        done = subprocess.run([sys.executable, "-m", "crepair", *args, "--json"], cwd=cwd, stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": str(SRC)})
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(out.read_text())


def assignment(folder: Path, submission: str) -> Path:
    (folder / "ref.c").write_text(REFERENCE)
    (folder / "sub.c").write_text(submission)
    (folder / "tests").mkdir()
    (folder / "tests" / "a.in").write_text("3\n1 2 3\n")
    (folder / "tests" / "a.out").write_text("6\n")
    return folder


def test_a_second_run_against_the_same_reference_asks_it_nothing_again_and_gets_the_same_repair(tmp_path):
    assignment(tmp_path, REFERENCE.replace("i < n", "i < 2"))
    args = ("repair", "sub.c", "--reference", "ref.c", "--tests-dir", "tests", "--cache", "kept", "--timeout", "60")
    code, first = crepair_json(*args, cwd=tmp_path)
    code2, second = crepair_json(*args, cwd=tmp_path)
    assert code == code2 == 0
    assert (tmp_path / "kept" / FILE_NAME).is_file()
    for run in (first, second):
        assert [r["diff"] for r in run["repairs"]] == [first["repairs"][0]["diff"]]
        assert "+    for (i = 0; i < n; i++) {" in first["repairs"][0]["diff"]
    assert first["repairs"][0]["evidence"] == second["repairs"][0]["evidence"]
    assert "beyond unwinding bound 8 (loop at ref.c:5:5)" in json.dumps(second["repairs"][0]["evidence"])
    assert first["cache"]["kept"] == 0 and first["cache"]["asked"] > 60  # the given test, 60 generated, the bound
    # every output is kept (the reference's own bounded check too, unless a busy machine cut one of its bounds short)
    assert second["cache"]["kept"] >= second["cache"]["asked"] - 1 > 60


def test_the_reference_s_own_bounded_check_is_kept_when_every_bound_tried_was_decided(tmp_path):
    from crepair.options import ReferenceOptions
    from crepair.schemes.staged_checks import CandidateChecks
    from crepair.schemes.staged_options import StagedStats
    from crepair.testsuite.spec import Comparison

    (tmp_path / "ref.c").write_text(REFERENCE)  # its loop runs n times: beyond bound 8 and every deeper one
    (tmp_path / "fits.c").write_text(REFERENCE.replace("i < n", "i < 3"))  # three turns: within bound 8
    for name, cut in (("ref.c", True), ("fits.c", False)):
        answers = []
        for _ in range(2):
            stats = StagedStats()
            with ReferenceProgram(tmp_path / name, cache=tmp_path / "kept") as oracle:
                checks = CandidateChecks(tmp_path / "sub.c", ReferenceOptions(str(tmp_path / name)), oracle,
                                         Comparison.EXACT, 8, tmp_path, stats)
                answers.append((checks.reference_cut_off(60.0), checks.unwind, checks.cut, stats.proofs))
        (was, unwind, where, proofs), (again, unwind2, where2, proofs2) = answers
        assert (was, unwind, where) == (again, unwind2, where2) == (
            cut, 8, f"loop at {tmp_path / name}:5:5" if cut else None)
        assert proofs == (4 if cut else 1) and proofs2 == 0  # bounds 8, 10, 16, 32; then none: the kept answer


def test_another_submission_of_the_assignment_takes_the_answers_to_the_inputs_it_shares(tmp_path):
    kept = tmp_path / "kept"
    for name, submission in (("one", REFERENCE.replace("i < n", "i < 2")),
                             ("two", REFERENCE.replace("s += x", "s = x"))):
        (tmp_path / name).mkdir()
        folder = assignment(tmp_path / name, submission)
        code, run = crepair_json("repair", "sub.c", "--reference", "ref.c", "--tests-dir", "tests",
                                 "--cache", str(kept), cwd=folder)
        assert code == 0 and run["repairs"]
    assert 0 < run["cache"]["kept"] <= run["cache"]["asked"]  # the given test's answer at least


def test_without_a_cache_nothing_is_kept(tmp_path):
    assignment(tmp_path, REFERENCE.replace("i < n", "i < 2"))
    code, run = crepair_json("repair", "sub.c", "--reference", "ref.c", "--tests-dir", "tests", "--no-cache",
                             cwd=tmp_path)
    assert code == 0 and run["cache"] is None
    assert not (tmp_path / "kept").exists()


def test_an_answer_that_came_from_a_time_limit_is_not_kept_and_others_are(tmp_path):
    (tmp_path / "ref.c").write_text('#include <stdio.h>\nint main(void) { int n; scanf("%d", &n);\n'
                                    '  while (n == 0) ;\n  if (n < 0) return 1 / (n - n);\n'
                                    '  printf("%d\\n", n); return 0; }\n')
    inputs = [b"0\n", b"-2\n", b"3\n"]  # the time limit, undefined behaviour (a division by zero), an output
    with ReferenceProgram(tmp_path / "ref.c", timeout=0.3, cache=tmp_path / "kept") as ref:
        assert ref.expected_all(inputs) == [None, None, b"3\n"]
    with ReferenceProgram(tmp_path / "ref.c", timeout=0.3, cache=tmp_path / "kept") as ref:
        assert ref.expected_all(inputs) == [None, None, b"3\n"]
        assert (ref.cache.hits, ref.cache.misses) == (2, 1)  # the input that ran out of time was asked again
        assert ref.plain_all([b"3\n"]) == [b"3\n"] and ref.cache.misses == 2  # plain runs are another question
        assert ref.plain_all([b"3\n"]) == [b"3\n"] and ref.cache.hits == 3


def test_the_fingerprint_follows_the_preprocessed_text_not_the_path(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "limits.h").write_text("#define N 3\n")
    (tmp_path / "ref.c").write_text('#include "limits.h"\nint main(void) { return N; }\n')
    first = fingerprint(tmp_path / "ref.c")
    assert first is not None and fingerprint(tmp_path / "sub" / ".." / "ref.c") == first
    (tmp_path / "limits.h").write_text("#define N 4\n")  # the header changed: the answers may differ
    assert fingerprint(tmp_path / "ref.c") != first


def test_a_cache_folder_that_cannot_be_written_leaves_the_run_as_without_one(tmp_path):
    (tmp_path / "ref.c").write_text(REFERENCE)
    (tmp_path / "taken").write_text("a file, not a folder")
    assert ReferenceCache.open(tmp_path / "taken", tmp_path / "ref.c") is None
    with ReferenceProgram(tmp_path / "ref.c", cache=tmp_path / "taken") as ref:
        assert ref.cache is None and ref.expected_all([b"2\n1 2\n"]) == [b"3\n"]


def test_cache_options_mean_nothing_to_a_repair_from_tests_alone(tmp_path):
    assignment(tmp_path, REFERENCE)
    done = subprocess.run([sys.executable, "-m", "crepair", "repair", "sub.c", "--tests-dir", "tests",
                           "--cache", "kept"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert done.returncode == 2 and "--cache/--no-cache" in done.stderr and "Traceback" not in done.stderr


def test_the_answers_of_a_reference_unused_for_a_month_are_dropped(tmp_path):
    import sqlite3
    import time

    from crepair.oracle.cache import KEEP_DAYS

    (tmp_path / "old.c").write_text(REFERENCE)
    (tmp_path / "new.c").write_text(REFERENCE.replace("s = 0", "s = 1"))
    old = ReferenceCache.open(tmp_path / "kept", tmp_path / "old.c")
    old.put("plain", b"q", b"answer")
    old.close()
    with sqlite3.connect(tmp_path / "kept" / FILE_NAME) as db:  # as if last used a month and a day ago
        db.execute("UPDATE used SET at = ?", (time.time() - (KEEP_DAYS + 1) * 86400.0,))
    db.close()
    ReferenceCache.open(tmp_path / "kept", tmp_path / "new.c").close()  # another reference's run drops them
    again = ReferenceCache.open(tmp_path / "kept", tmp_path / "old.c")
    assert again.get("plain", b"q") == (False, None)
    again.put("plain", b"q", b"answer")
    again.close()
    assert ReferenceCache.open(tmp_path / "kept", tmp_path / "old.c").get("plain", b"q") == (True, b"answer")
