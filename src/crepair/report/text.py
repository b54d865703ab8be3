"""Human-readable renderings of verification, localization and repair results.

Renderers read records only (``crepair.records``, ``bmc``, a repair run's
:class:`~crepair.run_record.RunRecord`); ``original`` is the user's file text.
"""

from __future__ import annotations

from crepair.bmc import ENCODING_TIMEOUT, VerifyOutcome, VerifyResult, Violation

from crepair.counterexample import Counterexample
from crepair.encode.formula import Unwinding
from crepair.localization.result import LocalizeResult
from crepair.localization.spectrum import SpectrumResult
from crepair.options import Method
from crepair.records import BoundReport, Repair, RepairOutcome, StopReason
from crepair.run_record import MutationStats, RunRecord, SchemeStats, TemplateStats


MUTATE_MAIN_HINT = ("Move the code under test out of main into a function, or pass --mutate-main to let the code "
                    "of main (not its assertions) be repaired.")


def _source_line(original: str, line: int) -> str:
    lines = original.split("\n")  # a CR of CR LF is stripped below
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def plural(n: int, word: str) -> str:
    """``n`` and ``word`` in the plural unless ``n`` is 1 ("3 patches")."""
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith(("ch", "sh", "s", "x")) else "s")


def edits_text(edits) -> str:
    """A change's edits on one line, ``old -> new; ...`` (white space runs
    as one space; ``(nothing)`` for an empty side)."""
    def side(t: str) -> str:
        return " ".join(t.split()) or "(nothing)"
    return "; ".join(f"{side(e.old)} -> {side(e.new)}" for e in edits)


def _violation(cex: Counterexample, original: str) -> str:
    a = cex.assertion
    if cex.violated == Violation.UNWINDING_ASSERTION:
        return f"unwinding assertion violated: {a.file}:{a.line}: a run goes beyond the unwinding bound here"
    if cex.violated != Violation.ASSERTION:  # undefined behaviour: file:line:col, the kind, what the run does
        return f"{a}: {cex.violated.value}: {cex.detail}"
    return f"assertion violated: {a.file}:{a.line}: {' '.join(original[a.start:a.end].split())}"


def _input_lines(cex: Counterexample, original: str) -> list[str]:
    """One line per counterexample input, with the source line it comes from."""
    return [
        f"  {inp.label:<28} = {inp.text()}" + (f"    (line {inp.line}: {_source_line(original, inp.line)})"
                                                if inp.line > 0 else "")
        for inp in cex.inputs
        if inp.executed  # inputs on paths the run does not take play no part
    ]


def _bound_warning(bound: BoundReport) -> list[str]:
    """A warning when the unwinding bound cut off runs (or that is unknown)."""
    return [f"warning: {bound.message()}"] if bound.too_small is not False else []


def render_verify(result: VerifyResult, original: str) -> str:
    out = []
    b = result.bound.bound
    if result.outcome == VerifyOutcome.VERIFIED:
        out.append(f"verified up to unwinding bound {b} ({result.entry})")
    elif result.outcome == VerifyOutcome.BOUND_TOO_SMALL:
        out.append(f"no assertion violated within unwinding bound {b}, but NOT verified (bound too small):")
    elif result.outcome == VerifyOutcome.VIOLATED:
        cex = result.counterexample
        out.append(_violation(cex, original))
        out.append("counterexample inputs:")
        out.extend(_input_lines(cex, original))
        out.append("executed lines: " + " ".join(str(n) for n in cex.lines))
    else:
        out.append(f"unknown: {_gave_up(result.reason)} ({result.reason or 'unknown'}; unwinding bound {b})")
    if 0 < result.found_within < b:  # iterative deepening found it: the bound asked for was not checked
        out.append(f"found within unwinding bound {result.found_within} (the bound asked for is {b})")
    else:
        out.extend(_bound_warning(result.bound))
    for w in result.warnings:
        out.append(f"warning: {w}")
    decided = f" (decided by {result.solver})" if result.backend != "z3" and result.solver else ""
    out.append(f"time: {result.seconds:.2f} s{decided}")
    return "\n".join(out)


def render_repair(repair: Repair, index: int) -> str:
    label = ", VACUOUS" if repair.vacuous else ""
    out = [
        f"repair {index} (size {repair.size}, {repair.stage or repair.scheme.value}{label}, "
        f"found after {repair.seconds:.2f} s)"
    ]
    for ch in repair.changes:
        if not ch.before.strip():  # an inserted statement (heap scheme's insertion slot)
            out.append(f"  {ch.span.file}:{ch.span.line}: insert   {' '.join(ch.after.split())}")
            continue
        if not ch.after.strip():  # a deleted statement
            out.append(f"  {ch.span.file}:{ch.span.line}: delete   {' '.join(ch.before.split())}")
            continue
        tokens = "; ".join(f"{e.old} -> {e.new}" for e in ch.edits)
        out.append(f"  {ch.span.file}:{ch.span.line}: {tokens}   in   {ch.before}  =>  {ch.after}")
    out.append(f"  {'warning' if repair.vacuous else 'evidence'}: {repair.evidence.describe()}")
    out.append(repair.diff.rstrip("\n"))
    return "\n".join(out)


