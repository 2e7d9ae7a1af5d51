"""Guarantees of the debate protocol checked by their effects, not by what the log says about
them: a READY restart is a second start of the CLI, every prompt as rendered opens with the
spec's isolation header, a late reply counts (quorum, context refresh, the advocate's next
prompt, resume), and a crash before the rename leaves the previous `state.json` whole."""

from __future__ import annotations

import contextlib
import itertools
import json
import signal
import sys
from pathlib import Path

import pytest

from council import atomicio
from council.debate.state import DebateState
from council.debate.synthesis import CONVERGENCE_WORDS, DECISION_WORDS
from council.runs.record import Record
from project import QUESTION, READY_S, Project, gated_sim, validate, wait_for

SPEC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "protocol.md"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def result_of(run) -> dict:
    return json.loads(run.stdout)


def seat(result: dict, name: str) -> dict:
    return next(s for s in result["seats"] if s["name"] == name)


def contribution(result: dict, seat_name: str, phase: str) -> dict:
    mine = [c for c in result["contributions"] if c["seat"] == seat_name and c["phase"] == phase]
    assert len(mine) == 1, f"{seat_name} {phase}: {mine}"
    return mine[0]


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


# -- READY: a missed handshake restarts the CLI once ------------------------------------------

# A user-defined CLI that logs every `--version` start; it hangs on the first start only
# ("first") or on every start ("always").
FLAKY_CLI = """\
import sys, time
from pathlib import Path

log, hang = Path(sys.argv[1]), sys.argv[2]
if sys.argv[-1] == "--version":
    earlier = log.read_text().count("version") if log.exists() else 0
    with log.open("a") as f:
        f.write("version\\n")
    if hang == "always" or earlier == 0:
        time.sleep(60)
    print("flaky 1.0.0")
else:
    phase = next(l for l in sys.stdin.read().splitlines() if l.startswith("ACTION:"))[8:]
    print(f"On {phase}: the plan holds for this service. VOTE: agree - nothing blocks it.")
"""


def flaky_debate(project: Project, hang: str) -> tuple[object, Path]:
    script = executable(project.root.parent / "flaky.py", FLAKY_CLI)
    starts = project.root.parent / "flaky-starts.txt"
    project.write_config(
        f"debate:\n  ready_timeout_s: {READY_S}\n"
        "clis:\n  flaky:\n"
        f"    command: [{sys.executable}, -I, -S, {script}, {starts}, {hang}]\n"
        "    input: stdin\n"
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
        "flaky",
        "--json",
    )
    return run, starts


def version_starts(log: Path) -> int:
    return log.read_text().count("version") if log.exists() else 0


def test_a_seat_that_misses_ready_once_is_started_again_and_takes_part(project):
    run, starts = flaky_debate(project, "first")
    assert run.returncode == 0, run.stderr
    assert version_starts(starts) == 2  # the hung start, then the restart
    result = result_of(run)
    assert seat(result, "proxy-flaky")["status"] == "ok"
    assert contribution(result, "proxy-flaky", "CHALLENGE")["status"] == "ok"


def test_a_seat_that_misses_ready_twice_was_started_twice_and_is_dropped_in_the_result(project):
    run, starts = flaky_debate(project, "always")
    assert run.returncode == 0, run.stderr
    assert version_starts(starts) == 2  # restarted once, never a third time
    result = json.loads((project.record() / "result.json").read_text())
    assert result == result_of(run)
    assert seat(result, "proxy-flaky")["status"] == "dropped"
    assert any("proxy-flaky" in w and "dropped" in w for w in result["warnings"])
    assert not [c for c in result["contributions"] if c["seat"] == "proxy-flaky"]
    assert result["status"] == "completed"


# -- Prompts: the isolation header, as the spec words it, opens every rendered prompt ----------


def spec_isolation_header() -> str:
    """The indented block after 'starts with the isolation header:' in protocol.md."""
    lines = SPEC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if "starts with the isolation header:" in line)
    block: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("    "):
            block.append(line[4:])
        elif block or line.strip():
            break
    assert block and "{limit}" in block[-1], "the spec's isolation header was not found"
    return "\n".join(block) + "\n"


