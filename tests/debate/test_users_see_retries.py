"""The retries a seat needed, as the result shows them (docs/spec/outputs.md, `seats[]`): a
call that went through at once is no retry; one refused once for a rate limit is one."""

from __future__ import annotations

import json
from pathlib import Path

from project import QUESTION, Project


def test_a_seats_retries_count_the_attempts_after_the_first_of_each_call(tmp_path: Path):
    project = Project(tmp_path)
    state_dir = tmp_path / "sim-state"
    state_dir.mkdir()
    project.write_config(
        "clis:\n  flaky:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_RATE_LIMIT: '1'\n      COUNCIL_SIM_RETRY_AFTER: '0.2'\n"
        f"      COUNCIL_SIM_STATE_DIR: '{state_dir}'\n"
    )
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--critic", "flaky", "--lead", "sim",
        "--no-blind", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    seats = {s["name"]: s for s in json.loads(run.stdout)["seats"]}
    # The critic's one call (its CHALLENGE) was refused once, then answered.
    assert (seats["critic"]["calls"], seats["critic"]["retries"]) == (1, 1)
    assert (seats["advocate"]["calls"], seats["advocate"]["retries"]) == (2, 0)
