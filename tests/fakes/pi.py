"""Fake ``pi`` (pi-coding-agent 0.73.1, Node, hand-written parser): print mode.

As in ``docs/spec/clis.md``: print mode with ``-p`` or piped stdin (read to EOF, so an open
pipe hangs it), messages as positionals, ``--tools`` limited to pi's own tools, ``--mode json``
gives JSONL events, and failures are one line on stderr with exit 1.
"""

from __future__ import annotations

from engine import Done, stdin_isatty
from grammar import Grammar, Opt
from vendor import Plan, Vendor, jsonl

PI_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")


class Pi(Vendor):
    """pi-coding-agent (Node, hand-written parser): print mode with ``-p`` or piped stdin."""

    label = "pi"
    variant = "pi"
    default_version = "0.73.1"
    grammar = Grammar(
        "pi",
        "pi",
        "Usage: pi [options] [messages...]",
        [
            Opt(("-v", "--version")),
            Opt(("-h", "--help")),
            Opt(("-p", "--print")),
            Opt(("--no-session",)),
            Opt(("--no-context-files",)),
            Opt(("--offline",)),
            Opt(("--tools", "-t"), "tools"),
            Opt(("--no-tools", "-nt")),
            Opt(("--no-builtin-tools", "-nbt")),
            Opt(("--no-skills", "-ns")),
            Opt(("--no-extensions", "-ne")),
            Opt(("--provider",), "name"),
            Opt(("--model",), "id"),
            Opt(("--api-key",), "key"),
            Opt(("--system-prompt",), "text"),
            Opt(("--append-system-prompt",), "text"),
            Opt(("--thinking",), "level", ("off", "minimal", "low", "medium", "high", "xhigh")),
            Opt(("--mode",), "mode", ("text", "json", "rpc")),
        ],
    )
    failures = {
        "rate_limit": "429 Too Many Requests: rate limit exceeded",
        "auth": "401 Unauthorized: invalid api key",
        "server_error": "500 Internal Server Error",
        "connection": "Connection error.",
    }

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.parse(argv)
        tools = parsed.get("tools")
        if tools is not None:
            for tool in filter(None, (t.strip() for t in tools.split(","))):
                if tool not in PI_TOOLS:
                    raise Done(
                        1,
                        stderr=f"Error: Unknown tool: {tool}. Valid tools: {', '.join(PI_TOOLS)}\n",
                    )
        fmt = parsed.get("mode", "text")
        if fmt == "rpc":
            if self.no_warm():
                raise Done(1, stderr="Error: Unknown mode: rpc\n")
            if parsed.get("print") or parsed.positionals:
                raise self._not_emulated("--mode rpc with a prompt in argv")
            return Plan(model=parsed.get("model", "fake-model"), parsed=parsed, warm="pi-rpc")
        if not parsed.get("print") and stdin_isatty():
            raise self._interactive()
        return Plan(
            fmt=fmt,
            arg_prompt="\n\n".join(parsed.positionals) or None,
            model=parsed.get("model", "fake-model"),
            parsed=parsed,
        )

    def no_prompt(self, plan: Plan) -> Done:
        return Done(1, stderr="Error: No prompt provided (pass a message or pipe stdin)\n")

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        if plan.fmt == "json":
            # pi's own usage record: `input` is the uncached part, the cache apart, and a
            # cost from its model table (zero for a model it has no price for).
            used = self.tokens(prompt, answer)
            usage = {
                "input": used.input - used.cached,
                "output": used.output,
                "cacheRead": used.cached,
                "cacheWrite": 0,
                "totalTokens": used.input + used.output,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            }
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "api": "openai-completions",
                "provider": "fakemodel",
                "model": plan.model,
                "usage": usage,
                "stopReason": "stop",
            }
            events = [
                {"type": "agent_start"},
                {"type": "message_end", "message": message},
                {"type": "agent_end", "messages": [message]},
            ]
            return Done(0, stdout=jsonl(events))
        return Done(0, stdout=answer + "\n")