def lead_limit(stem: str) -> int:
    """The lead's own calls have no ACTION DM; their limits are the lead's constants."""
    if stem.endswith("-convergence"):
        return CONVERGENCE_WORDS
    assert stem in ("lead-decision", "lead-decision-repair"), f"unexpected lead prompt {stem}"
    return DECISION_WORDS


@pytest.mark.parametrize(
    ("question", "args", "env"),
    [
        pytest.param(QUESTION, ("--rounds", "3", "--with", "sim,sim"), {}, id="3-rounds-2-proxies"),
        pytest.param(
            f"{QUESTION} FORCE_DIVERGE",  # the convergence check finds the debate still open
            ("--rounds", "4"),
            # The DECISION reply is cut mid-object, so the lead asks for a repair too.
            {"COUNCIL_SIM_WORDS": "30", "COUNCIL_SIM_PHASES": "DECISION"},
            id="convergence-check-and-decision-repair",
        ),
    ],
)
def test_every_prompt_sent_to_a_cli_starts_with_the_whole_isolation_header_of_the_spec(
    project, question, args, env
):
    run = project.run("debate", question, "--files", "app.py", "--sim", *args, **env)
    assert run.returncode == 0, run.stderr
    header = spec_isolation_header()
    record = project.record()
    limits = {
        m["meta"]["prompt_file"]: m["meta"]["limit"]
        for m in project.transcript()
        if m["kind"] == "dm" and m["action"]
    }
    prompts = sorted(record.glob("*-prompt.md"))
    names = {p.name for p in prompts}
    assert set(limits) <= names  # every ACTION had its prompt written
    assert "lead-decision-prompt.md" in names
    if env:
        assert {"lead-decision-repair-prompt.md", "lead-r2-convergence-prompt.md"} <= names
    fences = json.loads((record / "state.json").read_text())["fences"]
    for prompt in prompts:
        stem = prompt.name.removesuffix("-prompt.md")
        limit = limits.get(prompt.name) or lead_limit(stem)
        expected = header.replace("{limit}", str(limit)).replace("{work}", "debate")
        for key in ("nonce", "canary"):
            expected = expected.replace(f"{{{key}}}", fences[key])
        text = prompt.read_text(encoding="utf-8")
        assert text.startswith(expected), f"{prompt.name} does not open with the header:\n{text}"


# -- Late replies --------------------------------------------------------------------------

T = 1  # the late challenger's soft timeout
# Its hard limit is far away (HARD x T): "late" means answered after the lead moved on and
# before the hard limit, and both ends are set by events, not by racing delays.
HARD = 10  # the most council.yaml allows


def late_config(
    project: Project, extra: str = "", respond_delay: float = 1.5, after: str = "RESPOND"
) -> None:
    """`sim-late` answers its CHALLENGE only once a call of `after` has started (the lead
    moved on without it: late by construction, on any machine); `sim-slowrespond` takes
    `respond_delay` over RESPOND, so a late challenge is in before RESPOND ends."""
    project.write_config(
        f"debate:\n  hard_timeout_factor: {HARD}\n"
        "clis:\n"
        + gated_sim(project, "sim-late", phase="CHALLENGE", after=after, pause_s=0)
        + "  sim-slowrespond:\n    adapter: sim\n    env:\n"
        f"      COUNCIL_SIM_DELAY: '{respond_delay}'\n      COUNCIL_SIM_PHASES: RESPOND\n" + extra
    )


def test_a_lone_challenger_answering_late_counts_toward_quorum(project):
    late_config(project)
    run = project.run(
        "debate", QUESTION, "--sim", "--critic", "sim-late", "--timeout", f"sim-late={T}", "--json"
    )
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    challenge = contribution(result, "critic", "CHALLENGE")
    assert challenge["status"] == "late"
    assert result["status"] == "completed"
    assert result["decision"]["unchallenged"] is False
    assert challenge["text"] in (project.record() / "lead-decision-prompt.md").read_text()


