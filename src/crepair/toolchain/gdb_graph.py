"""Runs inside gdb (imported by the gdb-side scripts
``crepair/heap/gdb_helper.py`` and ``crepair/debug/gdb_live.py``, which
find it through the environment variable CREPAIR_GDB_LIB): the memory
graph of the stopped program (Wolverine2 §2, Fig. 2) as data.

Nodes are the blocks the harness's allocation wrappers recorded in
``__crepair_nodes``, named n1, n2, … in order of allocation (1-based); a
freed node is listed in ``freed`` and no pointer names it.  gdb's Python
only: no crepair import, no solver.
"""

try:
    import gdb  # provided by gdb's Python; imported elsewhere this module's functions are not used
except ImportError:
    gdb = None


def table():
    """(address -> node name of the live nodes, names of the freed nodes)."""
    count = int(gdb.parse_and_eval("__crepair_count"))
    nodes, freed = gdb.parse_and_eval("__crepair_nodes"), gdb.parse_and_eval("__crepair_freed")
    names, dead = {}, []
    for i in range(count):
        addr = int(nodes[i].cast(gdb.lookup_type("unsigned long")))
        name = "n%d" % (i + 1)
        if int(freed[i]):
            dead.append(name)
            if names.get(addr) == name:
                del names[addr]
        else:
            names[addr] = name
    return names, dead


def value(v, names):
    """A value of the graph: a node name, None for NULL, "?" for a pointer
    to no node, or an integer ("?" when gdb cannot read it)."""
    t = v.type.strip_typedefs()
    if t.code == gdb.TYPE_CODE_PTR:
        addr = int(v.cast(gdb.lookup_type("unsigned long")))
        return None if addr == 0 else names.get(addr, "?")
    try:
        return int(v)
    except gdb.error:
        return "?"


def graph(cfg, frame, with_locals):
    """The state ``{"vars", "nodes", "freed"}`` (as in
    ``crepair.heap.states``): the globals ``cfg["globals"]``, the arguments
    of ``frame`` (None: none) and, with ``with_locals``, its locals; every
    live node's ``cfg["fields"]`` (of type ``cfg["node_type"]``).  Entities
    of value "?" are left out."""
    names, dead = table()
    out = {}
    for g in cfg["globals"]:
        try:
            out[g] = value(gdb.parse_and_eval(g), names)
        except gdb.error:
            pass
    if frame is not None:
        block, seen = frame.block(), set()
        while block is not None:
            for sym in block:
                if sym.name in seen or not (sym.is_argument or (with_locals and sym.is_variable)):
                    continue
                seen.add(sym.name)
                out[sym.name] = value(sym.value(frame), names)
            if block.function is not None:
                break
            block = block.superblock
    ntype = gdb.lookup_type(cfg["node_type"]).pointer() if cfg["fields"] else None
    nodes = {}
    for addr, name in names.items():
        if ntype is None:
            nodes[name] = {}
            continue
        node = gdb.Value(addr).cast(ntype).dereference()
        nodes[name] = {f: value(node[f], names) for f in cfg["fields"]}
    clean = lambda d: {k: v for k, v in d.items() if v != "?"}
    return {"vars": clean(out), "nodes": {n: clean(fs) for n, fs in sorted(nodes.items(), key=lambda x: int(x[0][1:]))},
            "freed": dead}
