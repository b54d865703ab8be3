"""New standard inputs from given ones, token by token.

A test input is split into tokens (maximal runs of non-whitespace) and the
whitespace between them, which is kept as it is: line structure and
separators survive every mutation.  A mutant changes one token, two
tokens, or every numeric token at once (e.g. all negative); numbers
become neighbours, negations, zero, doublings, halvings and random values
of the same magnitude; words get a character changed, dropped or
doubled; with the integer constants of the programs (a fuzzer's
dictionary), numbers also come near them, one at a time or all at once (the
boundaries the programs test: ``i <= 50``).  Mutants stay in the input
classes the given inputs show: a
number's sign class (negative, zero, positive) is one that a given number
at the same token index has (a count or a size that every test gives as
positive stays positive; a mutant outside that domain tests what the task
never asked); a word's new character is one the given words use, and a word
keeps its length where every given word at its token index has the same
length (the rows of a board: a row one square longer is no board).  A
number that counts what follows it in every given input
(``n`` then ``n`` numbers: the tokens after it, or the lines after its
own) stays a count: a mutant changes it together with the items, dropping
the last ones or repeating mutated copies of them, so the program never
reads past the end of its input (where it would see what its memory
happened to hold).  This is the input generation of the staged check against a
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
from dataclasses import dataclass, field

from crepair.counterexample import Counterexample

_TOKEN = re.compile(rb"\S+")
_INT = re.compile(rb"[+-]?\d+")
_FLOAT = re.compile(rb"[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?")


def is_number(token: bytes) -> bool:
    """Whether ``token`` is an integer or a decimal number (the tokens mutated as numbers)."""
    return bool(_INT.fullmatch(token) or _FLOAT.fullmatch(token))


def _split(data: bytes) -> list[bytes]:
    """``data`` as alternating [sep, token, sep, token, ..., sep] (odd indices are tokens)."""
    parts, last = [], 0
    for m in _TOKEN.finditer(data):
        parts += [data[last:m.start()], m.group()]
        last = m.end()
    parts.append(data[last:])
    return parts


@dataclass(frozen=True, slots=True)
class Words:
    """The shape of the given inputs' words (tokens that are not numbers):
    ``lengths``, token index (0-based) -> the lengths of the words there;
    ``alphabet``, every byte they use.  A mutated word keeps to the
    alphabet, and keeps its length where the given words at its index all
    have one length (the rows of a board, a string of a stated length)."""

    lengths: dict[int, frozenset[int]] = field(default_factory=dict)
    alphabet: bytes = b""

    def fixed(self, k: int | None) -> bool:
        """Whether a word at token index ``k`` keeps its length (None: a
        word whose index is not known, e.g. in an item a count adds: when
        every given word has one length)."""
        if k is None:
            return len(set().union(*self.lengths.values())) == 1 if self.lengths else False
        return len(self.lengths.get(k, ())) == 1


def _words(inputs: Sequence[bytes]) -> Words:
    lengths: dict[int, set[int]] = {}
    alphabet: set[int] = set()
    for data in inputs:
        for k, t in enumerate(_TOKEN.findall(data)):
            if not is_number(t):
                lengths.setdefault(k, set()).add(len(t))
                alphabet.update(t)
    return Words({k: frozenset(v) for k, v in lengths.items()}, bytes(sorted(alphabet)))


ALL_SIGNS = frozenset({-1, 0, 1})


def _sign(v: float) -> int:
    return (v > 0) - (v < 0)


def _signs(inputs: Sequence[bytes]) -> dict[int, frozenset[int]]:
    """Token index (0-based, in input order) -> the sign classes (-1, 0, 1)
    of the numbers at that index in ``inputs``."""
    out: dict[int, set[int]] = {}
    for data in inputs:
        for k, t in enumerate(_TOKEN.findall(data)):
            if is_number(t):
                out.setdefault(k, set()).add(_sign(float(t)))
    return {k: frozenset(v) for k, v in out.items()}


def _counts(inputs: Sequence[bytes]) -> dict[int, str]:
    """Token index -> ``"tokens"`` or ``"lines"`` for an integer that, in
    every given input that has one there, equals the number of tokens after
    it (or of non-empty lines after its line), and is at least 2 in one of
    them (a 1 or a 0 could count by chance)."""
    out: dict[int, str] = {}
    first = next((d for d in inputs if _TOKEN.search(d)), None)
    if first is None:
        return out
    for k in range(len(_TOKEN.findall(first))):
        for kind in ("tokens", "lines"):
            seen = [c for c in (_count_at(d, k, kind) for d in inputs) if c is not None]
            if seen and all(ok for ok, _ in seen) and any(v >= 2 for _, v in seen):
                out[k] = kind
                break
    return out


def _count_at(data: bytes, k: int, kind: str) -> tuple[bool, int] | None:
    """(whether token ``k`` of ``data`` counts the items after it, its
    value); None when there is no integer token ``k``."""
    tokens = list(_TOKEN.finditer(data))
    if k >= len(tokens) or not _INT.fullmatch(tokens[k].group()):
        return None
    value = int(tokens[k].group())
    if kind == "tokens":
        return value == len(tokens) - k - 1, value
    rest = data[tokens[k].end():].split(b"\n")[1:]
    return value == sum(1 for line in rest if line.strip()), value


def _resized(data: bytes, k: int, kind: str, rng: random.Random, words: Words = Words()) -> bytes:
    """``data`` with its count at token ``k`` changed and the items after
    it dropped from the end or repeated (mutated copies) to match."""
    tokens = list(_TOKEN.finditer(data))
    old = int(tokens[k].group())
    new = rng.choice([c for c in (old + 1, old - 1, old + 2, old // 2, 2 * old, 1, rng.randint(1, 2 * old + 2))
                      if c != old and c >= 1] or [old + 1])
    head, tail = data[:tokens[k].start()] + str(new).encode(), data[tokens[k].end():]
    if kind == "tokens":
        items = [m.group() for m in tokens[k + 1:]]
        seps = _split(tail)[0::2]  # the separators around the items, kept where they are
        inner = seps[-2] if len(seps) > 2 else b" "
        if new < old:
            return head + b"".join(_split(tail)[:2 * new]) + seps[-1]
        extra = [mutate_token(rng.choice(items), rng, words=words) for _ in range(new - old)] if items else []
        return head + tail[:len(tail) - len(seps[-1])] + b"".join(inner + t for t in extra) + seps[-1]
    line_end = tail.find(b"\n")
    if line_end < 0:
        return data
    first, lines = tail[:line_end + 1], tail[line_end + 1:].split(b"\n")
    items = [i for i, line in enumerate(lines) if line.strip()]
    if new < old:
        cut = items[new] if new < len(items) else len(lines)
        return head + first + b"\n".join(lines[:cut]) + (b"\n" if cut < len(lines) else b"")
    last = items[-1] if items else -1
    added = ([_mutant(lines[rng.choice(items)], rng, words=words, whole=False) for _ in range(new - old)]
             if items else [])
    return head + first + b"\n".join(lines[:last + 1] + added + lines[last + 1:])


def _number(token: bytes, rng: random.Random, signs: frozenset[int] = ALL_SIGNS,
            constants: Sequence[int] = ()) -> bytes:
    v = int(token)
    magnitude = max(abs(v), 10)
    choices = [v + 1, v - 1, -v, 0, 1, 2 * v, v // 2, v + rng.randint(2, 10), v - rng.randint(2, 10),
               rng.randint(-magnitude, magnitude), rng.randint(-100, 100)]
    if constants:
        choices += [_near(constants, rng)] * 3
    new = rng.choice([c for c in choices if c != v and _sign(c) in signs] or [v + 1])
    return str(new).encode()


def _near(constants: Sequence[int], rng: random.Random) -> int:
    """A value at most ``NEAR`` from one of ``constants``: a boundary the program tests."""
    return rng.choice(constants) + rng.randint(-NEAR, NEAR)


NEAR = 3  # how far from a constant of the program a boundary value may be


def int_constants(source: str, most: int = 16) -> list[int]:
    """The distinct integer literals of the C text ``source`` (decimal,
    outside comments and strings, not 0 or 1), in order of appearance, at
    most ``most``: the boundaries a program compares its input with
    (``i <= 50``), whose neighbours are the inputs most likely to tell a
    patch from the reference (a fuzzer's dictionary of the program's
    constants)."""
    text = re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', " ", source, flags=re.S)
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#include"))
    found = [int(m) for m in re.findall(r"(?<![\w.])\d+(?![\w.])", text)]
    return list(dict.fromkeys(v for v in found if v > 1))[:most]


def _real(token: bytes, rng: random.Random, signs: frozenset[int] = ALL_SIGNS) -> bytes:
    v = float(token)
    choices = [v + 0.5, v - 0.5, -v, 0.0, 2 * v, v / 2, round(rng.uniform(-100, 100), 2)]
    new = rng.choice([c for c in choices if c != v and _sign(c) in signs] or [v + 0.5])
    decimals = len(token.split(b".")[1]) if b"." in token else 2
    return f"{new:.{max(decimals, 1)}f}".encode()


def _word(token: bytes, rng: random.Random, words: Words = Words(), k: int | None = None) -> bytes:
    i = rng.randrange(len(token))
    how = 2 if words.fixed(k) else rng.randrange(3)
    if how == 0 and len(token) > 1:
        return token[:i] + token[i + 1:]
    if how == 1:
        return token[:i] + token[i:i + 1] * 2 + token[i + 1:]
    letters = words.alphabet or b"abcdefghijklmnopqrstuvwxyz"
    return token[:i] + bytes([rng.choice(letters)]) + token[i + 1:]


def mutate_token(token: bytes, rng: random.Random, signs: frozenset[int] = ALL_SIGNS,
                 constants: Sequence[int] = (), words: Words = Words(), k: int | None = None) -> bytes:
    """A neighbour of ``token`` (token index ``k``, 0-based; None: not
    known): a number stays a number of the same kind (integer or decimal)
    whose sign class is in ``signs`` (-1, 0, 1), a word stays a word of
    the given inputs' alphabet, of the same length where ``words`` says so;
    an integer may also come near one of ``constants``."""
    if _INT.fullmatch(token):
        return _number(token, rng, signs, constants)
    if _FLOAT.fullmatch(token):
        return _real(token, rng, signs)
    return _word(token, rng, words, k)


def _mutant(data: bytes, rng: random.Random, signs: dict[int, frozenset[int]] | None = None,
            counts: dict[int, str] | None = None, constants: Sequence[int] = (), words: Words = Words(),
            whole: bool = True) -> bytes:
    """One mutant of ``data`` (``whole``: a whole input, whose token indices
    are those of ``signs``, ``counts`` and ``words``; else a line of one)."""
    parts = _split(data)
    tokens = list(range(1, len(parts), 2))
    if not tokens:
        return data
    counting = {k: kind for k, kind in (counts or {}).items()
                if (found := _count_at(data, k, kind)) is not None and found[0]}
    if counting and rng.random() < 0.3:  # the size changes, the items follow
        k = rng.choice(sorted(counting))
        return _resized(data, k, counting[k], rng, words)
    tokens = [i for i in tokens if (i - 1) // 2 not in counting]
    if not tokens:
        return data
    numeric = [i for i in tokens if is_number(parts[i])]
    def allowed(i: int) -> frozenset[int]:  # parts index i is token (i - 1) // 2
        return ALL_SIGNS if signs is None else signs.get((i - 1) // 2, ALL_SIGNS)

    def index(i: int) -> int | None:
        return (i - 1) // 2 if whole else None

    how = rng.random()
    if how < 0.25 and len(numeric) > 1:  # every number at once: all negated, all negative, all random, all near
        mode = rng.randrange(4 if constants else 3)  # ... a constant of the program
        for i in numeric:
            if mode == 3 and _INT.fullmatch(parts[i]):
                near = _near(constants, rng)
                parts[i] = str(near).encode() if _sign(near) in allowed(i) else parts[i]
            elif not _INT.fullmatch(parts[i]) or mode == 2 or -1 not in allowed(i):
                parts[i] = mutate_token(parts[i], rng, allowed(i), constants, words, index(i))
            elif mode == 0:
                parts[i] = str(-int(parts[i])).encode()
            else:
                parts[i] = str(-rng.randint(1, max(10, abs(int(parts[i])) * 2))).encode()
    else:
        for i in rng.sample(tokens, min(len(tokens), 1 if how < 0.7 else 2)):
            parts[i] = mutate_token(parts[i], rng, allowed(i), constants, words, index(i))
    return b"".join(parts)


def mutate_inputs(inputs: Sequence[bytes], *, count: int, seed: int = 0, constants: Sequence[int] = ()) -> list[bytes]:
    """Up to ``count`` distinct mutants of the standard inputs ``inputs``
    (none of which is returned again), deterministic for a ``seed``.
    Fewer come back when the inputs have few tokens.  A number keeps to
    the sign classes of the numbers at its token index in ``inputs``, a
    word to their words' alphabet and, where they show one, length
    (:class:`Words`); a count keeps counting its items (module docstring).  ``constants``
    (:func:`int_constants` of the reference): integers may also be set near
    them, one at a time or all at once (without them, the mutants are
    those of earlier versions)."""
    rng = random.Random(seed)
    signs, counts, words = _signs(inputs), _counts(inputs), _words(inputs)
    seen = set(inputs)
    out: list[bytes] = []
    pool = [i for i in inputs if _TOKEN.search(i)]
    attempts = 0
    while pool and len(out) < count and attempts < 20 * count:
        attempts += 1
        new = _mutant(rng.choice(pool), rng, signs, counts, constants, words)
        if new not in seen:
            seen.add(new)
            out.append(new)
    return out


def stdin_of(counterexample: Counterexample, reference_file: str | None = None) -> bytes | None:
    """The standard input of a counterexample found by the bounded engine
    (:mod:`crepair.encode.stdin`), as the run reads it: the ``scanf`` /
    ``fscanf`` tokens in order on one line; the bytes ``getchar`` (or
    ``fgetc``, ``getc``) reads, as they are, one after the other; the
    lines ``gets`` / ``fgets`` read, each with its newline.  None when the
    run reads no standard input, mixes these kinds (the engine's tokens are
    not the characters a mixed run reads), or a token is not a number or a
    word (a word holding white space cannot be read back whole), or a line
    holds a newline.  Inputs of the reference's own copy (labelled with
    ``reference_file``) are the same stream and are left out."""
    read = [inp for inp in counterexample.inputs if inp.executed and _stream_kind(inp.label)
            and not (reference_file and reference_file in inp.label)]
    kinds = {_stream_kind(inp.label) for inp in read}
    if len(kinds) != 1:
        return None
    if kinds == {"char"}:
        return bytes(inp.value & 0xFF for inp in read) if all(isinstance(i.value, int) for i in read) else None
    if kinds == {"line"}:
        lines = [bytes(v & 0xFF for v in inp.value).split(b"\0")[0] if isinstance(inp.value, list) else None
                 for inp in read]
        if any(line is None or b"\n" in line for line in lines):
            return None
        return b"".join(line + b"\n" for line in lines)
    tokens: list[bytes] = []
    for inp in read:
        if inp.chars and isinstance(inp.value, list):
            text = bytes(v & 0xFF for v in inp.value).split(b"\0")[0]
            if not text or any(b in SCANF_SPACE for b in text):  # a word scanf reads whole: no white space
                return None
            tokens.append(text)  # any other byte, as the solver chose it (e.g. b"\x01", b"\x80")
        elif isinstance(inp.value, int):
            tokens.append((chr(inp.value) if "%c" in inp.label and 32 < inp.value < 127 else str(inp.value)).encode())
        else:
            return None
    return b" ".join(tokens) + b"\n"


def _stream_kind(label: str) -> str | None:
    """How an input of the engine's stdin is read (by its label): "token"
    (``scanf``, ``fscanf``), "char" (``getchar``), "line" (``gets``,
    ``fgets``); None for an input that is not read from stdin."""
    if label.startswith(("scanf", "fscanf")):
        return "token"
    if label.startswith("getchar("):
        return "char"
    if label.startswith(("gets(", "fgets(")):
        return "line"
    return None


#: the bytes C's isspace() calls white space (the "C" locale): scanf's %s stops at them
SCANF_SPACE = frozenset(b" \t\n\v\f\r")


def natural_inputs(texts: Iterable[bytes]) -> list[bytes]:
    """``texts`` without duplicates, in order."""
    return list(dict.fromkeys(texts))
