"""The HTML report: its parts, the --html options, and a real browser."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from crepair.cli import main
from crepair.report.html import (
    HEAT_RGB, MAX_TINT, heat, highlighted_lines, render_batch, render_report, side_by_side, within_line,
)
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
    assert 'class="new">    for (int i = 0; i &lt;<ins>=</ins> n; i++)</td>' in page
    assert report["repairs"][0]["evidence"]["text"] in page.replace("&#39;", "'")
    assert "changed by repair 1" in page and "violated: assertion" in page
    assert page == page.replace("{{", "").replace("{%", "")  # the template is fully rendered


def test_verify_and_localize_html(tmp_path):
    path = write_c(tmp_path, SUM, "sum.c")
    assert main(["verify", str(path), "--html", str(tmp_path / "v.html")]) == 1
    page = (tmp_path / "v.html").read_text()
    assert "Counterexample" in page and '<td class="src">n <span class="note">= nondet_int()</span></td>' in page
    # n = 1 fails with one iteration: iterative deepening finds it at bound 1, and the page says so
    assert "the counterexample was found within unwinding bound 1 (the bound asked for is 8)" in page
    assert "could not decide" not in page
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
    assert "Repair 1: size 1, mutation level 1" in dom and "Down_Separation &gt;<ins>=</ins> ALIM()" in dom
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


# Issue 25, item 10 -------------------------------------------------------

TWO_INPUTS = """
    int main(void) {
        int m = nondet_int();
        int n;
        n = nondet_int();
        int k = 0;
        if (m > 0)
            k = nondet_int();
        assert(m + n + k < 100);
        return 0;
    }
"""


def test_counterexample_inputs_are_named_by_their_variables(tmp_path):
    path = write_c(tmp_path, TWO_INPUTS)
    assert main(["verify", str(path), "--html", str(tmp_path / "v.html")]) == 1
    page = (tmp_path / "v.html").read_text()
    table = page[page.index("<th>input</th>"):page.index("</table>", page.index("<th>input</th>"))]
    names = re.findall(r'<tr><td class="src">(\w+) <span class="note">= nondet_int\(\)</span></td><td>(\d+)</td>', table)
    assert ("m", "2") in names and ("n", "4") in names
    assert "read on the run" not in page
    # k's input is read only when m > 0: listed if the run reads it, else counted as left out
    assert ("k", "7") in names or "1 input on paths the run does not take left out" in page


def test_a_changed_line_pair_highlights_what_changed_within_it():
    old, new = within_line("if (x > 100)", "if (x >= 37)")
    assert "".join(t for t, _ in old) == "if (x > 100)" and "".join(t for t, _ in new) == "if (x >= 37)"
    assert [t for t, changed in old if not changed][0] == "if (x >"
    assert any(changed and "=" in t for t, changed in new)
    rows = side_by_side(DIFF)
    assert rows[2]["new_parts"] == [("for (i = 0; i <", False), ("=", True), (" n; i++)", False)]
    assert "old_parts" not in rows[4]  # a deleted line has no partner


def _luminance(rgb):
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b):
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_hottest_line_keeps_its_code_readable(tmp_path, capsys):
    # The changed line was drawn on saturated orange (rgba(255,80,0,0.8)).
    path = write_c(tmp_path, SUM, "sum.c")
    assert main(["repair", str(path), "--html", str(tmp_path / "r.html"), "--json"]) == 0
    capsys.readouterr()
    page = (tmp_path / "r.html").read_text()
    tints = [float(a) for a in re.findall(r"<td style=\"background: rgba\(\d+,\d+,\d+,([0-9.]+)\)\">", page)]
    assert tints and max(tints) <= MAX_TINT
    behind = tuple(round(255 * (1 - MAX_TINT) + c * MAX_TINT) for c in HEAT_RGB)  # the tint over white
    assert _contrast(behind, (0x1B, 0x1F, 0x24)) >= 7  # body text
    assert _contrast(behind, (0x00, 0x80, 0x00)) >= 4.5  # Pygments' keywords (WCAG AA)
    row = next(line for line in page.splitlines() if "changed by repair 1" in line and "<tr" in line)
    assert "border-left: 6px solid rgba(" in row and "0.8)" in row  # the heat shows in the bar


@pytest.mark.skipif(not (shutil.which("gdb") and shutil.which("gcc")), reason="needs gcc and gdb")
def test_a_heap_report_gives_one_time_for_the_run_and_its_repair(tmp_path, capsys):
    page_path = tmp_path / "h.html"
    code = main(["repair", str(HEAP / "fig1_reverse.c"), "--scheme", "heap", "--states", str(HEAP / "fig2_states.json"),
                 "--insert-slots", "1", "--json", "--html", str(page_path)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (rep,) = out["repairs"]
    assert out["seconds"] == round(rep["seconds"], 3)
    page = page_path.read_text()
    assert f"{out['seconds']:.2f} s" in page and f"found after {rep['seconds']:.2f} s" in page
