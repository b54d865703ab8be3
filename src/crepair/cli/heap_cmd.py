"""``crepair repair --scheme heap`` and ``crepair localize --method
gradient``: Wolverine2's repair and localization against program states
(``--states SPEC.json``, or ``--states-from CORRECT.c --checkpoints F``)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from crepair.cli.common import ExitCode, at_least, finish, write_html
from crepair.errors import UsageError
from crepair.records import RepairOutcome


AUTO_SLOTS = 2  # insertion slots tried at most without --insert-slots (0, 1, 2: as the debug shell's repair)


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


def heap_options(args: argparse.Namespace, **extra):
    """The :class:`~crepair.schemes.heap.HeapOptions` of the command line."""
    from crepair.heap.states import load_spec
    from crepair.schemes.heap import HeapOptions

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
    return HeapOptions(function, args.states, args.states_from, loops, **extra)


def _refuse_bounded(args: argparse.Namespace) -> None:
    for name in ("init", "assume", "input_bound"):
        if getattr(args, name, None) is not None:
            raise UsageError(f"--{name.replace('_', '-')}: not used by the heap scheme")


_EXIT = {RepairOutcome.REPAIRED: ExitCode.OK, RepairOutcome.NO_REPAIR: ExitCode.NO_REPAIR,
         RepairOutcome.ORIGINAL_CORRECT: ExitCode.ORIGINAL_CORRECT}


def run_repair(args: argparse.Namespace) -> int:
    from crepair.frontend import load_program
    from crepair.patch import apply_to_file
    from crepair.report import json_report, text
    from crepair.schemes.heap import HeapScheme

    if args.scheme != ["heap"]:
        raise UsageError("--scheme heap runs alone")
    _refuse_bounded(args)
    slots = [args.insert_slots] if args.insert_slots is not None else list(range(AUTO_SLOTS + 1))
    options = heap_options(args, insert_slots=slots[0], localization=not args.no_localization,
                           tries=args.tries, max_repairs=1 if args.first else (args.max_repairs or 1),
                           timeout=args.timeout, started=args.started)
    program = load_program(args.file, real_c=True)
    scheme = HeapScheme(program, options)
    spec, rechecks = scheme.spec, scheme.rechecks
    repairs, checks, rejected, seconds = [], 0, 0, 0.0
    if not args.json:
        given = (f"{options.insert_slots} insertion slots" if len(slots) == 1 else
                 f"insertion slots 0, then up to {slots[-1]} while none repairs")
        print(f"crepair repair {args.file}: scheme heap (Wolverine2), function {options.function}, "
              f"{len(spec.traces)} calls, {spec.events} events, {given}, "
              f"localization {'on' if options.localization else 'off'}", flush=True)
    for k, n in enumerate(slots):
        if k:  # the last count found nothing and ruled out every repair with it: widen (Algorithm 1's N)
            if not args.json:
                print(f"no repair with {slots[k - 1]} insertion slot(s); trying {n}", flush=True)
            # the same deadline (--timeout from the command's start): past it, the scheme ends unknown at once
            scheme = HeapScheme(program, dataclasses.replace(options, insert_slots=n), spec=spec, rechecks=rechecks)
        st = scheme.stats
        for rep in scheme.repairs():
            rep = dataclasses.replace(rep, seconds=seconds + rep.seconds)  # on the clock of the first attempt
            repairs.append(rep)
            if not args.json:
                print()
                print(text.render_repair(rep, len(repairs)), flush=True)
                print(f"  {rep.evidence.describe()}")
        checks, rejected = checks + st.checks, rejected + st.rejected
        seconds += st.seconds  # the scheme's own clock, which its repairs' times are on
        if st.outcome != RepairOutcome.NO_REPAIR:
            break
    summary = {"outcome": st.outcome.value, "stopped": st.stopped.value, "reason": st.reason,
               "locations": st.locations, "suspicious": st.suspicious, "insert_slots": scheme.options.insert_slots,
               "widenings": st.widenings, "tau": {"grd": st.tau[0], "stm": st.tau[1], "ins": st.tau[2]},
               "rejected": rejected, "checks": checks, "seconds": round(seconds, 3)}
    report = json.dumps({"file": args.file, "scheme": "heap", **summary,
                         "repairs": [json_report.repair_dict(r) for r in repairs]}, indent=2)
    if not args.json:
        sus = "off" if st.suspicious is None else f"{len(st.suspicious)} of {st.locations} locations suspicious"
        print()
        print(f"{st.outcome.value}: {len(repairs)} repair(s) with {scheme.options.insert_slots} insertion slot(s); "
              f"localization {sus}; widenings {st.widenings} "
              f"(τ_grd {st.tau[0]}, τ_stm {st.tau[1]}, τ_ins {st.tau[2]}); {rejected} candidate(s) failed "
              f"the re-check{'; ' + st.reason if st.reason else ''}")

    def writes() -> None:
        write_html(args, "repair", report, program.original, states=scheme.spec)
        if args.apply and repairs:
            backup = apply_to_file(args.file, repairs[0].patched, original=program.original,
                                   anyway=args.apply_anyway)
            print(f"applied repair 1 to {args.file} (original kept as {backup})", file=sys.stderr)

    failed = finish(args, report, writes)
    if failed is not None:
        return failed
    return _EXIT.get(st.outcome, ExitCode.UNKNOWN)


def run_localize(args: argparse.Namespace) -> int:
    from crepair.localization.gradient import localize_gradient

    _refuse_bounded(args)
    options = heap_options(args)
    result = localize_gradient(args.file, options)
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
