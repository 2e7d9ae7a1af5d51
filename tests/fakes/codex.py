"""Fake ``codex`` (codex-cli 0.169.0, Rust, clap): ``codex exec`` is the headless entry point.

As in ``docs/spec/clis.md``: the prompt is the positional or stdin (``-`` or no positional),
stdin is read to EOF, the final message goes to stdout and to the ``-o`` file; stderr has the
banner, the prompt echoed, errors, and after an answer that answer again and ``tokens used``
with one number; ``--json`` gives JSONL events; outside a git repository it refuses to run
without ``--skip-git-repo-check``.
"""

from __future__ import annotations

import json
import os

from engine import Done, stdin_isatty
from grammar import Grammar, Opt
from vendor import Plan, Vendor, jsonl, uuid4

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SHARED = [
    Opt(("-c", "--config"), "key=value", repeat=True),
    Opt(("-m", "--model"), "MODEL"),
    Opt(("-p", "--profile"), "CONFIG_PROFILE_V2"),
    Opt(
        ("-s", "--sandbox"), "SANDBOX_MODE", ("read-only", "workspace-write", "danger-full-access")
    ),
    Opt(("-C", "--cd"), "DIR"),
    Opt(("--full-auto",)),
    Opt(("--dangerously-bypass-approvals-and-sandbox",)),
    Opt(("-h", "--help")),
]
"""The flags ``codex`` and ``codex exec`` both take."""


