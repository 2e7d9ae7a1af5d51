"""Fake ``kimi``: the three programs that install a binary of that name.

As in ``docs/spec/clis.md``, told apart by ``kimi --version``:

- kimi-cli 1.51.0 (``KimiCli``, Python, typer/click): ``--quiet`` or ``--print``, the prompt on
  stdin, errors on stdout with exit 75;
- kimi-code 2.1.0 (``KimiCode``, Node, commander): ``-p PROMPT`` only, never reads stdin,
  ``stream-json`` prints assistant messages, text mode prefixes the answer with ``• ``;
- kimi-cli 1.52.0 (``KimiCliArchived``): an archived stub that prints a deprecation notice.

``engine.make_vendor`` picks one by the control file's ``variant`` (``KIMI_VARIANTS``), and
``engine`` refuses ``kimi`` run with no arguments (1.52 would download an installer).
"""

from __future__ import annotations

import os
import re

from engine import Done
from grammar import Grammar, Opt
from vendor import Plan, Vendor, dumps, jsonl, uuid4

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class KimiCli(Vendor):
    """kimi-cli 1.51.0 (Python, typer/click): ``--quiet``/``--print``, errors on stdout, 75."""

    label = "kimi"
    variant = "kimi-cli"
    default_version = "1.51.0"
    grammar = Grammar(
        "click",
        "kimi",
        "Usage: kimi [OPTIONS]",
        [
            Opt(("--version",)),
            Opt(("-h", "--help")),
            Opt(("--quiet",)),
            Opt(("--print",)),
            Opt(("--output-format",), "TEXT", ("text", "stream-json")),
            Opt(("--final-message-only",)),
            Opt(("-p", "--prompt"), "TEXT"),
            Opt(("-c", "--command"), "TEXT"),
            Opt(("-m", "--model"), "TEXT"),
            Opt(("--thinking",)),
            Opt(("--no-thinking",)),
            Opt(("--max-retries-per-step",), "INTEGER"),
            Opt(("--plan",)),
            Opt(("--agent-file",), "FILE"),
            Opt(("-w", "--work-dir"), "DIRECTORY"),
            Opt(("-y", "--yolo")),
        ],
        max_positionals=0,
    )
    failures = {
        "rate_limit": "Error code: 429 - {'error': {'message': 'rate limit reached', "
        "'type': 'rate_limit_reached_error'}}",
        "auth": "Error code: 401 - {'error': {'message': 'Invalid Authentication', "
        "'type': 'invalid_authentication_error'}}",
        "server_error": "Error code: 500 - {'error': {'message': 'Internal server error', "
        "'type': 'server_error'}}",
        "connection": "Connection error.",
    }
    failure_exit = 75
    failure_stream = "stdout"

    def version_text(self) -> str:
        return f"kimi, version {self.version}\n"

    def plan(self, argv: list[str]) -> Plan:
        if argv[:1] == ["acp"]:
            if self.no_warm() or argv[1:]:
                raise self.grammar.click_error(f"No such command '{argv[-1]}'.")
            return Plan(self.parse([]), model="kimi-k2", warm="acp")
        parsed = self.parse(argv)
        retries = parsed.get("max_retries_per_step")
        if retries is not None and not retries.lstrip("-").isdigit():
            raise self.grammar.click_error(
                f"Invalid value for '--max-retries-per-step': '{retries}' is not a valid integer."
            )
        agent = parsed.get("agent_file")
        if agent is not None and not os.path.isfile(agent):
            raise self.grammar.click_error(
                f"Invalid value for '--agent-file': File '{agent}' does not exist."
            )
        if not (parsed.get("quiet") or parsed.get("print")):
            raise self._interactive()
        fmt = "text" if parsed.get("quiet") else parsed.get("output_format", "text")
        return Plan(
            fmt=fmt,
            arg_prompt=parsed.get("prompt", parsed.get("command")),
            chdir=parsed.get("work_dir"),
            model=parsed.get("model", "kimi-k2"),
            parsed=parsed,
        )

    def no_prompt(self, plan: Plan) -> Done:
        return Done(1, stdout="Error: Prompt is required in print mode.\n")

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        if plan.fmt == "stream-json":
            return Done(0, stdout=dumps({"role": "assistant", "content": answer}) + "\n")
        return Done(0, stdout=answer + "\n")


