"""Clean rooms: redacted copies at their relative paths, 0400 files and 0500 directories,
rebuilt idempotently, removable, and refusing writes from the process that owns them."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from context.tree import numbered, write
from council.context import build_room, gather_context, protection_note, remove_room
from council.context.model import FileExcerpt, RunContext
from council.context.rooms import room_files
from council.runner import confine


@pytest.fixture
def ctx(project: Path) -> RunContext:
    write(project, "app/main.py", "import os\nTOKEN = 'ghp_" + "Ab3" * 12 + "'\n")
    write(project, "README.md", "# readme\n")
    write(project, "app/big.py", numbered(1200))
    return gather_context(["app/main.py", "README.md", "app/big.py"], cwd=project)


def test_a_room_holds_redacted_read_only_copies_at_their_relative_paths(ctx, scratch):
    room = scratch / "rooms" / "critic"
    build_room(room, ctx)
    files = room_files(room)
    assert sorted(files) == ["README.md", "app/big.py", "app/main.py"]
    assert files["app/main.py"] == (0o400, "import os\nTOKEN = '[REDACTED:github-token]'\n")
    assert all(mode == 0o400 for mode, _ in files.values())
    assert stat.S_IMODE(room.stat().st_mode) == 0o500
    assert stat.S_IMODE((room / "app").stat().st_mode) == 0o500


def test_the_room_holds_the_whole_file_while_the_prompt_holds_the_excerpt(ctx, scratch):
    room = scratch / "rooms" / "advocate"
    build_room(room, ctx)
    big = next(f for f in ctx.files if f.path == "app/big.py")
    assert big.lines_sent == 200
    assert (room / "app" / "big.py").read_text(encoding="utf-8") == numbered(1200)


def test_building_a_room_twice_gives_the_same_room(ctx, scratch):
    room = scratch / "rooms" / "lead"
    build_room(room, ctx)
    first = room_files(room)
    build_room(room, ctx)
    assert room_files(room) == first
    assert stat.S_IMODE(room.stat().st_mode) == 0o500


def test_files_placed_by_the_runner_survive_a_rebuild_and_stay_locked(ctx, scratch):
    room = scratch / "rooms" / "proxy-kimi"
    build_room(room, ctx)
    os.chmod(room, 0o700)
    (room / "agent.yaml").write_text("x: 1\n", encoding="utf-8")
    build_room(room, ctx)
    assert room_files(room)["agent.yaml"] == (0o400, "x: 1\n")


def test_a_room_path_that_would_leave_the_room_is_rejected(scratch):
    bad = FileExcerpt(
        path="../escape.py", text="x", lines_total=1, lines_sent=1, truncated=False, redactions=0
    )
    ctx = RunContext(root=scratch, files=(bad,), diff=None, technical=(), warnings=())
    with pytest.raises(ValueError, match="not a safe relative path"):
        build_room(scratch / "rooms" / "x", ctx)
    assert not (scratch / "rooms" / "escape.py").exists()


def test_a_symlink_planted_in_a_room_is_not_followed(ctx, scratch, tmp_path):
    room = scratch / "rooms" / "critic"
    build_room(room, ctx)
    os.chmod(room, 0o700)
    remove_room(room / "app")
    outside = tmp_path / "outside"
    outside.mkdir()
    (room / "app").symlink_to(outside)
    with pytest.raises(ValueError, match="not a directory inside the room"):
        build_room(room, ctx)
    assert list(outside.iterdir()) == []


def test_remove_room_deletes_a_locked_room(ctx, scratch):
    room = scratch / "rooms" / "critic"
    build_room(room, ctx)
    remove_room(scratch / "rooms")
    assert not (scratch / "rooms").exists()


def test_no_protection_note_while_landlock_confines_writes(monkeypatch):
    monkeypatch.delenv(confine.OFF_ENV, raising=False)
    if not confine.kernel_abi():
        pytest.skip("this kernel has no Landlock")
    assert protection_note() is None


def test_without_landlock_the_setup_report_says_so_once_and_names_root(monkeypatch):
    monkeypatch.setenv(confine.OFF_ENV, "1")
    note = protection_note()
    assert note is not None and "no write confinement" in note
    assert ("as root" in note) == (os.geteuid() == 0)


def _as_unprivileged(argv: list[str], user: int | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, user=user, group=user, capture_output=True, text=True, timeout=30)


def test_the_owner_of_a_room_cannot_write_into_it(ctx):
    """As root, the room is handed to `nobody` and the write is made as `nobody`, so the test
    checks what a room means for an ordinary user, whoever runs the suite."""
    base = Path(tempfile.mkdtemp(prefix="council-room-"))
    try:
        os.chmod(base, 0o711)
        room = base / "room"
        build_room(room, ctx)
        user = None
        if os.geteuid() == 0:
            user = 65534
            for path in [room, *room.rglob("*")]:
                os.chown(path, user, user, follow_symlinks=False)
        script = (
            'touch "$1/new.txt" 2>/dev/null && echo created; '
            'echo x >> "$1/app/main.py" 2>/dev/null && echo appended; '
            'rm -f "$1/README.md" 2>/dev/null; test -e "$1/README.md" && echo kept'
        )
        done = _as_unprivileged(["/bin/sh", "-c", script, "sh", str(room)], user)
        assert done.stdout.split() == ["kept"]
        assert (
            (room / "app" / "main.py")
            .read_text(encoding="utf-8")
            .endswith("[REDACTED:github-token]'\n")
        )
        assert not (room / "new.txt").exists()
    finally:
        remove_room(base / "room")
        shutil.rmtree(base)
