"""The small interface every vendor adapter implements, and the types that cross it.

An adapter knows one CLI: how to call it headless and read-only, how to read its answer, and
how it fails. It never starts a process itself: it builds an `Invocation` for the runner and
reads the runner's raw result back into a `Verdict`. Vendor flags, output formats and error
strings belong in the adapter's own module and nowhere else.

This is the core a spawned call needs. What only some CLIs have is a capability the adapter
subclasses beside `Adapter`: `WarmMode` (adapters/warm.py, a persistent mode), `IdeHost`
(adapters/host.py, a CLI council may run inside) and `KeepsState` (adapters/confinement.py,
state it writes under HOME).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import ClassVar, TypeVar

from council.adapters.failures import (
    AUTH_PATTERNS,
    RATE_LIMIT_PATTERNS,
    first_line,
    matching_line,
    parse_retry_after,
    telling_line,
)
from council.adapters.versions import KnownBroken, probed_version, same_version, versions_in


class Status(StrEnum):
    """How one call ended. Closed: the retry policy and the lead look only at this."""

    OK = "ok"
    EMPTY = "empty"
    TIMEOUT = "timeout"
    # Also covers the other transient backend refusals the protocol retries with backoff:
    # quota, overloaded, HTTP 5xx and connection resets.
    RATE_LIMITED = "rate_limited"
    AUTH = "auth"
    ERROR = "error"


@dataclass(frozen=True)
class CliSettings:
    """What the config file says about one CLI (built-in or user-defined); all optional."""

    name: str
    adapter: str
    command: tuple[str, ...] | None = None
    model: str | None = None
    effort: str | None = None
    timeout_s: float | None = None
    extra_args: tuple[str, ...] = ()
    pass_env: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    # user-defined CLIs only
    input: str = "stdin"
    output: str = "stdout"
    model_flag: str | None = None
    tty: bool = False
    # The arguments of the version probe; None: the adapter's own (`--version`), (): no probe
    # (READY then only checks that the executable exists).
    version_args: tuple[str, ...] | None = None
    # user-defined CLIs only: where it keeps its own state under HOME (`~/` paths), the only
    # places outside its room and temp dir it may write to under write confinement.
    state_dirs: tuple[str, ...] = ()
    # False: never run this CLI lean (docs/lean.md), whatever the run allows.
    lean: bool = True
    warm: bool = True  # a seat may keep this CLI running as a warm worker (runner/warm.py)


@dataclass(frozen=True)
class Tool:
    """A CLI found on this machine: the argv prefix that starts it and what its probe said."""

    name: str
    command: tuple[str, ...]
    version: str | None = None
    variant: str | None = None  # e.g. "kimi-cli" or "kimi-code"


@dataclass(frozen=True)
class Request:
    """One seat call as the adapter sees it."""

    prompt: str
    room: Path
    answer_path: Path  # where a CLI that writes its answer to a file is told to put it
    prompt_path: Path | None = None  # the prompt as written to the record
    model: str | None = None
    effort: str | None = None
    # Set: this call may run lean (docs/lean.md): every given file is inlined whole in the
    # prompt, so the CLI runs with the fewest tools it allows and, where it takes one, this
    # system prompt (council's own) instead of its agent's. None: the CLI's usual set-up.
    lean_prompt: str | None = None


# Where an adapter puts files of council's own in a seat's room (lean mode's system prompt and
# tool settings, for a CLI that reads them only from a file): apart from the given files.
COUNCIL_ROOM_DIR = ".council"


@dataclass(frozen=True)
class Invocation:
    """Exactly what the runner starts. argv is a list: no shell ever sees it."""

    argv: tuple[str, ...]
    stdin: bytes | None  # None: stdin is /dev/null
    env: Mapping[str, str] = field(default_factory=dict)  # set on top of the allow-list
    answer_file: Path | None = None  # read as the answer when the CLI writes one
    tty: bool = False
    room_files: Mapping[str, str] = field(default_factory=dict)  # written into the room first
    output_format: str = "text"  # what this call prints, for `extract` (e.g. "stream-json")


@dataclass(frozen=True)
class RawResult:
    """What one finished process left behind, decoded (UTF-8 with replacement)."""

    exit_code: int | None
    stdout: str
    stderr: str
    answer_file_text: str | None = None
    output_format: str = "text"  # the invocation's: how the adapter asked the CLI to print


@dataclass(frozen=True)
class Usage:
    """What one call cost, as the CLI itself reported it; None where it does not say."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            _plus(self.input_tokens, other.input_tokens),
            _plus(self.output_tokens, other.output_tokens),
            _plus(self.cost_usd, other.cost_usd),
        )


