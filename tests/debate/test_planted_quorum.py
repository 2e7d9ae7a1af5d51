"""The quorum as a user sets it (docs/spec/protocol.md section 7; docs/spec/commands.md): under
`quorum.distinct: vendor` two challenges from seats of one vendor are one voice, so a quorum of
2 is not met (a DECISION marked unchallenged, exit 5); and `--max-cost` must be above zero."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_two_challenges_of_one_vendor_do_not_meet_a_quorum_of_two_distinct(project):
    project.write_config("quorum:\n  distinct: vendor\n")
    run = project.run("debate", QUESTION, "--sim", "--with", "sim", "--quorum", "2", "--json")
    assert run.returncode == 5, run.stderr
    result = json.loads(run.stdout)
    assert result["status"] == "degraded"
    assert result["decision"]["unchallenged"] is True
    warning = (
        "only 2 challenge(s) from 1 distinct vendor(s) for a quorum of 2: "
        "the DECISION is unchallenged"
    )
    assert warning in result["warnings"]
    # Without distinct voices the same two challenges meet it.
    project.write_config("quorum:\n  distinct: 'off'\n")
    plain = project.run("debate", QUESTION, "--sim", "--with", "sim", "--quorum", "2", "--json")
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["decision"]["unchallenged"] is False


@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_cost_cap_of_zero_or_less_is_refused_before_any_call(project, value):
    run = project.run("debate", QUESTION, "--sim", "--max-cost", value)
    assert run.returncode == 2
    assert f"Invalid value for '--max-cost': {float(value)} is not in the range x>0." in run.stderr
    assert project.records() == []
