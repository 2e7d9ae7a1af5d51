"""pi's second paths (docs/spec/clis.md "Per CLI", "Failure signatures", "Token usage"): a turn
that ended in error or aborted with exit 0, several assistant messages in one stream, its
login, the warm worker's argv and its RPC session per call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, RawResult, Request, Status, Tool, Usage
from council.adapters.pi import PiRpcDriver
from council.adapters.warm import LeanStart, ProtocolError, WorkerGone

pytestmark = pytest.mark.anyio
PI = Tool("pi", ("pi",), "1.6.0")


def pi(**settings):
    clis = {"pi": CliSettings(name="pi", adapter="pi", **settings)}
    return adapter_for("pi", clis if settings else None)


def message(text="", stop="stop", *, model="m", provider="p", usage=None, **fields) -> dict:
    content = [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": text}]
    return {
        "role": "assistant",
        "content": content,
        "stopReason": stop,
        "model": model,
        "provider": provider,
        "usage": usage or {"input": 1, "output": 1, "cost": {"total": 0}},
        **fields,
    }


def stream(*messages: dict) -> RawResult:
    events = [{"type": "agent_start"}]
    for m in messages:
        events += [{"type": "message_update", "message": m}, {"type": "message_end", "message": m}]
    events.append({"type": "agent_end", "messages": list(messages)})
    stdout = "".join(json.dumps(e) + "\n" for e in events)
    return RawResult(0, stdout, "", output_format="json")


def test_an_aborted_pi_turn_with_exit_0_is_an_error_not_its_partial_text():
    verdict = pi().classify(stream(message("half an ans", stop="aborted")), "Q?")
    assert (verdict.status, verdict.detail) == (Status.ERROR, "pi aborted the turn")


def test_a_pi_turn_is_read_by_its_last_message_not_an_earlier_failed_one():
    first = message("", stop="error", errorMessage="429: slow down")
    verdict = pi().classify(stream(first, message("the answer")), "Q?")
    assert (verdict.status, verdict.text) == (Status.OK, "the answer")


def test_pi_text_mode_exit_1_is_read_by_the_failure_patterns():
    result = RawResult(1, "", "429 Too Many Requests\n", output_format="text")
    assert pi().classify(result, "Q?").status is Status.RATE_LIMITED


def test_pi_answer_is_the_text_parts_of_the_last_message_without_its_thinking():
    result = stream(message("draft", stop="toolUse"), message("the answer"))
    assert pi().extract(result) == "the answer"


def test_pi_names_the_answers_model_first_as_provider_slash_model():
    result = stream(
        message("a", stop="toolUse", model="small", provider="openrouter"),
        message("b", stop="toolUse", model="small", provider="openrouter"),
        message("c", model="big", provider="anthropic"),
    )
    assert pi().read_model(result) == ("anthropic/big", "openrouter/small")


def test_pi_usage_counts_cache_writes_and_a_zero_price_as_no_cost():
    usage = {"input": 10, "output": 4, "cacheRead": 5, "cacheWrite": 2, "cost": {"total": 0}}
    result = stream(message("a", usage=usage), message("b", usage=usage))
    assert pi().read_usage(result) == Usage(34, 8, None)


def test_a_model_without_a_provider_is_passed_alone(tmp_path):
    request = Request(prompt="Q?", room=tmp_path, answer_path=tmp_path / "a", model="sonnet")
    argv = list(pi().build(PI, request).argv)
    assert argv[argv.index("--model") + 1] == "sonnet" and "--provider" not in argv


def test_a_lean_pi_call_has_no_tool_no_skill_and_councils_system_prompt(tmp_path):
    request = Request(prompt="Q?", room=tmp_path, answer_path=tmp_path / "a", lean_prompt="Hi.")
    argv = list(pi().build(PI, request).argv)
    assert {"--no-tools", "--no-skills"} <= set(argv) and "--tools" not in argv
    assert argv[argv.index("--system-prompt") + 1] == "Hi."
    assert {"--no-session", "--no-context-files", "--offline", "--no-mcp"} <= set(argv)


@pytest.mark.parametrize(("effort", "soft"), [("high", 600), ("xhigh", 900), (None, 600)])
def test_only_xhigh_gives_pi_its_longer_timeout(effort, soft):
    assert pi().soft_timeout(effort) == soft


@pytest.mark.parametrize(
    ("stderr", "usable"),
    [
        ("SyntaxError: Unexpected token\nNode.js v22.18.0\n", False),
        ("SyntaxError: Unexpected token\nNode.js v20.11.1\n", False),
        ("SyntaxError: Unexpected token\nNode.js v22.19.0\n", True),
    ],
)
def test_pi_on_a_node_older_than_22_19_is_unusable(stderr, usable):
    info = pi().read_version(1, "", stderr)
    assert ("pi needs Node >= 22.19 and `node` here is" in (info.unusable or "")) is not usable


# -- login (pi reads its providers' usual key variables, else auth.json) ---------------------


@pytest.mark.parametrize(
    ("env", "found"),
    [
        ({"HF_TOKEN": "t"}, True),
        ({"DEEPSEEK_API_KEY": "k"}, True),
        ({"KIMI_API_KEY": "k"}, True),
        ({"AWS_SECRET_API_KEY": "k"}, None),  # not a family pi's environment gets
        ({"OPENAI_API_KEY": ""}, None),
    ],
)
def test_pi_is_logged_in_by_a_key_that_reaches_it(tmp_path, env, found):
    assert pi().auth_state(env, tmp_path).found is found


def test_pi_login_is_a_non_empty_auth_json_where_pi_coding_agent_dir_says(tmp_path):
    agent = tmp_path / ".pi" / "agent"
    agent.mkdir(parents=True)
    (agent / "auth.json").write_text("{}")
    assert pi().auth_state({}, tmp_path).found is None
    (agent / "auth.json").write_text('{"anthropic": {"type": "oauth"}}')
    assert pi().auth_state({}, tmp_path).source == str(agent / "auth.json")
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "auth.json").write_text('{"openai": {}}')
    env = {"PI_CODING_AGENT_DIR": str(moved)}
    assert pi().auth_state(env, tmp_path).source == str(moved / "auth.json")
    dirs, _ = pi().state_paths(env, tmp_path)
    assert moved in dirs


# -- warm (`pi --mode rpc`) ------------------------------------------------------------------


def test_a_warm_pi_is_read_only_with_the_seats_model_and_only_an_effort_pi_knows(tmp_path):
    argv = list(pi(model="cfg").warm_launch(PI, model="anthropic/opus", effort="max").argv)
    assert argv[argv.index("--mode") + 1] == "rpc"
    assert argv[argv.index("--provider") + 1] == "anthropic"
    assert argv[argv.index("--model") + 1] == "opus"
    assert "--thinking" not in argv  # `max` is not one of 1.6.0's efforts council sends
    assert argv[argv.index("--tools") + 1] == "read,grep,find,ls"
    assert {"--no-session", "--no-context-files", "--offline", "--no-approve", "--no-mcp"} <= set(
        argv
    )
    lean = pi().warm_launch(PI, model=None, effort="low", lean=LeanStart("Hi.", tmp_path))
    assert {"--no-tools", "--no-skills"} <= set(lean.argv) and "--tools" not in lean.argv
    assert lean.argv[lean.argv.index("--thinking") + 1] == "low" and lean.lean is True


class Rpc:
    """pi's RPC mode: each command answered by its `response`, a prompt's events after it."""

    def __init__(self, turns: list[list[dict]]) -> None:
        self.turns = turns
        self.pending: list[dict] = []
        self.sent: list[dict] = []

    async def send(self, command) -> None:
        self.sent.append(dict(command))
        if "id" not in command:
            return  # `abort` is answered by how the turn ends
        self.pending.append({"type": "response", "id": command["id"], "success": True})
        if command["type"] == "prompt":
            self.pending += self.turns.pop(0)

    async def receive(self) -> dict:
        if not self.pending:
            raise WorkerGone("stdout ended")
        return self.pending.pop(0)


def rpc_turn(*messages: dict) -> list[dict]:
    ends = [{"type": "message_end", "message": m} for m in messages]
    return [*ends, {"type": "agent_end", "messages": list(messages)}]


async def test_each_warm_pi_call_after_the_first_starts_a_new_session():
    usage = {"input": 3, "output": 2, "cost": {"total": 0.01}}
    failed = message("", stop="error", errorMessage="429: slow down", usage=usage)
    channel = Rpc([rpc_turn(message("one")), rpc_turn(failed), rpc_turn(message("three"))])
    driver = PiRpcDriver(adapter_for("pi"))
    await driver.handshake(channel)
    verdicts = [(await driver.turn(channel, q, Path("."))).verdict for q in ("a?", "b?", "c?")]
    kinds = [c["type"] for c in channel.sent]
    assert kinds == ["get_state", "prompt", "new_session", "prompt", "new_session", "prompt"]
    assert [v.status for v in verdicts] == [Status.OK, Status.RATE_LIMITED, Status.OK]
    assert verdicts[1].usage == Usage(3, 2, 0.01)  # a failed turn still cost what it says
    assert verdicts[2].text == "three"


async def test_a_command_pi_refuses_ends_the_worker_with_pis_words():
    channel = Rpc([rpc_turn(message("one"))])
    driver = PiRpcDriver(adapter_for("pi"))
    await driver.turn(channel, "a?", Path("."))
    refusal = {"type": "response", "id": "council-2", "success": False, "error": "busy"}

    async def refuse(command) -> None:
        channel.sent.append(dict(command))
        channel.pending.append(refusal)

    channel.send = refuse
    with pytest.raises(ProtocolError, match="pi refused new_session: busy"):
        await driver.turn(channel, "b?", Path("."))


async def test_a_warm_pi_answer_is_the_turns_last_message_after_its_tool_calls():
    channel = Rpc([rpc_turn(message("let me look", stop="toolUse"), message("the answer"))])
    driver = PiRpcDriver(adapter_for("pi"))
    verdict = (await driver.turn(channel, "a?", Path("."))).verdict
    assert (verdict.status, verdict.text) == (Status.OK, "the answer")


async def test_cancelling_a_warm_pi_turn_sends_abort_only_while_it_prompts():
    driver = PiRpcDriver(adapter_for("pi"))
    channel = Rpc([])
    await driver.cancel(channel)
    assert channel.sent == []  # no prompt in flight: nothing to abort
    aborted = message("", stop="aborted", usage={"input": 8, "output": 1, "cost": {"total": 0}})
    channel = Rpc([rpc_turn(aborted)])
    receive = channel.receive

    async def receive_then_cancel() -> dict:
        event = await receive()
        if event.get("type") == "message_end":
            await driver.cancel(channel)
        return event

    channel.receive = receive_then_cancel
    verdict = (await driver.turn(channel, "a?", Path("."))).verdict
    assert {"type": "abort"} in channel.sent
    assert (verdict.status, verdict.detail) == (Status.ERROR, "pi aborted the turn")
    assert verdict.usage == Usage(8, 1, None)  # what the aborted turn had spent
