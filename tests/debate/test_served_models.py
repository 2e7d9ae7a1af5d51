"""Who answered (protocol.md section 7, outputs.md): a debate on the simulator, whose seats
name the model that served each call as a real CLI does, records that model per call and per
seat, shows it in the DECISION's participants beside the one asked for, and under
`quorum.distinct` counts the seats of one vendor (or model family) as one vote."""

from __future__ import annotations

import json

from project import QUESTION, Project, validate

# The simulator names the model it served on stderr (COUNCIL_SIM_SERVED): o3 is served as
# gpt-5.2, every other model as itself.
SERVED = {"COUNCIL_SIM_SERVED": "o3=gpt-5.2"}


def debate(project: Project, *seats: str, config: str = "", **env: str):
    if config:
        project.write_config(config)
    run = project.run("debate", QUESTION, "--files", "app.py", "--sim", *seats, "--json", **env)
    result = json.loads(run.stdout)
    validate(result)
    return run, result, (project.record() / "decision.md").read_text()


def fresh(tmp_path, name: str) -> Project:
    (tmp_path / name).mkdir()
    return Project(tmp_path / name)


def counted(tally: dict) -> int:
    return sum(tally[v] for v in ("agree", "revise", "disagree", "no_vote"))


def test_the_served_model_is_recorded_per_call_and_seat_and_shown_beside_the_asked_one(
    tmp_path,
):
    project = Project(tmp_path)
    run, result, decision_md = debate(
        project,
        "--advocate", "sim:sonnet-4", "--critic", "sim:o3", "--with", "sim", "--lead", "sim",
        **SERVED,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    seats = {s["name"]: s for s in result["seats"]}
    assert (seats["advocate"]["model"], seats["advocate"]["served_models"]) == (
        "sonnet-4",
        ["sonnet-4"],
    )
    assert (seats["critic"]["model"], seats["critic"]["served_models"]) == ("o3", ["gpt-5.2"])
    # A seat whose CLI named no model: not reported, never the asked one passed off as served.
    assert seats["proxy-sim"]["served_models"] == []
    critic_calls = [c for c in result["contributions"] if c["seat"] == "critic"]
    assert critic_calls and all(c["served_model"] == "gpt-5.2" for c in critic_calls)
    assert all(c["served_models"] == ["gpt-5.2"] for c in critic_calls)
    state = json.loads((project.record() / "state.json").read_text())
    stored = [c for c in state["calls"].values() if c["seat"] == "critic"]
    assert {c["served_model"] for c in stored} == {"gpt-5.2"}
    assert {c["model"] for c in stored} == {"o3"}  # what was asked stays apart
    participants = decision_md.splitlines()[1]
    assert participants == (
        "Participants: advocate (sim: sonnet-4 served), critic (sim: o3 asked, gpt-5.2 served), "
        "proxy-sim (sim: served model not reported), lead (sim: served model not reported)"
    )


def test_two_seats_of_one_vendor_count_one_vote_under_quorum_distinct_vendor(tmp_path):
    project = Project(tmp_path)
    seats = ("--with", "sim")  # the critic and the proxy: two seats of the simulator's vendor
    _, every_seat, _ = debate(project, *seats)
    assert counted(every_seat["decision"]["tally"]) == 2

    project = fresh(tmp_path, "distinct")
    run, result, decision_md = debate(project, *seats, config="quorum:\n  distinct: vendor\n")
    assert run.returncode == 0, run.stderr
    decision = result["decision"]
    votes = decision["votes"]
    assert set(votes) == {"critic", "proxy-sim"}  # every vote kept as cast
    tally = decision["tally"]
    assert counted(tally) == 1
    (group,) = tally["groups"]
    assert (tally["distinct"], group["group"], group["seats"]) == (
        "vendor",
        "sim",
        ["critic", "proxy-sim"],
    )
    assert tally[group["vote"]] == 1
    assert "Tally (one vote per vendor): " in decision_md
    cast = ", ".join(votes[s] or "no vote" for s in ("critic", "proxy-sim"))
    assert f"- sim: critic, proxy-sim ({cast}): one vote, {group['vote']}" in decision_md
    warning = (
        "quorum.distinct: vendor counts one vote per vendor, and these seats share one: "
        "critic, proxy-sim (sim); seat CLIs of other vendors for more voices"
    )
    assert warning in run.stderr


def test_under_quorum_distinct_family_seats_served_by_one_family_count_one_vote(tmp_path):
    config = "quorum:\n  distinct: family\n"
    # o3 (served as gpt-5.2) and gpt-5: both OpenAI's models, one voice.
    project = Project(tmp_path)
    _, result, _ = debate(
        project, "--critic", "sim:o3", "--with", "sim:gpt-5", config=config, **SERVED
    )
    tally = result["decision"]["tally"]
    assert [(g["group"], g["seats"]) for g in tally["groups"]] == [
        ("openai", ["critic", "proxy-sim"])
    ]
    assert counted(tally) == 1
    # Another family beside it is a voice of its own.
    project = fresh(tmp_path, "two")
    _, result, _ = debate(
        project, "--critic", "sim:o3", "--with", "sim:gemini-2.5-pro", config=config, **SERVED
    )
    groups = result["decision"]["tally"]["groups"]
    assert [g["group"] for g in groups] == ["openai", "google"]
    assert counted(result["decision"]["tally"]) == 2


def test_a_quorum_of_two_is_not_met_by_two_challenges_of_one_vendor(tmp_path):
    project = Project(tmp_path)
    run, result, decision_md = debate(
        project, "--with", "sim", "--quorum", "2", config="quorum:\n  distinct: vendor\n"
    )
    assert run.returncode == 5, run.stderr  # degraded
    assert result["decision"]["unchallenged"] is True
    warning = (
        "only 2 challenge(s) from 1 distinct vendor(s) for a quorum of 2: "
        "the DECISION is unchallenged"
    )
    assert warning in run.stderr and f"> warning: {warning}" in decision_md
