"""Human-readable renderings of verification and repair results."""

from __future__ import annotations

from crepair.api import LocalizeResult, RepairRun
from crepair.schemes.mutation import Repair, RepairOutcome, SearchStats
from crepair.bmc import VerifyOutcome, VerifyResult


def _source_line(original: str, line: int) -> str:
    lines = original.split("\n")
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _input_lines(cex, original: str) -> list[str]:
    """One line per counterexample input, with the source line it comes from."""
    return [
        f"  {inp.label:<28} = {inp.value}    (line {inp.line}: {_source_line(original, inp.line)})"
        for inp in cex.inputs
    ]


def _bound_warning(bound) -> list[str]:
    """A warning when the unwinding bound cut off runs (or that is unknown)."""
    return [f"warning: {bound.message()}"] if bound.too_small is not False else []


def render_verify(result: VerifyResult, original: str) -> str:
    out = []
    b = result.bound.bound
    if result.outcome == VerifyOutcome.VERIFIED:
        if result.bound.too_small:
            out.append(f"no assertion violated within unwinding bound {b}, but NOT verified:")
        else:
            out.append(f"verified up to unwinding bound {b} ({result.entry})")
    elif result.outcome == VerifyOutcome.VIOLATED:
        cex = result.counterexample
        a = cex.assertion
        out.append(f"assertion violated: {a.file}:{a.line}: {original[a.start:a.end]}")
        out.append("counterexample inputs:")
        out.extend(_input_lines(cex, original))
        out.append("executed lines: " + " ".join(str(n) for n in cex.lines))
    else:
        out.append(f"unknown: the solver gave up (unwinding bound {b})")
    out.extend(_bound_warning(result.bound))
    for w in result.warnings:
        out.append(f"warning: {w}")
    out.append(f"time: {result.seconds:.2f} s")
    return "\n".join(out)


def render_repair(repair: Repair, index: int) -> str:
    out = [f"repair {index} (size {repair.size}, {repair.scheme}, found after {repair.seconds:.2f} s)"]
    for ch in repair.changes:
        m = ch.mutation
        loc = ch.location
        out.append(
            f"  {loc.span.file}:{loc.span.line}: {m.old_text} -> {m.new_text}   in   {ch.original}  =>  {ch.replacement}"
        )
    if repair.bound is not None and repair.bound.too_small is not False:
        out.append(f"  warning: for the repaired program, {repair.bound.message()}")
    out.append(repair.diff.rstrip("\n"))
    return "\n".join(out)


_OUTCOME_TEXT = {
    RepairOutcome.REPAIRED: "repaired",
    RepairOutcome.NO_REPAIR: "no repair within the scheme up to size {k}",
    RepairOutcome.EXHAUSTED: "no repair within the scheme (search space exhausted)",
    RepairOutcome.ORIGINAL_CORRECT: "original program is already correct up to unwinding bound {b}",
    RepairOutcome.UNKNOWN: "unknown (time-out or solver unknown before the search ended)",
}


def render_header(run: RepairRun) -> str:
    o = run.options
    stats = run.stats
    timeout = "none" if o.timeout is None else f"{o.timeout:g} s"
    lines = [
        f"crepair repair {run.program.path}: scheme {','.join(x.value for x in o.schemes)}, level {int(o.level)}, "
        f"max size {o.max_size}, unwinding bound {o.unwind}, timeout {timeout}",
    ]
    if stats.space:
        lines.append(
            f"{stats.locations} repairable locations; search space "
            + ", ".join(f"size {k}: {n}" for k, n in stats.space.items())
        )
    if run.bound.too_small or run.bound.too_small is None:
        lines.append(f"warning: {run.bound.message()}; repairs are correct only up to the bound")
    return "\n".join(lines)


def render_summary(run: RepairRun, found: int) -> str:
    out = []
    schemes = [x.value for x in run.options.schemes]
    if "mutation" in schemes:
        out.append(_mutation_summary(run, found if schemes == ["mutation"] else run.stats.repairs))
    if "template" in schemes:
        t = run.template_stats
        out.append(
            "summary (template scheme):\n"
            f"  diagnoses tried: {t.diagnoses} (the last found after {t.diagnosis_seconds:.2f} s)\n"
            f"  repairs: {t.repairs}; SMT checks of the refinement loops: {t.checks}; time: {t.seconds:.2f} s\n"
            f"  outcome: {_OUTCOME_TEXT[t.outcome].format(k=run.options.max_size, b=run.options.unwind)}"
        )
    if len(schemes) > 1:
        out.append(f"overall outcome: {run.outcome.value} ({found} repair{'s' if found != 1 else ''})")
    return "\n".join(out)


def _mutation_summary(run: RepairRun, found: int) -> str:
    stats: SearchStats = run.stats
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
    text = _OUTCOME_TEXT[stats.outcome].format(k=stats.max_size, b=run.options.unwind)
    if stats.outcome == RepairOutcome.REPAIRED:
        complete = stats.complete
        text += f" ({found} repair{'s' if found != 1 else ''}" + (
            f"; all minimal repairs of size <= {stats.max_size} found)" if complete else "; search stopped early)"
        )
    out.append(f"  outcome: {text}")
    return "\n".join(out)


def _highlight(original: str, span) -> list[str]:
    lines = original.split("\n")
    text = lines[span.line - 1] if span.line <= len(lines) else ""
    end = span.end_column if span.end_line == span.line else len(text)
    marker = "".join("\t" if ch == "\t" else " " for ch in text[: span.column - 1])
    return [f"{span.line:>6} | {text}", f"{'':>6} | {marker}{'^' * max(end - span.column + 1, 1)}"]


def render_localize(result: LocalizeResult, original: str) -> str:
    out = []
    if result.counterexample is None:
        if result.outcome.value == "verified":
            out.append(f"no assertion violation within unwinding bound {result.bound.bound}: nothing to localize")
        else:
            out.append("unknown: the solver gave up; nothing localized")
        out.extend(_bound_warning(result.bound))
        return "\n".join(out)
    cex = result.counterexample
    a = cex.assertion
    if result.method.value == "diagnosis":
        return _render_diagnoses(result, original)
    n = len(result.locations)
    out.append(
        f"must location set ({n} location{'s' if n != 1 else ''}) for the violation of "
        f"{a.file}:{a.line}: {original[a.start:a.end]}"
    )
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
    a = result.counterexample.assertion
    out = [
        f"minimal diagnoses for the violation of {a.file}:{a.line}: {original[a.start:a.end]} "
        f"(model-based diagnosis, smallest first)"
    ]
    if not result.diagnoses:
        out.append("  none found within the limits")
    for i, d in enumerate(result.diagnoses, start=1):
        out.append(f"diagnosis {i} (size {d.size}, after {d.seconds:.2f} s):")
        for loc in d.components:
            out.append(f"  {loc.span.file}:{loc.span.line}:{loc.span.column} in {loc.function}() [{loc.kind.value}]")
            out.extend("  " + line for line in _highlight(original, loc.span))
    out.append(
        "meaning: changing the components of one diagnosis can make the program pass on the failing inputs used "
        f"(unwinding bound {result.bound.bound}); minimal diagnoses are minimal hitting sets of the conflicts."
    )
    out.extend(_bound_warning(result.bound))
    return "\n".join(out)
