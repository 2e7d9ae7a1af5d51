"""Nothing of council's is left untracked in the user's repository: its directories ignore
themselves, as pytest's cache does, and `council init` writes nothing of this machine's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from project import Project


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path)
    git(made.root, "init", "-q")
    git(made.root, "add", "-A")
    git(made.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    return made


def test_a_debate_and_a_review_leave_git_status_clean(project):
    debate = project.run("debate", "Keep it?", "--files", "app.py", "--sim", "--rounds", "2")
    assert debate.returncode == 0, debate.stderr
    review = project.run("review", "--files", "app.py", "--sim")
    assert review.returncode in (0, 6), review.stderr
    assert len(list((project.root / ".scratchpad").iterdir())) == 3  # two records + .gitignore
    assert git(project.root, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_scratchpad_made_elsewhere_ignores_itself_too(project):
    done = project.run("debate", "Keep it?", "--sim", "--scratchpad", "runs/council")
    assert done.returncode == 0, done.stderr
    assert (project.root / "runs" / "council" / ".gitignore").read_text().endswith("\n*\n")
    assert git(project.root, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_scratchpad_the_user_already_has_is_left_as_it_is(project):
    (project.root / ".scratchpad").mkdir()
    assert project.run("debate", "Keep it?", "--sim").returncode == 0
    assert not (project.root / ".scratchpad" / ".gitignore").exists()