class Codex(Vendor):
    """codex-cli (Rust, clap): ``codex exec`` is the headless entry point."""

    label = "codex"
    variant = "codex"
    default_version = "0.169.0"

    top = Grammar(
        "clap",
        "codex",
        "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]",
        [Opt(("-V", "--version")), *_SHARED],
    )
    grammar = Grammar(
        "clap",
        "codex exec",
        "Usage: codex exec [OPTIONS] [PROMPT]",
        [
            Opt(("--skip-git-repo-check",)),
            Opt(("--ephemeral",)),
            Opt(("--color",), "COLOR", ("always", "never", "auto")),
            Opt(("-o", "--output-last-message"), "FILE"),
            Opt(("--json",)),
            Opt(("--ignore-user-config",)),
            *_SHARED,
        ],
        max_positionals=1,
    )
    other_commands = (
        "login",
        "logout",
        "resume",
        "apply",
        "a",
        "mcp",
        "mcp-server",
        "app-server",
        "completion",
        "sandbox",
        "debug",
        "review",
        "cloud",
        "features",
        "help",
    )
    failures = {
        "rate_limit": "exceeded retry limit, last status: 429 Too Many Requests",
        "auth": "unexpected status 401 Unauthorized: Missing bearer or basic authentication "
        "in header",
        "server_error": "unexpected status 500 Internal Server Error",
        "connection": "stream disconnected before completion: error sending request for url "
        "(https://api.openai.com/v1/responses)",
    }

    def version_text(self) -> str:
        return f"codex-cli {self.version}\n"

    def plan(self, argv: list[str]) -> Plan:
        top = self.parse(argv, self.top, stop_at_positional=True)
        if not top.rest or top.rest[0] not in ("exec", "e", *self.other_commands):
            if not stdin_isatty():
                raise Done(1, stderr="Error: stdin is not a terminal\n")
            raise self._interactive()
        if top.rest[0] == "app-server" and not self.no_warm():
            if top.rest[1:]:
                raise self._not_emulated("app-server options")
            for override in top.get("config", []):
                if "=" not in override:
                    raise Done(1, stderr=f"Error: Invalid override (missing '='): {override}\n")
            model = "gpt-5.5-codex"
            for override in top.get("config", []):
                key, _, value = override.partition("=")
                if key == "model":
                    model = value.strip('"')
            return Plan(top, model=model, warm="codex-app")
        if top.rest[0] not in ("exec", "e"):
            raise self._not_emulated(f"the '{top.rest[0]}' subcommand")
        parsed = self.parse(top.rest[1:])
        for key, value in top.values.items():
            if key == "config":
                parsed.values["config"] = value + parsed.values.get("config", [])
            else:
                parsed.values.setdefault(key, value)
        for override in parsed.get("config", []):
            if "=" not in override:
                raise Done(1, stderr=f"Error: Invalid override (missing '='): {override}\n")
        positional = parsed.positionals[0] if parsed.positionals else None
        return Plan(
            fmt="json" if parsed.get("json") else "text",
            arg_prompt=None if positional in (None, "-") else positional,
            out_file=parsed.get("output_last_message"),
            chdir=parsed.get("cd"),
            model=parsed.get("model", "gpt-5.5-codex"),
            parsed=parsed,
        )

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
        for override in plan.parsed.get("config", []):
            key, _, value = override.partition("=")
            if key.strip() == "model_instructions_file":
                # A TOML string, else the raw text (as codex reads a `-c` value).
                path = json.loads(value) if value.startswith('"') else value
                if not os.path.isfile(path):
                    raise Done(
                        1,
                        stderr=f"Error: failed to read model instructions file {path}: No such "
                        "file or directory (os error 2)\n",
                    )
        if plan.parsed.get("skip_git_repo_check"):
            return
        here = os.getcwd()
        while not os.path.exists(os.path.join(here, ".git")):
            if os.path.dirname(here) == here:
                raise Done(
                    1,
                    stderr="Not inside a trusted directory and --skip-git-repo-check was not "
                    "specified.\n",
                )
            here = os.path.dirname(here)

    def no_prompt(self, plan: Plan) -> Done:
        if plan.parsed.positionals == ["-"] or not stdin_isatty():
            return Done(1, stderr="No prompt provided via stdin.\n")
        return Done(
            1,
            stderr="No prompt provided. Either specify one as an argument or pipe the prompt "
            "into stdin.\n",
        )

    def _banner(self, plan: Plan) -> str:
        """The configuration summary, then the prompt echoed after ``user``."""
        sandbox = plan.parsed.get("sandbox", "read-only")
        reading = "" if plan.parsed.positionals else "Reading prompt from stdin...\n"
        return (
            f"{reading}OpenAI Codex v{self.version} (research preview)\n--------\n"
            f"workdir: {os.getcwd()}\nmodel: {plan.model}\nprovider: openai\n"
            f"approval: never\nsandbox: {sandbox}\nreasoning effort: none\n"
            f"reasoning summaries: none\nsession id: {uuid4()}\n--------\n"
            f"user\n{plan.prompt}\n"
        )

    def _events(self, *events: dict[str, Any]) -> str:
        """A ``--json`` run: the thread and turn start, then ``events``."""
        return jsonl(
            [{"type": "thread.started", "thread_id": uuid4()}, {"type": "turn.started"}, *events]
        )

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        stderr = ""
        if plan.out_file is not None:
            try:
                with open(plan.out_file, "wb") as handle:
                    handle.write(answer.encode("utf-8", "surrogateescape"))
            except OSError as exc:
                stderr = f"Failed to write last message file {plan.out_file!r}: {exc}\n"
        used = self.tokens(prompt, answer)
        if plan.fmt == "json":
            message = {"id": "item_0", "type": "agent_message", "text": answer}
            usage = {
                "input_tokens": used.input,
                "cached_input_tokens": used.cached,
                "cache_write_input_tokens": 0,
                "output_tokens": used.output,
                "reasoning_output_tokens": used.reasoning,
            }
            stdout = self._events(
                {"type": "item.completed", "item": message},
                {"type": "turn.completed", "usage": usage},
            )
            return Done(0, stdout=stdout, stderr=stderr)
        # The answer on stderr too, then codex's "blended total": uncached input plus output
        # (with the C locale's thousands separators).
        blended = used.input - used.cached + used.output
        tail = f"codex\n{answer}\ntokens used\n{blended:,}\n"
        return Done(0, stdout=answer + "\n", stderr=self._banner(plan) + stderr + tail)

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        message = self._retry(self.failures[kind], retry_after)
        if plan.fmt == "json":
            error = {"type": "turn.failed", "error": {"message": message}}
            return Done(1, stdout=self._events({"type": "error", "message": message}, error))
        return Done(1, stderr=self._banner(plan) + f"ERROR: {message}\n")