def render_header(run: RunRecord) -> str:
    o = run.options
    timeout = "none" if o.timeout is None else f"{o.timeout:g} s"
    if run.budget_units is not None:
        timeout += f" counted as {run.budget_units / 1e6:g} M z3 resource units (reproducible)"
    lines = [
        f"crepair repair {run.path}: "
        + (f"schedule {' / '.join(st.label for st in run.stages)}, each if the ones before found no "
           f"repair" if run.escalate else f"scheme {','.join(x.value for x in o.schemes)}, level {int(o.level)}")
        + f", max size {o.max_size}, unwinding bound {o.unwind} ({o.unwinding.value}), timeout {timeout}",
    ]
    stats = run.stats
    if isinstance(stats, MutationStats) and stats.space:
        lines.append(
            f"{stats.locations} repairable locations; search space "
            + ", ".join(f"size {k}: {n}" for k, n in stats.space.items())
        )
        if stats.locations == 0 and run.only_main:
            lines.append(MUTATE_MAIN_HINT)
    if run.bound.too_small:
        if o.unwinding == Unwinding.ASSERTIONS:
            lines.append(f"warning: the original program's runs go beyond the bound: {run.bound.message()}; "
                         "a repair must also end every run within the bound (unwinding assertions)")
        else:
            lines.append(f"warning: {run.bound.message()}; repairs are correct only up to the bound")
    elif run.bound.too_small is None:
        lines.append(f"warning: {run.bound.message()}")
    if run.counterexample is not None:
        lines.append("the original program: " + _violation(run.counterexample, run.original))
    return "\n".join(lines)


def _outcome_text(run: RunRecord, stats: SchemeStats | None, found: int) -> str:
    o = run.options
    outcome = stats.outcome if stats is not None else run.outcome
    b = o.unwind
    if outcome == RepairOutcome.ORIGINAL_CORRECT:
        return f"original program is already correct up to unwinding bound {b} (every run fits the bound)"
    if outcome == RepairOutcome.BOUND_TOO_SMALL:
        return (f"no assertion fails within unwinding bound {b}, but the bound cuts off runs: nothing to repair "
                f"and nothing proved ({run.bound.message()})")
    if outcome == RepairOutcome.UNKNOWN:
        reason = (stats.reason if stats is not None else "") or run.unknown_reason or "solver unknown"
        return f"unknown ({reason}): no repair found, and none ruled out"
    if outcome == RepairOutcome.VACUOUS_ONLY:
        return (f"no repair: the only repairs found are vacuous (correct only because unwinding bound {b} cuts "
                "their runs off)")
    if outcome == RepairOutcome.EXHAUSTED:
        return "no repair within the scheme (search space exhausted)"
    if outcome == RepairOutcome.NO_REPAIR:
        return f"no repair within the scheme up to size {getattr(stats, 'max_size', None) or o.max_size}"
    text = f"{outcome.value} ({plural(found, 'repair')}"
    stopped = stats.stopped if stats is not None else run.stopped
    if stopped == StopReason.COMPLETE:
        if isinstance(stats, MutationStats):
            text += f"; all minimal repairs of size <= {stats.max_size} found"
    elif stopped == StopReason.MAX_REPAIRS:
        text += f"; stopped after {plural(found, 'repair')} as asked (--max-repairs {o.max_repairs})"
    elif stopped == StopReason.TIMEOUT:
        text += "; time limit reached"
    elif stopped in (StopReason.CALLER, StopReason.NOT_STARTED):
        text += "; stopped by the caller"
    elif stopped == StopReason.UNKNOWN and stats is not None:
        text += f"; some candidates undecided: {stats.reason}"
    if isinstance(stats, MutationStats) and stopped != StopReason.COMPLETE and outcome != RepairOutcome.STOPPED:
        text += "; " + _coverage(stats)
    return text + ")"


def _coverage(stats: MutationStats) -> str:
    """What a stopped AllRepair search covered."""
    done = [k for k in stats.space if k in stats.covered]
    k = stats.size
    parts = [f"every candidate of size <= {max(done)}"] if done else []
    if k and k not in stats.covered:
        parts.append(f"part of size {k} ({stats.checked} candidates checked in all)")
    return "covered " + " and ".join(parts) if parts else "nothing covered"


