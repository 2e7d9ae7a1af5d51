"""Engine of the fake vendor CLIs used by council's tests.

Each fake is a real executable written by ``install.py``; it imports this module and calls
``main(vendor)``. The fakes exist so that council's subprocess handling (argv, stdin, output
parsing, failure classification, timeouts, process-group kills) is exercised against programs
that behave like the real CLIs documented in ``/work/shared/spec/clis.md``, without an account,
a network or a Node toolchain.

They are deliberately STRICT: every vendor has a grammar (flags, arity, choices, positionals)
and anything outside it fails with that vendor's own argument-parser message and exit code, so
a typo in an adapter's argv fails a test instead of passing silently.

Control does not go through environment variables, because council passes an allow-listed
environment to the CLIs it runs. Everything lives next to the executable:

- ``<bin_dir>/.fake/<name>.json``: ``{"mode": ..., "options": {...}}`` (missing = mode ``ok``).
- ``<bin_dir>/.fake/<name>.calls.jsonl``: one JSON line per invocation, written before the
  mode's behaviour so a hung or killed fake is still on record.
- ``<bin_dir>/.fake/<name>.count``: invocation counter of mode ``rate_limit`` with ``times``.
- ``<bin_dir>/.fake/<name>.pids``: pid of every invocation, written first thing (even a fake
  stuck reading an open stdin pipe, which has no call record yet, is listed).
- ``<bin_dir>/.fake/<name>.grandchildren``: pids forked by mode ``grandchild``.

Exit codes that no real CLI uses flag a misuse the real CLI would punish differently:
97 = broken control file, 98 = the call would start an interactive UI the fake does not
emulate, 99 = ``kimi`` run with no arguments (kimi-cli 1.52 would download an installer).

Standard library only: the fakes run with the test's interpreter and nothing else. Plain
classes rather than dataclasses: every import costs start-up time, paid on each of the
hundreds of fake invocations a test run makes.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing, collections.abc, pathlib, uuid are too slow to import per call
    from collections.abc import Callable
    from typing import Any

VENDORS = ("claude", "codex", "gemini", "qwen", "pi", "kimi")
"""Executable names of the fakes; each is also the vendor label in the fake answers."""

KIMI_VARIANTS = {
    "kimi-cli": "kimi-cli",
    "1.51.0": "kimi-cli",
    "kimi-code": "kimi-code",
    "2.1.0": "kimi-code",
    "kimi-cli-1.52": "kimi-cli-1.52",
    "1.52.0": "kimi-cli-1.52",
}
"""Accepted values of the ``variant`` option of ``kimi`` and the variant each one selects."""

MODES = (
    "ok",
    "slow",
    "hang",
    "ignore_term",
    "grandchild",
    "crash",
    "garbage",
    "huge",
    "empty",
    "echo",
    "rate_limit",
    "auth",
    "server_error",
    "connection",
    "needs_tty",
    "login_prompt",
    "write_attempt",
)

FAILURE_MODES = ("rate_limit", "auth", "server_error", "connection")

EXIT_FAKE_CONFIG = 97
EXIT_NOT_EMULATED = 98
EXIT_FORBIDDEN = 99

GARBAGE = "\udcff\udcfe"
"""Lone surrogates that ``surrogateescape`` turns into the invalid UTF-8 bytes ``ff fe``."""

NEEDS_TTY_MESSAGE = "Error: this command needs an interactive terminal"
TRUST_PROMPT = "Do you trust the files in this folder? (y/n) "
LOGIN_PROMPT = "Please log in: press Enter to open the browser"


def expected_answer(vendor: str, prompt: str) -> str:
    """Return the deterministic answer of mode ``ok``, so tests can prove the prompt arrived.

    The digest covers the exact prompt (every byte, including trailing newlines); the preview is
    the first 60 characters after collapsing whitespace, so a human can read it in a log.
    """
    digest = hashlib.sha256(prompt.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    preview = " ".join(prompt.split())[:60]
    return f"FAKE-{vendor} answer {digest}: {preview}"


class Done(Exception):
    """The fake's final result: what to print on each stream and the exit code.

    Raised from anywhere (argument parsing, prechecks, failure modes) so the one place that
    writes the call record and the output is ``main``.
    """

    def __init__(self, code: int, stdout: str | bytes = "", stderr: str | bytes = "") -> None:
        super().__init__(code)
        self.code = code
        self.stdout = stdout
        self.stderr = stderr


# --------------------------------------------------------------------------------------------
# Argument grammars
# --------------------------------------------------------------------------------------------


class Opt:
    """One flag of a vendor grammar.

    ``value`` is the metavar when the flag takes a value (None = boolean). ``variadic`` mimics
    commander's ``<x...>``: it also swallows the following words that do not start with ``-``,
    which is how a real ``claude --tools Read "prompt"`` eats the prompt.
    """

    def __init__(
        self,
        names: tuple[str, ...],
        value: str | None = None,
        choices: tuple[str, ...] = (),
        repeat: bool = False,
        variadic: bool = False,
    ) -> None:
        self.names = names
        self.value = value
        self.choices = choices
        self.repeat = repeat
        self.variadic = variadic

    @property
    def key(self) -> str:
        """Name under which the parsed value is stored: the longest spelling, snake_cased."""
        return max(self.names, key=len).lstrip("-").replace("-", "_")

    @property
    def long(self) -> str:
        """The display name argument parsers use in their messages."""
        return max(self.names, key=len)


class Parsed:
    """Result of parsing an argv against a grammar."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.positionals: list[str] = []
        self.rest: list[str] = []
        self.seen: dict[str, str] = {}

    def get(self, key: str, default: Any = None) -> Any:
        """Return a parsed value by key, ``default`` when the flag was not given."""
        return self.values.get(key, default)


