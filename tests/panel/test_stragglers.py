"""A straggler's next phase (protocol.md section 3, "Timeouts and progressive wait", and the
[busy] rule: one ACTION in flight per seat), seen in what a user gets: the record, the result,
the prompts and the progress lines. A seat still answering an earlier ask sits a phase out
(`skipped`, reason `busy`) when the phase closes first; freed while the phase still collects,
it is asked then, its prompt holding its own late answer; a worker that never answers is
given up on (`error`, "no answer from its worker") and its seat is free again.

The runs are in this process (`panel.run.start`), so that mutation testing sees
the lead's waiting. Which event comes first is not left to racing delays: a gated seat holds
its answer to one phase until the record's transcript shows what the test needs to have
happened (see GATE), so the order holds however busy the machine is.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from council.config import parse_config
from council.context.fences import Fences
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel import asked as asked_module
from council.panel.calls import Tuning
from council.panel.run import Run, start
from council.progress import Progress
from panel.gate import SEEN, gated_project, gated_seat, review_of
from panel.record import answer_of, asks_of, contribution, stored, transcript

QUESTION = "Should this service cache sessions in Redis or Postgres?"
T = 1.0  # the soft timeout of a straggling seat

# A simulator seat whose answer to GATE_PHASE waits until the transcript of the run holds a
# message like GATE_UNTIL (panel/gate.py).
GATE = (
    SEEN
    + """\

argv = sys.argv[1:]
prompt = b"" if "--version" in argv else sys.stdin.buffer.read()
if f"ACTION: {os.environ['GATE_PHASE']}\\n".encode() in prompt:
    hold()
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return gated_project(tmp_path, GATE)


def gated(project: Path, phase: str, until: dict, timeout_s: float = T, **env: str) -> dict:
    """A simulator seat whose `phase` answer waits for a transcript message like `until`."""
    gate = {"GATE_PHASE": phase, "GATE_UNTIL": json.dumps(until), **env}
    return gated_seat(project, timeout_s, gate)


def debate(
    project: Path,
    clis: dict,
    *,
    hard: float = 10.0,
    grace: float = 1.0,
    live: bool = False,
    **flags,
) -> tuple[Run, str]:
    """One debate as `council debate -v` runs it; its run and its progress lines (the
    `[mm:ss] ` stamps left out). `hard`: the hard timeout factor (by default the most
    council.yaml allows, so that a gated straggler is never killed at its hard limit however
    slow the machine); `grace`: between SIGTERM and SIGKILL; `live`: with the live block of
    a terminal."""
    config = parse_config({"debate": {"hard_timeout_factor": hard}, "clis": clis})
    stream = io.StringIO()
    run = start(
        DEBATE,
        DebateFlags(question=QUESTION, files=("app.py",), **flags),
        config,
        Progress(stream, verbose=True, live=live),
        cwd=project,
        tuning=Tuning(grace_s=grace),
    )
    return run, re.sub(r"\[\d\d:\d\d\] ", "", stream.getvalue())


# -- a straggler still busy when the phase closes sits it out --------------------------------


