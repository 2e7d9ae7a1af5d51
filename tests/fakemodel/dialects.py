"""The four wire formats the vendor CLIs speak: reading a request, writing an answer.

Each dialect turns a request body into a `Turn` (the prompt, whether the last message is a
tool result, the tools on offer) and renders an answer as one JSON body or a list of SSE
events. Only what the real CLIs need is here; field names follow the vendors' API references.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from fakemodel.replies import chunks


@dataclass(frozen=True)
class ToolSpec:
    name: str
    parameters: dict[str, Any] = field(default_factory=dict)
    kind: str = "function"  # "custom": a freeform tool taking raw text (codex's apply_patch)
    namespace: str | None = None  # the group a Responses tool is declared in (codex's MCP)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] | str  # str: the raw input of a freeform tool
    namespace: str | None = None


@dataclass(frozen=True)
class Turn:
    prompt: str  # the text of the last user message (all its text parts, joined)
    after_tool: bool  # the last message carries a tool result: the model is continuing
    tools: tuple[ToolSpec, ...]
    stream: bool
    model: str
    user_texts: tuple[str, ...] = ()  # every user text part, for the request log


@dataclass(frozen=True)
class Tokens:
    """What the fake model reports an answer used: `input` and `output` tokens in all, `cached`
    of the input read from a prompt cache and `reasoning` of the output spent thinking. Each
    dialect reports them the way its API does; the totals stay these."""

    input: int
    output: int
    cached: int = 0
    reasoning: int = 0


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def _usage_numbers(prompt: str, text: str) -> tuple[int, int]:
    return max(1, len(prompt) // 4), max(1, len(text) // 4)


def tokens_for(prompt: str, text: str, cached: int = 0, reasoning: int = 0) -> Tokens:
    """The usage reported for answering `prompt` with `text` (about four characters a token),
    `cached` and `reasoning` capped at the input and the output."""
    input_tokens, output_tokens = _usage_numbers(prompt, text)
    return Tokens(
        input_tokens, output_tokens, min(cached, input_tokens), min(reasoning, output_tokens)
    )


def _chat_usage(tokens: Tokens) -> dict[str, Any]:
    """OpenAI's Chat Completions usage: cached and reasoning tokens are parts of the counts."""
    return {
        "prompt_tokens": tokens.input,
        "completion_tokens": tokens.output,
        "total_tokens": tokens.input + tokens.output,
        "prompt_tokens_details": {"cached_tokens": tokens.cached},
        "completion_tokens_details": {"reasoning_tokens": tokens.reasoning},
    }


def _prompt_of(user_texts: list[str]) -> str:
    """The prompt: the last user text, skipping the reminders CLIs add as texts of their own
    (qwen, claude and kimi-code send `<system-reminder>` blocks after the user's words)."""
    for text in reversed(user_texts):
        if not text.lstrip().startswith("<system-reminder>"):
            return text
    return ""


def _parts_text(content: Any, kinds: tuple[str, ...] = ("text", "input_text")) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and part.get("type", "text") in kinds:
                texts.append(str(part.get("text", "")))
    return texts


