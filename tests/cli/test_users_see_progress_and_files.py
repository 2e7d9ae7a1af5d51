"""What a user sees of every command's progress on stderr (docs/spec/outputs.md "Progress on
stderr": `[mm:ss] text` lines, `--quiet` warnings only, `-v` details, the live per-seat block
on a terminal, every line in the record's progress.log whatever `--quiet` says) and of the
files council writes for them (`--output` as a shell redirection writes it, records private
and whole, its own directories ignored by git)."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from council import progress as progress_module
from council.atomicio import (
    IGNORE_ALL,
    append_private,
    make_ignored_dir,
    remove_own_ignore,
    write_json,
    write_output,
    write_private,
)
from council.progress import Progress


class Clock:
    """`time.monotonic` as the test sets it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", made)
    return made


@pytest.mark.parametrize(
    ("elapsed", "stamp"),
    [(0, "[00:00]"), (9.9, "[00:09]"), (61, "[01:01]"), (600, "[10:00]"), (3599, "[59:59]")],
)
def test_each_line_is_stamped_with_minutes_and_seconds_since_the_start(clock, elapsed, stamp):
    stream = io.StringIO()
    progress = Progress(stream, live=False)
    clock.now += elapsed
    progress.info("ready 2/2")
    assert stream.getvalue() == f"{stamp} ready 2/2\n"


LEVELS = [
    # (quiet, verbose, the lines shown after info, detail, warn)
    (False, False, ["[00:00] ready", "[00:00] warning: slow"]),
    (False, True, ["[00:00] ready", "[00:00] argv: codex exec", "[00:00] warning: slow"]),
    (True, False, ["[00:00] warning: slow"]),
    (True, True, ["[00:00] warning: slow"]),
]


@pytest.mark.parametrize(("quiet", "verbose", "shown"), LEVELS)
def test_quiet_keeps_warnings_and_verbose_adds_details(clock, quiet, verbose, shown):
    stream = io.StringIO()
    progress = Progress(stream, quiet=quiet, verbose=verbose, live=False)
    progress.info("ready")
    progress.detail("argv: codex exec")
    progress.warn("slow")
    assert stream.getvalue().splitlines() == shown


def test_the_log_gets_every_line_even_under_quiet_and_those_from_before_it_opened(clock, tmp_path):
    stream = io.StringIO()
    progress = Progress(stream, quiet=True, live=False)
    progress.info("context: 2 files")
    log = tmp_path / "progress.log"
    progress.log_to(log)
    clock.now += 5
    progress.info("ready 2/2")
    progress.warn("critic slow")
    progress.close_log()
    assert log.read_text().splitlines() == [
        "[00:00] context: 2 files",
        "[00:05] ready 2/2",
        "[00:05] warning: critic slow",
    ]
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stream.getvalue() == "[00:05] warning: critic slow\n"


def test_a_verbose_detail_is_logged_only_when_verbose(clock, tmp_path):
    for verbose in (False, True):
        log = tmp_path / f"progress-{verbose}.log"
        progress = Progress(io.StringIO(), verbose=verbose, live=False)
        progress.log_to(log)
        progress.detail("argv: gemini -p")
        progress.close_log()
        assert ("argv: gemini -p" in log.read_text()) is verbose


def test_a_control_sequence_in_a_line_never_reaches_the_terminal(clock):
    stream = io.StringIO()
    Progress(stream, live=False).info("critic said \x1b]0;pwned\x07\x1b[2Jhi")
    assert stream.getvalue() == "[00:00] critic said hi\n"


def test_the_live_block_shows_each_seats_phase_state_elapsed_limit_and_words(clock):
    stream = io.StringIO()
    progress = Progress(stream, live=True)
    progress.seat("advocate", phase="PROPOSAL", state="ok", started=clock.now - 40, words=287)
    progress.seat("critic", phase="CHALLENGE", state="waiting", started=clock.now - 12.4)
    progress.seat("critic", timeout_s=300.0)
    progress.seat("proxy-qwen", phase="CHALLENGE", state="starting", timeout_s=450.0)
    stream.truncate(0)
    stream.seek(0)
    progress.tick()
    lines = stream.getvalue().split("\x1b[3F\x1b[J", 1)[1].splitlines()
    assert lines == [
        "  advocate    PROPOSAL      ok             40s  287 words",
        "  critic      CHALLENGE     waiting        12s / 300s",
        "  proxy-qwen  CHALLENGE     starting    ",  # not started: no time yet
    ]