def test_a_straggler_still_busy_when_the_rebuttal_closes_sits_it_out_as_skipped_busy(project):
    # The critic's CHALLENGE (a straggler after T) answers only once the advocate's
    # FINAL_SUMMARY is in: the REBUTTAL closes while the critic is still busy.
    summary_in = {"kind": "broadcast", "phase": "FINAL_SUMMARY"}
    run, lines = debate(
        project,
        {"sim-gated": gated(project, "CHALLENGE", summary_in)},
        sim=True,
        critic="sim-gated",
        proxies=(),
        rounds=3,
        no_blind=True,
        live=True,
    )
    assert run.exit_code == 0, run.error
    assert run.result["status"] == "completed"
    messages = transcript(run)
    assert [m["action"] for m in asks_of(messages, "critic")] == ["CHALLENGE"]
    late = answer_of(messages, "critic", "CHALLENGE")
    (note,) = [m for m in messages if m["meta"].get("status") == "skipped"]
    assert (note["kind"], note["phase"], note["round"]) == ("system", "REBUTTAL", 3)
    assert note["body"] == (
        "critic sits REBUTTAL out: still answering its CHALLENGE when REBUTTAL closed"
    )
    assert note["meta"] == {
        "stem": "critic-r3",
        "seat": "critic",
        "status": "skipped",
        "reason": "busy",
    }
    summary = answer_of(messages, "advocate", "FINAL_SUMMARY")
    decision = next(m for m in messages if m["body"] == "phase DECISION")
    assert summary["seq"] < note["seq"] < late["seq"] < decision["seq"]
    # In the result: the seat sat the REBUTTAL out, and its late challenge still counts.
    skipped = contribution(run, "critic", "REBUTTAL")
    assert (skipped["status"], skipped["reason"], skipped["text"], skipped["round"]) == (
        "skipped",
        "busy",
        "",
        3,
    )
    assert contribution(run, "critic", "CHALLENGE")["status"] == "late"
    assert run.result["decision"]["votes"]["critic"] is None  # no last word: no vote
    critic = next(s for s in run.result["seats"] if s["name"] == "critic")
    assert (critic["status"], critic["calls"]) == ("ok", 1)
    assert not (run.record.path / "critic-r3-prompt.md").exists()
    assert stored(run, "critic-r3") == {
        **stored(run, "critic-r3"),
        "stem": "critic-r3",
        "seat": "critic",
        "role": "critic",
        "phase": "REBUTTAL",
        "round": 3,
        "status": "skipped",
        "text": "",
        "cli": "sim-gated",
        "detail": "still answering its CHALLENGE when REBUTTAL closed",
        "reason": "busy",
    }
    assert "REBUTTAL critic busy: still answering its CHALLENGE; asked once free\n" in lines
    skip_line = "REBUTTAL critic skipped: busy (still answering its CHALLENGE when REBUTTAL closed)"
    assert skip_line + "\n" in lines
    # The live block, redrawn just before that line, shows the critic sitting the REBUTTAL
    # out, with no clock running for it.
    chunks = lines.split("\x1b[J")  # the block is cleared before each line and redrawn
    (at,) = [i for i, chunk in enumerate(chunks) if chunk.startswith(skip_line)]
    assert re.search(r"^  critic +REBUTTAL +skipped *$", chunks[at - 1], re.MULTILINE), chunks[
        at - 1
    ]


# -- a straggler freed while the phase still collects is asked then ------------------------

# The advocate's FINAL_SUMMARY waits until the critic has been asked for its REBUTTAL, so the
# REBUTTAL phase is still collecting when the critic's late CHALLENGE frees it.
REBUTTAL_ASKED = {"kind": "dm", "to": "critic", "action": "REBUTTAL"}
# The critic's CHALLENGE waits until the lead has found it busy for the REBUTTAL.
FOUND_BUSY = {"kind": "system", "phase": "REBUTTAL", "meta.status": "busy"}


def freed_debate(project: Path, **critic_env: str) -> tuple[Run, str]:
    return debate(
        project,
        {
            "sim-summary": gated(project, "FINAL_SUMMARY", REBUTTAL_ASKED, timeout_s=30),
            "sim-gated": gated(project, "CHALLENGE", FOUND_BUSY, **critic_env),
        },
        advocate="sim-summary",
        critic="sim-gated",
        lead="sim",
        proxies=(),
        rounds=3,
        no_blind=True,
    )


def test_a_straggler_freed_while_the_rebuttal_still_collects_is_asked_with_its_own_challenge(
    project,
):
    run, lines = freed_debate(project)
    assert run.exit_code == 0, run.error
    messages = transcript(run)
    late = answer_of(messages, "critic", "CHALLENGE")
    (busy,) = [m for m in messages if m["meta"].get("status") == "busy"]
    asks = asks_of(messages, "critic")
    assert [m["action"] for m in asks] == ["CHALLENGE", "REBUTTAL"]
    summary = answer_of(messages, "advocate", "FINAL_SUMMARY")
    # Asked only once free, while the phase still collected.
    assert busy["seq"] < late["seq"] < asks[1]["seq"] < summary["seq"]
    assert busy["body"] == (
        "critic is still answering its CHALLENGE: asked for REBUTTAL once free, "
        "if the phase is still collecting"
    )
    # Its REBUTTAL prompt holds its own late CHALLENGE, which no prompt of round 2 could.
    challenge = contribution(run, "critic", "CHALLENGE")
    assert challenge["status"] == "late"
    prompt = (run.record.path / "critic-r3-prompt.md").read_text()
    fences = Fences.from_json(json.loads((run.record.path / "state.json").read_text())["fences"])
    assert (
        "## Your own answer of round 2 (CHALLENGE), which came in after that phase had closed\n"
        + fences.wrap("reply", "your own, round 2", challenge["text"])
    ) in prompt
    rebuttal = contribution(run, "critic", "REBUTTAL")
    assert (rebuttal["status"], rebuttal["reason"]) == ("ok", None)
    assert run.result["status"] == "completed"
    assert run.result["decision"]["votes"]["critic"] is not None  # its last word counted
    assert "REBUTTAL critic busy: still answering its CHALLENGE; asked once free\n" in lines
    assert "skipped" not in lines


