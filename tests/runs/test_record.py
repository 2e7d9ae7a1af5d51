"""The record of a run as the user finds it on disk: private whatever the umask, named so
`council show` finds it, written whole or not at all, and frozen at the first failed write with
an error naming the file and the way on (docs/spec/protocol.md section 5)."""

from __future__ import annotations

import errno
import json
import os
import stat
from datetime import datetime
from pathlib import Path

import pytest

from council import atomicio
from council.errors import RecordWriteError, UsageError
from council.runs.record import Record, is_record_name, kind_of, now_iso


class State:
    def __init__(self, **value) -> None:
        self.value = value

    def to_json(self) -> dict:
        return self.value


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask():
    old = os.umask(0o002)
    yield
    os.umask(old)


def test_a_record_and_every_file_in_it_are_private_whatever_the_umask(tmp_path, loose_umask):
    record = Record.create(tmp_path / ".scratchpad")
    record.write_text("decision.md", "# DECISION\n")
    record.write_json("result.json", {"status": "completed", "note": "é"})
    record.save_state(State(phase="PROPOSAL", by="naïve"))
    record.append_transcript({"seq": 1, "body": "hi"})
    assert mode(tmp_path / ".scratchpad") == 0o700
    assert mode(record.path) == 0o700
    assert {p.name: mode(p) for p in record.path.iterdir()} == {
        "decision.md": 0o600,
        "result.json": 0o600,
        "state.json": 0o600,
        "transcript.jsonl": 0o600,
    }
    assert record.read_json("result.json") == {"status": "completed", "note": "é"}
    # Pretty-printed for people, in UTF-8 as written (not \u00e9).
    assert record.file("result.json").read_text(encoding="utf-8") == (
        '{\n  "status": "completed",\n  "note": "é"\n}\n'
    )
    # state.json is rewritten after every change: compact, one line.
    assert record.file("state.json").read_text(encoding="utf-8") == (
        '{"phase":"PROPOSAL","by":"naïve"}\n'
    )


def test_the_record_is_named_by_its_kind_and_start_second_and_found_by_that_name(tmp_path):
    start = datetime(2026, 11, 23, 9, 5, 7)
    debate = Record.create(tmp_path, now=start)
    review = Record.create(tmp_path, "review", now=start)
    assert debate.id.startswith("debate-20261123-090507-") and len(debate.id) == 27
    assert review.id.startswith("review-20261123-090507-")
    assert debate.id != Record.create(tmp_path, now=start).id  # same second, another name
    assert is_record_name(debate.id) and is_record_name(review.id)
    assert (kind_of(debate.id), kind_of(review.id)) == ("debate", "review")
    for name in (
        "debate-20261123-090507-ABCD",
        "notes",
        "debate-2026-090507-abcd",
        "x-" + debate.id,
        debate.id + "-old",
    ):
        assert not is_record_name(name), name


def test_two_records_started_in_the_same_second_with_the_same_suffix_get_two_names(
    tmp_path, monkeypatch
):
    letters = iter("aaaaaaaabbbb")  # the second record draws the first's suffix first
    monkeypatch.setattr("council.runs.record.secrets.choice", lambda alphabet: next(letters))
    start = datetime(2026, 11, 23, 9, 5, 7)
    first, second = Record.create(tmp_path, now=start), Record.create(tmp_path, now=start)
    assert (first.id, second.id) == ("debate-20261123-090507-aaaa", "debate-20261123-090507-bbbb")


def test_the_record_is_shown_relative_to_where_the_user_is_when_inside_it(tmp_path):
    record = Record.create(tmp_path / "project" / ".scratchpad")
    assert record.display(tmp_path / "project") == f".scratchpad/{record.id}/"
    assert record.display(tmp_path / "elsewhere") == f"{record.path}/"


def test_a_scratchpad_that_is_a_file_or_unwritable_is_a_usage_error_with_the_fix(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError) as caught:
        Record.create(tmp_path / "file")
    assert str(caught.value) == (
        f"{tmp_path / 'file'} is a file, not a directory for records; "
        "give another with --scratchpad"
    )
    with pytest.raises(UsageError) as caught:
        Record.create(tmp_path / "file" / "below")
    assert str(caught.value) == (
        f"cannot make the records directory {tmp_path / 'file' / 'below'}: Not a directory; "
        "give a writable one with --scratchpad"
    )
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):
        pytest.skip("running as a user who can write anywhere")
    with pytest.raises(UsageError, match=r"cannot write records in .*permission denied"):
        Record.create(locked)


def test_the_first_failed_write_freezes_the_record_and_names_the_file(tmp_path, monkeypatch):
    record = Record.create(tmp_path)
    record.save_state(State(phase="PROPOSAL"))

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(atomicio, "write_private", full)
        patch.setattr("council.runs.record.write_private", full)
        with pytest.raises(RecordWriteError) as first:
            record.write_text("decision.md", "# DECISION\n")
    message = str(first.value)
    assert str(record.file("decision.md")) in message and "No space left on device" in message
    assert message.endswith(f"then: council resume {record.id}")
    # The disk has room again, but the record stays frozen: its last consistent picture.
    with pytest.raises(RecordWriteError) as again:
        record.save_state(State(phase="CHALLENGE"))
    assert again.value is first.value
    assert record.read_json("state.json") == {"phase": "PROPOSAL"}
    assert not record.file("decision.md").exists()
    # A call's own files failing later (the runner reports them here) keep the first error.
    later = record.failure(record.file("critic-r2-response.md"), OSError(errno.EROFS, "x"))
    assert later is first.value


