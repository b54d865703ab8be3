"""The ``crepair`` command: a thin composition of the pipeline stages.

Exit codes (``ExitCode``): 0 verified / repaired / localized; 1 assertion
violated (verify); 2 usage error; 3 bad input (unsupported C, syntax error,
unreadable file); 4 unknown (time-out, solver unknown); 5 no repair within
the scheme (also: only vacuous repairs; localize: no repairable location);
6 original already correct (repair, localize); 7 a required tool is
missing; 8 inconclusive: the unwinding bound is too small; 9 part of the
work failed (a command of a scripted ``crepair debug`` session; a batch
job that crashed, was killed or could not run); 70 internal
error; 130 interrupted (Ctrl-C: the run stops, nothing is written); 141
standard output closed early (e.g. ``| head``); 143 terminated (SIGTERM:
stopped as by Ctrl-C, its temporary files removed).  Test-driven
repair and spectrum localization (``--tests``/``--tests-dir``) use f1x's
codes: 0 plausible patch (or ranking); 122 no plausible patch in the
search space; 123 no failing test.

Every error is one line on standard error (and, with ``--json``, a JSON
object on standard output too); never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from contextlib import nullcontext

# light imports only: the stages (z3, pycparser, ...) are imported inside
# main(), so that Ctrl-C while they load is an interruption, not a traceback
from crepair.cli.codes import ExitCode
from crepair.exit_codes import ERROR_KINDS
from crepair.errors import BadInput, CRepairError, MissingTool, UsageError, out_of_memory
from crepair.interrupt import InterruptWatch
from crepair.interrupt import requested as interrupt_requested
from crepair.interrupt import stop_solvers, terminated

__all__ = ["ExitCode", "main", "run"]


def _parser() -> argparse.ArgumentParser:
    from crepair.cli import batch_cmd, bench_cmd, debug_cmd, heap_cmd, localize_cmd, repair_cmd, verify_cmd
    from crepair.cli.common import JsonArgumentParser
    from crepair.version import __version__

    p = JsonArgumentParser(prog="crepair", description="Find and fix bugs in C programs.")
    p.add_argument("--version", action="version", version=f"crepair {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=JsonArgumentParser)
    verify_cmd.add_parser(sub)
    localize_cmd.add_parser(sub)
    repair_cmd.add_parser(sub)
    batch_cmd.add_parser(sub)
    bench_cmd.add_parser(sub)
    heap_cmd.add_inject_parser(sub)
    debug_cmd.add_parser(sub)
    return p


def _fail(code: ExitCode, message: str, as_json: bool, label: str = "") -> int:
    """One line on stderr, ``crepair: LABEL: MESSAGE`` (every error line
    starts with ``crepair: ``, once), and with ``--json`` the JSON error,
    whose ``kind`` says what ``label`` says (its message is ``message``
    alone)."""
    print(f"crepair: {label}: {message}" if label else f"crepair: {message}", file=sys.stderr)
    if as_json:
        import json

        print(json.dumps({"error": {"kind": ERROR_KINDS[code], "message": message, "exit_code": int(code)}}, indent=2))
    return code


HARD_STOP_GRACE = 1.0  # seconds past --timeout (counted from the start) before the process stops whatever it is doing


def _hard_stop(args, as_json: bool) -> "threading.Timer | None":
    """A last resort for ``--timeout``: z3 does not always stop a check when
    its time limit passes, nor when it is interrupted (a large formula
    being simplified or bit-blasted), so ``HARD_STOP_GRACE`` seconds after
    the limit the process reports UNKNOWN and exits (code 4); what it
    printed before (repairs are checked when printed) stands.  Once the
    report is being written (``common.FINAL_OUTPUT``) it does nothing."""
    seconds = getattr(args, "timeout", None)
    if args.command not in ("verify", "localize", "repair") or not seconds or seconds <= 0:
        return None

    from crepair import toolchain
    from crepair.cli.common import FINAL_OUTPUT
    from crepair.schemes.time_limit import arm_hard_stop
    from crepair.toolchain.scratch import remove_all

    def expire() -> None:
        if not FINAL_OUTPUT.take():
            return  # the run's report (or its --apply) is being written: it ends the run, once
        doing = FINAL_OUTPUT.doing() if FINAL_OUTPUT.doing is not None else ""
        message = (f"unknown: the run did not stop at the time limit (--timeout {seconds:g} s, from the "
                   f"start); stopped {HARD_STOP_GRACE:g} s later" + (f", while at: {doing}" if doing else ""))
        _fail(ExitCode.UNKNOWN, message, as_json)
        toolchain.kill_children()
        remove_all()  # os._exit runs no finalizer: the scratch folders go now
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(ExitCode.UNKNOWN)

    FINAL_OUTPUT.arm()
    return arm_hard_stop(args.started, seconds, HARD_STOP_GRACE, expire,
                         reproducible=getattr(args, "reproducible", False))


def _attach_options(argv: list[str]) -> list[str]:
    """``--options VALUE`` as ``--options=VALUE``: argparse takes a lone
    value that starts with a dash (``--options --reproducible``) for an
    option of its own."""
    out = []
    words = iter(argv)
    for word in words:
        if word == "--options":
            value = next(words, None)
            out.append(word if value is None else f"--options={value}")
        else:
            out.append(word)
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); returns
    the exit code."""
    started = time.monotonic()  # --timeout counts from here: loading the stages and the program count too
    argv = _attach_options(sys.argv[1:] if argv is None else list(argv))
    as_json = "--json" in argv
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")  # the user's bytes, as they are
    # debug reads Ctrl-C at its prompt; every other command stops (exit 130), also inside a z3 check
    watch = nullcontext() if argv[:1] == ["debug"] else InterruptWatch(stop_solvers)
    try:
        with watch:
            return _run(argv, as_json, started)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: nothing more is written (no --apply, no --html)
        return _stopped(as_json)
    except Exception:
        if getattr(watch, "fired", False):  # e.g. ctypes.ArgumentError: KeyboardInterrupt inside z3's calls
            return _stopped(as_json)
        raise


