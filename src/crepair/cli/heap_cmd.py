"""``crepair repair --scheme heap`` and ``crepair localize --method
gradient``: Wolverine2's repair and localization against program states
(``--states SPEC.json``, or ``--states-from CORRECT.c --checkpoints F``)."""

from __future__ import annotations

import argparse
import json
import sys

from crepair import exit_codes
from crepair.cli.common import ExitCode, at_least, finish, write_html
from crepair.errors import UsageError
from crepair.schemes.heap_run import AUTO_SLOTS


def add_arguments(sp: argparse.ArgumentParser, repair: bool) -> None:
    g = sp.add_argument_group("heap programs against program states (--scheme heap, --method gradient)")
    g.add_argument("--states", metavar="SPEC.json",
                   help="the specification: expected memory graphs at the function's entry, loop heads and exit")
    g.add_argument("--states-from", metavar="CORRECT.c",
                   help="the specification: the states of a correct program's run under gdb (with --checkpoints)")
    g.add_argument("--checkpoints", metavar="F[,loops]",
                   help="with --states-from: the function under repair, whose states the correct program's run "
                        "gives at each call's entry and exit (with 'loops': at every loop head too)")
    g.add_argument("--function", metavar="F", help="the function under repair (default: the states file's)")
    if repair:
        g.add_argument("--insert-slots", type=at_least(0), default=None, metavar="N",
                       help=f"heap: statements a repair may insert (default: 0, then 1, ... up to {AUTO_SLOTS} "
                            "while none repairs, within --timeout)")
        g.add_argument("--no-localization", action="store_true",
                       help="heap: do not lock the statements Algorithm 2 clears")
        g.add_argument("--tries", type=at_least(1), default=10, metavar="N",
                       help="heap: solver calls of Algorithm 1, each after a widening (default: 10)")


def heap_states(args: argparse.Namespace):
    """The :class:`~crepair.specification.HeapStates` of the command line
    (``crepair batch`` reads its heap jobs here too); raises ``UsageError``
    for a combination it refuses."""
    from crepair.heap.states import load_spec
    from crepair.specification import HeapStates

    _refuse_bounded(args)
    if args.reference is not None:
        raise UsageError("--reference means equivalence with a reference implementation; the heap scheme takes "
                         "the states of a correct program's run as --states-from CORRECT.c --checkpoints F")
    if args.states is None and args.states_from is None:
        raise UsageError("the heap scheme needs --states SPEC.json or --states-from CORRECT.c --checkpoints F")
    if args.states is not None and args.states_from is not None:
        raise UsageError("--states and --states-from: give one specification")
    names = [x.strip() for x in (args.checkpoints or "").split(",") if x.strip()]
    loops = "loops" in names
    names = [x for x in names if x != "loops"]
    if args.checkpoints is not None and args.states_from is None:
        raise UsageError("--checkpoints: used with --states-from only")
    if len(names) > 1:
        raise UsageError("--checkpoints: one function under repair (and 'loops')")
    function = args.function or (names[0] if names else None)
    if function is None and args.states is not None:
        function = load_spec(args.states).function
    if function is None:
        raise UsageError("--states-from needs --checkpoints F (the function under repair)")
    return HeapStates(function, args.states, args.states_from, loops)


