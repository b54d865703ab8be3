"""The specification states of a heap repair as pictures for the HTML report.

A heap repair (Wolverine2, Verma & Roy: the scheme ``heap``) is checked
against program states: memory graphs at a function's entry, loop heads
and exit (:mod:`crepair.heap.states`).  :func:`state_pictures` draws each
state of a specification file as a box-and-arrow SVG (Graphviz ``dot``,
the drawing of :func:`crepair.debug.picture.dot_picture`: nodes n1, n2, …
in order of allocation, one port per field, the entities that changed
since the state before in red), for ``templates/report.html.j2``.
"""

from __future__ import annotations

import re

_XML_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.S)


def svg_of_dot(dot: str) -> str | None:
    """The inline SVG element Graphviz draws for ``dot`` (its XML prologue
    and DOCTYPE removed); None when ``dot`` is not installed or fails."""
    from crepair.debug.picture import render_svg

    drawn, _ = render_svg(dot)
    return None if drawn is None else _XML_PROLOGUE.sub("", drawn, count=1)


def state_pictures(spec) -> tuple[list[dict], str]:
    """``([{"caption", "svg"}, ...], note)``: one picture per state of the
    specification ``spec`` (a :class:`crepair.heap.states.Spec`, or the
    path of its JSON file), calls numbered from 1, in trace order; ``note``
    says why there are none or some are missing ("" when all were drawn).
    Never raises: a report is written even when the states cannot be read."""
    from crepair.debug.picture import dot_picture
    from crepair.errors import CRepairError
    from crepair.heap.states import load_spec

    if isinstance(spec, str):
        try:
            spec = load_spec(spec)
        except (CRepairError, OSError, ValueError) as exc:
            return [], f"the states could not be read: {exc}"
    out, missing = [], 0
    for call, trace in enumerate(spec.traces, start=1):
        prev = None
        for event in trace:
            if event.state is None:
                continue
            where = {"entry": "entry", "exit": "exit"}.get(event.at, f"loop head, line {event.line}")
            caption = f"{spec.function}, call {call}: {where}"
            svg = svg_of_dot(dot_picture(event.state, prev))
            prev = event.state
            if svg is None:
                missing += 1
                continue
            out.append({"caption": caption, "svg": svg})
    note = f"{missing} picture(s) not drawn: Graphviz 'dot' is not installed or failed" if missing else ""
    return out, note