Figure = TypeVar("Figure", int, float)


def model_family(model: str | None, adapters: Iterable[type[Adapter]]) -> str | None:
    """The family of a served model's name by the vendors' own `model_families`
    (`claude-opus-4-5` -> anthropic, `openrouter/openai/gpt-5.2` -> openai): the name's last
    `/` segment is matched, so a gateway's or pi's `provider/model` is found too. None: no
    vendor claims it."""
    if not model:
        return None
    name = model.rsplit("/", 1)[-1].strip().lower()
    for adapter in adapters:
        for pattern, family in adapter.model_families:
            if re.match(rf"(?:{pattern})(?![a-z])", name):
                return family
    return None


def _plus(a: Figure | None, b: Figure | None) -> Figure | None:
    return b if a is None else a if b is None else a + b


@dataclass(frozen=True)
class Verdict:
    """The adapter's reading of one attempt."""

    status: Status
    text: str = ""
    detail: str = ""
    retry_after_s: float | None = None
    usage: Usage | None = None  # set by the runner from `Adapter.read_usage`
    # The models that served the attempt as the CLI named them, the main one first (set by
    # the runner from `Adapter.read_model`, or by a warm driver); (): the CLI named none.
    served: tuple[str, ...] = ()


@dataclass(frozen=True)
class VersionInfo:
    version: str | None
    variant: str | None = None
    unusable: str | None = None  # why this install cannot run a debate, with the fix


@dataclass(frozen=True)
class AuthState:
    """A fast, local look for credentials; never a network call. `found` None = can't tell."""

    found: bool | None
    source: str


@dataclass(frozen=True)
class Billing:
    """Who pays for a CLI's calls, as far as a local look can tell (never a network call):
    `api_key`, a key that bills per token reaches it (`source` names it); `login`, its own
    login (the user's plan or subscription); `none` (no credentials needed); `unknown`."""

    mode: str
    source: str

    @property
    def text(self) -> str:
        return {
            "api_key": f"metered API key ({self.source})",
            "login": f"its own login ({self.source})",
            "none": "nothing billed",
        }.get(self.mode, "unknown")


# A credential that bills per token, by the names vendors give them: an API key, a gateway's
# auth token, a cloud service account (Vertex, Bedrock).
_METERED = re.compile(
    r"(?<![A-Za-z0-9])[A-Z0-9_]*(?:API_KEY|AUTH_TOKEN|APPLICATION_CREDENTIALS|ACCESS_KEY_ID)\b"
    r"|\b[a-z]+ApiKey\b"  # a key saved in a settings file (claude's primaryApiKey)
)


def tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def is_echo(answer: str, prompt: str) -> bool:
    """True when the output merely repeats the prompt (or a large piece of it)."""
    if len(answer) > 2 * len(prompt) + 1024:
        return False  # far longer than the prompt: no echo, and no need to split it all
    a = " ".join(answer.split())
    p = " ".join(prompt.split())
    return bool(a) and (a == p or (len(a) >= 40 and a in p))


