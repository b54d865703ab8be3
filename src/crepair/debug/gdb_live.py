"""Runs inside gdb (``gdb -q -nx -batch -x gdb_live.py``): the live half of
a ``crepair debug`` session (Wolverine2 §3, the driver).

Unlike :mod:`crepair.heap.gdb_helper` (one batch run), this helper keeps the
program stopped between requests; both read the memory graph with
``crepair/toolchain/gdb_graph.py`` and are started by
:mod:`crepair.toolchain.gdb`.  It reads one JSON request per line from
the file descriptor named by CREPAIR_DEBUG_IN and answers one JSON line on
CREPAIR_DEBUG_OUT; gdb's own output goes elsewhere, and the program's
stdin/stdout are files (``stdin``/``stdout`` of the configuration), so the
three never mix.  Configuration: the JSON file CREPAIR_DEBUG_CONFIG with
``program``, ``function``, ``globals``, ``node_type``, ``fields``,
``stdin``, ``stdout``, ``args`` (the program's arguments, a string).

Requests (``cmd``): ``start`` (run to the first statement of ``main``),
``advance`` (with ``force``: 0/1 at a loop head; runs to the next event:
loop head, exit, next call's entry, crash or the end of the program),
``next`` / ``step`` (one statement, see :func:`statement`; ``force`` at a
loop head: the ``enter``/``leave`` commands), ``screen`` (hot-patching:
the actions of :func:`crepair.debug.screen.screening`, carried out from
then on), ``change`` (``entity``: a variable or
``nK->field``; ``value``: a node name, null or an integer), ``quit``.
Every answer is ``{"ok": true, "event": {...}}`` or ``{"ok": false,
"error": "..."}``; an event is ``{"at", "line", "call", "state"}`` (a
``line`` stop also ``function`` and, on a line of several calls, ``part``:
[statement, of]; a stepping answer also ``passed``: the entry events run
through) with the
memory graph as in :mod:`crepair.heap.states` (nodes n1, n2, … in order of
allocation, via the harness's ``__crepair_nodes``).
"""

import json
import os
import sys

try:
    import gdb
except ImportError:  # imported outside gdb: nothing to do
    gdb = None
else:
    sys.path.append(os.environ["CREPAIR_GDB_LIB"])  # crepair/toolchain: the memory graph
    import gdb_graph

CFG = json.load(open(os.environ["CREPAIR_DEBUG_CONFIG"])) if gdb is not None else {}
NO_SCREEN = {"changed": {}, "deleted": [], "guards": {}, "after": {}, "before": {}}
S = {"failed": None, "screen": NO_SCREEN, "inside": False, "calls": 0, "exit": None, "signal": None,
     "where": None, "event": None}


def on_stop(event):
    if isinstance(event, gdb.SignalEvent):
        S["signal"] = event.stop_signal


def frame_of_function():
    """The frame of the function under repair (None at its exit)."""
    try:
        f = gdb.selected_frame()
    except gdb.error:
        return None
    while f is not None:
        if f.name() == CFG["function"]:
            return f
        f = f.older()
    return None


def state(with_locals):
    return gdb_graph.graph(CFG, frame_of_function() if S["inside"] else None, with_locals)


class Exit(gdb.FinishBreakpoint if gdb is not None else object):
    def stop(self):
        rv = None
        try:
            if self.return_value is not None:
                rv = gdb_graph.value(self.return_value, gdb_graph.table()[0])
        except Exception:
            pass
        S["exit"] = {"return": rv}
        return True

    def out_of_scope(self):
        S["inside"] = False


def event(at, line=0, st=None):
    S["event"] = {"at": at, "line": line, "call": S["calls"], "state": st}
    return S["event"]


def advance():
    """Continue to the next event of the function under repair."""
    while True:
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error as exc:
            return event("end", 0, None) if "not being run" in str(exc) else event("crash", 0, None)
        found = classify()
        if found is not None:
            return found


def classify():
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        return event("end")
    if S["signal"]:
        S["where"] = "%s in %s" % (S["signal"], frame.name())
        ev = event("crash")
        ev["where"] = S["where"]
        return ev
    if S["exit"] is not None:
        st = state(False)
        if S["exit"]["return"] is not None:
            st["vars"]["return"] = S["exit"]["return"]
        S["exit"], S["inside"] = None, False
        return event("exit", 0, st)
    name = frame.name()
    if name == CFG["function"] and not S["inside"]:
        S["inside"] = True
        S["calls"] += 1
        Exit(frame, internal=True)
        return event("entry", 0, state(False))
    if name == "__crepair_loop" and S["inside"] and frame.older().name() == CFG["function"]:
        return event("loop", int(frame.read_var("line")), state(True))
    return None


