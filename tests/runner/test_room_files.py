"""Files council writes into a read-only room before a CLI starts (`runner/rooms.py`): each
one read-only and private, in private directories however deep, the room read-only again."""

from __future__ import annotations

import stat
from pathlib import Path

from council.runner.rooms import place_room_files


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_room_files_land_read_only_in_private_directories_and_the_room_stays_read_only(
    tmp_path,
):
    room = tmp_path / "room"
    room.mkdir()
    room.chmod(0o500)
    files = {".qwen/settings.json": "{}\n", "deep/er/still/prompt.md": "long prompt\n"}
    place_room_files(room, files)
    for name, text in files.items():
        assert (room / name).read_text() == text
        assert mode(room / name) == 0o400
    for directory in (".qwen", "deep", "deep/er", "deep/er/still"):
        assert mode(room / directory) == 0o700, directory
    assert mode(room) == 0o500


def test_placing_again_replaces_the_read_only_file(tmp_path):
    room = tmp_path / "room"
    room.mkdir()
    room.chmod(0o500)
    place_room_files(room, {"prompt.md": "first\n"})
    place_room_files(room, {"prompt.md": "second\n"})
    assert (room / "prompt.md").read_text() == "second\n"
    assert mode(room / "prompt.md") == 0o400
    assert mode(room) == 0o500
