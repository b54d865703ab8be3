"""The meta-program (crepair.testequiv.metaprogram) against concrete runs.

1. Generated programs (seeded): a loop around a statement site holding a
   condition site ``P && Q`` that holds a condition site ``P``, and an
   integer site in the body.  The meta-program is compiled once; every
   candidate is also compiled alone (from its ``replacement``, and with its
   site's values logged to stderr).  For each running candidate c and input
   t: the class the runtime computes equals {c' of c's site and group whose
   patched program gives the same value sequence at the site}, its members
   print what c prints, and the meta-program running c prints what p[c]
   prints; without CREPAIR_CANDIDATE it prints what the original prints
   (``__LINE__`` included: the meta-program keeps the user's lines).
2. The paper's examples: TOSEM'18 §2.2 (Fig. 3) and Example 3.6.
3. Faults in candidates, kills, the trace.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from crepair.errors import InternalError
from crepair.records import text_span
from crepair.testequiv.candidates import Candidate, Schema, SearchSpace, Site, SiteKind
from crepair.testequiv.metaprogram import (
    instrument,
    partition_generation,
    read_partition,
    read_trace,
    run_environment,
    write_partition,
)

GCC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(GCC is None, reason="gcc is not installed")

LOG_HELPERS = ('#include <stdio.h>\nstatic int __logc(int v) { fprintf(stderr, "%d\\n", !!v); return v; }\n'
               'static int __logi(int v) { fprintf(stderr, "%d\\n", v); return v; }\n'
               'static int __pre(void) { fprintf(stderr, "@ "); return 0; }\n')


# ----------------------------------------------------------------- running C
@dataclass(frozen=True)
class Run:
    stdout: str
    code: int  # exit status, or -signal
    stderr: str = field(default="", compare=False)


def compile_c(source: str, exe: Path) -> Path:
    """``exe`` built from ``source`` with plain ``gcc -std=gnu99 -w -O0``."""
    c_file = exe.with_suffix(".c")
    c_file.write_text(source)
    done = subprocess.run([GCC, "-std=gnu99", "-w", "-O0", str(c_file), "-o", str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[:3000]
    return exe


def compile_all(jobs: dict[Path, str]) -> None:
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(lambda job: compile_c(job[1], job[0]), jobs.items()))


def run(exe: Path, args: tuple, env: dict[str, str] | None = None, timeout: float = 10) -> Run:
    done = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
    return Run(done.stdout, done.returncode, done.stderr)


def run_meta(exe: Path, cand: int, args: tuple, listed, part: Path, **kw) -> tuple[Run, frozenset[int]]:
    """Run candidate ``cand`` of the meta-program ``exe`` projecting ``listed``."""
    write_partition(part, listed)
    return run(exe, args, run_environment(cand, partition=part), **kw), read_partition(part)


def site_at(sid: int, kind: SiteKind, src: str, text: str, start_at: int = 0, **kw) -> Site:
    start = src.index(text, start_at)
    return Site(sid, kind, text_span("prog.c", src, start, start + len(text)), text, "main", **kw)


def patch(src: str, site: Site, text: str) -> str:
    return src[:site.span.start] + text + src[site.span.end:]


# ------------------------------------------------------- generated programs
OPERANDS = ["a", "b", "c", "s", "i", "0", "1", "2"]


@dataclass
class Generated:
    source: str
    space: SearchSpace
    logged: dict[int, str]  # candidate -> its patched program logging the site's values
    inputs: list[tuple[int, int, int]]


def generate(seed: int) -> Generated:
    rng = random.Random(seed)

    def atom(ops) -> str:
        return f"{rng.choice(OPERANDS)} {rng.choice(ops)} {rng.choice(OPERANDS)}"

    cmp_ops, arith = ["<", "<=", ">", ">=", "==", "!="], ["+", "-", "/", "%"]
    p, q, e = atom(cmp_ops), atom(cmp_ops), f"{rng.choice('abci')} {rng.choice('+-')} {rng.choice(OPERANDS)}"
    src = textwrap.dedent(f"""\
        #include <stdio.h>
        #include <stdlib.h>
        int main(int argc, char **argv) {{
            int a = atoi(argv[1]), b = atoi(argv[2]), c = atoi(argv[3]);
            int s = 0, i;
            for (i = 0; i < {rng.randint(3, 5)}; i++) {{
                if ({p} && {q}) {{
                    s = s + {e};
                }}
                c = c - 1;
            }}
            printf("%d %d %d %d line %d\\n", a, b, c, s, __LINE__);
            return 0;
        }}
        """)
    stmt_text = src[src.index("if ("):src.index("}\n", src.index("s = s +")) + 1]
    sites = (site_at(0, SiteKind.STMT, src, stmt_text),
             site_at(1, SiteKind.EXPR, src, f"{p} && {q}", value_type="int", condition=True),
             site_at(2, SiteKind.EXPR, src, p, src.index("if (") + 4, value_type="int", condition=True),
             site_at(3, SiteKind.EXPR, src, e, src.index("s = s +") + 8, value_type="int"))
    cands: list[Candidate] = []
    logged: dict[int, str] = {}

    def add(site: Site, schema: Schema, code: str, replacement: str, log: str, group: int = 0, lhs: str = "",
            param: int | None = None):
        if param is not None:  # f1x's parameter: the meta-program reads it from a table, the others see it
            replacement, log = (x.replace("__CR_PARAM", str(param)) for x in (replacement, log))
        if any(c.site == site.id and c.code == code and c.lhs == lhs and c.param == param for c in cands):
            return
        logged[len(cands)] = LOG_HELPERS + patch(src, site, log)
        cands.append(Candidate(len(cands), site.id, schema, code, replacement, 1, group, lhs, param=param))

    prng = random.Random(seed + 1000)  # its own stream: the programs and other candidates stay those of the seed

    def param_atom() -> tuple[str, int]:  # x op k, k in f1x's 0..64 (several k share one body)
        return f"{prng.choice('abcs')} {prng.choice(cmp_ops)} __CR_PARAM", prng.choice([0, 1, 2, 3, 64])

    stmt = sites[0].text
    for _ in range(3):
        g = rng.choice(["0", "1", atom(cmp_ops), atom(arith)])
        add(sites[0], Schema.GUARD, g, f"if ({g}) {stmt}", f"if ((__pre(), __logc({g}))) {stmt}")
    g, k = param_atom()
    for k in (k, k + 1, 2 * k):
        add(sites[0], Schema.GUARD, g, f"if ({g}) {stmt}", f"if ((__pre(), __logc({g}))) {stmt}", param=k)
    for _ in range(5):
        lhs, rhs = rng.choice("as"), atom(arith)
        add(sites[0], Schema.ASSIGNMENT, rhs, f"{{ {lhs} = {rhs}; {stmt} }}",
            f"{{ {lhs} = (__pre(), __logi({rhs})); {stmt} }}", group=1 + "as".index(lhs), lhs=lhs)
    for site, count in ((sites[1], 7), (sites[2], 5)):
        orig = f"({site.text})"
        for _ in range(count):
            code = rng.choice([atom(cmp_ops), atom(cmp_ops), f"__cr_e && {atom(cmp_ops)}", f"__cr_e || {atom(cmp_ops)}",
                               f"{atom(arith)} > 0"])
            replacement = "(" + code.replace("__cr_e", orig) + ")"  # a unit, as the meta-program has it
            add(site, Schema.EXPRESSION, code, replacement, f"(__pre(), __logc({replacement}))")
        code, k = param_atom()
        code = prng.choice([code, f"__cr_e && ({code})", f"__cr_e || ({code})"])
        replacement = "(" + code.replace("__cr_e", orig) + ")"
        for k in (k, k + 1, k + 2):
            add(site, Schema.EXPRESSION, code, replacement, f"(__pre(), __logc({replacement}))", param=k)
    for _ in range(7):
        code = rng.choice([atom(arith), atom(arith), "__cr_e + 1", "__cr_e - s"])
        replacement = "(" + code.replace("__cr_e", f"({e})") + ")"
        add(sites[3], Schema.EXPRESSION, code, replacement, f"(__pre(), __logi({replacement}))")
    inputs = [tuple(rng.randint(-2, 3) for _ in range(3)) for _ in range(3)]
    return Generated(src, SearchSpace(sites, tuple(cands)), logged, inputs)


def value_sequence(r: Run) -> tuple:
    """What a logged patched program printed at its site (``@`` before each
    execution, then the value), then how it died; () if it never got there."""
    return tuple(r.stderr.split()) + ((r.code,) if r.code < 0 and r.stderr else ())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_projection_matches_separate_runs(tmp_path, seed):
    gen = generate(seed)
    space = gen.space
    meta = tmp_path / "meta"
    jobs = {meta: instrument(gen.source, space), tmp_path / "orig": gen.source}
    for c in space.candidates:
        jobs[tmp_path / f"p{c.id}"] = patch(gen.source, space.sites[c.site], c.replacement)
        jobs[tmp_path / f"log{c.id}"] = gen.logged[c.id]
    compile_all(jobs)
    every = [c.id for c in space.candidates]
    part = tmp_path / "partition"
    at_site = {s.id: [c.id for c in space.candidates if c.site == s.id] for s in space.sites}
    for t in gen.inputs:
        assert run(meta, t) == run(tmp_path / "orig", t)
        plain = {c: run(tmp_path / f"p{c}", t) for c in every}
        sequence = {c: value_sequence(run(tmp_path / f"log{c}", t)) for c in every}
        for c in space.candidates:
            got, klass = run_meta(meta, c.id, t, at_site[c.site], part)
            assert got == plain[c.id] and got.stderr == "", (c, t)
            # a site that never ran: every candidate of it ran as the original
            expected = {d for d in at_site[c.site] if sequence[d] == sequence[c.id]
                        and (space.candidates[d].group == c.group or not sequence[c.id])}
            assert klass == expected, (c, t, sorted(klass), sorted(expected))
            assert all(plain[d] == plain[c.id] for d in klass)


# -------------------------------------------------------- paper's examples
def one_site_program(tmp_path: Path, src: str, text: str, codes: list[str], **site) -> tuple[Path, SearchSpace]:
    src = textwrap.dedent(src)
    s = site_at(0, SiteKind.EXPR, src, text, **site)
    cands = tuple(Candidate(k, 0, Schema.EXPRESSION, code, code, 1) for k, code in enumerate(codes))
    space = SearchSpace((s,), cands)
    return compile_c(instrument(src, space), tmp_path / "meta"), space


def test_fig3_optimal_repair_classes(tmp_path):
    """§2.2: i >= 0 and c >= 0 give true, true, true, true on i = 4 (c = 4,
    the test wants 2); i % 2 == 1 passes and is in a class of its own."""
    meta, _ = one_site_program(tmp_path, """\
        #include <stdio.h>
        #include <stdlib.h>
        int main(int argc, char **argv) {
            int i = atoi(argv[1]), c = 0;
            while (i > 0) {
                if (i == 1)
                    c = c + 1;
                i = i - 1;
            }
            printf("%d\\n", c);
            return 0;
        }
        """, "i == 1", ["i >= 0", "c >= 0", "i % 2 == 1", "i > 2"], value_type="int", condition=True)
    part = tmp_path / "partition"
    assert run_meta(meta, 0, (4,), range(4), part) == (Run("4\n", 0), {0, 1})
    assert run_meta(meta, 2, (4,), range(4), part) == (Run("2\n", 0), {2})
    assert run_meta(meta, 3, (4,), range(4), part) == (Run("2\n", 0), {3})


def test_example_3_6_value_equivalent_conditions(tmp_path):
    """Example 3.6: ``if x > 0 then x := y`` and ``if y = 2 then x := y`` on x = 1, y = 2."""
    meta, _ = one_site_program(tmp_path, """\
        #include <stdio.h>
        #include <stdlib.h>
        int main(int argc, char **argv) {
            int x = atoi(argv[1]), y = atoi(argv[2]);
            if (x > 0)
                x = y;
            printf("%d %d\\n", x, y);
            return 0;
        }
        """, "x > 0", ["x > 0", "y == 2", "x > 5"], value_type="int", condition=True)
    part = tmp_path / "partition"
    assert run_meta(meta, 1, (1, 2), range(3), part) == (Run("2 2\n", 0), {0, 1})
    assert run_meta(meta, 0, (1, 2), [0, 1, 2], part)[1] == {0, 1}
    assert partition_generation(part) == 2  # the insurance, then the class


# ------------------------------------------------------------------- faults
FAULTS = """\
    #include <stdio.h>
    #include <stdlib.h>
    int main(int argc, char **argv) {
        int x = atoi(argv[1]), y = atoi(argv[2]), v = 7;
        int *p = 0;
        if (argc > 3)
            p = &v;
        int r = x + y;
        int *q = p;
        printf("%d %d\\n", r, q ? *q : -1);
        return 0;
    }
    """
FAULT_CODES = ["x + y", "x - y", "x / y", "(x + 1) / y", "*p + x", "*p - x"]
POINTER_CODES = ["p", "0", "&v", "&x"]


@pytest.fixture(scope="module")
def faults(tmp_path_factory) -> tuple[Path, Path, SearchSpace, str]:
    tmp = tmp_path_factory.mktemp("faults")
    src = textwrap.dedent(FAULTS)
    sites = (site_at(0, SiteKind.EXPR, src, "x + y", value_type="int"),
             site_at(1, SiteKind.EXPR, src, "p", src.index("*q = ") + 5, value_type="int *"))
    codes = [(0, c) for c in FAULT_CODES] + [(1, c) for c in POINTER_CODES]
    space = SearchSpace(sites, tuple(Candidate(k, s, Schema.EXPRESSION, c, c, 1) for k, (s, c) in enumerate(codes)))
    return compile_c(instrument(src, space), tmp / "meta"), tmp, space, src


def test_faulting_candidates_leave_the_class_and_the_run_goes_on(faults):
    meta, tmp, _, _ = faults
    part = tmp / "partition"
    assert run_meta(meta, 0, (6, 0), range(6), part) == (Run("6 -1\n", 0), {0, 1})  # x / y and *p raised
    assert run_meta(meta, 0, (6, 0, "p"), range(6), part) == (Run("6 7\n", 0), {0, 1})
    assert run_meta(meta, 4, (6, 1, "p"), range(6), part) == (Run("13 7\n", 0), {4})
    assert run_meta(meta, 5, (0, 7, "p"), range(6), part) == (Run("7 7\n", 0), {0, 4, 5})  # 7 = 0 + 7 = 7 + 0
    assert run_meta(meta, 6, (6, 0), range(6, 10), part) == (Run("6 -1\n", 0), {6, 7})  # null pointers are equal


def test_a_running_candidate_that_faults_crashes_like_its_patched_program(faults):
    meta, tmp, space, src = faults
    part = tmp / "partition"
    for cand, args, sig in ((2, (6, 0), signal.SIGFPE), (4, (6, 0), signal.SIGSEGV)):
        patched = compile_c(patch(src, space.sites[0], space.candidates[cand].code), tmp / f"p{cand}")
        assert run(patched, args).code == -sig
        got, klass = run_meta(meta, cand, args, range(6), part)
        assert got.code == -sig and got.stdout == "" and got.stderr == ""
        assert klass == ({2, 3} if sig == signal.SIGFPE else {4, 5})  # the ones that fault there the same way


def test_the_original_program_and_side_effects_run_once(tmp_path):
    src = textwrap.dedent("""\
        #include <stdio.h>
        static int calls;
        static int next(void) { return ++calls; }
        int main(void) {
            int k, r = 0;
            for (k = 0; k < 3; k++)
                r = r + next();
            printf("%d %d\\n", r, calls);
            return 0;
        }
        """)
    site = site_at(0, SiteKind.EXPR, src, "next()", value_type="int", side_effect_free=False)
    codes = ["__cr_e + 1", "__cr_e * 2", "3", "__cr_e + 1 - 1"]
    space = SearchSpace((site,), tuple(Candidate(k, 0, Schema.EXPRESSION, c, c, 1) for k, c in enumerate(codes)))
    meta = compile_c(instrument(src, space), tmp_path / "meta")
    part = tmp_path / "partition"
    assert run(meta, ()) == Run("6 3\n", 0)
    assert run_meta(meta, 0, (), range(4), part) == (Run("9 3\n", 0), {0})  # not partitioned: side effects
    assert run_meta(meta, 1, (), range(4), part) == (Run("12 3\n", 0), {1})
    assert run_meta(meta, 2, (), range(4), part) == (Run("9 0\n", 0), {2})  # next() is not called


# ------------------------------------------------ statements, runs, kills
LOOP = """\
    #include <stdio.h>
    #include <stdlib.h>
    int main(int argc, char **argv) {
        int n = atoi(argv[1]), k = 0, m = 0;
        int t;
        while (k < n) {
            k = k + 1;
            m = m + k;
        }
        if (argc > 2)
            m = -m;
        t = m;
        printf("%d %d %d\\n", k, m, t);
        return 0;
    }
    """


@pytest.fixture(scope="module")
def loop(tmp_path_factory) -> tuple[Path, Path, SearchSpace]:
    tmp = tmp_path_factory.mktemp("loop")
    src = textwrap.dedent(LOOP)
    sites = (site_at(0, SiteKind.STMT, src, "k = k + 1;"), site_at(1, SiteKind.STMT, src, "m = -m;"),
             site_at(2, SiteKind.DECL, src, "int t;"), site_at(3, SiteKind.STMT, src, "m = m + k;"))
    cands = [(0, Schema.GUARD, "1", ""), (0, Schema.GUARD, "k >= 0", ""), (0, Schema.GUARD, "0", ""),
             (0, Schema.ASSIGNMENT, "m + 1", "m"), (0, Schema.ASSIGNMENT, "k + 1", "m"),
             (0, Schema.ASSIGNMENT, "m + 1", "k"), (1, Schema.GUARD, "n > 100", ""), (1, Schema.GUARD, "m > 100", ""),
             (2, Schema.INITIALIZATION, "5", "t"), (2, Schema.INITIALIZATION, "n", "t"), (0, Schema.GUARD, "k < 0", "")]
    space = SearchSpace(sites, tuple(Candidate(i, s, sch, code, "", 1, group=1 + "mk".find(lhs) if lhs else 0, lhs=lhs)
                                     for i, (s, sch, code, lhs) in enumerate(cands)))
    return compile_c(instrument(src, space), tmp / "meta"), tmp, space


def test_statement_sites_guard_and_assign(loop):
    meta, tmp, _ = loop
    part = tmp / "partition"
    assert run(meta, (3,)) == Run("3 6 6\n", 0)
    assert run_meta(meta, 0, (3,), range(6), part) == (Run("3 6 6\n", 0), {0, 1})
    assert run_meta(meta, 3, (3,), range(6), part) == (Run("3 9 9\n", 0), {3})  # m + 1 vs k + 1: 1, 2, 4 / 1, 2, 3
    assert run_meta(meta, 3, (1,), range(6), part)[1] == {3, 4}  # both 1 on the one execution; k = m + 1 is another lhs
    assert run_meta(meta, 8, (3,), range(10), part) == (Run("3 6 6\n", 0), {8})  # DECL: never partitioned


def test_a_site_that_never_runs_keeps_every_listed_candidate_and_runs_intersect(loop):
    meta, tmp, _ = loop
    part = tmp / "partition"
    assert run_meta(meta, 6, (3,), [6, 7], part) == (Run("3 6 6\n", 0), {6, 7})
    assert partition_generation(part) == 0  # no process touched the file
    assert run(meta, (3, "neg"), run_environment(6, partition=part)).stdout == "3 6 6\n"  # n > 100 is false
    assert read_partition(part) == {6, 7} and partition_generation(part) == 2  # m > 100 is false too
    assert run(meta, (14, "neg"), run_environment(6, partition=part)).stdout == "14 105 105\n"
    assert read_partition(part) == {6}  # m = 105 > 100
    assert run(meta, (200, "neg"), run_environment(6, partition=part)).stdout == "200 -20100 -20100\n"
    assert read_partition(part) == {6}  # runs only narrow


def test_a_killed_run_leaves_the_running_candidate_alone(loop):
    """Deleting ``k = k + 1`` loops for ever; the driver's SIGKILL (or
    SIGTERM) leaves the insurance: nothing is known of the others' future."""
    meta, tmp, _ = loop
    part = tmp / "partition"
    write_partition(part, [0, 1, 2])
    with pytest.raises(subprocess.TimeoutExpired):
        run(meta, (3,), run_environment(2, partition=part), timeout=0.5)
    assert read_partition(part) == {2} and partition_generation(part) == 1
    write_partition(part, [0, 1, 2])
    proc = subprocess.Popen([str(meta), "3"], env={**os.environ, **run_environment(2, partition=part)})
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(0.3)
    proc.terminate()
    assert proc.wait(5) == -signal.SIGTERM
    assert read_partition(part) == {2}


