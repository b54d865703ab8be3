"""The typed C layer: one C type model and the types of a program's expressions.

Between the front-end (:mod:`crepair.frontend`: pycparser's AST) and the
engines.  :mod:`crepair.typed.model` is the C type model of gcc on x86-64
(LP64 widths, C11 6.3's promotions and usual arithmetic conversions, the
types of literals); :mod:`crepair.typed.infer` resolves declarations and
infers the type of an expression; :mod:`crepair.typed.program` builds the
typed, immutable form of a program's functions (every expression with its
type and span, each block's variables in scope).  The bounded encoder's
conversions (:mod:`crepair.encode.ctypes`) and the test-driven search
space (:mod:`crepair.testequiv.scope`) take their rules from here.
"""