# A user-defined challenger that states a checkable fact in its round-2 CHALLENGE, late: once
# the simulator's call log (its first argument) shows the advocate's RESPOND started, i.e.
# after the lead moved on. Its other answers come at once.
LATE_FACT = "The session table `sessions_v2` holds 41000 rows at peak"
LATE_CRITIC = f"""\\
import sys, time

if sys.argv[-1] == "--version":
    print("late-critic 1.0.0")
    sys.exit(0)
calls, prompt_file = sys.argv[1], sys.argv[-1]
prompt = open(prompt_file, encoding="utf-8").read()
if "ACTION: CHALLENGE" in prompt and "Round: 2" in prompt:
    while not any(l.startswith("RESPOND\\t") for l in open(calls, encoding="utf-8")):
        time.sleep(0.02)
    print("A gap remains in the plan. {LATE_FACT}. VOTE: revise - size the cache first.")
else:
    print("Nothing new to add here. VOTE: agree - the revised plan holds.")
"""


@pytest.mark.parametrize(
    ("rounds", "question", "next_action"),
    [
        pytest.param("3", QUESTION, "FINAL_SUMMARY", id="3-rounds"),
        # The convergence check finds the debate open: round 3 is another CHALLENGE + RESPOND.
        pytest.param("4", f"{QUESTION} FORCE_DIVERGE", "RESPOND", id="4-rounds"),
    ],
)
def test_a_late_challenge_feeds_the_context_refresh_and_the_advocates_next_prompt(
    project, rounds, question, next_action
):
    script = executable(project.root.parent / "late_critic.py", LATE_CRITIC)
    late_config(
        project,
        f"  late-critic:\n    command: [{sys.executable}, -I, -S, {script}, {project.count_file}]\n"
        "    input: file\n",
    )
    run = project.run(
        "debate",
        question,
        "--advocate",
        "sim-slowrespond",
        "--critic",
        "late-critic",
        "--lead",
        "sim",
        "--timeout",
        f"late-critic={T}",
        "--rounds",
        rounds,
        "--json",
    )
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    assert result["rounds"]["run"] == int(rounds)
    late = [c for c in result["contributions"] if c["status"] == "late"]
    assert [(c["seat"], c["phase"], c["round"]) for c in late] == [("critic", "CHALLENGE", 2)]
    assert LATE_FACT in late[0]["text"]
    assert result["status"] == "completed" and result["decision"]["unchallenged"] is False
    fact = f"- [R2] {LATE_FACT}."
    assert fact in result["context"]["technical_context"]  # the CONTEXT REFRESH
    next_prompt = (project.record() / "advocate-r3-prompt.md").read_text()
    assert f"ACTION: {next_action}" in next_prompt
    assert fact in next_prompt
    assert late[0]["text"] in next_prompt


@pytest.fixture(scope="module")
def interrupted_after_a_late_reply(tmp_path_factory) -> dict:
    """A run whose lone challenger answered late, interrupted (SIGINT) while the advocate is
    still over its RESPOND; what it left, taken before anything else touches the record."""
    project = Project(tmp_path_factory.mktemp("interrupted"))
    late_config(project)
    council = project.start(
        "debate",
        QUESTION,
        "--sim",
        "--advocate",
        "sim-slowrespond",
        "--critic",
        "sim-late",
        "--timeout",
        f"sim-late={T}",
    )

    def late_reply_stored() -> bool:
        records = project.records()
        if not records:
            return False
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            state = json.loads((records[0] / "state.json").read_text())
            return state["calls"].get("critic-r2", {}).get("status") == "late"
        return False

    try:
        wait_for(late_reply_stored, timeout=30)
        council.send_signal(signal.SIGINT)
    finally:
        council.communicate(timeout=30)
    return {
        "project": project,
        "exit_code": council.returncode,
        "state": json.loads((project.record() / "state.json").read_text()),
        "transcript": project.transcript(),
        "sim_calls": project.sim_calls(),
    }


