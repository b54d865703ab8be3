"""The user's file as text: one representation for all of crepair.

A source file is read as bytes and decoded as UTF-8 with
``errors="surrogateescape"`` and *without* newline translation:

* every byte that is not part of valid UTF-8 (a Latin-1 ``é`` in a comment)
  becomes one lone surrogate character U+DC80..U+DCFF;
* CR LF stays the two characters ``"\\r\\n"``; mixed endings stay mixed;
* a UTF-8 byte-order mark stays the character U+FEFF at offset 0.

So :func:`encode` of the decoded text gives back the file's bytes exactly,
and :func:`encode` of a patched text changes only the bytes of the edits.
Offsets and columns everywhere in crepair count characters of this text
(0-based offsets, 1-based columns); lines are separated by ``"\\n"`` alone.

>>> decode(b"/* caf\\xe9 */\\r\\n") == "/* caf\\udce9 */\\r\\n"
True
>>> encode(decode(b"/* caf\\xe9 */\\r\\n"))
b'/* caf\\xe9 */\\r\\n'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from crepair.errors import BadInput, SourcePoint

ENCODING = "utf-8"
ERRORS = "surrogateescape"

_SAMPLE = 8000  # bytes looked at to tell text from binary data, as git does
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b")


def decode(data: bytes) -> str:
    """The text of file contents ``data`` (see the module docstring)."""
    return data.decode(ENCODING, ERRORS)


def encode(text: str) -> bytes:
    """The bytes of ``text``: the inverse of :func:`decode`."""
    return text.encode(ENCODING, ERRORS)


def point_at(path: str, text: str, offset: int) -> SourcePoint:
    """file:line:col (1-based, columns in characters) of 0-based ``offset``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return SourcePoint(path, text.count("\n", 0, offset) + 1, offset - line_start + 1)


def read_source(path: str | Path) -> str:
    """The text of the C source file at ``path`` (only read, never changed).

    Raises ``BadInput`` when the file cannot be read or is not C source text
    (see :func:`check_source`).
    """
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise BadInput(f"cannot read {path}: a device, not a file")  # /dev/zero would never end
        if not stat.S_ISREG(mode):  # a FIFO or a socket would block the run
            raise BadInput(f"cannot read {path}: not a regular file")
        data = Path(path).read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror or exc}") from None
    return check_source(str(path), data)


def check_source(name: str, data: bytes) -> str:
    """The text of ``data``, the contents of the file ``name``.

    Raises ``BadInput`` (with file:line:col) for binary data (an executable,
    an object file, UTF-16 text), a NUL byte, and lines ended by a bare CR
    (which gcc counts as a line break and crepair does not).
    """
    start = SourcePoint(name, 1, 1)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise BadInput("not a C source file crepair can read (UTF-16 text): convert it to UTF-8", start)
    if _looks_binary(data[:_SAMPLE]):
        raise BadInput("not a C source file (binary data)", start)
    text = decode(data)
    nul = text.find("\0")
    if nul >= 0:
        raise BadInput("NUL byte in the source (a C source file is text)", point_at(name, text, nul))
    cr = _bare_cr(text)
    if cr >= 0:
        raise BadInput(
            "line ending CR without LF is not supported: convert the file to LF or CR LF line endings",
            point_at(name, text, cr),
        )
    return text


def _looks_binary(sample: bytes) -> bool:
    if sample.startswith(b"\x7fELF"):
        return True
    controls = sum(1 for b in sample if b < 0x20 and b not in _TEXT_CONTROLS)
    return controls * 20 > len(sample)  # more than 5% control bytes


def _bare_cr(text: str) -> int:
    at = text.find("\r")
    while at >= 0:
        if not text.startswith("\n", at + 1):
            return at
        at = text.find("\r", at + 2)
    return -1


def newline_of(text: str) -> str:
    """The line ending most lines of ``text`` use: ``"\\r\\n"`` or ``"\\n"``
    (for a text that inserts a new line; edits within a line need none)."""
    lines = text.count("\n")
    return "\r\n" if lines and text.count("\r\n") * 2 > lines else "\n"
