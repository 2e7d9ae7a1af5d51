"""A detached run runs as the command line that started it said (docs/spec/commands.md,
`--detach`): the global options `--config FILE` and `-v` reach the council that runs it in
the background, so a CLI defined only in that file seats it there too, and its progress log
has the verbose lines."""

from __future__ import annotations

import json
from pathlib import Path

from project import QUESTION, Project

CI_CONFIG = "clis:\n  sim-ci:\n    adapter: sim\n    timeout_s: 77\n"


def test_a_detached_run_keeps_the_config_file_and_verbose_flag_it_was_started_with(
    tmp_path: Path,
):
    project = Project(tmp_path)
    (project.root / "ci.yaml").write_text(CI_CONFIG)  # no ./council.yaml defines sim-ci
    started = project.run(
        "--config", "ci.yaml", "-v",
        "debate", QUESTION, "--sim", "--advocate", "sim-ci", "--files", "app.py",
        "--detach", "--json",
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    waited = project.run("wait", run_id)
    assert waited.returncode == 0, waited.stderr
    record = project.root / ".scratchpad" / run_id
    state = json.loads((record / "state.json").read_text())
    assert state["status"] == "completed"
    assert state["seats"]["advocate"]["cli"] == "sim-ci"
    assert state["calls"]["advocate-r1"]["soft_s"] == 77  # sim-ci's timeout_s, from ci.yaml
    log = (record / "progress.log").read_text()
    # -v: each call's argv and attempts under its line, written by the detached council
    assert " PROPOSAL advocate ok " in log
    assert "  argv: " in log and "  1 attempt(s), " in log