def _camel_to_kebab(name: str) -> str:
    """Map yargs' camelCase aliases (``--outputFormat``) to the kebab spelling."""
    return "".join("-" + c.lower() if c.isupper() else c for c in name)


class Grammar:
    """A vendor's command-line grammar plus the message style of its argument parser.

    ``family`` selects the parser conventions and error texts: ``clap`` (Rust, codex),
    ``commander`` (Node, claude and kimi-code), ``yargs`` (Node, gemini and qwen), ``click``
    (Python/typer, kimi-cli) and ``pi`` (pi's hand-written parser).
    """

    def __init__(
        self,
        family: str,
        prog: str,
        usage: str,
        opts: list[Opt],
        max_positionals: int | None = None,
        description: str = "",
    ) -> None:
        self.family = family
        self.prog = prog
        self.usage = usage
        self.opts = opts
        self.max_positionals = max_positionals
        self.description = description

    def find(self, name: str) -> Opt | None:
        """Return the option spelled ``name`` (``--model`` or ``-m``), if the grammar has it."""
        for opt in self.opts:
            if name in opt.names:
                return opt
        if self.family == "yargs" and name.startswith("--"):
            kebab = "--" + _camel_to_kebab(name[2:])
            if kebab != name:
                return self.find(kebab)
        return None

    def help_text(self) -> str:
        """A ``--help`` page listing exactly the accepted flags."""
        lines = [self.usage, ""]
        if self.description:
            lines += [self.description, ""]
        lines.append("Options:")
        for opt in self.opts:
            spelled = ", ".join(opt.names)
            if opt.value is not None:
                spelled += f" <{opt.value}>"
            if opt.choices:
                spelled += "  (choices: " + ", ".join(opt.choices) + ")"
            lines.append("  " + spelled)
        return "\n".join(lines) + "\n"

    # -- error messages, one style per parser family ---------------------------------------

    def _click_error(self, text: str) -> Done:
        header = f"Usage: {self.prog} [OPTIONS]\nTry '{self.prog} -h' for help.\n\n"
        return Done(2, stderr=f"{header}Error: {text}\n")

    def _yargs_error(self, text: str) -> Done:
        return Done(1, stderr=self.help_text() + "\n" + text + "\n")

    def _clap_flag(self, opt: Opt) -> str:
        return opt.long + (f" <{opt.value}>" if opt.value else "")

    def _commander_flag(self, opt: Opt) -> str:
        return ", ".join(opt.names) + (f" <{opt.value}>" if opt.value else "")

    def unknown(self, token: str) -> Done:
        """The parser's unknown-flag failure (``token`` is the argument as typed)."""
        name = token.split("=", 1)[0]
        if self.family == "clap":
            return Done(
                2,
                stderr=(
                    f"error: unexpected argument '{name}' found\n\n"
                    f"  tip: to pass '{name}' as a value, use '-- {name}'\n\n"
                    f"{self.usage}\n\nFor more information, try '--help'.\n"
                ),
            )
        if self.family == "commander":
            return Done(1, stderr=f"error: unknown option '{token}'\n")
        if self.family == "click":
            return self._click_error(f"No such option: {name}")
        if self.family == "pi":
            return Done(1, stderr=f"Error: Unknown option: {name}\n")
        raise AssertionError("yargs collects unknown arguments instead")

    def yargs_unknown(self, names: list[str]) -> Done:
        """yargs reports all unknown arguments at once, singular or plural like yargs does."""
        label = "Unknown argument" if len(names) == 1 else "Unknown arguments"
        return self._yargs_error(f"{label}: {', '.join(names)}")

    def missing_value(self, opt: Opt, spelled: str) -> Done:
        """The parser's failure for a value-taking flag given without a value."""
        if self.family == "clap":
            return Done(
                2,
                stderr=(
                    f"error: a value is required for '{self._clap_flag(opt)}' but none was "
                    "supplied\n\nFor more information, try '--help'.\n"
                ),
            )
        if self.family == "commander":
            return Done(1, stderr=f"error: option '{self._commander_flag(opt)}' argument missing\n")
        if self.family == "click":
            return self._click_error(f"Option '{spelled}' requires an argument.")
        if self.family == "yargs":
            return self._yargs_error(f"Not enough arguments following: {spelled.lstrip('-')}")
        return Done(1, stderr=f"Error: {spelled} requires a value\n")

    def bad_choice(self, opt: Opt, spelled: str, value: str) -> Done:
        """The parser's failure for a value outside the flag's choices."""
        if self.family == "clap":
            return Done(
                2,
                stderr=(
                    f"error: invalid value '{value}' for '{self._clap_flag(opt)}'\n"
                    f"  [possible values: {', '.join(opt.choices)}]\n\n"
                    "For more information, try '--help'.\n"
                ),
            )
        if self.family == "commander":
            return Done(
                1,
                stderr=(
                    f"error: option '{self._commander_flag(opt)}' argument '{value}' is invalid."
                    f" Allowed choices are {', '.join(opt.choices)}.\n"
                ),
            )
        if self.family == "click":
            choices = ", ".join(f"'{c}'" for c in opt.choices)
            return self._click_error(
                f"Invalid value for '{spelled}': '{value}' is not one of {choices}."
            )
        if self.family == "yargs":
            choices = ", ".join(f'"{c}"' for c in opt.choices)
            return self._yargs_error(
                f'Invalid values:\n  Argument: {opt.long.lstrip("-")}, Given: "{value}", '
                f"Choices: {choices}"
            )
        return Done(
            1,
            stderr=f'Error: Invalid value "{value}" for {opt.long}. '
            f"Valid values: {', '.join(opt.choices)}\n",
        )

    def repeated(self, opt: Opt) -> Done:
        """clap refuses a non-repeatable flag given twice; the other parsers keep the last."""
        return Done(
            2,
            stderr=(
                f"error: the argument '{self._clap_flag(opt)}' cannot be used multiple times\n\n"
                f"{self.usage}\n\nFor more information, try '--help'.\n"
            ),
        )

    def too_many(self, token: str, count: int) -> Done:
        """The parser's failure for a positional argument the grammar has no room for."""
        if self.family == "clap":
            return Done(
                2,
                stderr=(
                    f"error: unexpected argument '{token}' found\n\n{self.usage}\n\n"
                    "For more information, try '--help'.\n"
                ),
            )
        if self.family == "commander":
            limit = self.max_positionals or 0
            noun = "argument" if limit == 1 else "arguments"
            return Done(
                1,
                stderr=f"error: too many arguments. Expected {limit} {noun} but got {count}.\n",
            )
        if self.family == "click":
            return self._click_error(f"Got unexpected extra argument ({token})")
        return Done(1, stderr=f"Error: Unexpected argument: {token}\n")

    # -- the parser ------------------------------------------------------------------------

    def parse(self, argv: list[str], *, stop_at_positional: bool = False) -> Parsed:
        """Parse ``argv`` with this family's conventions; raise ``Done`` on any usage error.

        With ``stop_at_positional`` the first positional and everything after it land in
        ``rest`` (clap's subcommand dispatch).
        """
        parsed = Parsed()
        unknown: list[str] = []
        i = 0
        while i < len(argv):
            token = argv[i]
            i += 1
            if token == "--" and self.family != "pi":
                parsed.positionals.extend(argv[i:])
                break
            if token.startswith("--") and len(token) > 2:
                i = self._parse_long(token, argv, i, parsed, unknown)
            elif token.startswith("-") and len(token) > 1 and not _is_number(token):
                i = self._parse_short(token, argv, i, parsed, unknown)
            elif stop_at_positional:
                parsed.rest = argv[i - 1 :]
                break
            else:
                parsed.positionals.append(token)
        if unknown:
            raise self.yargs_unknown(unknown)
        limit = self.max_positionals
        if limit is not None and len(parsed.positionals) > limit:
            raise self.too_many(parsed.positionals[limit], len(parsed.positionals))
        return parsed

    def _parse_long(
        self, token: str, argv: list[str], i: int, parsed: Parsed, unknown: list[str]
    ) -> int:
        name, eq, inline = token.partition("=")
        opt = self.find(name)
        negated = False
        if opt is None and self.family == "yargs" and name.startswith("--no-"):
            candidate = self.find("--" + name[5:])
            if candidate is not None and candidate.value is None:
                opt, negated = candidate, True
        if opt is None:
            if self.family == "yargs":
                unknown.append(name.lstrip("-"))
                return i
            raise self.unknown(token)
        if opt.value is None:
            if eq:
                if self.family == "clap":
                    raise Done(
                        2,
                        stderr=(
                            f"error: unexpected value '{inline}' for '{name}' found; no more "
                            "were expected\n\nFor more information, try '--help'.\n"
                        ),
                    )
                if self.family == "click":
                    raise self._click_error(f"Option '{name}' does not take a value.")
                if self.family in ("commander", "pi"):
                    raise self.unknown(token)
                negated = inline.lower() in ("false", "0", "no")
            self._store(opt, name, not negated, parsed)
            return i
        if eq:
            value = inline
        else:
            value, i = self._take_value(opt, name, argv, i)
        self._store(opt, name, value, parsed)
        if opt.variadic:
            while i < len(argv) and not argv[i].startswith("-"):
                parsed.values[opt.key].append(argv[i])
                i += 1
        return i

    def _parse_short(
        self, token: str, argv: list[str], i: int, parsed: Parsed, unknown: list[str]
    ) -> int:
        if self.family == "pi":
            opt = self.find(token)
            if opt is None:
                raise self.unknown(token)
            if opt.value is None:
                self._store(opt, token, True, parsed)
                return i
            value, i = self._take_value(opt, token, argv, i)
            self._store(opt, token, value, parsed)
            return i
        j = 1
        while j < len(token):
            spelled = "-" + token[j]
            opt = self.find(spelled)
            if opt is None:
                if self.family == "yargs":
                    unknown.append(token[j])
                    j += 1
                    continue
                raise self.unknown(spelled if self.family != "commander" else token)
            if opt.value is None:
                self._store(opt, spelled, True, parsed)
                j += 1
                continue
            attached = token[j + 1 :]
            if attached:
                if self.family in ("clap", "yargs"):
                    attached = attached.removeprefix("=")
                value = attached
            else:
                value, i = self._take_value(opt, spelled, argv, i)
            self._store(opt, spelled, value, parsed)
            if opt.variadic:
                while i < len(argv) and not argv[i].startswith("-"):
                    parsed.values[opt.key].append(argv[i])
                    i += 1
            break
        return i

    def _take_value(self, opt: Opt, spelled: str, argv: list[str], i: int) -> tuple[str, int]:
        if i >= len(argv):
            raise self.missing_value(opt, spelled)
        value = argv[i]
        looks_like_flag = value.startswith("-") and value != "-" and not _is_number(value)
        if looks_like_flag and self.family in ("clap", "yargs"):
            raise self.missing_value(opt, spelled)
        return value, i + 1

    def _store(self, opt: Opt, spelled: str, value: Any, parsed: Parsed) -> None:
        if isinstance(value, str) and opt.choices and value not in opt.choices:
            raise self.bad_choice(opt, spelled, value)
        if opt.repeat or opt.variadic:
            parsed.values.setdefault(opt.key, []).append(value)
        else:
            if opt.key in parsed.values and self.family == "clap":
                raise self.repeated(opt)
            parsed.values[opt.key] = value
        parsed.seen[opt.key] = spelled


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Vendors
# --------------------------------------------------------------------------------------------


