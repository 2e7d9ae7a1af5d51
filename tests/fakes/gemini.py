"""Fake ``gemini`` (gemini-cli 0.61.0, Node, yargs): headless with ``-p``, a query or stdin.

As in ``docs/spec/clis.md``: an untrusted folder exits 55 unless ``--skip-trust`` or
``GEMINI_CLI_TRUST_WORKSPACE=true``, no prompt exits 42, an auth failure 41, an API error 1 with
a Node stack trace on stderr; ``-o json`` gives ``{response, stats}``. qwen-code is a fork of
it: ``qwen.py`` builds on the grammar and the headless command line here.
"""

from __future__ import annotations

import os

from engine import Done, stdin_isatty
from grammar import Grammar, Opt
from vendor import Plan, Tokens, Vendor, dumps, jsonl, uuid4

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STACK = (
    "    at Turn.run (file:///usr/lib/node_modules/{pkg}/dist/src/core/turn.js:112:23)\n"
    "    at async GeminiClient.sendMessageStream (file:///usr/lib/node_modules/{pkg}/dist/src/"
    "core/client.js:540:20)\n"
    "    at async runNonInteractive (file:///usr/lib/node_modules/{pkg}/dist/src/"
    "nonInteractiveCli.js:187:24)\n"
)


def yargs_grammar(prog: str, product: str, approval_modes: tuple[str, ...], *extra: Opt) -> Grammar:
    """The flags gemini-cli and its fork qwen-code share; ``extra`` follow ``--approval-mode``."""
    return Grammar(
        "yargs",
        prog,
        f"Usage: {prog} [options] [command]",
        [
            Opt(("-v", "--version")),
            Opt(("-h", "--help")),
            Opt(("-o", "--output-format"), "string", ("text", "json", "stream-json")),
            Opt(("-m", "--model"), "string"),
            Opt(("-p", "--prompt"), "string"),
            Opt(("--approval-mode",), "string", approval_modes),
            Opt(("--acp",)),
            Opt(("--experimental-acp",)),
            *extra,
            Opt(("-y", "--yolo")),
            Opt(("-s", "--sandbox")),
            Opt(("-d", "--debug")),
        ],
        description=f"{product} - Launch an interactive CLI, use -p/--prompt for "
        "non-interactive mode",
    )


