"""Forward ``goto`` in the bounded engine (crepair.frontend.jumps,
crepair.encode.statements): agreement with gcc, a verdict whose
counterexample replays, and the jumps that are rejected."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import crepair
from crepair.errors import UnsupportedConstruct

from cprog import write_c
from replay import failed_line, replay, replayable

GCC = shutil.which("gcc")
VERIFIED = crepair.VerifyOutcome.VERIFIED
VIOLATED = crepair.VerifyOutcome.VIOLATED

#: functions of x with forward gotos: out of nested loops, over code, from a switch, two gotos to one label
FUNCTIONS = {
    "nested loops": """
        int f(int x) {
            int i, j, s = 0;
            for (i = 0; i < 3; i++)
                for (j = 0; j < 3; j++) {
                    s += i * 3 + j;
                    if (s > x) goto out;
                }
            s = -s;
        out:
            return s;
        }""",
    "skip and join": """
        int f(int x) {
            int y = 1;
            if (x < 0) goto negative;
            if (x == 0) goto done;
            y = x * 2;
            goto done;
        negative:
            y = -x + 100;
        done:
            y += 3;
            return y;
        }""",
    "from a switch": """
        int f(int x) {
            int r = 0;
            switch (x % 4) {
            case 0: r = 5; goto end;
            case 1: r = 7; break;
            default: r = 9;
            }
            r *= 2;
        end:
            return r + x;
        }""",
    "inside a loop body": """
        int f(int x) {
            int i, s = 0;
            for (i = 0; i < 4; i++) {
                if ((x + i) % 2) goto next;
                s += i;
            next:
                s += 1;
            }
            return s;
        }""",
}
INPUTS = (-3, 0, 1, 2, 5, 13)


def _expected(tmp_path, function: str) -> list[int]:
    calls = " ".join(f'printf("%d\\n", f({x}));' for x in INPUTS)
    source = write_c(tmp_path, f"#include <stdio.h>\n{function}\nint main(void) {{ {calls} return 0; }}\n", "gcc.c")
    exe = tmp_path / "gcc"
    subprocess.run([GCC, "-O0", "-w", str(source), "-o", str(exe)], check=True)
    return [int(v) for v in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]


@pytest.mark.skipif(GCC is None, reason="gcc is not installed")
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_forward_gotos_agree_with_gcc(tmp_path, name):
    expected = _expected(tmp_path, FUNCTIONS[name])
    same = " && ".join(f"f({x}) == {v}" for x, v in zip(INPUTS, expected))
    for relation, outcome in ((same, VERIFIED), (f"!({same})", VIOLATED)):
        path = write_c(tmp_path, f"{FUNCTIONS[name]}\nint main(void) {{ assert({relation}); return 0; }}\n")
        result = crepair.verify(path, unwind=10)
        assert result.outcome == outcome, (name, expected)
        if outcome == VERIFIED:
            assert result.bound.too_small is False
        else:  # iterative deepening finds the failing call within a smaller bound
            assert 0 < result.found_within <= 10


def test_a_goto_out_of_a_loop_is_violated_and_replays(tmp_path):
    path = write_c(tmp_path, """
        int main(void) {
            int x = nondet_int(), i, s = 0;
            for (i = 0; i < 3; i++) {
                if (x == i) goto found;
                s += 1;
            }
            s = 10;
        found:
            assert(s != 2);
            return 0;
        }
    """)
    result = crepair.verify(path, unwind=4)
    assert result.outcome == VIOLATED
    assert [i.value for i in result.counterexample.inputs if i.label == "nondet_int()"] == [2]
    assert replayable(result.counterexample)
    status, stderr = replay(path, result.counterexample, tmp_path)
    assert status != 0 and failed_line(stderr) == 9
    fixed = write_c(tmp_path, path.read_text().replace("s != 2", "s != 11"), "fixed.c")
    assert crepair.verify(fixed, unwind=4).outcome == VERIFIED


@pytest.mark.parametrize("body, where, what", [
    ("back: x--; if (x > 0) goto back;", "3:27", "backward goto (a jump to the earlier label 'back')"),
    ("if (x) goto in; { in: x++; }", "3:12", "goto into a block, loop or switch (label 'in')"),
    ("while (x) { x--; inside: x--; } goto inside;", "3:37", "backward goto (a jump to the earlier label 'inside')"),
    ("goto nowhere;", "3:5", "goto to the label 'nowhere', which is not defined in the function"),
])
def test_unsupported_jumps_are_named(tmp_path, body, where, what):
    path = write_c(tmp_path, f"""
        int main(void) {{
            int x = nondet_int();
            {body}
            return x;
        }}
    """)
    with pytest.raises(UnsupportedConstruct) as info:
        crepair.verify(path, unwind=3)
    assert str(info.value) == f"{path}:{where}: unsupported construct: {what}"
