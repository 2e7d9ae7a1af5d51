"""Warm workers against the fake CLIs' persistent modes (tests/fakes/persistent.py): one
process per seat, a new session with no history per call, the hard limit by the protocol's
cancel, a kill and a restart when the worker will not stop, a death that fails one call,
spawning per call after the second, recycling, and nothing left running at the end."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import psutil
import pytest

from council.adapters import adapter_for
from council.adapters.base import Adapter, Status, Tool
from council.adapters.warm import LeanStart
from council.errors import RecordWriteError
from council.panel.drive import council_error
from council.runner import CallFiles, CallOutcome, RetryPolicy, Timeouts, confine, run_call
from council.runner.warm import WarmStartError, WarmWorker, warm_worker

from fakes.install import expected_answer, expected_usage

pytestmark = pytest.mark.anyio

FAST = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05, other_delay_s=0.01)
ONCE = RetryPolicy(rate_limit_retries=0, other_retries=0)
# (executable, kimi variant): every ACP agent council runs warm.
ACP = [("gemini", None), ("qwen", None), ("kimi", "kimi-code"), ("kimi", "kimi-cli")]
# Every persistent mode council drives: ACP, and each vendor's own protocol.
WARM = [*ACP, ("pi", None), ("claude", None), ("codex", None)]


class Seat:
    """One seat's worker on a fake CLI, and its calls."""

    def __init__(self, fakes, name: str, variant: str | None, tmp_path: Path) -> None:
        self.fakes = fakes
        self.name = name
        self.variant = variant
        self.adapter: Adapter = adapter_for(name)
        self.room = tmp_path / "room"
        self.record = tmp_path / "record"
        self.tmp = tmp_path / "tmp"
        for path in (self.room, self.record, self.tmp):
            path.mkdir(exist_ok=True, mode=0o700)
        self.calls = 0
        self.worker: WarmWorker | None = None

    def set(self, mode: str = "ok", **options) -> None:
        if self.variant:
            options["variant"] = self.variant
        self.fakes.set(self.name, mode, **options)

    @property
    def tool(self) -> Tool:
        return Tool(self.name, (str(self.fakes.executable(self.name)),), None, self.variant)

    @asynccontextmanager
    async def warm(
        self, *, grace: float = 15.0, start: bool = True, lean: LeanStart | None = None, **options
    ) -> AsyncIterator[WarmWorker]:
        """`grace` bounds a hang: a fake answering the cancel late on a busy machine is no
        reason to kill it (tests that want the kill pass a small one). `lean`: the worker may
        start lean, as a seat whose every call may run lean."""
        launch = self.adapter.warm_launch(self.tool, model=None, effort=None, lean=lean)
        assert launch is not None
        if "recycle_after" in options:
            from dataclasses import replace

            launch = replace(launch, recycle_after=options.pop("recycle_after"))
        async with warm_worker(
            self.adapter,
            self.tool,
            launch,
            seat="critic",
            room=self.room,
            tmp_dir=self.tmp,
            record_dir=self.record,
            grace_s=grace,
            **options,
        ) as worker:
            self.worker = worker
            if start:
                await worker.start()
            yield worker

    async def ask(
        self, prompt: str, *, soft: float = 10, hard: float | None = None, policy=FAST, **kw
    ) -> CallOutcome:
        self.calls += 1
        grace = self.worker.grace_s if self.worker else 15.0
        return await run_call(
            self.adapter,
            self.tool,
            prompt,
            room=self.room,
            files=CallFiles(self.record, f"critic-r{self.calls}"),
            timeouts=Timeouts(soft, hard or soft * 1.5, grace),
            policy=policy,
            tmp_dir=self.tmp,
            warm=self.worker,
            **kw,
        )

    def turns(self) -> list[dict]:
        return [c for c in self.fakes.calls(self.name) if c.get("warm")]


@pytest.fixture
def gemini(fakes, tmp_path) -> Seat:
    return Seat(fakes, "gemini", None, tmp_path)


def alive(pid: int | None) -> bool:
    try:
        return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.mark.parametrize(("name", "variant"), WARM, ids=[v or n for n, v in WARM])
