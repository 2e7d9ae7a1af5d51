"""The model that served a call, read from what each CLI itself printed (tests/data/served:
captured from the real CLIs against the fake model server, which serves the model it is asked
for). A CLI that names none reads as () ("not reported"), never as the model council asked
for; where a run called several models, the one that wrote the answer comes first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Scripted

from council.adapters import adapter_for, registered
from council.adapters.base import RawResult, Status, model_family
from council.adapters.claude import ClaudeStreamDriver
from council.adapters.codex import CodexAppDriver
from council.adapters.warm import AcpOutcome, WorkerGone

pytestmark = pytest.mark.anyio

CAPTURED = Path(__file__).parents[1] / "data" / "served"
CLAUDE_STREAMS = Path(__file__).parents[1] / "data" / "claude"


def captured(name: str) -> str:
    return (CAPTURED / name).read_text()


def test_claude_names_the_model_of_its_model_usage():
    result = RawResult(0, captured("claude-2.1.332.json"), "")
    assert adapter_for("claude").read_model(result) == ("fake-model",)


def test_claude_names_the_answering_model_first_and_keeps_the_side_model_it_called():
    payload = json.loads(captured("claude-2.1.332.json"))
    main = payload["modelUsage"].pop("fake-model")
    # claude lists the small model it titled the session with before the main one.
    payload["modelUsage"] = {
        "claude-haiku-4-5": {**main, "outputTokens": 12},
        "claude-opus-4-5": main,
    }
    result = RawResult(0, json.dumps(payload), "")
    assert adapter_for("claude").read_model(result) == ("claude-opus-4-5", "claude-haiku-4-5")


def test_a_claude_error_result_names_no_model():
    payload = json.loads(captured("claude-2.1.332.json"))
    payload |= {"is_error": True, "modelUsage": {}, "result": "API Error: 500"}
    assert adapter_for("claude").read_model(RawResult(1, json.dumps(payload), "")) == ()


class Replay:
    """claude's stream-json stdout as captured (tests/data/claude), event by event."""

    def __init__(self, version: str, edit=None) -> None:
        lines = (CLAUDE_STREAMS / f"stream-json-{version}.jsonl").read_text().splitlines()
        self.printed = [json.loads(line) for line in lines]
        if edit is not None:
            edit(self.printed)
        self.pending: list[dict] = []

    async def send(self, message) -> None:
        while self.printed:
            event = self.printed.pop(0)
            self.pending.append(event)
            if event["type"] in ("control_response", "result"):
                return

    async def receive(self) -> dict:
        if not self.pending:
            raise WorkerGone("stdout ended")
        return self.pending.pop(0)


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
async def test_a_warm_claude_call_names_only_the_models_its_own_turn_called(version):
    # An answer, a 500 from the model server, an answer; `/clear` before the second and third.
    # 2.1.197 repeats the process's running totals in every result: the failed turn's still
    # lists the first turn's model, which did not serve it.
    channel = Replay(version)
    driver = ClaudeStreamDriver(adapter_for("claude"))
    await driver.handshake(channel)
    verdicts = [
        (await driver.turn(channel, prompt, Path("."))).verdict
        for prompt in ("Question: first?", "Question: fail?", "Question: third?")
    ]
    assert [v.status for v in verdicts] == [Status.OK, Status.RATE_LIMITED, Status.OK]
    assert [v.served for v in verdicts] == [("fake-model",), (), ("fake-model",)]


def test_codex_exec_names_no_model_not_even_the_one_its_warning_mentions():
    # `codex exec --json` (0.171.0) prints a warning naming the configured model when it has
    # no metadata for it: that is not a report of what served the call.
    result = RawResult(0, captured("codex-0.171.0-exec.jsonl"), "", output_format="json")
    adapter = adapter_for("codex")
    assert "fake-model" in result.stdout
    assert adapter.classify(result, "Question: which model?").status is Status.OK
    assert adapter.read_model(result) == ()


async def test_a_warm_codex_call_names_the_model_of_its_threads_metadata():
    started = json.loads(captured("codex-0.171.0-thread-start.json"))
    started["result"]["thread"]["model"] = started["result"]["model"] = "gpt-5.2-codex"
    thread = started["result"]["thread"]["id"]
    note = {"threadId": thread}
    channel = Scripted(
        [
            [{"id": 1, "result": {"userAgent": "codex_cli_rs/0.171.0"}}],
            [started],
            [
                {"id": 3, "result": {"turn": {"id": "turn-1"}}},
                {
                    "method": "item/completed",
                    "params": {**note, "item": {"type": "agentMessage", "text": "An answer."}},
                },
                {"method": "turn/completed", "params": {**note, "turn": {"status": "completed"}}},
            ],
        ]
    )
    driver = CodexAppDriver(adapter_for("codex"))
    assert await driver.handshake(channel) == "0.171.0"
    turn = await driver.turn(channel, "Question: which model?", Path("."))
    assert turn.verdict.status is Status.OK
    assert turn.verdict.served == ("gpt-5.2-codex",)