def _stopped(as_json: bool) -> int:
    """The end of a run stopped by Ctrl-C (130, "interrupted") or SIGTERM
    (143, "terminated"), once its clean-up ran."""
    if terminated():
        return _fail(ExitCode.TERMINATED, "terminated", as_json)
    return _fail(ExitCode.INTERRUPTED, "interrupted", as_json)


def _run(argv: list[str], as_json: bool, started: float) -> int:
    try:
        from crepair.cli import batch_cmd, bench_cmd, debug_cmd, heap_cmd, localize_cmd, repair_cmd, verify_cmd
        from crepair.cli.common import FINAL_OUTPUT, check_output_file, limit_memory
        from crepair.solver import smt

        smt.leave_ctrl_c_to_caller(argv[:1] != ["debug"])
        args = _parser().parse_args(argv)
        args.argv = argv  # as given (crepair bench records its command line)
        args.started = started
        previous = timer = None
        command = {"verify": verify_cmd.run, "localize": localize_cmd.run, "repair": repair_cmd.run,
                   "batch": batch_cmd.run, "bench": bench_cmd.run,
                   "inject": heap_cmd.run_inject, "debug": debug_cmd.run}[args.command]
        for option in ("html", "sarif"):
            check_output_file(getattr(args, option, None), f"--{option}")
        try:
            if args.command in ("verify", "localize", "repair"):
                args.memory, previous = limit_memory(args.memory)
            timer = _hard_stop(args, as_json)
            return command(args)
        finally:
            if timer is not None:
                timer.cancel()
            FINAL_OUTPUT.disarm()
            if previous is not None:  # main() called in a process that goes on (a test, a script)
                import resource

                resource.setrlimit(resource.RLIMIT_AS, previous)
    except UsageError as exc:
        return _fail(ExitCode.USAGE, str(exc), as_json, "error")
    except MissingTool as exc:
        return _fail(ExitCode.MISSING_TOOL, str(exc), as_json)
    except BadInput as exc:
        return _fail(ExitCode.BAD_INPUT, str(exc), as_json, "error")
    except CRepairError as exc:
        return _fail(ExitCode.INTERNAL, str(exc), as_json, "internal error")
    except BrokenPipeError:
        # the reader went away (``| head``): drop what is left, no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.BROKEN_PIPE
    except Exception as exc:
        if interrupt_requested():  # e.g. z3's 'canceled' from a call the Ctrl-C interrupted: exit 130
            raise KeyboardInterrupt from exc
        if not out_of_memory(exc):
            if os.environ.get("CREPAIR_TRACEBACK"):
                raise
            return _fail(ExitCode.INTERNAL, f"{type(exc).__name__}: {exc} (a defect of crepair: please report it; "
                         "CREPAIR_TRACEBACK=1 shows where)", as_json, "internal error")
        return _fail(ExitCode.UNKNOWN, "unknown: out of memory (the limit is --memory, default half of the "
                     "physical memory)", as_json)


def run() -> None:
    """The ``crepair`` program: :func:`main`, then exit with its code.  An
    interrupted or terminated run exits at once (130, 143): Python would otherwise end a
    process whose Ctrl-C landed in ``exec`` code (dataclasses build their
    methods so) by re-raising SIGINT, although it was handled."""
    code = main()
    if code in (ExitCode.INTERRUPTED, ExitCode.TERMINATED):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
