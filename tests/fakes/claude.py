"""Fake ``claude`` (Claude Code 2.1.197, Node, commander): ``-p`` is print (headless) mode.

As in ``docs/spec/clis.md``: the prompt is the positional or stdin, ``--output-format json``
gives one result object (``result``, ``is_error``, ``api_error_status``, ``usage``),
``stream-json`` needs ``--verbose``, and API errors go to stdout. commander's variadic options
(``--tools`` and the like) swallow the words after them, prompt included.
"""

from __future__ import annotations

from engine import Done
from grammar import Grammar, Opt
from vendor import Plan, Vendor, dumps, jsonl, uuid4

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Claude(Vendor):
    """Claude Code (Node, commander): ``-p`` is print (headless) mode; errors go to stdout."""

    label = "claude"
    variant = "claude"
    default_version = "2.1.197"
    grammar = Grammar(
        "commander",
        "claude",
        "Usage: claude [options] [command] [prompt]",
        [
            Opt(("-v", "--version")),
            Opt(("-h", "--help")),
            Opt(("-p", "--print")),
            Opt(("--output-format",), "format", ("text", "json", "stream-json")),
            Opt(("--input-format",), "format", ("text", "stream-json")),
            Opt(("--no-session-persistence",)),
            Opt(("--tools",), "tools...", variadic=True),
            Opt(("--allowedTools", "--allowed-tools"), "tools...", variadic=True),
            Opt(("--disallowedTools", "--disallowed-tools"), "tools...", variadic=True),
            Opt(("--setting-sources",), "sources"),
            Opt(("--strict-mcp-config",)),
            Opt(("--mcp-config",), "configs...", variadic=True),
            Opt(("--model",), "model"),
            Opt(("--effort",), "level", ("low", "medium", "high", "xhigh", "max")),
            Opt(("--permission-mode",), "mode"),
            Opt(("--dangerously-skip-permissions",)),
            Opt(("--verbose",)),
            Opt(("--system-prompt",), "prompt"),
            Opt(("--append-system-prompt",), "prompt"),
            Opt(("--add-dir",), "directories...", variadic=True),
        ],
        max_positionals=1,
    )

    def version_text(self) -> str:
        return f"{self.version} (Claude Code)\n"

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.parse(argv)
        sources = parsed.get("setting_sources")
        if sources:
            for source in sources.split(","):
                if source.strip() not in ("user", "project", "local"):
                    raise Done(
                        1,
                        stderr=f"Error processing --setting-sources: Invalid setting source: "
                        f"{source.strip()}. Valid options are: user, project, local\n",
                    )
        if not parsed.get("print"):
            raise self._interactive()
        fmt = parsed.get("output_format", "text")
        if fmt == "stream-json" and not parsed.get("verbose"):
            raise Done(
                1,
                stderr="Error: When using --print, --output-format=stream-json requires "
                "--verbose\n",
            )
        if parsed.get("input_format") == "stream-json":
            if fmt != "stream-json":
                raise Done(
                    1,
                    stderr="Error: --input-format=stream-json requires "
                    "output-format=stream-json.\n",
                )
            if parsed.positionals:
                raise self._not_emulated("stream-json input with a prompt in argv")
            model = parsed.get("model", "claude-sonnet-4-5")
            return Plan(fmt=fmt, model=model, parsed=parsed, warm="claude-stream")
        return Plan(
            fmt=fmt,
            arg_prompt=parsed.positionals[0] if parsed.positionals else None,
            model=parsed.get("model", "claude-sonnet-4-5"),
            parsed=parsed,
        )

    def no_prompt(self, plan: Plan) -> Done:
        return Done(
            1,
            stderr="Error: Input must be provided either through stdin or as a prompt argument "
            "when using --print\n",
        )

    def _result(
        self,
        plan: Plan,
        answer: str,
        prompt: str,
        *,
        error: bool = False,
        status: int | None = None,
    ) -> dict[str, Any]:
        """The result object, as 2.1.197 prints it. ``usage`` counts the main conversation's
        turns, with the prompt cache apart (``input_tokens`` is the uncached part);
        ``modelUsage`` has one entry per model called, and ``total_cost_usd`` is claude's own
        price for them (option ``cost_usd``). An error result reports zeros and no model."""
        used = self.tokens(prompt, answer)
        uncached, cached, output = used.input - used.cached, used.cached, used.output
        if error:
            uncached = cached = output = 0
        cost = 0 if error else float(self.options.get("cost_usd", 0.0012))
        usage = {
            "input_tokens": uncached,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cached,
            "output_tokens": output,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
            "inference_geo": "",
            "iterations": [],
            "speed": "standard",
        }
        model_usage = {
            plan.model: {
                "inputTokens": uncached,
                "outputTokens": output,
                "cacheReadInputTokens": cached,
                "cacheCreationInputTokens": 0,
                "webSearchRequests": 0,
                "costUSD": cost,
                "contextWindow": 200000,
                "maxOutputTokens": 32000,
            }
        }
        return {
            "type": "result",
            "subtype": "success",
            "is_error": error,
            "api_error_status": status,
            "duration_ms": 1234,
            "duration_api_ms": 1200,
            "num_turns": 1,
            "result": answer,
            "stop_reason": "stop_sequence" if error else "end_turn",
            "session_id": self.session,
            "total_cost_usd": cost,
            "usage": usage,
            "modelUsage": {} if error else model_usage,
            "permission_denials": [],
            "terminal_reason": "completed",
            "fast_mode_state": "off",
            "uuid": uuid4(),
        }

    @property
    def session(self) -> str:
        """One session id per invocation, shared by all the events it prints."""
        if not hasattr(self, "_session"):
            self._session = uuid4()
        return self._session

    def _events(self, plan: Plan, text: str, result: dict) -> str:
        init = {
            "type": "system",
            "subtype": "init",
            "session_id": self.session,
            "model": plan.model,
            "tools": [],
        }
        message = {
            "type": "assistant",
            "message": {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": plan.model,
                "content": [{"type": "text", "text": text}],
            },
            "session_id": self.session,
        }
        return jsonl([init, message, result])

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        if plan.fmt == "json":
            return Done(0, stdout=dumps(self._result(plan, answer, prompt)) + "\n")
        if plan.fmt == "stream-json":
            return Done(0, stdout=self._events(plan, answer, self._result(plan, answer, prompt)))
        return Done(0, stdout=answer + "\n")

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        text, json_text, status = {
            "rate_limit": (
                "API Error: Request rejected (429)",
                "API Error: Request rejected (429) · Rate limited",
                429,
            ),
            "auth": ("Not logged in · Please run /login",) * 2 + (None,),
            "server_error": (
                'API Error: 500 {"type":"error","error":{"type":"api_error",'
                '"message":"Internal server error"}}',
            )
            * 2
            + (500,),
            "connection": ("API Error: Unable to connect to API (ECONNREFUSED)",) * 2 + (None,),
        }[kind]
        text = self._retry(text, retry_after)
        json_text = self._retry(json_text, retry_after)
        result = self._result(plan, json_text, "", error=True, status=status)
        if plan.fmt == "json":
            return Done(1, stdout=dumps(result) + "\n")
        if plan.fmt == "stream-json":
            return Done(1, stdout=self._events(plan, json_text, result))
        return Done(1, stdout=text + "\n")
