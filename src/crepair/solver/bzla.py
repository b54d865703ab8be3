"""Bitwuzla as a second SMT back end, beside z3 (Niemetz & Preiner,
"Bitwuzla", CAV'23).

The encoder's terms stay z3 terms.  A check hands the solver's assertions
to Bitwuzla as SMT-LIB 2 text: z3 prints them (:func:`smt2_text`) and
Bitwuzla's own parser reads them into its term manager.  z3's
``fp.to_ieee_bv`` (floating point to its bit pattern), which SMT-LIB lacks,
becomes a fresh bit-vector constant ``v`` with ``((_ to_fp e s) v) = x``:
``v`` is then the pattern of ``x``, and for a NaN the one NaN pattern of
its sort (z3 leaves which one open, but gives every NaN of a sort the
same).  The check runs in a forked child watched by a thread
(:class:`BitwuzlaRun`) that a deadline, a cancel or Ctrl-C
(:func:`crepair.interrupt.requested`) stops with UNKNOWN.  On SAT the values
of the declared constants are read back as SMT-LIB text, and
:func:`model_of` turns them into a z3 model, so counterexamples are read as
from z3.

>>> import z3
>>> x = z3.BitVec("x", 8)
>>> run = BitwuzlaRun(smt2_text([x * x == 49, z3.ULT(x, 100)]), seconds=10.0)
>>> run.start(); run.join()
True
>>> run.verdict.value, model_of(run.values).eval(x)
('sat', 7)
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence

import bitwuzla
import z3

from crepair import interrupt
from crepair.solver.smt import Verdict
from crepair.solver.terms import applications, lambdas
from crepair.toolchain.child import ChildCall

#: seconds a cancelled check may take to stop before it is left to run out
STOP_GRACE = 0.5
_FRESH = "crepair!ieee!{}"  # the constant standing for the i-th fp.to_ieee_bv application (0-based)
_NAN = "crepair!ieee!nan!{}!{}"  # the one pattern of every NaN of the FP sort (exponent bits, significand bits)
_NAN_NAME = re.compile(re.escape(_NAN).replace(r"\{\}", r"(\d+)"))
_LAMBDA = "crepair!lambda!{}"  # the array constant standing for the i-th lambda term (0-based)


def _substituted(terms: Sequence[z3.BoolRef], pairs: list) -> list[z3.BoolRef]:
    """``terms`` with each ``(old, new)`` of ``pairs`` substituted, as one
    conjunction when there are pairs: one ``z3.substitute`` call, which
    checks every pair in Python per call (150 s for Codeflaws 24-D's 1,309
    floating-point conversions substituted into its assertions one by one)."""
    if not pairs:
        return list(terms)
    return [z3.substitute(terms[0] if len(terms) == 1 else z3.And(*terms), *pairs)]


def _without_to_ieee_bv(assertions: Sequence[z3.BoolRef]) -> list[z3.BoolRef]:
    """``assertions`` with every ``fp.to_ieee_bv(x)`` replaced by a fresh
    constant ``v`` and ``fpBVToFP(v) == x`` added, and every NaN of one
    sort given one pattern (a fresh NaN pattern per sort): z3 reads
    ``fp.to_ieee_bv`` as a function, free on NaN but one value for all NaNs
    of a sort, so a model where two NaNs had two patterns was no model of
    ``assertions`` to z3 (Codeflaws 20-B: "z3 rejects Bitwuzla's model").
    Equisatisfiable, and every model of the result is one of ``assertions``."""
    apps = applications(assertions, z3.Z3_OP_FPA_TO_IEEE_BV)  # each once, in a deterministic order
    pairs = [(app, z3.BitVec(_FRESH.format(i), app.size())) for i, app in enumerate(apps)]
    defs = [z3.fpBVToFP(v, app.arg(0).sort()) == app.arg(0) for app, v in pairs]
    nans: dict[tuple[int, int], z3.BitVecRef] = {}
    for app, v in pairs:
        fsort = app.arg(0).sort()
        key = (fsort.ebits(), fsort.sbits())
        nan = nans.get(key)
        if nan is None:
            nan = nans[key] = z3.BitVec(_NAN.format(*key), app.size())
            defs.append(z3.fpIsNaN(z3.fpBVToFP(nan, fsort)))
        defs.append(z3.Implies(z3.fpIsNaN(app.arg(0)), v == nan))
    return _substituted([*assertions, *defs], pairs)


def _without_lambdas(assertions: Sequence[z3.BoolRef]) -> list[z3.BoolRef]:
    """``assertions`` with every lambda term ``λi. body`` (the encoder's
    bulk array updates, :func:`crepair.solver.arrays.fill`) replaced by a
    fresh array constant ``a`` defined by ``∀i. a[i] = body``: Bitwuzla's
    SMT-LIB parser has no ``lambda``, but reads quantifiers.
    Equisatisfiable, and every model of the result is one of
    ``assertions`` (a lambda inside another's body stays as it is)."""
    pairs, defs = [], []
    for k, lam in enumerate(lambdas(assertions)):  # each once, in a deterministic order
        array = z3.Const(_LAMBDA.format(k), lam.sort())
        xs = [z3.Const(f"{_LAMBDA.format(k)}!{j}", lam.var_sort(j)) for j in range(lam.num_vars())]
        body = z3.substitute_vars(lam.body(), *reversed(xs))  # de Bruijn index 0 is the last bound variable
        defs.append(z3.ForAll(xs, z3.Select(array, *xs) == body))
        pairs.append((lam, array))
    return _substituted([*assertions, *defs], pairs)


def smt2_text(assertions: Sequence[z3.BoolRef]) -> str:
    """The SMT-LIB 2 script (declarations and assertions, shared subterms
    as ``let``s, no ``check-sat``) of ``assertions``, in the SMT-LIB
    theories Bitwuzla reads.

    The assertions go to z3's printer as one conjunction: it shares
    subterms (``let``) within one assertion only, so a term every
    assertion reads (the unwound program's array state) was printed once
    per assertion — 1.7 GB of text in a minute for Codeflaws 300-B's 26,225
    assertions, 6 MB in 0.2 s as one."""
    text = _script(assertions)
    if "(lambda " in text:
        assertions = _without_lambdas(assertions)
        text = _script(assertions)
    if "fp.to_ieee_bv" in text:
        text = _script(_without_to_ieee_bv(assertions))
    return _INTERNAL_DIVISION.sub(r"(\1 ", text.replace("(check-sat)", ""))


#: z3's internal names of the division operators (``bvsdiv_i`` …), which
#: its simplifier writes for ``bvsdiv`` …; under z3's default ``hi_div0``
#: they have SMT-LIB's semantics, a zero divisor included
_INTERNAL_DIVISION = re.compile(r"\((bv[su]div|bv[su]rem|bvsmod)_i ")


def _script(assertions: Sequence[z3.BoolRef]) -> str:
    """z3's SMT-LIB 2 script of ``assertions`` as one assertion (an ``and``
    of two or more: Bitwuzla rejects an ``and`` of one)."""
    solver = z3.Solver()
    solver.add(*(assertions if len(assertions) < 2 else [z3.And(*assertions)]))
    return solver.to_smt2()


#: Bitwuzla's answers as verdicts
_VERDICTS = {bitwuzla.Result.SAT: Verdict.SAT, bitwuzla.Result.UNSAT: Verdict.UNSAT}


def _solve(text: str, seconds: float | None, seed: int) -> tuple[Verdict, str, list[tuple[str, str, str]], bool]:
    """Bitwuzla's check of ``text`` within ``seconds`` (in the child of a
    :class:`BitwuzlaRun`): (verdict, reason when UNKNOWN, the values when
    SAT, whether its parser rejected ``text``)."""
    end = None if seconds is None else time.monotonic() + seconds
    unreadable = True
    try:
        options = bitwuzla.Options()
        options.set(bitwuzla.Option.PRODUCE_MODELS, True)
        options.set(bitwuzla.Option.SEED, seed)
        if seconds is not None:  # a second guard, where the terminator is not asked
            options.set(bitwuzla.Option.TIME_LIMIT_PER, max(1, int(seconds * 1000) + 100))
        parser = bitwuzla.Parser(bitwuzla.TermManager(), options)
        parser.parse(text, True, False)
        unreadable = False
        solver = parser.bitwuzla()
        solver.configure_terminator(lambda: end is not None and time.monotonic() >= end)
        verdict = _VERDICTS.get(solver.check_sat(), Verdict.UNKNOWN)
        values = [] if verdict != Verdict.SAT else [(f.symbol(), str(f.sort()), str(solver.get_value(f)))
                                                    for f in parser.get_declared_funs()]
        return verdict, "" if verdict != Verdict.UNKNOWN else "timeout", values, False
    except Exception as exc:  # a parse error, or memory: unknown, with the reason
        return Verdict.UNKNOWN, f"bitwuzla: {exc}", [], unreadable


class BitwuzlaRun:
    """One satisfiability check of the SMT-LIB 2 ``text`` by Bitwuzla
    (``with`` block or :meth:`start`/:meth:`join`).  Read the answer only
    once :attr:`done` is set.

    Bitwuzla solves in a forked child (:class:`crepair.toolchain.child.ChildCall`),
    watched by a thread of this process that kills it at the time limit,
    on :meth:`cancel` or on Ctrl-C: in a thread of this process its parser
    and preprocessing held the interpreter's lock for minutes past the
    limit on large formulas (Codeflaws 300-B: a check given 7 s took 47 s,
    and 6.7 GB).

    ``seconds``: the time limit (None: none); ``seed``: Bitwuzla's random
    seed; ``on_decided``: called from the thread once the answer is SAT or
    UNSAT (the portfolio interrupts z3 with it).  After :meth:`join`:
    ``verdict``; ``reason`` when UNKNOWN ("timeout", "interrupted",
    "cancelled" or Bitwuzla's error, e.g. a symbol its parser does not
    know); ``unreadable``: Bitwuzla's parser rejected ``text``; ``values``
    when SAT: (name, SMT-LIB sort, SMT-LIB value) of each declared
    constant, in declaration order; ``seconds`` spent.  Nothing here
    raises: Bitwuzla's errors become UNKNOWN with their text.
    """

    def __init__(self, text: str, seconds: float | None = None, seed: int = 0,
                 on_decided: Callable[[], None] | None = None):
        self._text = text
        self._seconds = seconds
        self._end: float | None = None
        self._seed = seed
        self._on_decided = on_decided
        self._cancel = threading.Event()
        self._call: ChildCall | None = None
        self.done = threading.Event()
        self.verdict = Verdict.UNKNOWN
        self.reason = "not run"
        self.values: list[tuple[str, str, str]] = []
        self.unreadable = False
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._run, name="crepair-bitwuzla", daemon=True)

    def start(self) -> None:
        """Forks the child (from the calling thread, before the portfolio's
        z3 thread starts) and the thread that watches it."""
        self._end = None if self._seconds is None else time.monotonic() + self._seconds
        self._call = ChildCall(_solve, self._text, self._seconds, self._seed)
        self._thread.start()

    def cancel(self) -> None:
        """Stop the check (it answers UNKNOWN, reason "cancelled") unless decided."""
        self._cancel.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the check to end (at most ``timeout`` seconds; None: no
        limit); whether it has ended."""
        self._thread.join(timeout)
        return self.done.is_set()

    def __enter__(self) -> "BitwuzlaRun":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        """Cancel the check and wait :data:`STOP_GRACE` seconds at most."""
        self.cancel()
        self.join(STOP_GRACE)

    def _stop(self) -> bool:
        """Whether the child is to be killed: cancelled, Ctrl-C, or past the limit."""
        return (self._cancel.is_set() or interrupt.requested()
                or (self._end is not None and time.monotonic() >= self._end))

    def _run(self) -> None:
        start = time.monotonic()
        call = self._call
        try:
            while not call.wait(0.02):
                if self._stop():  # the child is killed below
                    self.verdict, self.reason = Verdict.UNKNOWN, self._why()
                    return
            answered, value = call.result(0.0)
            if answered:
                self.verdict, self.reason, self.values, self.unreadable = value
            else:
                self.verdict, self.reason = Verdict.UNKNOWN, "bitwuzla: its process died (memory?)"
        except Exception as exc:  # an answer that does not unpickle: unknown, with the reason
            self.verdict, self.reason = Verdict.UNKNOWN, f"bitwuzla: {exc}"
        finally:
            call.cancel()
            self.seconds = time.monotonic() - start
            self.done.set()
        if self.verdict != Verdict.UNKNOWN and self._on_decided is not None:
            self._on_decided()

    def _why(self) -> str:
        if interrupt.requested():
            return "interrupted"
        return "cancelled" if self._cancel.is_set() else "timeout"


def equalities(values: Sequence[tuple[str, str, str]]) -> list[z3.BoolRef]:
    """``name == value`` for each (name, sort, value) of
    :attr:`BitwuzlaRun.values`, as z3 terms over the constants of the
    checked formula (z3 knows a constant by its name and sort), except the
    constants :func:`smt2_text` made."""
    kept = [(_quoted(n), s, v) for n, s, v in values if not n.strip("|").startswith("crepair!ieee!")]
    if not kept:
        return []
    script = "".join(f"(declare-fun {n} () {s})" for n, s, _ in kept)
    script += "".join(f"(assert (= {n} {v}))" for n, _, v in kept)
    return list(z3.parse_smt2_string(script))


def _quoted(name: str) -> str:
    """An SMT-LIB symbol as Bitwuzla's ``symbol()`` gives it (quoted only
    when it must be), quoted."""
    return name if name.startswith("|") else f"|{name}|"


def model_of(values: Sequence[tuple[str, str, str]]) -> z3.ModelRef:
    """The z3 model giving each constant of ``values`` (see
    :attr:`BitwuzlaRun.values`) its value, and ``fp.to_ieee_bv`` of a NaN
    the pattern Bitwuzla chose for the NaNs of its sort (z3's evaluation
    would give its own); constants not in it are free."""
    model = z3.Model()
    for eq in equalities(values):
        model.update_value(eq.arg(0), eq.arg(1))
    for name, _, value in values:
        m = _NAN_NAME.fullmatch(name.strip("|"))
        if m:
            fsort = z3.FPSort(int(m[1]), int(m[2]))
            _nan_pattern(model, fsort, z3.BitVecVal(_bits(value), fsort.ebits() + fsort.sbits()))
    return model


def _bits(value: str) -> int:
    """An SMT-LIB bit-vector literal (``#b0101``, ``#x1f``) as a number."""
    return int(value[2:], 2 if value.startswith("#b") else 16)


def _nan_pattern(model: z3.ModelRef, fsort: z3.FPSortRef, pattern: z3.BitVecRef) -> None:
    """Make ``fp.to_ieee_bv`` of ``fsort``'s NaN give ``pattern`` in
    ``model`` (other values: their own pattern)."""
    ctx = model.ctx
    decl = z3.fpToIEEEBV(z3.FP("crepair!nan", fsort)).decl()
    interp = z3.Z3_add_func_interp(ctx.ref(), model.model, decl.ast,
                                   z3.fpToIEEEBV(z3.Var(0, fsort)).as_ast())
    args = z3.AstVector(ctx=ctx)
    args.push(z3.fpNaN(fsort))
    z3.Z3_func_interp_add_entry(ctx.ref(), interp, args.vector, pattern.as_ast())


def satisfies(model: z3.ModelRef, assertions: Sequence[z3.BoolRef]) -> bool:
    """Whether z3's evaluation of every assertion in ``model`` is true (a
    value SMT-LIB leaves open, e.g. which NaN ``fp.to_ieee_bv`` gives, may
    make Bitwuzla's model fail it)."""
    return all(z3.is_true(model.eval(a, model_completion=True)) for a in assertions)