def test_a_candidate_out_of_steps_kills_itself_and_leaves_its_class(loop):
    """Deleting ``k = k + 1`` loops for ever at the candidate's own site:
    with CREPAIR_STEPS it dies of SIGKILL after that many executions of the
    site, at once, as at a time-out; a run within the limit is untouched.
    Unlike a time-out, the class is known: the guard ``k < 0`` is false at
    every execution too, so it loops and is killed at the same count."""
    meta, tmp, _ = loop
    part = tmp / "partition"
    write_partition(part, [0, 1, 2, 10])
    looping = run(meta, (3,), run_environment(2, partition=part, steps=1000), timeout=5)
    assert looping.code == -signal.SIGKILL and looping.stdout == ""
    assert read_partition(part) == {2, 10} and partition_generation(part) == 2  # insurance, then the class
    assert run(meta, (3,), run_environment(10, steps=1000), timeout=5).code == -signal.SIGKILL  # alone: the same
    # all sites count (16 x steps): with n = 10^9 the loop's two sites run 2 x 10^9 times before the site of
    # ``m = -m`` (candidates 6, 7); killed after 160, before it, the file is untouched: both ran the original
    write_partition(part, [6, 7])
    assert run(meta, (10 ** 9,), run_environment(6, partition=part, steps=10), timeout=5).code == -signal.SIGKILL
    assert read_partition(part) == {6, 7} and partition_generation(part) == 0
    assert run_meta(meta, 0, (3,), range(6), part) == (Run("3 6 6\n", 0), {0, 1})
    write_partition(part, [0, 1])
    assert run(meta, (3,), run_environment(0, partition=part, steps=3)) == Run("3 6 6\n", 0)  # 3 executions
    assert read_partition(part) == {0, 1}
    assert run(meta, (3,), run_environment(0, steps=2)).code == -signal.SIGKILL
    assert run(meta, (3,), run_environment(None, steps=2)) == Run("3 6 6\n", 0)  # the original: no limit