def statement(kind, force):
    """``next``/``step``: run one statement (Wolverine2 Table 1), gdb's
    ``next``/``step`` at the current frame except on a line of several
    calls (one call each, by ``step`` and ``finish``); at a loop head the
    hook returns first (its decision forced by ``force``: 1 enter, 0
    leave).  Returns the stop, see :func:`settle`."""
    ev = S["event"]
    if ev is None or ev["at"] in ("end", "crash"):
        raise ValueError("the program is not running (start it)")
    if force is not None and ev["at"] != "loop":
        raise ValueError("enter/leave: the program is not at a loop head")
    if ev["at"] == "loop":
        decide(ev, force)
        gdb.execute("finish", to_string=True)
        gdb.execute("next", to_string=True)
        return settle([])
    frame = gdb.selected_frame()
    if ev["at"] == "exit" and frame.find_sal().pc == frame.pc():
        return settle([])  # the call returned to the first instruction of the caller's next line: a stop there
    line = frame.find_sal().line
    calls = CFG["multi"].get(str(line), 1)
    if kind == "next" and calls > 1 and calls_done(frame) < calls - 1:
        gdb.execute("step", to_string=True)
        inner = gdb.selected_frame()
        if inner != frame and inner.older() == frame and inner.name() not in (CFG["function"], "__crepair_loop"):
            gdb.execute("finish", to_string=True)
        return settle([])
    mine = frame.name() == CFG["function"] and S["inside"]
    if mine and (str(line) in S["screen"]["changed"] or line in S["screen"]["deleted"]):
        sal = frame.find_sal()  # hot-patching: skip the line, carry out the repair's statement instead
        if str(line) in S["screen"]["changed"] and not run_inserted([S["screen"]["changed"][str(line)]]):
            return settle([])
        gdb.execute("set var $pc = %d" % (sal.last + 1), to_string=True)
    else:
        gdb.execute(kind, to_string=True)
    if mine and str(line) in S["screen"]["after"] and not S["signal"] and gdb.selected_frame() == frame:
        run_inserted(S["screen"]["after"][str(line)])
    return settle([])


def calls_done(frame):
    """How many calls of the program's own functions the current line has
    made so far in ``frame`` (the call instructions between the line's
    start and the pc): the statements done on a line of several calls."""
    sal, block = frame.find_sal(), frame.block()
    while block.function is None and block.superblock is not None:
        block = block.superblock
    starts = [e.pc for e in sal.symtab.linetable().line(sal.line) or () if block.start <= e.pc <= frame.pc()]
    if not starts or frame.pc() <= min(starts):
        return 0
    code = frame.architecture().disassemble(min(starts), frame.pc() - 1)
    return sum(1 for insn in code if insn["asm"].startswith("call") and "__crepair" not in insn["asm"])


def run_inserted(stmts):
    """Carry out statements a repair inserted or changed (hot-patching,
    §3), in the frame of the function under repair; a statement gdb cannot
    carry out (e.g. it dereferences NULL) is noted in S["failed"] and the
    run stays where it is."""
    for stmt in stmts:
        try:
            gdb.parse_and_eval(stmt)
        except gdb.error as exc:
            S["failed"] = "the repaired statement '%s;' fails here: %s" % (stmt, str(exc).strip().splitlines()[0])
            return False
    return True


def decide(ev, force):
    """At a loop event: set the hook's decision ``c`` — ``force`` (enter
    1 / leave 0), else a repaired condition evaluated in the function's
    frame (hot-patching), else leave it."""
    guard = S["screen"]["guards"].get(str(ev["line"]))
    if force is None and guard is not None:
        hook = gdb.selected_frame()
        hook.older().select()
        force = int(bool(int(gdb.parse_and_eval(guard))))
        hook.select()
    if force is not None:
        gdb.execute("set var c = %d" % int(force), to_string=True)


def ours(frame):
    """Whether ``frame`` runs the program's own source (the harness keeps
    its lines and file name).  Both sides resolved: gdb names a file given
    bare (``prog.c``) by its absolute path, ``./prog.c`` as given."""
    sal = frame.find_sal()
    if sal.symtab is None:
        return False
    try:
        name = sal.symtab.fullname()
    except (gdb.error, RuntimeError):
        name = sal.symtab.filename
    return os.path.realpath(name) == CFG["source"]


def settle(passed):
    S["arrived"] = None
    try:
        return settle_on(passed)
    finally:
        S["failed"] = None


