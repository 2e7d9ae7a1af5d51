"""Fake ``qwen`` (qwen-code 0.15.10, Node, yargs): the gemini-cli fork.

As in ``docs/spec/clis.md``: gemini's command line (``gemini.py``) without its trusted-folder
gate; stdin is appended to a ``-p``/positional prompt, ``-o json`` prints one JSON array of
events whose ``result`` event holds the answer and the usage, and every failure is one
``[API Error: ...]`` line on stderr with exit 1.
"""

from __future__ import annotations

from engine import Done
from gemini import Gemini, yargs_grammar
from vendor import Plan, Vendor, dumps, jsonl, usage, uuid4


class Qwen(Gemini):
    """qwen-code (Node, yargs, a gemini fork): JSON output is an array of events."""

    label = "qwen"
    variant = "qwen"
    default_version = "0.15.10"
    package = "@qwen-code/qwen-code"
    grammar = yargs_grammar("qwen", "Qwen Code", ("plan", "default", "auto-edit", "yolo"))
    no_input_exit = 1
    failures = {
        "rate_limit": "[API Error: 429 Too Many Requests]",
        "auth": "[API Error: 401 Incorrect API key provided]",
        "server_error": "[API Error: 500 Internal Server Error]",
        "connection": "[API Error: Connection error.]",
    }
    failure = Vendor.failure

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
        """qwen has no trusted-folder gate."""

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        session = uuid4()
        events = [
            {"type": "system", "subtype": "init", "session_id": session, "model": plan.model},
            {
                "type": "assistant",
                "session_id": session,
                "message": {"role": "assistant", "content": [{"type": "text", "text": answer}]},
            },
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "session_id": session,
                "result": answer,
                "usage": usage(prompt, answer),
            },
        ]
        if plan.fmt == "json":
            return Done(0, stdout=dumps(events) + "\n")
        if plan.fmt == "stream-json":
            return Done(0, stdout=jsonl(events))
        return Done(0, stdout=answer + "\n")
