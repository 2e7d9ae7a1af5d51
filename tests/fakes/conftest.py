"""Fixtures of the fakes' self-tests: a fresh set of fakes, a room, council's environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.install import FakeClis, install_fakes


@pytest.fixture
def fake_clis(tmp_path: Path) -> Iterator[FakeClis]:
    """All fakes installed in a fresh bin dir; fails the test if a fake process survives it."""
    fakes = install_fakes(tmp_path / "bin")
    yield fakes
    survivors = fakes.kill_leftovers()
    assert survivors == [], f"the test left fake processes running: {survivors}"


@pytest.fixture
def room(tmp_path: Path) -> Path:
    """The cwd of a run, like a seat's room."""
    path = tmp_path / "room"
    path.mkdir()
    return path


@pytest.fixture
def env(fake_clis: FakeClis, tmp_path: Path) -> dict[str, str]:
    """The allow-listed environment council passes to a CLI, fakes first on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    return fake_clis.env(home)
