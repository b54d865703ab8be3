"""The commands of a ``crepair debug`` session (Wolverine2 Table 1 and §6):
one line in, text out.  Several commands may share a line, separated by
``;`` (as in the paper's ``next; next; next;``).  A mistake (unknown
command, unknown entity, a value of the wrong type, ``repair`` with an empty
specification, a program that does not compile, a crash) prints one line
and the session goes on.
"""

from __future__ import annotations

import re
from pathlib import Path

from crepair.debug.picture import dot_picture, text_picture, write_picture
from crepair.debug.repair import concrete, repair
from crepair.debug.session import Session, SessionError
from crepair.errors import CRepairError
from crepair.heap.states import State, load_spec, save_spec

HELP = """commands (several on a line: separate them with ';'):
  start               compile (gcc -g) and run to the first statement of main
                      (again: a new run and a new specification; resume ID goes back to a checkpoint)
  next                execute the next statement (calls run through; the function under repair
                      is entered, its entry being an event); stops at loop heads before the test
  step                like next, but enters calls
  finish              run to the exit of the current call of the function under repair
  break LINE|FUNC     stop at that loop head (or at each entry of the function); continue runs to it
  continue            run to the next breakpoint (or the end of the program)
  enter | leave       at a loop head: force the loop's test true / false, and run to the next statement
  change E V          set entity E (a variable, or nK->field) to V (a node nK, NULL or a number)
  watch VAR           commit VAR too in loop-head states (changed variables are watched)
  spec                commit the current state (at the entry, a loop head or the exit) to the
                      specification; prints the checkpoint id
  resume ID           go back to checkpoint ID: its program, specification and position
  repair              localize + repair against the specification; prints the diff, hot-patches
  concrete LINE...    trust the statements on these lines: repairs leave them alone
  rewrite FILE [--apply]   write the repaired program (over an existing file only with --apply, backup kept)
  show | picture      the current state as a box-and-arrow picture
  save FILE | load FILE    the specification as JSON
  help | quit"""

COMMANDS = ("start", "next", "step", "finish", "break", "continue", "enter", "leave", "change", "watch", "spec",
            "resume", "repair", "concrete", "rewrite", "show", "picture", "save", "load", "help", "quit")


