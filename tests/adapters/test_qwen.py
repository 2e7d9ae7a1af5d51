"""qwen: a JSON array of events whose `result` event holds the answer; plan mode."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from helpers import answer_calls

from council.adapters import adapter_for
from council.adapters.base import RawResult, Status, Tool, Usage
from council.prompts import render
from council.runner import CallFiles, CallOutcome, RetryPolicy, Timeouts, run_call
from council.runner.warm import warm_worker

from fakes.install import expected_answer, expected_usage

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: REBUTTAL\nQuestion: rewrite or refactor?"
SYSTEM = render("lean_system")


async def test_qwen_runs_in_plan_mode_and_reads_the_result_event(fakes, seat_for):
    outcome = await seat_for("qwen").ask(PROMPT, model="qwen3-coder-plus")
    argv = answer_calls(fakes, "qwen")[0]["argv"]
    assert argv[argv.index("--approval-mode") + 1] == "plan"
    assert argv[argv.index("-m") + 1] == "qwen3-coder-plus"
    assert outcome.text == expected_answer("qwen", PROMPT)


async def test_qwen_finds_its_auto_memory_switched_off_in_its_room(fakes, seat_for):
    """qwen 0.15 reads `.qwen/settings.json` in its working directory (the room); with its
    managed auto-memory on it makes a second model request after every answer."""
    seat = seat_for("qwen")
    await seat.ask(PROMPT)
    settings = json.loads((seat.room / ".qwen" / "settings.json").read_text())
    assert settings == {"memory": {"enableManagedAutoMemory": False}}
    assert answer_calls(fakes, "qwen")[0]["cwd"] == str(seat.room)


async def test_qwen_is_never_relaunched_and_runs_in_safe_mode_probe_included(fakes, seat_for):
    """qwen restarts itself in a second node process for a bigger heap unless told not to
    (0.7 s a run); safe mode keeps the user's hooks, MCP servers, extensions, skills and
    QWEN.md out of a seat. Both by variable, which a version without them ignores."""
    await seat_for("qwen").ask(PROMPT)
    probe, call = fakes.calls("qwen")
    assert probe["argv"] == ["--version"]
    for name in ("QWEN_CODE_NO_RELAUNCH", "QWEN_CODE_SAFE_MODE"):
        assert probe["env"][name] == call["env"][name] == "true", name
    assert "--safe-mode" not in call["argv"]


@pytest.mark.parametrize("version", ["0.15.10", "0.24.4"])
@pytest.mark.parametrize("lean", [False, True], ids=["usual", "lean"])
async def test_qwen_s_argv_is_accepted_by_every_version_it_was_tested_with(
    fakes, seat_for, version, lean
):
    """One argv for 0.15.10 and 0.24.x: no flag the other refuses (`--safe-mode` is
    unknown to 0.15.10, `--checkpointing` to 0.24.x), so no version gate is needed."""
    fakes.set("qwen", "ok", version=version)
    outcome = await seat_for("qwen").ask(PROMPT, lean_prompt=SYSTEM if lean else None)
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == expected_answer("qwen", PROMPT)


async def test_a_qwen_flag_a_tested_version_refuses_fails_like_the_real_cli(fakes, seat_for):
    """What the test above relies on: the fake of 0.15.10 refuses 0.24.x's `--safe-mode`
    as the real one does, and the failure is an error, not an answer."""
    fakes.set("qwen", "ok", version="0.15.10")
    outcome = await seat_for("qwen", extra_args=("--safe-mode",)).ask(PROMPT)
    assert outcome.status is Status.ERROR
    assert "Unknown argument: safe-mode" in outcome.detail


class WarmQwen:
    """A seat's warm qwen worker on the fake, and its calls."""

    def __init__(self, fakes, tmp_path: Path) -> None:
        self.adapter = adapter_for("qwen")
        self.tool = Tool("qwen", (str(fakes.executable("qwen")),))
        self.room, self.record, self.tmp = (tmp_path / d for d in ("room", "record", "tmp"))
        for path in (self.room, self.record, self.tmp):
            path.mkdir(mode=0o700)
        self.calls = 0
        self.worker = None

    @asynccontextmanager
    async def running(self):
        launch = self.adapter.warm_launch(self.tool, model=None, effort=None)
        assert launch is not None
        async with warm_worker(
            self.adapter,
            self.tool,
            launch,
            seat="critic",
            room=self.room,
            tmp_dir=self.tmp,
            record_dir=self.record,
        ) as worker:
            await worker.start()
            self.worker = worker
            yield worker

    async def ask(self, prompt: str, soft: float = 10, hard: float = 15) -> CallOutcome:
        self.calls += 1
        return await run_call(
            self.adapter,
            self.tool,
            prompt,
            room=self.room,
            files=CallFiles(self.record, f"critic-r{self.calls}"),
            timeouts=Timeouts(soft, hard, 1.0),
            policy=RetryPolicy(base_delay_s=0.01, max_delay_s=0.05, other_delay_s=0.01),
            tmp_dir=self.tmp,
            warm=self.worker,
        )