class OpenAIChat:
    """`POST .../chat/completions` (qwen, pi, kimi-cli, kimi-code)."""

    name = "openai-chat"

    def read(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages") or []
        user_texts: list[str] = []
        for message in messages:
            if message.get("role") == "user":
                user_texts.extend(_parts_text(message.get("content")))
        last = messages[-1] if messages else {}
        tools = tuple(
            ToolSpec(t["function"]["name"], t["function"].get("parameters") or {})
            for t in body.get("tools") or []
            if t.get("type") == "function"
        )
        return Turn(
            prompt=_prompt_of(user_texts),
            after_tool=last.get("role") == "tool",
            tools=tools,
            stream=bool(body.get("stream")),
            model=str(body.get("model") or "fake-model"),
            user_texts=tuple(user_texts),
        )

    def answer(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> dict[str, Any]:
        tokens = tokens or tokens_for(turn.prompt, text)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if call is not None:
            message = {"role": "assistant", "content": None, "tool_calls": [_chat_call(call)]}
        return {
            "id": _new_id("chatcmpl"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": turn.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if call else "stop",
                }
            ],
            "usage": _chat_usage(tokens),
        }

    def stream(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> list[tuple[str | None, Any]]:
        tokens = tokens or tokens_for(turn.prompt, text)
        ident, created = _new_id("chatcmpl"), int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, Any]:
            return None, {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": turn.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        events = [chunk({"role": "assistant", "content": ""})]
        if call is not None:
            events.append(chunk({"tool_calls": [{"index": 0, **_chat_call(call)}]}))
            events.append(chunk({}, "tool_calls"))
        else:
            events += [chunk({"content": piece}) for piece in chunks(text)]
            events.append(chunk({}, "stop"))
        events.append(
            (
                None,
                {
                    "id": ident,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": turn.model,
                    "choices": [],
                    "usage": _chat_usage(tokens),
                },
            )
        )
        events.append((None, "[DONE]"))
        return events

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {
            429: "rate_limit_exceeded",
            401: "invalid_api_key",
            403: "permission_denied",
        }.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}

    def models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"}
                for m in MODEL_IDS
            ],
        }


