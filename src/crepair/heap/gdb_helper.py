"""Runs inside gdb (``gdb -batch -x gdb_helper.py``): records the memory
graph of the function under repair at each call's entry, at each loop-head visit
(the harness's ``__crepair_loop`` calls) and at its exit, one JSON line per
event (prefix ``@@CREPAIR ``).  Its configuration is the JSON file named by
the environment variable CREPAIR_HEAP_CONFIG: ``program``, ``function``,
``globals`` (names), ``node_type`` (e.g. "struct node"), ``fields`` (field
-> "ptr"/"int"), ``limit`` (events to record), ``calls`` (calls to record), ``force`` (loop event
number -> 0/1: the loop's decision is forced, the ``enter``/``leave``
commands), ``stdout`` (file for the program's output).  The memory graph
is read by ``crepair/toolchain/gdb_graph.py`` (as for the debug shell's
:mod:`crepair.debug.gdb_live`): nodes n1, n2, … in order of allocation.
No solver here: the states go back to crepair as data.
"""

import json
import os
import sys

try:
    import gdb  # provided by gdb's Python; imported elsewhere this module does nothing
except ImportError:
    gdb = None
else:
    sys.path.append(os.environ["CREPAIR_GDB_LIB"])  # crepair/toolchain: the memory graph
    import gdb_graph

CFG = json.load(open(os.environ["CREPAIR_HEAP_CONFIG"])) if gdb is not None else {}
OUT = []
DONE = [False]
INSIDE = [False]  # within a call of the function
CALLS = [0]
SIGNALS = []
AT_EXIT = [None]  # the state with locals at the function's __crepair_exit() call


def on_stop(event):
    if isinstance(event, gdb.SignalEvent):
        SIGNALS.append(event.stop_signal)


def emit(event):
    OUT.append(event)
    print("@@CREPAIR " + json.dumps(event), flush=True)
    if len(OUT) >= CFG["limit"]:
        DONE[0] = True


def state(frame, with_locals):
    return gdb_graph.graph(CFG, frame, with_locals)


class Exit(gdb.FinishBreakpoint if gdb is not None else object):
    def stop(self):
        st = state(None, False)
        if AT_EXIT[0] is not None:  # the locals just before the return (its operand has no side effect)
            for k, v in AT_EXIT[0]["vars"].items():
                st["vars"].setdefault(k, v)
            AT_EXIT[0] = None
        try:
            rv = self.return_value
            if rv is not None:
                st["vars"]["return"] = gdb_graph.value(rv, gdb_graph.table()[0])
        except Exception:
            pass
        emit({"at": "exit", "state": st})
        INSIDE[0] = False
        CALLS[0] += 1
        if CALLS[0] >= CFG["calls"]:
            DONE[0] = True
        return True

    def out_of_scope(self):
        INSIDE[0] = False


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.events.stop.connect(on_stop)
    gdb.execute("file " + CFG["program"])
    gdb.execute("break " + CFG["function"])
    gdb.execute("break __crepair_loop")
    gdb.execute("break __crepair_exit")
    loops = [0]
    gdb.execute("run < /dev/null > %s 2>&1" % CFG["stdout"])
    while not DONE[0]:
        try:
            frame = gdb.selected_frame()
        except gdb.error:
            break  # the program ended
        name = frame.name()
        if SIGNALS:
            emit({"at": "crash", "state": None, "where": "%s in %s" % (SIGNALS[0], name)})
            break
        if name == CFG["function"] and not INSIDE[0]:
            INSIDE[0] = True
            emit({"at": "entry", "state": state(frame, False)})
            Exit(frame, internal=True)
        elif name == "__crepair_loop" and INSIDE[0] and frame.older().name() == CFG["function"]:
            k = loops[0]
            loops[0] += 1
            forced = CFG["force"].get(str(k))
            if forced is not None:
                gdb.execute("set var c = %d" % forced)
            emit({"at": "loop", "line": int(frame.read_var("line")), "state": state(frame.older(), True)})
        elif name == "__crepair_exit" and INSIDE[0] and frame.older().name() == CFG["function"]:
            AT_EXIT[0] = state(frame.older(), True)
        elif name not in (CFG["function"], "__crepair_loop", "__crepair_exit") and not DONE[0] and INSIDE[0]:
            emit({"at": "crash", "state": None, "where": str(name)})
            break
        if DONE[0]:
            break
        try:
            gdb.execute("continue")
        except gdb.error:
            break
    print("@@CREPAIR-END", flush=True)
    try:
        gdb.execute("kill")
    except gdb.error:
        pass  # the program had ended


if gdb is not None:
    try:
        main()
    except Exception as exc:  # reported to crepair as data, never a gdb prompt
        print("@@CREPAIR-ERROR " + str(exc), flush=True)
