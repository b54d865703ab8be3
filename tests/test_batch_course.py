"""crepair batch over a course: assignments with a model solution, tests and submissions.

The course is tiny and fast: two assignments, "max" (3 submissions: two
with the same one-token bug laid out differently, one correct) and "diff"
(2 submissions: one one-token bug, one correct), run from the course's
own folder with relative paths, as a teacher would.
"""

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from crepair.batch import read_jobs
from crepair.batch.course import course_manifest, manifest_beside
from crepair.errors import BadInput
from crepair.report.course import Category, category, normalized_diff
from crepair.report.course_lines import line_map, token_lines

SRC = Path(__file__).resolve().parents[1] / "src"
MAX = """#include <stdio.h>
int main(void) {
    int a, b;
    scanf("%d %d", &a, &b);
    if (a > b)
        printf("%d\\n", a);
    else
        printf("%d\\n", b);
    return 0;
}
"""
DIFF = """#include <stdio.h>
int main(void) {
    int a, b;
    scanf("%d %d", &a, &b);
    printf("%d\\n", a - b);
    return 0;
}
"""
TESTS = {"max": [("3 5\n", "5\n"), ("7 2\n", "7\n")], "diff": [("5 3\n", "2\n"), ("1 4\n", "-3\n")]}
SUBMISSIONS = {
    "max": {"s1.c": MAX.replace("a > b", "a < b"),
            "s2.c": "/* student 2 */\n" + MAX.replace("    if (a > b)", "  if (a<b)"),  # same bug, other layout
            "s3.c": MAX},
    "diff": {"t1.c": DIFF.replace("a - b", "a + b"), "t2.c": DIFF},
}
MANIFEST = """\
options: {compare: exact}
args: [--max-repairs, "1"]
assignments:
  - name: lab1/max
    reference: reference_implementations/lab1/max.c
    tests: tests/lab1/max
    submissions: incorrect/*/lab1/max/*.c
  - name: lab1/diff
    reference: reference_implementations/lab1/diff.c
    tests: tests/lab1/diff
    options: {timeout: 60}
    submissions: [incorrect/y1/lab1/diff/t1.c, incorrect/y1/lab1/diff/t2.c]
"""


def course(root: Path) -> Path:
    """A course shaped like C-Pack-IPAs under ``root`` with MANIFEST as course.yaml."""
    for name, model in (("max", MAX), ("diff", DIFF)):
        ref = root / "reference_implementations" / "lab1" / f"{name}.c"
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(model)
        tests = root / "tests" / "lab1" / name
        tests.mkdir(parents=True)
        for k, (i, o) in enumerate(TESTS[name]):
            (tests / f"{name}_{k}.in").write_text(i)
            (tests / f"{name}_{k}.out").write_text(o)
        subs = root / "incorrect" / "y1" / "lab1" / name
        subs.mkdir(parents=True)
        for file, text in SUBMISSIONS[name].items():
            (subs / file).write_text(text)
    (root / "course.yaml").write_text(MANIFEST)
    return root


