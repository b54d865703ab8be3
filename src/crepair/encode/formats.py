"""The format strings of ``scanf`` and ``printf`` (C11 7.21.6.1, 7.21.6.2).

A format is parsed into a sequence of literal text (bytes) and
:class:`Conversion` records; what a conversion reads or writes is given by
its letter and length modifier, with gcc's x86-64 (LP64) sizes: no
modifier 32 bits, ``hh`` 8, ``h`` 16, ``l``/``ll``/``j``/``z``/``t`` 64.
Floating-point conversions, ``%n``, ``%p``, ``%[`` sets and ``*`` widths
raise ``UnsupportedConstruct``.  Microsoft's ``%I64d`` is what glibc
reads: the flag ``I`` (digits of the locale), field width 64, ``%d`` (an
``int``).

>>> [c.letter for c in parse_format(b"%d %5s%%x", None, scan=True) if isinstance(c, Conversion)]
['d', 's']
>>> parse_format(b"%lld\\n", None, scan=False)[0].bits
64
"""

from __future__ import annotations

from dataclasses import dataclass

from crepair.errors import SourcePoint, UnsupportedConstruct

_INTEGER = "diuxXo"
_LENGTHS = {"hh": 8, "h": 16, "l": 64, "ll": 64, "j": 64, "z": 64, "t": 64, "q": 64, "L": 64}
_FLAGS = "-+ #0'I"  # glibc's I: the locale's digits (the C locale's are ASCII)
_SCAN_FLAGS = "I"


@dataclass(frozen=True, slots=True)
class Conversion:
    """One conversion: ``letter`` (``d i u x X o c s``), the width in bits
    of the integer it reads or prints (8 for ``c``; 0 for ``s``), whether
    it is ``signed`` (``d``/``i``), ``suppress`` (scanf's ``*``: read, not
    stored) and ``width`` (the maximum field width, None when absent)."""

    letter: str
    bits: int
    signed: bool
    suppress: bool = False
    width: int | None = None
    text: str = ""  # the conversion as written, for messages
    precision: int | None = None  # printf's digits after the point (``%.2f``; 6 for ``%f``), else None


def _floating(letter: str, length: str, scan: bool, suppress: bool, width: int | None, written: str,
              precision: int | None, where) -> Conversion:
    """A floating conversion: scanf's ``%f %e %g %a`` (``float``, with
    ``l`` a ``double``), printf's ``%f``/``%F`` (a ``double``; 6 digits by
    default, at most 20).  Raises ``UnsupportedConstruct`` for the rest."""
    if length not in ("", "l"):
        raise UnsupportedConstruct(where, f"conversion '{written}' (long double)")
    if scan:
        return Conversion("f", 64 if length == "l" else 32, True, suppress, width, written)
    if letter not in "fF" or (precision or 0) > 20:
        raise UnsupportedConstruct(where, f"conversion '{written}' (printf prints floats with %f and %.Nf, N <= 20)")
    return Conversion("f", 64, True, False, width, written, 6 if precision is None else precision)


def parse_format(fmt: bytes, where: SourcePoint | None, *, scan: bool) -> list["bytes | Conversion"]:
    """The pieces of format ``fmt`` (without its NUL): literal text as
    ``bytes`` (``%%`` becomes ``b"%"``) and :class:`Conversion` records,
    in order.  ``scan``: a scanf format (``*`` suppresses a conversion).
    Raises ``UnsupportedConstruct`` at ``where`` for a conversion not
    modelled."""
    out: list[bytes | Conversion] = []
    text = bytearray()
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch != ord("%"):
            text.append(ch)
            i += 1
            continue
        j = i + 1
        if j < len(fmt) and fmt[j] == ord("%"):
            text.append(ord("%"))
            i = j + 1
            continue
        suppress = False
        if scan and j < len(fmt) and fmt[j] == ord("*"):
            suppress, j = True, j + 1
        while j < len(fmt) and chr(fmt[j]) in (_SCAN_FLAGS if scan else _FLAGS):
            j += 1
        k = j
        while j < len(fmt) and chr(fmt[j]).isdigit():
            j += 1
        width = int(fmt[k:j]) if j > k else None
        precision = None
        if not scan and j < len(fmt) and fmt[j] == ord("."):
            j += 1
            p = j
            while j < len(fmt) and chr(fmt[j]).isdigit():
                j += 1
            precision = int(fmt[p:j] or b"0")
        length = ""
        while j < len(fmt) and chr(fmt[j]) in "hljztqL" and len(length) < 2:
            length += chr(fmt[j])
            j += 1
        written = fmt[i : j + 1].decode("latin-1")
        if j >= len(fmt):
            raise UnsupportedConstruct(where, f"format '{written}' that ends inside a conversion")
        letter = chr(fmt[j])
        if letter == "*" or (not scan and b"*" in fmt[i:j]):
            raise UnsupportedConstruct(where, f"conversion '{written}' with a '*' width")
        if letter in "fFeEgGaA":
            conv = _floating(letter, length, scan, suppress, width, written, precision, where)
            if text:
                out.append(bytes(text))
                text = bytearray()
            out.append(conv)
            i = j + 1
            continue
        if length and length not in _LENGTHS:
            raise UnsupportedConstruct(where, f"conversion '{written}'")
        if letter in _INTEGER:
            bits = _LENGTHS.get(length, 32)
            conv = Conversion(letter, bits, letter in "di", suppress, width, written)
        elif letter == "c" and not length:
            if scan and width not in (None, 1):
                raise UnsupportedConstruct(where, f"conversion '{written}' (more than one character)")
            conv = Conversion("c", 8, False, suppress, width, written)
        elif letter == "s" and not length:
            if not scan and b"." in fmt[i:j]:
                raise UnsupportedConstruct(where, f"conversion '{written}' with a precision")
            conv = Conversion("s", 0, False, suppress, width, written)
        else:
            raise UnsupportedConstruct(where, f"conversion '{written}'")
        if text:
            out.append(bytes(text))
            text = bytearray()
        out.append(conv)
        i = j + 1
    if text:
        out.append(bytes(text))
    return out