class Plan:
    """What a parsed headless command line asks for.

    ``arg_prompt`` is the prompt given in argv (positional or ``-p``); ``read_stdin`` says
    whether this vendor reads stdin in this invocation (it is read to EOF when it is not a
    TTY, so an open pipe hangs the fake like it hangs codex and pi). When both are present
    the prompt is the argument, a blank line, then stdin.
    """

    def __init__(
        self,
        fmt: str = "text",
        arg_prompt: str | None = None,
        read_stdin: bool = True,
        out_file: str | None = None,
        chdir: str | None = None,
        model: str = "fake-model",
        parsed: Parsed | None = None,
    ) -> None:
        self.fmt = fmt
        self.arg_prompt = arg_prompt
        self.read_stdin = read_stdin
        self.out_file = out_file
        self.chdir = chdir
        self.model = model
        self.parsed = parsed if parsed is not None else Parsed()


def _j(obj: Any, indent: int | None = None) -> str:
    """JSON like Node's ``JSON.stringify``: compact, non-ASCII kept (garbage bytes too)."""
    if indent is None:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(obj, ensure_ascii=False, indent=indent)


def _usage(prompt: str, answer: str) -> dict[str, int]:
    return {"input_tokens": max(1, len(prompt) // 4), "output_tokens": max(1, len(answer) // 4)}


class Vendor:
    """Base class: one subclass per vendor CLI (and per kimi variant)."""

    label = "vendor"
    variant = "vendor"
    default_version = "0.0.0"
    grammar: Grammar

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.version = str(options.get("version", self.default_version))

    def version_text(self) -> str:
        """What ``--version`` prints (the fakes share the real CLIs' version formats)."""
        return self.version + "\n"

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
        """The vendor's failure for ``kind`` (one of ``FAILURE_MODES``)."""
        raise NotImplementedError

    def _not_emulated(self, what: str) -> Done:
        return Done(EXIT_NOT_EMULATED, stderr=f"FAKE: {self.label}: {what} is not emulated\n")

    def _interactive(self) -> Done:
        return self._not_emulated("the interactive UI (no headless flag given)")

    @staticmethod
    def _retry(message: str, retry_after: Any) -> str:
        return message if retry_after is None else f"{message} Retry after {retry_after}s"


def _stdin_isatty() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False


# -- codex -------------------------------------------------------------------------------------

_CODEX_SHARED = [
    Opt(("-c", "--config"), "key=value", repeat=True),
    Opt(("-m", "--model"), "MODEL"),
    Opt(
        ("-s", "--sandbox"), "SANDBOX_MODE", ("read-only", "workspace-write", "danger-full-access")
    ),
    Opt(("-C", "--cd"), "DIR"),
    Opt(("--full-auto",)),
    Opt(("--dangerously-bypass-approvals-and-sandbox",)),
    Opt(("-h", "--help")),
]


class Codex(Vendor):
    """codex-cli (Rust, clap): ``codex exec`` is the headless entry point."""

    label = "codex"
    variant = "codex"
    default_version = "0.169.0"

    top = Grammar(
        "clap",
        "codex",
        "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]",
        [Opt(("-V", "--version")), *_CODEX_SHARED],
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
            *_CODEX_SHARED,
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

    def version_text(self) -> str:
        return f"codex-cli {self.version}\n"

    def plan(self, argv: list[str]) -> Plan:
        top = self.top.parse(argv, stop_at_positional=True)
        if top.get("version"):
            raise Done(0, stdout=self.version_text())
        if top.get("help"):
            raise Done(0, stdout=self.top.help_text())
        if not top.rest or top.rest[0] not in ("exec", "e", *self.other_commands):
            if not _stdin_isatty():
                raise Done(1, stderr="Error: stdin is not a terminal\n")
            raise self._interactive()
        if top.rest[0] not in ("exec", "e"):
            raise self._not_emulated(f"the '{top.rest[0]}' subcommand")
        parsed = self.grammar.parse(top.rest[1:])
        if parsed.get("help"):
            raise Done(0, stdout=self.grammar.help_text())
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
        if plan.parsed.positionals == ["-"] or not _stdin_isatty():
            return Done(1, stderr="No prompt provided via stdin.\n")
        return Done(
            1,
            stderr="No prompt provided. Either specify one as an argument or pipe the prompt "
            "into stdin.\n",
        )

    def _banner(self, plan: Plan) -> str:
        sandbox = plan.parsed.get("sandbox", "read-only")
        reading = "" if plan.parsed.positionals else "Reading prompt from stdin...\n"
        return (
            f"{reading}OpenAI Codex v{self.version} (research preview)\n--------\n"
            f"workdir: {os.getcwd()}\nmodel: {plan.model}\nprovider: openai\n"
            f"approval: never\nsandbox: {sandbox}\nsession id: {_uuid4()}\n--------\n"
        )

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        stderr = ""
        if plan.out_file is not None:
            try:
                with open(plan.out_file, "wb") as handle:
                    handle.write(answer.encode("utf-8", "surrogateescape"))
            except OSError as exc:
                stderr = f"Failed to write last message file {plan.out_file!r}: {exc}\n"
        if plan.fmt == "json":
            events = [
                {"type": "thread.started", "thread_id": _uuid4()},
                {"type": "turn.started"},
                {
                    "type": "item.completed",
                    "item": {"id": "item_0", "type": "agent_message", "text": answer},
                },
                {
                    "type": "turn.completed",
                    "usage": {**_usage(prompt, answer), "cached_input_tokens": 0},
                },
            ]
            return Done(0, stdout="".join(_j(e) + "\n" for e in events), stderr=stderr)
        return Done(0, stdout=answer + "\n", stderr=self._banner(plan) + stderr)

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        message = {
            "rate_limit": "exceeded retry limit, last status: 429 Too Many Requests",
            "auth": "unexpected status 401 Unauthorized: Missing bearer or basic authentication "
            "in header",
            "server_error": "unexpected status 500 Internal Server Error",
            "connection": "stream disconnected before completion: error sending request for url "
            "(https://api.openai.com/v1/responses)",
        }[kind]
        message = self._retry(message, retry_after)
        if plan.fmt == "json":
            events = [
                {"type": "thread.started", "thread_id": _uuid4()},
                {"type": "turn.started"},
                {"type": "error", "message": message},
                {"type": "turn.failed", "error": {"message": message}},
            ]
            return Done(1, stdout="".join(_j(e) + "\n" for e in events))
        return Done(1, stderr=self._banner(plan) + f"ERROR: {message}\n")


# -- claude ------------------------------------------------------------------------------------


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
        parsed = self.grammar.parse(argv)
        if parsed.get("version"):
            raise Done(0, stdout=self.version_text())
        if parsed.get("help"):
            raise Done(0, stdout=self.grammar.help_text())
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
        self, answer: str, prompt: str, *, error: bool = False, status: int | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = {
            "type": "result",
            "subtype": "success",
            "is_error": error,
            "duration_ms": 1234,
            "duration_api_ms": 1200,
            "num_turns": 1,
            "result": answer,
            "session_id": self.session,
            "total_cost_usd": 0 if error else 0.0012,
            "usage": {"input_tokens": 0, "output_tokens": 0} if error else _usage(prompt, answer),
        }
        if status is not None:
            result["api_error_status"] = status
        return result

    @property
    def session(self) -> str:
        """One session id per invocation, shared by all the events it prints."""
        if not hasattr(self, "_session"):
            self._session = _uuid4()
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
        return "".join(_j(e) + "\n" for e in (init, message, result))

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        if plan.fmt == "json":
            return Done(0, stdout=_j(self._result(answer, prompt)) + "\n")
        if plan.fmt == "stream-json":
            return Done(0, stdout=self._events(plan, answer, self._result(answer, prompt)))
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
        result = self._result(json_text, "", error=True, status=status)
        if plan.fmt == "json":
            return Done(1, stdout=_j(result) + "\n")
        if plan.fmt == "stream-json":
            return Done(1, stdout=self._events(plan, json_text, result))
        return Done(1, stdout=text + "\n")


# -- gemini and qwen (yargs) -------------------------------------------------------------------

_STACK = (
    "    at Turn.run (file:///usr/lib/node_modules/{pkg}/dist/src/core/turn.js:112:23)\n"
    "    at async GeminiClient.sendMessageStream (file:///usr/lib/node_modules/{pkg}/dist/src/"
    "core/client.js:540:20)\n"
    "    at async runNonInteractive (file:///usr/lib/node_modules/{pkg}/dist/src/"
    "nonInteractiveCli.js:187:24)\n"
)


class Gemini(Vendor):
    """gemini-cli (Node, yargs): headless with ``-p``, a positional query or piped stdin."""

    label = "gemini"
    variant = "gemini"
    default_version = "0.61.0"
    package = "@google/gemini-cli"
    grammar = Grammar(
        "yargs",
        "gemini",
        "Usage: gemini [options] [command]",
        [
            Opt(("-v", "--version")),
            Opt(("-h", "--help")),
            Opt(("-o", "--output-format"), "string", ("text", "json", "stream-json")),
            Opt(("-m", "--model"), "string"),
            Opt(("-p", "--prompt"), "string"),
            Opt(("--approval-mode",), "string", ("default", "auto_edit", "yolo", "plan")),
            Opt(("--skip-trust",)),
            Opt(("-y", "--yolo")),
            Opt(("-s", "--sandbox")),
            Opt(("-d", "--debug")),
        ],
        description="Gemini CLI - Launch an interactive CLI, use -p/--prompt for "
        "non-interactive mode",
    )

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.grammar.parse(argv)
        if parsed.get("version"):
            raise Done(0, stdout=self.version_text())
        if parsed.get("help"):
            raise Done(0, stdout=self.grammar.help_text())
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
        if arg_prompt is None and _stdin_isatty():
            raise self._interactive()
        return Plan(
            fmt=parsed.get("output_format", "text"),
            arg_prompt=arg_prompt,
            model=parsed.get("model", "gemini-2.5-pro"),
            parsed=parsed,
        )

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
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
            42,
            stderr="No input provided via stdin. Input can be provided by piping data into "
            "gemini or using the --prompt option.\n",
        )

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        if plan.fmt == "json":
            return Done(0, stdout=_j({"response": answer, "stats": {"models": {}}}, 2) + "\n")
        if plan.fmt == "stream-json":
            session = _uuid4()
            events = [
                {"type": "init", "session_id": session, "model": plan.model},
                {"type": "message", "role": "user", "content": prompt},
                {"type": "message", "role": "assistant", "content": answer, "delta": True},
                {"type": "result", "status": "success", "stats": _usage(prompt, answer)},
            ]
            return Done(0, stdout="".join(_j(e) + "\n" for e in events))
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


class Qwen(Gemini):
    """qwen-code (Node, yargs, a gemini fork): JSON output is an array of events."""

    label = "qwen"
    variant = "qwen"
    default_version = "0.15.10"
    package = "@qwen-code/qwen-code"
    grammar = Grammar(
        "yargs",
        "qwen",
        "Usage: qwen [options] [command]",
        [
            Opt(("-v", "--version")),
            Opt(("-h", "--help")),
            Opt(("-o", "--output-format"), "string", ("text", "json", "stream-json")),
            Opt(("-m", "--model"), "string"),
            Opt(("-p", "--prompt"), "string"),
            Opt(("--approval-mode",), "string", ("plan", "default", "auto-edit", "yolo")),
            Opt(("-y", "--yolo")),
            Opt(("-s", "--sandbox")),
            Opt(("-d", "--debug")),
        ],
        description="Qwen Code - Launch an interactive CLI, use -p/--prompt for "
        "non-interactive mode",
    )

    def precheck(self, plan: Plan, env: dict[str, str]) -> None:
        """qwen has no trusted-folder gate."""

    def no_prompt(self, plan: Plan) -> Done:
        return Done(
            1,
            stderr="No input provided via stdin. Input can be provided by piping data into "
            "qwen or using the --prompt option.\n",
        )

    def deliver(self, plan: Plan, answer: str, prompt: str) -> Done:
        session = _uuid4()
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
                "usage": _usage(prompt, answer),
            },
        ]
        if plan.fmt == "json":
            return Done(0, stdout=_j(events) + "\n")
        if plan.fmt == "stream-json":
            return Done(0, stdout="".join(_j(e) + "\n" for e in events))
        return Done(0, stdout=answer + "\n")

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        message = {
            "rate_limit": "[API Error: 429 Too Many Requests]",
            "auth": "[API Error: 401 Incorrect API key provided]",
            "server_error": "[API Error: 500 Internal Server Error]",
            "connection": "[API Error: Connection error.]",
        }[kind]
        return Done(1, stderr=self._retry(message, retry_after) + "\n")