def test_a_straggler_whose_late_call_failed_is_asked_without_quoting_its_failure(project):
    # The critic's late CHALLENGE ends in a failure (not logged in): freed, it is asked for
    # its REBUTTAL all the same, and the prompt quotes no answer of its own.
    run, lines = freed_debate(project, COUNCIL_SIM_AUTH="1", COUNCIL_SIM_PHASES="CHALLENGE")
    # No challenge came: the DECISION is unchallenged (degraded), yet it was reached.
    assert (run.exit_code, run.result["status"]) == (5, "degraded"), run.error
    messages = transcript(run)
    asks = asks_of(messages, "critic")
    assert [m["action"] for m in asks] == ["CHALLENGE", "REBUTTAL"]
    assert answer_of(messages, "critic", "CHALLENGE")["seq"] < asks[1]["seq"]
    assert contribution(run, "critic", "CHALLENGE")["status"] == "auth"
    assert contribution(run, "critic", "REBUTTAL")["status"] == "ok"
    prompt = (run.record.path / "critic-r3-prompt.md").read_text()
    assert "ACTION: REBUTTAL" in prompt
    assert "Your own answer" not in prompt
    assert "REBUTTAL critic busy: still answering its CHALLENGE; asked once free\n" in lines


# -- a worker that never answers is given up on ---------------------------------------------

# A seat's worker answers every call by its hard limit (it kills the CLI); the lead gives up
# on one that has not answered WORKER_MARGIN_S (30 s) past it. Here the margin is 0.5 s and
# the stuck CLI ignores SIGTERM for a grace of 1 s, so its worker is still killing it when the
# lead gives up, as a worker hung on a bug would be.
STUCK_MARGIN_S = 0.5
STUCK_GRACE_S = 1.0


def stuck(phase: str) -> dict:
    """A simulator seat (soft timeout T, hard limit 1.5 T) whose `phase` call never ends."""
    return {
        "adapter": "sim",
        "timeout_s": T,
        "env": {
            "COUNCIL_SIM_PHASES": phase,
            "COUNCIL_SIM_HANG": "1",
            "COUNCIL_SIM_IGNORE_SIGTERM": "1",
        },
    }


def stuck_debate(project: Path, monkeypatch, phase: str, **flags) -> tuple[Run, str]:
    """A debate whose advocate's `phase` call never ends."""
    monkeypatch.setattr(asked_module, "WORKER_MARGIN_S", STUCK_MARGIN_S)
    clis = {"sim-stuck": stuck(phase)}
    flags = {"advocate": "sim-stuck", "critic": "sim", "lead": "sim", "proxies": (), **flags}
    return debate(project, clis, hard=1.5, grace=STUCK_GRACE_S, no_blind=True, **flags)


def test_a_proposal_whose_worker_never_answers_fails_the_run_with_no_answer_from_its_worker(
    project, monkeypatch
):
    run, _ = stuck_debate(project, monkeypatch, "PROPOSAL")
    assert run.exit_code == 3
    assert run.result["status"] == "failed"
    assert str(run.error) == (
        "the advocate (sim-stuck) could not write the proposal: no answer from its worker; "
        f"fix that, then `council resume {run.record.id}`"
    )
    proposal = contribution(run, "advocate", "PROPOSAL")
    assert (proposal["status"], proposal["round"]) == ("error", 1)
    assert proposal["text"] == "advocate error: no answer from its worker"
    assert stored(run, "advocate-r1") == {
        **stored(run, "advocate-r1"),
        "stem": "advocate-r1",
        "seat": "advocate",
        "role": "advocate",
        "phase": "PROPOSAL",
        "round": 1,
        "status": "error",
        "text": "advocate error: no answer from its worker",
        "cli": "sim-stuck",
        "detail": "no answer from its worker",
    }
    advocate = next(s for s in run.result["seats"] if s["name"] == "advocate")
    assert (advocate["status"], advocate["calls"]) == ("error", 1)


