"""The HTML report: its parts, the --html options, and a real browser."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from crepair.cli import main
from crepair.report.html import heat, highlighted_lines, render_batch, render_report, side_by_side
from cprog import SHARED, write_c

SUM = (Path(__file__).resolve().parents[1] / "examples" / "sum.c").read_text()
DIFF = """--- a/p.c
+++ b/p.c
@@ -3,4 +3,4 @@
 int s = 0;
-for (i = 0; i < n; i++)
+for (i = 0; i <= n; i++)
     s += i;
-x = 1;
"""


def self_contained(page: str) -> None:
    assert "<script" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page), "the page loads something"
    assert "@import" not in page and "url(" not in page


def test_a_unified_diff_side_by_side():
    rows = side_by_side(DIFF)
    assert [(r["kind"], r["old_no"], r["old"], r["new_no"], r["new"]) for r in rows] == [
        ("hunk", None, "@@ -3,4 +3,4 @@", None, ""),
        ("same", 3, "int s = 0;", 3, "int s = 0;"),
        ("change", 4, "for (i = 0; i < n; i++)", 4, "for (i = 0; i <= n; i++)"),
        ("same", 5, "    s += i;", 5, "    s += i;"),
        ("change", 6, "x = 1;", None, ""),
    ]


def test_the_heat_map_of_must_locations_diagnoses_and_a_ranking():
    span = lambda line: {"line": line}  # noqa: E731
    weights, why = heat({"locations": [{"span": span(4)}], "diagnoses": [
        {"components": [{"span": span(7)}, {"span": span(7)}]}, {"components": [{"span": span(8)}]}]}, "localize", [])
    assert weights == {4: 1.0, 7: 0.625, 8: 0.625} and why[7] == ["in 1 of 2 diagnoses"]
    weights, _ = heat({"ranking": [{"rank": 1, "line": 2, "score": "inf"}, {"rank": 2, "line": 3, "score": 0.5},
                                   {"rank": 3, "line": 5, "score": 0.25}]}, "localize", [])
    assert weights == {2: 1.0, 3: 1.0, 5: 0.5}


def test_the_source_is_highlighted_line_by_line_and_escaped():
    lines = highlighted_lines("/* a\n   b */\nint x = 1 < 2;\n")
    assert len(lines) == 3 and "&lt;" in lines[2] and "<span" in lines[1]
    assert all(line.count("<span") == line.count("</span>") for line in lines)  # no span crosses a line


def test_repair_html_shows_the_repair_side_by_side_with_its_evidence(tmp_path, capsys):
    path = write_c(tmp_path, SUM, "sum.c")
    page_path = tmp_path / "r.html"
    assert main(["repair", str(path), "--html", str(page_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    page = page_path.read_text()
    self_contained(page)
    assert "Repair 1: size 1, mutation level 1" in page
    assert 'class="old">    for (int i = 0; i &lt; n; i++)</td>' in page
    assert 'class="new">    for (int i = 0; i &lt;= n; i++)</td>' in page
    assert report["repairs"][0]["evidence"]["text"] in page.replace("&#39;", "'")
    assert "changed by repair 1" in page and "violated: assertion" in page
    assert page == page.replace("{{", "").replace("{%", "")  # the template is fully rendered


def test_verify_and_localize_html(tmp_path):
    path = write_c(tmp_path, SUM, "sum.c")
    assert main(["verify", str(path), "--html", str(tmp_path / "v.html")]) == 1
    page = (tmp_path / "v.html").read_text()
    assert "Counterexample" in page and "<td>nondet_int()</td>" in page
    assert main(["localize", str(path), "--html", str(tmp_path / "l.html")]) == 0
    page = (tmp_path / "l.html").read_text()
    assert "Must location set" in page and "must location" in page
    self_contained(page)


def test_a_batch_page_lists_every_job_and_links_to_it(tmp_path):
    records = [
        {"id": "repair a.c", "program": str(write_c(tmp_path, SUM, "a.c")), "command": "repair", "outcome": "repaired",
         "seconds": 1.0, "message": "", "report": {"outcome": "repaired"},
         "repairs": [{"size": 1, "scheme": "mutation", "stage": "", "vacuous": False, "diff": DIFF, "changes": [],
                      "evidence": {"text": "verified"}, "seconds": 0.5}]},
        {"id": "repair b.c", "program": str(tmp_path / "missing.c"), "command": "repair", "outcome": "timeout",
         "seconds": 9.0, "message": "killed after 9 s", "report": None, "repairs": []},
    ]
    page = render_batch(records, "two jobs")
    self_contained(page)
    assert page.count('<a href="#job-') == 2 and 'id="job-1"' in page and 'id="job-2"' in page
    assert "killed after 9 s" in page and "(source not readable)" in page


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package chromium)")
def test_the_tcas_v1_repair_page_renders_in_headless_chromium(tmp_path):
    spec = SHARED / "tcas" / "spec" / "tcas_v1.c"
    if not spec.exists():
        pytest.skip(f"{spec} is missing (the shared benchmarks are not part of the repository)")
    page = tmp_path / "tcas_v1.html"
    assert main(["repair", str(spec), "--quiet", "--html", str(page)]) == 0
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert "Repair 1: size 1, mutation level 1" in dom and "Down_Separation &gt;= ALIM()" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *flags, f"--screenshot={shot}", "--window-size=1000,800", page.as_uri()],
                   capture_output=True, timeout=120)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a drawn page, not a blank one


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian package chromium)")
def test_a_batch_page_renders_in_headless_chromium(tmp_path):
    d = tmp_path / "progs"
    d.mkdir()
    write_c(d, SUM, "a.c")
    write_c(d, "int main(void) { return 0 }\n", "b.c")
    page = tmp_path / "batch.html"
    assert main(["batch", str(d), "--jobs", "2", "-o", str(tmp_path / "r.jsonl"), "--quiet", "--html", str(page)]) == 0
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
    dom = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert dom.count('<a href="#job-') == 2 and "bad-input" in dom and "Repair 1: size 1, mutation level 1" in dom


HEAP = Path(__file__).resolve().parent / "data" / "heap"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed (Debian package graphviz)")
def test_a_heap_repair_page_draws_the_specification_states():
    spec = json.loads((HEAP / "fig2_states.json").read_text())
    states = [e for t in spec["traces"] for e in t if e.get("state") is not None]
    report = {"file": "fig1_reverse.c", "scheme": "heap", "outcome": "repaired", "locations": 9, "repairs": []}
    page = render_report("repair", report, (HEAP / "fig1_reverse.c").read_text(), states=str(HEAP / "fig2_states.json"))
    self_contained(page)
    assert page.count("<svg") == len(states) and "<?xml" not in page
    captions = re.findall(r'<figcaption class="note">([^<]*)</figcaption>', page)
    assert captions[0] == "reverse, call 1: entry" and captions[1].startswith("reverse, call 1: loop head, line ")
    assert captions[-1].startswith("reverse, call 3: ")
    first = page[page.index("<svg"):page.index("</svg>")]
    assert all(f">n{k}<" in first for k in (1, 2, 3, 4))  # the four nodes of Fig. 2 (c)
    assert "Must location set" not in page  # the heap scheme's count of locations is not a must set


def test_a_page_with_unreadable_states_says_so(tmp_path):
    report = {"file": "p.c", "scheme": "heap", "outcome": "no-repair", "repairs": []}
    page = render_report("repair", report, "int main(void) { return 0; }\n", states=str(tmp_path / "missing.json"))
    assert "Specification states" in page and "the states could not be read" in page