def test_a_loop_outside_the_searched_lines_counts_steps_and_ends(tmp_path):
    """The space of one output line: the loop that reads up to a newline
    never ends at the end of an input without one, and no candidate's site
    is in it; its statement is a counting site (no candidates), so the run
    is killed after 16 x steps of it, before the candidate's site ever ran
    (the partition file untouched: every listed candidate runs the original)."""
    from cprog import NEWLINE_LOOP, write_c
    from crepair.frontend import load_program
    from crepair.testequiv.space import build_space

    path = write_c(tmp_path, NEWLINE_LOOP, "prog.c")
    src = path.read_text()
    space = build_space(load_program(path, real_c=True), lines={6})
    searched = {c.site for c in space.candidates}
    assert {space.sites[s].span.line for s in searched} == {6}
    assert [(s.kind, s.text) for s in space.sites if s.id not in searched] == [
        (SiteKind.STMT, "n++;"), (SiteKind.STMT, "return 0;")]
    meta, part = compile_c(instrument(src, space), tmp_path / "meta"), tmp_path / "partition"
    listed = [c.id for c in space.candidates][:3]
    write_partition(part, listed)
    env = run_environment(listed[0], partition=part, steps=1000)
    done = subprocess.run([str(meta)], input="abc", capture_output=True, text=True, timeout=5, env={**os.environ, **env})
    assert done.returncode == -signal.SIGKILL and done.stdout == ""
    assert read_partition(part) == set(listed) and partition_generation(part) == 0
    done = subprocess.run([str(meta)], input="abc\n", capture_output=True, text=True, timeout=5,
                          env={**os.environ, **run_environment(None, steps=1000)})
    assert (done.returncode, done.stdout) == (0, "3\n")


