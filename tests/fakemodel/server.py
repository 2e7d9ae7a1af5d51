"""The fake model server: one HTTP server on 127.0.0.1 that speaks every vendor's API.

It runs in a background thread of the test process (standard library only), on a free port,
and logs every request. A base URL may carry the client's name, `http://127.0.0.1:PORT/c/qwen`,
so the log and the per-client rules know who asked; the rest of the path picks the dialect:

    POST .../chat/completions                          OpenAI Chat Completions (plain or SSE)
    POST .../responses                                 OpenAI Responses (SSE)
    POST .../messages, .../messages/count_tokens       Anthropic Messages (plain or SSE)
    POST .../models/M:generateContent                  Gemini
    POST .../models/M:streamGenerateContent?alt=sse    Gemini, streamed
    POST .../models/M:countTokens                      Gemini
    GET  .../models, .../models/M                      the model list of whichever API asks

What a request gets is decided by `behaviour.py` (markers in the prompt, rules per client) and
`replies.py` (the answer itself).
"""

from __future__ import annotations

import json
import os
import re
import select
import socket
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import psutil

from council.runner.environment import CALL_MARKER
from fakemodel.behaviour import Behaviour, Rule, parse_markers
from fakemodel.dialects import (
    MODEL_IDS,
    AnthropicMessages,
    Gemini,
    OpenAIChat,
    OpenAIResponses,
    Tokens,
    ToolCall,
    Turn,
    tokens_for,
)
from fakemodel.replies import AFTER_TOOL_REPLY, digest, reply_for
from fakemodel.writes import named_call, shell_call, write_call

_CLIENT_PREFIX = re.compile(r"^/c/([\w.-]+)(/.*)?$")
_GEMINI_CALL = re.compile(r"/models/([^/:]+):(generateContent|streamGenerateContent|countTokens)$")
_WAIT_STEP_S = 0.05


