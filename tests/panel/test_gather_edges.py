"""The lead's wait for a phase at its edges (docs/spec/protocol.md section 3, "Timeouts and
progressive wait" and "READY handshake"), seen in what the record and the progress show: the
progressive wait moves on only when all but one answered, never while a seat is still
starting; a seat dropped at READY is never waited for; a straggler's late answer is `late`
and reaches the next prompts, a late failure keeps its failure; a seat still answering is
asked again only once free.

The seats are played on the bus by the test (tests/panel/desk.py): which message comes first
is set by the test. The one controlled delay lets a soft timeout of 0.05 s run out many times
over before the next event is sent; the lead's clock and the test's are the same event loop,
so the lead's earlier deadline is always met first.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from council.panel import asked as asked_module
from council.panel.asked import Busy, Pending, Unready
from council.panel.contribution import Contribution
from council.panel.messages import ReadyReport
from panel.desk import Desk, Script

pytestmark = pytest.mark.anyio

SOFT = 0.05
PAST_SOFT = 0.5  # well past a seat's soft timeout (SOFT), far inside its worker's margin


def failed_call(stem: str, seat: str) -> Contribution:
    return Contribution(
        stem=stem,
        seat=seat,
        role="reviewer",
        phase="REVIEW",
        round=1,
        status="timeout",
        text=f"{seat} timeout: killed at its hard limit",
        cli="sim",
    )


def stems(answers) -> list[str]:
    return [a.stem for a in answers]


async def test_a_progressive_wait_does_not_leave_the_last_seat_behind_while_one_is_starting(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "beta", "gamma"), starting=("gamma",), soft_s=SOFT)
    desk.scripts["beta"] = Script(silent=True)
    async with desk.open() as d:
        asked = [await d.ask(name) for name in ("alpha", "beta", "gamma")]
        assert isinstance(asked[2], Unready)
        assert d.played["gamma"].asks == []  # never asked before its READY

        async def gamma_starts_late() -> None:
            await anyio.sleep(PAST_SOFT)
            await d.seat_ready("gamma")

        d._tg.start_soon(gamma_starts_late)
        answers = await d.dispatch.gather(asked, progressive=True)
    assert stems(answers) == ["alpha-r1", "gamma-r1"]
    assert list(d.dispatch.stragglers) == ["beta-r1"]
    assert "REVIEW beta waiting 0.05/0.1s: moving on with 2/3 (progressive wait)" in d.lines()
    notes = d.notes()
    assert notes.index("moving on without beta (progressive wait)") > notes.index("ready 3/3")


async def test_a_progressive_wait_with_two_seats_missing_waits_past_their_soft_timeouts(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "beta", "gamma"), soft_s=SOFT)
    gamma_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(silent=True)
    desk.scripts["gamma"] = Script(after=gamma_may_answer)
    async with desk.open() as d:
        asked = [await d.ask(name) for name in ("alpha", "beta", "gamma")]

        d.set_after(PAST_SOFT, gamma_may_answer)
        answers = await d.dispatch.gather(asked, progressive=True)
    # Both missing seats ran past their soft timeout: the phase still waited for one of them.
    assert stems(answers) == ["alpha-r1", "gamma-r1"]
    assert list(d.dispatch.stragglers) == ["beta-r1"]
    assert [n for n in d.notes() if n.startswith("moving on")] == [
        "moving on without beta (progressive wait)"
    ]


async def test_without_a_progressive_wait_every_seat_is_waited_for(tmp_path: Path):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT)
    beta_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(after=beta_may_answer)
    async with desk.open() as d:
        asked = [await d.ask(name) for name in ("alpha", "beta")]

        d.set_after(PAST_SOFT, beta_may_answer)
        answers = await d.dispatch.gather(asked, progressive=False)
    assert stems(answers) == ["alpha-r1", "beta-r1"]
    assert [a.status for a in answers] == ["ok", "ok"]
    assert d.dispatch.stragglers == {}


async def test_a_seat_dropped_at_ready_is_never_asked_and_the_phase_does_not_wait_for_it(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "gamma"), starting=("gamma",), soft_s=SOFT)
    desk.report = lambda name: ReadyReport(ok=False, cli="sim", problem="sim: not found")
    async with desk.open() as d:
        desk.report = lambda name: ReadyReport(ok=True, cli="sim", timeout_s=SOFT)
        await d.roster.report(d.seats["alpha"], d.report("alpha"))
        asked = [await d.ask("alpha"), await d.ask("gamma")]
        desk.report = lambda name: ReadyReport(ok=False, cli="sim", problem="sim: not found")
        await d.seat_ready("gamma")
        answers = await d.dispatch.gather(asked, progressive=False)
    assert stems(answers) == ["alpha-r1"]
    assert d.played["gamma"].asks == []
    assert d.state.seats["gamma"]["status"] == "dropped"
    assert d.state.seats["gamma"]["problem"] == "sim: not found"
    assert "gamma (sim) dropped: sim: not found" in d.state.warnings
    assert "ready 1/2" in d.notes()


@pytest.mark.parametrize(
    ("status", "stored", "shown", "line"),
    [
        ("ok", "late", "Postgres, late but sure", "REVIEW beta late 4 words 0.0s"),
        # A late failure keeps its failure, so a resumed run asks again.
        ("timeout", "timeout", "(no answer: timeout)", "REVIEW beta timeout exit 1: sim crashed"),
    ],
)
async def test_a_stragglers_late_answer_is_late_and_unseen_once_a_late_failure_stays_failed(
    tmp_path: Path, status: str, stored: str, shown: str, line: str
):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT)
    beta_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(after=beta_may_answer, text=shown, status=status)
    async with desk.open() as d:
        asked = [await d.ask(name) for name in ("alpha", "beta")]
        first = await d.dispatch.gather(asked, progressive=True)
        assert stems(first) == ["alpha-r1"]
        beta_may_answer.set()
        await d.dispatch.wait_for_stragglers()
        unseen = d.dispatch.take_unseen_late()
        assert d.dispatch.take_unseen_late() == []  # taken once
    assert [(c.stem, c.status) for c in unseen] == [("beta-r1", stored)]
    late = d.state.contribution("beta-r1")
    assert (late.status, late.answered, late.shown) == (stored, status == "ok", shown)
    assert d.dispatch.stragglers == {}
    assert line in d.lines()
    assert "beta-r1" not in d.dispatch.arrived  # no later gather takes it for its own


async def test_a_seat_still_answering_is_busy_and_sits_a_phase_out_that_closes_first(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT)
    beta_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(after=beta_may_answer)
    async with desk.open() as d:
        # A resumed run: the first run stored beta's failed call, which is asked again.
        d.journal.store(failed_call("beta-r1", "beta"))
        first = [await d.ask(name) for name in ("alpha", "beta")]
        assert isinstance(first[1], Pending)
        await d.dispatch.gather(first, progressive=True)
        assert d.dispatch.busy(d.seats["beta"])
        second = [await d.ask(name, round_no=2, phase="CHALLENGE") for name in ("alpha", "beta")]
        assert isinstance(second[0], Pending)
        assert isinstance(second[1], Busy)
        answers = await d.dispatch.gather(second, progressive=True)
        beta_may_answer.set()
        await d.dispatch.wait_for_stragglers()
    assert stems(answers) == ["alpha-r2"]
    skipped = d.state.contribution("beta-r2")
    assert (skipped.status, skipped.reason, skipped.phase) == ("skipped", "busy", "CHALLENGE")
    assert skipped.detail == "still answering its REVIEW when CHALLENGE closed"
    assert len(d.played["beta"].asks) == 1  # one ACTION in flight per seat, never two
    lines = d.lines()
    assert "CHALLENGE beta busy: still answering its REVIEW; asked once free" in lines
    assert "CHALLENGE beta skipped: busy (still answering its REVIEW when CHALLENGE closed)" in (
        lines
    )
    assert (
        "beta is still answering its REVIEW: asked for CHALLENGE once free, if the phase is "
        "still collecting" in d.notes()
    )
    assert d.state.contribution("beta-r1").status == "late"


async def test_a_busy_seat_freed_while_the_phase_collects_is_asked_then(tmp_path: Path):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT)
    beta_may_answer, alpha_may_answer = anyio.Event(), anyio.Event()
    desk.scripts["beta"] = Script(after=beta_may_answer)
    async with desk.open() as d:
        first = [await d.ask(name) for name in ("alpha", "beta")]
        await d.dispatch.gather(first, progressive=True)
        desk.scripts["alpha"] = Script(after=alpha_may_answer)
        desk.scripts["beta"] = Script()
        second = [await d.ask(name, round_no=2) for name in ("alpha", "beta")]

        async def beta_then_alpha() -> None:
            beta_may_answer.set()
            await d.played["beta"].asked_times(2)  # asked again once free
            alpha_may_answer.set()

        d._tg.start_soon(beta_then_alpha)
        answers = await d.dispatch.gather(second, progressive=False)
    assert stems(answers) == ["alpha-r2", "beta-r2"]
    assert [m["meta"]["stem"] for m in map(_entry, d.played["beta"].asks)] == [
        "beta-r1",
        "beta-r2",
    ]
    assert d.state.contribution("beta-r1").status == "late"


def _entry(message) -> dict:
    return message.transcript_entry()


async def test_a_stored_answer_is_reused_a_stored_failure_asked_again(tmp_path: Path):
    desk = Desk(tmp_path, ("alpha", "beta", "gamma"), soft_s=SOFT)
    async with desk.open() as d:
        first = [await d.ask(name) for name in ("alpha", "beta")]
        desk.scripts["beta"] = Script(status="error")
        await d.dispatch.gather(first, progressive=False)
        copied = d.state.contribution("alpha-r1")
        copied.stem, copied.seat, copied.copied_from = "gamma-r1", "gamma", "check-1/alpha-r1"
        d.journal.store(copied)
        desk.scripts["beta"] = Script()
        again = [await d.ask(name) for name in ("alpha", "beta", "gamma")]
        answers = await d.dispatch.gather(again, progressive=False)
    assert [type(a).__name__ for a in again] == ["Contribution", "Pending", "Contribution"]
    assert [(a.stem, a.status) for a in answers] == [
        ("alpha-r1", "ok"),
        ("beta-r1", "ok"),
        ("gamma-r1", "ok"),
    ]
    assert len(d.played["alpha"].asks) == 1
    assert len(d.played["beta"].asks) == 2
    notes = d.notes()
    assert "reused alpha-r1 from the record" in notes
    assert "reused gamma-r1 from check check-1/alpha-r1" in notes
    assert not any("beta-r1" in n for n in notes if n.startswith("reused"))


async def test_the_lead_moves_on_at_the_soft_timeout_not_at_the_hard_limit(tmp_path: Path):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT, hard_factor=100)
    beta_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(after=beta_may_answer)
    async with desk.open() as d:
        asked = [await d.ask(name) for name in ("alpha", "beta")]

        d.set_after(PAST_SOFT, beta_may_answer)  # long past 0.05 s, long before the 5 s hard limit
        answers = await d.dispatch.gather(asked, progressive=True)
        assert stems(answers) == ["alpha-r1"]
        await d.dispatch.wait_for_stragglers()
    assert "REVIEW beta waiting 0.05/5s: moving on with 1/2 (progressive wait)" in d.lines()
    assert d.state.contribution("beta-r1").status == "late"


async def test_a_cut_ask_is_cancelled_and_sits_out_late_and_its_answer_if_it_comes_is_dropped(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "gamma"), starting=("gamma",), soft_s=SOFT)
    alpha_may_answer = anyio.Event()
    desk.scripts["alpha"] = Script(after=alpha_may_answer)
    async with desk.open() as d:
        blind = [await d.ask("alpha"), await d.ask("gamma")]
        await d.dispatch.cut_short(blind, why="the PROPOSAL was in", grace_s=SOFT)
        await d.played["alpha"].cancelled.wait()
        assert d.played["alpha"].cancels == ["alpha-r1"]
        assert not d.dispatch.busy(d.seats["alpha"])  # free for its next ACTION at once
        cut = d.state.contribution("alpha-r1")
        assert (cut.status, cut.reason) == ("skipped", "late")
        assert cut.detail == "still answering when the PROPOSAL was in: cancelled after 0.05s"
        assert d.state.contribution("gamma-r1") is None  # recorded once it is READY
        # gamma comes READY after the grace: never asked; alpha's cut call answers anyway.
        await d.seat_ready("gamma")
        next_phase = [await d.ask("alpha", round_no=2)]
        assert isinstance(next_phase[0], Pending)
        alpha_may_answer.set()
        answers = await d.dispatch.gather(next_phase, progressive=False)
    assert stems(answers) == ["alpha-r2"]
    assert d.state.contribution("alpha-r1").status == "skipped"  # the late answer is dropped
    withdrawn = d.state.contribution("gamma-r1")
    assert (withdrawn.status, withdrawn.reason) == ("skipped", "late")
    assert withdrawn.detail == "not READY 0.05s after the PROPOSAL was in"
    assert d.played["gamma"].asks == []
    assert "gamma sits REVIEW out: not READY 0.05s after the PROPOSAL was in" in d.notes()


async def test_a_seat_still_starting_sits_and_a_dropped_one_does_not(tmp_path: Path):
    desk = Desk(tmp_path, ("alpha", "beta", "gamma"), starting=("beta", "gamma"))
    async with desk.open() as d:
        everyone = tuple(d.seats.values())
        assert [s.name for s in d.roster.seated(everyone)] == ["alpha", "beta", "gamma"]
        desk.report = lambda name: ReadyReport(ok=False, cli="sim", problem="sim: not found")
        await d.seat_ready("beta")
        assert (await d.roster.receive(None)).sender == "beta"
        assert [s.name for s in d.roster.seated(everyone)] == ["alpha", "gamma"]
    assert d.state.seats["beta"]["status"] == "dropped"
    assert "beta (sim) dropped: sim: not found" in d.state.warnings


async def test_a_resumed_run_past_the_blind_takes_keeps_what_it_holds_and_records_the_rest(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT)
    async with desk.open() as d:
        done = [await d.ask("alpha")]
        await d.dispatch.gather(done, progressive=False)
        for name in ("alpha", "beta"):
            await d.dispatch.not_asked(d.seats[name], "REVIEW", 1, "PROPOSAL")
    assert d.state.contribution("alpha-r1").status == "ok"  # what the record holds stays
    skipped = d.state.contribution("beta-r1")
    assert (skipped.status, skipped.reason) == ("skipped", "late")
    assert skipped.detail == "not asked: PROPOSAL was in when the run resumed"
    assert d.played["beta"].asks == []


async def test_before_the_end_a_dead_worker_is_given_up_on_and_a_slower_straggler_still_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(asked_module, "WORKER_MARGIN_S", 0.1)
    desk = Desk(tmp_path, ("alpha", "beta", "gamma"), hard_factor=10)
    # beta's worker is dead (0.05 s soft, 0.5 s hard); gamma is slow (0.3 s soft, 3 s hard).
    softs = {"alpha": SOFT, "beta": SOFT, "gamma": 0.3}
    desk.report = lambda name: ReadyReport(ok=True, cli="sim", timeout_s=softs[name])
    gamma_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(silent=True)
    desk.scripts["gamma"] = Script(after=gamma_may_answer)
    async with desk.open() as d:
        await d.dispatch.gather([await d.ask("alpha"), await d.ask("beta")], progressive=True)
        second = [await d.ask("alpha", round_no=2), await d.ask("gamma", round_no=2)]
        await d.dispatch.gather(second, progressive=True)
        assert sorted(d.dispatch.stragglers) == ["beta-r1", "gamma-r2"]

        d.set_after(1.0, gamma_may_answer)  # past beta's 0.6 s, far inside gamma's 3.1 s
        await d.dispatch.wait_for_stragglers()
    lost = d.state.contribution("beta-r1")
    assert (lost.status, lost.detail) == ("error", "no answer from its worker")
    assert d.state.contribution("gamma-r2").status == "late"


async def test_a_phase_whose_only_other_answer_is_reused_closes_without_its_busy_seat(
    tmp_path: Path,
):
    desk = Desk(tmp_path, ("alpha", "beta"), soft_s=SOFT)
    beta_may_answer = anyio.Event()
    desk.scripts["beta"] = Script(after=beta_may_answer)
    async with desk.open() as d:
        await d.dispatch.gather([await d.ask("alpha"), await d.ask("beta")], progressive=True)
        stored = d.state.contribution("alpha-r1")
        stored.stem, stored.round = "alpha-r2", 2  # alpha's next answer is on disk already
        d.journal.store(stored)
        second = [await d.ask(name, round_no=2) for name in ("alpha", "beta")]
        assert isinstance(second[1], Busy)
        answers = await d.dispatch.gather(second, progressive=True)
        beta_may_answer.set()
        await d.dispatch.wait_for_stragglers()
    assert stems(answers) == ["alpha-r2"]
    assert d.state.contribution("beta-r2").status == "skipped"
    assert len(d.played["beta"].asks) == 1
    assert len(d.played["alpha"].asks) == 1