def settle_on(passed):
    """Classify where the program stopped after a stepping command: an
    event (``entry`` is passed on to the first statement, and kept in the
    answer's ``passed``), the function's loop line (run on into the hook:
    a loop event), a line without a statement (run through it), or a
    ``line`` stop (``function``: the frame's function)."""
    for _ in range(1000):
        if S["failed"]:
            break
        ev = classify()
        if ev is not None and ev["at"] == "entry":
            passed.append(ev)
            continue
        if ev is None:
            frame = gdb.selected_frame()
            line = frame.find_sal().line
            mine = frame.name() == CFG["function"] and S["inside"]
            if mine and str(line) in S["screen"]["before"] and S["arrived"] != (line, frame.pc()):
                S["arrived"] = (line, frame.pc())
                if not run_inserted(S["screen"]["before"][str(line)]):
                    break
            if mine and line in CFG["loop_lines"]:
                gdb.execute("continue", to_string=True)
                continue
            if frame.name().startswith("__crepair_"):  # the harness's allocation wrappers: not the user's code
                gdb.execute("finish", to_string=True)
                continue
            if not ours(frame):  # out of main into the C library, or a library call: run on
                try:
                    up, caller = frame.older(), False
                    while up is not None and not caller:
                        caller, up = ours(up), up.older()
                    gdb.execute("finish" if caller else "continue", to_string=True)
                except gdb.error:
                    pass
                continue
            if mine and line in CFG["skip"]:
                gdb.execute("next", to_string=True)
                continue
            ev = event("line", line, state(mine))
            ev["function"] = frame.name()
            if CFG["multi"].get(str(line), 1) > 1:
                ev["part"] = [calls_done(frame) + 1, CFG["multi"][str(line)]]
        ev["passed"] = passed
        return ev
    if not S["failed"]:
        raise ValueError("the run does not settle at a statement")
    frame = gdb.selected_frame()
    ev = event("line", frame.find_sal().line, state(True))
    ev["function"], ev["error"], ev["passed"] = frame.name(), S["failed"], passed
    return ev


def change(entity, new):
    names, _ = gdb_graph.table()
    addrs = {n: a for a, n in names.items()}
    if new is None:
        text = "0"
    elif isinstance(new, str):
        if new not in addrs:
            raise ValueError("no node %s (or it was freed)" % new)
        text = "%d" % addrs[new]
    else:
        text = "%d" % int(new)
    if "->" in entity:
        node, fld = entity.split("->")
        if node not in addrs:
            raise ValueError("no node %s (or it was freed)" % node)
        target = "((%s *) %d)->%s" % (CFG["node_type"], addrs[node], fld)
    else:
        target = entity
    frame, top = frame_of_function() if S["inside"] else None, gdb.selected_frame()
    if frame is not None:
        frame.select()
    try:
        t = gdb.parse_and_eval(target).type
        gdb.execute("set var %s = (%s) %s" % (target, t, text), to_string=True)
    finally:
        top.select()
    old = S["event"]["state"] or {"vars": {}}
    st = state(S["event"]["at"] in ("loop", "line"))
    if "return" in old["vars"]:
        st["vars"]["return"] = old["vars"]["return"]
    S["event"]["state"] = st
    return S["event"]


def handle(req):
    cmd = req.get("cmd")
    if cmd == "start":
        gdb.execute("file " + CFG["program"], to_string=True)
        gdb.execute("break " + CFG["function"], to_string=True)
        gdb.execute("break __crepair_loop", to_string=True)
        if CFG["function"] != "main":
            gdb.execute("tbreak main", to_string=True)
        gdb.execute("run %s < %s > %s 2>&1" % (CFG["args"], CFG["stdin"], CFG["stdout"]), to_string=True)
        return settle([])
    if cmd == "advance":
        ev = S["event"]
        if ev is None or ev["at"] in ("end", "crash"):
            raise ValueError("the program is not running (start it)")
        if req.get("force") is not None and ev["at"] != "loop":
            raise ValueError("enter/leave: the program is not at a loop head")
        if ev["at"] == "loop":
            decide(ev, req.get("force"))
        return advance()
    if cmd in ("next", "step"):
        return statement(cmd, req.get("force"))
    if cmd == "screen":
        S["screen"] = dict(NO_SCREEN, **req["screen"])
        return S["event"]
    if cmd == "change":
        return change(req["entity"], req["value"])
    raise ValueError("unknown request %r" % cmd)


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.events.stop.connect(on_stop)
    rd = os.fdopen(int(os.environ["CREPAIR_DEBUG_IN"]), "r")
    wr = os.fdopen(int(os.environ["CREPAIR_DEBUG_OUT"]), "w")
    for line in rd:
        req = json.loads(line)
        if req.get("cmd") == "quit":
            break
        try:
            ans = {"ok": True, "event": handle(req)}
        except Exception as exc:  # gdb.error and bad requests: an answer, never a gdb prompt
            ans = {"ok": False, "error": str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}
        wr.write(json.dumps(ans) + "\n")
        wr.flush()
    try:
        gdb.execute("kill", to_string=True)
    except gdb.error:
        pass


if gdb is not None:
    main()
