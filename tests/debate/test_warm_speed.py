"""Real CLIs at the model's pace, on the strict fake CLIs (docs/spec/protocol.md section 3):
a warm seat's blind take still running when the PROPOSAL is in is cancelled (its session,
not its worker), and not asked again on resume; the lead's own calls run on a warm worker
of its CLI; nothing is left running, also on Ctrl-C during the DECISION."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from project import QUESTION, Project, held_sim, validate, wait_for

from fakes.install import install_fakes


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def contribution(result: dict, seat_name: str, phase: str) -> dict:
    (mine,) = [c for c in result["contributions"] if c["seat"] == seat_name and c["phase"] == phase]
    return mine


def seats_of(result: dict) -> dict[str, dict]:
    return {s["name"]: s for s in result["seats"]}


def turns(fakes, name: str, phase: str) -> list[dict]:
    return [c for c in fakes.calls(name) if c.get("warm") and f"ACTION: {phase}\n" in c["prompt"]]


def test_a_warm_blind_take_still_running_when_the_proposal_is_in_has_its_session_cancelled(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    gate = tmp_path / "proposal-may-answer"
    project.write_config("clis:\n" + held_sim(project, "sim-gated", phase="PROPOSAL", until=gate))
    fakes.set("gemini", "hang")  # the critic's blind take never ends by itself
    council = project.start(
        "debate", QUESTION, "--files", "app.py", "--advocate", "sim-gated",
        "--critic", "gemini", "--lead", "sim", "--json",
        COUNCIL_TEST_BLIND_GRACE_S="0.1",  # the real grace (tests/conftest.py sets another)
        PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    try:
        wait_for(lambda: len(turns(fakes, "gemini", "BLIND_TAKE")) == 1)
        fakes.set("gemini")  # its CHALLENGE answers
        gate.touch()  # the PROPOSAL comes in now
    finally:
        stdout, stderr = council.communicate(timeout=60)
    assert council.returncode == 0, stderr
    result = json.loads(stdout)
    validate(result)
    blind = contribution(result, "critic", "BLIND_TAKE")
    assert (blind["status"], blind["reason"], blind["text"]) == ("skipped", "late", "")
    assert contribution(result, "critic", "CHALLENGE")["status"] == "ok"
    # Its session was cancelled, its worker kept: the CHALLENGE ran in the same process.
    (blind_turn,) = turns(fakes, "gemini", "BLIND_TAKE")
    (challenge_turn,) = turns(fakes, "gemini", "CHALLENGE")
    assert blind_turn["pid"] == challenge_turn["pid"]
    assert blind_turn["session"] != challenge_turn["session"]
    worker = seats_of(result)["critic"]["worker"]
    assert (worker["mode"], worker["starts"], worker["deaths"]) == ("warm", 1, 0)
    assert '"cancelled"' in (project.record() / "critic-r1-response.md").read_text()
    assert "Your own first take" not in (project.record() / "critic-r2-prompt.md").read_text()
    assert "BLIND_TAKE critic skipped: late (still answering when the PROPOSAL was in: " in stderr
    assert fakes.leftovers() == []


# The seats spawn or run warm on other CLIs than the lead's: the fake claude serves the lead
# alone, so its calls are the lead's.
LEAD_SEATS = ("--advocate", "gemini", "--critic", "sim", "--lead", "claude")


def lead_turns(fakes) -> list[dict]:
    return [c for c in fakes.calls("claude") if c.get("warm")]


def test_the_lead_decides_on_a_warm_worker_started_while_the_debate_ran(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    run = project.run(
        "debate", QUESTION, "--files", "app.py", *LEAD_SEATS, "--json",
        PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    lead = seats_of(result)["lead"]
    assert lead["worker"]["mode"] == "warm" and lead["worker"]["problem"] is None
    assert lead["worker"]["calls"] == lead["calls"] >= 1 and lead["worker"]["deaths"] == 0
    assert result["decision"]["synthesized"] is True
    # The DECISION's prompt (and its repair's, if any) went to the worker, each in a session
    # of its own; no claude was spawned for a call (only, perhaps, its `--version` probe).
    turns = lead_turns(fakes)
    assert len(turns) == lead["calls"] and len({t["session"] for t in turns}) == len(turns)
    assert turns[0]["prompt"] == (project.record() / "lead-decision-prompt.md").read_text()
    assert all(c["argv"] == ["--version"] for c in fakes.calls("claude") if not c.get("warm"))
    # The seats were shut down once the DECISION phase began, not before it.
    transcript = project.transcript()
    decision = next(m["seq"] for m in transcript if m["body"] == "phase DECISION")
    shutdowns = [m["seq"] for m in transcript if m["kind"] == "shutdown"]
    assert shutdowns and min(shutdowns) > decision
    assert fakes.leftovers() == []


@pytest.mark.parametrize(
    ("flags", "config"),
    [
        (("--cold",), ""),
        ((), "debate:\n  max_warm_seats: 0\n"),
        ((), "clis:\n  claude:\n    warm: false\n"),
    ],
    ids=["cold", "no-warm-seats", "claude-warm-false"],
)
def test_no_warm_lead_when_warm_workers_are_off(
    project: Project, tmp_path: Path, flags: tuple[str, ...], config: str
):
    fakes = install_fakes(tmp_path / "bin")
    project.write_config(config)
    run = project.run(
        "debate", QUESTION, "--files", "app.py", *LEAD_SEATS, "--json", *flags,
        PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert seats_of(result)["lead"]["worker"] is None
    assert lead_turns(fakes) == []
    assert result["decision"]["synthesized"] is True


def test_the_lead_counts_toward_no_cap_of_warm_seats(project: Project, tmp_path: Path):
    fakes = install_fakes(tmp_path / "bin")
    project.write_config("debate:\n  max_warm_seats: 1\n")
    run = project.run(
        "debate", QUESTION, "--files", "app.py", *LEAD_SEATS, "--json",
        PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    seats = seats_of(json.loads(run.stdout))
    assert seats["advocate"]["worker"]["mode"] == "warm"
    assert seats["lead"]["worker"]["mode"] == "warm"


def test_a_lead_worker_that_cannot_start_leaves_the_lead_spawning_and_says_why(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    fakes.set("claude", handshake="exit")
    run = project.run(
        "debate", QUESTION, "--files", "app.py", *LEAD_SEATS, "--json",
        PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    worker = seats_of(result)["lead"]["worker"]
    assert worker["mode"] == "spawn" and "did not start" in worker["problem"]
    assert result["decision"]["synthesized"] is True
    assert any(
        m["body"].startswith("the lead spawns its CLI per call: ") for m in project.transcript()
    )
    assert fakes.leftovers() == []


def test_ctrl_c_during_a_warm_decision_stops_every_worker(project: Project, tmp_path: Path):
    fakes = install_fakes(tmp_path / "bin")
    fakes.set("claude", "hang")  # the lead's DECISION never ends by itself
    council = project.start(
        "debate", QUESTION, "--files", "app.py", *LEAD_SEATS,
        PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    try:
        wait_for(lambda: len(lead_turns(fakes)) >= 1)  # the DECISION is on the lead's worker
        council.send_signal(signal.SIGINT)
    finally:
        _, stderr = council.communicate(timeout=30)
    assert council.returncode == 130, stderr
    assert "resume with: council resume " in stderr
    assert fakes.leftovers() == []
    state = json.loads((project.record() / "state.json").read_text())
    assert state["status"] == "interrupted"


def test_a_resumed_run_does_not_ask_again_for_a_blind_take_skipped_late(
    project: Project, tmp_path: Path
):
    # The critic's blind take takes 30 s: it is cut short once the PROPOSAL is in. The run is
    # interrupted while the advocate's RESPOND waits for a file, then resumed.
    gate = tmp_path / "respond-may-answer"
    project.write_config(
        "clis:\n"
        + held_sim(project, "sim-gated", phase="RESPOND", until=gate)
        + "  sim-slowblind:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_DELAY: '30'\n      COUNCIL_SIM_PHASES: BLIND_TAKE\n"
    )
    flags = ("--advocate", "sim-gated", "--critic", "sim-slowblind", "--lead", "sim")
    grace = {"COUNCIL_TEST_BLIND_GRACE_S": "0.1"}  # the real grace (tests/conftest.py)
    council = project.start("debate", QUESTION, *flags, **grace)
    try:
        wait_for(
            lambda: (
                bool(project.records())
                and any(m["action"] == "RESPOND" for m in project.transcript())
            )
        )
        council.send_signal(signal.SIGINT)
    finally:
        _, stderr = council.communicate(timeout=30)
    assert council.returncode == 130, stderr
    state = json.loads((project.record() / "state.json").read_text())
    assert state["calls"]["critic-r1"]["status"] == "skipped"
    assert state["calls"]["critic-r1"]["reason"] == "late"
    before = len(project.transcript())
    gate.touch()
    run = project.run("resume", project.record().name, "--json", **grace)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    blind = contribution(result, "critic", "BLIND_TAKE")
    assert (blind["status"], blind["reason"]) == ("skipped", "late")
    resumed = project.transcript()[before:]
    assert not [m for m in resumed if m["action"] == "BLIND_TAKE" or m["phase"] == "BLIND_TAKE"]
    assert project.sim_calls()["BLIND_TAKE"] == 1  # the one cut short, never again
    assert result["status"] == "completed"