class Shell:
    """Runs command lines against a :class:`Session`; ``pictures``: a
    folder for Graphviz pictures (None: none); ``max_slots``: insertion
    slots a repair may use.  :meth:`run` returns the output text and
    whether the session is over (``quit``); :attr:`errors` counts the
    commands that failed so far."""

    def __init__(self, session: Session, pictures: str | None = None, max_slots: int = 1):
        self.session, self.max_slots = session, max_slots
        self.pictures = Path(pictures) if pictures else None
        self.count = 0
        self.svg_note = ""
        self.errors = 0  # the commands that failed (an 'error: ...' line), for the exit code

    def run(self, line: str) -> tuple[str, bool]:
        out: list[str] = []
        for part in line.split(";"):
            words = part.split()
            if not words:
                continue
            try:
                if self._one(words, out):
                    return "\n".join(out), True
            except (SessionError, CRepairError) as exc:
                out.append(f"error: {exc}")
                self.errors += 1
        return "\n".join(out), False

    # -- pictures ----------------------------------------------------------------------------------------------
    def _where(self, ev: dict) -> str:
        s = self.session
        call = f"call {ev.get('call')}"
        if ev["at"] == "entry":
            return f"entry of {s.function} ({call})"
        if ev["at"] == "loop":
            src = s.source(ev)
            visits = sum(1 for v in s.calls[-1] if v.at == "loop" and v.line == ev["line"])
            return f"loop head, line {ev['line']}: {src} ({call}, visit {visits})"
        if ev["at"] == "exit":
            return f"exit of {s.function} ({call})"
        if ev["at"] == "line":
            src = s.source(ev)
            fn = ev.get("function") or s.function
            part = f" (statement {ev['part'][0]} of {ev['part'][1]})" if ev.get("part") else ""
            if fn == s.function:
                return f"line {ev['line']}: {src} ({call})"
            return f"line {ev['line']} in {fn}: {src}{part}"
        if ev["at"] == "crash":
            return f"the program crashed ({ev.get('where', 'signal')}); 'start' again or 'resume' a checkpoint"
        return "the program ended" + (f"; its output:\n{s.driver.program_output().rstrip()}"
                                      if s.driver and s.driver.program_output().strip() else "")

    def _picture(self, out: list[str], ev: dict) -> None:
        if ev.get("error"):
            out.append(f"error: {ev.pop('error')}")
            self.errors += 1
        out.append(self._where(ev))
        if ev.get("state") is None:
            return
        s = self.session
        st = State.of_json(ev["state"])
        out.append(text_picture(st, s.previous, s.user))
        if self.pictures is not None:
            self.count += 1
            stem = f"{self.count:02d}-{ev['at']}"
            title = self._where(ev).split("\n")[0]
            files, why = write_picture(self.pictures, stem, dot_picture(st, s.previous, s.user, title))
            if why and why != self.svg_note:
                out.append(why)
                self.svg_note = why

    # -- commands ----------------------------------------------------------------------------------------------
    def _one(self, words: list[str], out: list[str]) -> bool:
        cmd, args = words[0].lower(), words[1:]
        s = self.session
        if cmd in ("quit", "exit", "q"):
            s.close()
            return True
        if cmd == "help":
            out.append(HELP)
        elif cmd == "start":
            self._picture(out, s.start())
        elif cmd in ("next", "n"):
            self._picture(out, s.next())
        elif cmd in ("step", "s"):
            self._picture(out, s.step())
        elif cmd in ("enter", "leave"):
            self._picture(out, s.next(1 if cmd == "enter" else 0))
        elif cmd == "finish":
            self._picture(out, self._run_until(lambda ev: ev["at"] == "exit"))
        elif cmd in ("continue", "c"):
            self._picture(out, self._run_until(self._at_breakpoint))
        elif cmd == "break":
            out.append(self._break(args))
        elif cmd == "change":
            entity, value = _parse_change(args)
            self._picture(out, s.change(entity, value))
        elif cmd == "watch":
            if len(args) != 1 or args[0] not in s.fn.variables:
                raise SessionError(f"watch: give one variable of {s.function} "
                                   f"({', '.join(s.fn.variables)})")
            s.watched.add(args[0])
            out.append(f"watching {', '.join(sorted(s.watched))}")
        elif cmd == "spec":
            ident = s.commit()
            out.append(f"program state added to the specification: checkpoint {ident}")
        elif cmd == "resume":
            if len(args) != 1 or not args[0].isdigit():
                raise SessionError("resume: give a checkpoint id (a number printed by spec)")
            ev = s.resume(int(args[0]))
            out.append(f"resumed checkpoint {args[0]}")
            self._picture(out, ev)
        elif cmd == "repair":
            rep, note, how = repair(s, self.max_slots)
            if rep is None:
                out.append(note)
            else:
                out.append(f"repair synthesized ({note}):")
                out.append(rep.diff.rstrip())
                out.append(rep.evidence.describe())
                out.append(how)
                if s.event is not None:
                    self._picture(out, s.event)
        elif cmd == "concrete":
            if not args or not all(a.isdigit() for a in args):
                raise SessionError("concrete: give the line numbers of the statements to trust")
            out.append(f"trusted lines: {', '.join(map(str, concrete(s, [int(a) for a in args])))}")
        elif cmd == "rewrite":
            out.append(self._rewrite(args))
        elif cmd in ("show", "picture"):
            if s.event is None:
                raise SessionError("show: the program is not running: 'start' it")
            self._picture(out, s.event)
        elif cmd == "save":
            spec = s.spec()
            if len(args) != 1:
                raise SessionError("save: give a file name")
            if spec is None:
                raise SessionError("save: the specification is empty (commit states with 'spec' first)")
            save_spec(spec, args[0])
            out.append(f"specification written to {args[0]} ({len(spec.traces)} calls, {spec.events} events)")
        elif cmd == "load":
            if len(args) != 1:
                raise SessionError("load: give a file name")
            ev = s.load(load_spec(args[0]))
            out.append(f"specification loaded from {args[0]}; the run follows it")
            self._picture(out, ev)
        else:
            raise SessionError(f"unknown command {words[0]!r} (type help)")
        return False

    def _at_breakpoint(self, ev: dict) -> bool:
        b = self.session.breakpoints
        return (ev["at"] == "loop" and ev["line"] in b) or (ev["at"] == "entry" and self.session.function in b)

    def _run_until(self, stop, limit: int = 10_000) -> dict:
        s = self.session
        ev = s.advance()
        for _ in range(limit):
            if ev["at"] in ("crash", "end") or stop(ev):
                break
            ev = s.advance()
        return ev

    def _break(self, args: list[str]) -> str:
        s = self.session
        if len(args) != 1:
            raise SessionError("break: give a loop line or the function's name")
        a = args[0]
        if a.isdigit() and int(a) in s.lines:
            s.breakpoints.add(int(a))
        elif a == s.function:
            s.breakpoints.add(a)
        else:
            raise SessionError(f"break: the session stops at {s.function}'s entry, loop heads "
                               f"(lines {', '.join(map(str, s.lines)) or 'none'}) and exit; {a} is none of these")
        return f"breakpoint at {a}"

    def _rewrite(self, args: list[str]) -> str:
        from crepair.patch import apply_to_file

        s = self.session
        files = [a for a in args if a != "--apply"]
        if len(files) != 1:
            raise SessionError("rewrite: give the file to write (and --apply to write over an existing one)")
        target = Path(files[0])
        note = "" if s.text != s.original else " (no repair so far: the program as it was)"
        if target.exists():
            if "--apply" not in args:
                raise SessionError(f"rewrite: {target} exists; 'rewrite {target} --apply' writes over it "
                                   "(a backup is kept)")
            original = s.original if target.resolve() == Path(s.path).resolve() else None
            backup = apply_to_file(target, s.text, original=original)
            return f"repaired program written to {target} (backup {backup}){note}"
        target.write_text(s.text)
        return f"repaired program written to {target}{note}"


_CHANGE = re.compile(r"^\s*(\w+)\s*(?:->\s*(\w+))?\s+(\S+)\s*$")


def _parse_change(args: list[str]) -> tuple[str, object]:
    """``change current n3`` / ``change n4 -> prev n3`` / ``change n2->data 7``
    -> (entity, value: node name, None for NULL, or int)."""
    m = _CHANGE.match(" ".join(args))
    if not m:
        raise SessionError("change: write 'change ENTITY VALUE', e.g. change current n3, change n4->prev NULL")
    entity = m.group(1) + (f"->{m.group(2)}" if m.group(2) else "")
    raw = m.group(3)
    if raw.upper() == "NULL":
        return entity, None
    if re.fullmatch(r"-?\d+", raw):
        return entity, int(raw)
    if re.fullmatch(r"n\d+", raw):
        return entity, raw
    raise SessionError(f"change: {raw!r} is not a value (a node n1, n2, ..., NULL or a number)")