class Adapter:
    """One vendor CLI. Subclasses set the class attributes and override what differs."""

    name: ClassVar[str]
    vendor: ClassVar[str]
    binary: ClassVar[str]
    # The version the contract tests (tests/realcli) run now, as doctor shows it; it may
    # name one per program behind the binary ("1.51.0 (kimi-cli), 2.1.0 (kimi-code)").
    tested_version: ClassVar[str | None] = None
    # Earlier pins the realcli suite still covers (its version-gated tests run them too):
    # tested as well. A version in neither is untested, however close (see `is_tested`).
    tested_versions: ClassVar[tuple[str, ...]] = ()
    # Releases known to be broken, with what breaks and the way round (`KnownBroken`).
    known_broken: ClassVar[tuple[KnownBroken, ...]] = ()
    install_hint: ClassVar[str] = ""
    login_hint: ClassVar[str] = ""
    sandbox: ClassVar[str] = "clean room only"  # read-only measures, as doctor shows them
    env_prefixes: ClassVar[tuple[str, ...]] = ()  # this vendor's variables reach its CLI
    env_names: ClassVar[tuple[str, ...]] = ()
    # Variables set for every run of this CLI, its version probe included (a call's own come
    # from `build`, on top of these).
    fixed_env: ClassVar[Mapping[str, str]] = {}
    # Flags that switch off this CLI's approvals or sandbox: refused in any `extra_args`.
    forbidden_args: ClassVar[tuple[str, ...]] = ()
    default_seat: ClassVar[bool] = True  # may take a seat when the user names none
    soft_timeout_s: ClassVar[float] = 300.0
    soft_timeout_high_s: ClassVar[float] = 300.0
    high_efforts: ClassVar[frozenset[str]] = frozenset({"xhigh", "max"})
    efforts: ClassVar[frozenset[str] | None] = None  # None: the CLI takes no effort setting
    # What the built-in `deep` preset seats this CLI with. None: council knows no better than
    # the CLI's own default (the model) or the preset's effort (the effort).
    strongest_model: ClassVar[str | None] = None
    strongest_effort: ClassVar[str | None] = None
    rate_limit_patterns: ClassVar[tuple[re.Pattern[str], ...]] = RATE_LIMIT_PATTERNS
    auth_patterns: ClassVar[tuple[re.Pattern[str], ...]] = AUTH_PATTERNS
    # Texts a CLI shows when it waits at an interactive prompt (only read under a terminal).
    interactive_prompts: ClassVar[tuple[re.Pattern[str], ...]] = tuple(
        re.compile(p, re.IGNORECASE)
        for p in (
            r"do you trust (?:the files in )?this folder",
            r"trust this (?:folder|workspace|directory)",
            r"select (?:a )?(?:login|auth\w*) method",
            r"please (?:log ?in|sign in)",
            r"press enter to (?:open|continue|log ?in)",
            r"open (?:this|the following) (?:url|link) .*(?:log ?in|sign in|authori[sz]e)",
        )
    )

    def __init__(self, settings: CliSettings | None = None) -> None:
        self.settings = settings or CliSettings(name=self.name, adapter=self.name)

    # -- finding and probing -------------------------------------------------------------

    @property
    def display_name(self) -> str:
        return self.settings.name

    def command(self) -> tuple[str, ...]:
        return self.settings.command or (self.binary,)

    def missing_hint(self) -> str:
        """What to do when `command()[0]` is not on PATH. A command the config names is the
        user's own (a wrapper, a path): installing the vendor's package would not bring it."""
        if self.settings.command:
            return f"check `clis.{self.display_name}.command` in your config"
        return f"install: {self.install_hint}" if self.install_hint else ""

    def locate(self) -> tuple[str, ...] | None:
        """The argv prefix that starts this CLI here, or None when it is not installed."""
        command = self.command()
        found = shutil.which(command[0])
        return (found, *command[1:]) if found else None

    def version_argv(self) -> tuple[str, ...] | None:
        """The version probe's arguments; None: this CLI has no probe (READY only checks that
        the executable exists, and the version stays unknown)."""
        return ("--version",)

    def read_version(self, exit_code: int | None, stdout: str, stderr: str) -> VersionInfo:
        text = stdout or stderr
        version = probed_version(text)
        if exit_code != 0 or version is None:
            probe = " ".join((self.binary, *(self.version_argv() or ())))
            said = telling_line(stderr or stdout) or f"exit {exit_code}"
            return VersionInfo(None, unusable=f"`{probe}` failed: {said}")
        return VersionInfo(version)

    @property
    def user_defined(self) -> bool:
        """A CLI of the config's own (`clis.<name>.command`, no built-in adapter)."""
        return self.settings.adapter == "custom"

    def tested(self) -> tuple[str, ...]:
        """Every version council's contract tests ran this CLI at: those `tested_version`
        names and the earlier pins of `tested_versions`."""
        return (*versions_in(self.tested_version), *self.tested_versions)

    def is_tested(self, version: str | None) -> bool | None:
        """True when council's contract tests ran this very version (`same_version`, never a
        prefix: 2.1.19 is not 2.1.197); False when they did not, and always for a user-defined
        CLI (no contract test ran it); None when it cannot tell (no version, or an adapter
        that names none, as the simulator)."""
        if self.user_defined:
            return False
        tested = self.tested()
        if version is None or not tested:
            return None
        return any(same_version(version, t) for t in tested)

    def known_broken_for(
        self, version: str | None, variant: str | None = None
    ) -> list[KnownBroken]:
        """The entries of `known_broken` a CLI reporting `version` (and `variant`) falls in."""
        return [entry for entry in self.known_broken if entry.applies(version, variant)]

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        return AuthState(None, "not checked")

    def billing(self, env: Mapping[str, str], home: Path) -> Billing:
        """Whether this CLI's calls bill a metered API key or its own login, from the
        credential `auth_state` finds first in `env` (the environment the CLI runs with):
        the one the CLI itself uses first."""
        state = self.auth_state(env, home)
        if not state.found:
            return Billing("unknown", state.source)
        if "OAUTH" in state.source.upper():  # CLAUDE_CODE_OAUTH_TOKEN, QWEN_OAUTH: a plan
            return Billing("login", state.source)
        if key := _METERED.search(state.source):
            return Billing("api_key", key.group(0))
        if "/" in state.source:  # a credentials file a login wrote
            return Billing("login", state.source)
        return Billing("unknown", state.source)

    def soft_timeout(self, effort: str | None) -> float:
        if self.settings.timeout_s is not None:
            return float(self.settings.timeout_s)
        return self.soft_timeout_high_s if effort in self.high_efforts else self.soft_timeout_s

    # -- one call ------------------------------------------------------------------------

    def build(self, tool: Tool, request: Request) -> Invocation:
        raise NotImplementedError

    def extract(self, result: RawResult) -> str:
        """The answer text of a successful call."""
        return result.stdout

    def whole_output(self, tool: Tool) -> bool:
        """True when the answer can only be read from the whole output (a JSON document);
        False for plain text, of which the runner keeps only the start and the end in
        memory (the whole stays on disk): what a word limit needs."""
        return True

    def read_usage(self, result: RawResult) -> Usage | None:
        """The token counts (and cost) the CLI reported for this attempt in its structured
        output; None when it reports none. Never an estimate."""
        return None

    def read_model(self, result: RawResult) -> tuple[str, ...]:
        """The models that served this attempt, as the CLI itself reports them in its output,
        the main one (the one that wrote the answer) first; () when it names none. Never the
        model council asked for: a CLI that says nothing has served an unknown model."""
        return ()

    # Patterns (matched at the start of a model name's last `/` segment, case ignored) of the
    # models this vendor makes, each with its family for `quorum.distinct: family`: what a
    # CLI that serves other vendors' models (pi, a gateway) is told apart by.
    model_families: ClassVar[tuple[tuple[str, str], ...]] = ()

    def classify(self, result: RawResult, prompt: str) -> Verdict:
        """Read one finished attempt: a non-zero exit is a failure whatever stdout holds."""
        if result.exit_code == 0:
            try:
                text = self.extract(result).strip()
            except ValueError as exc:
                return Verdict(Status.ERROR, detail=f"unreadable output: {exc}")
            if not text:
                return Verdict(Status.EMPTY, detail="exit 0 with no answer")
            if is_echo(text, prompt):
                return Verdict(Status.EMPTY, detail="the output only echoes the prompt")
            return Verdict(Status.OK, text=text)
        return self.classify_failure(result.exit_code, result.stdout + "\n" + result.stderr)

    def classify_failure(self, exit_code: int | None, text: str) -> Verdict:
        if any(p.search(text) for p in self.auth_patterns):
            return Verdict(Status.AUTH, detail=self.auth_detail(text))
        if any(p.search(text) for p in self.rate_limit_patterns):
            return Verdict(
                Status.RATE_LIMITED,
                detail=first_line(matching_line(text, self.rate_limit_patterns)),
                retry_after_s=parse_retry_after(text),
            )
        reason = telling_line(text) or "no output"
        return Verdict(Status.ERROR, detail=f"exit {exit_code}: {reason}")

    def auth_detail(self, text: str) -> str:
        found = matching_line(text, self.auth_patterns)
        hint = f"; {self.login_hint}" if self.login_hint else ""
        return f"{self.display_name} is not logged in ({first_line(found, 120)}){hint}"

    def interactive_prompt_detail(self, screen: str) -> str:
        found = matching_line(screen, self.interactive_prompts)
        hint = self.login_hint or (
            f"run `{' '.join(self.command())}` once in a terminal to log in or trust the folder"
        )
        shown = first_line(found, 120)
        return f"{self.display_name} stopped at an interactive prompt ({shown}); {hint}"

    # -- helpers for subclasses ------------------------------------------------------------

    def model_for(self, request: Request) -> str | None:
        return request.model or self.settings.model

    def lean_for(self, request: Request) -> str | None:
        """Council's system prompt when this call runs lean: the run allows it for this call
        and the config has not turned it off for this CLI (`clis.<name>.lean: false`)."""
        return request.lean_prompt if self.settings.lean else None

    def effort_for(self, request: Request) -> str | None:
        effort = request.effort or self.settings.effort
        if effort is None or self.efforts is None:
            return None
        return effort if effort in self.efforts else None
