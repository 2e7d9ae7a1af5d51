"""Which votes the DECISION counts, as docs/spec/protocol.md section 7 says: a challenger's
vote is the last `VOTE:` line of its last contribution (an answer may change its mind on the
way), and a disagreement the lead already ruled as a loop is listed once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project, scripted_sim

TWO_VOTES = """\
The proposal trades durability for speed without saying so.

VOTE: disagree - the sessions would be lost on a restart

On a second reading the proposal persists them in Postgres, which settles that.

VOTE: agree - the proposal persists sessions in Postgres
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_the_last_vote_line_of_an_answer_is_the_seats_vote(project):
    project.write_config("clis:\n" + scripted_sim(project, "changing", CHALLENGE=TWO_VOTES))
    run = project.run(
        "debate", QUESTION, "--sim", "--critic", "changing", "--rounds", "2", "--json"
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    decision = json.loads(run.stdout)["decision"]
    assert decision["votes"]["critic"] == "agree"
    assert decision["vote_reasons"]["critic"] == "the proposal persists sessions in Postgres"
    assert decision["tally"]["agree"] == 1 and decision["tally"]["disagree"] == 0
    assert not decision.get("minority")
    shown = (project.record() / "decision.md").read_text()
    assert "| critic | agree | the proposal persists sessions in Postgres |" in shown
    assert "## Minority report" not in shown


SAME_POINT = """\
Caching sessions in Redis loses every session when the cache restarts, and users are logged
out in the middle of their work; the proposal does not address that risk at all.

VOTE: disagree - sessions are lost when the cache restarts
"""

RULED_LOOP = json.dumps(
    {
        "recommendation": "Keep sessions in Postgres and add a read-through cache later.",
        "consensus": ["Sessions must survive a restart."],
        "disagreements": [
            {
                "point": "Redis loses sessions on restart",
                "ruling": "Postgres stays the store of record.",
                "reason": "Raised again without new evidence.",
                "loop": True,
            }
        ],
        "tradeoffs": [],
        "blocking_concerns": [],
        "next_step": {"action": "Keep Postgres", "verify_command": "", "done_criterion": ""},
        "confidence": 80,
    }
)


def test_a_loop_the_lead_already_ruled_is_listed_once(project):
    project.write_config(
        "clis:\n"
        + scripted_sim(project, "repeating", CHALLENGE=SAME_POINT, REBUTTAL=SAME_POINT)
        + scripted_sim(project, "ruling", DECISION=RULED_LOOP)
    )
    run = project.run(
        "debate", QUESTION, "--sim", "--critic", "repeating", "--lead", "ruling",
        "--rounds", "3", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    disagreements = json.loads(run.stdout)["decision"]["disagreements"]
    assert [d["point"] for d in disagreements if d["loop"]] == ["Redis loses sessions on restart"]
