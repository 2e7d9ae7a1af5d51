"""A CLI's output stream as council keeps it (runner/sink.py): the file on disk, written as
the bytes arrive, up to the cap and then a line saying how much was dropped; and the copy in
memory, the start up to `memory_bytes` and the last `TAIL_BYTES`, with the words between them
counted, not kept.

In-process and small: the huge-output cases with a real CLI are in test_call.py. Most tests
shrink `TAIL_BYTES` to 4 bytes (the `small_tail` fixture) so that the text they expect can be
written out in full; one test keeps the real 64 KiB tail."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from council.runner import sink as sink_module
from council.runner.sink import CappedSink

MIB = 1024 * 1024


@pytest.fixture
def small_tail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 4-byte tail: the real 64 KiB would make every expected text 64 KiB long."""
    monkeypatch.setattr(sink_module, "TAIL_BYTES", 4)


def gap(bytes_: int, words: int) -> str:
    return f"\n[council: {bytes_} bytes (~{words} words) kept on disk only]\n"


def fed(sink: CappedSink, *chunks: bytes) -> CappedSink:
    for chunk in chunks:
        sink.write(chunk)
    return sink


class SmallDisk:
    """`os` as the sink sees it, with a `write` that takes at most `step` bytes a call (as a
    pipe or a busy disk may) and fails with ENOSPC once `room` bytes are on the file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, step: int, room: int) -> None:
        self.step, self.room = step, room
        fake = SimpleNamespace(**{n: getattr(os, n) for n in dir(os) if not n.startswith("_")})
        fake.write = self.write
        monkeypatch.setattr(sink_module, "os", fake)

    def write(self, fd: int, data) -> int:
        if self.room == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = os.write(fd, bytes(data[: min(self.step, self.room)]))
        self.room -= n
        return n


# The file on disk


def test_output_of_exactly_the_cap_is_on_disk_whole_with_no_cut_line(tmp_path):
    path = tmp_path / "reply.out"
    sink = fed(CappedSink(path, cap_bytes=8), b"VOTE", b": A\n")
    sink.close()
    assert path.read_bytes() == b"VOTE: A\n"
    assert sink.dropped == 0
    assert sink.text() == "VOTE: A\n"


def test_past_the_cap_the_file_ends_at_the_cap_with_a_line_counting_every_dropped_byte(
    tmp_path,
):
    path = tmp_path / "reply.out"
    sink = CappedSink(path, cap_bytes=MIB)
    # The cap falls inside the second write; the third comes when the file is full already.
    fed(sink, b"a" * (MIB - 2), b"bcde", b"fgh")
    assert sink.dropped == 5
    sink.close()
    assert path.read_bytes() == (
        b"a" * (MIB - 2) + b"bc" + b"\n[council: output cut at 1 MiB; 5 more bytes dropped]\n"
    )
    # memory_bytes=None: memory keeps everything the file took, and nothing past it.
    assert sink.text() == "a" * (MIB - 2) + "bc"
    assert not sink.spilled


def test_the_file_is_written_as_the_bytes_arrive_not_at_close(tmp_path):
    path = tmp_path / "reply.out"
    sink = CappedSink(path, cap_bytes=100, memory_bytes=2)
    assert sink.path == path
    sink.write(b"partial answer")
    assert path.read_bytes() == b"partial answer"  # a killed call still leaves this
    sink.close()
    assert path.read_bytes() == b"partial answer"
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_write_after_close_leaves_the_file_as_it_was(tmp_path):
    path = tmp_path / "reply.out"
    sink = fed(CappedSink(path, cap_bytes=100), b"said")
    sink.close()
    sink.write(b" more")
    sink.close()  # twice: nothing to do
    assert path.read_bytes() == b"said"
    assert sink.error is None


def test_a_sink_without_a_path_keeps_memory_only_and_still_counts_what_it_dropped():
    sink = fed(CappedSink(None, cap_bytes=8), b"12345", b"67890", b"abc")
    sink.close()
    assert sink.text() == "12345678"
    assert sink.dropped == 5


def test_partial_writes_to_the_file_are_continued_until_every_byte_is_on_it(tmp_path, monkeypatch):
    SmallDisk(monkeypatch, step=3, room=1000)
    path = tmp_path / "reply.out"
    sink = fed(CappedSink(path, cap_bytes=100), b"abcdefgh", b"ij")
    sink.close()
    assert path.read_bytes() == b"abcdefghij"
    assert sink.error is None


def test_a_full_disk_keeps_the_error_stops_writing_and_memory_goes_on_draining():
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    sink = CappedSink(Path("/dev/full"), cap_bytes=100)
    sink.write(b"first ")  # fails: ENOSPC
    sink.write(b"second")  # the file is given up on; no second error, no exception
    sink.close()
    assert isinstance(sink.error, OSError) and sink.error.errno == errno.ENOSPC
    assert sink.path == Path("/dev/full")  # named in the RecordWriteError the call raises
    assert sink.text() == "first second"


def test_a_disk_filling_up_on_the_cut_line_keeps_the_error_and_close_still_returns(
    tmp_path, monkeypatch
):
    SmallDisk(monkeypatch, step=3, room=18)  # room for the 8 bytes and 10 of the cut line
    path = tmp_path / "reply.out"
    sink = fed(CappedSink(path, cap_bytes=8), b"abcdefghijkl")
    assert sink.error is None
    sink.close()
    assert isinstance(sink.error, OSError) and sink.error.errno == errno.ENOSPC
    assert path.read_bytes() == b"abcdefgh\n[council:"


# The copy in memory


def test_multi_byte_characters_split_between_writes_come_back_whole():
    sink = fed(CappedSink(None, cap_bytes=100), b"caf\xc3", b"\xa9 ", b"\xe2\x82", b"\xac5")
    assert sink.text() == "café €5"


def test_memory_bytes_larger_than_the_cap_keeps_what_the_cap_keeps():
    sink = fed(CappedSink(None, cap_bytes=6, memory_bytes=100), b"abc", b"defgh")
    assert sink.text() == "abcdef"
    assert not sink.spilled
    assert sink.dropped == 2


def test_a_reply_just_over_memory_bytes_comes_back_whole_with_no_line_inside_it(small_tail):
    # The start fills up inside the "é" of the second write, the rest goes to the tail:
    # nothing is hidden, so the reply reads as it was said, not cut by a "0 bytes kept on
    # disk" line nor with its "é" broken in two.
    sink = fed(CappedSink(None, cap_bytes=100, memory_bytes=4), b"ab", b"c\xc3\xa9", b"f")
    assert not sink.spilled
    assert sink.text() == "abcéf"


def test_a_long_reply_is_its_start_a_line_counting_the_middle_and_its_tail(small_tail):
    sink = CappedSink(None, cap_bytes=100, memory_bytes=4)
    # "alpha beta gamma" is hidden, in two pieces that split "beta": one word, counted once.
    fed(sink, b"Hi, ", b"alpha be", b"ta gamma    ")
    assert sink.hidden_words == 3
    assert sink.text() == "Hi, " + gap(16, 3) + "    "


def test_words_split_or_not_where_the_hidden_pieces_meet_are_counted_once_each(small_tail):
    sink = CappedSink(None, cap_bytes=100, memory_bytes=0)
    sink.write(b"one two ")  # hides "one ": ends on a space
    sink.write(b"xyz!")  # hides "two ": a new word, not the end of "one"
    sink.write(b" abc")  # hides "xyz!"
    sink.write(b"    ")  # hides " abc": starts on a space, a new word
    assert sink.text() == gap(16, 4) + "    "


def test_a_tail_just_full_hides_nothing_and_the_next_piece_counts_its_word(small_tail):
    sink = CappedSink(None, cap_bytes=100, memory_bytes=0)
    sink.write(b"abcd")  # the tail holds exactly TAIL_BYTES
    assert sink.text() == "abcd"
    sink.write(b"ef  ")
    assert sink.text() == gap(4, 1) + "ef  "


def test_a_multi_byte_character_cut_by_the_tail_shows_as_a_replacement_character(
    small_tail,
):
    sink = fed(CappedSink(None, cap_bytes=100, memory_bytes=2), b"ab", b"x\xc3\xa9abc")
    assert sink.text() == "ab" + gap(2, 1) + "\ufffdabc"


def test_the_real_tail_is_the_last_64_kib():
    sink = CappedSink(None, cap_bytes=MIB, memory_bytes=2)
    fed(sink, b"> ", b"x" * 10 + b" ", b"y" * (64 * 1024))
    assert sink.text() == "> " + gap(11, 1) + "y" * (64 * 1024)


def test_the_text_is_decoded_again_after_a_write():
    sink = CappedSink(None, cap_bytes=100)
    assert sink.text() == ""
    sink.write(b"first")
    assert sink.text() == "first"
    sink.write(b" second")
    assert sink.text() == "first second"
