"""Program states as memory graphs, and specifications as traces of them.

A state (Wolverine2 §3: variables σ_V and heap nodes σ_H with fields σ_F,
pointers kept symbolic, integers concrete) is a :class:`State`: variable ->
value and node -> field -> value, where a pointer value is a node name
``"n1"``, ``"n2"``, … (nodes are named in order of allocation over the
whole run, so names are stable across program points) or None for NULL, and
an integer is an ``int``.  An entity left out is not specified.

A :class:`Spec` is what the ``spec`` commands of a debugging session
collect: a trace of each call of the function under repair as
:class:`Event` s —
its ``entry`` (the precondition), each visit of a loop head (``loop``, by
the line of the loop keyword; the k-th event of a loop is its k-th
visit) and its ``exit`` — each with the expected state or None.  It is
stored as JSON::

    {"function": "reverse",
     "trace": [{"at": "entry", "state": {"vars": {"head": "n4"},
                                        "nodes": {"n4": {"next": "n3", "prev": null}}}},
               {"at": "loop", "line": 14, "state": {...}},
               {"at": "exit", "state": {...}}]}

Forced control flow (the ``enter``/``leave`` commands) is the trace itself:
a loop visit followed by a visit of the same loop (or of a loop inside it)
was entered, any other was left.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from crepair.errors import BadInput

Value = str | int | None


@dataclass(frozen=True, slots=True)
class State:
    """A memory graph: ``vars`` (name -> value) and ``nodes`` (node name ->
    field -> value); ``freed``: names of freed nodes."""

    vars: dict[str, Value] = field(default_factory=dict)
    nodes: dict[str, dict[str, Value]] = field(default_factory=dict)
    freed: tuple[str, ...] = ()

    def as_json(self) -> dict:
        out = {"vars": dict(self.vars), "nodes": {k: dict(v) for k, v in self.nodes.items()}}
        if self.freed:
            out["freed"] = list(self.freed)
        return out

    @staticmethod
    def of_json(data: dict, where: str = "state") -> "State":
        if not isinstance(data, dict):
            raise BadInput(f"{where}: a state is an object with 'vars' and 'nodes'")
        vars_ = data.get("vars", {})
        nodes = data.get("nodes", {})
        for name, value in list(vars_.items()) + [(f"{n}.{f}", v) for n, fs in nodes.items() for f, v in fs.items()]:
            if not (value is None or isinstance(value, int) or (isinstance(value, str) and node_number(value))):
                raise BadInput(f"{where}: value of {name} must be null, an integer or a node name n1, n2, ...")
        for n in nodes:
            if not node_number(n):
                raise BadInput(f"{where}: node names are n1, n2, ... (got {n!r})")
        return State(dict(vars_), {k: dict(v) for k, v in nodes.items()}, tuple(data.get("freed", ())))

    def differences(self, other: "State") -> list[str]:
        """Entities specified in ``self`` whose value in ``other`` differs
        (or is missing), as ``name`` / ``node.field`` strings, sorted."""
        out = [v for v, x in self.vars.items() if other.vars.get(v, "?") != x]
        for n, fs in self.nodes.items():
            got = other.nodes.get(n, {})
            out += [f"{n}.{f}" for f, x in fs.items() if got.get(f, "?") != x]
        return sorted(out)


def node_number(name: str) -> int:
    """The k of node name ``"nk"`` (k >= 1), else 0."""
    if isinstance(name, str) and len(name) > 1 and name[0] == "n" and name[1:].isdigit() and int(name[1:]) > 0:
        return int(name[1:])
    return 0


@dataclass(frozen=True, slots=True)
class Event:
    """One point of the trace: ``at`` is "entry", "loop" (with the loop's
    ``line``, 1-based) or "exit"; ``state`` the expected state (None: the
    point only fixes control flow)."""

    at: str
    line: int = 0
    state: State | None = None

    def as_json(self) -> dict:
        out: dict = {"at": self.at}
        if self.at == "loop":
            out["line"] = self.line
        out["state"] = None if self.state is None else self.state.as_json()
        return out


@dataclass(frozen=True, slots=True)
class Spec:
    """A specification: the ``function`` under repair and its ``traces``,
    one per call of the function in the run (each starts with the call's
    entry, with a state: its precondition)."""

    function: str
    traces: tuple[tuple[Event, ...], ...]

    def as_json(self) -> dict:
        return {"function": self.function, "traces": [[e.as_json() for e in t] for t in self.traces]}

    def prefix(self, n: int) -> "Spec":
        """The first ``n`` events of the first trace alone (what a session
        had collected at an earlier ``repair`` call)."""
        return Spec(self.function, (self.traces[0][:n],))

    @property
    def events(self) -> int:
        return sum(len(t) for t in self.traces)


def load_spec(path: str | Path) -> Spec:
    """Read a specification file (JSON, format above; ``"trace": [...]``
    for one call, ``"traces": [[...], ...]`` for several).  Raises
    ``BadInput`` naming the file for anything malformed."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise BadInput(f"{path}: cannot read the states file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    return spec_of_json(data, str(path))


def spec_of_json(data: dict, where: str = "spec") -> Spec:
    traces = data.get("traces", [data.get("trace")]) if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("function"), str) or not traces or not all(
            isinstance(t, list) for t in traces):
        raise BadInput(f"{where}: a states file is an object with 'function' and 'trace' (or 'traces')")
    out = []
    for i, trace in enumerate(traces):
        events = []
        for k, e in enumerate(trace):
            at = e.get("at") if isinstance(e, dict) else None
            if at not in ("entry", "loop", "exit"):
                raise BadInput(f"{where}: trace {i} event {k}: 'at' must be entry, loop or exit")
            state = None if e.get("state") is None else State.of_json(e["state"], f"{where}: trace {i} event {k}")
            events.append(Event(at, int(e.get("line", 0)), state))
        if not events or events[0].at != "entry" or events[0].state is None:
            raise BadInput(f"{where}: trace {i} starts with the function's entry and its state (the precondition)")
        if any(e.at == "entry" for e in events[1:]) or any(e.at == "exit" for e in events[:-1]):
            raise BadInput(f"{where}: trace {i}: one call of the function: entry first, exit (if any) last")
        out.append(tuple(events))
    return Spec(data["function"], tuple(out))


def save_spec(spec: Spec, path: str | Path) -> None:
    """Write ``spec`` as JSON (indented, keys in order)."""
    Path(path).write_text(json.dumps(spec.as_json(), indent=1) + "\n")