async def test_every_call_is_a_new_session_of_the_one_process_with_nothing_of_the_others(
    fakes, tmp_path, name, variant
):
    seat = Seat(fakes, name, variant, tmp_path)
    if variant == "kimi-cli":  # kimi acp opens sessions for a logged-in user only
        _kimi_login(Path(os.environ["HOME"]))
    seat.set()
    prompts = [f"ACTION: CHALLENGE\nQuestion {i}: nonce-{i}-x?\n" for i in range(3)]
    async with seat.warm() as worker:
        outcomes = [await seat.ask(p) for p in prompts]
        pid = worker.pid
    turns = seat.turns()
    for prompt, outcome, turn in zip(prompts, outcomes, turns, strict=True):
        assert outcome.status is Status.OK, outcome.detail
        assert outcome.text == expected_answer(name, prompt)
        assert [a.warm for a in outcome.attempts] == [True]
        assert turn["context"] == [prompt]  # the model saw this prompt and nothing before it
        assert turn["session_cwd"] == str(seat.room)
        assert turn["pid"] == pid
    assert len({t["session"] for t in turns}) == len(prompts)
    assert not alive(pid)


async def test_each_calls_files_hold_its_prompt_and_the_messages_of_its_session(gemini):
    gemini.set()
    async with gemini.warm():
        outcome = await gemini.ask("Question: files?\n")
    assert (gemini.record / "critic-r1-prompt.md").read_text() == "Question: files?\n"
    response = (gemini.record / "critic-r1-response.md").read_text()
    assert '"session/prompt"' not in response  # what the worker said, not what council sent
    assert '"agent_message_chunk"' in response and '"end_turn"' in response
    assert outcome.attempts[0].response_file.name == "critic-r1-response.md"
    # What the worker said outside the calls (its handshake) is in its own log.
    assert '"agentInfo"' in (gemini.record / "critic-worker1.out").read_text()


async def test_the_handshake_names_the_version_and_replaces_the_probe(gemini):
    gemini.set(version="0.61.7")
    async with gemini.warm() as worker:
        assert worker.version == "0.61.7"
        assert worker.stats.rss_ready_mb and worker.stats.rss_ready_mb > 1
    assert [c for c in fakes_argv(gemini) if c == ["--version"]] == []


def fakes_argv(seat: Seat) -> list[list[str]]:
    return [c["argv"] for c in seat.fakes.calls(seat.name)]


async def test_the_worker_runs_with_the_allow_listed_environment_in_its_room(gemini, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "not-for-gemini")
    monkeypatch.setenv("GEMINI_API_KEY", "for-gemini")
    gemini.set()
    async with gemini.warm():
        await gemini.ask("Question: env?\n")
    (turn,) = gemini.turns()
    assert turn["cwd"] == str(gemini.room)
    assert turn["env"]["GEMINI_API_KEY"] == "for-gemini"
    assert "OPENAI_API_KEY" not in turn["env"]
    assert turn["env"]["TMPDIR"] == str(gemini.tmp)
    assert turn["argv"] == ["--acp", "--approval-mode", "plan"]
    assert turn["read_only"] is True