async def test_qwen_s_warm_worker_is_never_relaunched_and_runs_in_safe_mode(fakes, tmp_path):
    """A warm worker lives as long as its seat: relaunched, 0.15.10 would hold two node
    processes of ~230 MB each for the whole debate (0.24.4: its launcher and two)."""
    seat = WarmQwen(fakes, tmp_path)
    async with seat.running():
        outcome = await seat.ask(PROMPT)
    assert outcome.text == expected_answer("qwen", PROMPT) and outcome.attempts[0].warm
    (turn,) = [c for c in fakes.calls("qwen") if c.get("warm")]
    assert turn["argv"][turn["argv"].index("--approval-mode") + 1] == "plan"
    assert turn["env"]["QWEN_CODE_NO_RELAUNCH"] == turn["env"]["QWEN_CODE_SAFE_MODE"] == "true"


@pytest.mark.parametrize("version", ["0.15.10", "0.24.4"])
async def test_the_hard_limit_on_a_warm_qwen_cancels_the_session_whichever_way_it_ends(
    fakes, tmp_path, version
):
    """0.15.10 answers a cancelled prompt with an error (`Request was aborted.`), 0.24.4
    with stopReason `cancelled`: either is a timeout, and the same worker answers next."""
    seat = WarmQwen(fakes, tmp_path)
    fakes.set("qwen", "hang", version=version)
    async with seat.running() as worker:
        pid = worker.pid
        hung = await seat.ask("Question: hang?\n", soft=0.3, hard=0.5)
        fakes.set("qwen", "ok", version=version)
        after = await seat.ask(PROMPT)
        assert worker.pid == pid and worker.stats.deaths == 0
    assert hung.status is Status.TIMEOUT, hung.detail
    assert "the session was cancelled" in hung.detail and not hung.attempts[0].killed
    assert after.text == expected_answer("qwen", PROMPT) and after.attempts[0].warm


def test_a_result_event_marked_as_error_is_not_an_answer():
    stdout = '[{"type":"result","is_error":true,"result":"Model stream ended"}]'
    verdict = adapter_for("qwen").classify(RawResult(0, stdout, ""), PROMPT)
    assert verdict.status is Status.ERROR


async def test_qwen_usage_is_its_result_events_whose_input_already_holds_the_cache(fakes, seat_for):
    # The fake reports 2 cache reads inside input_tokens (and apart), as qwen does.
    fakes.set("qwen", "ok", cached_tokens=2, reasoning_tokens=4)
    outcome = await seat_for("qwen").ask(PROMPT)
    tokens_in, tokens_out = expected_usage(PROMPT, expected_answer("qwen", PROMPT))
    assert outcome.usage == Usage(tokens_in, tokens_out, None)


@pytest.mark.parametrize(
    "stdout",
    ['[{"type":"result","is_error":false,"result":"an answer"}]', "plain text", ""],
    ids=["no-usage", "text", "empty"],
)
def test_qwen_output_without_usage_reads_as_none_not_zero(stdout):
    assert adapter_for("qwen").read_usage(RawResult(0, stdout, "")) is None


KEY = {"OPENAI_API_KEY": "sk-x"}
ENDPOINT = {"OPENAI_BASE_URL": "https://example.test/v1", "OPENAI_MODEL": "qwen3-coder-plus"}


@pytest.mark.parametrize(
    ("env", "settings", "found"),
    [
        ({**KEY, **ENDPOINT}, None, True),
        ({**KEY, "OPENAI_BASE_URL": "https://example.test/v1", "QWEN_MODEL": "q"}, None, True),
        ({"QWEN_OAUTH": "1"}, None, True),
        ({}, {"security": {"auth": {"selectedType": "openai"}}}, True),
        (KEY, None, False),
        ({"DASHSCOPE_API_KEY": "sk-x"}, None, False),
        ({}, {"model": {"name": "qwen3-coder-plus"}}, False),
        ({}, None, False),
    ],
    ids=[
        "key-url-model",
        "qwen-model",
        "qwen-oauth",
        "settings",
        "key-alone",
        "dashscope",
        "settings-without-auth",
        "nothing",
    ],
)
def test_qwen_counts_as_logged_in_only_with_what_selects_an_auth_type(
    tmp_path, env, settings, found
):
    """Measured on 0.15.10 and 0.24.4: with a key but no base URL and model, and no auth type
    in settings.json, qwen exits 1 `No auth type is selected`."""
    if settings is not None:
        (tmp_path / ".qwen").mkdir()
        (tmp_path / ".qwen" / "settings.json").write_text(json.dumps(settings))
    state = adapter_for("qwen").auth_state(env, tmp_path)
    assert state.found is found, state.source


def test_qwen_s_auth_type_is_read_where_qwen_home_moves_its_settings(tmp_path):
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "settings.json").write_text('{"security": {"auth": {"selectedType": "openai"}}}')
    adapter = adapter_for("qwen")
    assert adapter.auth_state({"QWEN_HOME": str(moved)}, tmp_path).found is True
    assert adapter.auth_state({}, tmp_path).found is False


def test_qwen_may_write_where_qwen_home_and_qwen_runtime_dir_move_its_state(tmp_path):
    """Confined without it, 0.15.10 dies writing `$QWEN_HOME/output-language.md` (EACCES)
    and 0.24.4 loses its usage log."""
    env = {"QWEN_HOME": "~/qwen-home", "QWEN_RUNTIME_DIR": "/var/tmp/qwen-runtime"}
    dirs, _ = adapter_for("qwen").state_paths(env, tmp_path)
    assert dirs == (tmp_path / ".qwen", tmp_path / "qwen-home", Path("/var/tmp/qwen-runtime"))
    assert adapter_for("qwen").state_paths({}, tmp_path)[0] == (tmp_path / ".qwen",)
