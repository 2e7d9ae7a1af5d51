"""How the lead waits for the seats it asked (protocol.md section 3, "Timeouts and progressive
wait"), seen in what a user gets: the record, the result and the progress lines.

The debates run in this process through `panel.run.start`, on simulator seats with controlled
delays, so that mutation testing (scripts/mutation.sh), which only sees code run in-process,
sees the lead's waiting too. They go through the public API only: they hold whatever the
dispatch code looks like inside.
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
from council.panel.run import Run, resume, start
from council.progress import Progress

QUESTION = "Should this service cache sessions in Redis or Postgres?"
T = 1.0  # the soft timeout of the slow seats; their hard limit is 1.5 T
SLOW = 1.25 * T  # after the soft timeout, before the hard limit


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("class SessionStore:\n    def get(self, key: str): ...\n")
    return root


def sim_seat(phases: str = "", **env: str) -> dict:
    """A simulator seat with soft timeout T whose faults apply in `phases` only."""
    return {"adapter": "sim", "timeout_s": T, "env": {"COUNCIL_SIM_PHASES": phases, **env}}


def debate(project: Path, clis: dict, **flags) -> tuple[Run, str]:
    """One debate as `council debate -v` runs it; its run and its progress lines (the
    `[mm:ss] ` stamps left out)."""
    config = parse_config({"debate": {"hard_timeout_factor": 1.5}, "clis": clis})
    stream = io.StringIO()
    run = start(
        DEBATE,
        DebateFlags(question=QUESTION, files=("app.py",), **flags),
        config,
        Progress(stream, verbose=True, live=False),
        cwd=project,
    )
    return run, re.sub(r"^\[\d\d:\d\d\] ", "", stream.getvalue(), flags=re.MULTILINE)


def transcript(run: Run) -> list[dict]:
    path = run.record.path / "transcript.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def contribution(run: Run, seat: str, phase: str) -> dict:
    (found,) = [c for c in run.result["contributions"] if c["seat"] == seat and c["phase"] == phase]
    return found


def seq_of(messages: list[dict], **match) -> int:
    (found,) = [m for m in messages if all(m.get(k) == v for k, v in match.items())]
    return found["seq"]


def test_a_hung_proxy_is_left_behind_after_its_soft_timeout_and_recorded_at_its_hard_limit(
    project,
):
    run, lines = debate(
        project,
        {"sim-hung": sim_seat("CHALLENGE", COUNCIL_SIM_HANG="1")},
        sim=True,
        proxies=("sim-hung",),
    )
    assert run.exit_code == 0, run.error
    assert run.result["status"] == "completed"
    messages = transcript(run)
    moved_on = seq_of(
        messages, kind="system", body="moving on without proxy-sim-hung (progressive wait)"
    )
    respond = seq_of(messages, kind="dm", action="RESPOND")
    hung = seq_of(messages, kind="broadcast", **{"from": "proxy-sim-hung"}, phase="CHALLENGE")
    # The advocate was asked to respond without it, and its end came in later, before the
    # DECISION: the lead waited for it within its hard limit.
    assert moved_on < respond < hung < seq_of(messages, kind="system", body="phase DECISION")
    assert "CHALLENGE proxy-sim-hung waiting 1/1.5s: moving on with 1/2 (progressive wait)\n" in (
        lines
    )
    assert (
        "CHALLENGE proxy-sim-hung timeout no answer within the hard limit of 1.5s; "
        "process tree killed\n" in lines
    )
    hung_challenge = contribution(run, "proxy-sim-hung", "CHALLENGE")
    assert hung_challenge["status"] == "timeout"
    # The transcript tells which call outlived its soft timeout.
    challenges = {
        m["from"]: m["meta"]
        for m in messages
        if m["kind"] == "broadcast" and m["phase"] == "CHALLENGE"
    }
    assert challenges["proxy-sim-hung"]["exceeded_soft"] is True
    assert challenges["critic"]["exceeded_soft"] is False
    assert contribution(run, "critic", "CHALLENGE")["status"] == "ok"
    # The critic's answer made the quorum; the hung proxy shows in the DECISION's prompt as
    # a seat without an answer, the critic's challenge in full.
    decision_prompt = (run.record.path / "lead-decision-prompt.md").read_text()
    assert "(no answer: timeout)" in decision_prompt
    assert contribution(run, "critic", "CHALLENGE")["text"] in decision_prompt
    assert run.result["decision"]["unchallenged"] is False
    # Verbose progress shows each call's argv, attempts and exit code.
    assert "  1 attempt(s), " in lines and ", exit 0\n" in lines
    assert "  argv: " in lines


def test_a_slow_proposal_is_waited_for_and_a_late_lone_challenge_reaches_the_next_prompts(
    project,
):
    # The advocate takes longer than its soft timeout over PROPOSAL and RESPOND, the critic
    # (the lone challenger) over CHALLENGE: it answers while the advocate responds.
    run, lines = debate(
        project,
        {
            "sim-slow-advocate": sim_seat("PROPOSAL,RESPOND", COUNCIL_SIM_DELAY=str(SLOW)),
            "sim-late": sim_seat("CHALLENGE", COUNCIL_SIM_DELAY=str(SLOW)),
        },
        advocate="sim-slow-advocate",
        critic="sim-late",
        lead="sim",
        proxies=(),
        rounds=3,
    )
    assert run.exit_code == 0, run.error
    # A PROPOSAL is never left behind: the debate waited for it past the soft timeout, and
    # the blind take that came in meanwhile was kept for its own phase.
    assert contribution(run, "advocate", "PROPOSAL")["status"] == "ok"
    assert contribution(run, "critic", "BLIND_TAKE")["status"] == "ok"
    messages = transcript(run)
    blind = seq_of(messages, kind="broadcast", phase="BLIND_TAKE")
    assert blind < seq_of(messages, kind="broadcast", phase="PROPOSAL")
    # The lone challenger is a straggler after its soft timeout: RESPOND went out without it.
    challenge = contribution(run, "critic", "CHALLENGE")
    assert challenge["status"] == "late"
    assert seq_of(messages, kind="dm", action="RESPOND") < seq_of(
        messages, kind="broadcast", phase="CHALLENGE"
    )
    assert "CHALLENGE critic waiting 1/1.5s: moving on with 0/1 (progressive wait)\n" in lines
    assert re.search(rf"^CHALLENGE critic late {challenge['words']} words 1\.\d+s$", lines, re.M)
    # Its late answer is in the advocate's next prompt and in the DECISION's, and it counts.
    assert challenge["text"] in (run.record.path / "advocate-r3-prompt.md").read_text()
    assert challenge["text"] in (run.record.path / "lead-decision-prompt.md").read_text()
    assert run.result["status"] == "completed"
    assert run.result["decision"]["unchallenged"] is False


def test_a_resumed_debate_reuses_every_answer_on_disk_and_asks_again_for_the_rest(project):
    count = project.parent / "sim-calls.txt"
    count.touch()
    clis = {"sim-count": sim_seat(COUNCIL_SIM_COUNT_FILE=str(count))}
    run, _ = debate(
        project,
        clis,
        advocate="sim-count",
        critic="sim-count",
        lead="sim",
        proxies=(),
        no_blind=True,
    )
    assert run.exit_code == 0, run.error
    first = count.read_text().splitlines()
    # Forget the critic's CHALLENGE and the DECISION, as a run interrupted before them.
    state_file = run.record.path / "state.json"
    state = json.loads(state_file.read_text())
    del state["calls"]["critic-r2"]
    state["order"].remove("critic-r2")
    state.update(status="interrupted", decision=None)
    state_file.write_text(json.dumps(state))

    stream = io.StringIO()
    config = parse_config({"clis": clis})
    resumed = resume(
        DEBATE, run.record, config, Progress(stream, verbose=True, live=False), cwd=project
    )
    assert resumed.exit_code == 0, resumed.error
    again = count.read_text().splitlines()[len(first) :]
    # Only the forgotten CHALLENGE ran again (the lead is another seat, uncounted).
    assert [line.split("\t")[0] for line in again] == ["CHALLENGE"]
    notes = [m["body"] for m in transcript(resumed) if m["kind"] == "system"]
    assert "reused advocate-r1 from the record" in notes
    assert "reused advocate-r2 from the record" in notes
    assert "reused critic-r2 from the record" not in notes
    assert contribution(resumed, "critic", "CHALLENGE")["status"] == "ok"


def test_before_the_decision_the_lead_waits_for_a_straggler_inside_its_hard_limit(project):
    # The proxy takes 1.25 x its soft timeout of 3 s over CHALLENGE: the lead moves on with
    # the critic, the advocate responds at once, and the DECISION waits for the proxy.
    slow = {"adapter": "sim", "timeout_s": 3.0, "env": {
        "COUNCIL_SIM_PHASES": "CHALLENGE", "COUNCIL_SIM_DELAY": "3.75"}}  # fmt: skip
    run, lines = debate(project, {"sim-slow": slow}, sim=True, proxies=("sim-slow",), rounds=2)
    assert run.exit_code == 0, run.error
    messages = transcript(run)
    late = seq_of(messages, kind="broadcast", **{"from": "proxy-sim-slow"}, phase="CHALLENGE")
    respond = seq_of(messages, kind="dm", action="RESPOND")
    decision = seq_of(messages, kind="system", body="phase DECISION")
    assert respond < late < decision
    challenge = contribution(run, "proxy-sim-slow", "CHALLENGE")
    assert challenge["status"] == "late"
    assert challenge["text"] in (run.record.path / "lead-decision-prompt.md").read_text()
    assert "CHALLENGE proxy-sim-slow waiting 3/4.5s: moving on with 1/2 (progressive wait)\n" in (
        lines
    )