def crepair(cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC), RAY_ADDRESS="")
    return subprocess.run([sys.executable, "-m", "crepair.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


class Cells(HTMLParser):
    """The text of the elements with a ``data-*`` attribute, by (attribute, value) and row."""

    def __init__(self):
        super().__init__()
        self.cells: dict[tuple[str, str, str], str] = {}
        self.row = ""
        self.open: tuple[str, str] | None = None
        self.members: list[str] = []
        self.in_members = False
        self.groups: list[int] = []
        self.heat: dict[int, int] = {}
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and ("data-assignment" in a or "data-submission" in a):
            self.row = a.get("data-assignment") or a.get("data-submission")
        if tag == "tr" and "data-line" in a:
            self.heat[int(a["data-line"])] = int(a["data-count"])
        if tag == "td" and ("data-category" in a or "data-level" in a):
            key = "category" if "data-category" in a else "level"
            self.open = (key, a["data-" + key])
        if tag == "td" and a.get("class") == "level":
            self.open = ("evidence", "")
        if tag == "section" and "data-count" in a:
            self.groups.append(int(a["data-count"]))
        if tag == "p" and a.get("class") == "members":
            self.in_members = True
        if tag == "a":
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "p":
            self.in_members = False

    def handle_data(self, data):
        if self.open:
            self.cells[(self.row, *self.open)] = data.strip()
            self.open = None
        elif self.in_members and data.strip(" ,"):
            self.members.append(data.strip(" ,"))


def parse(path: Path) -> Cells:
    p = Cells()
    p.feed(path.read_text())
    return p


def test_a_course_manifest_is_one_repair_job_per_submission_tagged_with_its_assignment(tmp_path):
    root = course(tmp_path / "course")
    jobs = read_jobs(str(root / "course.yaml"), "repair", ["--unwind", "4"])
    assert [j.id for j in jobs] == [
        "lab1/max: incorrect/y1/lab1/max/s1.c", "lab1/max: incorrect/y1/lab1/max/s2.c",
        "lab1/max: incorrect/y1/lab1/max/s3.c",
        "lab1/diff: incorrect/y1/lab1/diff/t1.c", "lab1/diff: incorrect/y1/lab1/diff/t2.c"]
    first, last = jobs[0], jobs[-1]
    assert first.command == "repair" and first.program == str(root / "incorrect/y1/lab1/max/s1.c")
    assert first.args == ("--reference", str(root / "reference_implementations/lab1/max.c"),
                          "--tests-dir", str(root / "tests/lab1/max"), "--compare", "exact",
                          "--max-repairs", "1", "--unwind", "4")
    assert last.args[4:] == ("--compare", "exact", "--timeout", "60", "--max-repairs", "1", "--unwind", "4")
    assert dict(first.meta)["assignment"] == "lab1/max" and dict(last.meta)["submission"] == \
        "incorrect/y1/lab1/diff/t2.c"
    # the same course as one JSON object; the job-list manifests still read as before
    (root / "course.json").write_text(json.dumps(__import__("yaml").safe_load(MANIFEST)))
    assert [j.id for j in read_jobs(str(root / "course.json"))] == [j.id for j in jobs]
    (root / "jobs.jsonl").write_text('{"program": "a.c", "id": "a"}\n')
    assert [j.id for j in read_jobs(str(root / "jobs.jsonl"))] == ["a"]


def test_a_benchmark_suite_over_a_course_folder_is_one_job_per_submission(tmp_path):
    from crepair.batch.bench import load_suite

    root = course(tmp_path / "course")
    (root / "suites").mkdir()
    (root / "suites" / "course.yaml").write_text("title: t\ncourse: ..\noptions: {compare: exact, timeout: 9}\n")
    suite, jobs = load_suite(root / "suites" / "course.yaml")
    assert [j.id for j in jobs] == [  # relative to the course, wherever the suite is
        "lab1/diff: incorrect/y1/lab1/diff/t1.c", "lab1/diff: incorrect/y1/lab1/diff/t2.c",
        "lab1/max: incorrect/y1/lab1/max/s1.c", "lab1/max: incorrect/y1/lab1/max/s2.c",
        "lab1/max: incorrect/y1/lab1/max/s3.c"]
    assert jobs[0].program == str(root / "suites" / ".." / "incorrect/y1/lab1/diff/t1.c")
    assert [dict(j.meta)["assignment"] for j in jobs] == ["lab1/diff"] * 2 + ["lab1/max"] * 3
    assert jobs[0].args[-4:] == ("--compare", "exact", "--timeout", "9")
    (root / "suites" / "bad.yaml").write_text("title: t\ncourse: ..\noptions: [exact]\n")
    with pytest.raises(BadInput, match="options"):
        load_suite(root / "suites" / "bad.yaml")


@pytest.mark.parametrize("change, message", [
    (("reference: reference_implementations/lab1/max.c", "reference: nothing.c"),
     r"assignment 1 \(lab1/max\): reference 'nothing.c': no such file"),
    (("tests: tests/lab1/diff", "tests: tests/none"),
     r"assignment 2 \(lab1/diff\): tests 'tests/none': no such folder"),
    (("submissions: incorrect/*/lab1/max/*.c", "submissions: incorrect/*/lab9/*.c"),
     r"assignment 1 \(lab1/max\): submissions: no file matches 'incorrect/\*/lab9/\*.c'"),
    (("name: lab1/diff", "name: lab1/max"), "two assignments are named 'lab1/max'"),
    (("submissions: [incorrect/y1/lab1/diff/t1.c, incorrect/y1/lab1/diff/t2.c]", "submissions: 3"),
     r"assignment 2 \(lab1/diff\): \"submissions\" is a path or a glob, or a list of them"),
])
def test_a_bad_course_manifest_is_one_line_naming_the_assignment(tmp_path, change, message):
    root = course(tmp_path / "course")
    (root / "course.yaml").write_text(MANIFEST.replace(*change))
    with pytest.raises(BadInput, match=message):
        read_jobs(str(root / "course.yaml"))
    p = crepair(root, "batch", "course.yaml", "-o", "r.jsonl", "--quiet")
    assert p.returncode == 3 and len(p.stderr.strip().splitlines()) == 1 and "course.yaml: assignment" in p.stderr


def test_the_manifest_of_a_c_pack_shaped_folder(tmp_path):
    root = course(tmp_path / "course")
    (root / "incorrect" / "y2" / "lab1" / "max").mkdir(parents=True)
    (root / "incorrect" / "y2" / "lab1" / "max" / "u1.c").write_text(MAX)
    (root / "reference_implementations" / "lab1" / "alone.c").write_text(MAX)  # no tests, no submissions
    data = course_manifest(root, root / "out")
    assert data["options"] == {"compare": "exact"}
    assert data["assignments"] == [
        {"name": "lab1/diff", "reference": "../reference_implementations/lab1/diff.c", "tests": "../tests/lab1/diff",
         "submissions": ["../incorrect/y1/lab1/diff/*.c"]},
        {"name": "lab1/max", "reference": "../reference_implementations/lab1/max.c", "tests": "../tests/lab1/max",
         "submissions": ["../incorrect/y1/lab1/max/*.c", "../incorrect/y2/lab1/max/*.c"]},
    ]
    assert manifest_beside("out/r.jsonl") == Path("out/r.course.yaml")
    with pytest.raises(BadInput, match="not a course folder"):
        course_manifest(root / "tests", root)


def test_token_lines_and_the_student_to_model_line_map():
    assert token_lines('#include <stdio.h>\n/* c */ int x; // y\n\n')[:3] == [
        ("#", "include", "<stdio.h>"), ("int", "x", ";"), ()]
    student = SUBMISSIONS["max"]["s2.c"]  # a comment line first, the if re-indented and changed
    assert line_map(student, MAX) == {k: k - 1 for k in range(2, 12)}
    # a line the model has no counterpart for maps to nothing
    extra = line_map(MAX.replace("    scanf", '    puts("hi");\n    scanf'), MAX)  # line 4 is new
    assert 4 not in extra and extra[3] == 3 and extra[5] == 4


def test_outcome_categories_and_normalized_diffs():
    assert category("repaired") is Category.REPAIRED and category("exhausted") is Category.NO_REPAIR
    assert category("timeout") is Category.UNKNOWN and category("no-failing-test") is Category.CORRECT
    assert category("bad-input") is Category.ERROR and category("crash") is Category.ERROR
    one = "--- a/s1.c\n+++ b/s1.c\n@@ -4,3 +4,3 @@\n x\n-    if (a < b)\n+    if (a > b)\n y\n"
    two = "--- a/s2.c\n+++ b/s2.c\n@@ -5,3 +5,3 @@\n z\n-  if (a<b) /* ! */\n+  if (a>b)\n w\n"
    assert normalized_diff(one) == normalized_diff(two) == "-if ( a < b )\n+if ( a > b )"
    assert normalized_diff(one) != normalized_diff(one.replace("> b", ">= b"))


def test_a_course_from_its_own_folder_resumed_with_pages_per_assignment(tmp_path):
    root = course(tmp_path / "course")
    (root / "out").mkdir()
    p = crepair(root, "batch", "course.yaml", "-o", "out/results.jsonl", "--jobs", "2", "--html", "out/report.html")
    assert p.returncode == 0, p.stderr
    assert "HTML report: out/report.html (and 3 pages beside it)" in p.stderr
    assert "per assignment" in p.stdout
    records = [json.loads(line) for line in (root / "out" / "results.jsonl").read_text().splitlines()]
    assert len(records) == 5
    by_assignment: dict[str, dict[str, int]] = {}
    for r in records:
        counts = by_assignment.setdefault(r["meta"]["assignment"], {})
        counts[category(r["outcome"]).value] = counts.get(category(r["outcome"]).value, 0) + 1
    assert by_assignment == {"lab1/max": {"repaired": 2, "already correct": 1},
                             "lab1/diff": {"repaired": 1, "already correct": 1}}
    repaired = {r["meta"]["submission"]: r["repairs"][0] for r in records if r["outcome"] == "repaired"}
    assert all(rep["evidence_level"] in ("proof", "tests") for rep in repaired.values())
    s1, s2 = repaired["incorrect/y1/lab1/max/s1.c"], repaired["incorrect/y1/lab1/max/s2.c"]
    assert normalized_diff(s1["diff"]) == normalized_diff(s2["diff"])

    out = root / "out"
    assert sorted(f.name for f in out.glob("*.html")) == [
        "report-jobs.html", "report-lab1-diff.html", "report-lab1-max.html", "report.html"]
    index = parse(out / "report.html")
    assert index.cells[("lab1/max", "category", "repaired")] == "2"
    assert index.cells[("lab1/max", "category", "already correct")] == "1"
    assert index.cells[("lab1/diff", "category", "repaired")] == "1"
    assert index.cells[("lab1/diff", "category", "unknown")] == "0"
    assert {"report-lab1-max.html", "report-lab1-diff.html", "report-jobs.html"} <= set(index.links)
    page = parse(out / "report-lab1-max.html")
    assert page.cells[("", "category", "repaired")] == "2" and page.cells[("", "category", "no repair")] == "0"
    assert page.cells.get(("incorrect/y1/lab1/max/s3.c", "evidence", ""), "") == ""
    assert page.cells[("incorrect/y1/lab1/max/s1.c", "evidence", "")] == s1["evidence_level"]
    assert page.groups == [2]  # the two identical repairs: one group of two
    assert page.members == ["incorrect/y1/lab1/max/s1.c", "incorrect/y1/lab1/max/s2.c"]
    # both repairs change the if, line 5 of the model solution (line 6 of s2)
    assert page.heat == {k: (2 if k == 5 else 0) for k in range(1, 11)}
    text = (out / "report-lab1-max.html").read_text()
    assert "<script" not in text and "http://" not in text and "https://" not in text

    # resume: the records of the last two jobs lost, they (only) run again
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:3]))
    p = crepair(root, "batch", "course.yaml", "-o", "out/results.jsonl", "--jobs", "2", "--resume")
    assert p.returncode == 0, p.stderr
    assert "resuming: 3 of 5 jobs" in p.stderr and p.stderr.count("] ") == 2
    again = {json.loads(line)["id"]: json.loads(line)["outcome"]
             for line in (out / "results.jsonl").read_text().splitlines()}
    assert again == {r["id"]: r["outcome"] for r in records}
    # the jobs keep the model's answers in the cache folder ($XDG_CACHE_HOME/crepair): run again, they ask it nothing
    rerun = [json.loads(line)["report"] for line in (out / "results.jsonl").read_text().splitlines()[3:]]
    assert [r["cache"]["kept"] == r["cache"]["asked"] > 0 for r in rerun] == [True, True]