class KimiCode(Vendor):
    """kimi-code 2.1.0 (Node, commander): ``-p PROMPT`` only, never reads stdin."""

    label = "kimi"
    variant = "kimi-code"
    default_version = "2.1.0"
    grammar = Grammar(
        "commander",
        "kimi",
        "Usage: kimi [options]",
        [
            Opt(("-V", "--version")),
            Opt(("-h", "--help")),
            Opt(("-p", "--prompt"), "prompt"),
            Opt(("--output-format",), "format", ("text", "stream-json")),
            Opt(("-m", "--model"), "model"),
            Opt(("--plan",)),
            Opt(("--agent-file",), "path"),
        ],
        max_positionals=0,
    )
    failures = {
        "rate_limit": "provider.rate_limit: 429 Too Many Requests",
        "auth": "provider.auth_error: 401 Unauthorized",
        "server_error": "provider.server_error: 500 Internal Server Error",
        "connection": "provider.connection_error",
    }

    def plan(self, argv: list[str]) -> Plan:
        if argv[:1] == ["acp"]:
            if self.no_warm() or argv[1:]:
                raise Done(1, stderr=f"error: unknown command '{argv[-1]}'\n")
            return Plan(self.parse([]), model="kimi-k2", warm="acp")
        parsed = self.parse(argv)
        if "prompt" not in parsed.values:
            raise self._interactive()
        if parsed.get("plan"):
            raise Done(1, stderr="error: --plan cannot be used with --prompt\n")
        if (agent := parsed.get("agent_file")) is not None:
            _check_agent_file(agent)
        return Plan(
            fmt=parsed.get("output_format", "text"),
            arg_prompt=parsed.get("prompt"),
            read_stdin=False,
            model=parsed.get("model", "kimi-k2"),
            parsed=parsed,
        )

    def no_prompt(self, plan: Plan) -> Done:
        return Done(1, stderr="error: prompt must not be empty\n")

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        session = f"session_{uuid4()}"
        hint = f"kimi -r {session}"
        if plan.fmt != "stream-json":
            notes = f"kimi version {self.version}\nTo resume this session: {hint}\n"
            return Done(0, stdout=f"• {answer}\n", stderr=notes)
        parts = bool(self.options.get("content_parts"))

        def content(text: str) -> Any:
            return [{"type": "text", "text": text}] if parts else text

        # Between its meta lines (no usage among them), one assistant message per step.
        lines: list[dict[str, Any]] = [
            {"role": "meta", "type": "system.version", "version": self.version}
        ]
        if answer:
            lines.append({"role": "assistant", "content": content(answer[: len(answer) // 2])})
        if self.options.get("tool_call"):
            call = {"id": "call_0", "type": "function", "function": {"name": "ReadFile"}}
            lines.append({"role": "assistant", "content": content(""), "tool_calls": [call]})
            lines.append({"role": "tool", "tool_call_id": "call_0", "content": "fake file"})
        lines.append({"role": "assistant", "content": content(answer)})
        lines.append(
            {
                "role": "meta",
                "type": "session.resume_hint",
                "session_id": session,
                "command": hint,
                "content": f"To resume this session: {hint}",
            }
        )
        return Done(0, stdout=jsonl(lines))


class KimiCliArchived(Vendor):
    """kimi-cli 1.52.0, the archived stub: a deprecation notice for everything."""

    label = "kimi"
    variant = "kimi-cli-1.52"
    default_version = "1.52.0"
    notice = "kimi-cli is deprecated; install kimi-code (npm install -g @moonshot-ai/kimi-code)\n"

    def version_text(self) -> str:
        return f"kimi, version {self.version}\n{self.notice}"

    def plan(self, argv: list[str]) -> Plan:
        if argv == ["--version"]:
            raise Done(0, stdout=self.version_text())
        raise Done(1, stderr=self.notice)


def _check_agent_file(path: str) -> None:
    """kimi-code 2.1.0's checks of an agent file: readable, front matter with a kebab-case
    `name` and a `description`, and a prompt body."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise Done(
            1,
            stderr=f'error: failed to run prompt: Failed to read agent file "{path}": '
            f"ENOENT: no such file or directory, open '{path}'\n",
        ) from exc
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    if match is None:
        raise Done(1, stderr=f"error: failed to run prompt: Missing frontmatter in {path}\n")
    fields = dict(line.split(":", 1) for line in match.group(1).splitlines() if ":" in line)
    name = fields.get("name", "").strip()
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", name):
        raise Done(
            1, stderr=f'error: failed to run prompt: Invalid agent name "{name}" in {path}\n'
        )
    if not fields.get("description", "").strip():
        raise Done(
            1,
            stderr=f'error: failed to run prompt: Missing required frontmatter field "description" '
            f"in {path}\n",
        )
    if not match.group(2).strip():
        raise Done(1, stderr=f"error: failed to run prompt: Missing prompt body in {path}\n")
