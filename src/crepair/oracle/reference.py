"""The reference implementation as an oracle of concrete runs.

The reference is compiled four times: with gcc's address and
undefined-behaviour sanitizers and uninitialized locals filled with a
pattern, plain with them filled with zeros (``-ftrivial-auto-var-init``),
plain with ``main`` called on a stack dirtied with pseudo-random bytes (and
``malloc`` filling its blocks, ``MALLOC_PERTURB_``), and plain as they are
(as the candidates are built: what the stack holds).  An input is *valid*
when every build ends within the time limit, without a sanitizer report and
without a signal, and prints the same output: then the output does not
depend on undefined behaviour or on uninitialized locals and is the
expected output of that input.  (Uniform fills can agree by chance: an
array read past what ``scanf`` filled, sorted, puts both fills below a
positive value, Codeflaws 22-A; a string read past the end of the input,
``n`` characters of fewer, has equal neighbours under every uniform fill
and under the zeros a fresh stack page holds, Codeflaws 266-A.)  Inputs are run several at once (one
thread per processor; the runs are processes).  The user's
files are only read; the builds live in a temporary folder.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from crepair import toolchain
from crepair.errors import BadInput
from crepair.oracle.cache import ReferenceCache, question_of
from crepair.toolchain.scratch import scratch_folder

SANITIZER_EXIT = 86  # the exit status the sanitizers are told to use
_ENV = {"ASAN_OPTIONS": f"detect_leaks=0:exitcode={SANITIZER_EXIT}:abort_on_error=0",
        "UBSAN_OPTIONS": f"halt_on_error=1:exitcode={SANITIZER_EXIT}:print_stacktrace=0"}
_BASE = ("-std=gnu99", "-w", "-O0", "-fno-omit-frame-pointer")
_SANITIZE = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all")
_DIRTY = "-Dmain=crepair_user_main"  # the dirty build: the program's main is called by DIRTY_MAIN's
_BUILDS = ((*_SANITIZE, "-ftrivial-auto-var-init=pattern"), ("-ftrivial-auto-var-init=zero",), (_DIRTY,), ())
_BUILD_ENV = ({}, {}, {"MALLOC_PERTURB_": "113"}, {})  # per build, beside _ENV
DIRTY_MAIN = r"""
#undef main
int crepair_user_main();
static void __attribute__((noinline)) crepair_dirty_stack(void) {
    volatile unsigned char junk[1 << 16];
    unsigned state = 2463534242u;
    for (unsigned i = 0; i < sizeof junk; i++) {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5;
        junk[i] = (unsigned char) state;
    }
}
int main(int argc, char **argv, char **envp) {
    crepair_dirty_stack();
    return crepair_user_main(argc, argv, envp);
}
"""


@dataclass(frozen=True, slots=True)
class Run:
    """One concrete run: ``output`` (standard output), ``code`` (exit
    status; negative: killed by that signal; None: time limit)."""

    output: bytes
    code: int | None

    @property
    def normal(self) -> bool:
        return self.ended and self.code != SANITIZER_EXIT

    @property
    def ended(self) -> bool:
        """It ended by itself: not killed at its time limit nor by a signal
        (a crash); its exit status is not judged (as the test runner's,
        :func:`crepair.testsuite.runner.run_test`)."""
        return self.code is not None and self.code >= 0


def compile_c(source: Path, out: Path, flags: tuple[str, ...] = (), *, timeout: float = 60.0,
              more: tuple[Path, ...] = ()) -> str | None:
    """Compile ``source`` (its folder on the include path) and the C files
    ``more`` to ``out``; None on success, else gcc's first error line.
    Raises ``MissingTool`` without gcc."""
    gcc = toolchain.find("gcc", "gcc not found: install gcc (e.g. apt-get install gcc)")
    argv = [gcc, *_BASE, *flags, "-I", str(source.parent), str(source), *map(str, more), "-o", str(out), "-lm"]
    done = toolchain.run(argv, text=True, timeout=timeout)
    if done.timed_out:
        return f"{source}: gcc did not finish in {timeout:g} s"
    if done.returncode == 0:
        return None
    lines = [ln for ln in done.stderr.splitlines() if "error" in ln] or done.stderr.splitlines() or ["gcc failed"]
    return lines[0]


def dirty_stack_flags(folder: Path, *, timeout: float = 60.0) -> tuple[str, ...]:
    """gcc arguments that build a program to run as the reference's dirty
    build does: its ``main`` called on a stack filled with pseudo-random
    bytes (:data:`DIRTY_MAIN`, compiled once into ``folder``), so that
    locals read before they are written hold what a judge's machine might
    leave there, not the zeros of a fresh stack.  Empty when that object
    cannot be built, or ``folder``'s path has white space (a wrapper's
    flags are split at it).  Raises ``MissingTool`` without gcc."""
    obj = folder / "dirty_main.o"
    if any(c.isspace() for c in str(obj)):
        return ()
    (folder / "dirty_main.c").write_text(DIRTY_MAIN)
    gcc = toolchain.find("gcc", "gcc not found: install gcc (e.g. apt-get install gcc)")
    # no tail call: main's own frame keeps the program's frames inside the dirtied bytes
    done = toolchain.run([gcc, "-O2", "-fno-optimize-sibling-calls", "-w", "-c", str(folder / "dirty_main.c"),
                          "-o", str(obj)], timeout=timeout)
    return (_DIRTY, str(obj)) if done.returncode == 0 and not done.timed_out else ()


def run_binary(binary: Path, stdin: bytes, *, timeout: float, env: dict[str, str] | None = None,
               sanitized: bool = False) -> Run:
    """Run ``binary`` on ``stdin`` for at most ``timeout`` seconds (its
    whole process group is killed then); ``sanitized``: a sanitizer build,
    run without this process's own address-space limit (the sanitizers
    reserve far more than they use)."""
    done = toolchain.run([str(binary)], input=stdin, timeout=timeout, env={**os.environ, **(env or {})},
                         lift_memory_limit=sanitized)
    return Run(done.stdout, done.returncode)


class ReferenceProgram:
    """The reference at ``path``, built for concrete runs; use in a
    ``with`` block (the builds are removed at its end).  ``timeout``:
    seconds a run may take; ``deadline``: the run's end (a
    :class:`~crepair.schemes.time_limit.Deadline`; None: none), which
    caps every build and run — once it has passed, no input is valid
    (``cut``: a build was cut short by it).  ``cache``: the folder where
    answers are kept between runs (:mod:`crepair.oracle.cache`; None:
    nowhere); a kept answer is not computed again.
    Raises ``BadInput`` when the reference does not compile,
    ``MissingTool`` without gcc."""

    def __init__(self, path: str | Path, *, timeout: float = 1.0, deadline=None,
                 cache: str | Path | None = None):
        self.path = Path(path)
        self.timeout = timeout
        self.deadline = deadline
        self.cache = ReferenceCache.open(cache, self.path)
        self.cut = False
        self._variant = "sanitized"  # what the first build is: its answers are kept under this name
        self._dir, self._removal = scratch_folder(self, "crepair-reference-")
        self._builds: list[Path] = []
        (self._dir / "dirty_main.c").write_text(DIRTY_MAIN)
        try:
            with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:  # gcc runs are processes
                built = list(pool.map(self._build, range(len(_BUILDS))))
            for out, error in built:
                if error is not None and self._passed():
                    self.cut = True
                    break
                if error is not None:
                    raise BadInput(f"{self.path}: the reference does not compile: {error}")
                self._builds.append(out)
        except BaseException:
            self.close()
            raise

    def _build(self, k: int) -> tuple[Path, str | None]:
        """Build ``k`` of :data:`_BUILDS`: its binary and gcc's first error line (None: built)."""
        out, flags = self._dir / f"reference{k}", _BUILDS[k]
        more = (self._dir / "dirty_main.c",) if _DIRTY in flags else ()
        error = compile_c(self.path, out, flags, timeout=self._cap(60.0), more=more)
        if error is not None and flags[:1] == _SANITIZE[:1] and not self._passed():
            # no sanitizer runtime here: a plain build still checks the initial values
            error = compile_c(self.path, out, flags[len(_SANITIZE):], timeout=self._cap(60.0))
            self._variant = "unsanitized"
        return out, error

    def _cap(self, seconds: float) -> float:
        return seconds if self.deadline is None else self.deadline.cap(seconds)

    def _passed(self) -> bool:
        return self.deadline is not None and self.deadline.passed()

    def expected(self, stdin: bytes, until: float | None = None) -> bytes | None:
        """The reference's output on ``stdin``, or None when the input is
        not valid (a build failed, timed out, reported undefined behaviour,
        or the builds disagree), the deadline passed, or the
        ``time.monotonic()`` instant ``until`` did.  The builds run one
        after the other, and the first that rejects the input ends the check."""
        return self.expected_all([stdin], until)[0]

    def _check(self, stdin: bytes, until: float | None = None) -> tuple[bytes | None, bool]:
        """:meth:`expected` of ``stdin``, and whether the answer may be
        kept (it does not come from a time limit)."""
        first: Run | None = None
        for binary, env in zip(self._builds, _BUILD_ENV):
            if self.cut or self._passed() or (until is not None and time.monotonic() > until):
                return None, False
            run = run_binary(binary, stdin, timeout=self._cap(self.timeout), env={**_ENV, **env}, sanitized=True)
            if self._passed() or run.code is None:
                return None, False
            if not run.normal or (first is not None and (run.output, run.code) != (first.output, first.code)):
                return None, True
            first = first or run
        return (None, False) if first is None else (first.output, True)

    def rely_on_wrapping(self, inputs: list[bytes]) -> bool:
        """Whether the reference relies on signed overflow wrapping around
        (as gcc's ``-O0`` code does) in runs it is expected to make: the
        sanitized build rejects one of ``inputs`` (the given tests' inputs
        it was not valid on; the first five are tried) and the same build
        with ``-fwrapv`` (overflow defined, so not reported) runs it
        normally.  Then the ``-fwrapv`` build replaces it for every later
        check, and an overflow no longer makes an input invalid (Codeflaws
        225-B ends a sequence when a sum wraps to a negative value, on
        every test; every generated input was rejected)."""
        if self.cut or len(self._builds) < len(_BUILDS):
            return False
        sanitized, wrapping = self._builds[0], self._dir / "reference-wrap"
        for stdin in inputs[:5]:
            run = run_binary(sanitized, stdin, timeout=self._cap(self.timeout), env=_ENV, sanitized=True)
            if run.code != SANITIZER_EXIT:
                continue
            if not wrapping.exists() and compile_c(self.path, wrapping, (*_BUILDS[0], "-fwrapv"),
                                                   timeout=self._cap(60.0)) is not None:
                return False
            if run_binary(wrapping, stdin, timeout=self._cap(self.timeout), env=_ENV, sanitized=True).normal:
                self._builds[0], self._variant = wrapping, "wrapping"
                return True
        return False

    def plain_all(self, inputs: list[bytes], until: float | None = None) -> list[bytes | None]:
        """The outputs of the reference built as the candidates are (no
        sanitizer, locals as the stack holds them) on each of ``inputs``, in
        their order, ``os.cpu_count()`` at a time; None where the run did not
        end normally, the deadline passed or the ``time.monotonic()``
        instant ``until`` did.  Cheaper than :meth:`expected`
        (one run per input, not one per build), and not a validity check: an input
        on which a candidate disagrees is checked with :meth:`expected`
        before it refutes anything."""
        if self.cut or len(self._builds) < len(_BUILDS):
            return [None] * len(inputs)

        def one(stdin: bytes) -> tuple[bytes | None, bool]:
            if self._passed() or (until is not None and time.monotonic() > until):
                return None, False
            run = run_binary(self._builds[-1], stdin, timeout=self._cap(self.timeout))
            if self._passed() or run.code is None:
                return None, False
            return (run.output if run.normal else None), True
        return self._answers("plain", one, inputs)

    def expected_all(self, inputs: list[bytes], until: float | None = None) -> list[bytes | None]:
        """:meth:`expected` of each of ``inputs`` (``until`` as there), in
        their order, run ``os.cpu_count()`` at a time."""
        return self._answers("expected", partial(self._check, until=until), inputs)

    def _answers(self, kind: str, run, inputs: list[bytes]) -> list[bytes | None]:
        """The answers of ``kind`` to ``inputs``: the kept ones from the
        cache, the others from ``run`` (stdin -> (answer, may be kept)),
        ``os.cpu_count()`` at a time; the new ones that may be kept are."""
        cache, out = self.cache, [None] * len(inputs)
        questions = [question_of(self._variant, f"{self.timeout:g}", stdin) for stdin in inputs] if cache else []
        todo = []
        for k in range(len(inputs)):
            found, answer = cache.get(kind, questions[k]) if cache else (False, None)
            if found:
                out[k] = answer
            else:
                todo.append(k)
        for k, (answer, keep) in zip(todo, _each(run, [inputs[k] for k in todo])):
            out[k] = answer
            if keep and cache:
                cache.put(kind, questions[k], answer)
        if cache:
            cache.flush()
        return out

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
        self._removal()

    def __enter__(self) -> "ReferenceProgram":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _each(run, inputs: list[bytes]) -> list[bytes | None]:
    """``run`` of each of ``inputs``, in their order, ``os.cpu_count()`` at
    a time (each run is a process; a thread waits for it)."""
    if len(inputs) < 2:
        return [run(stdin) for stdin in inputs]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        return list(pool.map(run, inputs))
