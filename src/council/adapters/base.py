"""The small interface every vendor adapter implements, and the types that cross it.

An adapter knows one CLI: how to call it headless and read-only, how to read its answer, and
how it fails. It never starts a process itself: it builds an `Invocation` for the runner and
reads the runner's raw result back into a `Verdict`. Vendor flags, output formats and error
strings belong in the adapter's own module and nowhere else.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

if TYPE_CHECKING:
    from council.adapters.warm import AcpOutcome, WarmLaunch, WarmTurn


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


def token_count(value: object) -> int:
    """A token count as a CLI printed it: a non-negative integer, or a ValueError (which the
    runner turns into "no usage": a figure council cannot read is not guessed)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"not a token count: {value!r}")
    return value


def cost_figure(value: object) -> float | None:
    """A cost in USD as a CLI printed it (None when it printed none); a ValueError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(f"not a cost: {value!r}")
    return float(value)


def ranked_models(output_tokens: Mapping[str, int]) -> tuple[str, ...]:
    """Model names by the output tokens each produced, most first (the main model, which wrote
    the answer, before a side model that titled or routed); ties keep the CLI's order."""
    named = [name for name in output_tokens if isinstance(name, str) and name.strip()]
    return tuple(sorted(named, key=lambda name: -output_tokens[name]))


def output_figure(value: object) -> int:
    """A per-model output count for `ranked_models`: 0 when it is not a count."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


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


# A version in a CLI's output: "2.1.197 (Claude Code)", "codex-cli 0.171.0", "kimi, version
# 1.51.0", "v22.23.3"; its pre-release ("-beta.2", PEP 440's "rc1", ".dev3") is group 2, its
# build metadata ("+abc") is dropped. Never one glued to a word ("gemini2") or a dotted name.
_VERSION = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+)(-[0-9A-Za-z][0-9A-Za-z.-]*|(?:a|b|rc|\.dev)\d+)?"
    r"(?:\+[0-9A-Za-z.-]+)?"
)


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """The release numbers of the first version in `text` ("codex-cli 0.171.0" -> (0, 171, 0)),
    or None when it names none. For version gates: `parse_version(v) >= (0, 24)`; a pre-release
    counts as its release here (1.6.0-beta.2 -> (1, 6, 0)), since it usually carries what its
    release brings. `same_version` tells the two apart."""
    match = _VERSION.search(text or "")
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def version_at_least(text: str | None, minimum: tuple[int, ...]) -> bool:
    """True when `text` names a version at or after `minimum` (as `parse_version` reads it);
    False when it is older or names no version."""
    found = parse_version(text)
    if found is None:
        return False
    width = max(len(found), len(minimum))  # 2.1 is 2.1.0
    return found + (0,) * (width - len(found)) >= minimum + (0,) * (width - len(minimum))


def same_version(a: str | None, b: str | None) -> bool:
    """True when `a` and `b` name the same release: numbers compared as numbers (2.1 is 2.1.0,
    2.1.19 is not 2.1.197), the pre-release too (2.1.0-beta.1 is not 2.1.0); prefixes and
    suffixes around the version ("codex-cli", "(Claude Code)") do not count."""
    found_a, found_b = _VERSION.search(a or ""), _VERSION.search(b or "")
    if found_a is None or found_b is None:
        return False
    return _release(found_a) == _release(found_b) and found_a.group(2) == found_b.group(2)


def versions_in(text: str | None) -> tuple[str, ...]:
    """Every version `text` names, as written ("1.51.0 (kimi-cli), 2.1.0 (kimi-code)" ->
    ("1.51.0", "2.1.0"))."""
    return tuple(m.group(0) for m in _VERSION.finditer(text or ""))


def _release(match: re.Match[str]) -> tuple[int, ...]:
    numbers = [int(part) for part in match.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


@dataclass(frozen=True)
class KnownBroken:
    """Releases of a CLI council knows to be broken: what breaks and the way round it, for
    `council doctor` and a warning when a seat runs one. Facts only (a vendor's bug, an
    archived release), never a gap of council's own that a council release fixes."""

    breaks: str  # what goes wrong, for a user: "an archived stub that cannot answer"
    workaround: str  # what to do instead: "install kimi-code: npm install -g ..."
    since: tuple[int, ...] | None = None  # the first broken release; None: every one before
    before: tuple[int, ...] | None = None  # the first fixed release; None: none fixed yet
    variant: str | None = None  # only this one of the programs behind the binary (kimi-cli)
    # True: council refuses the CLI (a seat on it cannot run) rather than warn.
    unusable: bool = False

    def applies(self, version: str | None, variant: str | None = None) -> bool:
        """Whether a CLI reporting `version` (and `variant`) is in this range; an unknown
        version is in none."""
        found = parse_version(version)
        if found is None or (self.variant is not None and variant != self.variant):
            return False
        return (self.since is None or found >= self.since) and (
            self.before is None or found < self.before
        )

    @property
    def versions(self) -> str:
        """The range as doctor shows it: ">= 1.52", "< 0.9", ">= 1.2, < 1.4"."""
        since = f">= {_dotted(self.since)}" if self.since else ""
        before = f"< {_dotted(self.before)}" if self.before else ""
        shown = ", ".join(filter(None, (since, before))) or "every release"
        return f"{self.variant} {shown}" if self.variant else shown

    def warning(self, cli: str, version: str | None) -> str:
        """One line naming the version, what breaks and the way round."""
        return (
            f"{cli} {version} is a known-broken release ({self.versions}): {self.breaks}; "
            f"{self.workaround}"
        )