def render_summary(run: RunRecord) -> str:
    found = run.found
    if not run.searched:
        note = f"\n{run.time_limit_note}" if run.time_limit_note else ""
        return f"outcome: {_outcome_text(run, None, found)}{note}"
    out = []
    for stage in run.stages:
        if stage.skipped:
            out.append(f"stage {stage.label}: not run (a repair was found before it)")
            continue
        if run.escalate:
            out.append(f"stage {stage.label}:")
        stats = stage.stats
        n = found if len(run.stages) == 1 else stats.repairs - stats.vacuous
        if isinstance(stats, MutationStats):
            out.append(_mutation_summary(run, stats))
        elif isinstance(stats, TemplateStats):
            out.append(
                "summary (template scheme):\n"
                f"  diagnoses tried: {stats.diagnoses} (the last found after {stats.diagnosis_seconds:.2f} s)\n"
                f"  repairs: {stats.repairs}; SMT checks of the refinement loops: {stats.checks}; "
                f"time: {stats.seconds:.2f} s"
            )
        if stats.vacuous:
            out.append(f"  vacuous repairs (not counted): {stats.vacuous}")
        out.append(f"  outcome: {_outcome_text(run, stats, n)}")
    if run.within_bound:
        searched = " / ".join(run.within_bound)
        out.append(f"no candidate ends every run within the bound; searched again on unwinding assumptions "
                   f"({searched}): {plural(run.vacuous, 'vacuous repair')} (listed above, not counted)")
    overall = "overall outcome" if len(run.stages) > 1 else "outcome"
    if run.outcome == RepairOutcome.BOUND_TOO_SMALL and run.unprovable:
        out.append(f"{overall}: {run.outcome.value} ({plural(found, 'repair')}): {run.unprovable}")
    elif len(run.stages) > 1:
        out.append(f"overall outcome: {run.outcome.value} ({plural(found, 'repair')})")
    if run.time_limit_note:
        out.append(run.time_limit_note)
    return "\n".join(out)


def _mutation_summary(run: RunRecord, stats: MutationStats) -> str:
    out = ["summary (mutation scheme):", "  size  search space  covered after"]
    for k, n in stats.space.items():
        cov = stats.covered.get(k)
        out.append(f"  {k:<4}  {n:<12}  {'-' if cov is None else f'{cov:.2f} s'}")
    notes = [f"{stats.fresh_checks} by a fresh solver"] if stats.fresh_checks else []
    notes += [f"{stats.unknown_checks} unknown"] if stats.unknown_checks else []
    out.append(f"  SMT checks: {stats.checks}" + (f" ({', '.join(notes)})" if notes else ""))
    prune = run.options.prune.value
    if stats.localizations:
        out.append(
            f"  pruning: {prune} ({stats.localizations} must-set localizations, {stats.localization_seconds:.2f} s)"
        )
    else:
        out.append(f"  pruning: {prune}")
    out.append(f"  time: {stats.seconds:.2f} s")
    return "\n".join(out)


def _highlight(original: str, span) -> list[str]:
    lines = original.split("\n")
    text = lines[span.line - 1].rstrip("\r") if span.line <= len(lines) else ""
    end = span.end_column if span.end_line == span.line else len(text)
    marker = "".join("\t" if ch == "\t" else " " for ch in text[: span.column - 1])
    return [f"{span.line:>6} | {text}", f"{'':>6} | {marker}{'^' * max(end - span.column + 1, 1)}"]


def render_localize(result: LocalizeResult, original: str) -> str:
    out = []
    if result.counterexample is None:
        if result.outcome in (VerifyOutcome.VERIFIED, VerifyOutcome.BOUND_TOO_SMALL):
            out.append(f"no assertion violation within unwinding bound {result.bound.bound}: nothing to localize")
        else:
            out.append(f"unknown: {_gave_up(result.reason)} ({result.reason or 'unknown'}); nothing localized")
        out.extend(_bound_warning(result.bound))
        return "\n".join(out)
    if result.method == Method.DIAGNOSIS:
        return _render_diagnoses(result, original)
    cex = result.counterexample
    n = len(result.locations)
    if n == 0:
        out.append(f"no repairable location for the violation ({_violation(cex, original)}):")
        out.append(
            f"  every expression it depends on is in the specification ({plural(result.in_specification, 'location')}"
            " in main, AllRepair_correct_* or --no-mutate), which is never changed."
        )
        out.append("  " + MUTATE_MAIN_HINT)
        out.extend(_bound_warning(result.bound))
        return "\n".join(out)
    out.append(f"must location set ({plural(n, 'location')}) for the {_violation(cex, original)}")
    for origin in result.locations:
        fn = f" in {origin.function}()" if origin.function else ""
        out.append(f"  {origin.span.file}:{origin.span.line}:{origin.span.column}{fn}")
        out.extend("  " + line for line in _highlight(original, origin.span))
    out.append("counterexample inputs:")
    out.extend(_input_lines(cex, original))
    out.append(
        "guarantee: every repair within the mutation or arbitrary-expression scheme changes "
        f"at least one of these {n} locations (unwinding bound {result.bound.bound})."
    )
    out.extend(_bound_warning(result.bound))
    return "\n".join(out)


