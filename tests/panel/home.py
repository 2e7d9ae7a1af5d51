"""A user's project for the runs tests/panel starts in this process: one small app.py, and
no user's council.yaml (HOME is an empty directory of the test's own)."""

from __future__ import annotations

from pathlib import Path

import pytest

APP = "class SessionStore:\n    def get(self, key: str): ...\n"


def user_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text(APP)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return root
