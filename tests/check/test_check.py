"""`council check` end to end on the simulator, run as a user runs it (docs/spec/commands.md
"council check", docs/spec/protocol.md section 10): one blind answer per seat, the positions
and who holds each, the agreement, needs_human, the exit codes, the JSON against its schema,
and `council debate --from` continuing a check without asking its seats again."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from council.check.result import check_schema
from project import Project, scripted_sim, validate

# The simulator's stance: the option SIM_PREFER gives its --model, else the first option.
SPLIT = "Redis or Postgres for sessions? SIM_PREFER(alpha=Redis,beta=Postgres)"
SEATS = ("--advocate", "sim:alpha", "--critic", "sim:beta", "--with", "sim:gamma")


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def check_json(run) -> dict:
    result = json.loads(run.stdout)
    jsonschema.Draft202012Validator(check_schema()).validate(result)
    return result


def test_agreeing_seats_are_unanimous_and_exit_0(project):
    run = project.run("check", "Redis or Postgres?", "--options", "Redis,Postgres", "--sim")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# CHECK (SIMULATED): Redis or Postgres?\n")
    assert "Agreement: **unanimous**" in run.stdout and "needs a human: no" in run.stdout
    assert "- **Redis** (2 of 2): the advocate, Seat A (critic)" in run.stdout
    assert f"council debate --from {project.record().name}" in run.stdout
    record = project.record()
    assert record.name.startswith("check-")
    assert (record / "check.md").read_text() == run.stdout
    prompts = {(record / f"{s}-r1-prompt.md").read_text() for s in ("advocate", "critic")}
    assert len(prompts) == 1  # the same prompt, byte for byte, for every seat
    (prompt,) = prompts
    assert "## Options\n- Redis\n- Postgres\n" in prompt and "ROLE:" not in prompt
    # A check is a poll: the seats are not told they are in a debate.
    assert prompt.startswith(
        "IMPORTANT: You are an independent analyst in a structured technical poll."
    )
    assert "- Answer only the poll task below" in prompt and "debate" not in prompt.lower()
    assert project.sim_calls() == {"CHECK": 2}  # one call per seat, nothing else


def test_a_split_panel_exits_8_and_needs_a_human(project):
    run = project.run(
        "check", SPLIT, "--options", "Redis,Postgres", "--advocate", "sim:alpha",
        "--critic", "sim:beta", "--json",
    )  # fmt: skip
    assert run.returncode == 8, run.stderr
    result = check_json(run)
    assert (result["agreement"], result["needs_human"]) == ("split", True)
    assert result["exit_code"] == 8 and result["status"] == "completed"
    holders = {p["stance"]: p["seats"] for p in result["positions"]}
    assert holders == {"Redis": ["advocate"], "Postgres": ["critic"]}
    assert [a["stance"] for a in result["answers"]] == ["Redis", "Postgres"]
    assert json.loads((project.record() / "result.json").read_text()) == result


def test_two_of_three_is_a_majority_that_still_needs_a_human(project):
    run = project.run("check", SPLIT, "--options", "Postgres,Redis", *SEATS, "--json")
    assert run.returncode == 0, run.stderr
    result = check_json(run)
    assert (result["agreement"], result["needs_human"]) == ("majority", True)
    (first, second) = result["positions"]
    assert (first["stance"], first["seats"], first["labels"]) == (
        "Postgres",
        ["critic", "proxy-sim"],
        ["Seat A (critic)", "Seat B (proxy)"],
    )
    assert (second["stance"], second["seats"]) == ("Redis", ["advocate"])


def test_without_options_stances_group_by_their_normalised_words(project):
    question = "Cache sessions? SIM_PREFER(alpha=**No.**,beta=no)"
    run = project.run("check", question, "--advocate", "sim:alpha", "--critic", "sim:beta")
    assert run.returncode == 0, run.stderr
    assert "- **No** (2 of 2): the advocate, Seat A (critic)" in run.stdout


def test_one_position_is_insufficient_and_exits_9(project):
    project.write_config(
        "clis:\n  broken:\n    adapter: sim\n    env:\n      COUNCIL_SIM_EXIT: '1'\n"
    )
    run = project.run(
        "check", "Cache sessions?", "--advocate", "sim", "--critic", "broken", "--json"
    )
    assert run.returncode == 9, run.stderr
    result = check_json(run)
    assert (result["agreement"], result["needs_human"], result["status"]) == (
        "insufficient",
        True,
        "degraded",
    )
    assert [(a["seat"], a["status"], a["counted"]) for a in result["answers"]] == [
        ("advocate", "ok", True),
        ("critic", "error", False),
    ]
    assert "no position from: critic (error)" in run.stderr


def test_schema_check_prints_the_schema_the_json_follows(project):
    run = project.run("schema", "check")
    assert run.returncode == 0
    assert json.loads(run.stdout) == check_schema()
    assert check_schema()["title"] == "council.check/v1"


def test_a_check_runs_detached_and_the_run_commands_read_it(project):
    started = project.run("check", SPLIT, "--options", "Redis,Postgres", *SEATS[:4], "--detach")
    assert started.returncode == 0, started.stderr
    run_id = started.stdout.split()[0]
    assert run_id.startswith("check-")
    waited = project.run("wait", run_id, "--json")
    assert waited.returncode == 8, waited.stderr  # the check's own exit code
    assert check_json(waited)["agreement"] == "split"
    listed = project.run("list")
    assert run_id in listed.stdout and "completed" in listed.stdout
    shown = project.run("show", run_id)
    assert shown.returncode == 0 and shown.stdout.startswith("# CHECK (SIMULATED)")
    page = project.run("show", run_id, "--html")
    assert page.returncode == 2 and "is a check: it has no HTML page" in page.stderr


def test_debate_from_a_check_reuses_its_answers_as_blind_takes(project):
    check = project.run("check", SPLIT, "--options", "Redis,Postgres", *SEATS, "--json")
    check_id = check_json(check)["id"]
    answers = {a["seat"]: a["text"] for a in check_json(check)["answers"]}
    assert project.sim_calls() == {"CHECK": 3}
    run = project.run("debate", "--from", check_id, "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    assert result["question"] == SPLIT
    blind = {c["seat"]: c for c in result["contributions"] if c["phase"] == "BLIND_TAKE"}
    assert set(blind) == {"critic", "proxy-sim"}  # the advocate writes the PROPOSAL
    for seat, contribution in blind.items():
        assert contribution["text"] == answers[seat]
        assert contribution["copied_from"] == f"{check_id}/{seat}-r1"
    calls = project.sim_calls()
    assert calls["CHECK"] == 3 and calls["BLIND_TAKE"] == 0  # no new call for them
    # The very seats of the check, each with the model it answered with.
    seated = [(s["name"], s["cli"], s["model"]) for s in result["seats"] if s["role"] != "lead"]
    assert seated == [
        ("advocate", "sim", "alpha"),
        ("critic", "sim", "beta"),
        ("proxy-sim", "sim", "gamma"),
    ]
    assert f"; from {check_id}: 2 blind take(s) copied, not asked again\n" in run.stderr
    assert calls["PROPOSAL"] == 1 and calls["CHALLENGE"] == 2
    debate = next(p for p in project.records() if p.name.startswith("debate-"))
    asked = [
        json.loads(line)
        for line in (debate / "transcript.jsonl").read_text().splitlines()
        if json.loads(line)["kind"] == "dm"
    ]
    assert "BLIND_TAKE" not in {m["action"] for m in asked}
    said = (debate / "transcript.jsonl").read_text()
    # The transcript says where a copied take came from, not that this run recorded it.
    assert f"reused critic-r1 from check {check_id}/critic-r1" in said
    assert "reused critic-r1 from the record" not in said
    state = json.loads((debate / "state.json").read_text())
    assert "copied from " + check_id in state["calls"]["critic-r1"]["detail"]
    assert (debate / "critic-r1-reply.md").read_text() == answers["critic"]
    challenge = (debate / "critic-r2-prompt.md").read_text()
    assert answers["critic"].splitlines()[0] in challenge  # its own first answer, quoted


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["debate", "--from", "check-20990101-000000-zzzz"], "no run"),
        (["debate", "--from", "last", "Another question?"], "drop the question, or --from"),
        (["debate", "--from", "last", "--files", "app.py"], "drop --files"),
        (["check"], "the question is missing"),
        (["check", "q?", "--options", "Redis", "--sim"], "--options takes 2 to 10 answers"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(project, argv, message):
    run = project.run(*argv)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("council: ") and message in line


def test_debate_from_a_debate_id_is_refused(project):
    debate = project.run("debate", "Cache sessions?", "--sim", "--json")
    debate_id = json.loads(debate.stdout)["id"]
    run = project.run("debate", "--from", debate_id)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        f"council: --from {debate_id}: {debate_id} is a debate, not a check; --from takes a "
        "check's id (council list shows them)"
    )
    assert len(project.records()) == 1  # nothing was started


def test_the_simulator_states_its_position_on_the_last_line():
    from council.sim.replies import build_reply

    prompt = "ACTION: CHECK\nQuestion: x?\n## Options\n- Blue\n- Green\nSIM_PREFER(m=Green)\n"
    assert build_reply(prompt.encode(), prompt, "CHECK", None).endswith("\nPOSITION: Blue")
    assert build_reply(prompt.encode(), prompt, "CHECK", "m").endswith("\nPOSITION: Green")


def test_a_secret_in_the_question_or_an_option_never_reaches_a_prompt(project):
    key = "sk-ant-api03-" + "Zq7" * 30
    run = project.run("check", f"Rotate {key}?", "--options", f"yes {key},no", "--sim")
    assert run.returncode == 0, run.stderr
    assert "redacted 1 secret(s) from the question" in run.stderr
    written = [p.read_text() for p in project.record().iterdir() if p.is_file()]
    assert written and not [text for text in written if key in text]
    assert key not in run.stdout


def test_a_seat_without_a_position_line_degrades_the_check_not_its_agreement(project):
    # A long answer is never cut (its closing line must survive); an answer with no POSITION
    # line is missing from the positions, and the check says so.
    long = " ".join(["Redis keeps sessions in memory with a TTL."] * 30)
    project.write_config(
        "clis:\n"
        + scripted_sim(project, "long", CHECK=f"{long}\nPOSITION: Redis\n")
        + scripted_sim(project, "mute", CHECK="Either would do; it depends on the load.\n")
    )
    run = project.run(
        "check", "Redis or Postgres?", "--options", "Redis,Postgres", "--advocate", "sim",
        "--critic", "long", "--with", "mute", "--files", "app.py", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = check_json(run)
    assert (result["status"], result["agreement"], result["counted"]) == (
        "degraded", "unanimous", 2,
    )  # fmt: skip
    assert [(a["seat"], a["stance"], a["status"]) for a in result["answers"]] == [
        ("advocate", "Redis", "ok"),
        ("critic", "Redis", "ok"),
        ("proxy-mute", None, "ok"),
    ]
    assert result["answers"][1]["words"] > 150
    assert "no position from: proxy-mute (ok)" in run.stderr
    prompt = (project.record() / "critic-r1-prompt.md").read_text()
    assert "At most 150 words.\n" in prompt
    assert "class SessionStore:" in prompt  # the files, in the one prompt every seat gets
    assert result["context"]["files"][0]["path"] == "app.py"
    assert "POSITION: <one of the options above, exactly as written>" in prompt


def test_a_check_no_seat_answered_failed_and_exits_3(project):
    run = project.run("check", "Cache sessions?", "--sim", COUNCIL_SIM_EXIT="1")
    assert run.returncode == 3, run.stderr
    record = project.record()
    assert run.stderr.splitlines()[-1] == f"saved: .scratchpad/{record.name}/"
    assert (
        f"council: no seat answered the check; see {record.name}'s record, fix the CLIs "
        f"(council doctor --probe), then `council resume {record.name}`\n"
    ) in run.stderr
    assert json.loads((record / "state.json").read_text())["status"] == "failed"
