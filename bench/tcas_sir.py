"""Mapping repairs of the TCAS spec files onto the SIR programs.

``benchmarks/tcas/spec/tcas_vN.c`` holds the faulty code of SIR's
``sir/versions/vN/tcas.c`` before ``//<ASSUME_CORRECT>``, at other line
numbers and with a few rewritten lines.  :class:`Mapper` finds where an
edit of the spec (one C token, or a whole expression) is in SIR: the SIR
line whose tokens (comments and whitespace dropped) equal those of the spec
line, disambiguated by the neighbouring lines, else a token alignment of
the two files (``difflib``).  Text that exists only in the spec (the
``&& 1`` the spec adds) cannot be mapped; the reason says so.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

ASSUME_MARKER = "//<ASSUME_CORRECT>"

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?[uUlLfF]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|.)
    """,
    re.S | re.X,
)


@dataclass(frozen=True)
class Tok:
    text: str
    start: int
    end: int
    line: int  # 1-based


def tokenize(text: str, limit: int | None = None) -> list[Tok]:
    """C tokens of ``text[:limit]`` without whitespace and comments."""
    text = text if limit is None else text[:limit]
    out: list[Tok] = []
    line = 1
    pos = 0
    for m in _TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if m.lastgroup not in ("ws", "comment"):
            out.append(Tok(m.group(), m.start(), m.end(), line))
    return out


class _Lines:
    """Tokens grouped by physical line (only lines that have tokens)."""

    def __init__(self, toks: list[Tok]):
        self.toks = toks
        self.keys: list[tuple[str, ...]] = []
        self.numbers: list[int] = []
        self.members: list[list[int]] = []  # token indices per line
        for i, t in enumerate(toks):
            if not self.numbers or self.numbers[-1] != t.line:
                self.numbers.append(t.line)
                self.members.append([])
                self.keys.append(())
            self.members[-1].append(i)
            self.keys[-1] = self.keys[-1] + (t.text,)
        self.index_of_line = {n: k for k, n in enumerate(self.numbers)}


