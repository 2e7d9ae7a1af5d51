"""When stdout's reader has gone away (`council show last | head -0`, a closed pipe), council
exits 141 as a shell tool does (128 + SIGPIPE; docs/spec/protocol.md section 8), says nothing
more, and the run's result stays in its record."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from project import QUESTION, Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def run_into_a_closed_pipe(project: Project, *args: str) -> subprocess.CompletedProcess:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before council writes a byte
    try:
        return subprocess.run(
            project.argv(*args),
            cwd=project.root,
            env=project.env(),
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("command", [("debate", QUESTION, "--sim"), ("show", "last")])
def test_a_reader_gone_away_is_exit_141(project, command):
    if command[0] == "show":
        assert project.run("debate", QUESTION, "--sim").returncode == 0
    done = run_into_a_closed_pipe(project, *command)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
    assert (project.records()[0] / "decision.md").is_file()
