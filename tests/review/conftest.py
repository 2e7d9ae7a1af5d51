"""The project an in-process review (`review/inprocess.py`) reads: `service.py` alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from review.helpers import SERVICE


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "service.py").write_text(SERVICE)
    return root
