"""Diffs and --apply on the user's bytes: Latin-1, CR LF, mixed endings, no final newline."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import crepair
from crepair.cli import main
from crepair.errors import BadInput
from crepair.frontend.source import decode, encode
from crepair.patch import apply_to_file, unified_diff

needs_patch = pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch not installed")

# examples/sum.c in small: the loop bound is off by one (i < n should be i <= n);
# a Latin-1 comment (raw byte 0xE9) sits on the line the repair changes.
SUM = (
    b"/* caf\xe9 au lait: Latin-1, not UTF-8 */\n"
    b"int sum(int n)\n"
    b"{\n"
    b"    __CPROVER_assume(n >= 1 && n <= 5);\n"
    b"    int s = 0;\n"
    b"    for (int i = 0; i < n; i++) /* \xe9t\xe9 */\n"
    b"        s += i;\n"
    b"    assert(s == n * (n + 1) / 2);\n"
    b"    return s;\n"
    b"}\n"
    b"\n"
    b"int main(void)\n"
    b"{\n"
    b"    int n = nondet_int();\n"
    b"    return sum(n);\n"
    b"}\n"
)
BUG, FIX = b"i < n;", b"i <= n;"


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _mixed(data: bytes) -> bytes:
    """CR LF on the odd lines only."""
    lines = data.split(b"\n")
    return b"\n".join(line + (b"\r" if i % 2 and i < len(lines) - 1 else b"") for i, line in enumerate(lines))


def _no_final_newline(data: bytes) -> bytes:
    return data.rstrip(b"\r\n")


VARIANTS = {
    "lf": SUM,
    "crlf": _crlf(SUM),
    "mixed": _mixed(SUM),
    "crlf-no-final-newline": _no_final_newline(_crlf(SUM)),
}


def _first_repair(path):
    return next(iter(crepair.repair(str(path), max_size=1, max_repairs=1, timeout=60)))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_patched_text_is_the_original_bytes_but_the_edit(tmp_path, variant):
    data = VARIANTS[variant]
    path = tmp_path / "prog.c"
    path.write_bytes(data)
    rep = _first_repair(path)
    assert encode(rep.patched) == data.replace(BUG, FIX, 1)


@needs_patch
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_diff_of_a_relative_path_applies_with_patch_p1(tmp_path, monkeypatch, variant):
    # as in a checkout: crepair is given src/prog.c from the checkout's root,
    # and patch -p1 runs there
    data = VARIANTS[variant]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "prog.c").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    diff = _first_repair("src/prog.c").diff
    assert diff.startswith("--- a/src/prog.c\n+++ b/src/prog.c\n")
    done = subprocess.run(["patch", "-p1"], input=encode(diff), cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "src" / "prog.c").read_bytes() == data.replace(BUG, FIX, 1)


@needs_patch
def test_diff_applies_from_the_files_own_directory(tmp_path, monkeypatch):
    (tmp_path / "prog.c").write_bytes(_crlf(SUM))
    monkeypatch.chdir(tmp_path)
    diff = _first_repair("./prog.c").diff
    assert diff.startswith("--- a/prog.c\n")
    done = subprocess.run(["patch", "-p1", "--dry-run"], input=encode(diff), cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_patch
@pytest.mark.parametrize("given, run_in, label", [
    ("src/my prog.c", ".", '--- a/src/my prog.c\t\n'),
    ('./src/caf\u00e9 "q".c', ".", '--- "a/src/caf\\303\\251 \\"q\\".c"\n'),
    ("src/lat\udce9.c", ".", '--- "a/src/lat\\351.c"\n'),  # a Latin-1 byte in the file name
    ("../top/src/x.c", "src", "--- a/x.c\n"),  # patch refuses '..': labelled by the file name
])
def test_diff_labels_that_patch_p1_reads(tmp_path, monkeypatch, given, run_in, label):
    top = tmp_path / "top"
    (top / "src").mkdir(parents=True)
    monkeypatch.chdir(top)
    path = Path(given)
    path.write_bytes(b"int x = 1;\r\n")
    diff = unified_diff(given, "int x = 1;\r\n", "int x = 3;\r\n")
    assert diff.startswith(label)
    done = subprocess.run(["patch", "-p1"], input=encode(diff), cwd=top / run_in, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert path.read_bytes() == b"int x = 3;\r\n"


def test_diff_marks_a_last_line_without_newline():
    before = "int f(void)\r\n{\r\n    return 1 - 1;\r\n}"
    after = before.replace("1 - 1", "1 + 1")
    diff = unified_diff("f.c", before, after)
    assert diff.splitlines()[-1] == "\\ No newline at end of file"
    assert " }\n\\ No newline at end of file\n" in diff  # context line, marked once
    assert "-    return 1 - 1;\r\n+    return 1 + 1;\r\n" in diff


@needs_patch
def test_diff_changing_the_last_line_without_newline_applies(tmp_path):
    data = b"int sum(int n) { return n - 1; }\nint g(int x) { return x - 1; }"
    (tmp_path / "f.c").write_bytes(data)
    after = decode(data).replace("x - 1", "x + 1")
    diff = unified_diff("f.c", decode(data), after)
    assert diff.endswith("+int g(int x) { return x + 1; }\n\\ No newline at end of file\n")
    done = subprocess.run(["patch", "-p1"], input=encode(diff), cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "f.c").read_bytes() == encode(after)


def test_diff_lines_split_only_at_line_feeds():
    # form feed and U+2028 end lines for str.splitlines, not for patch
    before = "a\f = 1;\nb\u2028 = 2;\n"
    diff = unified_diff("x.c", before, before.replace("2", "3"))
    assert "-b\u2028 = 2;\n+b\u2028 = 3;\n" in diff and " a\f = 1;\n" in diff


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_apply_to_file_writes_only_the_edit_and_keeps_a_backup(tmp_path, variant):
    data = VARIANTS[variant]
    path = tmp_path / "prog.c"
    path.write_bytes(data)
    rep = _first_repair(path)
    backup = apply_to_file(path, rep.patched, original=decode(data))
    assert backup == tmp_path / "prog.c.orig"
    assert backup.read_bytes() == data
    assert path.read_bytes() == data.replace(BUG, FIX, 1)


def test_apply_to_file_numbers_backups_and_keeps_the_mode(tmp_path):
    path = tmp_path / "prog.c"
    path.write_bytes(b"int x = 1;\r\n")
    os.chmod(path, 0o640)
    (tmp_path / "prog.c.orig").write_bytes(b"older backup")
    backup = apply_to_file(path, "int x = 2;\r\n")
    assert backup.name == "prog.c.orig.1" and backup.read_bytes() == b"int x = 1;\r\n"
    assert (tmp_path / "prog.c.orig").read_bytes() == b"older backup"
    assert path.read_bytes() == b"int x = 2;\r\n" and (path.stat().st_mode & 0o777) == 0o640


def test_apply_to_file_refuses_a_file_changed_since_it_was_read(tmp_path):
    path = tmp_path / "prog.c"
    path.write_bytes(b"int x = 1;\n")
    with pytest.raises(BadInput, match="changed since"):
        apply_to_file(path, "int x = 2;\n", original="int x = 0;\n")
    assert path.read_bytes() == b"int x = 1;\n" and not (tmp_path / "prog.c.orig").exists()


def test_cli_apply_keeps_crlf_and_latin1_bytes(tmp_path, monkeypatch, capsys):
    data = _crlf(SUM)
    (tmp_path / "prog.c").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    assert main(["repair", "--quiet", "--json", "--first", "--apply", "prog.c"]) == 0
    assert (tmp_path / "prog.c").read_bytes() == data.replace(BUG, FIX, 1)
    assert (tmp_path / "prog.c.orig").read_bytes() == data
    assert "original kept as prog.c.orig" in capsys.readouterr().err


@needs_patch
def test_cli_diff_printed_to_a_strict_utf8_pipe_applies_with_patch(tmp_path):
    # a user's locale is usually en_US.UTF-8, whose stdout errors handler is strict
    data = _crlf(SUM)
    (tmp_path / "prog.c").write_bytes(data)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONPATH": str(Path(crepair.__file__).parents[1])}
    run = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "--quiet", "--first", "prog.c"],
                         cwd=tmp_path, env=env, capture_output=True)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    diff = run.stdout[run.stdout.index(b"--- a/prog.c"):]
    done = subprocess.run(["patch", "-p1", "--dry-run"], input=diff, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_apply_to_file_through_a_symlink_patches_the_target(tmp_path):
    real = tmp_path / "real.c"
    real.write_bytes(b"int x = 1;\r\n")
    link = tmp_path / "link.c"
    link.symlink_to(real)
    backup = apply_to_file(link, "int x = 2;\r\n")
    assert link.is_symlink() and real.read_bytes() == b"int x = 2;\r\n"
    assert backup == tmp_path / "link.c.orig" and backup.read_bytes() == b"int x = 1;\r\n"


def test_a_failed_write_leaves_the_file_and_no_backup(tmp_path, monkeypatch):
    path = tmp_path / "prog.c"
    path.write_bytes(b"int x = 1;\n")
    fsync, calls = os.fsync, []

    def disk_full_once(fd):
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", disk_full_once)
    with pytest.raises(BadInput, match="cannot write .*No space left on device; the file is unchanged"):
        apply_to_file(path, "int x = 2;\n")
    assert path.read_bytes() == b"int x = 1;\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.c"]
