"""A call's retries as the record shows them (docs/spec/protocol.md, "Retries and failures"):
each attempt's own files, the tokens and cost of every attempt summed, the wait before each
retry at least what the policy or the CLI said, one budget of retries whatever their reasons,
and a timeout never retried. The CLI is a scripted one that plays one line of a script per
attempt (its count kept beside it), so each attempt's behaviour is fixed in advance."""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path

import pytest

from council.adapters.base import CliSettings, RawResult, Status, Tool, Usage
from council.adapters.custom import CustomAdapter
from council.runner import CallFiles, RetryPolicy, Timeouts, confine, run_call

pytestmark = pytest.mark.anyio

PROMPT = "ACTION: CHALLENGE\nQuestion: Should we cache sessions in Redis?\n"
STEM = "proxy-codex-r2"
QUICK = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05, other_delay_s=0.01)

# Each attempt runs the next entry: (exit code, stdout, stderr).
PLAYER = """\
import json, sys
script, count = json.loads(sys.argv[1]), sys.argv[2]
try:
    n = int(open(count).read())
except FileNotFoundError:
    n = 0
open(count, "w").write(str(n + 1))
code, out, err = script[min(n, len(script) - 1)]
sys.stdout.write(out)
sys.stderr.write(err)
sys.exit(code)
"""
_USAGE = re.compile(r"usage: in=(\d+) out=(\d+) cost=([\d.]+)")


class Metered(CustomAdapter):
    """A CLI that prints what each attempt cost on stderr (as a vendor's JSON would say it)."""

    def read_usage(self, result: RawResult) -> Usage | None:
        found = _USAGE.search(result.stderr)
        if found is None:
            return None
        return Usage(int(found[1]), int(found[2]), float(found[3]))