def test_the_trace_lists_executed_statement_sites(loop):
    meta, tmp, _ = loop
    trace = tmp / "trace"
    trace.unlink(missing_ok=True)
    assert run(meta, (2,), run_environment(None, trace=trace)) == Run("2 3 3\n", 0)
    assert run(meta, (1, "neg"), run_environment(3, trace=trace)) == Run("1 -2 -2\n", 0)  # m = m + 1 before k = ...
    first, second = read_trace(trace)
    assert first.sites == (2, 0, 3, 0, 3) and first.complete and not first.truncated
    assert second.sites == (2, 0, 3, 1) and second.complete
    trace.unlink()
    with pytest.raises(subprocess.TimeoutExpired):
        run(meta, (3,), run_environment(2, trace=trace), timeout=0.5)
    (killed,) = read_trace(trace)
    assert not killed.complete and set(killed.sites) == {0, 2, 3} and len(killed.sites) >= 4096


@pytest.mark.parametrize("spans, why", [
    ([(0, 5), (3, 9)], "overlap without nesting"),
    ([(0, 5), (1, 4)], "text is not the span"),
])
def test_instrument_refuses_a_broken_space(spans, why):
    src = "int f(int x, int y) { return x + y * 2 + x; }\n"
    base = src.index("x + y")
    sites = tuple(Site(k, SiteKind.EXPR, text_span("f.c", src, base + a, base + b),
                       src[base + a:base + b] if k == 0 or "overlap" in why else "?", "f", "int")
                  for k, (a, b) in enumerate(spans))
    cands = tuple(Candidate(k, k, Schema.EXPRESSION, "x", "x", 1) for k in range(len(sites)))
    with pytest.raises(InternalError, match=why):
        instrument(src, SearchSpace(sites, cands))
    guard_at_expr = SearchSpace(sites[:1], (Candidate(0, 0, Schema.GUARD, "x", "x", 1),))
    with pytest.raises(InternalError, match="a guard candidate at expr site 0"):
        instrument(src, guard_at_expr)