def repair_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`crepair.api.repair_heap` besides
    the states and the time limit; raises ``UsageError`` as the command
    line does."""
    if args.scheme != ["heap"]:
        raise UsageError("--scheme heap runs alone")
    _refuse_bounded(args)
    return {"insert_slots": args.insert_slots, "localization": not args.no_localization, "tries": args.tries,
            "max_repairs": 1 if args.first else (args.max_repairs or 1)}


def _refuse_bounded(args: argparse.Namespace) -> None:
    for name in ("init", "assume", "input_bound"):
        if getattr(args, name, None) is not None:
            raise UsageError(f"--{name.replace('_', '-')}: not used by the heap scheme")


_EXIT = exit_codes.HEAP


def run_repair(args: argparse.Namespace) -> int:
    from crepair import api
    from crepair.patch import apply_to_file
    from crepair.report import heap as report

    options = repair_options(args)
    s = heap_states(args)

    def widened(previous: int, slots: int) -> None:
        if not args.json:
            print(report.render_widening(previous, slots), flush=True)

    run = api.repair_heap(args.file, function=s.function, states=s.states, states_from=s.states_from,
                          loop_states=s.loops, timeout=args.timeout, started=args.started, on_widen=widened,
                          **options)
    if not args.json:
        print(report.render_header(run.record()), flush=True)
    for k, rep in enumerate(run, 1):
        if not args.json:
            print(report.render_heap_repair(rep, k), flush=True)
    repairs = run.repairs
    record = run.record()
    document = report.run_json(record, repairs)
    if not args.json:
        print(report.render_summary(record))

    def writes() -> None:
        write_html(args, "repair", document, run.program.original, states=run.spec)
        if args.apply and repairs:
            backup = apply_to_file(args.file, repairs[0].patched, original=run.program.original,
                                   anyway=args.apply_anyway)
            print(f"applied repair 1 to {args.file} (original kept as {backup})", file=sys.stderr)

    failed = finish(args, document, writes)
    if failed is not None:
        return failed
    return exit_codes.of_outcome(record.outcome, _EXIT)


def run_localize(args: argparse.Namespace) -> int:
    from crepair import api

    s = heap_states(args)
    result = api.localize_gradient(args.file, function=s.function, states=s.states, states_from=s.states_from,
                                   loop_states=s.loops)
    if args.json:
        print(json.dumps(result.as_json(), indent=2))
    else:
        print(result.render())
    return ExitCode.OK


def add_inject_parser(sub) -> None:
    p = sub.add_parser("inject", help="fault injection (Wolverine2 §7.1): buggy versions of a correct heap program")
    p.add_argument("file", help="the correct C program")
    p.add_argument("--function", required=True, metavar="F", help="the function to inject faults into")
    p.add_argument("--mutations", type=at_least(0), default=1, metavar="X",
                   help="variables or fields replaced by others of the same type (default: 1)")
    p.add_argument("--deletions", type=at_least(0), default=0, metavar="Y",
                   help="pointer statements deleted (default: 0)")
    p.add_argument("-n", type=at_least(1), default=10, metavar="N", help="versions (default: 10)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default: 0)")
    p.add_argument("--loops", action="store_true",
                   help="the specification holds the states at every loop head too (not only entry and exit)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="folder for PROG_vK.c, PROG_vK.json and spec.json (and copies of the local headers "
                        "PROG.c includes, so that each version compiles there)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def run_inject(args: argparse.Namespace) -> int:
    from pathlib import Path

    from crepair.frontend import load_program
    from crepair.heap.build import build_function
    from crepair.heap.inject import inject
    from crepair.heap.states import save_spec
    from crepair.heap.reference import reference_spec

    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {out}: not a folder")
    program = load_program(args.file, real_c=True)
    fn = build_function(program, args.function)
    spec = reference_spec(program, fn, args.file, args.loops)
    versions = inject(program, fn, spec, args.mutations, args.deletions, args.n, args.seed)
    out.mkdir(parents=True, exist_ok=True)
    _copy_headers(Path(args.file), out)
    save_spec(spec, out / "spec.json")
    stem = Path(args.file).stem
    records = []
    for k, v in enumerate(versions, 1):
        (out / f"{stem}_v{k}.c").write_text(v.text)
        (out / f"{stem}_v{k}.json").write_text(json.dumps(v.as_json(), indent=1) + "\n")
        records.append({"file": str(out / f"{stem}_v{k}.c"), **v.as_json()})
    if args.json:
        print(json.dumps({"file": args.file, "versions": records}, indent=2))
    else:
        print(f"{len(versions)} of {args.n} versions <{args.mutations},{args.deletions}> (seed {args.seed}) in {out}; "
              f"specification {out / 'spec.json'}")
        for r in records:
            what = [f"line {ln}: {a} -> {b}" for ln, a, b in r["mutations"]]
            what += [f"line {ln}: deleted {s}" for ln, s in r["deletions"]]
            print(f"  {r['file']}: {'; '.join(what)}")
    return ExitCode.OK if versions else ExitCode.NO_REPAIR


def _copy_headers(source, out) -> None:
    """Copy the local headers ``source`` includes into ``out`` (same
    relative paths), so that the versions written there compile; a header
    outside the source's folder (``../x.h``) is named on stderr instead."""
    import shutil

    from crepair.frontend.includes import local_headers

    for rel in local_headers(source):
        src, dst = source.parent / rel, out / rel
        if rel.parts[0] == "..":
            print(f"crepair inject: warning: {src} (included by {source}) is outside its folder: not copied to {out}; "
                  "the versions need it there to compile", file=sys.stderr)
        elif not (dst.exists() and dst.samefile(src)):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
