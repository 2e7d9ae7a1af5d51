"""What a user sees of the lead's waiting beyond the order of the asks (protocol.md section 3):
each answer as the live block and `-v` show it (its state and words, no clock left running, the
cut, the argv, the stderr tail), a change to the project found after a call, and a worker
presumed dead: given up on at its deadline, freeing its seat for the phase still collecting,
and never holding up the end of the run.

The runs are in this process (`panel.run.start`), so that mutation testing sees
the lead's waiting. A seat is the simulator behind SEAT, which can hold its answer to one phase
until the record's transcript shows what the test needs (as in test_stragglers), and write
into the project during one phase.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel import asked as asked_module
from council.panel.calls import Tuning
from council.panel.run import Run, start
from council.progress import Progress
from council.runner import confine
from panel.gate import SEEN, gated_project, gated_seat, review_of
from panel.record import answer_of, asks_of, contribution, stored, transcript

QUESTION = "Should this service cache sessions in Redis or Postgres?"
T = 1.0  # the soft timeout of a straggling seat

# A simulator seat. With GATE_PHASE, its answer to that phase waits until the transcript of
# the run (under GATE_RECORDS) holds a message with every key of GATE_UNTIL (`meta.x` looks in
# its meta), or GATE_CAP_S has passed. With WRITE_PHASE, its call for that phase writes the
# file WRITE_INTO (a path in the user's project).
SEAT = (
    SEEN
    + """\

def asks(variable):
    phase = os.environ.get(variable)
    return bool(phase) and f"ACTION: {phase}\\n".encode() in prompt

argv = sys.argv[1:]
prompt = b"" if "--version" in argv else sys.stdin.buffer.read()
if asks("GATE_PHASE"):
    hold()
if asks("WRITE_PHASE"):
    Path(os.environ["WRITE_INTO"]).write_text("written by a seat\\n")
