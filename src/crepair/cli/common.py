"""What the commands share: exit codes, the argument parser, option values."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable

from crepair.encode.formula import NO_CHECKS, Checks
from crepair.cli.codes import ExitCode
from crepair.errors import BadInput, CRepairError, MissingTool, UsageError
from crepair.options import AUTO_SOLVER, DEFAULT_INPUT_BOUND, DEFAULT_UNWIND, SOLVERS, ReferenceOptions


class JsonArgumentParser(argparse.ArgumentParser):
    """An argument parser whose errors raise ``UsageError`` (so that they
    come out as one line, and as JSON under ``--json``)."""

    def error(self, message: str):
        raise UsageError(message)  # the command's name is the prefix of the line, once


#: the longest ``--timeout``, in seconds (30 days: z3 takes its limit in milliseconds, 32 bits)
MAX_SECONDS = 30 * 24 * 3600


def seconds(text: str) -> float | None:
    """A ``--timeout`` value: seconds > 0 up to :data:`MAX_SECONDS`, or 0
    for none (every command)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, or 0 for none (got {text})")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_SECONDS} seconds (30 days), or 0 for none "
                                         f"(got {text})")
    return None if value == 0 else value


def at_least(low: int):
    """An int option type that rejects values below ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low} (got {value})")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def names(text: str) -> frozenset[str]:
    """A comma-separated list of names."""
    return frozenset(x.strip() for x in text.split(",") if x.strip())


def add_common(sp: argparse.ArgumentParser, timeout_default: float | None, timeout_help: str) -> None:
    sp.add_argument("file", help="C source file")
    sp.add_argument("--entry", default="main", help="entry function (default: main)")
    sp.add_argument("--unwind", type=at_least(0), default=DEFAULT_UNWIND, metavar="B",
                    help=f"unwinding bound: a loop body runs at most B times (default: {DEFAULT_UNWIND})")
    sp.add_argument("--timeout", type=seconds, default=timeout_default, metavar="S", help=timeout_help)
    sp.add_argument("--json", action="store_true", help="print JSON instead of text")
    sp.add_argument("--memory", type=at_least(64), default=None, metavar="MB",
                    help="memory limit of the run in MiB: address space of crepair and its tools, and z3's "
                         "memory (default: half of the physical memory); past it the outcome is unknown (exit 4)")
    sp.add_argument("--html", metavar="FILE", help="also write a report to read in a browser (one self-contained file)")
    add_reference(sp)


def add_solver(sp: argparse.ArgumentParser, used: str) -> None:
    """``--solver {auto,z3,bitwuzla,portfolio}`` (default auto); ``used``:
    which checks of the command it decides, for the help."""
    sp.add_argument("--solver", choices=SOLVERS, default=AUTO_SOLVER,
                    help=f"SMT solver of {used}: z3, bitwuzla, portfolio (both at once, the first decided "
                         "answer wins), or sat (bit-blasted to CNF for CaDiCaL, as CBMC does; a formula it "
                         "cannot blast goes to z3); checks under assumptions, unsat cores and --reproducible budgets "
                         "stay with z3 (default: auto, Bitwuzla for equivalence with --reference, else z3)")


def add_reference(sp: argparse.ArgumentParser) -> None:
    """The options of equivalence with a reference implementation (each
    defaults to None, so a command can tell whether it was given)."""
    g = sp.add_argument_group("equivalence with a reference implementation (the harness is built for you)")
    g.add_argument("--reference", metavar="REF.c",
                   help="the specification is: FILE's entry function returns what REF.c's does, and leaves the "
                        "globals it writes equal, on the same inputs (parameters, uninitialized globals unless the "
                        "entry is main, nondet_*() values)")
    g.add_argument("--init", action="append", metavar="F",
                   help="with --reference: call F() (no parameters) in both programs before the entry, after the "
                        "inputs are set (repeatable, in order; e.g. TCAS's initialize)")
    g.add_argument("--assume", action="append", metavar="EXPR",
                   help="with --reference: assume the C expression EXPR over the entry's parameters and the "
                        "globals on the initial state (repeatable)")
    g.add_argument("--input-bound", type=at_least(1), metavar="N",
                   help=f"with --reference: elements of an array input that are inputs and compared "
                        f"(default: {DEFAULT_INPUT_BOUND})")


def reference_of(args: argparse.Namespace) -> ReferenceOptions | None:
    """The reference options given on the command line (None: no --reference)."""
    return ReferenceOptions.of(args.reference, tuple(args.init or ()), tuple(args.assume or ()), args.input_bound)


#: the reference options with their defaults, for commands that refuse them
REFERENCE_DEFAULTS = {"reference": None, "init": None, "assume": None, "input_bound": None}


#: the flags that turn checks of undefined behaviour off (CBMC's names), with their defaults
CHECK_FLAGS = {"no_standard_checks": False, "no_bounds_check": False, "no_div_by_zero_check": False,
               "no_undefined_shift_check": False}


def add_checks(sp: argparse.ArgumentParser) -> None:
    """The switches of the checks of undefined behaviour (CBMC's names);
    :func:`checks_of` reads them."""
    g = sp.add_argument_group("checks of undefined behaviour (on by default; failing one is a violation)")
    g.add_argument("--no-standard-checks", action="store_true",
                   help="check the program's assertions only (no check below)")
    g.add_argument("--no-bounds-check", action="store_true", help="no array index check (read and write)")
    g.add_argument("--no-div-by-zero-check", action="store_true",
                   help="no check of / and %% by zero, nor of MIN / -1 (both trap on x86-64)")
    g.add_argument("--no-undefined-shift-check", action="store_true",
                   help="no check of shifts by a negative amount or by the width or more")


def checks_of(args: argparse.Namespace) -> Checks:
    """The checks the flags of :func:`add_checks` leave on."""
    if args.no_standard_checks:
        return NO_CHECKS
    return Checks(bounds=not args.no_bounds_check, division=not args.no_div_by_zero_check,
                  shift=not args.no_undefined_shift_check)


def add_specification(sp: argparse.ArgumentParser, what: str) -> None:
    """The options that say what is specification (never changed) and, for
    model-based diagnosis, what the components are; ``what`` names the
    command's use of diagnosis in the help ("diagnosis" or "template scheme")."""
    sp.add_argument("--no-mutate", type=names, default=frozenset(), metavar="F,G",
                    help="functions of the specification, never blamed or changed")
    sp.add_argument("--mutate-main", action="store_true",
                    help="let the code of main (not its assertions) be blamed and repaired")
    sp.add_argument("--components", type=names, default=frozenset({"rhs", "cond"}), metavar="rhs,cond",
                    help=f"{what}: what may be a component (default: rhs,cond)")
    sp.add_argument("--inputs", type=at_least(1), default=2, metavar="N",
                    help=f"{what}: failing inputs used for diagnosis (default: 2)")


def add_tests(sp: argparse.ArgumentParser) -> None:
    """The options that give a program's tests (test-driven repair, f1x
    TOSEM'18, and spectrum-based localization).  Each defaults to None, so
    a command can tell whether tests were given at all."""
    g = sp.add_argument_group("tests (f1x's driver contract, or a folder of input/output pairs)")
    g.add_argument("--tests", metavar="DRIVER",
                   help="test driver: DRIVER ID runs test ID in the project copy; exit 0 = pass, 124 = time-out")
    g.add_argument("--test-ids", nargs="+", metavar="ID",
                   help="the tests to run (with --tests: required, e.g. n1 p1 p2; with --tests-dir: a subset)")
    g.add_argument("--tests-dir", metavar="DIR",
                   help="folder of input-X/output-X or X.in/X.out pairs (stdin, expected stdout); "
                        "heldout-* files are never read")
    g.add_argument("--compare", choices=["exact", "trailing-whitespace", "lines", "tokens"],
                   default="trailing-whitespace",
                   help="how a folder test's output is compared with the expected one: byte for byte (a course "
                        "judge), ignoring trailing whitespace (default), ignoring leading and trailing blanks of "
                        "lines and blank lines (lines: Codeflaws' judge), or token by token")
    g.add_argument("--build", metavar="CMD",
                   help="build command run by the shell in the project copy, CC set to crepair's compiler "
                        "(default: make CC=... when there is a Makefile, else gcc)")
    g.add_argument("--test-timeout", type=at_least(1), metavar="MS",
                   help="time limit of one test in milliseconds (default: localize 1000; repair: 20 times the slowest "
                        "test of the original program, at least 50, at most 1000)")
    g.add_argument("--project", metavar="DIR",
                   help="project directory copied for every build (default: the program's directory)")


class StatusLine:
    """A one-line progress display on stderr (rich), shown only when
    ``enabled`` (the commands enable it when stderr is a terminal and
    neither ``--json`` nor ``--quiet`` is given).  Call it with an object;
    ``describe`` turns that into the line, at most ten times a second.

    The report never goes through the display: :meth:`out` writes it to
    standard output (taking the line off the terminal meanwhile when
    standard output is a terminal too), and the display goes on after it.
    """

    def __init__(self, enabled: bool, describe):
        import time

        self._describe, self._last, self._text = describe, 0.0, "starting"
        self._began = time.monotonic()
        self._console = self._live = self._spinner = None
        if enabled:
            from rich.console import Console

            self._console = Console(stderr=True)
            self._start()

    def _render(self):
        """The line as drawn now: the last description and the seconds
        since the command started (ticking even while a long check runs)."""
        import time

        self._spinner.update(text=f"{self._text} ({time.monotonic() - self._began:.0f} s)")
        return self._spinner

    def _start(self) -> None:
        from rich.live import Live
        from rich.spinner import Spinner

        self._spinner = Spinner("dots", self._text)
        self._live = Live(console=self._console, transient=True, refresh_per_second=10, get_renderable=self._render,
                          redirect_stdout=False, redirect_stderr=False)
        self._live.start()

    def __call__(self, what) -> None:
        import time

        if time.monotonic() - self._last < 0.1:
            return
        self._last = time.monotonic()
        self._text = self._describe(what)

    def say(self, text: str) -> None:
        """Show ``text`` as the line until the next snapshot."""
        self._text = text

    @property
    def text(self) -> str:
        """The line as last described (kept when not shown: the hard stop
        of ``--timeout`` says where the run was, :attr:`FinalOutput.doing`)."""
        return self._text

    def out(self, text: str = "") -> None:
        """Print ``text`` (and a newline) on standard output, flushed."""
        import sys

        pause = self._live is not None and sys.stdout.isatty()
        if pause:
            self._live.stop()
        print(text, flush=True)
        if pause:
            self._start()

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


def limit_memory(megabytes: int | None) -> tuple[int, tuple[int, int]]:
    """Limit this process (and the tools it starts) to ``megabytes`` MiB of
    address space (None: half of the physical memory), and z3 to as much
    memory; returns the limit in MiB and the previous ``RLIMIT_AS`` (to
    restore when the command ends: ``resource.setrlimit``).  A hard limit
    set by the system stays."""
    import os
    import resource

    from crepair.solver import smt

    if megabytes is None:
        megabytes = max(64, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2 // (1 << 20))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = megabytes << 20
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or limit < soft:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    smt.limit_memory(megabytes)
    return megabytes, (soft, hard)


def check_output_file(path: str | None, option: str) -> None:
    """Before a run: raise ``UsageError`` unless ``path`` (an output file
    the run writes at its end, e.g. ``--html``; None: not given) can be
    written: not a folder, in a folder that exists and is writable."""
    if path is None:
        return
    import os
    from pathlib import Path

    p = Path(path)
    folder = p.parent
    if p.is_dir():
        raise UsageError(f"{option} {path}: is a folder; give a file name")
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UsageError(f"{option} {path}: cannot write there (permission denied)")


def error_of(exc: CRepairError) -> tuple[ExitCode, str, str]:
    """The exit code, JSON ``kind`` and one-line message of an error (as
    ``crepair.cli.main`` reports it)."""
    if isinstance(exc, UsageError):
        return ExitCode.USAGE, "usage", f"error: {exc}"
    if isinstance(exc, MissingTool):
        return ExitCode.MISSING_TOOL, "missing-tool", str(exc)
    if isinstance(exc, BadInput):
        return ExitCode.BAD_INPUT, "bad-input", f"error: {exc}"
    return ExitCode.INTERNAL, "internal", f"internal error: {exc}"


class FinalOutput:
    """Who writes a run's last words, while a ``--timeout`` hard stop is
    armed (:func:`crepair.cli._hard_stop`): the run's report (and its
    ``--html``/``--apply`` writes, :meth:`claim`) or the hard stop
    (:meth:`take`), never both — one JSON document, no file left half
    written.  Without an armed hard stop there is nothing to decide and
    :meth:`claim` does nothing (a test or script calling a command's
    ``run`` directly)."""

    def __init__(self) -> None:
        self._gate: threading.Lock | None = None
        self._reporting = False
        #: what the run is doing, for the hard stop's message (None: not told)
        self.doing: Callable[[], str] | None = None

    def arm(self) -> None:
        """A hard stop is armed for the run starting now."""
        self._gate, self._reporting, self.doing = threading.Lock(), False, None

    def disarm(self) -> None:
        """The run has returned and its hard stop is cancelled."""
        self._gate, self._reporting, self.doing = None, False, None

    def claim(self) -> None:
        """For the report: waits while the hard stop writes (it then exits
        the process); once per run, later claims return at once."""
        gate = self._gate
        if gate is not None and not self._reporting:
            gate.acquire()
            self._reporting = True

    def take(self) -> bool:
        """For the hard stop: whether it may write (False: the report is
        being written, and ends the run)."""
        gate = self._gate
        return gate is None or gate.acquire(blocking=False)


FINAL_OUTPUT = FinalOutput()  # the process's: one command runs at a time


def finish(args: argparse.Namespace, report_json: str, writes) -> ExitCode | None:
    """After a completed run: call ``writes()`` (the ``--html`` and
    ``--apply`` writes) and, under ``--json``, print the report.  Under
    ``--json`` an error of ``writes`` is folded into the report (its
    ``"error"``: kind, message, exit_code), so a run prints exactly one
    JSON document, and said in one line on standard error; returns its exit
    code (None: no error).  Without ``--json`` (the text report is printed
    already) an error propagates.  Claims the final output first
    (:data:`FINAL_OUTPUT`)."""
    FINAL_OUTPUT.claim()
    if not args.json:
        writes()
        return None
    import json
    import sys

    try:
        writes()
    except CRepairError as exc:
        code, kind, message = error_of(exc)
        data = json.loads(report_json)
        data["error"] = {"kind": kind, "message": message, "exit_code": int(code)}
        print(json.dumps(data, indent=2))
        print(f"crepair: {message}", file=sys.stderr)
        return code
    print(report_json)
    return None


def write_html(args: argparse.Namespace, command: str, report_json: str, source: str | None,
               states=None) -> None:
    """With ``--html FILE``: write the HTML report of the command's JSON
    report (:mod:`crepair.report.html`; ``states``: a heap repair's
    specification file, drawn) and say where on standard error."""
    if not getattr(args, "html", None):
        return
    import json
    import sys

    from crepair.report.html import write_report

    write_report(args.html, command, json.loads(report_json), source, states)
    print(f"HTML report: {args.html}", file=sys.stderr)