@pytest.mark.skipif(not confine.kernel_abi(), reason="this kernel has no Landlock")
async def test_the_worker_process_is_write_confined_like_a_spawned_call(gemini, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    # A CLI that ignores its own read-only mode: only the confinement stops its writes.
    gemini.set("write_attempt", target=str(project), rogue=True)
    async with gemini.warm():
        outcome = await gemini.ask("Question: write?\n")
    assert outcome.status is Status.OK and outcome.attempts[0].warm
    (turn,) = gemini.turns()
    assert [w["path"] for w in turn["writes"]] == [
        str(gemini.room / "fake-wrote.txt"),
        str(project / "fake-wrote.txt"),
    ]
    assert [w["ok"] for w in turn["writes"]] == [False, False]
    assert all("Permission denied" in w["error"] for w in turn["writes"])
    assert list(project.iterdir()) == [] and not (gemini.room / "fake-wrote.txt").exists()


async def test_the_hard_limit_cancels_the_session_and_the_same_worker_answers_next(gemini):
    gemini.set("hang")
    async with gemini.warm() as worker:
        pid = worker.pid
        hung = await gemini.ask("Question: hang?\n", soft=0.3, hard=0.5)
        gemini.set()
        after = await gemini.ask("Question: next?\n")
        assert worker.pid == pid and worker.stats.deaths == 0
    assert hung.status is Status.TIMEOUT
    assert "the session was cancelled" in hung.detail and not hung.attempts[0].killed
    assert hung.exceeded_soft
    assert after.status is Status.OK and after.attempts[0].warm


async def test_a_worker_that_ignores_the_cancel_is_killed_with_its_tree_and_restarted(gemini):
    gemini.set("ignore_term")
    async with gemini.warm(grace=0.2) as worker:
        first = worker.pid
        hung = await gemini.ask("Question: stuck?\n", soft=0.2, hard=0.3)
        assert not alive(first)
        gemini.set()
        after = await gemini.ask("Question: restarted?\n")
        assert worker.pid not in (None, first)
        assert worker.stats.deaths == 1 and worker.stats.starts == 2 and worker.usable
    assert hung.status is Status.TIMEOUT and hung.attempts[0].killed
    assert "process tree was killed" in hung.detail
    assert after.status is Status.OK and after.attempts[0].warm


async def test_a_worker_that_dies_mid_call_fails_that_call_only(gemini):
    gemini.set("crash")
    async with gemini.warm() as worker:
        died = await gemini.ask("Question: crash?\n", policy=ONCE)
        gemini.set()
        after = await gemini.ask("Question: again?\n")
        assert worker.stats.deaths == 1 and worker.usable
    assert died.status is Status.ERROR
    assert "died mid-call" in died.detail and "crashed on purpose" in died.detail
    assert "crashed on purpose" in died.stderr_tail  # what it said, as a spawned call's
    assert after.status is Status.OK and after.attempts[0].warm


async def test_the_retry_of_a_call_whose_worker_died_runs_on_the_restarted_worker(gemini):
    gemini.set("crash")
    async with gemini.warm() as worker:

        async def heal() -> None:
            while len(gemini.turns()) < 1:  # noqa: ASYNC110 - the fake's record is a file
                await anyio.sleep(0.01)
            gemini.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(heal)
            outcome = await gemini.ask("Question: retried?\n")
        assert worker.stats.deaths == 1
    assert [a.status for a in outcome.attempts] == [Status.ERROR, Status.OK]
    assert [a.warm for a in outcome.attempts] == [True, True]


async def test_after_a_second_death_the_seat_spawns_its_cli_per_call(gemini):
    gemini.set("crash")
    async with gemini.warm() as worker:
        await gemini.ask("Question: one?\n", policy=ONCE)
        await gemini.ask("Question: two?\n", policy=ONCE)
        assert not worker.usable and worker.stats.mode == "spawn"
        assert "died twice" in (worker.stats.problem or "")
        gemini.set()
        spawned = await gemini.ask("Question: three?\n")
    assert spawned.status is Status.OK
    assert [a.warm for a in spawned.attempts] == [False]
    assert spawned.attempts[0].argv[1:3] == ("-o", "json")  # the spawn-per-call argv


@pytest.mark.parametrize("how", ["hang", "error", "exit", "no_warm"])
async def test_a_worker_that_does_not_start_says_why_and_the_seat_spawns(gemini, how):
    if how == "no_warm":
        gemini.set(no_warm=True)
    else:
        gemini.set(handshake=how)
    async with gemini.warm(start=False, start_timeout_s=0.5) as worker:
        with pytest.raises(WarmStartError) as failed:
            await worker.start()
        gemini.set()
        spawned = await gemini.ask("Question: cold?\n")
    assert not worker.usable
    assert worker.stats.problem is not None and "did not start" in worker.stats.problem
    said = {
        "hang": "no handshake within 0.5s",
        "error": "failed to load settings",
        "exit": "failed to start",
        "no_warm": "Unknown argument: acp",
    }[how]
    assert said in str(failed.value)
    assert spawned.status is Status.OK and not spawned.attempts[0].warm


async def test_a_worker_is_replaced_between_calls_after_its_sessions_run_out(gemini):
    gemini.set()
    async with gemini.warm(recycle_after=2) as worker:
        first = worker.pid
        outcomes = [await gemini.ask(f"Question {i}?\n") for i in range(2)]
        while worker.pid == first:  # noqa: ASYNC110 - the replacement starts beside the calls
            await anyio.sleep(0.01)
        outcomes.append(await gemini.ask("Question 2?\n"))
        # The old one is closed once replaced, beside the calls (stdin closed, then killed).
        while alive(first):  # noqa: ASYNC110 - another process's state, no event to wait on
            await anyio.sleep(0.01)
        assert worker.stats.starts == 2 and worker.stats.deaths == 0
    assert all(o.status is Status.OK and o.attempts[0].warm for o in outcomes)
    assert [t["pid"] for t in gemini.turns()] == [first, first, worker_pid(gemini, 2)]


def worker_pid(seat: Seat, turn: int) -> int:
    return seat.turns()[turn]["pid"]


async def test_tear_down_kills_what_the_worker_started(gemini):
    gemini.set("grandchild")
    async with gemini.warm():
        outcome = await gemini.ask("Question: fork?\n")
        (grandchild,) = gemini.fakes.grandchildren("gemini")
        assert alive(grandchild)
    assert outcome.status is Status.OK
    assert not alive(grandchild)
    assert gemini.fakes.leftovers() == []


async def test_a_call_cancelled_from_outside_takes_the_worker_down_with_it(gemini):
    gemini.set("hang")
    async with gemini.warm() as worker:
        pid = worker.pid
        with anyio.move_on_after(0.3):
            await gemini.ask("Question: shutdown?\n", soft=30)
        assert not alive(pid)
        assert worker.stats.deaths == 0  # a shutdown is no death
    assert gemini.fakes.leftovers() == []


async def test_the_soft_timeout_passes_on_a_warm_call_as_on_a_spawned_one(gemini):
    gemini.set("slow", delay=0.4)
    async with gemini.warm():
        outcome = await gemini.ask("Question: slow?\n", soft=0.1, hard=5)
    assert outcome.status is Status.OK and outcome.attempts[0].warm and outcome.exceeded_soft


@pytest.mark.parametrize("variant", ["kimi-code", "kimi-cli"])
async def test_a_kimi_turn_the_model_refused_ends_empty_and_is_redone_spawned_to_say_why(
    fakes, tmp_path, variant
):
    seat = Seat(fakes, "kimi", variant, tmp_path)
    if variant == "kimi-cli":
        _kimi_login(Path(os.environ["HOME"]))
    seat.set("server_error")
    async with seat.warm() as worker:
        outcome = await seat.ask("Question: 500?\n", policy=ONCE)
        assert worker.usable and worker.stats.deaths == 0
    # Warm, the turn ends "successfully" with no text; the spawned redo classifies it, and
    # is not counted as a retry.
    assert [a.warm for a in outcome.attempts] == [True, False]
    assert outcome.attempts[0].status is Status.EMPTY
    assert outcome.status is Status.RATE_LIMITED, outcome.detail


async def test_kimi_cli_without_a_kimi_login_is_refused_warm(fakes):
    adapter = adapter_for("kimi")
    tool = Tool("kimi", ("kimi",), "1.51.0", "kimi-cli")
    home = Path(os.environ["HOME"])
    assert "logged in" in (adapter.warm_refusal(tool, os.environ, home) or "")
    _kimi_login(home)
    assert adapter.warm_refusal(tool, os.environ, home) is None
    code = Tool("kimi", ("kimi",), "2.1.0", "kimi-code")
    assert adapter.warm_refusal(code, os.environ, Path("/nonexistent")) is None


def _kimi_login(home: Path) -> None:
    """What `kimi login` leaves: kimi-cli's `kimi acp` opens sessions only with it."""
    creds = home / ".kimi" / "credentials"
    creds.mkdir(parents=True, exist_ok=True)
    (creds / "kimi-code.json").write_text('{"access_token": "placeholder"}')


@pytest.mark.parametrize(("name", "variant"), WARM, ids=[v or n for n, v in WARM])
async def test_the_hard_limit_cancels_by_the_protocol_on_every_warm_mode(
    fakes, tmp_path, name, variant
):
    seat = Seat(fakes, name, variant, tmp_path)
    if variant == "kimi-cli":
        _kimi_login(Path(os.environ["HOME"]))
    seat.set("hang")
    async with seat.warm() as worker:
        pid = worker.pid
        hung = await seat.ask("Question: hang?\n", soft=0.3, hard=0.5)
        seat.set()
        after = await seat.ask("Question: next?\n")
        assert worker.pid == pid and worker.stats.deaths == 0
    assert hung.status is Status.TIMEOUT and "the session was cancelled" in hung.detail
    assert after.status is Status.OK and after.attempts[0].warm


async def test_pi_reports_a_refused_model_call_as_its_spawned_call_would(fakes, tmp_path):
    seat = Seat(fakes, "pi", None, tmp_path)
    seat.set("rate_limit")
    async with seat.warm():
        outcome = await seat.ask("Question: 429?\n", policy=ONCE)
    assert outcome.status is Status.RATE_LIMITED, outcome.detail
    assert [a.warm for a in outcome.attempts] == [True]
    (turn,) = seat.turns()
    assert turn["read_only"] is True  # only pi's read-only tools were offered


# Up to 2.1.210 claude adds usage up over the process, from 2.1.211 over the session.
@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
async def test_claude_reports_each_warm_calls_own_usage_whether_it_counts_per_process_or_session(
    fakes, tmp_path, version
):
    seat = Seat(fakes, "claude", None, tmp_path)
    seat.set(version=version)
    prompts = ["Question: first?\n", "Question: second, a longer one?\n"]
    async with seat.warm():
        outcomes = [await seat.ask(p) for p in prompts]
    for prompt, outcome in zip(prompts, outcomes, strict=True):
        assert outcome.status is Status.OK and outcome.attempts[0].warm
        tokens_in, tokens_out = expected_usage(prompt, expected_answer("claude", prompt))
        assert outcome.usage is not None
        assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (tokens_in, tokens_out)
        assert outcome.usage.cost_usd == 0.0012


async def test_a_warm_attempt_records_the_workers_command_and_its_own_duration(gemini):
    gemini.set()
    async with gemini.warm() as worker:
        outcome = await gemini.ask("Question: recorded?\n")
    (attempt,) = outcome.attempts
    assert attempt.warm and attempt.argv == worker.argv
    assert attempt.argv[1:] == ("--acp", "--approval-mode", "plan")
    assert attempt.duration_s > 0 and outcome.spans[0].duration_s == attempt.duration_s
    assert attempt.dropped_bytes == 0


async def test_a_call_that_makes_its_own_temp_dir_still_runs_on_the_warm_worker(gemini):
    gemini.set()
    async with gemini.warm() as worker:
        outcome = await run_call(
            gemini.adapter,
            gemini.tool,
            "Question: no temp dir given?\n",
            room=gemini.room,
            files=CallFiles(gemini.record, "critic-r1"),
            timeouts=Timeouts(10, 15, 1),
            warm=worker,
        )
    assert outcome.status is Status.OK, outcome.detail
    assert [a.warm for a in outcome.attempts] == [True]


@pytest.mark.parametrize(("mode", "suffix"), [("ok", "md"), ("crash", "err")])
async def test_a_full_disk_under_a_warm_calls_file_stops_the_call_naming_the_file(
    gemini, mode, suffix
):
    full = gemini.record / f"critic-r1-response.{suffix}"
    full.symlink_to("/dev/full")  # every write fails with ENOSPC
    gemini.set(mode)
    async with gemini.warm():
        with pytest.raises((RecordWriteError, BaseExceptionGroup)) as failed:
            await gemini.ask("Question: full?\n", policy=ONCE)
    error = council_error(failed.value)
    assert isinstance(error, RecordWriteError), failed.value
    assert error.path == full
