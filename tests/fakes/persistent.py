"""The persistent modes of the fake CLIs: one process, one JSON message a line each way, a
session per call, as the real ones are documented in ``docs/adr/007-warm-seat-workers.md``.

- ACP (``gemini --acp``, ``qwen --acp``, ``kimi acp`` for kimi-cli and kimi-code);
- codex ``app-server`` (JSON-RPC without the ``jsonrpc`` field; a thread per call);
- pi ``--mode rpc`` (commands with ``type``; ``new_session`` clears the conversation);
- claude ``-p --input-format stream-json --output-format stream-json --verbose`` (``/clear``
  starts a new session; usage and cost in ``result`` add up over the whole process up to
  2.1.210, over the session from 2.1.211 on: option ``version``).

A session keeps the prompts it was given (its history), and every turn is recorded in
``<name>.calls.jsonl`` (``warm``: the protocol; ``prompt``, also as ``stdin``; ``session``,
``session_cwd``; ``read_only``: whether the session's read-only measure was in force) with
``context``: the prompts a model would have seen in that turn. A client that reused a
session without clearing it shows there.

The control file is read again at every prompt, so a test can change the behaviour of the
next call of a worker that is already running. Modes: ``ok``, ``slow`` (option ``delay``),
``hang`` (never answers; a cancel ends it), ``ignore_term`` (never answers, ignores the cancel
and SIGTERM), ``crash`` (dies mid-turn), ``rate_limit`` (option ``times``), ``auth``,
``server_error``, ``connection``, ``empty``, ``echo``, ``write_attempt`` (the model asks to
write: the write runs only if the session is not read-only and the client allows it),
``grandchild``. Options of the persistent mode itself: ``handshake`` = ``hang`` | ``error`` |
``exit`` (the worker never comes up), ``no_warm`` (this version has no persistent mode: the
flag is unknown, like an older release).

Delays and hangs never block the reading of stdin: the loop waits with ``select`` until the
next message or the next due answer, so a cancel always comes through.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time

from engine import (
    EXIT_NOT_EMULATED,
    _append_line,
    _bump_counter,
    _crash,
    _load_control,
    _write_attempts,
    _write_fd,
    expected_answer,
)
from vendor import Tokens, dumps, uuid4

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vendor import Plan, Vendor

WARM_MODES = (
    "ok",
    "slow",
    "hang",
    "ignore_term",
    "crash",
    "rate_limit",
    "auth",
    "server_error",
    "connection",
    "empty",
    "echo",
    "write_attempt",
    "grandchild",
)


class Turn:
    """What the fake model does with one prompt."""

    def __init__(
        self,
        kind: str,
        answer: str = "",
        delay: float = 0.0,
        failure: str = "",
        retry_after: Any = None,
        prompt: str = "",
        options: dict | None = None,
    ) -> None:
        self.kind = kind  # answer | fail | hang | ignore
        self.answer = answer
        self.delay = delay
        self.failure = failure
        self.retry_after = retry_after
        self.prompt = prompt
        self.options = options or {}


class Server:
    """Read messages, answer them; a due answer is a scheduled callback."""

    protocol = "?"

    def __init__(self, name: str, cli: Vendor, plan: Plan, state: str, record: dict) -> None:
        self.name = name  # the executable's name (the state files' prefix)
        self.cli = cli
        self.plan = plan
        self.state = state
        self.base = record
        self.label = cli.label
        self.pending: list[tuple[float, Any]] = []
        self.buffer = b""
        self.sent_ids = 0

    # -- plumbing --------------------------------------------------------------------------

    def send(self, message: dict) -> None:
        try:
            _write_fd(1, dumps(message) + "\n")
        except BrokenPipeError:
            os._exit(1)

    def later(self, delay: float, action: Any) -> None:
        self.pending.append((time.monotonic() + delay, action))

    def run(self) -> None:
        while True:
            now = time.monotonic()
            due = [p for p in self.pending if p[0] <= now]
            for item in due:
                self.pending.remove(item)
                item[1]()
            if due:
                continue
            timeout = min((p[0] for p in self.pending), default=None)
            wait = None if timeout is None else max(0.0, timeout - time.monotonic())
            readable, _, _ = select.select([0], [], [], wait)
            if not readable:
                continue
            try:
                chunk = os.read(0, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.on_eof()
                return
            self.buffer += chunk
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    self.send_parse_error(line)
                    continue
                self.handle(message)

    def on_eof(self) -> None:
        """stdin closed: every real CLI council runs warm then exits."""
        sys.exit(0)

    def send_parse_error(self, line: bytes) -> None:
        _write_fd(2, f"FAKE: {self.label}: not JSON: {line[:80]!r}\n")

    def handle(self, message: dict) -> None:
        raise NotImplementedError

    # -- one turn --------------------------------------------------------------------------

    def decide(
        self,
        prompt: str,
        *,
        cwd: str,
        session: str,
        context: list[str],
        read_only: bool,
        extra: dict | None = None,
    ) -> Turn:
        """Read the control file, record the turn, and say what the model does."""
        mode, options = _load_control(self.state, self.name)
        record = {
            **self.base,
            "warm": self.protocol,
            "prompt": prompt,
            "stdin": prompt,  # it came on stdin, in a message, as a spawned call's does
            "session": session,
            "session_cwd": cwd,
            "context": list(context),
            "read_only": read_only,
            "mode": mode,
            "time": time.time(),
            **(extra or {}),
        }
        if mode not in WARM_MODES:
            _write_fd(
                2, f"FAKE: {self.label}: mode {mode} is not emulated in the persistent mode\n"
            )
            os._exit(EXIT_NOT_EMULATED)
        if mode == "write_attempt":
            # A read-only session refuses the write before it runs.
            # ``rogue``: a CLI that writes although its read-only mode forbids it (only the
            # write confinement around the worker process then stops it).
            refused = read_only and not options.get("rogue")
            record["writes"] = [] if refused else _write_attempts(options.get("target"))
        _append_line(os.path.join(self.state, f"{self.name}.calls.jsonl"), record)
        answer = (
            str(options["answer"]) if "answer" in options else expected_answer(self.label, prompt)
        )
        if mode == "rate_limit":
            times = options.get("times")
            if times is None or _bump_counter(
                os.path.join(self.state, f"{self.name}.count")
            ) <= int(times):
                return Turn(
                    "fail",
                    failure="rate_limit",
                    retry_after=options.get("retry_after"),
                    prompt=prompt,
                    options=options,
                )
            return Turn("answer", answer, prompt=prompt, options=options)
        if mode in ("auth", "server_error", "connection"):
            return Turn("fail", failure=mode, prompt=prompt, options=options)
        if mode == "slow":
            return Turn(
                "answer", answer, float(options.get("delay", 1.0)), prompt=prompt, options=options
            )
        if mode in ("hang", "ignore_term"):
            if mode == "ignore_term":
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
            return Turn("hang" if mode == "hang" else "ignore", prompt=prompt, options=options)
        if mode == "crash":
            done = _crash(self.label)
            _write_fd(2, done.stderr)
            os._exit(1)
        if mode == "empty":
            answer = ""
        elif mode == "echo":
            answer = prompt
        elif mode == "grandchild":
            pid = os.fork()
            if pid == 0:
                os.setsid()
                time.sleep(3600)
                os._exit(0)
            _append_line(os.path.join(self.state, f"{self.name}.grandchildren"), pid)
        return Turn("answer", answer, prompt=prompt, options=options)

    def tokens(self, turn: Turn) -> Tokens:
        return Tokens(turn.prompt, turn.answer, turn.options)

    def run_turn(self, turn: Turn, answer: Any, fail: Any) -> None:
        """Answer now, later, or never (a hang waits for a cancel)."""
        if turn.kind == "answer":
            if turn.delay:
                self.later(turn.delay, lambda: answer(turn))
            else:
                answer(turn)
        elif turn.kind == "fail":
            fail(turn)


def chunks(text: str) -> list[str]:
    """An answer in two pieces, as a streamed answer arrives."""
    cut = len(text) // 2
    return [piece for piece in (text[:cut], text[cut:]) if piece]


# ------------------------------------------------------------------------------------------
# ACP: gemini, qwen, kimi-cli, kimi-code
# ------------------------------------------------------------------------------------------

ACP_AGENTS = {
    "gemini": "gemini-cli",
    "qwen": "qwen-code",
    "kimi-cli": "Kimi Code CLI",
    "kimi-code": "Kimi Code CLI",
}


class AcpSession:
    def __init__(self, cwd: str, mode: str) -> None:
        self.id = uuid4()
        self.cwd = cwd
        self.mode = mode
        self.history: list[str] = []
        self.prompt_id: Any = None  # the session/prompt in flight
        self.turn: Turn | None = None
        self.closed = False


class Acp(Server):
    protocol = "acp"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.variant = self.cli.variant
        self.sessions: dict[str, AcpSession] = {}
        self.initialized = False
        self.permissions: dict[int, Any] = {}  # our request id -> what to do with the answer

    # the vendors' differences

    def initial_mode(self) -> str:
        if self.variant in ("gemini", "qwen"):
            wanted = self.plan.parsed.get("approval_mode", "default")
            if self.variant == "gemini" and os.environ.get("GEMINI_CLI_TRUST_WORKSPACE") != "true":
                # 0.61.0: "Approval mode overridden to "default" because the current folder
                # is not trusted."
                return "default"
            return wanted
        return "default"

    def modes(self) -> list[str]:
        if self.variant == "kimi-cli":
            return ["default"]
        if self.variant == "kimi-code":
            return ["default", "plan"]
        return list(self.cli.grammar.find("--approval-mode").choices)

    def read_only(self, session: AcpSession) -> bool:
        # kimi-cli has only `default`: a write asks the client, who must refuse it.
        return session.mode == "plan"

    # the protocol

    def reply(self, ident: Any, result: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": ident, "result": result})

    def error(self, ident: Any, code: int, message: str, data: Any = None) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": ident, "error": error})

    def update(self, session: AcpSession, update: dict) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": session.id, "update": update},
            }
        )

    def handle(self, message: dict) -> None:
        method = message.get("method")
        ident = message.get("id")
        params = message.get("params") or {}
        if method is None:
            self.on_response(message)
            return
        if method == "initialize":
            self.initialize(ident)
        elif not self.initialized:
            self.error(ident, -32600, "not initialized")
        elif method == "session/new":
            self.new_session(ident, params)
        elif method == "session/set_mode":
            self.set_mode(ident, params)
        elif method == "session/prompt":
            self.prompt(ident, params)
        elif method == "session/cancel":
            self.cancel(params)
        elif method == "session/close" and self.variant == "kimi-code":
            session = self.sessions.pop(str(params.get("sessionId")), None)
            if session is None:
                self.error(ident, -32602, "unknown session")
            else:
                self.reply(ident, {})
        elif ident is not None:
            self.error(ident, -32601, f"Method not found: {method}")

    def initialize(self, ident: Any) -> None:
        _, options = _load_control(self.state, self.name)
        handshake = options.get("handshake")
        if handshake == "hang":
            return
        if handshake == "exit":
            _write_fd(2, f"FAKE: {self.label}: failed to start\n")
            os._exit(1)
        if handshake == "error":
            self.error(ident, -32603, "Internal error", {"details": "failed to load settings"})
            return
        self.initialized = True
        capabilities: dict[str, Any] = {"loadSession": True}
        if self.variant == "kimi-code":
            capabilities["sessionCapabilities"] = {"close": {}}
        self.reply(
            ident,
            {
                "protocolVersion": 1,
                "agentInfo": {"name": ACP_AGENTS[self.variant], "version": self.cli.version},
                "agentCapabilities": capabilities,
                "authMethods": [],
            },
        )

    def new_session(self, ident: Any, params: dict) -> None:
        if self.variant == "kimi-cli" and not _kimi_token(os.environ.get("HOME", "")):
            self.error(ident, -32000, "Authentication required", {"authMethods": []})
            return
        session = AcpSession(str(params.get("cwd")), self.initial_mode())
        self.sessions[session.id] = session
        available = [{"id": m, "name": m} for m in self.modes()]
        if self.variant == "kimi-code":
            options = [
                {
                    "type": "select",
                    "id": "mode",
                    "currentValue": session.mode,
                    "options": [{"value": m} for m in self.modes()],
                }
            ]
            self.reply(ident, {"sessionId": session.id, "configOptions": options})
        else:
            self.reply(
                ident,
                {
                    "sessionId": session.id,
                    "modes": {"currentModeId": session.mode, "availableModes": available},
                },
            )

    def set_mode(self, ident: Any, params: dict) -> None:
        session = self.sessions.get(str(params.get("sessionId")))
        mode = params.get("modeId")
        if session is None or mode not in self.modes():
            self.error(ident, -32602, f"Invalid params: mode {mode!r}")
            return
        session.mode = str(mode)
        self.update(session, {"sessionUpdate": "current_mode_update", "currentModeId": mode})
        self.reply(ident, {})

    def prompt(self, ident: Any, params: dict) -> None:
        session = self.sessions.get(str(params.get("sessionId")))
        if session is None:
            self.error(ident, -32602, "unknown session")
            return
        text = "".join(
            str(block.get("text", ""))
            for block in params.get("prompt") or []
            if isinstance(block, dict) and block.get("type") == "text"
        )
        session.history.append(text)
        session.prompt_id = ident
        mode, options = _load_control(self.state, self.name)
        if mode == "write_attempt" and not self.read_only(session):
            # A tool call that writes: outside a read-only mode, the agent asks the client.
            self.sent_ids += 1
            request = self.sent_ids
            self.permissions[request] = (session, text, options)
            self.send(
                {
                    "jsonrpc": "2.0",
                    "id": request,
                    "method": "session/request_permission",
                    "params": {
                        "sessionId": session.id,
                        "toolCall": {"toolCallId": uuid4(), "title": "WriteFile: fake-wrote.txt"},
                        "options": [
                            {"kind": "allow_once", "name": "Approve once", "optionId": "approve"},
                            {
                                "kind": "allow_always",
                                "name": "Approve for this session",
                                "optionId": "approve_for_session",
                            },
                            {"kind": "reject_once", "name": "Reject", "optionId": "reject"},
                        ],
                    },
                }
            )
            return
        self.start_turn(session, text, {})

    def on_response(self, message: dict) -> None:
        waiting = self.permissions.pop(message.get("id"), None)
        if waiting is None:
            return
        session, text, _options = waiting
        outcome = (message.get("result") or {}).get("outcome") or {}
        allowed = outcome.get("outcome") == "selected" and str(
            outcome.get("optionId", "")
        ).startswith("approve")
        extra = {"permission": outcome.get("optionId") or outcome.get("outcome")}
        self.start_turn(session, text, extra, allowed=allowed)

    def start_turn(
        self, session: AcpSession, text: str, extra: dict, allowed: bool = False
    ) -> None:
        read_only = self.read_only(session) or not allowed
        turn = self.decide(
            text,
            cwd=session.cwd,
            session=session.id,
            context=session.history,
            read_only=read_only,
            extra=extra,
        )
        session.turn = turn
        if turn.kind in ("hang", "ignore"):
            return
        self.run_turn(turn, lambda t: self.answer(session, t), lambda t: self.fail(session, t))

    def answer(self, session: AcpSession, turn: Turn) -> None:
        if session.prompt_id is None:
            return  # cancelled meanwhile
        used = self.tokens(turn)
        for piece in chunks(turn.answer):
            update: dict[str, Any] = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": piece},
            }
            self.update(session, update)
        result: dict[str, Any] = {"stopReason": "end_turn"}
        if self.variant == "gemini":
            # 0.61.0: the prompt counts, and the candidates without the thoughts.
            counts = {"input_tokens": used.input, "output_tokens": used.output - used.reasoning}
            result["_meta"] = {
                "quota": {
                    "token_count": counts,
                    "model_usage": [{"model": self.plan.model, "token_count": counts}],
                }
            }
        elif self.variant == "qwen":
            self.update(
                session,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "text", "text": ""},
                    "_meta": {
                        "usage": {
                            "inputTokens": used.input,
                            "outputTokens": used.output,
                            "totalTokens": used.input + used.output,
                            "thoughtTokens": used.reasoning,
                            "cachedReadTokens": used.cached,
                        }
                    },
                },
            )
        self.finish(session, result)

    def finish(self, session: AcpSession, result: dict) -> None:
        ident, session.prompt_id, session.turn = session.prompt_id, None, None
        self.reply(ident, result)

    def fail(self, session: AcpSession, turn: Turn) -> None:
        ident = session.prompt_id
        kind = turn.failure
        if self.variant.startswith("kimi") and (
            self.variant == "kimi-cli" or kind in ("rate_limit", "server_error", "connection")
        ):
            # Both kimis end a turn the model refused as an empty success (kimi-code says
            # 401 as an error).
            self.finish(session, {"stopReason": "end_turn"})
            return
        session.prompt_id, session.turn = None, None
        status = {"rate_limit": 429, "server_error": 500, "auth": 401}.get(kind)
        api = {
            "rate_limit": "Resource has been exhausted (e.g. check quota).",
            "server_error": "Internal error encountered.",
            "auth": "API key not valid. Please pass a valid API key.",
            "connection": "fetch failed sending request",
        }[kind]
        if self.variant == "gemini":
            if status is None:
                self.error(ident, -32603, api)
            else:
                message = dumps({"error": {"code": status, "message": api}})
                self.error(ident, status, self.cli._retry(message, turn.retry_after))
        elif self.variant == "qwen":
            details = f"{status} {api}" if status else "Connection error."
            self.error(ident, -32603, "Internal error", {"details": details})
        else:  # kimi-code's 401
            self.error(ident, -32000, f"Authentication required: 401 {api}")

    def cancel(self, params: dict) -> None:
        session = self.sessions.get(str(params.get("sessionId")))
        if session is None or session.prompt_id is None:
            return
        if session.turn is not None and session.turn.kind == "ignore":
            return
        if self.variant == "qwen" and self.cli.cancel_is_error():
            # 0.15.10 answers a cancelled prompt with an error, not stopReason "cancelled".
            ident, session.prompt_id, session.turn = session.prompt_id, None, None
            self.error(ident, -32603, "Internal error", {"details": "Request was aborted."})
        else:
            self.finish(session, {"stopReason": "cancelled"})


def _kimi_token(home: str) -> bool:
    path = os.path.join(home, ".kimi", "credentials", "kimi-code.json")
    try:
        with open(path, encoding="utf-8") as handle:
            return bool(json.load(handle).get("access_token"))
    except (OSError, ValueError, AttributeError):
        return False


# ------------------------------------------------------------------------------------------
# codex app-server
# ------------------------------------------------------------------------------------------


class CodexApp(Server):
    protocol = "codex-app"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.initialized = False
        self.threads: dict[str, dict[str, Any]] = {}
        self.turns: dict[str, dict[str, Any]] = {}  # turn id -> thread, request, turn

    def reply(self, ident: Any, result: Any) -> None:
        self.send({"id": ident, "result": result})

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def handle(self, message: dict) -> None:
        method = message.get("method")
        ident = message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            _, options = _load_control(self.state, self.name)
            if options.get("handshake") == "hang":
                return
            if options.get("handshake") == "exit":
                os._exit(1)
            client = params.get("clientInfo") or {}
            self.reply(
                ident,
                {
                    "userAgent": f"{client.get('name')}/{self.cli.version} (Fake OS; x86_64) "
                    f"unknown ({client.get('name')}; {client.get('version')})",
                    "codexHome": os.path.join(os.environ.get("HOME", ""), ".codex"),
                },
            )
        elif method == "initialized":
            self.initialized = True
        elif not self.initialized:
            if ident is not None:
                self.error(ident, -32600, "Not initialized")
        elif method == "thread/start":
            thread = {
                "id": uuid4(),
                "cwd": params.get("cwd"),
                "sandbox": params.get("sandbox"),
                "approvalPolicy": params.get("approvalPolicy"),
                "history": [],
            }
            self.threads[thread["id"]] = thread
            self.reply(
                ident,
                {
                    "thread": {
                        "id": thread["id"],
                        "cwd": thread["cwd"],
                        "ephemeral": bool(params.get("ephemeral")),
                    },
                    "model": self.plan.model,
                },
            )
        elif method == "turn/start":
            self.turn_start(ident, params)
        elif method == "turn/interrupt":
            self.interrupt(ident, params)
        elif ident is not None:
            self.error(ident, -32601, f"unknown method {method}")

    def turn_start(self, ident: Any, params: dict) -> None:
        thread = self.threads.get(str(params.get("threadId")))
        if thread is None:
            self.error(ident, -32602, "thread not found")
            return
        text = "".join(
            str(i.get("text", ""))
            for i in params.get("input") or []
            if isinstance(i, dict) and i.get("type") == "text"
        )
        thread["history"].append(text)
        read_only = thread["sandbox"] == "read-only" and thread["approvalPolicy"] == "never"
        turn = self.decide(
            text,
            cwd=str(thread["cwd"]),
            session=thread["id"],
            context=thread["history"],
            read_only=read_only,
        )
        turn_id = uuid4()
        self.turns[turn_id] = {"thread": thread["id"], "turn": turn}
        self.reply(ident, {"turn": {"id": turn_id, "status": "inProgress"}})
        self.notify("turn/started", {"threadId": thread["id"], "turn": {"id": turn_id}})
        if turn.kind in ("hang", "ignore"):
            return
        self.run_turn(turn, lambda t: self.answer(turn_id, t), lambda t: self.fail(turn_id, t))

    def completed(self, turn_id: str, status: str, error: Any = None, items: Any = ()) -> None:
        entry = self.turns.pop(turn_id, None)
        if entry is None:
            return
        self.notify(
            "turn/completed",
            {
                "threadId": entry["thread"],
                "turn": {"id": turn_id, "status": status, "error": error, "items": list(items)},
            },
        )

    def answer(self, turn_id: str, turn: Turn) -> None:
        entry = self.turns.get(turn_id)
        if entry is None:
            return
        thread = entry["thread"]
        for piece in chunks(turn.answer):
            self.notify(
                "item/agentMessage/delta", {"threadId": thread, "turnId": turn_id, "delta": piece}
            )
        item = {"type": "agentMessage", "id": uuid4(), "text": turn.answer}
        self.notify("item/completed", {"threadId": thread, "turnId": turn_id, "item": item})
        used = self.tokens(turn)
        counts = {
            "totalTokens": used.input + used.output,
            "inputTokens": used.input,
            "cachedInputTokens": used.cached,
            "outputTokens": used.output,
            "reasoningOutputTokens": used.reasoning,
        }
        self.notify(
            "thread/tokenUsage/updated",
            {
                "threadId": thread,
                "turnId": turn_id,
                "tokenUsage": {"total": counts, "last": counts},
            },
        )
        self.completed(turn_id, "completed", items=[item] if turn.answer else [])

    def fail(self, turn_id: str, turn: Turn) -> None:
        info = {
            "rate_limit": "responseTooManyFailedAttempts",
            "server_error": "internalServerError",
            "auth": {"httpConnectionFailed": {"httpStatusCode": 401}},
            "connection": {"httpConnectionFailed": {"httpStatusCode": None}},
        }[turn.failure]
        message = self.cli._retry(self.cli.failures[turn.failure], turn.retry_after)
        error = {"message": message, "codexErrorInfo": info, "additionalDetails": None}
        entry = self.turns.get(turn_id)
        if entry is not None:
            self.notify(
                "error",
                {
                    "error": error,
                    "willRetry": False,
                    "threadId": entry["thread"],
                    "turnId": turn_id,
                },
            )
        self.completed(turn_id, "failed", error)

    def interrupt(self, ident: Any, params: dict) -> None:
        turn_id = str(params.get("turnId"))
        entry = self.turns.get(turn_id)
        if entry is None or entry["thread"] != params.get("threadId"):
            self.error(ident, -32602, "no such turn")
            return
        if entry["turn"].kind == "ignore":
            return
        self.reply(ident, {})
        self.completed(turn_id, "interrupted")


# ------------------------------------------------------------------------------------------
# pi --mode rpc
# ------------------------------------------------------------------------------------------


class PiRpc(Server):
    protocol = "pi-rpc"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.session = uuid4()
        self.history: list[str] = []
        self.turn: Turn | None = None

    def response(self, message: dict, command: str, success: bool = True, **more: Any) -> None:
        body: dict[str, Any] = {"type": "response", "command": command, "success": success, **more}
        if "id" in message:
            body = {"id": message["id"], **body}
        self.send(body)

    def read_only(self) -> bool:
        if self.plan.parsed.get("no_tools"):
            return True  # lean: no tool at all, none that writes
        tools = self.plan.parsed.get("tools")
        return tools is not None and set(tools.split(",")) <= {"read", "grep", "find", "ls"}

    def handle(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "get_state":
            _, options = _load_control(self.state, self.name)
            if options.get("handshake") == "hang":
                return
            if options.get("handshake") == "exit":
                os._exit(1)
            self.response(
                message,
                "get_state",
                data={
                    "model": {"id": self.plan.model},
                    "sessionId": self.session,
                    "isStreaming": self.turn is not None,
                    "messageCount": len(self.history),
                },
            )
        elif kind == "new_session":
            self.session, self.history = uuid4(), []
            self.response(message, "new_session", data={"cancelled": False})
        elif kind == "prompt":
            if self.turn is not None:
                self.response(message, "prompt", False, error="Agent is already processing")
                return
            text = str(message.get("message", ""))
            self.history.append(text)
            self.response(message, "prompt")
            self.send({"type": "agent_start"})
            turn = self.decide(
                text,
                cwd=os.getcwd(),
                session=self.session,
                context=self.history,
                read_only=self.read_only(),
            )
            self.turn = turn
            if turn.kind in ("hang", "ignore"):
                return
            self.run_turn(turn, self.answer, self.fail)
        elif kind == "abort":
            if self.turn is not None and self.turn.kind == "ignore":
                return
            if self.turn is not None:
                self.pending.clear()
                self.end("aborted", "", "Request was aborted.")
            self.response(message, "abort")
        else:
            self.response(message, str(kind), False, error=f"Unknown command: {kind}")

    def end(self, stop: str, text: str, error: str | None = None, turn: Turn | None = None) -> None:
        used = self.tokens(turn) if turn is not None else Tokens("", "", {})
        usage = {
            "input": used.input - used.cached,
            "output": used.output,
            "cacheRead": used.cached,
            "cacheWrite": 0,
            "totalTokens": used.input + used.output,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }
        if turn is None:
            usage = {k: (0 if k != "cost" else v) for k, v in usage.items()}
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}] if text else [],
            "usage": usage,
            "stopReason": stop,
        }
        if error:
            assistant["errorMessage"] = error
        self.send({"type": "message_end", "message": assistant})
        user = {"role": "user", "content": [{"type": "text", "text": self.history[-1]}]}
        self.send({"type": "agent_end", "messages": [user, assistant]})
        self.turn = None

    def answer(self, turn: Turn) -> None:
        self.end("stop", turn.answer, turn=turn)

    def fail(self, turn: Turn) -> None:
        self.end("error", "", self.cli._retry(self.cli.failures[turn.failure], turn.retry_after))


# ------------------------------------------------------------------------------------------
# claude stream-json
# ------------------------------------------------------------------------------------------


class ClaudeStream(Server):
    protocol = "claude-stream"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.session = uuid4()
        self.history: list[str] = []
        self.turn: Turn | None = None
        self.total = {"in": 0, "out": 0, "cached": 0, "cost": 0.0}
        # From 2.1.211 `modelUsage` and `total_cost_usd` count per session (`/clear` resets
        # them); up to 2.1.210 over the process.
        numbers = self.cli.version.split(".")
        version = tuple(int(n) for n in numbers) if all(n.isdigit() for n in numbers) else ()
        self.per_session = version >= (2, 1, 211)

    def read_only(self) -> bool:
        tools = self.plan.parsed.get("tools")
        if tools is None:
            return False  # every tool, the write ones included
        # `--tools ""` (lean) is no tool at all: nothing can write
        listed = set(",".join(tools).split(",")) - {""}
        return listed <= {"Read", "Grep", "Glob"}

    def handle(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "control_request":
            request = message.get("request") or {}
            subtype = request.get("subtype")
            ident = message.get("request_id")
            if subtype == "initialize":
                _, options = _load_control(self.state, self.name)
                if options.get("handshake") == "hang":
                    return
                if options.get("handshake") == "exit":
                    os._exit(1)
                self.control(ident, {"commands": [], "output_style": "default"})
            elif subtype == "interrupt":
                self.control(ident, {})
                if self.turn is not None and self.turn.kind != "ignore":
                    self.pending.clear()
                    self.result(error=True, subtype="error_during_execution", text="")
            else:
                self.send(
                    {
                        "type": "control_response",
                        "response": {
                            "subtype": "error",
                            "request_id": ident,
                            "error": f"Unsupported control request subtype: {subtype}",
                        },
                    }
                )
        elif kind == "user":
            content = (message.get("message") or {}).get("content") or []
            text = "".join(
                str(b.get("text", ""))
                for b in content
                if isinstance(b, dict) and b.get("type") == "text"
            )
            self.user(text)

    def control(self, ident: Any, response: dict) -> None:
        self.send(
            {
                "type": "control_response",
                "response": {"subtype": "success", "request_id": ident, "response": response},
            }
        )

    def init(self) -> None:
        self.send(
            {
                "type": "system",
                "subtype": "init",
                "session_id": self.session,
                "model": self.plan.model,
                "claude_code_version": self.cli.version,
                "tools": sorted(set(",".join(self.plan.parsed.get("tools") or []).split(","))),
            }
        )

    def user(self, text: str) -> None:
        if text.strip() == "/clear":
            self.session, self.history = uuid4(), []
            if self.per_session:
                self.total = {"in": 0, "out": 0, "cached": 0, "cost": 0.0}
            self.init()
            self.result(text="", turns=0)
            return
        self.init()
        self.history.append(text)
        turn = self.decide(
            text,
            cwd=os.getcwd(),
            session=self.session,
            context=self.history,
            read_only=self.read_only(),
        )
        self.turn = turn
        if turn.kind in ("hang", "ignore"):
            return
        self.run_turn(turn, self.answer, self.fail)

    def result(
        self,
        *,
        text: str,
        error: bool = False,
        status: int | None = None,
        subtype: str = "success",
        turns: int = 1,
        used: Tokens | None = None,
        cost: float = 0.0,
    ) -> None:
        """One turn's result. ``usage`` is the turn's; ``modelUsage`` and ``total_cost_usd``
        add up every turn of the process (to 2.1.210) or of the session (2.1.211 on), as its
        spawned calls' do of one call."""
        if used is not None:
            self.total["in"] += used.input - used.cached
            self.total["cached"] += used.cached
            self.total["out"] += used.output
            self.total["cost"] += cost
        usage = {
            "input_tokens": (used.input - used.cached) if used else 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": used.cached if used else 0,
            "output_tokens": used.output if used else 0,
        }
        model_usage = (
            {
                self.plan.model: {
                    "inputTokens": self.total["in"],
                    "outputTokens": self.total["out"],
                    "cacheReadInputTokens": self.total["cached"],
                    "cacheCreationInputTokens": 0,
                    "costUSD": self.total["cost"],
                }
            }
            if self.total["out"]
            else {}
        )
        self.send(
            {
                "type": "result",
                "subtype": subtype,
                "is_error": error,
                "api_error_status": status,
                "num_turns": turns,
                "result": text,
                "session_id": self.session,
                "total_cost_usd": round(self.total["cost"], 6),
                "usage": usage,
                "modelUsage": model_usage,
            }
        )
        self.turn = None

    def answer(self, turn: Turn) -> None:
        self.send(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "model": self.plan.model,
                    "content": [{"type": "text", "text": turn.answer}],
                },
                "session_id": self.session,
            }
        )
        cost = float(turn.options.get("cost_usd", 0.0012))
        self.result(text=turn.answer, used=self.tokens(turn), cost=cost)

    def fail(self, turn: Turn) -> None:
        text, status = {
            "rate_limit": ("API Error: Request rejected (429) · Rate limited", 429),
            "server_error": ("API Error: 500 Internal server error", 500),
            "auth": ("Invalid API key · Please run /login", 401),
            "connection": ("API Error: Unable to connect to API (ECONNREFUSED)", None),
        }[turn.failure]
        self.result(text=self.cli._retry(text, turn.retry_after), error=True, status=status)


SERVERS = {"acp": Acp, "codex-app": CodexApp, "pi-rpc": PiRpc, "claude-stream": ClaudeStream}


def serve(name: str, cli: Vendor, plan: Plan, state: str, record: dict) -> None:
    """Run the persistent mode ``plan.warm`` until stdin closes."""
    SERVERS[plan.warm](name, cli, plan, state, record).run()
    sys.exit(0)
