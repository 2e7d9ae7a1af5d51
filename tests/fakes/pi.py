"""Fake ``pi`` (pi-coding-agent, Node, hand-written parser): print mode.

As in ``docs/spec/clis.md``: print mode with ``-p`` or piped stdin (read to EOF, so an open
pipe hangs it), messages as positionals, ``--tools`` limited to pi's own tools, ``--mode json``
gives JSONL events (a model's failure there is an assistant message with ``stopReason``
``error``, exit 0), and text mode's failures are one line on stderr with exit 1.

Option ``version`` picks the release whose flags it takes (default 1.6.0, the pin; 0.73.1 is
the last one published as ``@mariozechner/pi-coding-agent``): ``--approve``/``--no-approve``
since 0.79.0, ``--no-mcp`` and ``--exclude-tools`` since 1.0.4, ``--thinking max`` in 1.x.
Option ``node`` is the Node it runs on: pi >= 0.75 on a Node older than 22.19 dies at import
whatever its arguments, as the real one does.
"""

from __future__ import annotations

import re

from engine import Done, stdin_isatty
from grammar import Grammar, Opt
from vendor import Plan, Vendor, jsonl, uuid4

PI_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")
THINKING = ("off", "minimal", "low", "medium", "high", "xhigh")


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def _grammar(version: str) -> Grammar:
    release = _release(version)
    opts = [
        Opt(("-v", "--version")),
        Opt(("-h", "--help")),
        Opt(("-p", "--print")),
        Opt(("--no-session",)),
        Opt(("--no-context-files", "-nc")),
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
        Opt(("--thinking",), "level", THINKING + (("max",) if release >= (1,) else ())),
        Opt(("--mode",), "mode", ("text", "json", "rpc")),
    ]
    if release >= (0, 79):
        opts += [Opt(("--approve", "-a")), Opt(("--no-approve", "-na"))]
    if release >= (1, 0, 4):
        opts += [Opt(("--no-mcp",)), Opt(("--exclude-tools", "-xt"), "tools")]
    return Grammar("pi", "pi", "Usage: pi [options] [messages...]", opts)


class Pi(Vendor):
    """pi-coding-agent (Node, hand-written parser): print mode with ``-p`` or piped stdin."""

    label = "pi"
    variant = "pi"
    default_version = "1.6.0"
    grammar = _grammar(default_version)
    failures = {
        "rate_limit": "429 Too Many Requests: rate limit exceeded",
        "auth": "401 Unauthorized: invalid api key",
        "server_error": "500 Internal Server Error",
        "connection": "Connection error.",
    }

    def __init__(self, options: dict) -> None:
        super().__init__(options)
        self.grammar = _grammar(self.version)

    def plan(self, argv: list[str]) -> Plan:
        node = str(self.options.get("node", "22.23.3"))
        if _release(self.version) >= (0, 75) and _release(node) < (22, 19):
            raise Done(1, stderr=_import_crash(node))
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
            return Done(0, stdout=self._events(plan, prompt, answer, "stop"))
        return Done(0, stdout=answer + "\n")

    def failure(self, plan: Plan, kind: str, retry_after: object) -> Done:
        if plan.fmt == "json":
            # The model's refusal ends the turn like an answer does: exit 0, the error in the
            # last assistant message.
            error = self._retry(self.failures[kind], retry_after)
            return Done(0, stdout=self._events(plan, plan.prompt, "", "error", error))
        return super().failure(plan, kind, retry_after)

    def _events(
        self, plan: Plan, prompt: str, answer: str, stop: str, error: str | None = None
    ) -> str:
        # pi's own usage record: `input` is the uncached part, the cache apart, and a cost
        # from its model table (zero for a model it has no price for). A failed request
        # reports zeros.
        used = self.tokens(prompt, answer)
        usage = {
            "input": used.input - used.cached,
            "output": used.output,
            "cacheRead": used.cached,
            "cacheWrite": 0,
            "totalTokens": used.input + used.output,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        }
        if error is not None:
            usage = {k: (0 if k != "cost" else v) for k, v in usage.items()}
        elif _release(self.version) >= (1,):
            usage["reasoning"] = used.reasoning
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": answer}] if answer else [],
            "api": "openai-completions",
            "provider": "fakemodel",
            "model": plan.model,
            "usage": usage,
            "stopReason": stop,
        }
        if error is not None:
            message["errorMessage"] = error
        user = {"role": "user", "content": [{"type": "text", "text": prompt.strip()}]}
        events = [
            {"type": "session", "version": 3, "id": uuid4(), "cwd": "."},
            {"type": "agent_start"},
            {"type": "message_end", "message": user},
            {"type": "message_end", "message": message},
            {"type": "agent_end", "messages": [user, message]},
        ]
        if _release(self.version) >= (1,):
            events.append({"type": "agent_settled", "aborted": False})
        return jsonl(events)


def _import_crash(node: str) -> str:
    """What pi >= 0.75 prints when an older Node imports its bundle (every argv alike)."""
    return (
        "file:///usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js:2\n"
        'import { createRequire, enableCompileCache } from "node:module";\n'
        "                        ^^^^^^^^^^^^^^^^^^\n"
        "SyntaxError: The requested module 'node:module' does not provide an export named "
        "'enableCompileCache'\n"
        "    at ModuleJob._instantiate (node:internal/modules/esm/module_job:213:21)\n"
        "    at async ModuleJob.run (node:internal/modules/esm/module_job:320:5)\n"
        "\n"
        f"Node.js v{node}\n"
    )
