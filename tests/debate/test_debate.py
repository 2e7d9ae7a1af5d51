"""`council debate` end to end, run as a user runs it, on the simulator: the record, the
protocol's ordering guarantees, progressive wait, late replies, quorum, interrupts and resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import psutil
import pytest

from council.runner.environment import CALL_MARKER
from project import QUESTION, READY_S, Project, late_ready_sim, validate, wait_for

from fakes.install import install_fakes


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def dms(transcript: list[dict]) -> list[dict]:
    return [m for m in transcript if m["kind"] == "dm" and m["action"]]


def test_a_three_round_debate_with_two_proxies_writes_the_whole_record(project):
    run = project.run(
        "debate",
        QUESTION,
        "--files",
        "README.md",
        "app.py",
        "--sim",
        "--rounds",
        "3",
        "--with",
        "sim,sim",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    record = project.record()
    assert result["status"] == "completed" and result["simulated"] is True
    assert result["rounds"] == {"requested": 3, "run": 3, "stopped_early": False}
    assert {s["name"] for s in result["seats"]} == {
        "advocate",
        "critic",
        "proxy-sim",
        "proxy-sim-2",
        "lead",
    }
    for name in (
        "state.json",
        "transcript.jsonl",
        "context.md",
        "decision.md",
        "result.json",
        "context.json",
    ):
        assert (record / name).is_file(), name
    expected_calls = [
        "advocate-r1",
        "critic-r2",
        "proxy-sim-r2",
        "proxy-sim-2-r2",
        "advocate-r2",
        "advocate-r3",
        "critic-r3",
        "proxy-sim-r3",
        "proxy-sim-2-r3",
        "lead-decision",
    ]
    for stem in expected_calls:
        for suffix in ("prompt.md", "response.md", "response.err"):
            assert (record / f"{stem}-{suffix}").is_file(), f"{stem}-{suffix}"
    # The rooms lived outside the project and are gone; the record keeps what each held.
    rooms = json.loads((record / "rooms.json").read_text())
    for seat in ("advocate", "critic", "proxy-sim", "proxy-sim-2", "lead"):
        assert set(rooms[seat]["files"]) == {"README.md", "app.py"}, seat
        room = Path(rooms[seat]["path"])
        assert not room.is_relative_to(project.root) and not room.exists(), room
    assert not (record / "rooms").exists()
    assert record.stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in record.iterdir() if p.is_file())
    phases = [(c["seat"], c["phase"], c["round"]) for c in result["contributions"]]
    assert ("advocate", "PROPOSAL", 1) in phases and ("advocate", "FINAL_SUMMARY", 3) in phases
    assert ("proxy-sim-2", "REBUTTAL", 3) in phases
    assert result["decision"]["synthesized_by"] == "lead (sim)"
    assert set(result["decision"]["votes"]) == {"critic", "proxy-sim", "proxy-sim-2"}
    assert (record / "decision.md").read_text().startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert run.stderr.strip().endswith(f"saved: .scratchpad/{record.name}/")


def test_every_seat_reports_ready_before_its_own_first_action(project):
    run = project.run("debate", QUESTION, "--sim", "--with", "sim,sim")
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    ready = {m["from"]: m["seq"] for m in transcript if m["kind"] == "ready"}
    assert set(ready) == {"advocate", "critic", "proxy-sim", "proxy-sim-2"}
    for seat, seq in ready.items():
        first_action = next(m["seq"] for m in transcript if m["kind"] == "dm" and m["to"] == seat)
        assert seq < first_action, seat
    assert "ready 4/4" in run.stderr


def seq_of(transcript: list[dict], **fields: str) -> int:
    """The seq of the first transcript line with these fields."""
    return next(m["seq"] for m in transcript if all(m.get(k) == v for k, v in fields.items()))


def test_a_challenger_ready_only_after_the_proposal_skips_its_blind_take_and_holds_no_challenge(
    project,
):
    # Its probe answers only once the critic's CHALLENGE call has started: a CHALLENGE that
    # waited for this seat (or for a blind take of it) would wait in vain (until the probe
    # gives up, and the order below would not hold).
    project.write_config("clis:\n" + late_ready_sim(project, "lateready", after="CHALLENGE"))
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--critic", "sim", "--lead", "sim",
        "--with", "lateready", "--json", COUNCIL_TEST_BLIND_GRACE_S="0.1",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    proposal_in = seq_of(transcript, kind="broadcast", phase="PROPOSAL")
    critic_challenge = seq_of(transcript, kind="dm", to="critic", action="CHALLENGE")
    ready = seq_of(transcript, kind="ready", **{"from": "proxy-lateready"})
    first_action = seq_of(transcript, kind="dm", to="proxy-lateready")
    assert proposal_in < critic_challenge < ready < first_action
    asked = [m["action"] for m in transcript if m["kind"] == "dm" and m["to"] == "proxy-lateready"]
    assert asked == ["CHALLENGE"]  # never asked for a blind take
    # Its own note only: on a busy machine the critic's blind take can miss the 0.1 s grace too.
    (note,) = [
        m
        for m in transcript
        if m["meta"].get("reason") == "late" and m["meta"].get("stem") == "proxy-lateready-r1"
    ]
    assert (note["kind"], note["meta"]["stem"], note["meta"]["status"]) == (
        "system",
        "proxy-lateready-r1",
        "skipped",
    )
    assert ready < note["seq"] < first_action
    assert (
        "BLIND_TAKE proxy-lateready skipped: late (not READY 0.1s after the PROPOSAL was in)"
        in run.stderr
    )
    assert "ready 3/3" in run.stderr
    result = json.loads(run.stdout)
    validate(result)
    late = {
        c["phase"]: (c["status"], c["reason"], c["text"])
        for c in result["contributions"]
        if c["seat"] == "proxy-lateready"
    }
    assert late == {
        "BLIND_TAKE": ("skipped", "late", ""),
        "CHALLENGE": ("ok", None, late["CHALLENGE"][2]),
    }
    # No blind take in its CHALLENGE prompt: it gave none.
    prompt = (project.record() / "proxy-lateready-r2-prompt.md").read_text()
    assert "Your own first take" not in prompt
    proxy = next(s for s in result["seats"] if s["name"] == "proxy-lateready")
    assert (proxy["status"], proxy["calls"]) == ("ok", 1)


def test_a_dropped_advocate_is_replaced_and_its_replacement_writes_the_proposal(tmp_path):
    project = Project(tmp_path)
    fakes = install_fakes(tmp_path / "bin", names=("gemini",))  # claude and codex missing
    run = project.run(
        "debate", QUESTION, "--advocate", "claude", "--critic", "sim", "--lead", "sim",
        "--json", PATH=fakes.path_env(project.env()["PATH"]),
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "advocate (claude) dropped: `claude` not found on PATH" in run.stderr
    assert "the advocate is now gemini" in run.stderr
    result = json.loads(run.stdout)
    assert next(s for s in result["seats"] if s["name"] == "advocate")["cli"] == "gemini"
    proposal = next(c for c in result["contributions"] if c["phase"] == "PROPOSAL")
    assert (proposal["seat"], proposal["status"]) == ("advocate", "ok")
    transcript = project.transcript()
    readies = [m["seq"] for m in transcript if m["kind"] == "ready" and m["from"] == "advocate"]
    assert len(readies) == 2  # claude's (not usable), then gemini's
    assert readies[-1] < seq_of(transcript, kind="dm", to="advocate", action="PROPOSAL")
    assert len([c for c in fakes.calls("gemini") if "--version" not in c["argv"]]) == 2


def test_a_lead_whose_cli_cannot_run_exits_3_with_the_state_saved_failed(project):
    run = project.run("debate", QUESTION, "--advocate", "sim", "--critic", "sim", "--lead", "codex")
    assert run.returncode == 3, run.stderr
    assert "the lead's CLI (codex) cannot run: `codex` not found on PATH" in run.stderr
    state = json.loads((project.record() / "state.json").read_text())
    assert (state["status"], state["exit_code"], state["decision"]) == ("failed", 3, None)
    assert state["error"].startswith("the lead's CLI (codex) cannot run")
    notes = [m["body"] for m in project.transcript() if m["kind"] == "system"]
    assert any(n.startswith("stopped (the lead's CLI (codex) cannot run") for n in notes)


def test_no_seat_calls_its_cli_without_an_action_dm(project):
    run = project.run("debate", QUESTION, "--sim", "--rounds", "3", "--with", "sim")
    assert run.returncode == 0, run.stderr
    ordered = Counter(m["action"] for m in dms(project.transcript()))
    ordered["DECISION"] += 1  # the lead's own call
    assert project.sim_calls() == ordered


def test_every_challenger_gets_the_same_round_context_block(project):
    run = project.run(
        "debate", QUESTION, "--files", "app.py", "--sim", "--rounds", "3", "--with", "sim,sim"
    )
    assert run.returncode == 0, run.stderr
    record = project.record()
    for round_no in (2, 3):
        blocks = set()
        for seat in ("critic", "proxy-sim", "proxy-sim-2"):
            prompt = (record / f"{seat}-r{round_no}-prompt.md").read_text()
            start = prompt.index(f"## Round {round_no} context")
            # The round block ends where a seat's own part begins (its blind take, its task).
            end = min(prompt.find(h, start) % len(prompt) for h in ("## Your own", "## Your task"))
            blocks.add(prompt[start:end])
        assert len(blocks) == 1
    proxy_prompt = (record / "proxy-sim-r2-prompt.md").read_text()
    assert proxy_prompt.startswith("IMPORTANT: You are an independent analyst")
    # proxies get the technical context, not the file excerpts the critic gets
    assert "### app.py" not in proxy_prompt
    assert "### app.py" in (record / "critic-r2-prompt.md").read_text()


def test_over_long_replies_are_truncated_with_the_marker_and_kept_whole_on_disk(project):
    run = project.run(
        "debate",
        QUESTION,
        "--sim",
        "--with",
        "sim",
        "--json",
        COUNCIL_SIM_WORDS="450",
        COUNCIL_SIM_PHASES="CHALLENGE",
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    challenges = {c["seat"]: c for c in result["contributions"] if c["phase"] == "CHALLENGE"}
    assert challenges["critic"]["words"] <= 300 and challenges["proxy-sim"]["words"] <= 200
    for c in challenges.values():
        assert c["truncated"] and c["original_words"] == 450
        assert c["text"].endswith("[truncated: original ~450 words]")
        original = (project.record() / c["files"]["response"]).read_text()
        assert len(original.split()) == 450


def hang_config(project: Project, soft: float, extra: str = "", factor: float = 1.5) -> None:
    project.write_config(
        f"debate:\n  hard_timeout_factor: {factor}\n"
        "clis:\n"
        "  sim-slow:\n"
        "    adapter: sim\n"
        f"    timeout_s: {soft}\n"
        "    env:\n"
        "      COUNCIL_SIM_PHASES: CHALLENGE\n"
        f"{extra}"
    )


def test_a_hung_proxy_does_not_hold_up_respond_and_ends_as_timeout(project):
    hang_config(project, 2, "      COUNCIL_SIM_HANG: '1'\n      COUNCIL_SIM_IGNORE_SIGTERM: '1'\n")
    run = project.run("debate", QUESTION, "--sim", "--with", "sim,sim-slow", "--json")
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    respond = next(m for m in transcript if m["action"] == "RESPOND")
    hung = next(
        m
        for m in transcript
        if m["kind"] == "broadcast" and m["from"] == "proxy-sim-slow" and m["phase"] == "CHALLENGE"
    )
    assert respond["seq"] < hung["seq"]  # RESPOND went out while the proxy still hung
    assert hung["meta"]["status"] == "timeout"
    assert "progressive wait" in run.stderr
    result = json.loads(run.stdout)
    seat = next(s for s in result["seats"] if s["name"] == "proxy-sim-slow")
    assert seat["status"] == "timeout"


def test_a_proxy_answering_after_its_soft_timeout_is_late_and_reaches_the_decision(project):
    hang_config(project, 2, "      COUNCIL_SIM_DELAY: '3'\n", factor=3.0)
    run = project.run("debate", QUESTION, "--sim", "--with", "sim,sim-slow", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    late = next(
        c
        for c in result["contributions"]
        if c["seat"] == "proxy-sim-slow" and c["phase"] == "CHALLENGE"
    )
    assert late["status"] == "late"
    decision_prompt = (project.record() / "lead-decision-prompt.md").read_text()
    # Named as the lead sees every seat: by role and letter (the third challenger, Seat C).
    assert "Seat C (proxy) (late)" in decision_prompt and "proxy-sim-slow" not in decision_prompt
    assert late["text"] in decision_prompt


def test_when_every_challenger_fails_the_decision_is_unchallenged_and_exit_is_5(project):
    project.write_config(
        "clis:\n  sim-broken:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_EXIT: '1'\n      COUNCIL_SIM_PHASES: CHALLENGE\n"
    )
    run = project.run("debate", QUESTION, "--sim", "--critic", "sim-broken", "--json")
    assert run.returncode == 5, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    assert result["status"] == "degraded"
    assert result["decision"]["unchallenged"] is True
    assert "Status: degraded (unchallenged)" in (project.record() / "decision.md").read_text()


def test_no_cli_for_the_advocate_exits_3_with_the_state_saved(project):
    run = project.run("debate", QUESTION, "--advocate", "codex", "--critic", "sim", "--lead", "sim")
    assert run.returncode == 3, run.stderr
    assert "no CLI left for the advocate seat" in run.stderr
    state = json.loads((project.record() / "state.json").read_text())
    assert state["status"] == "failed"
    assert state["seats"]["advocate"]["status"] == "dropped"


def test_json_output_is_the_result_alone_on_stdout(project):
    run = project.run("debate", QUESTION, "--sim", "--json", "--quiet")
    assert run.returncode == 0, run.stderr
    validate(json.loads(run.stdout))
    assert run.stderr.strip().splitlines()[-1].startswith("saved: .scratchpad/debate-")


def test_lead_caller_emits_the_decision_prompt_instead_of_a_decision(project):
    run = project.run("debate", QUESTION, "--sim", "--lead", "caller", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    assert result["decision"] is None
    assert "ACTION: DECISION" in result["decision_prompt"]
    assert project.sim_calls()["DECISION"] == 0


def test_rounds_outside_two_to_five_are_a_usage_error(project):
    run = project.run("debate", QUESTION, "--sim", "--rounds", "6")
    assert run.returncode == 2
    assert project.records() == []


def test_five_rounds_stop_early_when_the_lead_finds_no_open_blocking_disagreement(project):
    run = project.run("debate", QUESTION, "--sim", "--rounds", "5", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["rounds"] == {"requested": 5, "run": 3, "stopped_early": True}


def test_five_rounds_run_every_extra_cycle_while_disagreement_stays_open(project):
    run = project.run("debate", f"{QUESTION} FORCE_DIVERGE", "--sim", "--rounds", "5", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["rounds"] == {"requested": 5, "run": 5, "stopped_early": False}
    responds = [c["round"] for c in result["contributions"] if c["phase"] == "RESPOND"]
    assert responds == [2, 3, 4]


# -- interrupts and resume ---------------------------------------------------------------


def processes_of(council_pid: int) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        try:
            marker = proc.environ().get("COUNCIL_CALL_ID", "")
            if marker.startswith(f"{council_pid}-") and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def interrupted_in_challenge(
    project: Project, sig: int, *, watchdog_too: bool = False
) -> tuple[subprocess.Popen, str]:
    hang_config(project, 60, "      COUNCIL_SIM_HANG: '1'\n")
    council = project.start("debate", QUESTION, "--sim", "--with", "sim-slow")

    def critic_answered() -> bool:
        return bool(project.records()) and any(
            m["kind"] == "broadcast" and m["from"] == "critic" and m["phase"] == "CHALLENGE"
            for m in project.transcript()
        )

    try:
        wait_for(critic_answered)
        if watchdog_too:  # as an OOM kill of both would: nothing then cleans up at once
            (watchdog,) = [
                child
                for child in psutil.Process(council.pid).children()
                if any(arg.startswith(f"{CALL_MARKER}=") for arg in child.cmdline())
            ]
            watchdog.kill()
        council.send_signal(sig)
    finally:
        _, stderr = council.communicate(timeout=30)
    return council, stderr


def test_sigint_during_challenge_exits_130_kills_everything_and_resume_repeats_no_call(
    project,
):
    council, stderr = interrupted_in_challenge(project, signal.SIGINT)
    assert council.returncode == 130
    assert f"resume with: council resume {project.record().name}" in stderr
    assert processes_of(council.pid) == []
    state = json.loads((project.record() / "state.json").read_text())
    assert state["status"] == "interrupted"
    before = project.sim_calls()
    hang_config(project, 60)  # the proxy answers this time
    run = project.run("resume", project.record().name, "--json")
    assert run.returncode == 0, run.stderr
    after = project.sim_calls()
    assert after["PROPOSAL"] == before["PROPOSAL"] == 1
    assert after["CHALLENGE"] == before["CHALLENGE"] + 1  # only the interrupted proxy again
    result = json.loads(run.stdout)
    validate(result)
    assert result["status"] == "completed"


def test_a_council_killed_with_sigkill_during_challenge_can_be_resumed(project):
    # Its watchdog killed first: the hung proxy outlives them, and resume sweeps it.
    council, _ = interrupted_in_challenge(project, signal.SIGKILL, watchdog_too=True)
    assert council.returncode == -signal.SIGKILL
    left = processes_of(council.pid)  # the hung proxy outlived its council
    assert left
    hang_config(project, 60)
    run = project.run("resume", project.record().name, "--json")
    assert run.returncode == 0, run.stderr
    assert "left running by the interrupted run" in run.stderr
    assert processes_of(council.pid) == []
    assert json.loads(run.stdout)["status"] == "completed"
    assert project.sim_calls()["PROPOSAL"] == 1


def test_a_new_run_in_the_project_kills_what_a_dead_council_left(project):
    council, _ = interrupted_in_challenge(project, signal.SIGKILL, watchdog_too=True)
    dead = project.record().name
    assert processes_of(council.pid)  # council and its watchdog gone, the hung proxy not
    hang_config(project, 60)
    run = project.run("debate", QUESTION, "--sim")
    assert run.returncode == 0, run.stderr
    assert f"left running by {dead}, which died" in run.stderr
    assert processes_of(council.pid) == []


def test_resume_of_a_damaged_record_still_kills_what_its_dead_council_left(project):
    council, _ = interrupted_in_challenge(project, signal.SIGKILL, watchdog_too=True)
    assert processes_of(council.pid)
    (project.record() / "state.json").write_text("{x")  # damaged: resume must refuse it
    run = project.run("resume", project.record().name)
    assert run.returncode == 2 and "cannot be read" in run.stderr
    assert "left running by the interrupted run" in run.stderr
    assert processes_of(council.pid) == []


def test_a_seat_that_misses_ready_is_restarted_once_then_dropped_and_the_debate_goes_on(
    project,
):
    slow = project.root.parent / "slowstart.py"
    slow.write_text("import time\ntime.sleep(60)\n")
    project.write_config(
        f"debate:\n  ready_timeout_s: {READY_S}\n"
        f"clis:\n  slowstart:\n    command: [{sys.executable}, {slow}]\n"
    )
    run = project.run(
        "debate",
        QUESTION,
        "--advocate",
        "sim",
        "--critic",
        "sim",
        "--lead",
        "sim",
        "--with",
        "slowstart",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    assert "proxy-slowstart missed READY; restarting it once" in run.stderr
    dropped = f"proxy-slowstart (slowstart) dropped: no READY within {READY_S:g}s (restarted once)"
    assert dropped in run.stderr
    result = json.loads(run.stdout)
    assert next(s for s in result["seats"] if s["name"] == "proxy-slowstart")["status"] == (
        "dropped"
    )
    assert not any(c["seat"] == "proxy-slowstart" for c in result["contributions"])


def test_verbose_shows_each_calls_argv_timing_and_output_writes_the_result(project):
    out = project.root / "decision.json"
    run = project.run("debate", QUESTION, "--sim", "-v", "--output", str(out))
    assert run.returncode == 0, run.stderr
    assert "  argv: " in run.stderr and "attempt(s)" in run.stderr
    assert json.loads(out.read_text())["status"] == "completed"
    assert run.stdout.startswith("# DECISION (SIMULATED):")


def test_an_unreadable_decision_is_repaired_once(project):
    # WORDS cuts the DECISION reply to 30 words, mid-object; the repair reply is whole.
    run = project.run(
        "debate", QUESTION, "--sim", "--json", COUNCIL_SIM_WORDS="30", COUNCIL_SIM_PHASES="DECISION"
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["decision"]["confidence"] is not None
    assert (project.record() / "lead-decision-repair-prompt.md").is_file()
    assert project.sim_calls()["REPAIR"] == 1


def test_a_decision_unreadable_even_after_repair_keeps_the_raw_text_and_warns(project):
    run = project.run(
        "debate",
        QUESTION,
        "--sim",
        "--json",
        COUNCIL_SIM_WORDS="30",
        COUNCIL_SIM_PHASES="DECISION,REPAIR",
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    assert result["decision"]["confidence"] is None
    assert result["decision"]["recommendation"].startswith("{")  # the raw reply, kept
    assert any("even after one repair" in w for w in result["warnings"])