def test_batch_course_writes_the_manifest_beside_the_results_and_runs_it(tmp_path):
    root = course(tmp_path / "course")
    for name in ("s1.c", "s2.c", "s3.c"):  # one assignment is enough here
        (root / "incorrect" / "y1" / "lab1" / "max" / name).unlink()
    (root / "incorrect" / "y1" / "lab1" / "max").rmdir()
    (root / "out").mkdir()
    p = crepair(root, "batch", ".", "--course", "-o", "out/r.jsonl", "--options", "--max-repairs 1")
    assert p.returncode == 0, p.stderr
    assert "course manifest: out/r.course.yaml (1 assignment)" in p.stderr
    records = [json.loads(line) for line in (root / "out" / "r.jsonl").read_text().splitlines()]
    assert sorted((r["meta"]["submission"], r["outcome"]) for r in records) == [
        ("../incorrect/y1/lab1/diff/t1.c", "repaired"), ("../incorrect/y1/lab1/diff/t2.c", "no-failing-test")]
    p = crepair(root, "batch", "tests", "--course", "-o", "out/r2.jsonl")
    assert p.returncode == 3 and "not a course folder" in p.stderr and "Traceback" not in p.stderr


def test_a_course_on_ray_gives_the_records_of_the_process_pool(tmp_path):
    pytest.importorskip("ray")
    root = course(tmp_path / "course")
    (root / "one.yaml").write_text(MANIFEST.split("  - name: lab1/max")[0] + "  - name: lab1/diff"
                                   + MANIFEST.split("  - name: lab1/diff")[1])
    got = {}
    for executor in ("process", "ray"):
        p = crepair(root, "batch", "one.yaml", "-o", f"{executor}.jsonl", "--jobs", "2", "--executor", executor)
        assert p.returncode == 0, p.stderr
        records = [json.loads(line) for line in (root / f"{executor}.jsonl").read_text().splitlines()]
        got[executor] = sorted((r["id"], r["outcome"], r["meta"]["assignment"]) for r in records)
    assert got["ray"] == got["process"] == [
        ("lab1/diff: incorrect/y1/lab1/diff/t1.c", "repaired", "lab1/diff"),
        ("lab1/diff: incorrect/y1/lab1/diff/t2.c", "no-failing-test", "lab1/diff")]


