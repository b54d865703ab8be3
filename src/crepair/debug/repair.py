"""The ``repair`` and ``concrete`` commands: localize + proof-guided repair
over everything committed so far, then hot-patching (Wolverine2 §2.1, §3,
§6.1).

The heap engine (:class:`crepair.schemes.heap.HeapScheme`: Algorithm 2
then Algorithm 1, every candidate re-checked by running it under gdb) runs
on the session's specification; statements marked ``concrete`` are
trusted: locked like those Algorithm 2 clears (specification refinement).
Insertion slots are tried 0 first, then up to ``max_slots`` (the paper's
bounded number of additional statements).  A repair replaces the session's
program text and the running program is hot-patched
(:meth:`~crepair.debug.session.Session.hot_patch`): the session goes on
from the same point as if the patched program had run all along.
"""

from __future__ import annotations

from crepair.debug.session import Session, SessionError
from crepair.errors import CRepairError
from crepair.frontend import load_program
from crepair.records import Repair, RepairOutcome
from crepair.schemes.heap import HeapOptions, HeapScheme


class _TrustingScheme(HeapScheme):
    """HeapScheme whose locked locations include the trusted lines."""

    trusted: frozenset = frozenset()

    def localize(self) -> frozenset[int]:
        locked = super().localize()
        return locked | {i.index for i in self.fn.instrs if i.span.line in self.trusted}


def repair(session: Session, max_slots: int = 1, timeout: float = 120.0) -> tuple[Repair | None, str, str]:
    """Repair the session's program against its specification.  Returns
    the repair (None: none found), a one-line account (suspicious
    locations, τ, time) and one saying how the session was hot-patched.  Raises :class:`SessionError` for an empty
    specification.  On success the session is hot-patched."""
    spec = session.spec()
    if spec is None:
        raise SessionError("repair: the specification is empty (commit states with 'spec' first)")
    program = load_program(session.path, text=session.text, real_c=True)
    note = ""
    for slots in range(max_slots + 1):
        try:
            scheme = _TrustingScheme(program, HeapOptions(session.function, states="(session)",
                                                          insert_slots=slots, timeout=timeout), spec=spec)
        except CRepairError as exc:
            raise SessionError(f"repair: {exc}") from None
        scheme.trusted = frozenset(session.trusted)
        found = list(scheme.repairs())
        st = scheme.stats
        sus = ("" if st.suspicious is None
               else f"localization: {len(st.suspicious)} of {st.locations} locations suspicious; ")
        note = (f"{sus}{slots} insertion slot(s); τ_grd {st.tau[0]}, τ_stm {st.tau[1]}, τ_ins {st.tau[2]}; "
                f"{st.repair_seconds + st.localize_seconds:.2f} s")
        if st.outcome == RepairOutcome.ORIGINAL_CORRECT:
            return None, "the program already meets the specification: nothing to repair", ""
        if st.outcome == RepairOutcome.UNKNOWN:
            return None, f"no answer: {st.reason} ({note})", ""
        if found:
            rep = found[0]
            session.text = rep.patched
            return rep, note, session.hot_patch()
    return None, f"no repair found ({note})", ""


def concrete(session: Session, lines: list[int]) -> list[int]:
    """Trust the statements on ``lines`` (1-based, of the function under
    repair): repairs leave them alone.  Returns the lines now trusted;
    raises :class:`SessionError` for a line with no statement."""
    have = {i.span.line for i in session.fn.instrs}
    bad = [n for n in lines if n not in have]
    if bad:
        raise SessionError(f"concrete: no statement of {session.function} on line {bad[0]} "
                           f"(lines {min(have)}-{max(have)})")
    session.trusted |= set(lines)
    return sorted(session.trusted)
