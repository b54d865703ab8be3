"""The verdicts on plausible patches of the staged run (crepair.schemes.staged_verdicts):
how much time a proof gets, and when looking on for a proved repair is pointless."""

from __future__ import annotations

import time

from crepair.oracle.suite import Suite
from crepair.records import PassesSuite
from crepair.schemes.staged_options import StagedStats
from crepair.schemes.staged_verdicts import PROOF_SECONDS, PatchVerdicts
from crepair.schemes.time_limit import Deadline


class FakeChecks:
    """The checks' interface PatchVerdicts uses: every patch passes the
    suite; the proof answers ``answer`` ((proved, why), with ``undecided``)
    and records the seconds it was given."""

    def __init__(self, answer: tuple[bool, str | None], undecided: bool, cut_off: bool = False):
        self.answer, self.undecided, self.cut_off = answer, undecided, cut_off
        self.refuting: list[str] = []
        self.budgets: list[float] = []
        self.unanswered = False
        self.unwind = 8
        self.cut = None

    def failures(self, text, suite, enough=None) -> int:
        return 0

    def confirm(self, text, held, suite) -> tuple[int, str | None]:
        return 0, None

    def reference_cut_off(self, seconds: float) -> bool:
        return self.cut_off

    def prove(self, text: str, seconds: float, suite) -> tuple[bool, str | None]:
        self.budgets.append(seconds)
        return self.answer


class Patch:
    patched = "int main(void) { return 0; }"


def verdicts(tmp_path, checks: FakeChecks, timeout: float = 60.0) -> PatchVerdicts:
    suite = Suite(tmp_path)
    suite.add("given", b"1\n", b"1\n")
    return PatchVerdicts(checks, suite, StagedStats(), unwind=8, input_bound=8, deadline=Deadline.after(timeout))


def test_a_proof_out_of_time_leaves_hope_for_a_later_patch_and_its_proof_is_capped_by_the_look_on(tmp_path):
    checks = FakeChecks((False, "bounded check unknown (time limit; stopped)"), undecided=True)
    v = verdicts(tmp_path, checks)
    status, evidence, failed = v.verdict(Patch())
    assert (status, failed) == ("tests", 0) and isinstance(evidence, PassesSuite)
    assert evidence.why_not_proved == "bounded check unknown (time limit; stopped)"
    assert not v.hopeless and checks.budgets == [PROOF_SECONDS]
    v.until = time.monotonic() + 2.0  # enough repairs: the search looks on 2 s more, the proofs with it
    v.verdict(Patch())
    assert 1.0 < checks.budgets[-1] <= 2.0
    v.until = time.monotonic() + 0.1  # too little left for a proof: not even started
    status, evidence, _ = v.verdict(Patch())
    assert status == "tests" and evidence.why_not_proved == "no time left for the bounded check"
    assert len(checks.budgets) == 2 and v.hopeless
    v.new_round()
    assert v.until is None and v.best_failures is None


def test_a_reason_every_later_patch_shares_makes_looking_on_pointless(tmp_path):
    beyond = FakeChecks((False, "runs go beyond unwinding bound 8"), undecided=False)
    v = verdicts(tmp_path, beyond)
    assert v.verdict(Patch())[0] == "tests" and v.hopeless
    cut_off = FakeChecks((True, None), undecided=False, cut_off=True)  # the reference's own runs: never proved
    v = verdicts(tmp_path, cut_off)
    status, evidence, _ = v.verdict(Patch())
    assert status == "tests" and v.hopeless and cut_off.budgets == []
    assert "runs of the reference go beyond unwinding bound 8" in evidence.why_not_proved
    proved = verdicts(tmp_path, FakeChecks((True, None), undecided=False))
    assert proved.verdict(Patch())[0] == "proved"


class SlowChecks(FakeChecks):
    """A proof that takes ``seconds`` and ends undecided."""

    def __init__(self, seconds: float):
        super().__init__((False, "bounded check unknown (timeout)"), undecided=True)
        self.seconds = seconds

    def prove(self, text: str, seconds: float, suite) -> tuple[bool, str | None]:
        time.sleep(self.seconds)
        return super().prove(text, seconds, suite)


def test_looking_on_for_a_proved_repair_counts_from_when_the_patch_passed_the_suite(tmp_path):
    v = verdicts(tmp_path, SlowChecks(0.5))
    before = time.monotonic()
    assert v.verdict(Patch())[0] == "tests" and not v.hopeless
    after = time.monotonic()
    assert before <= v.passed_at <= after - 0.5  # passed, then 0.5 s of proof
    # looking on 1 s: what the proof left of it, from when the patch passed
    assert v.look_on_until(1.0) == v.passed_at + 1.0 <= after + 0.5
    # a proof that took longer than the patience leaves nothing: the search ends now
    assert after <= v.look_on_until(0.2) <= time.monotonic()


def test_a_round_looks_on_after_a_partial_fix_as_long_as_it_searched_within_a_tenth_and_a_quarter():
    from crepair.schemes.staged_options import partial_patience

    assert partial_patience(60, 3.0) == 6.0  # found early: a tenth of the limit
    assert partial_patience(60, 9.5) == 9.5  # as long again as the round searched
    assert partial_patience(60, 40.0) == 15.0  # a quarter at most
    assert partial_patience(None, 1.0) == 24.0  # no limit: of 240 s
