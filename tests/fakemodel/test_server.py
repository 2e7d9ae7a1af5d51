"""The fake model server on its own: each dialect, the markers and rules, the request log."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import pytest

from fakemodel import FakeModelServer, parse_markers, reply_for
from fakemodel.replies import AFTER_TOOL_REPLY
from fakemodel.writes import CONTENT


@pytest.fixture
def server():
    with FakeModelServer() as running:
        yield running


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, dict(error.headers), error.read()


def get(url: str, headers: dict | None = None) -> dict:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def sse_data(raw: bytes) -> list[dict]:
    return [
        json.loads(line[6:])
        for line in raw.decode().splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]


def chat(prompt: str, **extra) -> dict:
    return {"model": "fake-model", "messages": [{"role": "user", "content": prompt}], **extra}


def test_chat_completions_answer_plain_and_streamed_with_the_reply_for_the_prompt(server):
    status, _, raw = post(f"{server.url('qwen')}/v1/chat/completions", chat("Hello"))
    assert status == 200
    assert json.loads(raw)["choices"][0]["message"]["content"] == reply_for("Hello")
    _, headers, raw = post(f"{server.url()}/v1/chat/completions", chat("Hello", stream=True))
    assert headers["Content-Type"] == "text/event-stream"
    assert raw.decode().rstrip().endswith("data: [DONE]")
    pieces = [c["choices"][0]["delta"].get("content") or "" for c in sse_data(raw) if c["choices"]]
    assert len(pieces) > 2 and "".join(pieces) == reply_for("Hello")
    assert [r.client for r in server.requests()] == ["qwen", None]


def test_the_log_records_each_request_bodys_size_on_the_wire(server):
    """What a CLI sends a vendor, in bytes (the real-CLI bench adds it up per CLI)."""
    body = chat("Hello café", tools=[{"type": "function", "function": {"name": "read"}}])
    post(f"{server.url('qwen')}/v1/chat/completions", body)
    post(f"{server.url('claude')}/v1/messages/count_tokens", body, {"anthropic-version": "1"})
    sent = len(json.dumps(body).encode())
    assert [(r.outcome, r.body_bytes) for r in server.log] == [("answer", sent), ("count", sent)]


def test_responses_stream_ends_with_response_completed_holding_the_message(server):
    body = {
        "model": "m",
        "stream": True,
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
        ],
    }
    _, _, raw = post(f"{server.url('codex')}/v1/responses", body)
    events = sse_data(raw)
    assert events[0]["type"] == "response.created" and events[-1]["type"] == "response.completed"
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert done[0]["content"][0]["text"] == reply_for("Hi")


def test_anthropic_messages_stream_text_deltas_and_skip_reminder_blocks(server):
    content = [
        {"type": "text", "text": "<system-reminder>\nignore me\n</system-reminder>"},
        {"type": "text", "text": "Question?"},
    ]
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": content}]}
    _, _, raw = post(f"{server.url('claude')}/v1/messages", body, {"anthropic-version": "1"})
    events = sse_data(raw)
    text = "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta")
    assert text == reply_for("Question?")
    assert events[-1]["type"] == "message_stop"
    assert server.prompts("claude") == ["Question?"]


def test_gemini_generate_content_and_its_stream_give_the_same_answer(server):
    body = {"contents": [{"role": "user", "parts": [{"text": "Why?"}]}]}
    base = f"{server.url('gemini')}/v1beta/models/fake-model"
    _, _, raw = post(f"{base}:generateContent", body)
    assert json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"] == reply_for("Why?")
    _, _, raw = post(f"{base}:streamGenerateContent?alt=sse", body)
    parts = [e["candidates"][0]["content"]["parts"][0]["text"] for e in sse_data(raw)]
    assert "".join(parts) == reply_for("Why?")


def test_every_api_lists_its_models(server):
    assert get(f"{server.url()}/v1/models")["data"][0]["id"] == "fake-model"
    assert get(f"{server.url()}/v1/models", {"anthropic-version": "1"})["has_more"] is False
    assert get(f"{server.url()}/v1beta/models")["models"][0]["name"] == "models/fake-model"


def test_a_status_marker_fails_every_request_with_retry_after(server):
    for _ in range(2):
        status, headers, raw = post(
            f"{server.url()}/v1/chat/completions", chat("x [[fake:status=429]]")
        )
        assert status == 429 and headers["Retry-After"] == "1"
        assert json.loads(raw)["error"]["code"] == "rate_limit_exceeded"


def test_fail_first_fails_only_the_first_requests_of_a_prompt(server):
    url = f"{server.url()}/v1/chat/completions"
    statuses = [post(url, chat("y [[fake:fail-first=2]][[fake:status=500]]"))[0] for _ in range(3)]
    assert statuses == [500, 500, 200]


def test_a_rule_applies_to_its_client_only(server):
    server.add_rule(client="pi", status=401)
    assert post(f"{server.url('pi')}/v1/chat/completions", chat("z"))[0] == 401
    assert post(f"{server.url('qwen')}/v1/chat/completions", chat("z"))[0] == 200


def test_a_key_rule_refuses_a_request_without_that_bearer_token_as_the_real_api_does(server):
    server.add_rule(client="codex", key="k1")
    url = f"{server.url('codex')}/v1/chat/completions"
    assert post(url, chat("a"), {"Authorization": "Bearer k1"})[0] == 200
    assert post(url, chat("b"), {"Authorization": "Bearer k2"})[0] == 401
    assert post(url, chat("c"))[0] == 401
    assert [(r.status, r.headers.get("Authorization")) for r in server.requests("codex")] == [
        (200, "Bearer k1"),
        (401, "Bearer k2"),
        (401, None),
    ]


def test_a_websocket_upgrade_is_refused_with_426_and_is_no_model_request(server):
    """426 makes codex's built-in provider fall back to HTTPS at once; anything else costs
    its five reconnects (about 10 s) first."""
    request = urllib.request.Request(
        f"{server.url('codex')}/v1/responses",
        headers={"Upgrade": "websocket", "Connection": "Upgrade"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    refused.value.close()
    assert refused.value.code == 426
    assert server.requests() == [] and [r.outcome for r in server.log] == ["websocket"]


def test_a_hang_holds_the_request_until_the_client_leaves(server):
    request = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    body = json.dumps(chat("[[fake:hang]]")).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=0.5) as conn:
        conn.sendall(request + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        with pytest.raises(TimeoutError):
            conn.recv(1)
    deadline = time.monotonic() + 5
    while server.requests()[0].outcome != "hang" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.requests()[0].outcome == "hang"


def test_a_write_marker_calls_the_write_tool_the_client_declared(server):
    tools = [
        {"type": "function", "function": {"name": "read_file", "parameters": {}}},
        {
            "type": "function",
            "function": {
                "name": "write_file",
                "parameters": {"properties": {"file_path": {}, "content": {}}},
            },
        },
    ]
    _, _, raw = post(
        f"{server.url()}/v1/chat/completions",
        chat("do it [[fake:write=/tmp/room/x.txt]]", tools=tools),
    )
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "write_file"
    assert json.loads(call["arguments"]) == {"file_path": "/tmp/room/x.txt", "content": CONTENT}
    after = chat("do it [[fake:write=/tmp/room/x.txt]]", tools=tools)
    after["messages"] += [
        {"role": "assistant", "content": None},
        {"role": "tool", "content": "denied"},
    ]
    _, _, raw = post(f"{server.url()}/v1/chat/completions", after)
    assert json.loads(raw)["choices"][0]["message"]["content"] == AFTER_TOOL_REPLY


def test_a_decision_prompt_gets_a_json_decision():
    text = reply_for("ACTION: DECISION\nReturn the decision as JSON.\n")
    assert {"recommendation", "confidence"} <= set(json.loads(text))


def test_markers_are_parsed_and_unknown_ones_refused():
    behaviour = parse_markers("[[fake:delay=0.5]] [[fake:status=500]] [[fake:long=10]]")
    assert (behaviour.delay_s, behaviour.status, behaviour.long_chars) == (0.5, 500, 10)
    assert len(reply_for("p", behaviour)) == 10
    with pytest.raises(ValueError, match="unknown fake-model marker"):
        parse_markers("[[fake:explode]]")


def test_the_server_listens_on_the_loopback_interface_only():
    with pytest.raises(ValueError, match="loopback"):
        FakeModelServer(host="0.0.0.0")


def test_each_dialect_reports_cached_and_reasoning_tokens_its_apis_way(server):
    prompt = "How many tokens? [[fake:cached=3]] [[fake:reasoning=5]]"
    reply = reply_for(prompt)
    total_in, total_out = len(prompt) // 4, len(reply) // 4
    user = [{"role": "user", "content": prompt}]
    _, _, raw = post(f"{server.url()}/v1/chat/completions", chat(prompt))
    chat_usage = json.loads(raw)["usage"]
    _, _, raw = post(f"{server.url()}/v1/responses", {"model": "m", "input": prompt})
    responses_usage = json.loads(raw)["usage"]
    _, _, raw = post(
        f"{server.url()}/v1/messages",
        {"model": "m", "max_tokens": 9, "messages": user},
        {"anthropic-version": "2023-06-01"},
    )
    anthropic_usage = json.loads(raw)["usage"]
    body = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
    _, _, raw = post(f"{server.url()}/v1beta/models/m:generateContent", body)
    gemini_usage = json.loads(raw)["usageMetadata"]

    # OpenAI: the cached and reasoning tokens are parts of the counts.
    assert (chat_usage["prompt_tokens"], chat_usage["completion_tokens"]) == (total_in, total_out)
    assert chat_usage["prompt_tokens_details"] == {"cached_tokens": 3}
    assert chat_usage["completion_tokens_details"] == {"reasoning_tokens": 5}
    assert (responses_usage["input_tokens"], responses_usage["output_tokens"]) == (
        total_in,
        total_out,
    )
    assert responses_usage["input_tokens_details"] == {"cached_tokens": 3}
    assert responses_usage["output_tokens_details"] == {"reasoning_tokens": 5}
    # Anthropic: the cache read apart from input_tokens; thinking inside output_tokens.
    assert anthropic_usage == {
        "input_tokens": total_in - 3,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 3,
        "output_tokens": total_out,
    }
    # Gemini: the cache inside the prompt count, thoughts apart from the candidates.
    assert gemini_usage == {
        "promptTokenCount": total_in,
        "candidatesTokenCount": total_out - 5,
        "totalTokenCount": total_in + total_out,
        "cachedContentTokenCount": 3,
        "thoughtsTokenCount": 5,
    }
    assert {
        (r.usage.input, r.usage.output, r.usage.cached, r.usage.reasoning)
        for r in server.requests()
    } == {(total_in, total_out, 3, 5)}


def test_a_tool_calls_rule_calls_the_matching_tools_in_turn_waiting_for_each_to_be_offered(
    server,
):
    url = f"{server.url('qwen')}/v1/chat/completions"
    server.add_rule(
        client="qwen", tool_calls=(("^search$", '{"q": "x"}'), ("debate$", '{"question": "Q"}'))
    )

    def offering(*names: str) -> dict:
        tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names]
        return chat("Hello", tools=tools)

    def called(body: dict) -> dict | None:
        message = json.loads(post(url, body)[2])["choices"][0]["message"]
        return (message.get("tool_calls") or [{}])[0].get("function")

    assert called(offering("read_file")) is None  # the first step's tool is not on offer
    assert called(offering("search", "mcp__council__debate")) == {
        "name": "search",
        "arguments": '{"q": "x"}',
    }
    assert called(offering("search", "mcp__council__debate"))["name"] == "mcp__council__debate"
    assert called(offering("search", "mcp__council__debate")) is None  # every step is done


def test_a_tool_declared_in_a_responses_namespace_is_called_by_its_name_in_that_namespace(
    server,
):
    server.add_rule(client="codex", tool_calls=(("__debate$", "{}"),))
    group = {
        "type": "namespace",
        "name": "mcp__council",
        "tools": [{"type": "function", "name": "debate", "parameters": {}}],
    }
    body = {"model": "fake-model", "input": "Hello", "tools": [group], "stream": True}
    _, _, raw = post(f"{server.url('codex')}/v1/responses", body)
    done = sse_data(raw)[-1]["response"]["output"][0]
    assert (done["name"], done["namespace"]) == ("debate", "mcp__council")


def test_a_shell_commands_rule_runs_each_script_in_turn_in_the_shell_tool_on_offer(server):
    url = f"{server.url('qwen')}/v1/chat/completions"
    server.add_rule(client="qwen", shell_commands=("council debate", "council wait last"))
    shell = {"properties": {"command": {"type": "string"}}}

    def called(*tools: dict) -> dict | None:
        offered = [{"type": "function", "function": t} for t in tools]
        message = json.loads(post(url, chat("Hello", tools=offered))[2])["choices"][0]["message"]
        call = (message.get("tool_calls") or [{}])[0].get("function")
        return call and {**call, "arguments": json.loads(call["arguments"])}

    assert called({"name": "read_file", "parameters": {}}) is None  # no shell on offer
    bash = {"name": "run_shell_command", "parameters": shell}
    assert called(bash)["arguments"] == {"command": "council debate"}
    assert called(bash)["arguments"] == {"command": "council wait last"}
    assert called(bash) is None  # every script has run
