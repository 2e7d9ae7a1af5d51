"""A blind take stays the seat's own (docs/spec/protocol.md, phases 3b and 4): each
challenger's CHALLENGE prompt holds its own blind take beside the proposal, and the round
context ("Views already received") holds no blind take, its own or another seat's."""

from __future__ import annotations

from pathlib import Path

import pytest

from project import QUESTION, Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def views_block(prompt: str) -> list[str]:
    """The lines of the round context's "Views already received", up to the next heading."""
    lines = prompt.split("### Views already received\n", 1)[1].splitlines()
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("#"))]


def test_the_first_challenge_sees_no_blind_take_among_the_views(project):
    run = project.run("debate", QUESTION, "--sim", "--with", "sim", "--rounds", "2")
    assert run.returncode == 0, run.stderr
    record = project.record()
    for seat in ("critic", "proxy-sim"):
        blind = (record / f"{seat}-r1-response.md").read_text().strip()
        challenge = (record / f"{seat}-r2-prompt.md").read_text()
        assert "ACTION: CHALLENGE" in challenge
        assert [line for line in views_block(challenge) if line.strip()] == ["(none yet)"]
        assert blind in challenge  # its own, in its own section
        other = "proxy-sim" if seat == "critic" else "critic"
        other_blind = (record / f"{other}-r1-response.md").read_text().strip()
        assert other_blind not in challenge