def _dotted(numbers: tuple[int, ...]) -> str:
    return ".".join(map(str, numbers))


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


# Texts the protocol treats as transient backend refusals (retried with backoff).
RATE_LIMIT_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b429\b",
        r"rate[ _-]?limit",
        r"too many requests",
        r"\bquota\b",
        r"resource[ _-]?exhausted",
        r"\boverloaded\b",
        r"(?:status|error|code|http)\W{0,3}5\d\d\b",
        r"\b5\d\d (?:internal server error|bad gateway|service unavailable|gateway timeout)",
        r"internal server error|service unavailable|bad gateway",
        r"connection reset|econnreset",
    )
)

AUTH_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"not logged in",
        r"please (?:run )?/?login",
        r"\b401\b",
        r"\b403\b",
        r"unauthori[sz]ed",
        r"invalid (?:x-)?api[ _-]?key",
        r"api key not valid",
        r"authentication (?:failed|error|required)",
        r"\bforbidden\b",
        r"login required",
        r"missing (?:api key|credentials)",
    )
)

_RETRY_AFTER = (
    re.compile(r"retry[- ]after\W{0,3}(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?)?", re.I),
    re.compile(
        r"(?:try again|retry) in\s+(\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?)", re.I
    ),
    re.compile(r"resets? in\s+((?:\d+\s*[hms]\w*\s*)+)", re.I),
)
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(h|m|s)", re.I)


def parse_retry_after(text: str) -> float | None:
    """Seconds until a rate limit resets, when the CLI says so ("retry after 30s")."""
    for pattern in _RETRY_AFTER[:2]:
        match = pattern.search(text)
        if match:
            value = float(match.group(1))
            unit = (match.group(2) or "s").lower()
            if unit == "ms":
                return value / 1000
            return value * 60 if unit.startswith("m") else value
    match = _RETRY_AFTER[2].search(text)
    if match:
        scale = {"h": 3600, "m": 60, "s": 1}
        total = sum(float(n) * scale[u.lower()] for n, u in _DURATION_PART.findall(match.group(1)))
        return total or None
    return None


def tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def first_line(text: str, limit: int = 240) -> str:
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


_TELLING = re.compile(
    r"error|exception|failed|failure|fatal|denied|not found|cannot|can't|unable|invalid|"
    r"refused|missing|no such|timed? ?out|abort",
    re.IGNORECASE,
)


# A frame of a stack trace: Node's "    at f (file.js:1:2)", Python's '  File "x.py", line 3'.
_STACK_FRAME = re.compile(r"^(?:at\s+\S|File \"[^\"]*\", line \d+)")


def telling_line(text: str, limit: int = 240) -> str:
    """The line of a CLI's output that best says what went wrong: the last one of its last
    20 lines that names an error, else the last one with words in it. Lines of box drawing,
    rules or bare punctuation (a TUI's frame) never, nor a stack trace's frames (a crash's
    telling line is its exception: "SyntaxError: ...")."""
    lines = [line.strip() for line in text.strip().splitlines()[-20:]]
    lines = [line for line in lines if not _STACK_FRAME.match(line)]
    worded = [line for line in lines if sum(c.isalpha() for c in line) >= 3]
    telling = [line for line in worded if _TELLING.search(line)]
    chosen = (telling or worded or [""])[-1]
    return chosen[:limit]


def is_echo(answer: str, prompt: str) -> bool:
    """True when the output merely repeats the prompt (or a large piece of it)."""
    if len(answer) > 2 * len(prompt) + 1024:
        return False  # far longer than the prompt: no echo, and no need to split it all
    a = " ".join(answer.split())
    p = " ".join(prompt.split())
    return bool(a) and (a == p or (len(a) >= 40 and a in p))


