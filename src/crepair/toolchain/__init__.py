"""External tools crepair drives (gcc, gdb): the host side in
:mod:`crepair.toolchain.gdb`, the gdb side in ``gdb_graph.py``.  Imports
nothing from the rest of crepair, so every stage may use it."""
