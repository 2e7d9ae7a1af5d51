"""When stdout's reader has gone away (`council show last | head -0`, a closed pipe), council
exits 141 as a shell tool does (128 + SIGPIPE; docs/spec/protocol.md section 8), says nothing
more, and the run's result stays in its record."""

from __future__ import annotations

from pathlib import Path

import pytest

from project import QUESTION, Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.mark.parametrize("command", [("debate", QUESTION, "--sim"), ("show", "last")])
def test_a_reader_gone_away_is_exit_141(project, command):
    if command[0] == "show":
        assert project.run("debate", QUESTION, "--sim").returncode == 0
    done = project.run_with_reader_gone(*command)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
    assert (project.records()[0] / "decision.md").is_file()