sim = [sys.executable, "-m", "council.sim", *argv]
sys.exit(subprocess.run(sim, input=prompt).returncode)
"""
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return gated_project(tmp_path, SEAT)


def seat(project: Path, timeout_s: float = 30.0, **env: str) -> dict:
    """A simulator seat behind SEAT."""
    return gated_seat(project, timeout_s, env)


def gated(project: Path, phase: str, until: dict, timeout_s: float = 30.0, **env: str) -> dict:
    """A seat whose `phase` answer waits for a transcript message like `until`."""
    return seat(project, timeout_s, GATE_PHASE=phase, GATE_UNTIL=json.dumps(until), **env)


def shown(stream: io.StringIO) -> str:
    """What a terminal showed, as lines: the `[mm:ss] ` stamps and the live block's cursor
    moves left out (each redraw of the block stays in, below the line it follows)."""
    text = re.sub(r"\x1b\[\d*[FJ]", "", stream.getvalue())
    return re.sub(r"\[\d\d:\d\d\] ", "", text)


def debate(
    project: Path, clis: dict, *, hard: float = 4.0, grace: float = 1.0, **flags
) -> tuple[Run, str]:
    """One debate as `council debate -v` runs it on a terminal; its run and what the terminal
    showed. `hard`: the hard timeout factor; `grace`: between SIGTERM and SIGKILL."""
    settings = {"hard_timeout_factor": hard, "words": {"challenge": 120}}
    config = parse_config({"debate": settings, "clis": clis})
    stream = io.StringIO()
    run = start(
        DEBATE,
        DebateFlags(question=QUESTION, files=("app.py",), lead="sim", **flags),
        config,
        Progress(stream, verbose=True, live=True),
        cwd=project,
        tuning=Tuning(grace_s=grace),
    )
    return run, shown(stream)


# -- each answer as the live block and -v show it --------------------------------------------

STDERR = "council-sim: this install is broken\nreinstall it first"


def test_each_answer_shows_its_state_and_words_with_no_clock_and_v_shows_cut_argv_and_stderr(
    project, monkeypatch
):
    # The critic's CHALLENGE is cut to its word limit; the proxy's CHALLENGE fails with two
    # lines on stderr; the advocate's PROPOSAL writes into the project (no confinement).
    monkeypatch.setenv(confine.OFF_ENV, "1")
    clis = {
        "sim-long": seat(project, COUNCIL_SIM_WORDS="300", COUNCIL_SIM_PHASES="CHALLENGE"),
        "sim-fail": seat(
            project,
            COUNCIL_SIM_EXIT="3",
            COUNCIL_SIM_STDERR=STDERR,
            COUNCIL_SIM_PHASES="CHALLENGE",
        ),
        "sim-writer": seat(project, WRITE_PHASE="PROPOSAL", WRITE_INTO=str(project / "app.py")),
    }
    run, lines = debate(
        project,
        clis,
        advocate="sim-writer",
        critic="sim-long",
        proxies=("sim-fail",),
        no_blind=True,
    )
    assert run.exit_code == 0, run.error
    messages = transcript(run)
    calls = (
        ("advocate", "PROPOSAL", "advocate-r1"),
        ("critic", "CHALLENGE", "critic-r2"),
        ("proxy-sim-fail", "CHALLENGE", "proxy-sim-fail-r2"),
        ("advocate", "RESPOND", "advocate-r2"),
    )
    for name, phase, stem in calls:
        call = stored(run, stem)
        status, words = call["status"], call["words"]
        # The live block, redrawn as the answer comes in: its state and words, and no clock
        # left running for a call that has ended.
        block = rf"^  {re.escape(name)} +{phase} +{status} +{words} words$"
        assert re.search(block, lines, re.MULTILINE), stem
        # -v: the call's argv, as the transcript keeps it.
        argv = answer_of(messages, name, phase)["meta"]["argv"]
        assert len(argv) > 1
        assert f"\n  argv: {' '.join(argv)}\n" in lines, stem
    # The critic's CHALLENGE is cut to its limit, and its line says from how many words.
    challenge = stored(run, "critic-r2")
    assert (challenge["status"], challenge["truncated"]) == ("ok", True)
    assert challenge["words"] <= 120 < challenge["original_words"] == 300
    assert (
        f"\nCHALLENGE critic ok {challenge['words']} words (truncated from 300) "
        f"{challenge['latency_s']:.1f}s\n"
    ) in lines
    proposal = stored(run, "advocate-r1")
    assert not proposal["truncated"]
    assert f"\nPROPOSAL advocate ok {proposal['words']} words {proposal['latency_s']:.1f}s\n" in (
        lines
    )
    # The proxy's failure: its detail, then each line of its stderr, indented.
    failed = stored(run, "proxy-sim-fail-r2")
    assert (failed["status"], failed["stderr_tail"]) == ("error", STDERR)
    assert f"\nCHALLENGE proxy-sim-fail error {failed['detail']}\n" in lines
    assert "\n  stderr: council-sim: this install is broken\n  reinstall it first\n" in lines
    assert lines.count("stderr:") == 1  # only a failed call's stderr is shown
    # The advocate wrote into the project during its PROPOSAL: a warning, shown and kept.
    changed = "the project changed during advocate's call: app.py"
    assert f"\nwarning: {changed}\n" in lines
    assert changed in run.result["warnings"]


# -- a worker presumed dead -------------------------------------------------------------------

# A seat's worker answers every call by its hard limit (it kills the CLI); the lead gives up on
# one that has not answered WORKER_MARGIN_S (30 s) past it. Here the margin is 0.5 s and the
# stuck CLI ignores SIGTERM for a grace longer than that, so its worker is still killing it
# when the lead gives up, as a worker hung on a bug would be.
MARGIN_S = 0.5


def stuck(project: Path, phase: str, timeout_s: float = T) -> dict:
    """A seat whose `phase` call never ends by itself (its CLI hangs and ignores SIGTERM)."""
    return seat(
        project,
        timeout_s,
        COUNCIL_SIM_PHASES=phase,
        COUNCIL_SIM_HANG="1",
        COUNCIL_SIM_IGNORE_SIGTERM="1",
    )


def test_a_straggler_whose_worker_is_given_up_on_is_asked_while_the_rebuttal_still_collects(
    project, monkeypatch
):
    # The critic's CHALLENGE never ends: the lead moves on without it, finds the critic busy
    # for the REBUTTAL, and gives up on its worker while the advocate's FINAL_SUMMARY (held
    # until the critic is asked) keeps the phase collecting: the critic is asked then.
    monkeypatch.setattr(asked_module, "WORKER_MARGIN_S", MARGIN_S)
    rebuttal_asked = {"kind": "dm", "to": "critic", "action": "REBUTTAL"}
    run, lines = debate(
        project,
        {
            "sim-summary": gated(project, "FINAL_SUMMARY", rebuttal_asked),
            # a soft timeout of 2 s: its REBUTTAL, asked while the worker still kills the
            # stuck CHALLENGE (a grace of 1 s), is not left behind
            "sim-stuck": stuck(project, "CHALLENGE", timeout_s=2.0),
        },
        hard=1.5,
        advocate="sim-summary",
        critic="sim-stuck",
        proxies=(),
        rounds=3,
        no_blind=True,
    )
    # No challenge came: the DECISION is unchallenged (degraded), yet it was reached.
    assert (run.exit_code, run.result["status"]) == (5, "degraded"), run.error
    messages = transcript(run)
    (note,) = [m for m in messages if m["body"] == "moving on without critic (progressive wait)"]
    assert (note["kind"], note["phase"], note["meta"]) == (
        "system",
        "CHALLENGE",
        {"stem": "critic-r2"},
    )
    asks = asks_of(messages, "critic")
    assert [m["action"] for m in asks] == ["CHALLENGE", "REBUTTAL"]
    killed = answer_of(messages, "critic", "CHALLENGE")
    assert asks[1]["seq"] < killed["seq"]  # asked before its stuck call's worker answered
    assert killed["meta"]["status"] == "timeout"
    summary = answer_of(messages, "advocate", "FINAL_SUMMARY")
    rebuttal = answer_of(messages, "critic", "REBUTTAL")
    decision = next(m for m in messages if m["body"] == "phase DECISION")
    assert asks[1]["seq"] < summary["seq"] < decision["seq"]
    assert rebuttal["seq"] < decision["seq"]
    # Its REBUTTAL counts, and its prompt quotes no answer of its own (none came).
    assert contribution(run, "critic", "REBUTTAL")["status"] == "ok"
    assert run.result["decision"]["votes"]["critic"] is not None
    assert "Your own answer" not in (run.record.path / "critic-r3-prompt.md").read_text()
    assert "REBUTTAL critic busy: still answering its CHALLENGE; asked once free\n" in lines
    assert "skipped" not in lines


def test_the_lead_gives_up_on_a_straggler_whose_worker_never_answers_before_the_decision(
    project, monkeypatch
):
    # The critic's CHALLENGE (its last word in two rounds) never ends: left behind after its
    # soft timeout, it is waited for before the DECISION only until its worker is presumed
    # dead; the run then shuts its seats down (a grace of 2 s: the worker is still killing the
    # stuck CLI).
    monkeypatch.setattr(asked_module, "WORKER_MARGIN_S", MARGIN_S)
    run, lines = debate(
        project,
        {"sim-stuck": stuck(project, "CHALLENGE")},
        hard=1.5,
        grace=2.0,
        advocate="sim",
        critic="sim-stuck",
        proxies=(),
        no_blind=True,
    )
    assert (run.exit_code, run.result["status"]) == (5, "degraded"), run.error
    challenge = stored(run, "critic-r2")
    assert (challenge["status"], challenge["detail"]) == ("error", "no answer from its worker")
    assert contribution(run, "critic", "CHALLENGE")["status"] == "error"
    assert "CHALLENGE critic waiting 1/1.5s: moving on with 0/1 (progressive wait)\n" in lines
    assert "warning: only 0 challenge(s) for a quorum of 1: the DECISION is unchallenged" in lines
    # The seats were shut down without waiting for the stuck call's worker to answer.
    messages = transcript(run)
    (shutdown,) = [m for m in messages if m["kind"] == "shutdown" and m["to"] == "critic"]
    assert all(
        m["seq"] > shutdown["seq"]
        for m in messages
        if m["kind"] == "broadcast" and m["from"] == "critic"
    )


def review(
    project: Path, clis: dict, reviewers: tuple[str, ...], *, hard: float = 1.5
) -> tuple[Run, str]:
    """One review as `council review -v --format json` runs it (panel/gate.py)."""
    return review_of(project, clis, reviewers, hard=hard)


def test_a_cross_check_waiting_for_its_one_busy_reviewer_gives_up_on_a_dead_worker_and_closes(
    project, monkeypatch
):
    # The second reviewer's REVIEW never ends: left behind, it is the only reviewer the
    # CROSS_CHECK asks (the first has no other reviewer's finding to check), so the phase
    # waits for it to be free. Its worker presumed dead, its review is recorded as failed and
    # it is not asked to check findings it could not weigh against its own; it never sat the
    # phase out as busy.
    monkeypatch.setattr(asked_module, "WORKER_MARGIN_S", MARGIN_S)
    run, lines = review(project, {"sim-stuck": stuck(project, "REVIEW")}, ("sim", "sim-stuck"))
    # Nothing was cross-checked: the review is degraded.
    assert (run.exit_code, run.result["status"]) == (5, "degraded"), run.error
    stuck_reviewer = next(r for r in run.result["reviewers"] if r["name"] == "reviewer-sim-stuck")
    assert (stuck_reviewer["review"], stuck_reviewer["cross_check"]) == ("failed", "skipped")
    assert stuck_reviewer["problems"] == {
        "review": "error: no answer from its worker",
        "cross_check": None,
    }
    messages = transcript(run)
    assert [m["action"] for m in asks_of(messages, "reviewer-sim-stuck")] == ["REVIEW"]
    assert not [m for m in messages if m["meta"].get("status") == "skipped"]
    assert "CROSS_CHECK reviewer-sim-stuck busy: still answering its REVIEW; asked once free\n" in (
        lines
    )
    assert "warning: reviewer-sim-stuck's review failed (error: no answer from its worker)\n" in (
        lines
    )
    assert "skipped" not in lines


# -- a cross-check that asked reviewers, with two busy ones ---------------------------------

LATE = "reviewer-sim-late"  # a straggler over its REVIEW, which cannot be read
REPAIRING = "reviewer-sim-garbled"  # a straggler over the repair of its unreadable REVIEW
CHECKERS = ("reviewer-sim-check", "reviewer-sim-check-2")
CUT = {"COUNCIL_SIM_WORDS": "9", "COUNCIL_SIM_PHASES": "REVIEW"}  # a review that is no JSON


def busy_for_cross_check(name: str) -> dict:
    return {"kind": "system", "phase": "CROSS_CHECK", "meta.status": "busy", "meta.seat": name}


def test_a_cross_check_closes_when_the_reviewers_it_asked_are_done_though_a_freed_one_was_not_asked(
    project,
):
    # Two reviewers check each other's findings; two stragglers are busy when the CROSS_CHECK
    # begins. The first one free has a late review that cannot be read, so it is not asked;
    # the checkers answer after it (their cross-checks wait for its review), and the phase
    # closes then: the other straggler, still repairing its review (until it sits the phase
    # out), is not waited for.
    late_in = {"kind": "broadcast", "from": LATE, "phase": "REVIEW"}
    sat_out = {"kind": "system", "meta.status": "skipped", "meta.seat": REPAIRING}
    clis = {
        "sim-check": gated(project, "CROSS_CHECK", late_in),
        "sim-late": gated(project, "REVIEW", busy_for_cross_check(REPAIRING), T, **CUT),
        "sim-garbled": gated(project, "REVIEW_REPAIR", sat_out, T, **CUT),
    }
    run, lines = review(
        project, clis, ("sim-check", "sim-check", "sim-late", "sim-garbled"), hard=10.0
    )
    assert run.exit_code == 0, run.error
    messages = transcript(run)
    assert [m["action"] for m in asks_of(messages, LATE)] == ["REVIEW", "REVIEW_REPAIR"]
    assert [m["action"] for m in asks_of(messages, REPAIRING)] == ["REVIEW", "REVIEW_REPAIR"]
    late = answer_of(messages, LATE, "REVIEW")
    checks = [answer_of(messages, name, "CROSS_CHECK") for name in CHECKERS]
    (note,) = [m for m in messages if m["meta"].get("status") == "skipped"]
    assert note["meta"]["seat"] == REPAIRING
    repaired = answer_of(messages, REPAIRING, "REVIEW_REPAIR")
    assert late["seq"] < min(m["seq"] for m in checks)
    assert max(m["seq"] for m in checks) < note["seq"] < repaired["seq"]
    statuses = {
        r["name"]: (r["review"], r["cross_check"], r["repairs"]) for r in run.result["reviewers"]
    }
    assert statuses == {
        **dict.fromkeys(CHECKERS, ("ok", "ok", 0)),
        LATE: ("ok", "skipped", 1),  # its review was repaired after the cross-check
        REPAIRING: ("ok", "skipped", 1),
    }
    repairing = next(r for r in run.result["reviewers"] if r["name"] == REPAIRING)
    assert repairing["problems"]["cross_check"] == (
        "busy: still answering its REVIEW_REPAIR when CROSS_CHECK closed"
    )
    assert (
        f"CROSS_CHECK {REPAIRING} skipped: busy "
        "(still answering its REVIEW_REPAIR when CROSS_CHECK closed)\n" in lines
    )