@pytest.fixture(autouse=True)
def _count_is_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player keeps its count beside it: under write confinement, only allowed so."""
    (tmp_path / "state").mkdir()
    monkeypatch.setenv(confine.EXTRA_ENV, str(tmp_path / "state"))


def player(tmp_path: Path, *script: tuple[int, str, str]) -> tuple[Metered, Tool, Path]:
    body = tmp_path / "player.py"
    body.write_text(PLAYER)
    count = tmp_path / "state" / "attempts"
    command = (sys.executable, "-I", "-S", str(body), json.dumps(script), str(count))
    settings = CliSettings(name="player", adapter="custom", command=command)
    return Metered(settings), Tool("player", command), count


async def ask(adapter, tool, record_dir: Path, room: Path, **kw):
    kw.setdefault("timeouts", Timeouts(soft_s=20, hard_s=30, grace_s=1))
    kw.setdefault("policy", QUICK)
    return await run_call(adapter, tool, PROMPT, room=room, files=CallFiles(record_dir, STEM), **kw)


LIMITED = (1, "", "Error: 429 Too Many Requests\nusage: in=1200 out=0 cost=0.004\n")
ANSWER = (0, "Use Redis with a TTL.\n", "usage: in=1300 out=250 cost=0.02\n")


async def test_a_call_retried_after_rate_limits_reports_every_attempts_tokens_and_cost(
    tmp_path, record_dir, room
):
    adapter, tool, _ = player(tmp_path, LIMITED, LIMITED, ANSWER)
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK and outcome.text == "Use Redis with a TTL."
    assert [a.status for a in outcome.attempts] == [
        Status.RATE_LIMITED,
        Status.RATE_LIMITED,
        Status.OK,
    ]
    assert [a.usage for a in outcome.attempts] == [
        Usage(1200, 0, 0.004),
        Usage(1200, 0, 0.004),
        Usage(1300, 250, 0.02),
    ]
    assert outcome.usage == Usage(3700, 250, pytest.approx(0.028))


async def test_each_attempt_writes_its_own_response_files_beside_the_one_prompt(
    tmp_path, record_dir, room
):
    adapter, tool, _ = player(tmp_path, LIMITED, ANSWER)
    outcome = await ask(adapter, tool, record_dir, room)
    assert outcome.status is Status.OK
    assert sorted(p.name for p in record_dir.iterdir()) == [
        f"{STEM}-a2-response.err",
        f"{STEM}-a2-response.md",
        f"{STEM}-prompt.md",
        f"{STEM}-response.err",
        f"{STEM}-response.md",
    ]
    assert (record_dir / f"{STEM}-prompt.md").read_text() == PROMPT
    assert (record_dir / f"{STEM}-response.md").read_text() == ""
    assert "429 Too Many Requests" in (record_dir / f"{STEM}-response.err").read_text()
    assert (record_dir / f"{STEM}-a2-response.md").read_text() == "Use Redis with a TTL.\n"
    assert [(a.response_file.name, a.err_file.name) for a in outcome.attempts] == [
        (f"{STEM}-response.md", f"{STEM}-response.err"),
        (f"{STEM}-a2-response.md", f"{STEM}-a2-response.err"),
    ]


async def test_a_retry_waits_at_least_the_policys_delay_after_the_failed_attempt(
    tmp_path, record_dir, room
):
    crash = (3, "", "fatal: the model exploded\n")
    adapter, tool, _ = player(tmp_path, crash, ANSWER)
    policy = RetryPolicy(other_delay_s=0.4)
    outcome = await ask(adapter, tool, record_dir, room, policy=policy)
    first, second = outcome.attempts
    assert second.status is Status.OK
    assert second.started_s >= first.started_s + first.duration_s + 0.4 - 0.01


async def test_a_rate_limit_waits_as_long_as_the_cli_says_the_limit_lasts(
    tmp_path, record_dir, room
):
    told = (1, "", "Error: rate limit reached, retry after 0.5s\n")
    adapter, tool, _ = player(tmp_path, told, ANSWER)
    # The backoff alone would retry at once: the wait is the CLI's.
    outcome = await ask(adapter, tool, record_dir, room)
    first, second = outcome.attempts
    assert (first.status, second.status) == (Status.RATE_LIMITED, Status.OK)
    assert second.started_s >= first.started_s + first.duration_s + 0.5 - 0.01


async def test_a_stated_wait_past_the_hard_limit_fails_at_once_saying_so(
    tmp_path, record_dir, room
):
    told = (1, "", "Error: 429 quota exceeded, retry after 300s\n")
    adapter, tool, count = player(tmp_path, told, ANSWER)
    outcome = await ask(
        adapter, tool, record_dir, room, timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1)
    )
    assert outcome.status is Status.RATE_LIMITED
    assert count.read_text() == "1"
    assert outcome.detail.endswith("(no time left for a retry before the hard limit of 30s)")
    assert outcome.latency_s < 30  # it did not sleep into the hard limit


async def test_retries_for_different_reasons_share_one_budget(tmp_path, record_dir, room):
    crash = (3, "", "fatal: the model exploded\n")
    adapter, tool, count = player(tmp_path, crash, LIMITED, LIMITED, ANSWER)
    outcome = await ask(adapter, tool, record_dir, room)
    # One retry for the crash, one for the first rate limit: the two a rate limit may have.
    assert [a.status for a in outcome.attempts] == [
        Status.ERROR,
        Status.RATE_LIMITED,
        Status.RATE_LIMITED,
    ]
    assert outcome.status is Status.RATE_LIMITED
    assert count.read_text() == "3"


@pytest.mark.parametrize(
    ("script", "statuses"),
    [
        ([(0, "", "")], [Status.EMPTY, Status.EMPTY]),
        ([(2, "", "segfault\n")], [Status.ERROR, Status.ERROR]),
        ([(1, "", "Error: not logged in, run `player login`\n")], [Status.AUTH]),
        ([LIMITED], [Status.RATE_LIMITED] * 3),
        ([(0, "", ""), ANSWER], [Status.EMPTY, Status.OK]),
    ],
    ids=["empty-once", "error-once", "auth-never", "rate-limit-twice", "empty-then-ok"],
)
async def test_how_often_each_failure_is_tried(tmp_path, record_dir, room, script, statuses):
    adapter, tool, count = player(tmp_path, *script)
    outcome = await ask(adapter, tool, record_dir, room)
    assert [a.status for a in outcome.attempts] == statuses
    assert outcome.status is statuses[-1]
    assert count.read_text() == str(len(statuses))
    assert [a.number for a in outcome.attempts] == list(range(1, len(statuses) + 1))


async def test_a_call_past_its_hard_limit_times_out_once_with_its_tree_killed(
    tmp_path, record_dir, room
):
    hangs = tmp_path / "hangs.py"
    hangs.write_text("import time\nprint('thinking...', flush=True)\ntime.sleep(600)\n")
    command = (sys.executable, "-I", "-S", str(hangs))
    adapter = CustomAdapter(CliSettings(name="hangs", adapter="custom", command=command))
    outcome = await ask(
        adapter,
        Tool("hangs", command),
        record_dir,
        room,
        timeouts=Timeouts(soft_s=0.5, hard_s=1, grace_s=1),
    )
    assert outcome.status is Status.TIMEOUT
    assert len(outcome.attempts) == 1  # the hard limit is spent: no retry
    assert outcome.detail == "no answer within the hard limit of 1s; process tree killed"
    assert outcome.attempts[0].killed and outcome.exceeded_soft
    assert outcome.exit_code == -signal.SIGTERM  # it went within the grace
    assert outcome.latency_s >= 1
    assert (record_dir / f"{STEM}-response.md").read_text() == "thinking...\n"


async def test_a_terminal_cli_stopped_at_a_login_prompt_is_an_auth_failure_naming_the_fix(
    tmp_path, record_dir, room
):
    asks = tmp_path / "asks.py"
    asks.write_text(
        "import sys, time\n"
        "sys.stdout.write('Welcome to asks. Please log in: press Enter to open the browser ')\n"
        "sys.stdout.flush()\n"
        "time.sleep(600)\n"
    )
    command = (sys.executable, "-I", "-S", str(asks))
    settings = CliSettings(name="asks", adapter="custom", command=command, tty=True, input="arg")
    outcome = await ask(CustomAdapter(settings), Tool("asks", command), record_dir, room)
    assert outcome.status is Status.AUTH
    assert len(outcome.attempts) == 1  # a retry cannot log in
    assert outcome.detail.startswith(
        "asks stopped at an interactive prompt "
        "(Welcome to asks. Please log in: press Enter to open the browser)"
    )
    assert "once in a terminal to log in or trust the folder" in outcome.detail
    assert not outcome.exceeded_soft  # stopped at the prompt, not at a limit


async def test_a_terminal_cli_reading_its_prompt_from_stdin_gets_it_whole_and_then_its_end(
    tmp_path, record_dir, room
):
    reads = tmp_path / "reads.py"
    reads.write_text(
        "import sys\ndata = sys.stdin.read()\nprint(len(data.splitlines()), 'lines')\n"
    )
    command = (sys.executable, "-I", "-S", str(reads))
    settings = CliSettings(name="reads", adapter="custom", command=command, tty=True, input="stdin")
    outcome = await ask(
        CustomAdapter(settings),
        Tool("reads", command),
        record_dir,
        room,
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
    )
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == f"{len(PROMPT.splitlines())} lines"
