"""Fake ``qwen`` (qwen-code 0.24.4, or 0.15.10 with option ``version``; Node, yargs): the
gemini-cli fork.

As in ``docs/spec/clis.md``: gemini's command line (``gemini.py``) without its trusted-folder
gate; stdin is appended to a ``-p``/positional prompt, ``-o json`` prints one JSON array of
events whose ``result`` event holds the answer and the usage, and every failure is one
``[API Error: ...]`` line on stderr with exit 1. Each version refuses the other's flags as the
real ones do: 0.24.x added ``--safe-mode``, ``--max-tool-calls`` and the ``auto`` approval
mode and removed ``--checkpointing``.
"""

from __future__ import annotations

from engine import Done
from gemini import Gemini, yargs_grammar
from grammar import Opt
from vendor import Plan, Vendor, dumps, jsonl, uuid4

_SHARED = (
    Opt(("--system-prompt",), "string"),
    Opt(("--append-system-prompt",), "string"),
    Opt(("--core-tools",), "array", repeat=True),
    Opt(("--exclude-tools",), "array", repeat=True),
    Opt(("--bare",)),
)
GRAMMAR_0_15 = yargs_grammar(
    "qwen",
    "Qwen Code",
    ("plan", "default", "auto-edit", "yolo"),
    *_SHARED,
    Opt(("--checkpointing",)),
)
GRAMMAR_0_24 = yargs_grammar(
    "qwen",
    "Qwen Code",
    ("plan", "default", "auto-edit", "auto", "yolo"),
    *_SHARED,
    Opt(("--safe-mode",)),
    Opt(("--max-tool-calls",), "number"),
)


def _release(version: str) -> tuple[int, ...]:
    """``0.24.4`` as (0, 24, 4); what is not a number ends the tuple."""
    parts: list[int] = []
    for part in version.split("."):
        digits = "".join(c for c in part if c.isdigit())
        if not digits or digits != part:
            break
        parts.append(int(digits))
    return tuple(parts)


class Qwen(Gemini):
    """qwen-code (Node, yargs, a gemini fork): JSON output is an array of events."""

    label = "qwen"
    variant = "qwen"
    default_version = "0.24.4"
    package = "@qwen-code/qwen-code"
    grammar = GRAMMAR_0_24
    no_input_exit = 1
    failures = {
        "rate_limit": "[API Error: 429 Too Many Requests]",
        "auth": "[API Error: 401 Incorrect API key provided]",
        "server_error": "[API Error: 500 Internal Server Error]",
        "connection": "[API Error: Connection error.]",
    }
    failure = Vendor.failure

    def __init__(self, options: dict) -> None:
        super().__init__(options)
        if _release(self.version) < (0, 24):
            self.grammar = GRAMMAR_0_15

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
        """qwen has no trusted-folder gate."""

    def cancel_is_error(self) -> bool:
        """ACP: 0.15.10 answers a cancelled prompt with a JSON-RPC error (`Request was
        aborted.`); 0.24.4 ends it with stopReason `cancelled`, as ACP says."""
        return _release(self.version) < (0, 24)

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        session = uuid4()
        used = self.tokens(prompt, answer)
        # qwen's sum over the run's model calls: input_tokens is the API's prompt_tokens
        # (cached tokens included), output_tokens its completion_tokens (reasoning included).
        usage = {
            "input_tokens": used.input,
            "output_tokens": used.output,
            "cache_read_input_tokens": used.cached,
            "total_tokens": used.input + used.output,
        }
        tokens = {
            "prompt": used.input,
            "candidates": used.output,
            "total": used.input + used.output,
            "cached": used.cached,
            "thoughts": used.reasoning,
        }
        api = {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 64}
        result = {
            "type": "result",
            "subtype": "success",
            "uuid": uuid4(),
            "session_id": session,
            "is_error": False,
            "duration_ms": 714,
            "duration_api_ms": 64,
            "num_turns": 1,
            "result": answer,
            "usage": usage,
            "permission_denials": [],
        }
        if plan.fmt == "json":  # the stats go only into the JSON array
            result["stats"] = {
                "models": {
                    plan.model: {
                        "api": api,
                        "tokens": tokens,
                        "bySource": {"main": {"api": api, "tokens": dict(tokens)}},
                    }
                },
                "tools": {
                    "totalCalls": 0,
                    "totalSuccess": 0,
                    "totalFail": 0,
                    "totalDurationMs": 0,
                    "totalDecisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0},
                    "byName": {},
                },
                "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0},
            }
        events = [
            {"type": "system", "subtype": "init", "session_id": session, "model": plan.model},
            {
                "type": "assistant",
                "session_id": session,
                "message": {
                    "role": "assistant",
                    "model": plan.model,
                    "content": [{"type": "text", "text": answer}],
                    "usage": dict(usage),
                },
            },
            result,
        ]
        if plan.fmt == "json":
            return Done(0, stdout=dumps(events) + "\n")
        if plan.fmt == "stream-json":
            return Done(0, stdout=jsonl(events))
        return Done(0, stdout=answer + "\n")
