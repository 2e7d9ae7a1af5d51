"""Progress on stderr: plain lines off a terminal, a live per-seat block on one."""

from __future__ import annotations

import io

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
