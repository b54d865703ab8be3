"""The session model of ``crepair debug`` (Wolverine2 §2.1, §3, §6).

A :class:`Session` holds the program under debugging (its text, hot-patched
by each repair), a live :class:`~crepair.debug.driver.Driver`, the events
visited in each call of the function under repair (its entry, each loop
head visit, its exit), the specification being built (``spec`` commits the
current state, after the user's ``change`` s, to the event), checkpoints
(one per ``spec``; ``resume ID`` hops back to one) and the trusted
statements of ``concrete`` (specification refinement, §6.1).

What a ``spec`` commits: every node; at the entry the globals and the
parameters (the precondition); at a loop head the variables the user
``watch`` es or changed; at the exit the globals and the return value.
``next`` runs one statement; the events (the observation points of the
specification) are recorded as the run passes them.  Mistakes raise
:class:`SessionError` (one line); the session stays usable.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from crepair.debug.driver import Driver, DriverError
from crepair.debug.layout import layout
from crepair.debug.screen import describe, screening
from crepair.errors import CRepairError
from crepair.frontend import load_program
from crepair.heap.build import build_function
from crepair.heap.ir import loop_lines
from crepair.heap.states import Event, Spec, State


def mine_var(ev: dict, function: str) -> bool:
    """Whether the stop ``ev`` is inside ``function`` past its entry (its
    locals are in view)."""
    return ev["at"] == "loop" or (ev["at"] == "line" and ev.get("function") == function)


class SessionError(Exception):
    """A command could not be carried out; the message is one line."""


@dataclass(slots=True)
class Visit:
    """One event of the run: ``at`` ("entry", "loop", "exit"), ``line``
    (loop heads, 1-based), the observed ``state`` and the committed one
    (None: not committed)."""

    at: str
    line: int
    state: State
    committed: State | None = None


@dataclass(slots=True)
class Checkpoint:
    """What ``resume`` restores: the program ``text``, the driver ``log``,
    the visited ``calls`` (with their commits) and the watched variables."""

    ident: int
    text: str
    log: list
    calls: list
    watched: set
    trusted: set


@dataclass
class Session:
    """A debugging session of the C file ``path``, function ``function``;
    ``args``/``stdin``: the program's arguments and input file; ``timeout``:
    seconds per gdb request."""

    path: str
    function: str
    args: list[str] = field(default_factory=list)
    stdin: str | None = None
    timeout: float = 30.0
    text: str = ""
    driver: Driver | None = None
    event: dict | None = None
    previous: State | None = None
    user: set = field(default_factory=set)
    log: list = field(default_factory=list)  # ("advance", decision or None) / ("change", entity, value)
    calls: list = field(default_factory=list)  # per call: list[Visit]
    watched: set = field(default_factory=set)
    trusted: set = field(default_factory=set)
    checkpoints: list = field(default_factory=list)
    breakpoints: set = field(default_factory=set)

    def __post_init__(self):
        self.program = load_program(self.path, real_c=True)
        self.original = self.program.original
        self.text = self.text or self.original
        self.fn = build_function(self.program, self.function)
        self.lines = [lp.line for lp in self.fn.loops()]
        self._loops = (self.text, self.lines)
        self.screen = {"changed": {}}
        self.inner = {lp.line: loop_lines(lp.body) | {lp.line} for lp in self.fn.loops()}

    # -- running ---------------------------------------------------------------------------------------------
    def _restart(self) -> None:
        self.close()
        prog = load_program(self.path, text=self.text, real_c=True)
        try:
            fn = build_function(prog, self.function)
        except CRepairError as exc:
            raise SessionError(str(exc)) from None
        try:
            self.driver = Driver(prog, fn, self.text, self.lines, self.args, self.stdin, self.timeout,
                                 layout(prog, self.text, self.function))
        except CRepairError as exc:
            raise SessionError(str(exc)) from None
        self.event, self.previous, self.user = None, None, set()
        self.running, self.screen = self.text, {"changed": {}}
        self.running_loops = {lp.line: orig for lp, orig in zip(fn.loops(), self.lines)}

    def source(self, ev: dict) -> str:
        """The source line of the stop ``ev``: for a loop head the
        condition as the current text has it (loop events report the
        original's lines), otherwise the line of the running program."""
        line, text = ev["line"], getattr(self, "running", self.text)
        if ev["at"] == "loop" and line in self.lines:
            if self._loops[0] != self.text:
                prog = load_program(self.path, text=self.text, real_c=True)
                self._loops = (self.text, [lp.line for lp in build_function(prog, self.function).loops()])
            line, text = self._loops[1][self.lines.index(line)], self.text
        if ev["at"] == "line" and ev.get("function") == self.function and str(line) in self.screen["changed"]:
            return self.screen["changed"][str(line)] + ";   (hot-patched)"
        rows = text.splitlines()
        return rows[line - 1].strip() if 0 < line <= len(rows) else ""

    def hot_patch(self) -> str:
        """Go on with the repaired ``text`` (Wolverine2 §3): by instruction
        screening on the running program when the repair's edits are
        statements gdb can carry out (:mod:`crepair.debug.screen`), else by
        compiling the repaired program and replaying the run to the last
        event.  Returns one line saying which."""
        ev = self.event
        if ev is None or ev["at"] in ("crash", "end"):
            return "the next 'start' runs the repaired program"
        screen = screening(self.running, self.text, self.running_loops)
        if screen is not None:
            self.screen = screen
            self.event = {**self._request(cmd="screen", screen=screen), **{k: ev[k] for k in ("function", "part")
                                                                            if k in ev}}
            return f"hot-patched by instruction screening: {describe(screen)}"
        self.replay(self.log, False)
        return "hot-patched by recompiling and replaying the run to the last event"
    def _request(self, **req) -> dict:
        if self.driver is None:
            raise SessionError("the program is not running: 'start' it")
        try:
            return self.driver.request(**req)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        except DriverError as exc:
            self.driver, self.event = None, None
            raise SessionError(str(exc)) from None

    def _arrive(self, ev: dict) -> dict:
        if self.event is not None and self.event.get("state") is not None:
            self.previous = State.of_json(self.event["state"])
        self.event, self.user = ev, set()
        for e in ev.pop("passed", []) + [ev]:
            if e["at"] in ("entry", "loop", "exit"):
                st = State.of_json(e["state"])
                if e["at"] == "entry":
                    self.calls.append([])
                if self.calls:
                    self.calls[-1].append(Visit(e["at"], e["line"], st))
        return ev

    def start(self) -> dict:
        """Compile and run the program to its first statement (in ``main``;
        the paper's ``start``)."""
        self._restart()
        self.log, self.calls = [], []
        return self._arrive(self._request(cmd="start"))

    def advance(self, force: int | None = None) -> dict:
        """Run to the next event (``continue``, ``finish``, ``load`` and
        the replay of a recompiled hot-patch); ``force`` (at a loop head):
        1 run the loop body once more, 0 end the loop."""
        ev = self.event
        if ev is None or ev["at"] in ("crash", "end"):
            raise SessionError("the program is not running: 'start' it" if ev is None or ev["at"] == "end"
                               else "the program crashed: 'start' again or 'resume' a checkpoint")
        if force is not None and ev["at"] != "loop":
            raise SessionError("enter/leave: the program is not at a loop head (use next)")
        nxt = self._request(cmd="advance", force=force)
        decision = self._decision(ev["at"], ev["line"], nxt["at"], nxt["line"]) if ev["at"] == "loop" else None
        self.log.append(("advance", decision))
        return self._arrive(nxt)

    def next(self, force: int | None = None, kind: str = "next") -> dict:
        """Run one statement (Wolverine2 Table 1 ``next``; ``kind`` "step"
        enters calls).  At a loop head ``force`` decides the loop (1: into
        the body, 0: out of it — ``enter``/``leave``) and the stop is the
        first statement after the decision.  Entries, loop heads and exits
        reached are recorded as events; other stops are ``line`` stops
        (looked at and changed, not committed: ``spec`` says why)."""
        ev = self.event
        if ev is None or ev["at"] in ("crash", "end"):
            raise SessionError("the program is not running: 'start' it" if ev is None or ev["at"] == "end"
                               else "the program crashed: 'start' again or 'resume' a checkpoint")
        if force is not None and ev["at"] != "loop":
            raise SessionError("enter/leave: the program is not at a loop head (use next)")
        nxt = self._request(cmd=kind, force=force)
        self.log.append((kind, force))
        return self._arrive(nxt)

    def step(self) -> dict:
        """Run one statement, entering calls (Table 1 ``step``)."""
        return self.next(None, "step")

    def change(self, entity: str, value) -> dict:
        """Set ``entity`` (a variable or ``nK->field``) to ``value`` (node
        name, None for NULL, or an int); the type must fit."""
        ev = self.event
        if ev is None or ev["at"] not in ("entry", "loop", "exit", "line"):
            raise SessionError("change: the program is not stopped in " + self.function)
        st = State.of_json(ev["state"])
        if "->" in entity:
            node, fld = entity.split("->", 1)
            if node not in st.nodes:
                raise SessionError(f"change: no node {node!r} (nodes: {', '.join(st.nodes) or 'none'})")
            if fld not in st.nodes[node]:
                raise SessionError(f"change: a node has no field {fld!r} (fields: {', '.join(st.nodes[node])})")
            tag = next(t for t, fs in self.fn.structs.items() if fld in fs)
            ty, key = self.fn.structs[tag][fld], f"{node}.{fld}"
        else:
            mine = mine_var(ev, self.function)
            visible = {**st.vars, **{v: 0 for v in self.fn.locals}} if mine else st.vars
            if entity not in visible or entity == "return":
                raise SessionError(f"change: {entity!r} is not a variable of {self.function} here "
                                   f"(variables: {', '.join(v for v in st.vars if v != 'return')})")
            ty, key = self.fn.variables[entity], entity
        if ty == "int" and not isinstance(value, int):
            raise SessionError(f"change: {entity} is an integer; give a number")
        if ty != "int":
            if isinstance(value, int):
                raise SessionError(f"change: {entity} is a pointer; give a node (n1, n2, ...) or NULL")
            if value is not None and value not in st.nodes:
                raise SessionError(f"change: no node {value!r} (nodes: {', '.join(st.nodes) or 'none'})")
        prev, user = self.previous, self.user | {key}
        self.event = self._request(cmd="change", entity=entity, value=value)
        self.previous, self.user = prev, user
        if ev["at"] != "line":
            self.calls[-1][-1].state = State.of_json(self.event["state"])
        self.log.append(("change", entity, value))
        if "->" not in entity and mine_var(ev, self.function):
            self.watched.add(entity)
        return self.event

    # -- the specification -----------------------------------------------------------------------------------
    def commit(self) -> int:
        """Commit the current state to the specification; returns the new
        checkpoint's id (1-based)."""
        ev = self.event
        if ev is not None and ev["at"] == "line":
            raise SessionError(f"spec: line {ev['line']} is not an observation point; the heap engine's "
                               f"specification holds states at {self.function}'s entry, loop heads and exit "
                               "(next on to one)")
        if ev is None or ev["at"] not in ("entry", "loop", "exit"):
            raise SessionError("spec: the program is not stopped in " + self.function)
        visit = self.calls[-1][-1]
        st = visit.state
        if visit.at == "loop":
            keep = {v: x for v, x in st.vars.items() if v in self.watched}
        elif visit.at == "entry":
            keep = {v: x for v, x in st.vars.items() if v in self.fn.globals or v in self.fn.params}
        else:
            keep = {v: x for v, x in st.vars.items() if v in self.fn.globals or v == "return"}
        visit.committed = State(keep, {n: dict(fs) for n, fs in st.nodes.items()}, st.freed)
        cp = Checkpoint(len(self.checkpoints) + 1, self.text, list(self.log), copy.deepcopy(self.calls),
                        set(self.watched), set(self.trusted))
        self.checkpoints.append(cp)
        return cp.ident

    def spec(self) -> Spec | None:
        """The specification committed so far (None: nothing committed):
        one trace per call up to the last call with a commit, each up to
        its last committed event; the entry always carries its state (the
        precondition), uncommitted events fix control flow only."""
        last = max((i for i, c in enumerate(self.calls) if any(v.committed for v in c)), default=None)
        if last is None:
            return None
        traces = []
        for c in self.calls[:last + 1]:
            end = max((k for k, v in enumerate(c) if v.committed), default=0)
            trace = []
            for k, v in enumerate(c[:end + 1]):
                st = v.committed or (v.state if k == 0 else None)
                if k == 0 and v.committed is None:
                    st = State({x: y for x, y in st.vars.items() if x in self.fn.globals or x in self.fn.params},
                               st.nodes, st.freed)
                trace.append(Event(v.at, v.line if v.at == "loop" else 0, st))
            traces.append(tuple(trace))
        return Spec(self.function, tuple(traces))

    def replay(self, log: list, changes: bool) -> dict:
        """Restart the current text and redo ``log``: with ``changes`` (the
        same text, ``resume``) every step and change as it was made;
        without (a hot-patch) the visited events, each loop decision forced
        as it was taken — the run stops at the last event reached."""
        visits = [v for c in self.calls for v in c]
        self._restart()
        calls, self.calls = self.calls, []
        self._arrive(self._request(cmd="start"))
        if changes:
            for item in log:
                ev = self.event
                if ev is None or ev["at"] in ("crash", "end"):
                    break
                if item[0] == "change":
                    self.event = self._request(cmd="change", entity=item[1], value=item[2])
                    if ev["at"] in ("entry", "loop", "exit"):
                        self.calls[-1][-1].state = State.of_json(self.event["state"])
                else:
                    force = item[1] if ev["at"] == "loop" else None
                    self._arrive(self._request(cmd=item[0], force=force))
            self.log = list(log)
        else:
            self.log = [("advance", None)] if self.event["at"] == "line" and visits and not self.calls else []
            if self.log:
                self._arrive(self._request(cmd="advance"))
            for prev, cur in zip(visits, visits[1:]):
                if self.event is None or self.event["at"] in ("crash", "end"):
                    break
                force = self._decision(prev.at, prev.line, cur.at, cur.line) if prev.at == "loop" else None
                self._arrive(self._request(cmd="advance", force=force))
                self.log.append(("advance", force))
        for mine, old in zip(self.calls, calls):  # the commits stay
            for v, w in zip(mine, old):
                v.committed = w.committed
        return self.event

    def _decision(self, at: str, line: int, nxt_at: str, nxt_line: int) -> int:
        """The decision taken at loop head ``line`` when the next event is
        (``nxt_at``, ``nxt_line``): 1 the body ran again, 0 the loop ended."""
        return int(nxt_at == "loop" and nxt_line in self.inner.get(line, {line}))

    def resume(self, ident: int) -> dict:
        """Checkpoint-based hopping (§6.2): back to checkpoint ``ident``
        (1-based), its program text, specification and position."""
        cp = next((c for c in self.checkpoints if c.ident == ident), None)
        if cp is None:
            have = ", ".join(str(c.ident) for c in self.checkpoints) or "none yet"
            raise SessionError(f"resume: no checkpoint {ident} (checkpoints: {have})")
        self.text, self.watched, self.trusted = cp.text, set(cp.watched), set(cp.trusted)
        self.calls = copy.deepcopy(cp.calls)
        return self.replay(cp.log, True)

    def load(self, spec: Spec) -> dict:
        """Take ``spec`` (a saved specification of this function) as the
        session's: restart and replay its control flow (its loop decisions
        forced), committing its states.  Raises :class:`SessionError` when
        the run does not follow it."""
        from crepair.heap.execute import decisions

        if spec.function != self.function:
            raise SessionError(f"load: the specification is for {spec.function}, the session debugs {self.function}")
        force = decisions(spec, self.fn)
        self.start()
        if self.event["at"] == "line" and not self.calls:
            self.advance()
        self.checkpoints, k = [], 0
        for i, trace in enumerate(spec.traces):
            for j, want in enumerate(trace):
                if i or j:
                    at = self.event["at"]
                    self.advance(force.get(k - 1) if at == "loop" else None)
                ev = self.event
                if (ev["at"], ev["line"] if ev["at"] == "loop" else 0) != (want.at, want.line):
                    raise SessionError(f"load: call {i + 1} event {j}: the run reaches {ev['at']} "
                                       f"{ev.get('line') or ''} instead of {want.at} {want.line or ''}")
                if want.at == "loop":
                    k += 1
                if want.state is not None:
                    for entity in want.state.differences(self.calls[-1][-1].state):  # the user's changes, again
                        node, _, fld = entity.partition(".")
                        value = want.state.nodes[node][fld] if fld else want.state.vars[node]
                        if entity != "return":
                            self.change(f"{node}->{fld}" if fld else node, value)
                    self.calls[-1][-1].committed = want.state
                    self.watched |= set(want.state.vars) - set(self.fn.globals) - {"return"}
        return self.event

    def close(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None