def test_a_state_write_failing_before_any_state_was_saved_keeps_the_transcript(
    tmp_path, monkeypatch
):
    record = Record.create(tmp_path)
    record.append_transcript({"seq": 1})

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("council.runs.record.write_json", full)
    with pytest.raises(RecordWriteError, match=r"state\.json"):
        record.save_state(State(seq=1))
    assert record.transcript() == [{"seq": 1}]


def test_a_failed_json_write_names_its_file(tmp_path, monkeypatch):
    record = Record.create(tmp_path)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("council.runs.record.write_json", full)
    with pytest.raises(RecordWriteError) as caught:
        record.write_json("result.json", {"status": "completed"})
    assert caught.value.path == record.file("result.json")


def test_transcript_lines_keep_their_text_as_written_and_any_value_as_text(tmp_path):
    record = Record.create(tmp_path)
    record.append_transcript({"seq": 1, "body": "naïve", "meta": {"file": Path("a.py")}})
    assert record.file("transcript.jsonl").read_text(encoding="utf-8") == (
        '{"seq": 1, "body": "naïve", "meta": {"file": "a.py"}}\n'
    )
    assert record.transcript() == [{"seq": 1, "body": "naïve", "meta": {"file": "a.py"}}]
    assert now_iso().endswith("+00:00")  # record times are UTC


def test_a_failed_state_write_takes_back_the_transcript_lines_it_would_have_covered(
    tmp_path, monkeypatch
):
    record = Record.create(tmp_path)
    record.append_transcript({"seq": 1})
    record.save_state(State(seq=1))
    record.append_transcript({"seq": 2})
    record.append_transcript({"seq": 3})

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("council.runs.record.write_json", full)
    with pytest.raises(RecordWriteError):
        record.save_state(State(seq=3))
    assert record.transcript() == [{"seq": 1}]
    assert record.read_json("state.json") == {"seq": 1}


def test_a_transcript_line_torn_by_a_kill_is_skipped_and_a_short_write_is_taken_back(
    tmp_path, monkeypatch
):
    record = Record.create(tmp_path)
    assert record.transcript() == []
    record.append_transcript({"seq": 1, "body": "naïve"})
    with record.file("transcript.jsonl").open("a") as handle:
        handle.write('{"seq": 2, "bo')  # SIGKILL mid-line
    assert record.transcript() == [{"seq": 1, "body": "naïve"}]

    other = Record.create(tmp_path)
    other.append_transcript({"seq": 1})
    real_write = os.write

    def short_then_full(fd, data):
        if len(data) > 4:
            return real_write(fd, bytes(data[:4]))  # part of the line, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomicio.os, "write", short_then_full)
    with pytest.raises(RecordWriteError):
        other.append_transcript({"seq": 2, "body": "x" * 100})
    monkeypatch.undo()
    assert other.file("transcript.jsonl").read_text() == '{"seq": 1}\n'


def test_an_interrupted_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "state.json"
    atomicio.write_json(target, {"phase": "PROPOSAL"})

    class Died(BaseException):
        pass

    def die(*args):
        raise Died

    monkeypatch.setattr(atomicio.os, "replace", die)
    with pytest.raises(Died):
        atomicio.write_json(target, {"phase": "CHALLENGE"})
    assert json.loads(target.read_text()) == {"phase": "PROPOSAL"}
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_line_written_in_short_pieces_arrives_whole(tmp_path, monkeypatch):
    real_write = os.write
    monkeypatch.setattr(atomicio.os, "write", lambda fd, data: real_write(fd, bytes(data[:7])))
    line = '{"seq": 7, "body": "a line longer than one short write"}\n'
    atomicio.append_private(tmp_path / "transcript.jsonl", line)
    monkeypatch.undo()
    assert (tmp_path / "transcript.jsonl").read_text() == line


def test_appended_lines_are_private_and_whole(tmp_path, loose_umask):
    path = tmp_path / "progress.log"
    atomicio.append_private(path, "[00:01] PROPOSAL advocate ok\n")
    atomicio.append_private(path, "[00:02] CHALLENGE critic ok — naïve\n")
    assert mode(path) == 0o600
    assert path.read_text(encoding="utf-8") == (
        "[00:01] PROPOSAL advocate ok\n[00:02] CHALLENGE critic ok — naïve\n"
    )


def test_a_full_disk_when_the_record_is_taken_is_one_clear_line_and_the_lock_let_go(
    tmp_path, monkeypatch
):
    import errno

    from council.errors import UsageError
    from council.runs import lock as lock_module

    record = tmp_path / "debate-20261128-101500-abcd"
    record.mkdir()
    real_write = os.write

    def full(fd: int, data: bytes) -> int:  # the holder's file meets a full disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lock_module.os, "write", full)
    with pytest.raises(UsageError) as refused:
        lock_module.RecordLock.acquire(record)
    monkeypatch.setattr(lock_module.os, "write", real_write)
    assert str(refused.value) == (
        f"cannot take the record {record}: No space left on device; free space (or "
        "descriptors, `ulimit -n`), or give another place with --scratchpad"
    )
    assert not lock_module.is_held(record)  # nothing left holding it
    assert [p.name for p in record.iterdir()] == []  # no half-written holder file
