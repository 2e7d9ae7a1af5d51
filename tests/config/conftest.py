"""Fixtures of the config tests: a project as the current directory, a HOME of its own with
no user file, and `council config show` run in-process as the user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.config import LoadedConfig, read_config
from project import InProcessPlace


class Place(InProcessPlace):
    """A project (the current directory) and a HOME; the user file under HOME/.config."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(tmp_path, monkeypatch)
        self.project_file = self.root / "council.yaml"
        self.user_file = self.home / ".config" / "council" / "config.yaml"

    def environ(self) -> dict[str, str]:
        return {"HOME": str(self.home)}

    def project(self, text: str) -> Path:
        self.project_file.write_text(text, encoding="utf-8")
        return self.project_file

    def user(self, text: str) -> Path:
        self.user_file.parent.mkdir(parents=True, exist_ok=True)
        self.user_file.write_text(text, encoding="utf-8")
        return self.user_file

    def show(self, *args: str) -> list[str]:
        """`council config show` lines; fails the test unless it exits 0."""
        result = self.council("config", "show", *args)
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()

    def shown(self, *args: str) -> dict[str, dict]:
        """`council config show --json`'s values by key path."""
        result = self.council("config", "show", "--json", *args)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["values"]

    def loaded(self, explicit: Path | None = None) -> LoadedConfig:
        return read_config(explicit, cwd=self.root, environ=self.environ())

    def refused(self, *args: str) -> str:
        """The one line a refused `config show` prints (exit 4), without `council: `."""
        result = self.council(*args, "config", "show")
        assert result.exit_code == 4, result.output
        (line,) = result.output.strip().splitlines()
        assert line.startswith("council: "), line
        return line.removeprefix("council: ")


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    return Place(tmp_path, monkeypatch)
