"""The base every fake vendor CLI builds on: ``Vendor``, its ``Plan`` and the output helpers.

One module per real CLI (``claude.py``, ``codex.py``, ``gemini.py``, ``qwen.py``, ``pi.py``,
``kimi.py``) subclasses ``Vendor`` with that CLI's grammar, behaviour and output format as
documented in ``docs/spec/clis.md``; ``engine.main`` drives it. Standard library only, and
imported as a top-level module like the rest of the fakes.
"""

from __future__ import annotations

import json
import os

from engine import EXIT_NOT_EMULATED, Done, expected_usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from grammar import Grammar, Parsed


class Plan:
    """What a parsed headless command line asks for.

    ``arg_prompt`` is the prompt given in argv (positional or ``-p``); ``read_stdin`` says
    whether this vendor reads stdin in this invocation (it is read to EOF when it is not a
    TTY, so an open pipe hangs the fake like it hangs codex and pi). When both are present
    the prompt is the argument, a blank line, then stdin.
    """

    def __init__(
        self,
        parsed: Parsed,
        fmt: str = "text",
        arg_prompt: str | None = None,
        read_stdin: bool = True,
        out_file: str | None = None,
        chdir: str | None = None,
        model: str = "fake-model",
        warm: str | None = None,
    ) -> None:
        self.parsed = parsed
        self.fmt = fmt
        self.arg_prompt = arg_prompt
        self.read_stdin = read_stdin
        self.out_file = out_file
        self.chdir = chdir
        self.model = model
        # A persistent mode (``persistent.SERVERS``): the process serves many prompts on
        # stdin, one JSON message a line, until stdin closes.
        self.warm = warm
        self.prompt = ""  # the prompt as received (argument and stdin), set before delivery


def dumps(obj: Any, indent: int | None = None) -> str:
    """JSON like Node's ``JSON.stringify``: compact, non-ASCII kept (garbage bytes too)."""
    if indent is None:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(obj, ensure_ascii=False, indent=indent)


def jsonl(events: list[Any]) -> str:
    """One compact JSON document per line, each line ended by a newline."""
    return "".join(dumps(event) + "\n" for event in events)


class Tokens:
    """What one fake call used: ``input`` and ``output`` tokens in all (``expected_usage``),
    ``cached`` of the input read from a prompt cache and ``reasoning`` of the output spent
    thinking (options ``cached_tokens`` and ``reasoning_tokens``, default 0). Each vendor
    prints them in its own split: the API's counts, or the CLI's own."""

    def __init__(self, prompt: str, answer: str, options: dict[str, Any]) -> None:
        self.input, self.output = expected_usage(prompt, answer)
        self.cached = min(int(options.get("cached_tokens", 0)), self.input)
        self.reasoning = min(int(options.get("reasoning_tokens", 0)), self.output)


def uuid4() -> str:
    """A random UUID string without importing ``uuid`` (which drags in ``platform``)."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"


class Vendor:
    """Base class: one subclass per vendor CLI (and per kimi variant)."""

    label = "vendor"
    variant = "vendor"
    default_version = "0.0.0"
    grammar: Grammar

    failures: dict[str, str] = {}
    """The message of each failure kind (``FAILURE_MODES``), for the default ``failure``."""
    failure_exit = 1
    failure_stream = "stderr"

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.version = str(options.get("version", self.default_version))

    def tokens(self, prompt: str, answer: str) -> Tokens:
        """The tokens this call reports it used."""
        return Tokens(prompt, answer, self.options)

    def version_text(self) -> str:
        """What ``--version`` prints (the fakes share the real CLIs' version formats)."""
        return self.version + "\n"

    def parse(
        self, argv: list[str], grammar: Grammar | None = None, *, stop_at_positional: bool = False
    ) -> Parsed:
        """Parse argv with ``grammar`` (default: the vendor's); answer ``--version``/``--help``."""
        grammar = grammar or self.grammar
        parsed = grammar.parse(argv, stop_at_positional=stop_at_positional)
        if parsed.get("version"):
            raise Done(0, stdout=self.version_text())
        if parsed.get("help"):
            raise Done(0, stdout=grammar.help_text())
        return parsed

    def plan(self, argv: list[str]) -> Plan:
        """Parse argv; raise ``Done`` for version, help, usage errors and non-headless calls."""
        raise NotImplementedError

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
        """Refuse to run the way the real CLI refuses (untrusted folder, not a git repo)."""

    def no_prompt(self, plan: Plan) -> Done:
        """The failure when neither argv nor stdin carried a prompt."""
        return Done(1, stderr="Error: no prompt provided\n")

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        """The successful result carrying ``answer`` in the requested output format."""
        raise NotImplementedError

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        """The vendor's failure for ``kind``: by default its message alone on one stream."""
        text = self._retry(self.failures[kind], retry_after) + "\n"
        return Done(self.failure_exit, **{self.failure_stream: text})

    def no_warm(self) -> bool:
        """Option ``no_warm``: this version has no persistent mode (an older release)."""
        return bool(self.options.get("no_warm"))

    def _not_emulated(self, what: str) -> Done:
        return Done(EXIT_NOT_EMULATED, stderr=f"FAKE: {self.label}: {what} is not emulated\n")

    def _interactive(self) -> Done:
        return self._not_emulated("the interactive UI (no headless flag given)")

    @staticmethod
    def _retry(message: str, retry_after: Any) -> str:
        return message if retry_after is None else f"{message} Retry after {retry_after}s"
