"""Where a run's rooms live and what the record keeps of them (docs/spec/protocol.md, "Clean
room and environment"): `$XDG_RUNTIME_DIR/council/<run id>.<pid>/` else
`<tmp>/council-<uid>/...`, 0700, a room and a TMPDIR per seat, each room's manifest."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

import pytest

from context.tree import write
from council.context import gather_context
from council.context.roomdir import RoomDir, manifest


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "runtime"
    path.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(path))
    return path


def test_a_runs_directory_is_private_under_the_runtime_directory(runtime):
    run = RoomDir("debate-20261126-000001-bbbb")
    try:
        assert run.path == runtime / "council" / f"debate-20261126-000001-bbbb.{os.getpid()}"
        assert _mode(run.path) == 0o700 and _mode(runtime / "council") == 0o700
    finally:
        run.remove()
    assert not run.path.exists()


def test_a_relative_runtime_directory_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", "relative/run")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    run = RoomDir("debate-20261126-000001-bbbb")
    try:
        assert run.path.parent == tmp_path / f"council-{os.getuid()}"
        assert not (tmp_path / "relative").exists()
    finally:
        run.remove()


def test_each_seat_gets_a_private_tmpdir_beside_its_room(tmp_path):
    run = RoomDir("debate-x", base=tmp_path)
    try:
        tmp = run.tmp("critic")
        assert tmp == run.path / "critic" / "tmp"
        assert _mode(tmp) == 0o700
        assert run.room("critic") == run.path / "critic" / "room"
    finally:
        run.remove()


def test_the_manifest_names_each_room_file_with_its_size_in_bytes_and_its_sha256(project, tmp_path):
    text = "naïve = 'café'\n"  # more bytes than characters
    write(project, "pkg/app.py", text)
    ctx = gather_context(["pkg/app.py"], cwd=project)
    run = RoomDir("debate-x", base=tmp_path)
    try:
        room = run.build("critic", ctx)
        data = text.encode("utf-8")
        expected = {
            "path": str(room),
            "files": {
                "pkg/app.py": {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
            },
        }
        assert run.manifests == {"critic": expected}
        assert manifest(room) == expected
    finally:
        run.remove()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to plant a directory another user owns")
def test_a_planted_runtime_directory_another_user_owns_is_not_used(runtime, tmp_path, monkeypatch):
    planted = runtime / "council"
    planted.mkdir(mode=0o777)
    os.chown(planted, 65534, 65534)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    run = RoomDir("debate-x")
    try:
        assert run.path.parent == tmp_path / f"council-{os.getuid()}"
        assert list(planted.iterdir()) == []
    finally:
        run.remove()