# -- pi ----------------------------------------------------------------------------------------

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
            Opt(("--tools",), "tools"),
            Opt(("--provider",), "name"),
            Opt(("--model",), "id"),
            Opt(("--api-key",), "key"),
            Opt(("--system-prompt",), "text"),
            Opt(("--append-system-prompt",), "text"),
            Opt(("--thinking",), "level", ("off", "minimal", "low", "medium", "high", "xhigh")),
            Opt(("--mode",), "mode", ("text", "json", "rpc")),
        ],
    )

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.grammar.parse(argv)
        if parsed.get("version"):
            raise Done(0, stdout=self.version_text())
        if parsed.get("help"):
            raise Done(0, stdout=self.grammar.help_text())
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
            raise self._not_emulated("--mode rpc")
        if not parsed.get("print") and _stdin_isatty():
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
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "usage": _usage(prompt, answer),
                "stopReason": "stop",
            }
            events = [
                {"type": "agent_start"},
                {"type": "message_end", "message": message},
                {"type": "agent_end", "messages": [message]},
            ]
            return Done(0, stdout="".join(_j(e) + "\n" for e in events))
        return Done(0, stdout=answer + "\n")

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        message = {
            "rate_limit": "429 Too Many Requests: rate limit exceeded",
            "auth": "401 Unauthorized: invalid api key",
            "server_error": "500 Internal Server Error",
            "connection": "Connection error.",
        }[kind]
        return Done(1, stderr=self._retry(message, retry_after) + "\n")