class Mapper:
    """Maps offsets of the spec file onto the SIR file of the same version."""

    def __init__(self, spec_text: str, sir_text: str):
        cut = spec_text.find(ASSUME_MARKER)
        self.spec_text = spec_text
        self.sir_text = sir_text
        self.spec_toks = tokenize(spec_text, cut if cut >= 0 else None)
        self.sir_toks = tokenize(sir_text)
        self.spec_lines = _Lines(self.spec_toks)
        self.sir_lines = _Lines(self.sir_toks)
        self._opcodes = None

    # global token alignment (fallback)
    def _align(self, p: int) -> tuple[int | None, str]:
        if self._opcodes is None:
            sm = difflib.SequenceMatcher(
                None, [t.text for t in self.spec_toks], [t.text for t in self.sir_toks], autojunk=False
            )
            self._opcodes = sm.get_opcodes()
        for tag, i1, i2, j1, j2 in self._opcodes:
            if i1 <= p < i2:
                if tag == "equal":
                    return j1 + (p - i1), ""
                spec_chunk = " ".join(t.text for t in self.spec_toks[i1:i2])
                sir_chunk = " ".join(t.text for t in self.sir_toks[j1:j2]) or "(nothing)"
                what = "spec-only text" if tag == "delete" else "text that differs from SIR"
                return None, f"token `{self.spec_toks[p].text}` is in {what} `{spec_chunk}` (SIR: `{sir_chunk}`)"
        return None, "token outside the aligned region"

    def _context_score(self, spec_li: int, sir_li: int, width: int = 6) -> int:
        score = 0
        for d in range(1, width + 1):
            for s, q in ((spec_li - d, sir_li - d), (spec_li + d, sir_li + d)):
                if 0 <= s < len(self.spec_lines.keys) and 0 <= q < len(self.sir_lines.keys):
                    score += self.spec_lines.keys[s] == self.sir_lines.keys[q]
        return score

    def map(self, start: int, end: int, old_text: str) -> dict:
        """Where the spec token at ``start:end`` is in SIR.

        Returns ``{"ok": True, "start", "end", "sir_line", "spec_line", "method"}``
        or ``{"ok": False, "reason"}``.
        """
        p = next((i for i, t in enumerate(self.spec_toks) if t.start == start), None)
        if p is None or self.spec_toks[p].end != end:
            return {"ok": False, "reason": f"mutation {start}:{end} `{old_text}` is not a single C token of the spec"}
        tok = self.spec_toks[p]
        spec_li = self.spec_lines.index_of_line[tok.line]
        key = self.spec_lines.keys[spec_li]
        pos_in_line = self.spec_lines.members[spec_li].index(p)
        candidates = [q for q, k in enumerate(self.sir_lines.keys) if k == key]
        q_tok = None
        method = ""
        if candidates:
            if len(candidates) > 1:
                scores = {q: self._context_score(spec_li, q) for q in candidates}
                best = max(scores.values())
                tied = [q for q in candidates if scores[q] == best]
            else:
                tied = candidates
            if len(tied) == 1:
                q_tok = self.sir_lines.members[tied[0]][pos_in_line]
                method = "line" if len(candidates) == 1 else "line+context"
            else:
                j, _ = self._align(p)
                if j is not None and any(j in self.sir_lines.members[q] for q in tied):
                    q_tok, method = j, "line+alignment"
                else:
                    lines = ", ".join(str(self.sir_lines.numbers[q]) for q in tied)
                    return {"ok": False, "reason": f"spec line {tok.line} matches SIR lines {lines} equally well"}
        else:
            j, why = self._align(p)
            if j is None:
                return {"ok": False, "reason": f"spec line {tok.line} has no equal SIR line and {why}"}
            q_tok, method = j, "token alignment"
        sir_tok = self.sir_toks[q_tok]
        if sir_tok.text != old_text:
            return {
                "ok": False,
                "reason": f"SIR token at line {sir_tok.line} is `{sir_tok.text}`, not `{old_text}`",
            }
        return {
            "ok": True,
            "start": sir_tok.start,
            "end": sir_tok.end,
            "sir_line": sir_tok.line,
            "spec_line": tok.line,
            "method": method,
        }

    def map_span(self, start: int, end: int, old_text: str) -> dict:
        """Where the spec text at ``start:end`` (one or more whole tokens,
        e.g. the whole expression a template repair replaces) is in SIR.

        A single token is mapped by :meth:`map` (so mutation repairs map as
        before).  For several tokens, the first one is mapped by :meth:`map`
        and the SIR tokens that follow it must be the same as the spec's
        (comments and whitespace do not matter).  If they are not, the
        tokens are mapped through the token alignment of the two files:
        every token of the range must be in an equal block, except for
        spec-only tokens at either end of the range, which are dropped
        (e.g. `(a < b) && 1` in the spec is `(a < b)` in SIR), and the SIR
        tokens between the first and last mapped token must all be mapped.
        Returns the same dict as :meth:`map`; for several tokens also with
        ``sir_text`` (the SIR text replaced) and, when spec-only tokens were
        dropped, ``dropped``.
        """
        idx = [i for i, t in enumerate(self.spec_toks) if start <= t.start and t.end <= end]
        if not idx or self.spec_toks[idx[0]].start != start or self.spec_toks[idx[-1]].end != end:
            return {"ok": False, "reason": f"text {start}:{end} `{old_text}` is not a sequence of whole C tokens of the spec"}
        if len(idx) == 1:
            return self.map(start, end, old_text)
        p, q = idx[0], idx[-1]
        spec_words = [t.text for t in self.spec_toks[p:q + 1]]
        first = self.spec_toks[p]
        m = self.map(first.start, first.end, first.text)
        if m["ok"]:
            j = next(i for i, t in enumerate(self.sir_toks) if t.start == m["start"])
            if [t.text for t in self.sir_toks[j:j + len(spec_words)]] == spec_words:
                last = self.sir_toks[j + len(spec_words) - 1]
                return {
                    "ok": True, "start": m["start"], "end": last.end, "sir_line": m["sir_line"],
                    "spec_line": m["spec_line"], "method": m["method"] + " (expression)",
                    "sir_text": self.sir_text[m["start"]:last.end],
                }
        # token alignment of the whole files
        self._align(p)  # computes the opcodes
        mapped: list[tuple[int, int]] = []  # (spec index, SIR index)
        unmapped: list[int] = []
        for k in range(p, q + 1):
            j, _ = self._align(k)
            if j is None:
                unmapped.append(k)
            else:
                mapped.append((k, j))
        if not mapped:
            return {"ok": False, "reason": f"no token of `{old_text}` (spec line {first.line}) is in SIR"}
        ks = [k for k, _ in mapped]
        inner = [k for k in unmapped if ks[0] < k < ks[-1]]
        if inner:
            words = " ".join(self.spec_toks[k].text for k in inner)
            return {"ok": False, "reason": f"`{old_text}` (spec line {first.line}) contains `{words}`, which differs from SIR"}
        for k in unmapped:  # at the ends: must be spec-only text, not text that differs from SIR
            for tag, i1, i2, j1, j2 in self._opcodes:
                if i1 <= k < i2 and tag != "delete":
                    return {"ok": False, "reason": f"`{old_text}` (spec line {first.line}): token `{self.spec_toks[k].text}` "
                            "differs from SIR"}
        js = [j for _, j in mapped]
        if js != list(range(js[0], js[-1] + 1)):
            extra = " ".join(t.text for i, t in enumerate(self.sir_toks[js[0]:js[-1] + 1], js[0]) if i not in js)
            return {"ok": False, "reason": f"`{old_text}` (spec line {first.line}): SIR has extra tokens `{extra}`"}
        s_tok, e_tok = self.sir_toks[js[0]], self.sir_toks[js[-1]]
        out = {
            "ok": True, "start": s_tok.start, "end": e_tok.end, "sir_line": s_tok.line, "spec_line": first.line,
            "method": "token alignment (expression)", "sir_text": self.sir_text[s_tok.start:e_tok.end],
        }
        if unmapped:
            out["dropped"] = " ".join(self.spec_toks[k].text for k in unmapped)
        return out


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for start, end, new in sorted(edits):
        if start < pos:
            raise ValueError("overlapping edits")
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


