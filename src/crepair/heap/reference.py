"""The program states a heap repair or localization is checked against
(Wolverine2, Verma & Roy, §2: states a person gives, or those of a correct
program's run): a states file, or a reference program recorded under gdb."""

from __future__ import annotations

from crepair.errors import UsageError
from crepair.frontend import CProgram, load_program
from crepair.heap.build import build_function
from crepair.heap.execute import record
from crepair.heap.ir import Function
from crepair.heap.states import Event, Spec, load_spec


def reference_spec(program: CProgram, fn: Function, reference: str, loop_states: bool,
                   timeout: float = 30.0) -> Spec:
    """The states of the correct program ``reference`` (same function name,
    same loops) recorded under gdb (at most ``timeout`` seconds); loop lines are ``fn``'s.  Raises
    ``BadInput``/``UsageError`` when it cannot be used."""
    ref = load_program(reference, real_c=True)
    ref_fn = build_function(ref, fn.name)
    if len(ref_fn.loops()) != len(fn.loops()):
        raise UsageError(f"--states-from {reference}: '{fn.name}' has {len(ref_fn.loops())} loops, "
                         f"the program {len(fn.loops())}")
    run = record(ref, ref_fn, lines=[lp.line for lp in fn.loops()], timeout=timeout)
    if run.crashed or not run.spec.traces:
        raise UsageError(f"--states-from {reference}: its run failed ({run.error or 'no call of ' + fn.name})")
    traces = []
    for t in run.spec.traces:
        traces.append((t[0],) + tuple(e if loop_states or e.at != "loop" else Event(e.at, e.line, None)
                                      for e in t[1:]))
    return Spec(fn.name, tuple(traces))


def specification(program: CProgram, fn: Function, states: str | None, reference: str | None,
                  loop_states: bool, timeout: float = 30.0) -> Spec:
    """The states of the states file ``states``, else those of the run of
    ``reference`` (see :func:`reference_spec`; ``timeout``: seconds for
    its run).  Raises ``BadInput`` / ``UsageError`` when neither can be used."""
    if states is not None:
        return load_spec(states)
    return reference_spec(program, fn, reference, loop_states, timeout)