def test_a_seat_whose_worker_never_answered_is_asked_for_its_next_phase_at_once(
    project, monkeypatch
):
    # The advocate's RESPOND never ends: the lead gives up on it and asks the advocate for
    # its FINAL_SUMMARY at once (it is no longer answering anything the lead waits for),
    # rather than finding it busy and leaving it out of the REBUTTAL phase. (That call waits
    # in the worker until the stuck one is killed.)
    run, lines = stuck_debate(project, monkeypatch, "RESPOND", rounds=3)
    assert run.exit_code == 0, run.error
    messages = transcript(run)
    asks = asks_of(messages, "advocate")
    assert [m["action"] for m in asks] == ["PROPOSAL", "RESPOND", "FINAL_SUMMARY"]
    killed = answer_of(messages, "advocate", "RESPOND")
    assert asks[2]["seq"] < killed["seq"]  # asked while its worker was still killing the CLI
    assert killed["meta"]["status"] == "timeout"
    assert contribution(run, "advocate", "FINAL_SUMMARY")["status"] != "skipped"
    assert "busy" not in lines and "skipped" not in lines
    assert run.result["status"] == "completed"


# -- a reviewer whose review came late, while the cross-check still collects ----------------

LATE = "reviewer-sim-late"
# The others' cross-checks (a soft timeout of 30 s: never left behind) wait until `until`.
CHECKERS = ("reviewer-sim-check", "reviewer-sim-check-2")


def review_by(project: Path, clis: dict, reviewers: tuple[str, ...]) -> tuple[Run, str]:
    """One review as `council review -v --format json` runs it (panel/gate.py), with a hard
    limit long enough that a gated straggler is never killed at it."""
    return review_of(project, clis, reviewers, hard=10.0)


def busy_for_cross_check(seat: str) -> dict:
    return {"kind": "system", "phase": "CROSS_CHECK", "meta.status": "busy", "meta.seat": seat}


def review(project: Path, until: dict, **late_env: str) -> tuple[Run, str]:
    """A review by two reviewers and a straggler whose REVIEW answers once the lead has
    found it busy for the CROSS_CHECK."""
    clis = {
        "sim-check": gated(project, "CROSS_CHECK", until, timeout_s=30),
        "sim-late": gated(project, "REVIEW", busy_for_cross_check(LATE), **late_env),
    }
    return review_by(project, clis, ("sim-check", "sim-check", "sim-late"))


def reviewer(run: Run, name: str) -> dict:
    return next(r for r in run.result["reviewers"] if r["name"] == name)


def test_a_reviewer_whose_review_came_late_is_read_then_asked_to_cross_check_while_it_collects(
    project,
):
    run, lines = review(project, {"kind": "dm", "to": LATE, "action": "CROSS_CHECK"})
    assert run.exit_code == 0, run.error
    assert run.result["status"] == "completed"
    late = reviewer(run, LATE)
    assert (late["review"], late["cross_check"], late["calls"]) == ("ok", "ok", 2)
    messages = transcript(run)
    asks = asks_of(messages, LATE)
    assert [m["action"] for m in asks] == ["REVIEW", "CROSS_CHECK"]
    (busy,) = [m for m in messages if m["meta"].get("status") == "busy"]
    answer = answer_of(messages, LATE, "REVIEW")
    checks = [answer_of(messages, name, "CROSS_CHECK") for name in CHECKERS]
    assert busy["seq"] < answer["seq"] < asks[1]["seq"] < min(m["seq"] for m in checks)
    statuses = {(c["reviewer"], c["phase"]): c["status"] for c in run.result["calls"]}
    assert statuses[(LATE, "REVIEW")] == "late"
    assert statuses[(LATE, "CROSS_CHECK")] == "ok"
    # Its late review was read once, before it was asked: its cross-check lists the others'
    # findings, and its own findings were cross-checked by the others.
    assert f"CROSS_CHECK {LATE} busy: still answering its REVIEW; asked once free\n" in lines
    assert len(re.findall(rf"^REVIEW {LATE}: \d+ findings? read$", lines, re.MULTILINE)) == 1
    prompt = (run.record.path / f"{LATE}-r2-prompt.md").read_text()
    assert "### F1 (from " in prompt
    assert all(f["reviewers"] == 3 for f in run.result["findings"])
    assert all(LATE in f["raised_by"] for f in run.result["findings"])
    assert all(f["support"] == 3 for f in run.result["findings"])


def test_a_reviewer_whose_late_review_cannot_be_read_is_not_asked_to_cross_check(project):
    # The straggler's late review is cut to 9 words (no JSON): the others' cross-checks wait
    # for it to be in, so the cross-check is still collecting then; it is not asked to check
    # the others' findings, and its review is repaired once the cross-check is over.
    run, lines = review(
        project,
        {"kind": "broadcast", "from": LATE, "phase": "REVIEW"},
        COUNCIL_SIM_WORDS="9",
        COUNCIL_SIM_PHASES="REVIEW",
    )
    assert run.exit_code == 0, run.error
    late = reviewer(run, LATE)
    assert (late["review"], late["cross_check"], late["repairs"]) == ("ok", "skipped", 1)
    messages = transcript(run)
    assert [m["action"] for m in asks_of(messages, LATE)] == ["REVIEW", "REVIEW_REPAIR"]
    answer = answer_of(messages, LATE, "REVIEW")
    checks = [answer_of(messages, name, "CROSS_CHECK") for name in CHECKERS]
    assert answer["seq"] < min(m["seq"] for m in checks)  # in while the cross-check collected
    assert f"CROSS_CHECK {LATE} busy: still answering its REVIEW; asked once free\n" in lines
    assert f"REVIEW {LATE}: unreadable JSON" in lines
    assert "skipped" not in lines


