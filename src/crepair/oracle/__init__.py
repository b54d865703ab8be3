"""A reference implementation as a test oracle (the concrete stages of a
repair against ``--reference``).

Pipeline: :func:`~crepair.oracle.inputs.mutate_inputs` (new standard
inputs from given ones, token by token) -> :class:`~crepair.oracle.reference.ReferenceProgram`
(the reference built twice under gcc's sanitizers; an input is kept only
when both builds end normally and agree, its expected output is the
reference's) -> :func:`~crepair.oracle.suite.write_suite` (given,
generated and counterexample tests as one folder of ``input-X``/``output-X``
pairs, the test-driven scheme's specification), beside
:class:`~crepair.oracle.suite.HeldBack` (more generated inputs that only a
patch passing the suite runs on).
"""

from crepair.oracle.inputs import mutate_inputs, stdin_of
from crepair.oracle.reference import ReferenceProgram
from crepair.oracle.suite import HeldBack, Suite, write_suite

__all__ = ["HeldBack", "ReferenceProgram", "Suite", "mutate_inputs", "stdin_of", "write_suite"]