@dataclass
class LoggedRequest:
    """One request as the server saw it, and what it answered."""

    client: str | None
    method: str
    path: str
    dialect: str
    headers: dict[str, str]
    body: Any
    body_bytes: int = 0  # the request body's size on the wire (after de-chunking)
    prompt: str = ""
    model: str = ""
    stream: bool = False
    after_tool: bool = False
    tools: tuple[str, ...] = ()
    status: int = 200
    outcome: str = "answer"  # answer, tool-call, error, hang, stall, list, count
    tool_call: ToolCall | None = None
    caller: str | None = None  # which council call connected (fail_calls rules only)
    usage: Tokens | None = None  # what the answer reported it used (None: no answer sent)
    at: float = field(default_factory=time.time)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A CLI killed mid-request (the hang and timeout tests) resets its connection: normal.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeModelServer:
    """Start with `start()` (or as a context manager); `base_url(client)` for each CLI."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in ("127.0.0.1", "::1", "localhost"):
            raise ValueError("the fake model server listens on the loopback interface only")
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._counts: dict[tuple[str | None, str], int] = {}
        self._callers: dict[tuple[str | None, str], list[str | None]] = {}
        self.rules: list[Rule] = []
        self.log: list[LoggedRequest] = []
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = _QuietServer((host, port), handler)
        self._thread: threading.Thread | None = None

    # -- life cycle --------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    def url(self, client: str | None = None) -> str:
        root = f"http://127.0.0.1:{self.port}"
        return f"{root}/c/{client}" if client else root

    def start(self) -> FakeModelServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        # Hanging and stalled answers wait on this event: release them first.
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- rules and log -----------------------------------------------------------------------

    def add_rule(
        self, *, client: str | None = None, contains: str | None = None, **behaviour: Any
    ) -> Rule:
        rule = Rule(Behaviour(**behaviour), client=client, contains=contains)
        with self._lock:
            self.rules.append(rule)
        return rule

    def clear(self) -> None:
        with self._lock:
            self.rules.clear()
            self.log.clear()
            self._counts.clear()
            self._callers.clear()

    def requests(
        self, client: str | None = None, *, answered: bool = False, prompt_has: str = ""
    ) -> list[LoggedRequest]:
        """Logged model calls (not model lists or token counts), optionally only those of one
        client, answered with 200, or whose prompt contains `prompt_has`."""
        with self._lock:
            found = [
                r
                for r in self.log
                if r.outcome not in ("list", "count", "websocket")
                and (client is None or r.client == client)
                and prompt_has in r.prompt
            ]
        return [r for r in found if r.status == 200] if answered else found

    def prompts(self, client: str | None = None) -> list[str]:
        return [r.prompt for r in self.requests(client)]

    # -- deciding ----------------------------------------------------------------------------

    def behaviour_for(self, client: str | None, prompt: str) -> Behaviour:
        behaviour = Behaviour()
        with self._lock:
            rules = list(self.rules)
        for rule in rules:
            if rule.matches(client, prompt):
                behaviour = behaviour.merged(rule.behaviour)
        return behaviour.merged(parse_markers(prompt))

    def should_fail(
        self, client: str | None, prompt: str, behaviour: Behaviour, caller: str | None
    ) -> int | None:
        """The status to fail this request with. `fail_first` counts requests and `fail_calls`
        council calls (by the caller's marker), both per client and prompt."""
        status = behaviour.failing_status
        if status is None:
            return None
        key = (client, digest(prompt))
        with self._lock:
            if behaviour.fail_calls is not None:
                seen = self._callers.setdefault(key, [])
                if caller is None:
                    # Unidentified (its process could not be read in time): one council call's
                    # attempts are sequential, so it belongs to the latest call, or the first.
                    index = max(len(seen) - 1, 0)
                else:
                    if caller not in seen:
                        seen.append(caller)
                    index = seen.index(caller)
                return status if index < behaviour.fail_calls else None
            if behaviour.fail_first is not None:
                self._counts[key] = self._counts.get(key, 0) + 1
                return status if self._counts[key] <= behaviour.fail_first else None
        return status

    def scripted_call(
        self, client: str | None, turn: Turn, steps: tuple[tuple[str, str] | str, ...]
    ) -> ToolCall | None:
        """The first of a rule's `tool_calls` (or `shell_commands`) this client has not been
        answered with yet, when the request offers its tool."""
        key = (client, f"scripted {steps!r}")
        with self._lock:
            done = self._counts.get(key, 0)
            call = None
            if done < len(steps):
                step = steps[done]
                if isinstance(step, str):
                    call = shell_call(turn.tools, step)
                else:
                    call = named_call(turn.tools, *step)
            if call is not None:
                self._counts[key] = done + 1
        return call

    def record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self.log.append(entry)

    def wait(self, seconds: float | None, conn: socket.socket) -> bool:
        """Sleep up to `seconds` (None: forever); False when the client left or we are stopping."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while not self._stopping.is_set():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return True
            step = _WAIT_STEP_S if remaining is None else min(_WAIT_STEP_S, remaining)
            if _client_left(conn, step):
                return False
        return False


def _client_left(conn: socket.socket, timeout: float) -> bool:
    try:
        readable, _, _ = select.select([conn], [], [], timeout)
        if not readable:
            return False
        return conn.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


class _Handler(BaseHTTPRequestHandler):
    fake: FakeModelServer
    body_bytes = 0  # of the request being handled
    protocol_version = "HTTP/1.1"
    server_version = "FakeModel/1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request log is the server's `log`; stderr stays quiet

    # -- plumbing ----------------------------------------------------------------------------

    def _split(self) -> tuple[str | None, str, str]:
        path, _, query = self.path.partition("?")
        client = None
        if match := _CLIENT_PREFIX.match(path):
            client, path = match.group(1), match.group(2) or "/"
        return client, path.rstrip("/") or "/", query

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw and self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        self.body_bytes = len(raw)
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def _read_chunked(self) -> bytes:
        data = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return data
            data += self.rfile.read(size)
            self.rfile.readline()

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_event(self, name: str | None, data: Any) -> None:
        text = data if isinstance(data, str) else json.dumps(data)
        frame = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
        raw = frame.encode()
        self.wfile.write(f"{len(raw):x}\r\n".encode() + raw + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _caller_marker(self) -> str | None:
        """Which council call the local process on the other end of this connection belongs
        to: its COUNCIL_CALL_ID, or else its session (every call starts a new one). kimi-cli
        renames its process, which blanks /proc/PID/environ, so the marker is not always
        readable."""
        port = self.client_address[1]
        own_port = self.server.server_address[1]
        # On a loaded machine the socket's owner is not always listed at the first look.
        for _ in range(20):
            try:
                for conn in psutil.net_connections(kind="tcp"):
                    if (
                        conn.pid
                        and conn.laddr
                        and conn.raddr
                        and conn.laddr.port == port
                        and conn.raddr.port == own_port
                    ):
                        marker = psutil.Process(conn.pid).environ().get(CALL_MARKER)
                        return marker or f"session {os.getsid(conn.pid)}"
            except (psutil.Error, OSError):
                pass
            time.sleep(0.025)
        return None

    # -- routes ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        client, path, _ = self._split()
        dialect: Any
        if "/v1beta" in path or "/v1alpha" in path:
            dialect = Gemini()
        elif self.headers.get("anthropic-version"):
            dialect = AnthropicMessages()
        else:
            dialect = OpenAIChat()
        entry = LoggedRequest(client, "GET", path, dialect.name, dict(self.headers), None)
        entry.outcome = "list"
        self.fake.record(entry)
        if self.headers.get("Upgrade", "").lower() == "websocket":
            # HTTP only: 426 is what makes a client that tries a WebSocket first (codex's
            # built-in provider) fall back to HTTPS at once, instead of reconnecting 5 times.
            entry.status, entry.outcome = 426, "websocket"
            self._send_json(426, {"error": {"message": "no WebSocket here", "code": 426}})
            return
        if path.endswith("/models"):
            self._send_json(200, dialect.models())
            return
        model = path.rsplit("/", 1)[-1]
        if "/models/" in path and model in MODEL_IDS:
            listed = dialect.models()
            items = listed.get("data") or listed.get("models") or []
            found = next(i for i in items if str(i.get("id", i.get("name"))).endswith(model))
            self._send_json(200, found)
            return
        entry.status = 404
        self._send_json(404, {"error": {"message": f"no route for GET {path}", "code": 404}})

    def do_POST(self) -> None:
        client, path, _ = self._split()
        body = self._body()
        dialect: Any
        turn: Turn
        if path.endswith("/chat/completions"):
            dialect = OpenAIChat()
            turn = dialect.read(body)
        elif path.endswith("/responses"):
            dialect = OpenAIResponses()
            turn = dialect.read(body)
        elif path.endswith("/messages/count_tokens"):
            self._count(client, path, body, AnthropicMessages().read(body))
            return
        elif path.endswith("/messages"):
            dialect = AnthropicMessages()
            turn = dialect.read(body)
        elif match := _GEMINI_CALL.search(path):
            dialect = Gemini()
            turn = dialect.read(
                body, stream=match.group(2) == "streamGenerateContent", model=match.group(1)
            )
            if match.group(2) == "countTokens":
                self._count(client, path, body, turn)
                return
        else:
            self.fake.record(LoggedRequest(client, "POST", path, "?", dict(self.headers), body))
            self._send_json(404, {"error": {"message": f"no route for POST {path}", "code": 404}})
            return
        self._answer(client, path, body, dialect, turn)

    def _count(self, client: str | None, path: str, body: Any, turn: Turn) -> None:
        entry = LoggedRequest(client, "POST", path, "count", dict(self.headers), body)
        entry.outcome, entry.body_bytes = "count", self.body_bytes
        self.fake.record(entry)
        tokens = max(1, len(json.dumps(body)) // 4)
        self._send_json(200, {"input_tokens": tokens, "totalTokens": tokens})

    def _answer(self, client: str | None, path: str, body: Any, dialect: Any, turn: Turn) -> None:
        fake = self.fake
        behaviour = fake.behaviour_for(client, turn.prompt)
        entry = LoggedRequest(
            client,
            "POST",
            path,
            dialect.name,
            dict(self.headers),
            body,
            body_bytes=self.body_bytes,
            prompt=turn.prompt,
            model=turn.model,
            stream=turn.stream,
            after_tool=turn.after_tool,
            tools=tuple(t.name for t in turn.tools),
        )
        fake.record(entry)
        if behaviour.delay_s and not fake.wait(behaviour.delay_s, self.connection):
            entry.outcome = "gone"
            self.close_connection = True
            return
        if behaviour.hang:
            entry.outcome = "hang"
            fake.wait(None, self.connection)
            self.close_connection = True
            return
        key = behaviour.key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            # What the real API answers a request without the key it expects.
            entry.status, entry.outcome = 401, "error"
            self._send_json(401, dialect.error(401, "fake model: 401 Unauthorized"))
            return
        caller = self._caller_marker() if behaviour.fail_calls is not None else None
        entry.caller = caller
        if status := fake.should_fail(client, turn.prompt, behaviour, caller):
            entry.status, entry.outcome = status, "error"
            headers = {}
            if status in (429, 503) and behaviour.retry_after_s is not None:
                headers["Retry-After"] = f"{behaviour.retry_after_s:g}"
            phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
            message = f"fake model: {status} {phrase}".strip()
            self._send_json(status, dialect.error(status, message), headers)
            return

        if behaviour.served_model:
            turn = replace(turn, model=behaviour.served_model)  # the log keeps the asked one
        call = None
        if behaviour.write_path and not turn.after_tool:
            call = write_call(turn.tools, behaviour.write_path)
        elif behaviour.shell_command and not turn.after_tool:
            call = shell_call(turn.tools, behaviour.shell_command)
        elif behaviour.tool_calls or behaviour.shell_commands:
            steps = behaviour.tool_calls or behaviour.shell_commands
            call = fake.scripted_call(client, turn, steps)
        text = AFTER_TOOL_REPLY if turn.after_tool else reply_for(turn.prompt, behaviour)
        tokens = tokens_for(turn.prompt, text, behaviour.cached_tokens, behaviour.reasoning_tokens)
        entry.tool_call = call
        entry.outcome = "tool-call" if call else "answer"
        try:
            if not turn.stream:
                if behaviour.stall:
                    entry.outcome = "stall"
                    fake.wait(None, self.connection)
                    self.close_connection = True
                    return
                entry.usage = tokens  # before the client can read it and exit
                self._send_json(200, dialect.answer(turn, text, call, tokens))
                return
            events = dialect.stream(turn, text, call, tokens)
            self._start_stream()
            if behaviour.stall:
                entry.outcome = "stall"
                self._send_event(*events[0])
                fake.wait(None, self.connection)
                self.close_connection = True
                return
            entry.usage = tokens
            for name, data in events:
                self._send_event(name, data)
            self._end_stream()
        except OSError:
            entry.usage = None
            self.close_connection = True  # the client went away mid-answer
