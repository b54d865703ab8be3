"""``--apply`` and the files it writes (issue 26, item 6): the file is
written in place, keeping its mode, owner, hard links, encoding and line
endings, with a backup ``FILE.orig``; a read-only file is refused before
the run; under ``--json`` a run prints exactly one JSON document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import crepair
from crepair.cli import main
from crepair.errors import BadInput

SRC = str(Path(crepair.__file__).resolve().parents[1])
SUM = (Path(__file__).resolve().parents[2] / "examples" / "sum.c").read_bytes()
BUG, FIX = b"for (int i = 0; i < n; i++)", b"for (int i = 0; i <= n; i++)"


def repair_apply(cwd: Path, name: str = "sum.c", *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC, "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", "crepair.cli", "repair", name, "--first", "--apply", *extra],
                          cwd=cwd, env=env, capture_output=True, timeout=120)


def fixed(data: bytes) -> bytes:
    return data.replace(BUG, FIX, 1)


def test_the_example_repair_is_the_expected_one(tmp_path):
    (tmp_path / "sum.c").write_bytes(SUM)
    run = repair_apply(tmp_path)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "sum.c").read_bytes() == fixed(SUM) and (tmp_path / "sum.c.orig").read_bytes() == SUM


ANYWAY = "--apply-anyway writes it in place, keeping its mode, owner and hard links"


def refused(run: subprocess.CompletedProcess, tmp_path: Path, why: str) -> None:
    """One line naming the file and --apply-anyway, exit 3, nothing written."""
    assert run.returncode == 3 and b"Traceback" not in run.stderr
    assert run.stderr.decode().strip().splitlines() == [
        f"crepair: error: sum.c {why}; --apply does not write it ({ANYWAY})"]
    assert run.stdout == b"" and (tmp_path / "sum.c").read_bytes() == SUM
    assert not (tmp_path / "sum.c.orig").exists()


def test_a_read_only_file_is_refused_before_the_run(tmp_path):
    path = tmp_path / "sum.c"
    path.write_bytes(SUM)
    path.chmod(0o444)
    run = repair_apply(tmp_path)
    refused(run, tmp_path, "is read-only")
    assert (path.stat().st_mode & 0o777) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sum.c"]


def test_a_read_only_file_is_written_with_apply_anyway_keeping_its_mode(tmp_path):
    path = tmp_path / "sum.c"
    path.write_bytes(SUM)
    path.chmod(0o444)
    run = repair_apply(tmp_path, "sum.c", "--apply-anyway")
    assert run.returncode == 0, run.stderr
    assert path.read_bytes() == fixed(SUM) and (path.stat().st_mode & 0o777) == 0o444


def test_a_hard_linked_file_is_refused_by_default(tmp_path):
    path, other = tmp_path / "sum.c", tmp_path / "same.c"
    path.write_bytes(SUM)
    os.link(path, other)
    run = repair_apply(tmp_path)
    refused(run, tmp_path, "has 2 hard links")
    assert other.read_bytes() == SUM


def test_apply_anyway_keeps_hard_links_mode_encoding_and_line_endings(tmp_path):
    data = SUM.replace(b"\n", b"\r\n").replace(b"wanted", b"wanted \xe9")  # CR LF, a Latin-1 byte
    path, other = tmp_path / "sum.c", tmp_path / "same.c"
    path.write_bytes(data)
    path.chmod(0o640)
    os.link(path, other)
    inode = path.stat().st_ino
    run = repair_apply(tmp_path, "sum.c", "--apply-anyway")
    assert run.returncode == 0, run.stderr
    assert path.read_bytes() == fixed(data) and other.read_bytes() == fixed(data)
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert (path.stat().st_mode & 0o777) == 0o640
    backup = tmp_path / "sum.c.orig"
    assert backup.read_bytes() == data and (backup.stat().st_mode & 0o777) == 0o640


def test_apply_keeps_line_endings_and_bytes_of_a_plain_file(tmp_path):
    data = SUM.replace(b"\n", b"\r\n").replace(b"wanted", b"wanted \xe9")
    path = tmp_path / "sum.c"
    path.write_bytes(data)
    run = repair_apply(tmp_path)
    assert run.returncode == 0, run.stderr
    assert path.read_bytes() == fixed(data) and (tmp_path / "sum.c.orig").read_bytes() == data


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_file_of_another_user_is_refused_by_default(tmp_path):
    path = tmp_path / "sum.c"
    path.write_bytes(SUM)
    path.chmod(0o666)
    os.chown(path, 65534, 65534)
    run = repair_apply(tmp_path)
    refused(run, tmp_path, "belongs to another user (uid 65534)")
    assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_apply_anyway_keeps_the_owner_of_a_file_of_another_user(tmp_path):
    path = tmp_path / "sum.c"
    path.write_bytes(SUM)
    path.chmod(0o664)
    os.chown(path, 65534, 65534)
    run = repair_apply(tmp_path, "sum.c", "--apply-anyway")
    assert run.returncode == 0, run.stderr
    assert path.read_bytes() == fixed(SUM)
    assert (path.stat().st_uid, path.stat().st_gid) == (65534, 65534)
    assert (tmp_path / "sum.c.orig").stat().st_uid == 65534


def test_apply_anyway_without_apply_is_a_usage_error(tmp_path):
    (tmp_path / "sum.c").write_bytes(SUM)
    env = {**os.environ, "PYTHONPATH": SRC}
    run = subprocess.run([sys.executable, "-m", "crepair.cli", "repair", "sum.c", "--apply-anyway"], cwd=tmp_path,
                         env=env, capture_output=True, timeout=120)
    assert run.returncode == 2 and run.stderr.decode().strip() == "crepair: error: --apply-anyway: used with --apply only"


def test_apply_through_a_symlink_writes_the_target_in_place(tmp_path):
    folder = tmp_path / "real"
    folder.mkdir()
    (folder / "sum.c").write_bytes(SUM)
    (tmp_path / "link.c").symlink_to(folder / "sum.c")
    run = repair_apply(tmp_path, "link.c")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "link.c").is_symlink() and (folder / "sum.c").read_bytes() == fixed(SUM)
    assert sorted(p.name for p in folder.iterdir()) == ["sum.c"]  # no temporary file left there
    assert (tmp_path / "link.c.orig").read_bytes() == SUM


def test_an_error_after_the_run_is_folded_into_the_one_json_report(tmp_path, monkeypatch, capsys):
    (tmp_path / "sum.c").write_bytes(SUM)
    monkeypatch.chdir(tmp_path)

    def disk_full(*args, **kwargs):
        raise BadInput("cannot write sum.c: No space left on device; the file is unchanged")

    monkeypatch.setattr("crepair.cli.repair_cmd.apply_to_file", disk_full)
    code = main(["repair", "sum.c", "--first", "--apply", "--json", "--quiet"])
    out, err = capsys.readouterr()
    report = json.loads(out)  # exactly one JSON document
    assert code == 3 and report["outcome"] == "repaired" and len(report["repairs"]) == 1
    assert report["error"] == {"kind": "bad-input", "exit_code": 3,
                               "message": "error: cannot write sum.c: No space left on device; the file is unchanged"}
    assert err.strip().splitlines() == ["crepair: " + report["error"]["message"]]


def test_apply_into_a_folder_where_the_backup_cannot_be_written_is_refused_before_the_run(tmp_path, monkeypatch,
                                                                                          capsys):
    # through a symbolic link whose folder is not writable (root may write anywhere: the permission is simulated)
    folder = tmp_path / "real"
    folder.mkdir()
    (folder / "sum.c").write_bytes(SUM)
    (tmp_path / "link.c").symlink_to(folder / "sum.c")
    monkeypatch.chdir(tmp_path)
    real_access = os.access
    monkeypatch.setattr("crepair.patch.os.access",
                        lambda p, mode: False if Path(p) == Path(".") and mode & os.W_OK else real_access(p, mode))
    code = main(["repair", "link.c", "--first", "--apply", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 3 and out == ""
    assert err.strip().splitlines() == ["crepair: error: link.c: cannot write the backup link.c.orig in . (permission "
                                        "denied); --apply does not write the file"]
    assert (folder / "sum.c").read_bytes() == SUM and sorted(p.name for p in tmp_path.iterdir()) == ["link.c", "real"]