def test_quiet_draws_no_live_block_even_on_a_terminal(clock):
    stream = io.StringIO()
    progress = Progress(stream, quiet=True, live=True)
    progress.seat("critic", phase="CHALLENGE", state="asked")
    progress.tick()
    assert stream.getvalue() == ""


class Gone(io.StringIO):
    """A terminal that closed: every write fails."""

    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")


def test_a_terminal_that_went_away_ends_nothing_and_the_log_goes_on(clock, tmp_path):
    progress = Progress(Gone(), live=False)
    log = tmp_path / "progress.log"
    progress.log_to(log)
    progress.info("PROPOSAL advocate ok")
    progress.warn("critic slow")
    progress.close_log()
    assert log.read_text().splitlines() == [
        "[00:00] PROPOSAL advocate ok",
        "[00:00] warning: critic slow",
    ]


def test_after_a_hang_up_nothing_more_is_shown(clock):
    stream = io.StringIO()
    progress = Progress(stream, live=True)
    progress.terminal_gone()
    progress.info("ready")
    progress.seat("critic", state="asked")
    assert stream.getvalue() == "" and progress.live is False


# -- files ---------------------------------------------------------------------------------


def test_a_record_file_is_private_whole_and_leaves_no_temporary_file(tmp_path):
    state, transcript = tmp_path / "state.json", tmp_path / "transcript.jsonl"
    write_private(state, "old\n")
    write_private(state, "new\n")
    append_private(transcript, "one\n")
    append_private(transcript, "two\n")  # appended lines are kept, in order
    assert (state.read_text(), transcript.read_text()) == ("new\n", "one\ntwo\n")
    assert {stat.S_IMODE(p.stat().st_mode) for p in (state, transcript)} == {0o600}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json", "transcript.jsonl"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    write_private(path, "old\n")

    def full(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError):
        write_private(path, "new\n")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


@pytest.mark.parametrize("compact", [False, True])
def test_json_is_written_as_utf8_and_read_back_the_same(tmp_path, compact):
    value = {"question": "缓存 sessions?", "rounds": [1, 2]}
    write_json(tmp_path / "r.json", value, compact=compact)
    text = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert json.loads(text) == value and "缓存" in text and text.endswith("\n")
    assert ("\n  " in text) is not compact


def test_output_is_a_file_with_the_umasks_mode_as_a_redirection_makes_it(tmp_path):
    old = os.umask(0o022)
    try:
        write_output(tmp_path / "out.md", "# DECISION\n")
    finally:
        os.umask(old)
    assert (tmp_path / "out.md").read_text() == "# DECISION\n"
    assert stat.S_IMODE((tmp_path / "out.md").stat().st_mode) == 0o644


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.md"
    target.write_text("old\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    write_output(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_output_onto_a_device_is_written_in_place_and_a_directory_refused(tmp_path):
    write_output(Path(os.devnull), "x\n")
    assert Path(os.devnull).is_char_device()
    with pytest.raises(IsADirectoryError):
        write_output(tmp_path, "x\n")


def test_output_into_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_output(fifo, "decision\n")
        assert os.read(reader, 100) == b"decision\n"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_councils_own_directory_is_ignored_by_git_once_and_its_ignore_removed_when_empty(
    tmp_path,
):
    pad = tmp_path / ".scratchpad"
    make_ignored_dir(pad)
    assert (pad / ".gitignore").read_text() == IGNORE_ALL
    assert stat.S_IMODE(pad.stat().st_mode) == 0o700
    (pad / ".gitignore").unlink()  # the user deleted it: it stays deleted
    make_ignored_dir(pad)
    assert not (pad / ".gitignore").exists()
    other = tmp_path / ".council"
    make_ignored_dir(other)
    (other / "installed.json").write_text("{}")
    remove_own_ignore(other)
    assert (other / ".gitignore").exists()  # something else is still there
    (other / "installed.json").unlink()
    remove_own_ignore(other)
    assert list(other.iterdir()) == []


def test_an_ignore_file_the_user_changed_is_never_removed(tmp_path):
    path = tmp_path / ".council"
    make_ignored_dir(path)
    (path / ".gitignore").write_text(IGNORE_ALL + "!keep\n")
    remove_own_ignore(path)
    assert (path / ".gitignore").exists()