def test_the_docstring_example():
    import doctest

    import crepair.testequiv.metaprogram as metaprogram

    assert doctest.testmod(metaprogram).failed == 0


def test_processes_of_one_run_intersect(tmp_path):
    """The site runs once, then the program forks and both processes run it
    again with different values: the file ends with the intersection."""
    src = textwrap.dedent("""\
        #include <stdio.h>
        #include <unistd.h>
        #include <sys/wait.h>
        int main(void) {
            int k, x = 0, r = 0;
            pid_t pid = 1;
            for (k = 0; k < 2; k++) {
                if (k == 1)
                    pid = fork();
                x = pid == 0 ? k : 2 * k;
                r = r + (x + 1);
            }
            if (pid)
                wait(0);
            printf("%s %d\\n", pid ? "parent" : "child", r);
            return 0;
        }
        """)
    meta, _ = one_site_program(tmp_path, src, "x + 1", ["x + 1", "x * x + 1", "2 * k + 1", "x + 1 + 0"],
                               value_type="int")
    got, klass = run_meta(meta, 0, (), range(4), tmp_path / "partition")
    assert got == Run("child 3\nparent 4\n", 0)
    assert klass == {0, 3}  # the child keeps 0, 1, 3 (x = 1), the parent 0, 2, 3 (x = 2)