class Gemini(Vendor):
    """gemini-cli (Node, yargs): headless with ``-p``, a positional query or piped stdin."""

    label = "gemini"
    variant = "gemini"
    default_version = "0.61.0"
    package = "@google/gemini-cli"
    grammar = yargs_grammar(
        "gemini",
        "Gemini CLI",
        ("default", "auto_edit", "yolo", "plan"),
        Opt(("--skip-trust",)),
        Opt(("--policy",), "array", repeat=True),
    )
    no_input_exit = 42

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.parse(argv)
        if parsed.get("acp") or parsed.get("experimental_acp"):
            return self.acp_plan(parsed)
        if parsed.get("yolo") and "approval_mode" in parsed.values:
            raise Done(
                1,
                stderr="Cannot use both --yolo (-y) and --approval-mode together. Use "
                "--approval-mode=yolo instead.\n",
            )
        query = " ".join(parsed.positionals) if parsed.positionals else None
        if query is not None and "prompt" in parsed.values:
            raise Done(
                1,
                stderr="Cannot use both a positional prompt and the --prompt (-p) flag together\n",
            )
        arg_prompt = parsed.get("prompt", query)
        if arg_prompt is None and stdin_isatty():
            raise self._interactive()
        return Plan(
            fmt=parsed.get("output_format", "text"),
            arg_prompt=arg_prompt,
            model=parsed.get("model", "gemini-2.5-pro"),
            parsed=parsed,
        )

    def acp_plan(self, parsed: Any) -> Plan:
        """``--acp``: an ACP agent on stdio (``persistent.Acp``); an untrusted folder turns
        the approval mode back to ``default`` instead of exiting."""
        if self.no_warm():
            raise self.grammar.yargs_unknown(["acp"])
        if parsed.positionals or "prompt" in parsed.values:
            raise Done(1, stderr="--acp takes no prompt: it reads ACP messages on stdin\n")
        return Plan(model=parsed.get("model", "gemini-2.5-pro"), parsed=parsed, warm="acp")

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
        system_md = env.get("GEMINI_SYSTEM_MD", "")
        if system_md and system_md.lower() not in ("0", "false"):
            # "1"/"true" mean the workspace's .gemini/system.md; anything else is a path. A
            # missing file fails the run (0.61.0); a missing --policy file is ignored.
            path = ".gemini/system.md" if system_md.lower() in ("1", "true") else system_md
            if not os.path.isfile(path):
                raise Done(
                    1,
                    stderr="An unexpected critical error occurred:Error: Failed to initialize "
                    f"chat: missing system prompt file '{os.path.abspath(path)}'\n",
                )
        if plan.parsed.get("skip_trust") or env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
            return
        raise Done(
            55,
            stderr="Gemini CLI is not running in a trusted directory. To proceed, either use "
            "`--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, "
            "or trust this directory in interactive mode.\n",
        )

    def no_prompt(self, plan: Plan) -> Done:
        return Done(
            self.no_input_exit,
            stderr="No input provided via stdin. Input can be provided by piping data into "
            f"{self.label} or using the --prompt option.\n",
        )

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        used = self.tokens(prompt, answer)
        if plan.fmt == "json":
            output = {
                "session_id": uuid4(),
                "response": answer,
                "stats": {
                    "models": {plan.model: _model_stats(used)},
                    "tools": {
                        "totalCalls": 0,
                        "totalSuccess": 0,
                        "totalFail": 0,
                        "totalDurationMs": 0,
                        "totalDecisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 0},
                        "byName": {},
                    },
                    "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0},
                },
            }
            return Done(0, stdout=dumps(output, 2) + "\n")
        if plan.fmt == "stream-json":
            # The stream's own summary: input_tokens is the prompt count, output_tokens the
            # candidates (thoughts left out), input the uncached part.
            counts = {
                "total_tokens": used.input + used.output,
                "input_tokens": used.input,
                "output_tokens": used.output - used.reasoning,
                "cached": used.cached,
                "input": used.input - used.cached,
            }
            stats = {**counts, "duration_ms": 139, "tool_calls": 0, "models": {plan.model: counts}}
            events = [
                {"type": "init", "session_id": uuid4(), "model": plan.model},
                {"type": "message", "role": "user", "content": prompt},
                {"type": "message", "role": "assistant", "content": answer, "delta": True},
                {"type": "result", "status": "success", "stats": stats},
            ]
            return Done(0, stdout=jsonl(events))
        return Done(0, stdout=answer + "\n")

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        if kind == "auth":
            home = os.environ.get("HOME", "~")
            return Done(
                41,
                stderr=f"Please set an Auth method in your {home}/.gemini/settings.json or "
                "specify one of the following environment variables before running: "
                "GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA\n",
            )
        error = {
            "rate_limit": '{"error":{"code":429,"message":"Resource has been exhausted (e.g. '
            'check quota).","status":"RESOURCE_EXHAUSTED"}}',
            "server_error": '{"error":{"code":500,"message":"Internal error encountered.",'
            '"status":"INTERNAL"}}',
            "connection": "exception TypeError: fetch failed sending request",
        }[kind]
        line = self._retry(f"[API Error: {error}]", retry_after)
        report = "/tmp/gemini-client-error-Turn.run-sendMessageStream.json"
        return Done(
            1,
            stderr=f"Error when talking to Gemini API Full report available at: {report}\n"
            f"{line}\n{_STACK.format(pkg=self.package)}",
        )


def _model_stats(used: Tokens) -> dict[str, Any]:
    """One model's entry in ``-o json``'s ``stats.models``, as 0.61.0 sums the API's usage:
    ``prompt`` is promptTokenCount (cached tokens included, ``input`` is prompt minus
    ``cached``), ``candidates`` leaves out the ``thoughts``, ``tool`` is toolUsePromptTokenCount."""
    tokens = {
        "input": used.input - used.cached,
        "prompt": used.input,
        "candidates": used.output - used.reasoning,
        "total": used.input + used.output,
        "cached": used.cached,
        "thoughts": used.reasoning,
        "tool": 0,
    }
    api = {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 246}
    return {
        "api": {**api, "errorsByType": {}},
        "tokens": tokens,
        "roles": {"main": {**api, "tokens": dict(tokens)}},
    }
