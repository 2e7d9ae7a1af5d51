"""codex's second paths (docs/spec/clis.md "Per CLI", "Failure signatures", "Token usage"):
a failed `codex exec --json` read from its error events and never from the prompt it echoes,
several turns or messages in one stream, the warm worker's argv and each thread's settings,
and a failed app-server turn read by its structured error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Scripted

from council.adapters import adapter_for
from council.adapters.base import CliSettings, RawResult, Request, Status, Tool, Usage
from council.adapters.codex import CodexAppDriver
from council.adapters.warm import LeanStart

pytestmark = pytest.mark.anyio
CODEX = Tool("codex", ("codex",), "0.171.0")


def codex(**settings):
    clis = {"codex": CliSettings(name="codex", adapter="codex", **settings)}
    return adapter_for("codex", clis if settings else None)


def jsonl(*events: dict) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def failed(message: str) -> str:
    return jsonl(
        {"type": "thread.started", "thread_id": "t"},
        {"type": "turn.started"},
        {"type": "turn.failed", "error": {"message": message}},
    )


# -- a failed `codex exec --json` ------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("unexpected status 403 Forbidden: no access", Status.AUTH),
        ("exceeded retry limit, last status: 429 Too Many Requests", Status.RATE_LIMITED),
        # after its own retries 0.169.0 says this of a 500, with no status (transient)
        (
            "We're currently experiencing high demand, which may cause temporary errors.",
            Status.RATE_LIMITED,
        ),
        # a provider's unset env_key (clis.md "Failure signatures")
        ("Missing environment variable: `CORP_API_KEY`.", Status.AUTH),
        ("stream disconnected before completion: model gone", Status.ERROR),
    ],
)
def test_a_failed_codex_turn_is_read_from_its_turn_failed_event(message, expected):
    verdict = codex().classify(RawResult(1, failed(message), ""), "Question: x?")
    assert verdict.status is expected, verdict.detail


def test_a_codex_agent_message_saying_401_is_not_read_as_its_failure():
    stdout = jsonl(
        {"type": "item.completed", "item": {"type": "agent_message", "text": "HTTP 401 means"}},
        {"type": "turn.failed", "error": {"message": "stream disconnected: model gone"}},
    )
    verdict = codex().classify(RawResult(1, stdout, ""), "Question: x?")
    assert verdict.status is Status.ERROR
    assert "model gone" in verdict.detail


def test_a_prompt_about_rate_limits_echoed_on_stderr_is_not_codexs_failure():
    prompt = "Question: is HTTP 429 or 401 in our logs a rate limit?"
    stderr = f"user\n{prompt}\nERROR: the sandbox could not start\n"
    verdict = codex().classify(RawResult(1, "", stderr), prompt)
    assert verdict.status is Status.ERROR
    assert "sandbox could not start" in verdict.detail


# -- several values in one stream --------------------------------------------------------------


def test_codex_usage_is_the_last_turns_with_input_and_output_in_place():
    stdout = jsonl(
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 2}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "x"}},
        {"type": "turn.completed", "usage": {"input_tokens": 120, "output_tokens": 30}},
    )
    assert codex().read_usage(RawResult(0, stdout, "")) == Usage(120, 30)


def test_codex_answer_file_with_only_whitespace_falls_back_to_the_last_message():
    stdout = jsonl(
        {"type": "item.completed", "item": {"type": "agent_message", "text": "first"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "the answer"}},
        {"type": "item.completed", "item": {"type": "reasoning", "text": "thinking"}},
    )
    result = RawResult(0, stdout, "", answer_file_text="\n  \n")
    assert codex().extract(result) == "the answer"


# -- the spawned argv (clis.md row for codex) -------------------------------------------------


def build(adapter, tmp_path: Path, **fields):
    request = Request(
        prompt="Q?", room=tmp_path / "room", answer_path=tmp_path / "rec" / "a.txt", **fields
    )
    return adapter.build(CODEX, request)


def test_codex_exec_reads_stdin_writes_the_record_and_takes_the_seats_model(tmp_path):
    invocation = build(codex(model="gpt-5"), tmp_path, model="o3", effort="high")
    argv = list(invocation.argv)
    assert argv[-1] == "-"
    assert argv[argv.index("-o") + 1] == str(tmp_path / "rec" / "a.txt")
    assert argv[argv.index("-m") + 1] == "o3"
    assert argv[argv.index("-m") - 1] != "-m"
    assert 'model_reasoning_effort="high"' in argv
    assert invocation.stdin == b"Q?"


def test_a_lean_codex_call_points_at_its_instructions_file_as_a_toml_string(tmp_path):
    invocation = build(codex(), tmp_path, lean_prompt="You are a seat.")
    path = tmp_path / "room" / ".council" / "codex-instructions.md"
    assert f'model_instructions_file="{path}"' in invocation.argv
    assert invocation.room_files == {".council/codex-instructions.md": "You are a seat."}


# -- the warm worker (clis.md "Warm workers") -------------------------------------------------


def test_a_warm_codex_ends_with_app_server_after_the_users_extra_args():
    argv = codex(extra_args=("-c", "x=1")).warm_launch(CODEX, model=None, effort=None).argv
    assert argv[-3:] == ("-c", "x=1", "app-server")


def test_a_warm_codex_takes_the_seats_model_and_only_an_effort_codex_knows():
    argv = codex(model="gpt-5").warm_launch(CODEX, model="o3", effort="max").argv
    assert 'model="o3"' in argv and 'model="gpt-5"' not in argv
    assert not any("model_reasoning_effort" in a for a in argv)  # `max` is claude's
    argv = codex().warm_launch(CODEX, model=None, effort="minimal").argv
    assert 'model_reasoning_effort="minimal"' in argv


def test_a_warm_codex_started_lean_writes_its_instructions_into_the_room(tmp_path):
    launch = codex().warm_launch(
        CODEX, model=None, effort=None, lean=LeanStart("Be brief.", tmp_path)
    )
    assert launch.room_files == {".council/codex-instructions.md": "Be brief."}
    assert "features.shell_tool=false" in launch.argv and launch.lean is True


def turn_script(events: list[dict], status: str = "completed", error: dict | None = None):
    note = {"threadId": "th-1"}
    turn = {"status": status, **({"error": error} if error else {})}
    return [
        [{"id": 1, "result": {"userAgent": "codex_cli_rs/0.171.0-alpha.2 (Linux)"}}],
        [{"id": 2, "result": {"thread": {"id": "th-1"}, "model": "gpt-5.2"}}],
        [
            {"id": 3, "result": {"turn": {"id": "turn-1"}}},
            *({"method": m, "params": {**note, **p}} for m, p in events),
            {"method": "turn/completed", "params": {**note, "turn": turn}},
        ],
    ]


async def run_turn(script) -> tuple:
    channel = Scripted(script)
    driver = CodexAppDriver(adapter_for("codex"))
    version = await driver.handshake(channel)
    turn = await driver.turn(channel, "Question: x?", Path("/room"))
    return version, turn.verdict, channel.sent


async def test_a_warm_codex_thread_is_ephemeral_read_only_and_never_asks():
    version, verdict, sent = await run_turn(turn_script([]))
    assert version == "0.171.0-alpha.2"
    started = next(m for m in sent if m.get("method") == "thread/start")["params"]
    assert started == {
        "cwd": "/room",
        "sandbox": "read-only",
        "approvalPolicy": "never",
        "ephemeral": True,
    }
    assert verdict.served == ("gpt-5.2",)  # named beside the thread only


async def test_a_warm_codex_answer_is_its_last_message_with_the_threads_last_total():
    def total(inp, out):
        return {"tokenUsage": {"total": {"inputTokens": inp, "outputTokens": out}}}

    def message(text):
        return {"item": {"type": "agentMessage", "text": text}}

    events = [
        ("thread/tokenUsage/updated", total(10, 2)),
        ("item/completed", message("first")),
        ("thread/tokenUsage/updated", total(40, 9)),
        ("item/completed", message("the answer")),
        ("item/completed", {"item": {"type": "reasoning", "text": "thinking"}}),
    ]
    _, verdict, _ = await run_turn(turn_script(events))
    assert (verdict.status, verdict.text, verdict.usage) == (Status.OK, "the answer", Usage(40, 9))


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({"httpConnectionFailed": {"httpStatusCode": 401}}, Status.AUTH),
        ({"httpConnectionFailed": {"httpStatusCode": 403}}, Status.AUTH),
        ("unauthorized", Status.AUTH),
        ({"httpConnectionFailed": {"httpStatusCode": 429}}, Status.RATE_LIMITED),
        ({"httpConnectionFailed": {"httpStatusCode": 502}}, Status.RATE_LIMITED),
        ("responseTooManyFailedAttempts", Status.RATE_LIMITED),
        ("internalServerError", Status.RATE_LIMITED),
        ("serverOverloaded", Status.RATE_LIMITED),
        ("contextWindowExceeded", Status.ERROR),
    ],
)
async def test_a_failed_warm_codex_turn_is_read_by_its_codex_error_info(info, expected):
    error = {"message": "the request failed", "codexErrorInfo": info}
    _, verdict, _ = await run_turn(turn_script([], status="failed", error=error))
    assert verdict.status is expected, verdict.detail


async def test_an_interrupted_warm_codex_turn_is_an_error_not_an_answer():
    events = [("item/completed", {"item": {"type": "agentMessage", "text": "half"}})]
    _, verdict, _ = await run_turn(turn_script(events, status="interrupted"))
    assert (verdict.status, verdict.detail) == (Status.ERROR, "the turn was interrupted")


async def test_a_failed_warm_codex_turn_still_reports_what_it_spent():
    total = {"tokenUsage": {"total": {"inputTokens": 70, "outputTokens": 3}}}
    error = {"message": "rate limited", "codexErrorInfo": "serverOverloaded"}
    script = turn_script([("thread/tokenUsage/updated", total)], status="failed", error=error)
    _, verdict, _ = await run_turn(script)
    assert (verdict.status, verdict.usage) == (Status.RATE_LIMITED, Usage(70, 3))


async def test_a_warm_codex_turn_reads_only_its_own_threads_notes():
    other = {"threadId": "th-0"}
    script = turn_script([("item/completed", {"item": {"type": "agentMessage", "text": "mine"}})])
    stray = {"method": "item/completed", "params": {**other, "item": {"type": "agentMessage"}}}
    stray["params"]["item"]["text"] = "another thread's"
    script[2].insert(-1, stray)
    _, verdict, _ = await run_turn(script)
    assert verdict.text == "mine"


def test_a_codex_error_event_and_a_plain_line_on_stdout_are_read_as_its_failure():
    stdout = jsonl({"type": "error", "message": "unexpected status 401 Unauthorized"})
    verdict = codex().classify(RawResult(1, stdout, ""), "Q?")
    assert verdict.status is Status.AUTH and "401 Unauthorized" in verdict.detail
    plain = "Error: the sandbox refused to start: permission denied\n"
    verdict = codex().classify(RawResult(1, plain, ""), "Q?")
    assert verdict.status is Status.ERROR and "sandbox refused to start" in verdict.detail


async def test_cancelling_a_warm_codex_turn_interrupts_that_thread_and_turn():
    driver = CodexAppDriver(adapter_for("codex"))
    script = turn_script([], status="interrupted")
    channel = Scripted(script)
    done = script[2].pop()  # turn/completed comes only after the interrupt

    cancelled: list[bool] = []

    async def receive() -> dict:
        # the turn started and its events are all read: the hard limit strikes now
        if not channel.pending and not cancelled:
            cancelled.append(True)
            await driver.cancel(channel)
            channel.pending.append(done)
        return await Scripted.receive(channel)

    channel.receive = receive
    await driver.handshake(channel)
    turn = await driver.turn(channel, "Question: x?", Path("/room"))
    interrupt = next(m for m in channel.sent if m.get("method") == "turn/interrupt")
    assert interrupt["params"] == {"threadId": "th-1", "turnId": "turn-1"}
    assert turn.verdict.status is Status.ERROR
