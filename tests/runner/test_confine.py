"""Write confinement (Landlock) of a CLI call, through the real runner: the CLI may write to
its temp dir, its vendor's state dirs and its answer file, and nowhere else (its room and the
user's files included); council itself is never confined."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from council.adapters.base import CliSettings, Tool
from council.adapters.custom import CustomAdapter
from council.runner import CallFiles, Timeouts, confine, landlock, run_call

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock"),
]

WRITER = """\
import json, os, sys
results = {}
for name, path in zip(sys.argv[1::2], sys.argv[2::2]):
    path = path.replace("$TMPDIR", os.environ["TMPDIR"])
    try:
        with open(path, "w") as handle:
            handle.write("written\\n")
        results[name] = "written"
    except OSError as exc:
        results[name] = exc.strerror
sys.stdin.read()
print(json.dumps(results))
"""


async def writes(
    tmp_path: Path,
    room: Path,
    record_dir: Path,
    cli_env: dict | None = None,
    adapter_type: type[CustomAdapter] = CustomAdapter,
    **targets: str,
) -> dict:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    pairs = [part for item in targets.items() for part in item]
    command = (sys.executable, "-I", "-S", str(script), *pairs)
    settings = CliSettings(name="writer", adapter="custom", command=command, env=cli_env or {})
    adapter = adapter_type(settings)
    outcome = await run_call(
        adapter,
        Tool("writer", command),
        "ACTION: PROPOSAL\nwrite?\n",
        room=room,
        files=CallFiles(record_dir, "writer-r1"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
    )
    assert outcome.exit_code == 0, outcome.detail
    return json.loads(outcome.text)


async def test_a_cli_writes_to_its_temp_dir_and_nowhere_else(tmp_path, room, record_dir):
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("x = 1\n")
    got = await writes(
        tmp_path,
        room,
        record_dir,
        tmp="$TMPDIR/scratch.txt",
        dev="/dev/null",
        in_room=str(room / "new.txt"),
        project=str(project / "app.py"),
        project_new=str(project / "evil.txt"),
        record=str(record_dir / "forged-response.md"),
        shared_tmp=str(tmp_path / "beside.txt"),
    )
    assert got == {
        "tmp": "written",
        "dev": "written",
        "in_room": "Permission denied",
        "project": "Permission denied",
        "project_new": "Permission denied",
        "record": "Permission denied",
        "shared_tmp": "Permission denied",
    }
    assert (project / "app.py").read_text() == "x = 1\n"
    assert sorted(p.name for p in project.iterdir()) == ["app.py"]
    # council itself (this process, this thread and any other) was never confined
    (project / "after.txt").write_text("free\n")
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.append((project / "t.txt").write_text("y")))
    thread.start()
    thread.join()
    assert (project / "t.txt").exists()


async def test_the_test_only_switch_runs_the_cli_unconfined(
    tmp_path, room, record_dir, monkeypatch
):
    monkeypatch.setenv(confine.OFF_ENV, "1")
    target = tmp_path / "beside.txt"
    got = await writes(tmp_path, room, record_dir, beside=str(target))
    assert got == {"beside": "written"}


async def test_the_test_only_writable_dirs_open_nothing_outside_the_test_suite(
    tmp_path, room, record_dir, monkeypatch
):
    # `COUNCIL_TEST_WRITABLE=/` left in a user's environment
    monkeypatch.delenv(confine.SUITE_ENV)
    monkeypatch.setenv(confine.EXTRA_ENV, "/")
    target = tmp_path / "beside.txt"
    got = await writes(tmp_path, room, record_dir, beside=str(target))
    assert got == {"beside": "Permission denied"}
    assert not target.exists()


async def test_a_vendors_state_dirs_are_created_and_writable(
    tmp_path, room, record_dir, monkeypatch
):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setattr(CustomAdapter, "state_dirs", ("~/.writer",), raising=False)
    monkeypatch.setenv("HOME", str(home))
    got = await writes(
        tmp_path,
        room,
        record_dir,
        state=str(home / ".writer" / "log.txt"),
        home=str(home / ".writerrc"),
    )
    assert got == {"state": "written", "home": "Permission denied"}


async def test_a_user_defined_clis_configured_state_dirs_are_writable_and_nothing_beside_them(
    tmp_path, room, record_dir, monkeypatch
):
    # `clis.<name>.state_dirs` in the config: e.g. agy's ~/.gemini/antigravity-cli
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))

    class Configured(CustomAdapter):
        def __init__(self, settings: CliSettings) -> None:
            super().__init__(replace(settings, state_dirs=("~/.gemini/antigravity-cli",)))

    got = await writes(
        tmp_path,
        room,
        record_dir,
        adapter_type=Configured,
        state=str(home / ".gemini" / "antigravity-cli" / "conversation.pb"),
        sibling=str(home / ".gemini" / "settings.json"),
    )
    assert got == {"state": "written", "sibling": "Permission denied"}


async def test_a_vendors_state_files_are_writable_and_nothing_beside_them(
    tmp_path, room, record_dir, monkeypatch
):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".writer.json").write_text("{}\n")  # as claude's ~/.claude.json
    monkeypatch.setattr(CustomAdapter, "state_files", ("~/.writer.json",), raising=False)
    monkeypatch.setenv("HOME", str(home))
    got = await writes(
        tmp_path,
        room,
        record_dir,
        state=str(home / ".writer.json"),
        beside=str(home / ".writer.json.bak"),
    )
    assert got == {"state": "written", "beside": "Permission denied"}


class MovedState(CustomAdapter):
    """A CLI whose state moves with a variable of its environment (as CODEX_HOME)."""

    def state_paths(self, env, home):
        return (Path(env["WRITER_HOME"]),), ()


async def test_a_cli_whose_state_moves_with_its_seats_env_writes_it_there(
    tmp_path, room, record_dir
):
    moved = tmp_path / "moved"
    got = await writes(
        tmp_path,
        room,
        record_dir,
        cli_env={"WRITER_HOME": str(moved)},  # `env: {CODEX_HOME: ...}` in the seat's config
        adapter_type=MovedState,
        state=str(moved / "log.txt"),
    )
    assert got == {"state": "written"}


async def test_a_cli_given_its_own_home_writes_its_state_under_that_home(
    tmp_path, room, record_dir, monkeypatch
):
    council_home, cli_home = tmp_path / "council-home", tmp_path / "cli-home"
    council_home.mkdir()
    cli_home.mkdir()
    monkeypatch.setenv("HOME", str(council_home))
    monkeypatch.setattr(CustomAdapter, "state_dirs", ("~/.writer",), raising=False)
    got = await writes(
        tmp_path,
        room,
        record_dir,
        cli_env={"HOME": str(cli_home)},  # `env: {HOME: ...}` in the seat's config
        state=str(cli_home / ".writer" / "log.txt"),
    )
    assert got == {"state": "written"}
    assert not (council_home / ".writer").exists()


async def test_state_dirs_are_made_private_with_their_parents_and_one_in_the_way_stops_none(
    tmp_path, room, record_dir, monkeypatch
):
    home = tmp_path / "home"
    home.mkdir()
    (home / "blocked").write_text("a file where a state dir's parent would be\n")
    (home / ".taken").write_text("a file where a state dir would be\n")
    state_dirs = ("~/blocked/state", "~/.taken", "~/.config/writer", "~/.writer")
    monkeypatch.setattr(CustomAdapter, "state_dirs", state_dirs, raising=False)
    monkeypatch.setenv("HOME", str(home))
    got = await writes(
        tmp_path,
        room,
        record_dir,
        nested=str(home / ".config" / "writer" / "log.txt"),
        after=str(home / ".writer" / "log.txt"),
    )
    assert got == {"nested": "written", "after": "written"}
    for made in (home / ".config" / "writer", home / ".writer"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700  # a vendor's state is its own


async def test_every_directory_the_test_only_setting_names_is_writable(
    tmp_path, room, record_dir, monkeypatch
):
    logs = [tmp_path / "logs-a", tmp_path / "logs-b"]
    for directory in logs:
        directory.mkdir()
    monkeypatch.setenv(confine.EXTRA_ENV, os.pathsep.join(map(str, logs)))
    got = await writes(
        tmp_path, room, record_dir, a=str(logs[0] / "call.log"), b=str(logs[1] / "call.log")
    )
    assert got == {"a": "written", "b": "written"}


def test_a_thread_confines_only_itself_and_what_it_starts(tmp_path):
    allowed, denied = tmp_path / "allowed", tmp_path / "denied"
    allowed.mkdir()
    denied.mkdir()
    outcome: list[str] = []

    def confined() -> None:
        landlock.restrict_thread([allowed], abi=confine.kernel_abi())
        (allowed / "a").write_text("a")
        try:
            (denied / "b").write_text("b")
            outcome.append("written")
        except PermissionError:
            outcome.append("denied")

    thread = threading.Thread(target=confined)
    thread.start()
    thread.join()
    assert outcome == ["denied"]
    (denied / "c").write_text("c")  # this thread is free


def test_the_abi_is_known_and_doctor_says_it():
    assert confine.kernel_abi() >= 1
    assert confine.status_line().startswith(f"Landlock ABI {confine.kernel_abi()}")


async def test_two_calls_at_once_are_each_confined(tmp_path, record_dir):
    rooms = [tmp_path / "r1", tmp_path / "r2"]
    for r in rooms:
        r.mkdir()
    results: list[dict] = []

    async def one(room: Path) -> None:
        results.append(await writes(tmp_path, room, record_dir, out=str(tmp_path / "x.txt")))

    async with anyio.create_task_group() as tg:
        for r in rooms:
            tg.start_soon(one, r)
    assert results == [{"out": "Permission denied"}] * 2
