"""Progress on stderr: plain lines off a terminal, a live per-seat block on one."""

from __future__ import annotations

import io

import pytest

from council.progress import Progress


def test_off_a_terminal_every_event_is_one_plain_line():
    stream = io.StringIO()
    progress = Progress(stream, live=False)
    progress.seat("critic", phase="CHALLENGE", state="asked")
    progress.info("CHALLENGE critic ok 120 words 3.1s")
    assert stream.getvalue() == "[00:00] CHALLENGE critic ok 120 words 3.1s\n"


def test_quiet_keeps_warnings_only():
    stream = io.StringIO()
    progress = Progress(stream, quiet=True)
    progress.info("ready 4/4")
    progress.warn("proxy-qwen dropped")
    assert stream.getvalue() == "[00:00] warning: proxy-qwen dropped\n"


def test_on_a_terminal_a_seat_block_is_redrawn_in_place_below_the_lines():
    stream = io.StringIO()
    progress = Progress(stream, live=True)
    progress.seat("critic", phase="CHALLENGE", state="asked", timeout_s=300.0)
    progress.seat("critic", state="ok", words=120, started=None)
    progress.info("CHALLENGE critic ok")
    text = stream.getvalue()
    assert "\x1b[1F\x1b[J" in text  # moved up over the one-seat block and cleared it
    _, after = text.split("[00:00] CHALLENGE critic ok\n")
    assert after.split() == ["critic", "CHALLENGE", "ok", "120", "words"]  # redrawn below


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("term", "live"), [("xterm-256color", True), ("dumb", False)])
def test_a_dumb_terminal_gets_plain_lines_and_no_cursor_moves(monkeypatch, term, live):
    monkeypatch.setenv("TERM", term)
    stream = _Tty()
    progress = Progress(stream)
    assert progress.live is live
    progress.seat("critic", phase="CHALLENGE", state="asking")
    progress.info("PROPOSAL advocate ok")
    assert ("\x1b[" in stream.getvalue()) is live
