"""One presentation error at every output call, repaired as one
(crepair.schemes.staged_uniform): the same FORMAT edit at each literal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from crepair.schemes.staged_uniform import uniform_repairs
from test_staged import MODEL as LARGEST_OF_THREE  # the largest of three numbers

SRC = Path(__file__).resolve().parents[1] / "src"

# hours:minutes of a count of minutes, one printf per case, each followed by its return, none ending the line
# (the model's does)
SUBMISSION = r"""#include <stdio.h>
int main(void) {
    int t, h, m;
    if (scanf("%d", &t) != 1)
        return 0;
    h = t / 60;
    m = t % 60;
    if (h < 10 && m < 10) {
        printf("0%d:0%d", h, m);
        return 0;
    }
    if (h < 10) {
        printf("0%d:%d", h, m);
        return 0;
    }
    if (m < 10) {
        printf("%d:0%d", h, m);
        return 0;
    }
    printf("%d:%d", h, m);
    return 0;
}
"""

MODEL = r"""#include <stdio.h>
int main(void) {
    int t;
    if (scanf("%d", &t) != 1)
        return 0;
    if (t / 60 < 10)
        printf("0");
    printf("%d:", t / 60);
    if (t % 60 < 10)
        printf("0");
    printf("%d\n", t % 60);
    return 0;
}
"""


def course_repair(tmp_path: Path, submission: str, model: str, tests: list[tuple[str, str]]) -> dict:
    """The JSON report of ``crepair repair sub.c --reference model.c
    --tests-dir tests --compare exact`` run in ``tmp_path`` (as a user
    does, from the program's folder), with ``tests`` ((input, expected
    output) pairs) as the course's folder; the run must exit 0."""
    (tmp_path / "sub.c").write_text(submission)
    (tmp_path / "model.c").write_text(model)
    folder = tmp_path / "tests"
    folder.mkdir()
    for k, (given, expected) in enumerate(tests):
        (folder / f"t{k}.in").write_text(given)
        (folder / f"t{k}.out").write_text(expected)
    proc = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "sub.c", "--reference", "model.c",
                           "--tests-dir", "tests", "--compare", "exact", "--json", "--timeout", "120"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(SRC)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)


def test_every_literal_a_uniform_edit_applies_to_is_changed_at_once(tmp_path):
    path = tmp_path / "sub.c"
    path.write_text(SUBMISSION)
    reps = uniform_repairs(path, SUBMISSION, (), 0.0)
    first = reps[0]  # a newline at the end of every output
    assert [(c.before, c.after) for c in first.changes] == [
        ('"0%d:0%d"', '"0%d:0%d\\n"'), ('"0%d:%d"', '"0%d:%d\\n"'), ('"%d:0%d"', '"%d:0%d\\n"'),
        ('"%d:%d"', '"%d:%d\\n"')]
    assert first.patched.count('\\n"') == 4 and first.evidence.total == 0  # nothing run yet
    # no literal ends in a newline or has words: no other uniform edit applies to two
    assert len(reps) == 1


def test_one_literal_is_no_uniform_edit(tmp_path):
    text = '#include <stdio.h>\nint main(void) { printf("%d", 1); return 0; }\n'
    path = tmp_path / "one.c"
    path.write_text(text)
    assert uniform_repairs(path, text, (), 0.0) == []


def test_a_newline_missing_in_every_branch_is_repaired_in_one_run(tmp_path):
    """Each test takes one branch, so no single change passes a failing
    test and the others: the uniform edit does, and is proved."""
    report = course_repair(tmp_path, SUBMISSION, MODEL, [("65", "01:05\n"), ("75", "01:15\n"), ("605", "10:05\n"),
                                                         ("615", "10:15\n")])
    assert report["stats"]["rounds"] == 1  # not one round per branch
    first = report["repairs"][0]
    assert [c["replacement"] for c in first["changes"]] == ['"0%d:0%d\\n"', '"0%d:%d\\n"', '"%d:0%d\\n"',
                                                           '"%d:%d\\n"']
    assert first["evidence_level"] in ("proof", "tests")
    assert (tmp_path / "sub.c").read_text() == SUBMISSION  # nothing of the user's changed


PROMPTED = r"""#include <stdio.h>
int main(void) {
    int x, y, z;
    printf("Give three numbers.\n");
    scanf("%d%d%d", &x, &y, &z);
    if (x >= y && x >= z)
        printf("The largest is: %d\n", x);
    else if (y >= z)
        printf("The largest is: %d\n", y);
    else
        printf("The largest is: %d\n", z);
    return 0;
}
"""


def test_a_refuted_uniform_edit_is_a_start_for_one_more_change_not_a_dead_end(tmp_path):
    """A prompt line and words before each answer: deleting the words at
    every answer is refuted (the prompt is still printed) but comes
    nearest the expected outputs, so the search goes on from it and
    deletes the prompt's call; before, such a refuted edit became the
    next round's start by its count of failing tests and the run ended
    with no repair."""
    first = course_repair(tmp_path, PROMPTED, LARGEST_OF_THREE, [("9 2 3", "9\n"), ("1 8 3", "8\n"),
                                                         ("1 2 7", "7\n")])["repairs"][0]
    assert sorted((c["kind"], c["replacement"]) for c in first["changes"]) == [
        ("format", '"%d\\n"'), ("format", '"%d\\n"'), ("format", '"%d\\n"'),
        ("guard", 'if (0) printf("Give three numbers.\\n");')]