def test_an_interrupted_run_resumes_with_its_late_reply_and_never_asks_for_it_again(
    interrupted_after_a_late_reply,
):
    interrupted = interrupted_after_a_late_reply
    project: Project = interrupted["project"]
    assert interrupted["exit_code"] == 130
    assert interrupted["state"]["status"] == "interrupted"
    assert interrupted["state"]["calls"]["critic-r2"]["status"] == "late"
    assert "advocate-r2" not in interrupted["state"]["calls"]  # RESPOND was cut short
    assert interrupted["sim_calls"]["CHALLENGE"] == 1

    late_config(project, respond_delay=0)
    run = project.run("resume", project.record().name, "--json")
    assert run.returncode == 0, run.stderr
    assert project.sim_calls()["CHALLENGE"] == 1  # the late reply on disk was reused
    result = result_of(run)
    assert contribution(result, "critic", "CHALLENGE")["status"] == "late"
    assert contribution(result, "advocate", "RESPOND")["status"] == "ok"
    assert result["status"] == "completed" and result["decision"]["unchallenged"] is False


def test_an_interrupt_stops_the_seats_without_waiting_for_acknowledgements(
    interrupted_after_a_late_reply,
):
    """Ctrl-C cancels every seat with the lead, and each kills its CLI's tree on the way out:
    the lead sends no SHUTDOWN nobody could answer (that wait cost grace + 5 s); it notes
    the interrupt in the record instead."""
    transcript = interrupted_after_a_late_reply["transcript"]
    assert [m for m in transcript if m["kind"] == "shutdown"] == []
    assert any(
        m["kind"] == "system" and m["body"].startswith("interrupted: seats stopped")
        for m in transcript
    )


def dms_to(transcript: list[dict], seat_name: str) -> list[dict]:
    return [m for m in transcript if m["kind"] == "dm" and m["to"] == seat_name and m["action"]]


def answer_of(transcript: list[dict], seat_name: str, phase: str) -> dict:
    return next(
        m
        for m in transcript
        if m["kind"] == "broadcast" and m["from"] == seat_name and m["phase"] == phase
    )


def assert_one_action_in_flight(transcript: list[dict], seat_name: str) -> None:
    """No ACTION DM reaches the seat between an earlier ACTION and that ACTION's answer."""
    answers = [m for m in transcript if m["kind"] == "broadcast" and m["from"] == seat_name]
    asks = dms_to(transcript, seat_name)
    for ask, following in itertools.pairwise(asks):
        answer = next(m for m in answers if m["meta"]["stem"] == ask["meta"]["stem"])
        assert answer["seq"] < following["seq"], f"{following['action']} sent while busy"