def _chat_call(call: ToolCall) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    return {
        "id": _new_id("call"),
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


class OpenAIResponses:
    """`POST .../responses` (codex): the full SSE event sequence ending in response.completed."""

    name = "openai-responses"

    def read(self, body: dict[str, Any]) -> Turn:
        items = body.get("input") or []
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": items}]
        user_texts: list[str] = []
        for item in items:
            if item.get("role") == "user" and item.get("type", "message") == "message":
                user_texts.extend(_parts_text(item.get("content")))
        last = items[-1] if items else {}
        tools = []
        for t in body.get("tools") or []:
            if t.get("type") == "function":
                tools.append(ToolSpec(t["name"], t.get("parameters") or {}))
            elif t.get("type") == "custom":
                tools.append(ToolSpec(t["name"], {}, kind="custom"))
            elif t.get("type") in ("local_shell",):
                tools.append(ToolSpec("local_shell", {}, kind="local_shell"))
            elif t.get("type") == "namespace":  # codex 0.171: an MCP server's tools
                tools += [
                    ToolSpec(
                        f"{t['name']}__{inner['name']}",
                        inner.get("parameters") or {},
                        namespace=t["name"],
                    )
                    for inner in t.get("tools") or []
                    if inner.get("type") == "function"
                ]
        return Turn(
            prompt=_prompt_of(user_texts),
            after_tool=str(last.get("type", "")).endswith("_output"),
            tools=tuple(tools),
            stream=bool(body.get("stream")),
            model=str(body.get("model") or "fake-model"),
            user_texts=tuple(user_texts),
        )

    def _response(
        self, turn: Turn, status: str, output: list[Any], tokens: Tokens
    ) -> dict[str, Any]:
        return {
            "id": self._id,
            "object": "response",
            "created_at": int(time.time()),
            "status": status,
            "model": turn.model,
            "output": output,
            "usage": {
                "input_tokens": tokens.input,
                "input_tokens_details": {"cached_tokens": tokens.cached},
                "output_tokens": tokens.output,
                "output_tokens_details": {"reasoning_tokens": tokens.reasoning},
                "total_tokens": tokens.input + tokens.output,
            },
        }

    def _item(self, text: str, call: ToolCall | None) -> dict[str, Any]:
        if call is None:
            return {
                "type": "message",
                "id": _new_id("msg"),
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        if isinstance(call.arguments, str):
            return {
                "type": "custom_tool_call",
                "id": _new_id("ctc"),
                "status": "completed",
                "call_id": _new_id("call"),
                "name": call.name,
                "input": call.arguments,
            }
        named = {"name": call.name}
        if call.namespace:
            named = {
                "name": call.name.removeprefix(f"{call.namespace}__"),
                "namespace": call.namespace,
            }
        return {
            "type": "function_call",
            "id": _new_id("fc"),
            "status": "completed",
            "call_id": _new_id("call"),
            **named,
            "arguments": json.dumps(call.arguments),
        }

    def answer(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> dict[str, Any]:
        self._id = _new_id("resp")
        tokens = tokens or tokens_for(turn.prompt, text)
        return self._response(turn, "completed", [self._item(text, call)], tokens)

    def stream(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> list[tuple[str | None, Any]]:
        self._id = _new_id("resp")
        tokens = tokens or tokens_for(turn.prompt, text)
        item = self._item(text, call)
        seq = iter(range(10_000))

        def event(kind: str, **data: Any) -> tuple[str, Any]:
            return kind, {"type": kind, "sequence_number": next(seq), **data}

        started = tokens_for(turn.prompt, "")
        events = [
            event("response.created", response=self._response(turn, "in_progress", [], started)),
            event(
                "response.in_progress", response=self._response(turn, "in_progress", [], started)
            ),
        ]
        if call is None:
            part = {"type": "output_text", "text": "", "annotations": []}
            events += [
                event(
                    "response.output_item.added",
                    output_index=0,
                    item={**item, "status": "in_progress", "content": []},
                ),
                event(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=0,
                    content_index=0,
                    part=part,
                ),
            ]
            events += [
                event(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=0,
                    content_index=0,
                    delta=piece,
                )
                for piece in chunks(text)
            ]
            events += [
                event(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=0,
                    content_index=0,
                    text=text,
                ),
                event(
                    "response.content_part.done",
                    item_id=item["id"],
                    output_index=0,
                    content_index=0,
                    part={**part, "text": text},
                ),
            ]
        else:
            events.append(event("response.output_item.added", output_index=0, item=item))
        events.append(event("response.output_item.done", output_index=0, item=item))
        events.append(
            event("response.completed", response=self._response(turn, "completed", [item], tokens))
        )
        return events

    def error(self, status: int, message: str) -> dict[str, Any]:
        return OpenAIChat().error(status, message)

    def models(self) -> dict[str, Any]:
        return OpenAIChat().models()


class AnthropicMessages:
    """`POST /v1/messages` (claude), streamed or plain, and `count_tokens`."""

    name = "anthropic"

    def read(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages") or []
        user_texts: list[str] = []
        for message in messages:
            if message.get("role") == "user":
                user_texts.extend(_parts_text(message.get("content"), ("text",)))
        last = messages[-1] if messages else {}
        content = last.get("content")
        after_tool = isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") == "tool_result" for p in content
        )
        tools = tuple(
            ToolSpec(t["name"], t.get("input_schema") or {})
            for t in body.get("tools") or []
            if "name" in t
        )
        return Turn(
            prompt=_prompt_of(user_texts),
            after_tool=after_tool,
            tools=tools,
            stream=bool(body.get("stream")),
            model=str(body.get("model") or "fake-model"),
            user_texts=tuple(user_texts),
        )

    def _block(self, text: str, call: ToolCall | None) -> dict[str, Any]:
        if call is None:
            return {"type": "text", "text": text}
        return {"type": "tool_use", "id": _new_id("toolu"), "name": call.name, "input": {}}

    def _usage(self, tokens: Tokens, output_tokens: int) -> dict[str, Any]:
        """Anthropic's usage: `input_tokens` is only the uncached part, the cache reads apart;
        `output_tokens` includes thinking."""
        return {
            "input_tokens": tokens.input - tokens.cached,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": tokens.cached,
            "output_tokens": output_tokens,
        }

    def answer(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> dict[str, Any]:
        block = self._block(text, call)
        if call is not None:
            block["input"] = call.arguments
        tokens = tokens or tokens_for(turn.prompt, text)
        return {
            "id": _new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": turn.model,
            "content": [block],
            "stop_reason": "tool_use" if call else "end_turn",
            "stop_sequence": None,
            "usage": self._usage(tokens, tokens.output),
        }

    def stream(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> list[tuple[str | None, Any]]:
        tokens = tokens or tokens_for(turn.prompt, text)
        message = {
            "id": _new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": turn.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self._usage(tokens, 1),
        }
        block = self._block("", call)
        events: list[tuple[str | None, Any]] = [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
        ]
        if call is None:
            deltas = [{"type": "text_delta", "text": piece} for piece in chunks(text)]
        else:
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(call.arguments)}]
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": d})
            for d in deltas
        ]
        events += [
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": "tool_use" if call else "end_turn",
                        "stop_sequence": None,
                    },
                    "usage": {"output_tokens": tokens.output},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return events

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {
            429: "rate_limit_error",
            401: "authentication_error",
            403: "permission_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def models(self) -> dict[str, Any]:
        data = [
            {
                "type": "model",
                "id": m,
                "display_name": m,
                "created_at": "2025-01-01T00:00:00Z",
            }
            for m in MODEL_IDS
        ]
        return {"data": data, "has_more": False, "first_id": MODEL_IDS[0], "last_id": MODEL_IDS[-1]}


class Gemini:
    """`models/M:generateContent` and `:streamGenerateContent?alt=sse` (gemini), `countTokens`."""

    name = "gemini"

    def read(self, body: dict[str, Any], *, stream: bool = False, model: str = "") -> Turn:
        contents = body.get("contents") or []
        user_texts: list[str] = []
        for content in contents:
            if content.get("role", "user") != "user":
                continue
            user_texts.extend(str(p["text"]) for p in content.get("parts") or [] if "text" in p)
        last = contents[-1] if contents else {}
        after_tool = any("functionResponse" in p for p in last.get("parts") or [])
        tools = []
        for group in body.get("tools") or []:
            for decl in group.get("functionDeclarations") or []:
                params = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
                tools.append(ToolSpec(decl["name"], params))
        return Turn(
            prompt=_prompt_of(user_texts),
            after_tool=after_tool,
            tools=tuple(tools),
            stream=stream,
            model=model or "fake-model",
            user_texts=tuple(user_texts),
        )

    def _candidate(self, parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return candidate

    def _usage(self, tokens: Tokens) -> dict[str, Any]:
        """Gemini's usageMetadata: cached tokens are part of the prompt count, thinking tokens
        apart from the candidates (fields that would be zero are left out, as the API does)."""
        usage = {
            "promptTokenCount": tokens.input,
            "candidatesTokenCount": tokens.output - tokens.reasoning,
            "totalTokenCount": tokens.input + tokens.output,
        }
        if tokens.cached:
            usage["cachedContentTokenCount"] = tokens.cached
        if tokens.reasoning:
            usage["thoughtsTokenCount"] = tokens.reasoning
        return usage

    def answer(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> dict[str, Any]:
        parts = [{"text": text}] if call is None else [_gemini_call(call)]
        return {
            "candidates": [self._candidate(parts, "STOP")],
            "usageMetadata": self._usage(tokens or tokens_for(turn.prompt, text)),
            "modelVersion": turn.model,
            "responseId": _new_id("resp"),
        }

    def stream(
        self, turn: Turn, text: str, call: ToolCall | None, tokens: Tokens | None = None
    ) -> list[tuple[str | None, Any]]:
        tokens = tokens or tokens_for(turn.prompt, text)
        if call is not None:
            return [(None, self.answer(turn, text, call, tokens))]
        pieces = chunks(text)
        events: list[tuple[str | None, Any]] = []
        for i, piece in enumerate(pieces):
            last = i == len(pieces) - 1
            event: dict[str, Any] = {
                "candidates": [self._candidate([{"text": piece}], "STOP" if last else None)],
                "modelVersion": turn.model,
            }
            if last:
                event["usageMetadata"] = self._usage(tokens)
            events.append((None, event))
        return events

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {
            429: "RESOURCE_EXHAUSTED",
            400: "INVALID_ARGUMENT",
            401: "UNAUTHENTICATED",
            403: "PERMISSION_DENIED",
            503: "UNAVAILABLE",
        }.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}

    def models(self) -> dict[str, Any]:
        return {
            "models": [
                {
                    "name": f"models/{m}",
                    "displayName": m,
                    "supportedGenerationMethods": ["generateContent", "countTokens"],
                }
                for m in MODEL_IDS
            ]
        }


def _gemini_call(call: ToolCall) -> dict[str, Any]:
    return {"functionCall": {"name": call.name, "args": call.arguments}}


MODEL_IDS = ("fake-model", "fake-model-mini")
