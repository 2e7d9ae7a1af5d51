"""A dotenv file named any way (`prod.env`, `.env.production`) is fenced as dotenv in what
every seat reads, its lines shown as the settings they are, like `.env` itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from project import QUESTION, Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


@pytest.mark.parametrize("name", ["prod.env", ".env.production"])
def test_a_dotenv_file_is_fenced_as_dotenv(project, name):
    (project.root / name).write_text("LOG_LEVEL=debug\nWORKERS=4\n")
    run = project.run("debate", QUESTION, "--sim", "--files", name, "--allow-secrets")
    assert run.returncode == 0, run.stderr
    context = (project.record() / "context.md").read_text()
    assert f"### {name}\n```dotenv\nLOG_LEVEL=debug\nWORKERS=4\n```" in context