def _render_diagnoses(result: LocalizeResult, original: str) -> str:
    out = [
        f"minimal diagnoses for the {_violation(result.counterexample, original)} "
        f"(model-based diagnosis, smallest first)"
    ]
    if not result.diagnoses:
        out.append("  none found within the limits")
    for i, d in enumerate(result.diagnoses, start=1):
        out.append(f"diagnosis {i} (size {d.size}, after {d.seconds:.2f} s):")
        for loc in d.components:
            out.append(f"  {loc.span.file}:{loc.span.line}:{loc.span.column} in {loc.function}() [{loc.kind.value}]")
            out.extend("  " + line for line in _highlight(original, loc.span))
    if not result.complete:
        out.append(f"warning: the enumeration stopped early: {result.reason}; more diagnoses may exist")
    out.append(
        "meaning: changing the components of one diagnosis can make the program pass on the failing inputs used "
        f"(unwinding bound {result.bound.bound}); minimal diagnoses are minimal hitting sets of the conflicts."
    )
    out.extend(_bound_warning(result.bound))
    return "\n".join(out)


def _ids(ids: tuple[str, ...], most: int = 8) -> str:
    shown = " ".join(ids[:most])
    return shown + (f" ... ({len(ids) - most} more)" if len(ids) > most else "")


def spectrum_score(score: float) -> str:
    """A suspiciousness score as shown: 4 decimals, or ``inf``."""
    return "inf" if score == float("inf") else f"{score:.4f}"


def spectrum_ties(ranking) -> list[str]:
    """One line per group of equal scores in ``ranking`` (sorted by
    decreasing score): ``N lines tied at score S (ranks i-j, in line
    order)``; ranks are 1-based.  The ranking cannot tell tied lines apart."""
    out = []
    start = 0
    for end in range(1, len(ranking) + 1):
        if end == len(ranking) or ranking[end].score != ranking[start].score:
            if end - start > 1:
                out.append(f"{end - start} lines tied at score {spectrum_score(ranking[start].score)} "
                           f"(ranks {start + 1}-{end}, in line order)")
            start = end
    return out


def render_spectrum(result: SpectrumResult) -> str:
    """The ranked lines of a spectrum-based localization: rank, file:line,
    score, how many failing (ef) and passing (ep) tests execute the line,
    and the line's text."""
    name = result.formula.value.capitalize() if result.formula.value != "dstar" else "DStar"
    tests = plural(len(result.failing) + len(result.passing), "test")
    if not result.failing:
        return (f"no failing test: {result.path} passes all {tests} ({_ids(result.passing)}); nothing to localize")
    out = [f"spectrum-based localization of {result.path} ({name}): "
           f"{len(result.failing)} failing ({_ids(result.failing)}), {len(result.passing)} passing of {tests}"]
    if result.timed_out:
        out.append(f"  timed out (counted as failing): {_ids(result.timed_out)}")
    if result.estimated:
        out.append(f"  warning: the coverage of {_ids(result.estimated)} is gcov's estimate (the program crashed or "
                   "timed out): lines of the function where it stopped may be missing or extra")
    if not result.ranking:
        out.append(f"no line of {result.path} is executed by every failing test: nothing to rank "
                   "(do the failing tests run this program?)")
        return "\n".join(out)
    out.append(f"the {plural(len(result.ranking), 'line')} executed by every failing test, most suspicious first:")
    out.extend(f"  {tie}" for tie in spectrum_ties(result.ranking))
    width = max(len(f"{result.path}:{r.line}") for r in result.ranking)
    out.append(f"{'rank':>5}  {'location':<{width}}  {'score':>7}  {'ef':>4}  {'ep':>4}  source")
    for rank, r in enumerate(result.ranking, start=1):
        where = f"{result.path}:{r.line}"
        out.append(f"{rank:>5}  {where:<{width}}  {spectrum_score(r.score):>7}  {r.executed_by_failing:>4}  "
                   f"{r.executed_by_passing:>4}  {_source_line(result.original, r.line)}")
    out.append(f"time: {result.seconds:.2f} s")
    return "\n".join(out)


def _gave_up(reason: str) -> str:
    """Who gave up: the encoder (its deadline passed) or the solver."""
    return "no formula within the time limit" if reason == ENCODING_TIMEOUT else "the solver gave up"