# -- kimi --------------------------------------------------------------------------------------


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
            Opt(("-w", "--work-dir"), "DIRECTORY"),
            Opt(("-y", "--yolo")),
        ],
        max_positionals=0,
    )

    def version_text(self) -> str:
        return f"kimi, version {self.version}\n"

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.grammar.parse(argv)
        if parsed.get("version"):
            raise Done(0, stdout=self.version_text())
        if parsed.get("help"):
            raise Done(0, stdout=self.grammar.help_text())
        retries = parsed.get("max_retries_per_step")
        if retries is not None and not retries.lstrip("-").isdigit():
            raise self.grammar._click_error(
                f"Invalid value for '--max-retries-per-step': '{retries}' is not a valid integer."
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
            return Done(0, stdout=_j({"role": "assistant", "content": answer}) + "\n")
        return Done(0, stdout=answer + "\n")

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        message = {
            "rate_limit": "Error code: 429 - {'error': {'message': 'rate limit reached', "
            "'type': 'rate_limit_reached_error'}}",
            "auth": "Error code: 401 - {'error': {'message': 'Invalid Authentication', "
            "'type': 'invalid_authentication_error'}}",
            "server_error": "Error code: 500 - {'error': {'message': 'Internal server error', "
            "'type': 'server_error'}}",
            "connection": "Connection error.",
        }[kind]
        return Done(75, stdout=self._retry(message, retry_after) + "\n")


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
        ],
        max_positionals=0,
    )

    def plan(self, argv: list[str]) -> Plan:
        parsed = self.grammar.parse(argv)
        if parsed.get("version"):
            raise Done(0, stdout=self.version_text())
        if parsed.get("help"):
            raise Done(0, stdout=self.grammar.help_text())
        if "prompt" not in parsed.values:
            raise self._interactive()
        if parsed.get("plan"):
            raise Done(1, stderr="error: --plan cannot be used with --prompt\n")
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
        if plan.fmt != "stream-json":
            return Done(0, stdout=f"• {answer}\n")
        parts = bool(self.options.get("content_parts"))

        def content(text: str) -> Any:
            return [{"type": "text", "text": text}] if parts else text

        lines: list[dict[str, Any]] = []
        if answer:
            lines.append({"role": "assistant", "content": content(answer[: len(answer) // 2])})
        if self.options.get("tool_call"):
            call = {"id": "call_0", "type": "function", "function": {"name": "ReadFile"}}
            lines.append({"role": "assistant", "content": content(""), "tool_calls": [call]})
            lines.append({"role": "tool", "tool_call_id": "call_0", "content": "fake file"})
        lines.append({"role": "assistant", "content": content(answer)})
        return Done(0, stdout="".join(_j(line) + "\n" for line in lines))

    def failure(self, plan: Plan, kind: str, retry_after: Any) -> Done:
        message = {
            "rate_limit": "provider.rate_limit: 429 Too Many Requests",
            "auth": "provider.auth_error: 401 Unauthorized",
            "server_error": "provider.server_error: 500 Internal Server Error",
            "connection": "provider.connection_error",
        }[kind]
        return Done(1, stderr=self._retry(message, retry_after) + "\n")


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


def make_vendor(vendor: str, options: dict[str, Any]) -> Vendor:
    """Build the vendor object for an executable name (kimi honours option ``variant``)."""
    if vendor == "kimi":
        variant = KIMI_VARIANTS.get(str(options.get("variant", "kimi-cli")))
        if variant is None:
            raise Done(
                EXIT_FAKE_CONFIG,
                stderr=f"FAKE: unknown kimi variant {options.get('variant')!r}; "
                f"use one of {sorted(KIMI_VARIANTS)}\n",
            )
        cls = {"kimi-cli": KimiCli, "kimi-code": KimiCode, "kimi-cli-1.52": KimiCliArchived}
        return cls[variant](options)
    classes: dict[str, Callable[[dict[str, Any]], Vendor]] = {
        "codex": Codex,
        "claude": Claude,
        "gemini": Gemini,
        "qwen": Qwen,
        "pi": Pi,
    }
    if vendor not in classes:
        raise Done(EXIT_FAKE_CONFIG, stderr=f"FAKE: no such vendor {vendor!r}\n")
    return classes[vendor](options)


# --------------------------------------------------------------------------------------------
# State files, I/O and the modes
# --------------------------------------------------------------------------------------------


def _uuid4() -> str:
    """A random UUID string without importing ``uuid`` (which drags in ``platform``)."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:]}"


def _append_line(path: str, obj: Any) -> None:
    """Append one JSON line under an exclusive fcntl lock: concurrent fakes share the file."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(json.dumps(obj) + "\n")
        handle.flush()


def _bump_counter(path: str) -> int:
    """Increment and return the per-fake counter (used by ``rate_limit`` with ``times``)."""
    with open(path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        text = handle.read().strip()
        count = (int(text) if text else 0) + 1
        handle.seek(0)
        handle.truncate()
        handle.write(str(count))
        handle.flush()
    return count


def _write_fd(fd: int, data: str | bytes) -> None:
    """Write everything to a raw fd (no Python buffering: nothing lost on fork or kill)."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    view = memoryview(raw)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_stdin() -> str | None:
    """Read stdin to EOF unless it is a TTY or closed; ``None`` when nothing arrived."""
    try:
        if os.isatty(0):
            return None
    except OSError:
        return None
    chunks = []
    while True:
        try:
            chunk = os.read(0, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", "surrogateescape")
    return text or None


def _sleep_forever() -> None:
    while True:
        time.sleep(3600)


def _load_control(state: str, name: str) -> tuple[str, dict[str, Any]]:
    path = os.path.join(state, f"{name}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return "ok", {}
    try:
        control = json.loads(text)
        mode = control.get("mode", "ok")
        options = control.get("options", {}) or {}
    except (ValueError, AttributeError) as exc:
        raise Done(EXIT_FAKE_CONFIG, stderr=f"FAKE: broken control file {path}: {exc}\n") from exc
    if mode not in MODES:
        raise Done(EXIT_FAKE_CONFIG, stderr=f"FAKE: unknown mode {mode!r} in {path}\n")
    return mode, options


def _bin_dir() -> str:
    """The directory of the executable that was run (symlinks resolved): state lives there."""
    main_module = sys.modules.get("__main__")
    script = getattr(main_module, "__file__", None) or sys.argv[0]
    return os.path.dirname(os.path.realpath(script))


class _Recorder:
    """Writes the invocation's call line once, at the latest possible safe moment."""

    def __init__(self, path: str, record: dict[str, Any]) -> None:
        self.path = path
        self.record = record
        self.written = False

    def write(self) -> None:
        if not self.written:
            self.written = True
            _append_line(self.path, self.record)


def _crash(vendor: str) -> Done:
    return Done(
        1,
        stderr=(
            "Traceback (most recent call last):\n"
            f'  File "/opt/{vendor}/cli.py", line 88, in main\n'
            "    run(args)\n"
            f'  File "/opt/{vendor}/cli.py", line 42, in run\n'
            "    raise RuntimeError(message)\n"
            f"RuntimeError: FAKE-{vendor} crashed on purpose\n"
        ),
    )


def _write_attempts(target: Any) -> list[dict[str, Any]]:
    """Try to create ``fake-wrote.txt`` in the cwd and in ``target``; report each outcome."""
    places = [os.getcwd()] + ([str(target)] if target else [])
    results = []
    for place in places:
        path = os.path.join(place, "fake-wrote.txt")
        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("written by a fake CLI\n")
        except OSError as exc:
            results.append({"path": path, "ok": False, "error": str(exc)})
        else:
            results.append({"path": path, "ok": True, "error": None})
    return results


def _interactive_modes(mode: str, recorder: _Recorder) -> None:
    """Modes that emulate a CLI stuck on an interactive question instead of answering."""
    if mode == "needs_tty":
        recorder.write()
        if not _stdin_isatty():
            raise Done(1, stderr=NEEDS_TTY_MESSAGE + "\n")
        _write_fd(1, TRUST_PROMPT)
    else:
        recorder.write()
        _write_fd(1, LOGIN_PROMPT + "\n")
    while True:
        try:
            if not os.read(0, 1024):
                break
        except OSError:
            break
    _sleep_forever()


def _run(vendor: str, state: str, recorder: _Recorder) -> Done:
    mode, options = _load_control(state, vendor)
    recorder.record["mode"] = mode
    cli = make_vendor(vendor, options)
    recorder.record["variant"] = cli.variant
    if not sys.argv[1:] and vendor == "kimi":
        raise Done(EXIT_FORBIDDEN, stderr="FAKE: kimi run with no arguments\n")
    plan = cli.plan(sys.argv[1:])
    if plan.chdir:
        try:
            os.chdir(plan.chdir)
        except OSError as exc:
            raise Done(
                1, stderr=f"Error: cannot change directory to {plan.chdir}: {exc}\n"
            ) from exc
    cli.precheck(plan, dict(os.environ))
    if mode in ("needs_tty", "login_prompt"):
        _interactive_modes(mode, recorder)
    stdin_text = _read_stdin() if plan.read_stdin else None
    recorder.record["stdin"] = stdin_text
    prompt = "\n\n".join(p for p in (plan.arg_prompt, stdin_text) if p)
    if not prompt.strip():
        raise cli.no_prompt(plan)
    if mode == "write_attempt":
        recorder.record["writes"] = _write_attempts(options.get("target"))
    recorder.write()
    return _behave(vendor, mode, options, cli, plan, prompt, state)


def _behave(
    vendor: str,
    mode: str,
    options: dict[str, Any],
    cli: Vendor,
    plan: Plan,
    prompt: str,
    state: str,
) -> Done:
    """Everything after the record is written: the mode's behaviour."""
    answer = str(options["answer"]) if "answer" in options else expected_answer(vendor, prompt)
    if mode == "rate_limit":
        times = options.get("times")
        if times is None or _bump_counter(os.path.join(state, f"{vendor}.count")) <= int(times):
            raise cli.failure(plan, "rate_limit", options.get("retry_after"))
    elif mode in FAILURE_MODES:
        raise cli.failure(plan, mode, None)
    elif mode == "slow":
        time.sleep(float(options.get("delay", 1.0)))
    elif mode in ("hang", "ignore_term"):
        _sleep_forever()
    elif mode == "crash":
        raise _crash(vendor)
    elif mode == "garbage":
        cut = len(answer) // 2
        answer = f"{answer[:cut]}{GARBAGE}{answer[cut:]} \udcc3("
    elif mode == "empty":
        answer = ""
    elif mode == "echo":
        answer = prompt
    elif mode == "huge":
        remaining = int(options.get("bytes", 1 << 20))
        line = b"x" * 79 + b"\n"
        chunk = line * ((1 << 16) // len(line) + 1)
        while remaining > 0:
            piece = chunk[:remaining]
            _write_fd(1, piece)
            remaining -= len(piece)
    elif mode == "grandchild":
        pid = os.fork()
        if pid == 0:
            os.setsid()
            time.sleep(3600)
            os._exit(0)
        _append_line(os.path.join(state, f"{vendor}.grandchildren"), pid)
    return cli.deliver(plan, answer, prompt)


def main(vendor: str) -> None:
    """Run the fake ``vendor`` CLI with ``sys.argv`` and exit like the real one would."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    state = os.path.join(_bin_dir(), ".fake")
    try:
        if _load_control(state, vendor)[0] == "ignore_term":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except (Done, OSError):
        pass  # reported by _run, which loads the control file again
    try:
        stdin_isatty = os.isatty(0)
    except OSError:
        stdin_isatty = False
    record: dict[str, Any] = {
        "argv": sys.argv[1:],
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "stdin": None,
        "stdin_isatty": stdin_isatty,
        "pid": os.getpid(),
        "pgid": os.getpgid(0),
        "sid": os.getsid(0),
        "ppid": os.getppid(),
        "time": time.time(),
    }
    _append_line(os.path.join(state, f"{vendor}.pids"), os.getpid())
    recorder = _Recorder(os.path.join(state, f"{vendor}.calls.jsonl"), record)
    try:
        done = _run(vendor, state, recorder)
    except Done as failure:
        done = failure
    recorder.write()
    try:
        if done.stdout:
            _write_fd(1, done.stdout)
        if done.stderr:
            _write_fd(2, done.stderr)
    except BrokenPipeError:
        os._exit(1)
    sys.exit(done.code)
