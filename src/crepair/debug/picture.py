"""Box-and-arrow pictures of a memory graph (Wolverine2 §2.1, Fig. 2).

A picture shows the variables pointing into the heap, each node n1, n2, …
(in order of allocation, as the session names them) with its fields,
arrows to other nodes and NULL.  What changed since the previous state is
marked ``*`` (the program did it) and what the user changed with
``change`` is marked ``!`` — in red and blue in Graphviz.  Input: a
:class:`crepair.heap.states.State`; output: text (the terminal) or DOT
(``--pictures DIR``; SVG through the ``dot`` program when installed).
"""

from __future__ import annotations

from pathlib import Path

from crepair import toolchain
from crepair.errors import MissingTool
from crepair.heap.states import State


def _show(v) -> str:
    return "NULL" if v is None else str(v)


def changed(prev: State | None, now: State) -> set[str]:
    """Entities (``var`` / ``nK.field``) of ``now`` whose value differs
    from ``prev`` (every entity of a node ``prev`` did not have); empty
    when there is no ``prev``."""
    if prev is None:
        return set()
    out = {v for v, x in now.vars.items() if prev.vars.get(v, "?") != x}
    for n, fs in now.nodes.items():
        out |= {f"{n}.{f}" for f, x in fs.items() if prev.nodes.get(n, {}).get(f, "?") != x}
    return out


def _mark(key: str, moved: set[str], user: set[str]) -> str:
    return "!" if key in user else "*" if key in moved else ""


def text_picture(now: State, prev: State | None = None, user: set[str] = frozenset()) -> str:
    """The terminal picture: one line of variables, then one box per node
    with the variables pointing into it; ``user``: entities the user
    changed (``var`` / ``nK.field``)."""
    moved = changed(prev, now)
    into: dict[str, list[str]] = {}
    for v, x in now.vars.items():
        if isinstance(x, str):
            into.setdefault(x, []).append(v)
    vs = [f"{v}{_mark(v, moved, user)} -> {_show(x)}" if not isinstance(x, int) else f"{v}{_mark(v, moved, user)} = {x}"
          for v, x in now.vars.items()]
    lines = ["  " + ("   ".join(vs) if vs else "(no variables)")]
    for n, fs in now.nodes.items():
        cells = []
        for f, x in fs.items():
            arrow = "=" if isinstance(x, int) else "->"
            cells.append(f"{f}{_mark(f'{n}.{f}', moved, user)} {arrow} {_show(x)}")
        pointed = f"   <- {', '.join(into[n])}" if n in into else ""
        lines.append(f"  [{n}| {' | '.join(cells)} ]{pointed}")
    if now.freed:
        lines.append(f"  freed: {', '.join(now.freed)}")
    if moved or user:
        lines.append("  (* changed by the program since the last state, ! changed by you)")
    return "\n".join(lines)


def _q(s: str) -> str:
    return '"' + s.replace('"', '\\"') + '"'


def dot_picture(now: State, prev: State | None = None, user: set[str] = frozenset(), title: str = "") -> str:
    """The Graphviz DOT text of the picture: record nodes with one port per
    field, plaintext variables, one NULL point per arrow to NULL; changed
    entities red (program) or blue (user), bold."""
    moved = changed(prev, now)
    color = lambda key: ', color="blue", fontcolor="blue", penwidth=2' if key in user else (
        ', color="red", fontcolor="red", penwidth=2' if key in moved else "")
    out = ["digraph heap {", "  rankdir=LR;", '  node [fontname="monospace"];']
    if title:
        out.append(f"  label={_q(title)}; labelloc=t;")
    nulls = 0
    for n, fs in now.nodes.items():
        ports = " | ".join(f"<{f}> {f}" + (f" = {x}" if isinstance(x, int) else "") for f, x in fs.items())
        out.append(f"  {n} [shape=record, label={_q('{' + n + (' | ' + ports if ports else '') + '}')}];")
    for n, fs in now.nodes.items():
        for f, x in fs.items():
            if isinstance(x, int):
                continue
            target = x
            if x is None:
                nulls += 1
                target = f"null{nulls}"
                out.append(f'  {target} [shape=plaintext, label="NULL", fontsize=10];')
            out.append(f"  {n}:{f} -> {target} [label={_q(f)}{color(f'{n}.{f}')}];")
    for v, x in now.vars.items():
        name = f"var_{v}"
        label = f"{v} = {x}" if isinstance(x, int) else v
        out.append(f"  {name} [shape=plaintext, label={_q(label)}{color(v)}];")
        if not isinstance(x, int):
            target = x
            if x is None:
                nulls += 1
                target = f"null{nulls}"
                out.append(f'  {target} [shape=plaintext, label="NULL", fontsize=10];')
            out.append(f"  {name} -> {target} [style=dashed{color(v)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def render_svg(dot: str) -> tuple[str | None, str]:
    """(the SVG Graphviz's ``dot`` draws for ``dot``, "") or (None, why
    it was not drawn: ``dot`` missing, failing or timing out after 30 s)."""
    try:
        exe = toolchain.find("dot", "Graphviz 'dot' is not installed (apt-get install graphviz)")
    except MissingTool as exc:
        return None, f"SVG skipped: {exc}"
    try:
        res = toolchain.run([exe, "-Tsvg"], input=dot, text=True, timeout=30)
    except MissingTool as exc:  # found but cannot be started
        return None, f"SVG skipped: dot failed: {exc}"
    if res.timed_out:
        return None, "SVG skipped: dot failed: no picture within 30 s"
    if res.returncode != 0:
        return None, f"SVG skipped: dot failed: {res.stderr.strip()[:200]}"
    return res.stdout, ""


def write_picture(folder: Path, stem: str, dot: str) -> tuple[list[Path], str]:
    """Write ``stem.dot`` in ``folder`` and, when the ``dot`` program is
    installed, ``stem.svg``.  Returns the files written and why SVG was
    skipped ("" when it was not)."""
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / f"{stem}.dot"
    src.write_text(dot)
    drawn, why = render_svg(dot)
    if drawn is None:
        return [src], why
    svg = folder / f"{stem}.svg"
    svg.write_text(drawn)
    return [src, svg], ""
