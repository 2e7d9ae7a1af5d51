"""Fixtures for the context tests: a project directory (a git top level by its `.git`), a real
git repository for `--diff`, and fake CLIs for the runner-level leak tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from context.tree import git, write
from council.context import remove_room


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project: `.git` makes it the root, whatever the current directory is."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one commit; HOME points into it so no user config applies."""
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    git(root, "init", "-q", "-b", "main")
    write(root, "app.py", "def handler(event):\n    return event\n")
    write(root, "README.md", "# demo\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """A record directory; its read-only rooms are unlocked afterwards so cleanup works."""
    path = tmp_path / "scratch"
    path.mkdir(mode=0o700)
    yield path
    remove_room(path / "rooms")
