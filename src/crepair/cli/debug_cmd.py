"""``crepair debug PROG.c``: the interactive debug-localize-repair shell
for heap programs (Wolverine2 §1-3, §6; :mod:`crepair.debug`).

Interactive on a terminal (prompt-toolkit: history and tab completion),
otherwise — or with ``--script FILE`` (``-`` for stdin) — one command per
line, echoed after the prompt so a transcript reads like a session; a
scripted session in which a command failed exits 9 (``PARTIAL_FAILURE``)."""

from __future__ import annotations

import argparse
import os
import sys

from crepair.cli.common import MAX_SECONDS, ExitCode, at_least, seconds
from crepair.errors import UsageError

PROMPT = "(crepair) "


def add_parser(sub) -> None:
    p = sub.add_parser("debug", help="interactive debug-localize-repair shell for heap programs (Wolverine2)")
    p.add_argument("file", help="the C program (compiled with gcc -g and run under gdb)")
    p.add_argument("--function", metavar="F",
                   help="the function under repair (default: the first function other than main with a loop)")
    p.add_argument("--args", nargs=argparse.REMAINDER, default=[], metavar="ARG",
                   help="the program's command-line arguments (the rest of the line)")
    p.add_argument("--input", metavar="FILE", help="the program's standard input (default: empty)")
    p.add_argument("--script", metavar="FILE", help="read the commands from FILE ('-': standard input)")
    p.add_argument("--pictures", metavar="DIR", help="write a Graphviz picture (DOT, and SVG with dot) per state")
    p.add_argument("--insert-slots", type=at_least(0), default=1, metavar="N",
                   help="statements a repair may insert (tried 0 first; default: 1)")
    p.add_argument("--timeout", type=seconds, default=30.0, metavar="S",
                   help="seconds each gdb request may take, e.g. a run between two stops "
                        "(default: 30, generous for a loaded machine; 0: none)")


def _default_function(program) -> str:
    from crepair.heap.build import build_function

    for name in program.functions:
        if name == "main":
            continue
        try:
            if build_function(program, name).loops():
                return name
        except Exception:  # a function the heap IR does not take is not the default
            continue
    raise UsageError("--function F: no function with a loop to default to")


def _lines(args: argparse.Namespace):
    if args.script is not None:
        stream = sys.stdin if args.script == "-" else open(args.script, encoding="utf-8")
        with stream:
            for line in stream:
                line = line.rstrip("\n")
                if line.strip().startswith("#"):
                    continue
                print(PROMPT + line, flush=True)
                yield line
        return
    if not sys.stdin.isatty():
        for line in sys.stdin:
            print(PROMPT + line.rstrip("\n"), flush=True)
            yield line
        return
    from crepair.debug.commands import COMMANDS

    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import WordCompleter
        from prompt_toolkit.history import InMemoryHistory
    except ImportError:  # no prompt-toolkit: readline's history and completion
        ask = _readline(COMMANDS)
    else:
        ps = PromptSession(history=InMemoryHistory(), completer=WordCompleter(list(COMMANDS) + ["NULL", "--apply"]))
        ask = ps.prompt
    while True:
        try:
            yield ask(PROMPT)
        except EOFError:
            return
        except KeyboardInterrupt:
            print()
            continue


def _readline(commands):
    try:
        import readline
    except ImportError:
        return input
    words = sorted(commands)
    readline.set_completer(lambda text, k: ([w for w in words if w.startswith(text)] + [None])[k])
    readline.parse_and_bind("tab: complete")
    return input


def run(args: argparse.Namespace) -> int:
    from crepair.debug.commands import Shell
    from crepair.debug.session import Session
    from crepair.frontend import load_program

    for option, path in (("--script", None if args.script == "-" else args.script), ("--input", args.input)):
        if path is not None and not os.path.isfile(path):
            why = "not a regular file" if os.path.exists(path) else "no such file"
            raise UsageError(f"{option} {path}: {why}")
    program = load_program(args.file, real_c=True)
    function = args.function or _default_function(program)
    session = Session(args.file, function, list(args.args), args.input, args.timeout or MAX_SECONDS)
    shell = Shell(session, args.pictures, args.insert_slots)
    print(f"crepair debug {args.file}: function {function}; type help for the commands", flush=True)
    try:
        for line in _lines(args):
            out, done = shell.run(line)
            if out:
                print(out, flush=True)
            if done:
                break
    finally:
        session.close()
    if shell.errors and (args.script is not None or not sys.stdin.isatty()):  # scripted: the errors are the caller's
        print(f"crepair debug: {shell.errors} command(s) failed (the 'error:' lines)", file=sys.stderr)
        return ExitCode.PARTIAL_FAILURE
    return ExitCode.OK