def test_gemini_names_the_models_of_its_stats_the_answering_one_first():
    result = RawResult(0, captured("gemini-0.61.0.json"), "")
    adapter = adapter_for("gemini")
    assert adapter.read_model(result) == ("fake-model",)
    payload = json.loads(captured("gemini-0.61.0.json"))
    answering = payload["stats"]["models"].pop("fake-model")
    routing = json.loads(json.dumps(answering))
    routing["tokens"]["candidates"] = 4
    # Without -m gemini asks a routing model first: it is listed, after the answering one.
    payload["stats"]["models"] = {"gemini-2.5-flash-lite": routing, "gemini-2.5-pro": answering}
    result = RawResult(0, json.dumps(payload), "")
    assert adapter.read_model(result) == ("gemini-2.5-pro", "gemini-2.5-flash-lite")


def test_a_warm_gemini_call_names_the_model_of_its_prompt_results_quota():
    meta = json.loads(captured("gemini-0.61.0-acp-prompt-result.json"))["result"]["_meta"]
    outcome = AcpOutcome(stop_reason="end_turn", text="An answer.", meta=meta)
    verdict = adapter_for("gemini").acp_verdict(outcome, "Question: which model?").verdict
    assert verdict.status is Status.OK and verdict.served == ("fake-model",)


def test_qwen_names_the_models_of_its_result_events_stats():
    result = RawResult(0, captured("qwen-0.15.10.json"), "")
    assert adapter_for("qwen").read_model(result) == ("fake-model",)


def test_pi_names_the_provider_and_model_of_its_answer():
    adapter = adapter_for("pi")
    result = RawResult(0, captured("pi-1.6.0.jsonl"), "", output_format="json")
    assert adapter.read_model(result) == ("fakemodel/fake-model",)
    # pi before 0.84 runs in text mode: the answer alone, no model named.
    assert adapter.read_model(RawResult(0, "An answer.\n", "", output_format="text")) == ()


@pytest.mark.parametrize(
    "stdout",
    [
        # kimi-code 2.1.0 `--output-format stream-json`, as captured.
        '{"role":"meta","type":"system.version","version":"2.1.0"}\n'
        '{"role":"assistant","content":"An answer."}\n',
        "An answer.\n",  # kimi-cli 1.51.0 --quiet: the answer alone
    ],
    ids=["kimi-code", "kimi-cli"],
)
def test_kimi_names_no_model_in_either_program(stdout):
    assert adapter_for("kimi").read_model(RawResult(0, stdout, "")) == ()


def test_the_simulator_names_the_model_it_printed_on_stderr():
    adapter = adapter_for("sim")
    assert adapter.read_model(RawResult(0, "answer", "council-sim: served by gpt-5.2\n")) == (
        "gpt-5.2",
    )
    assert adapter.read_model(RawResult(0, "answer", "")) == ()


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-opus-4-5-20251101", "anthropic"),
        ("sonnet", "anthropic"),
        ("gpt-5.2-codex", "openai"),
        ("o3", "openai"),
        ("o4-mini", "openai"),
        ("gemini-2.5-pro", "google"),
        ("models/gemini-3-pro-preview", "google"),
        ("qwen3-coder-plus", "qwen"),
        ("kimi-k2-0905", "moonshot"),
        ("moonshot-v1-128k", "moonshot"),
        ("openrouter/anthropic/claude-sonnet-4", "anthropic"),  # a gateway's or pi's name
        ("fakemodel/fake-model", None),
        ("octopus-7b", None),  # starts like o3 and opus, is neither
        (None, None),
    ],
)
def test_a_served_models_family_comes_from_the_vendors_own_name_patterns(model, family):
    assert model_family(model, registered().values()) == family


def _answers_named(printed: list[dict]) -> None:
    """Assistant messages as claude prints them before a result (the capture left them out):
    the first call's names the model the API answered as, the failed call's is claude's own
    made-up one."""
    results = [i for i, event in enumerate(printed) if event["type"] == "result"]
    for at, model in ((results[2], "<synthetic>"), (results[0], "routed-model")):
        message = {"role": "assistant", "model": model, "content": []}
        printed.insert(at, {"type": "assistant", "message": message})


async def test_a_warm_claude_call_names_the_model_its_answers_came_from_when_claude_prints_it():
    channel = Replay("2.1.332", edit=_answers_named)
    driver = ClaudeStreamDriver(adapter_for("claude"))
    await driver.handshake(channel)
    verdicts = [
        (await driver.turn(channel, prompt, Path("."))).verdict
        for prompt in ("Question: first?", "Question: fail?", "Question: third?")
    ]
    # The first: as the API answered; the failed one: none; the third: `modelUsage`'s.
    assert [v.served for v in verdicts] == [("routed-model",), (), ("fake-model",)]
