"""Repairs as unified diffs of the user's original text, and ``--apply``.

Only the replaced tokens change; comments, macros, layout, line endings and
bytes that are not UTF-8 stay byte for byte (texts are as
:mod:`crepair.frontend.source` decodes them).
"""

from __future__ import annotations

import difflib
import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path, PurePath, PurePosixPath

from crepair.errors import BadInput, InternalError
from crepair.frontend.source import encode


def apply_edits(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied.

    Offsets are 0-based, end exclusive, in ``text``; edits must not overlap.
    """
    out, pos = [], 0
    for start, end, new in sorted(edits):
        if start < pos:
            raise InternalError("overlapping edits")
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def unified_diff(path: str, before: str, after: str, context: int = 3) -> str:
    """A unified diff from ``before`` to ``after``, both texts of the file
    ``path`` as :mod:`crepair.frontend.source` decodes it.

    Lines are split at ``"\\n"`` only and keep their endings (CR LF stays
    CR LF, so the diff applies to a CR LF file); a last line without a
    newline is followed by ``\\ No newline at end of file``.  Encode the
    diff with ``source.encode`` (or print it to a stream whose errors
    handler is ``surrogateescape``) to get the file's own bytes in its lines.

    The labels are ``a/PATH`` and ``b/PATH``, as ``git diff`` writes them:
    ``path`` as given (leading ``./`` and ``/`` dropped), so ``patch -p1``
    applies the diff from the directory in which ``path`` was given (from
    ``/`` for an absolute path); a path that climbs out with ``..`` (which
    patch refuses) is labelled by its file name, to apply from the file's
    directory.  A name with a space ends in a TAB; one with quotes,
    backslashes, control or non-ASCII characters is quoted with C escapes.
    """
    label = _label(path)
    lines = difflib.unified_diff(
        _lines(before), _lines(after), fromfile=_quote("a/" + label), tofile=_quote("b/" + label),
        n=context, lineterm="\n",
    )
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _label(path: str) -> str:
    parts = [p for p in PurePosixPath(PurePath(path).as_posix()).parts if p not in ("/", ".")]
    if ".." in parts:
        parts = parts[-1:]
    return "/".join(parts)


_C_ESCAPES = {ord('"'): '\\"', ord("\\"): "\\\\", ord("\t"): "\\t", ord("\n"): "\\n"}


def _quote(name: str) -> str:
    raw = encode(name)
    if not any(b < 0x20 or b >= 0x7F or b in b'"\\' for b in raw):
        return name + "\t" if " " in name else name
    return '"' + "".join(_C_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in raw) + '"'


def apply_to_file(path: str | Path, patched: str, *, original: str | None = None, anyway: bool = False) -> Path:
    """Write ``patched`` (a text as :mod:`crepair.frontend.source` decodes
    it) to ``path`` as bytes, after copying the file to ``path.orig`` (or
    ``.orig.N`` if that exists).  Returns the backup path.

    Bytes outside the edits, line endings, a BOM and bytes that are not
    UTF-8 come back exactly as they were read.  The file is written in
    place (the same inode): it keeps its mode, owner and group, its hard
    links stay links to it, and a symbolic link stays a link (its target is
    written); the folder of the target need not be writable.  A write that
    fails is undone (the old bytes written back) and the backup removed.
    Raises ``BadInput``, having changed nothing, when the file is not a
    regular file, is refused by :func:`writable` (read-only, another
    user's, hard-linked: unless ``anyway``), cannot be backed up or
    written, or (given ``original``, the text the repair was computed
    from) no longer holds ``original``.  With ``anyway`` a read-only file
    of this user gets its write bit for the write only (its mode is then
    put back).
    """
    path = Path(path)
    target, info = writable(path, anyway)
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}; the repair was not applied") from None
    if original is not None and data != encode(original):
        raise BadInput(f"{path} changed since crepair read it; the repair was not applied")
    backup = _backup(path, target, data, info)
    new = encode(patched)
    try:
        _write_in_place(target, new, info)
    except OSError as exc:
        try:
            _write_in_place(target, data, info)
        except OSError:
            raise BadInput(f"cannot write {path}: {exc.strerror or exc}; its original is in {backup}") from None
        backup.unlink(missing_ok=True)
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}; the file is unchanged") from None
    return backup


#: what the refusals of :func:`writable` say the user can do
ANYWAY = "--apply-anyway writes it in place, keeping its mode, owner and hard links"


def writable(path: str | Path, anyway: bool = False) -> tuple[Path, os.stat_result]:
    """The file ``path`` names (a symbolic link followed) and its status,
    if ``--apply`` may write it in place; raises ``BadInput`` (one line
    naming the file, and the option ``--apply-anyway``) when it is
    missing, not a regular file, in a folder where its backup
    ``FILE.orig`` cannot be written, or — unless ``anyway`` — read-only (no
    write permission bit, or not writable by this user), owned by another
    user, or has other hard links (a write would change the other names
    too).  With ``anyway`` a read-only file is still refused when this
    user may not write it nor change its mode.  ``crepair repair --apply``
    asks before the run, :func:`apply_to_file` again before it writes."""
    path = Path(path)
    try:
        target = Path(os.path.realpath(path, strict=True))
        info = target.stat()
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}; the repair was not applied") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"{path} is not a regular file; the repair was not applied")
    folder = path.parent  # the backup's: beside the name given (a symbolic link's own folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BadInput(f"{path}: cannot write the backup {path.name}.orig in {folder} (permission denied); "
                       "--apply does not write the file")
    writes = bool(info.st_mode & 0o222) and os.access(target, os.W_OK)
    if anyway:
        if not writes and not os.access(target, os.W_OK) and info.st_uid != os.geteuid():
            raise BadInput(f"{path} is read-only and not yours; --apply cannot write it")
        return target, info
    why = None
    if not writes:
        why = "is read-only"
    elif info.st_uid != os.geteuid():
        why = f"belongs to another user (uid {info.st_uid})"
    elif info.st_nlink > 1:
        why = f"has {info.st_nlink} hard links"
    if why:
        raise BadInput(f"{path} {why}; --apply does not write it ({ANYWAY})")
    return target, info


def _backup(path: Path, target: Path, data: bytes, info: os.stat_result) -> Path:
    """A new file ``path.orig`` (``.orig.N`` if taken) holding ``data``,
    with the mode, times and (where permitted) owner of ``target``."""
    n = 0
    while True:
        backup = path.with_name(path.name + (".orig" if n == 0 else f".orig.{n}"))
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            n += 1
        except OSError as exc:
            raise BadInput(f"cannot back up {path}: {exc.strerror or exc}; the repair was not applied") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        shutil.copystat(target, backup)
        try:
            os.chown(backup, info.st_uid, info.st_gid)
        except OSError:
            pass  # only root may give a file away: the backup is then this user's
    except OSError as exc:
        backup.unlink(missing_ok=True)
        raise BadInput(f"cannot back up {path}: {exc.strerror or exc}; the repair was not applied") from None
    return backup


def _write_in_place(target: Path, data: bytes, info: os.stat_result) -> None:
    """Overwrite the contents of ``target`` with ``data`` (same inode); a
    file this user may not open for writing (read-only, with
    ``--apply-anyway``) gets its owner's write bit for the write only:
    its mode ``info.st_mode`` is put back."""
    lent = False
    try:
        try:
            fd = os.open(target, os.O_WRONLY)
        except PermissionError:
            os.chmod(target, stat.S_IMODE(info.st_mode) | stat.S_IWUSR)
            lent = True
            fd = os.open(target, os.O_WRONLY)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        finally:
            os.close(fd)
    finally:
        if lent:
            os.chmod(target, stat.S_IMODE(info.st_mode))
