"""Equivalence with a reference implementation (``--reference REF.c``).

crepair builds the harness itself: the reference's definitions are renamed
into the specification, both programs get the same inputs, and the
harness asserts equal results (:mod:`crepair.reference.program`,
:mod:`crepair.reference.harness`).
"""

from crepair.reference.program import ReferenceProgram, load_with_reference

__all__ = ["ReferenceProgram", "load_with_reference"]
