"""New standard inputs from given ones, token by token.

A test input is split into tokens (maximal runs of non-whitespace) and the
whitespace between them, which is kept as it is: line structure and
separators survive every mutation.  A mutant changes one token, two
tokens, or every numeric token at once (e.g. all negative); numbers
become neighbours, negations, zero, doublings, halvings and random values
of the same magnitude; words get a character changed, dropped or
doubled.  Mutants stay in the input classes the given inputs show: a
number's sign class (negative, zero, positive) is one that a given number
at the same token index has (a count or a size that every test gives as
positive stays positive; a mutant outside that domain tests what the task
never asked).  This is the input generation of the staged check against a
reference (crepair issue "Real programs against a model solution";
in the spirit of type-aware input mutation, e.g. Mechtaev et al.'s
test generation for f1x's evaluation).

>>> mutate_inputs([b"1 2 3\\n"], count=3, seed=1)   # doctest: +SKIP
[b'1 -2 3\\n', b'0 2 3\\n', b'1 2 4\\n']
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from crepair.bmc import Counterexample

_TOKEN = re.compile(rb"\S+")
_INT = re.compile(rb"[+-]?\d+")
_FLOAT = re.compile(rb"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?")


def _split(data: bytes) -> list[bytes]:
    """``data`` as alternating [sep, token, sep, token, ..., sep] (odd indices are tokens)."""
    parts, last = [], 0
    for m in _TOKEN.finditer(data):
        parts += [data[last:m.start()], m.group()]
        last = m.end()
    parts.append(data[last:])
    return parts


ALL_SIGNS = frozenset({-1, 0, 1})


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def _signs(inputs: Sequence[bytes]) -> dict[int, frozenset[int]]:
    """Token index (0-based, in input order) -> the sign classes (-1, 0, 1)
    of the numbers at that index in ``inputs``."""
    out: dict[int, set[int]] = {}
    for data in inputs:
        for k, t in enumerate(_TOKEN.findall(data)):
            if _INT.fullmatch(t) or _FLOAT.fullmatch(t):
                out.setdefault(k, set()).add(_sign(float(t)))
    return {k: frozenset(v) for k, v in out.items()}


def _number(token: bytes, rng: random.Random, signs: frozenset[int] = ALL_SIGNS) -> bytes:
    v = int(token)
    magnitude = max(abs(v), 10)
    choices = [v + 1, v - 1, -v, 0, 1, 2 * v, v // 2, v + rng.randint(2, 10), v - rng.randint(2, 10),
               rng.randint(-magnitude, magnitude), rng.randint(-100, 100)]
    new = rng.choice([c for c in choices if c != v and _sign(c) in signs] or [v + 1])
    return str(new).encode()


def _real(token: bytes, rng: random.Random, signs: frozenset[int] = ALL_SIGNS) -> bytes:
    v = float(token)
    choices = [v + 0.5, v - 0.5, -v, 0.0, 2 * v, v / 2, round(rng.uniform(-100, 100), 2)]
    new = rng.choice([c for c in choices if c != v and _sign(c) in signs] or [v + 0.5])
    decimals = len(token.split(b".")[1]) if b"." in token else 2
    return f"{new:.{max(decimals, 1)}f}".encode()


def _word(token: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(token))
    how = rng.randrange(3)
    if how == 0 and len(token) > 1:
        return token[:i] + token[i + 1:]
    if how == 1:
        return token[:i] + token[i:i + 1] * 2 + token[i + 1:]
    letters = b"abcdefghijklmnopqrstuvwxyz"
    return token[:i] + bytes([rng.choice(letters)]) + token[i + 1:]


def mutate_token(token: bytes, rng: random.Random, signs: frozenset[int] = ALL_SIGNS) -> bytes:
    """A neighbour of ``token``: a number stays a number of the same kind
    (integer or decimal) whose sign class is in ``signs`` (-1, 0, 1), a
    word stays a word."""
    if _INT.fullmatch(token):
        return _number(token, rng, signs)
    if _FLOAT.fullmatch(token):
        return _real(token, rng, signs)
    return _word(token, rng)


def _mutant(data: bytes, rng: random.Random, signs: dict[int, frozenset[int]] | None = None) -> bytes:
    parts = _split(data)
    tokens = list(range(1, len(parts), 2))
    if not tokens:
        return data
    numeric = [i for i in tokens if _INT.fullmatch(parts[i]) or _FLOAT.fullmatch(parts[i])]
    def allowed(i: int) -> frozenset[int]:  # parts index i is token (i - 1) // 2
        return ALL_SIGNS if signs is None else signs.get((i - 1) // 2, ALL_SIGNS)

    how = rng.random()
    if how < 0.25 and len(numeric) > 1:  # every number at once: all negated, all negative, all random
        mode = rng.randrange(3)
        for i in numeric:
            if not _INT.fullmatch(parts[i]) or mode == 2 or -1 not in allowed(i):
                parts[i] = mutate_token(parts[i], rng, allowed(i))
            elif mode == 0:
                parts[i] = str(-int(parts[i])).encode()
            else:
                parts[i] = str(-rng.randint(1, max(10, abs(int(parts[i])) * 2))).encode()
    else:
        for i in rng.sample(tokens, min(len(tokens), 1 if how < 0.7 else 2)):
            parts[i] = mutate_token(parts[i], rng, allowed(i))
    return b"".join(parts)


def mutate_inputs(inputs: Sequence[bytes], *, count: int, seed: int = 0) -> list[bytes]:
    """Up to ``count`` distinct mutants of the standard inputs ``inputs``
    (none of which is returned again), deterministic for a ``seed``.
    Fewer come back when the inputs have few tokens.  A number keeps to
    the sign classes of the numbers at its token index in ``inputs``."""
    rng = random.Random(seed)
    signs = _signs(inputs)
    seen = set(inputs)
    out: list[bytes] = []
    pool = [i for i in inputs if _TOKEN.search(i)]
    attempts = 0
    while pool and len(out) < count and attempts < 20 * count:
        attempts += 1
        new = _mutant(rng.choice(pool), rng, signs)
        if new not in seen:
            seen.add(new)
            out.append(new)
    return out


def stdin_of(counterexample: Counterexample, reference_file: str | None = None) -> bytes | None:
    """The standard input of a counterexample found by the bounded engine:
    the ``scanf`` tokens the run reads, in order, one line; None when the
    run reads no standard input or a token is not a number or string.
    Inputs of the reference's own copy (labelled with ``reference_file``)
    are the same stream and are left out."""
    tokens: list[str] = []
    for inp in counterexample.inputs:
        if not inp.label.startswith("scanf") or not inp.executed:
            continue
        if reference_file and reference_file in inp.label:
            continue
        if inp.chars and isinstance(inp.value, list):
            text = bytes(v & 0xFF for v in inp.value).split(b"\0")[0]
            if not text or any(b <= 32 or b >= 127 for b in text):
                return None
            tokens.append(text.decode())
        elif isinstance(inp.value, int):
            tokens.append(chr(inp.value) if "%c" in inp.label and 32 < inp.value < 127 else str(inp.value))
        else:
            return None
    return (" ".join(tokens) + "\n").encode() if tokens else None


def natural_inputs(texts: Iterable[bytes]) -> list[bytes]:
    """``texts`` without duplicates, in order."""
    return list(dict.fromkeys(texts))
