"""A long reply, wherever the CLI puts it (stdout, stderr, an answer file), reaches the seat
as its start and its end with a line saying how much was left out, the words left out counted
for the word limit, and the whole of it on disk."""

from __future__ import annotations

import re
import sys
import tracemalloc
from pathlib import Path

import pytest

from council.adapters.base import CliSettings, Status, Tool
from council.adapters.custom import ANSWER_FILE, CustomAdapter
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call

pytestmark = pytest.mark.anyio

ONCE = RetryPolicy(rate_limit_retries=0, other_retries=0)
PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n"

# Words of 8 bytes: the edges of what memory keeps (its first MiB, its last 64 KiB) fall
# between two words, so the words the seat gets plus those left out are exactly the reply's.
WORD = b"abcdefg "
LAST = b"VOTE:ok\n"
WORDS = 2 * 1024 * 1024 // len(WORD)  # a 2 MiB reply
KEPT_WORDS = (1024 * 1024 + 64 * 1024) // len(WORD)
REPLY = WORD * (WORDS - 1) + LAST
GAP = re.compile(r"\n\[council: (\d+) bytes \(~(\d+) words\) kept on disk only\]\n")

# Says 2 MiB where it is told to (stdout, stderr, or the answer file named by its argument),
# and a short line on stdout otherwise.
SCRIPT = f"""\
import sys
sys.stdin.read()
reply = {WORD!r} * {WORDS - 1} + {LAST!r}
where = sys.argv[1]
if where == "stdout":
    sys.stdout.buffer.write(reply)
elif where == "stderr":
    sys.stderr.buffer.write(reply)
    print("a short answer")
else:
    with open(where, "wb") as answer:
        answer.write(sys.argv[2].encode() if len(sys.argv) > 2 else reply)
"""


async def talk(tmp_path: Path, record_dir: Path, room: Path, where: str, *extra: str):
    script = tmp_path / "talker.py"
    script.write_text(SCRIPT)
    output = "file" if where == ANSWER_FILE else "stdout"
    return await call_script("talker", (str(script), where, *extra), output, record_dir, room)


async def call_script(name: str, argv: tuple[str, ...], output: str, record_dir: Path, room: Path):
    """One call, tried once, of the custom CLI `python ARGV` named `name`, its reply on
    `output` ("stdout" or "file")."""
    command = (sys.executable, *argv)
    settings = CliSettings(name=name, adapter="custom", command=command, output=output)
    return await run_call(
        CustomAdapter(settings),
        Tool(name, command),
        PROMPT,
        room=room,
        files=CallFiles(record_dir, f"proxy-{name}-r1"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
        policy=ONCE,
    )


def assert_start_gap_and_end(text: str, hidden_words: int) -> None:
    """Start, the line about the left-out part, end; every word of the reply accounted for."""
    assert len(text) < 1.2 * 1024 * 1024  # not the 2 MiB
    assert text.startswith("abcdefg abcdefg ")
    assert text.rstrip().endswith("abcdefg VOTE:ok")  # a closing VOTE line survives
    gap = GAP.search(text)
    assert gap is not None, "no line saying what was left out"
    assert int(gap[1]) == len(REPLY) - 1024 * 1024 - 64 * 1024
    assert int(gap[2]) == hidden_words == WORDS - KEPT_WORDS
    shown = GAP.sub(" ", text).split()
    assert len(shown) + hidden_words == WORDS  # what "original ~N words" adds up to


async def test_a_long_plain_text_reply_reaches_the_seat_as_start_and_end_whole_on_disk(
    tmp_path, record_dir, room
):
    outcome = await talk(tmp_path, record_dir, room, "stdout")
    assert outcome.status is Status.OK, outcome.detail
    assert_start_gap_and_end(outcome.text, outcome.hidden_words)
    assert (record_dir / "proxy-talker-r1-response.md").read_bytes() == REPLY


async def test_a_long_answer_file_reaches_the_seat_as_start_and_end_whole_on_disk(
    tmp_path, record_dir, room
):
    outcome = await talk(tmp_path, record_dir, room, ANSWER_FILE)
    assert outcome.status is Status.OK, outcome.detail
    assert_start_gap_and_end(outcome.text, outcome.hidden_words)
    assert (record_dir / "proxy-talker-r1-answer.txt").read_bytes() == REPLY


async def test_the_answer_file_a_cli_writes_into_the_record_is_private(tmp_path, record_dir, room):
    outcome = await talk(tmp_path, record_dir, room, ANSWER_FILE, "a short answer")
    assert outcome.status is Status.OK and outcome.text == "a short answer"
    # Created by council before the CLI starts (a confinement rule names an existing file).
    assert (record_dir / "proxy-talker-r1-answer.txt").stat().st_mode & 0o777 == 0o600


async def test_long_stderr_is_whole_on_disk_and_only_its_start_and_end_in_the_tail(
    tmp_path, record_dir, room
):
    outcome = await talk(tmp_path, record_dir, room, "stderr")
    assert outcome.status is Status.OK and outcome.text == "a short answer"
    # 2 MiB under the 20 MiB cap: all of it on disk, no "output cut" marker.
    assert (record_dir / "proxy-talker-r1-response.err").read_bytes() == REPLY
    # One 2 MiB line: the tail shown for the call holds its start, the gap line and its end.
    assert len(outcome.stderr_tail) < 1.2 * 1024 * 1024
    assert outcome.stderr_tail.startswith("abcdefg abcdefg ")
    assert GAP.search(outcome.stderr_tail) is not None
    assert outcome.stderr_tail.endswith("abcdefg VOTE:ok")


async def test_reading_an_answer_file_never_holds_all_of_it_in_memory(tmp_path, record_dir, room):
    script = tmp_path / "writes_much.py"
    script.write_text(
        "import sys\n"
        "sys.stdin.read()\n"
        "with open(sys.argv[1], 'wb') as answer:\n"
        "    for _ in range(16):\n"
        "        answer.write((b'x' * 99 + b'\\n') * 10486)\n"  # 16 times about 1 MiB
        "    answer.write(b'VOTE: yes\\n')\n"
    )
    tracemalloc.start()
    try:
        outcome = await call_script("writer", (str(script), ANSWER_FILE), "file", record_dir, room)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = (record_dir / "proxy-writer-r1-answer.txt").stat().st_size
    assert size > 16 * 1000 * 1000
    assert outcome.status is Status.OK and outcome.text.endswith("VOTE: yes")
    assert outcome.hidden_words > 100_000
    assert peak < size / 2  # read a piece at a time: what it costs is the window, not the file