def test_course_pages_escape_names_messages_and_diffs(tmp_path):
    model = tmp_path / "model.c"
    model.write_text(MAX)
    student = tmp_path / "s.c"
    student.write_text(SUBMISSIONS["max"]["s1.c"])
    diff = ("--- a/s.c\n+++ b/s.c\n@@ -5,1 +5,1 @@\n-    if (a < b)\n+    if (a > b) /* <script>x</script> */\n")
    repair = {"diff": diff, "evidence_level": "tests",
              "changes": [{"location": {"line": 5}, "edits": [{"span": {"line": 5}, "old": "<", "new": ">"}]}]}
    meta = {"assignment": "<b>lab</b>", "reference": str(model), "tests": "t", "submission": "<i>s.c</i>"}
    records = [
        {"id": "1", "program": str(student), "command": "repair", "args": [], "outcome": "repaired", "seconds": 1.0,
         "repairs": [repair], "report": None, "message": "", "meta": meta},
        {"id": "2", "program": str(tmp_path / "gone.c"), "command": "repair", "args": [], "outcome": "bad-input",
         "seconds": 0.5, "repairs": [], "report": None, "message": "<script>alert(1)</script>",
         "meta": dict(meta, submission="gone.c")},
    ]
    from crepair.report.course_html import write_html

    pages = write_html(tmp_path / "r.html", records, "<title>")
    assert [p.name for p in pages] == ["r.html", "r-b-lab-b.html", "r-jobs.html"]
    for p in pages[:2]:
        text = p.read_text()
        assert "<script>" not in text and "<b>lab" not in text and "<i>s.c" not in text
    page = parse(pages[1])
    assert page.cells[("", "category", "repaired")] == "1" and page.cells[("", "category", "error")] == "1"
    assert page.heat[5] == 1 and sum(page.heat.values()) == 1 and page.groups == [1]