# -- a cross-check with every reviewer it asks still busy ------------------------------------

# Two stragglers: `reviewer-sim-late` over its REVIEW, `reviewer-sim-garbled` over the repair of
# its unreadable review. The third reviewer has nothing to check yet (the others' findings are
# not in), so the CROSS_CHECK asks only the two busy ones: it waits for the first one free.
REPAIRING = "reviewer-sim-garbled"
CUT = {"COUNCIL_SIM_WORDS": "9", "COUNCIL_SIM_PHASES": "REVIEW"}  # a review that is no JSON


def two_busy_review(project: Path, repair_until: dict, **late_env: str) -> tuple[Run, str]:
    clis = {
        "sim-late": gated(project, "REVIEW", busy_for_cross_check(REPAIRING), **late_env),
        "sim-garbled": gated(project, "REVIEW_REPAIR", repair_until, **CUT),
    }
    run, lines = review_by(project, clis, ("sim", "sim-late", "sim-garbled"))
    assert run.exit_code == 0, run.error
    messages = transcript(run)
    busy = [m["meta"]["seat"] for m in messages if m["meta"].get("status") == "busy"]
    assert busy == [LATE, REPAIRING]
    assert "reviewer-sim: no other reviewer's finding to check" in [m["body"] for m in messages]
    assert reviewer(run, "reviewer-sim")["cross_check"] == "skipped"
    assert (
        f"CROSS_CHECK {REPAIRING} busy: still answering its REVIEW_REPAIR; asked once free\n"
        in lines
    )
    return run, lines


def test_a_cross_check_whose_first_freed_reviewer_cannot_be_asked_waits_for_the_next(project):
    # The first one free has a late review that cannot be read: it is not asked, and the
    # cross-check, with nobody asked yet, waits for the other, which then checks.
    run, lines = two_busy_review(
        project, {"kind": "broadcast", "from": LATE, "phase": "REVIEW"}, **CUT
    )
    messages = transcript(run)
    assert [m["action"] for m in asks_of(messages, LATE)] == ["REVIEW", "REVIEW_REPAIR"]
    asks = asks_of(messages, REPAIRING)
    assert [m["action"] for m in asks] == ["REVIEW", "REVIEW_REPAIR", "CROSS_CHECK"]
    assert answer_of(messages, REPAIRING, "REVIEW_REPAIR")["seq"] < asks[2]["seq"]
    repairing, late = reviewer(run, REPAIRING), reviewer(run, LATE)
    assert (repairing["review"], repairing["cross_check"], repairing["repairs"]) == ("ok", "ok", 1)
    assert (late["review"], late["cross_check"], late["repairs"]) == ("ok", "skipped", 1)
    assert "skipped" not in lines


def test_a_cross_check_with_every_reviewer_busy_closes_once_the_first_freed_has_checked(
    project,
):
    # The first one free is asked and checks; the cross-check then closes, and the other,
    # still repairing its review, sits it out (its repaired review still counts).
    run, lines = two_busy_review(
        project, {"kind": "broadcast", "from": LATE, "phase": "CROSS_CHECK"}
    )
    messages = transcript(run)
    assert [m["action"] for m in asks_of(messages, LATE)] == ["REVIEW", "CROSS_CHECK"]
    assert [m["action"] for m in asks_of(messages, REPAIRING)] == ["REVIEW", "REVIEW_REPAIR"]
    late, repairing = reviewer(run, LATE), reviewer(run, REPAIRING)
    assert (late["review"], late["cross_check"]) == ("ok", "ok")
    assert (repairing["review"], repairing["cross_check"], repairing["repairs"]) == (
        "ok",
        "skipped",
        1,
    )
    assert repairing["problems"]["cross_check"] == (
        "busy: still answering its REVIEW_REPAIR when CROSS_CHECK closed"
    )
    assert (
        f"CROSS_CHECK {REPAIRING} skipped: busy "
        "(still answering its REVIEW_REPAIR when CROSS_CHECK closed)\n" in lines
    )