def json_objects(text: str) -> list[object]:
    """Every JSON value in `text`: the whole text if it parses, else one per line (JSONL)."""
    stripped = text.strip()
    if not stripped:
        return []
    try:
        return [json.loads(stripped)]
    except json.JSONDecodeError:
        pass
    values: list[object] = []
    for line in stripped.splitlines():
        line = line.strip()
        if line.startswith(("{", "[")):
            try:
                values.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return values


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
    # Variables this CLI sets for the processes it runs (a name, or a prefix ending in `_`):
    # removed from every seat's environment, so a CLI council runs never acts as a child of
    # the IDE session council itself may run in.
    host_markers: ClassVar[tuple[str, ...]] = ()
    # Flags that switch off this CLI's approvals or sandbox: refused in any `extra_args`.
    forbidden_args: ClassVar[tuple[str, ...]] = ()
    default_seat: ClassVar[bool] = True  # may take a seat when the user names none
    # As an IDE host: where its config lives in a project and for the user (None: not
    # read there), the variable that moves the user one, and council's files it reads:
    # (file under skill/, path under the host's directory).
    host_dirs: ClassVar[Mapping[str, str | None]] = {}
    host_dir_env: ClassVar[str | None] = None
    host_files: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Where this CLI keeps its own state under HOME (`~/` paths): the only places outside its
    # room and temp dir that it may write to under write confinement (runner/confine.py).
    # Directories are created before the call; files only when the CLI creates them itself.
    state_dirs: ClassVar[tuple[str, ...]] = ()
    state_files: ClassVar[tuple[str, ...]] = ()
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
        version = _dotted_or_bare_version(text)
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

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """(directories, files) this CLI may write to besides its room and temp dir, for the
        environment it runs with: `state_dirs` and `state_files` under `home`. An adapter
        whose CLI moves its state with a variable (CODEX_HOME) adds that place."""
        return (
            tuple(_under(home, p) for p in self.state_dirs),
            tuple(_under(home, p) for p in self.state_files),
        )

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
                detail=first_line(_matching_line(text, self.rate_limit_patterns)),
                retry_after_s=parse_retry_after(text),
            )
        reason = telling_line(text) or "no output"
        return Verdict(Status.ERROR, detail=f"exit {exit_code}: {reason}")

    def auth_detail(self, text: str) -> str:
        found = _matching_line(text, self.auth_patterns)
        hint = f"; {self.login_hint}" if self.login_hint else ""
        return f"{self.display_name} is not logged in ({first_line(found, 120)}){hint}"

    def interactive_prompt_detail(self, screen: str) -> str:
        found = _matching_line(screen, self.interactive_prompts)
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

    # -- warm workers (runner/warm.py; docs/adr/007-warm-seat-workers.md) -------------------

    def warm_launch(
        self, tool: Tool, *, model: str | None, effort: str | None
    ) -> WarmLaunch | None:
        """How a seat keeps this CLI running between its calls, a fresh session per call, in
        the same read-only measures as `build`; None: every call spawns the CLI."""
        return None

    # The persistent mode's argv depends on what the `--version` probe finds (kimi: which of
    # its two programs is installed), so the probe runs before the worker starts.
    warm_needs_probe: ClassVar[bool] = False

    def warm_refusal(self, tool: Tool, env: Mapping[str, str], home: Path) -> str | None:
        """Why this CLI cannot run warm here although it has a persistent mode (kimi-cli
        without a login token); None when it can."""
        return None

    def acp_verdict(self, outcome: AcpOutcome, prompt: str) -> WarmTurn:
        """Read how one ACP prompt ended (ACP agents only): an error by this CLI's failure
        patterns, an ended turn as an answer or empty."""
        from council.adapters.warm import WarmTurn, answer_verdict, failure_verdict

        if outcome.error is not None:
            return WarmTurn(failure_verdict(self, outcome.error.text))
        if outcome.stop_reason in ("end_turn", "max_tokens", "max_turn_requests"):
            return WarmTurn(answer_verdict(outcome.text, prompt))
        return WarmTurn(
            Verdict(Status.ERROR, detail=f"the session stopped early ({outcome.stop_reason})")
        )


_DOTTED = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.+][\w.]+)?")
_BARE = re.compile(r"(?<![\w.-])v?(\d+)(?![\w.])")


def _dotted_or_bare_version(text: str) -> str | None:
    """The version a probe printed: a dotted one first, else a bare number (`mytool v1`)."""
    if dotted := _DOTTED.search(text):
        return dotted.group(0)
    bare = _BARE.search(text)
    return bare.group(1) if bare else None


def _under(home: Path, path: str) -> Path:
    return home / path[2:] if path.startswith("~/") else Path(path)


def _matching_line(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    for line in text.splitlines():
        if any(p.search(line) for p in patterns):
            return line
    return text