def test_a_straggler_is_asked_for_rebuttal_only_once_free_with_its_own_late_answer(project):
    late_config(project)
    run = project.run(
        "debate",
        QUESTION,
        "--sim",
        "--critic",
        "sim-late",
        "--timeout",
        f"sim-late={T}",
        "--rounds",
        "3",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    assert_one_action_in_flight(transcript, "critic")
    late = answer_of(transcript, "critic", "CHALLENGE")
    rebuttal = next((m for m in transcript if m["action"] == "REBUTTAL"), None)
    if rebuttal is not None:  # asked: only after its CHALLENGE ended, with that answer
        assert rebuttal["seq"] > late["seq"]
        prompt = (project.record() / "critic-r3-prompt.md").read_text()
        assert late["body"] in prompt
    else:  # or it sat the phase out, recorded as skipped
        skipped = contribution(result_of(run), "critic", "REBUTTAL")
        assert (skipped["status"], skipped["reason"]) == ("skipped", "busy")


def test_a_straggler_freed_while_the_rebuttal_still_collects_is_asked_with_its_own_challenge(
    project,
):
    """The advocate's FINAL_SUMMARY takes 2.5 s: the critic's late CHALLENGE comes once that
    summary has started (the REBUTTAL found the critic busy), while the REBUTTAL phase still
    collects, so the critic is asked then, not before."""
    soft = 2 * T
    late_config(
        project,
        "  sim-slowsummary:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_DELAY: '2.5'\n      COUNCIL_SIM_PHASES: FINAL_SUMMARY\n",
        after="FINAL_SUMMARY",
    )
    run = project.run(
        "debate",
        QUESTION,
        "--advocate",
        "sim-slowsummary",
        "--critic",
        "sim-late",
        "--lead",
        "sim",
        "--timeout",
        f"sim-late={soft}",
        "--rounds",
        "3",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    assert_one_action_in_flight(transcript, "critic")
    late = answer_of(transcript, "critic", "CHALLENGE")
    (rebuttal,) = [m for m in dms_to(transcript, "critic") if m["action"] == "REBUTTAL"]
    summary = answer_of(transcript, "advocate", "FINAL_SUMMARY")
    assert late["seq"] < rebuttal["seq"] < summary["seq"]  # asked while the phase collected
    busy = next(m for m in transcript if m["meta"].get("status") == "busy")
    assert busy["phase"] == "REBUTTAL" and busy["seq"] < late["seq"]
    prompt = (project.record() / "critic-r3-prompt.md").read_text()
    assert late["body"] in prompt
    assert "## Your own answer of round 2 (CHALLENGE)" in prompt
    result = result_of(run)
    assert contribution(result, "critic", "CHALLENGE")["status"] == "late"
    assert contribution(result, "critic", "REBUTTAL")["status"] == "ok"
    assert result["decision"]["votes"]["critic"] is not None  # its last word counted
    assert "REBUTTAL critic busy: still answering its CHALLENGE" in run.stderr


def test_a_straggler_still_busy_when_the_rebuttal_closes_sits_it_out_as_skipped_busy(project):
    """The critic's CHALLENGE answer waits for the advocate's FINAL_SUMMARY: the REBUTTAL
    phase closes while the critic is still answering, so it is never asked for a rebuttal;
    its late challenge still counts, and the DECISION waits for it."""
    # The hard limit is a bound on a hang: at the default 1.5 x 3 s, a busy machine's slow
    # RESPOND and FINAL_SUMMARY pushed the gated answer past it (a timeout, not a straggler).
    project.write_config(
        f"debate:\n  hard_timeout_factor: {HARD}\n"
        "clis:\n"
        + gated_sim(project, "sim-gated", phase="CHALLENGE", after="FINAL_SUMMARY", pause_s=0.4)
    )
    run = project.run(
        "debate",
        QUESTION,
        "--sim",
        "--critic",
        "sim-gated",
        "--timeout",
        "sim-gated=3",
        "--rounds",
        "3",
        "--json",
    )
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    assert [m["action"] for m in dms_to(transcript, "critic")] == ["BLIND_TAKE", "CHALLENGE"]
    late = answer_of(transcript, "critic", "CHALLENGE")
    (skipped_note,) = [m for m in transcript if m["meta"].get("status") == "skipped"]
    assert skipped_note["kind"] == "system" and skipped_note["phase"] == "REBUTTAL"
    assert skipped_note["meta"]["reason"] == "busy" and skipped_note["seq"] < late["seq"]
    decision_phase = next(m for m in transcript if m["body"] == "phase DECISION")
    assert late["seq"] < decision_phase["seq"]  # the DECISION waited for the straggler
    result = result_of(run)
    validate(result)
    skipped = contribution(result, "critic", "REBUTTAL")
    assert (skipped["status"], skipped["reason"], skipped["text"]) == ("skipped", "busy", "")
    assert contribution(result, "critic", "CHALLENGE")["status"] == "late"
    assert (seat(result, "critic")["status"], seat(result, "critic")["calls"]) == ("ok", 2)
    assert result["status"] == "completed" and result["decision"]["votes"]["critic"] is None
    assert late["body"] in (project.record() / "lead-decision-prompt.md").read_text()
    assert not (project.record() / "critic-r3-prompt.md").exists()
    assert project.sim_calls()["REBUTTAL"] == 0
    assert "REBUTTAL critic skipped: busy" in run.stderr
    shown = project.run("show", "last", "--html")
    assert shown.returncode == 0, shown.stderr
    page = (project.root / shown.stdout.strip()).read_text(encoding="utf-8")
    assert 'REBUTTAL · <span class="badge' in page and "sat this phase out: busy" in page


def test_a_blind_take_slower_than_the_proposal_is_cancelled_and_holds_no_challenge(project):
    """The critic's blind take takes 30 s; the PROPOSAL comes at once. After the grace of
    0.1 s the blind take is cancelled (its process tree killed: nothing is left running),
    recorded `skipped: late`, and the CHALLENGE goes out to the critic at once, its prompt
    without a blind take."""
    project.write_config(
        "clis:\n  sim-slowblind:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_DELAY: '30'\n      COUNCIL_SIM_PHASES: BLIND_TAKE\n"
    )
    run = project.run(
        "debate",
        QUESTION,
        "--sim",
        "--critic",
        "sim-slowblind",
        "--json",
        COUNCIL_TEST_BLIND_GRACE_S="0.1",  # the real grace (tests/conftest.py sets another)
    )
    assert run.returncode == 0, run.stderr
    transcript = project.transcript()
    assert [m["action"] for m in dms_to(transcript, "critic")] == ["BLIND_TAKE", "CHALLENGE"]
    proposal_in = answer_of(transcript, "advocate", "PROPOSAL")
    (cancel,) = [m for m in transcript if m["kind"] == "dm" and m["body"].startswith("CANCEL:")]
    assert (cancel["to"], cancel["body"]) == ("critic", "CANCEL:critic-r1")
    (note,) = [m for m in transcript if m["meta"].get("status") == "skipped"]
    assert (note["kind"], note["meta"]["stem"], note["meta"]["reason"]) == (
        "system",
        "critic-r1",
        "late",
    )
    (challenge,) = [m for m in dms_to(transcript, "critic") if m["action"] == "CHALLENGE"]
    assert proposal_in["seq"] < cancel["seq"] < challenge["seq"]
    # No answer of the cancelled call ever reaches the record.
    assert not [m for m in transcript if m["kind"] == "broadcast" and m["phase"] == "BLIND_TAKE"]
    assert "BLIND_TAKE critic skipped: late (still answering when the PROPOSAL was in: " in (
        run.stderr
    )
    assert "Your own first take" not in (project.record() / "critic-r2-prompt.md").read_text()
    result = result_of(run)
    validate(result)
    blind = contribution(result, "critic", "BLIND_TAKE")
    assert (blind["status"], blind["reason"], blind["text"]) == ("skipped", "late", "")
    assert contribution(result, "critic", "CHALLENGE")["status"] == "ok"
    assert (seat(result, "critic")["status"], seat(result, "critic")["calls"]) == ("ok", 1)
    assert result["status"] == "completed" and result["decision"]["unchallenged"] is False
    # The run took far less than the blind take would have.
    assert result["duration_s"] < 30


def test_each_challenger_gives_a_blind_take_in_round_one(project):
    run = project.run("debate", QUESTION, "--sim", "--with", "sim", "--json")
    assert run.returncode == 0, run.stderr
    round_one = {c["seat"] for c in result_of(run)["contributions"] if c["round"] == 1}
    assert {"critic", "proxy-sim"} <= round_one


# -- The record: atomic state writes ---------------------------------------------------------


class DiedBeforeRename(BaseException):
    """Stands in for the process dying between the temporary write and the rename."""


def test_a_crash_between_the_temp_write_and_the_rename_leaves_the_previous_state_readable(
    tmp_path, monkeypatch
):
    record = Record.create(tmp_path / ".scratchpad")
    before = DebateState(id=record.id, question=QUESTION, plan={}, phase="PROPOSAL", round=1)
    record.save_state(before)
    after = DebateState(
        id=record.id, question=QUESTION, plan={}, phase="CHALLENGE", round=2, warnings=["x" * 9000]
    )

    def die(*args, **kwargs):
        raise DiedBeforeRename

    with monkeypatch.context() as patch:
        patch.setattr(atomicio.os, "replace", die)
        with contextlib.suppress(DiedBeforeRename):
            record.save_state(after)

    saved = DebateState.from_json(json.loads((record.path / "state.json").read_text()))
    assert saved == before
