"""Moonshot's kimi: two different programs install a binary named `kimi`.

kimi-cli (PyPI, <= 1.51) prints `kimi, version 1.51.0` and reads the prompt on stdin in
`--quiet` print mode. kimi-code (npm, >= 2) prints a bare `2.1.0` and takes the prompt only as
`-p PROMPT`. kimi-cli 1.52+ is an archived stub that, run with no arguments, downloads and runs
an installer: council never runs `kimi` without arguments, and reports 1.52+ as unusable.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from council.adapters.base import (
    COUNCIL_ROOM_DIR,
    AuthState,
    Invocation,
    RawResult,
    Request,
    Tool,
    Usage,
    VersionInfo,
)
from council.adapters.confinement import KeepsState
from council.adapters.failures import AUTH_PATTERNS, first_line
from council.adapters.output import json_objects
from council.adapters.warm import (
    AcpOptions,
    AcpOutcome,
    LeanStart,
    WarmLaunch,
    WarmMode,
    WarmTurn,
)

KIMI_CLI = "kimi-cli"
KIMI_CODE = "kimi-code"
_CLI_VERSION = re.compile(r"kimi,\s+version\s+(\d+)\.(\d+)\.(\d+)\S*", re.I)
_CODE_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)\.(\d+)\S*\s*$")
# Linux caps one argument at 128 KiB; stay well below it.
ARG_PROMPT_LIMIT = 100_000
PROMPT_FILE = ".council-prompt.md"
# Lean mode's agents (docs/lean.md). kimi-cli 1.51.0: a YAML spec naming a system prompt file,
# which it renders as a Jinja template with `${...}` variables. kimi-code 2.1.0: one Markdown
# file, its front matter the agent (a kebab-case name and a description are required, an
# empty `tools` list declares none) and its body the whole system prompt.
CLI_AGENT = f"{COUNCIL_ROOM_DIR}/kimi-agent.yaml"
CLI_SYSTEM = f"{COUNCIL_ROOM_DIR}/kimi-system.md"
CLI_AGENT_SPEC = (
    "version: 1\n"
    "agent:\n"
    "  name: council-seat\n"
    "  system_prompt_path: ./kimi-system.md\n"
    "  tools: []\n"
    "  subagents: {}\n"
)
CODE_AGENT = f"{COUNCIL_ROOM_DIR}/kimi-seat.md"
CODE_AGENT_HEAD = "---\nname: council-seat\ndescription: A seat of council.\ntools: []\n---\n"
INSTALL_KIMI_CODE = (
    "install kimi-code: `npm install -g @moonshot-ai/kimi-code` (needs Node >= 22.19)"
)


class KimiAdapter(WarmMode, KeepsState):
    name = "kimi"
    vendor = "moonshot"
    model_families = (("kimi|moonshot", "moonshot"),)
    binary = "kimi"
    tested_version = "1.51.0 (kimi-cli), 2.1.0 (kimi-code)"
    install_hint = "npm install -g @moonshot-ai/kimi-code"
    login_hint = (
        "run `kimi` in a terminal and log in, or set KIMI_MODEL_NAME and KIMI_MODEL_API_KEY "
        "(kimi-code)"
    )
    # kimi-cli takes --plan with --quiet; kimi-code refuses --plan with -p ("Cannot combine
    # --prompt with --plan", 2.1.0): there the room copy and write confinement are the guard.
    sandbox = "--plan (kimi-cli); clean room and write confinement only (kimi-code)"
    env_prefixes = ("KIMI_", "MOONSHOT_")
    forbidden_args = ("--yolo", "-y")
    # kimi-cli 1.51.0: ~/.kimi (device id, sessions, logs, kimi.json); kimi-code 2.1.0:
    # ~/.kimi-code (sessions and their index, logs, caches, update rollout log).
    state_dirs = ("~/.kimi", "~/.kimi-code")
    soft_timeout_s = 300.0
    soft_timeout_high_s = 600.0
    high_efforts = frozenset({"high", "xhigh", "max"})  # thinking on
    efforts = frozenset({"low", "medium", "high", "xhigh", "max"})
    # Unknown: the model comes from the login's provider set-up and clis.md names none. Effort
    # is only thinking on or off here, and the preset's xhigh already turns it on.
    strongest_model = None
    strongest_effort = None
    # With no login or key: kimi-cli 1.51.0 prints "LLM not set" (stdout, exit 1); kimi-code
    # 2.1.0 "No model configured. Run `kimi` and use /login to sign in" (stderr, exit 1).
    auth_patterns = (
        *AUTH_PATTERNS,
        re.compile(r"\bLLM not set\b|no model configured|use /login", re.I),
    )

    def read_version(self, exit_code: int | None, stdout: str, stderr: str) -> VersionInfo:
        text = stdout + "\n" + stderr
        if match := _CLI_VERSION.search(text):
            version = ".".join(match.groups())
            if (int(match.group(1)), int(match.group(2))) >= (1, 52):
                return VersionInfo(
                    version,
                    KIMI_CLI,
                    unusable=f"kimi-cli {version} is the "
                    f"archived release and cannot answer; {INSTALL_KIMI_CODE}",
                )
            return VersionInfo(version, KIMI_CLI)
        first = first_line(stdout)
        if exit_code == 0 and (match := _CODE_VERSION.match(first)) and int(match.group(1)) >= 2:
            return VersionInfo(".".join(match.groups()), KIMI_CODE)
        if "deprecat" in text.lower():
            return VersionInfo(
                None, KIMI_CLI, unusable=f"this kimi is deprecated; {INSTALL_KIMI_CODE}"
            )
        return VersionInfo(
            None,
            unusable=f"unrecognised `kimi --version` output "
            f"({first_line(text) or f'exit {exit_code}'}); {INSTALL_KIMI_CODE}",
        )

    def whole_output(self, tool: Tool) -> bool:
        return tool.variant != KIMI_CLI  # kimi-cli --quiet prints text; kimi-code JSON lines

    def build(self, tool: Tool, request: Request) -> Invocation:
        if tool.variant == KIMI_CLI:
            return self._build_kimi_cli(tool, request)
        if tool.variant == KIMI_CODE:
            return self._build_kimi_code(tool, request)
        raise ValueError("kimi must be probed with --version before use (kimi-cli or kimi-code?)")

    def _build_kimi_cli(self, tool: Tool, request: Request) -> Invocation:
        # --plan: plan mode denies the write tools its print mode would run unasked.
        argv = [*tool.command, "--quiet", "--plan", "--max-retries-per-step", "1"]
        room_files: dict[str, str] = {}
        if (lean := self.lean_for(request)) is not None:
            # Plan mode stays; an agent of council's with no tool and no subagent, whose
            # system prompt is council's (51.1 KB a request down to 2.5 KB, docs/lean.md).
            room_files = {CLI_AGENT: CLI_AGENT_SPEC, CLI_SYSTEM: _jinja_literal(lean)}
            argv += ["--agent-file", str(request.room / CLI_AGENT)]
        if model := self.model_for(request):
            argv += ["-m", model]
        if self.effort_for(request) in self.high_efforts:
            argv.append("--thinking")
        argv += self.settings.extra_args
        return Invocation(argv=tuple(argv), stdin=request.prompt.encode(), room_files=room_files)

    def _build_kimi_code(self, tool: Tool, request: Request) -> Invocation:
        room_files: dict[str, str] = {}
        prompt = request.prompt
        if len(prompt.encode()) > ARG_PROMPT_LIMIT:
            room_files[PROMPT_FILE] = prompt
            prompt = (
                f"Read the file {PROMPT_FILE} in the current directory and carry out the "
                "task it contains, following its instructions exactly."
            )
        argv = [*tool.command, "-p", prompt, "--output-format", "stream-json"]
        # A prompt handed over in a file needs the read tool: not lean then.
        if (lean := self.lean_for(request)) is not None and PROMPT_FILE not in room_files:
            # An agent of council's with no tool, whose prompt is council's (88.0 KB a request
            # down to 1.1 KB, docs/lean.md): the write tools print mode runs unasked are gone.
            room_files[CODE_AGENT] = CODE_AGENT_HEAD + lean.strip() + "\n"
            argv += ["--agent-file", str(request.room / CODE_AGENT)]
        if model := self.model_for(request):
            argv += ["-m", model]
        argv += self.settings.extra_args
        env = {
            "KIMI_DISABLE_TELEMETRY": "1",  # saves ~3 s a call
            # council's retry policy is the one in force: kimi-code's default is 10 attempts
            # per step (a persistent 429 outlived a 60 s hard limit), like --max-retries-per-step
            # for kimi-cli.
            "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP": "2",
        }
        return Invocation(
            argv=tuple(argv),
            stdin=None,
            room_files=room_files,
            env=env,
            output_format="stream-json",
        )

    def extract(self, result: RawResult) -> str:
        # By the variant the probe found, never by the output's first byte: kimi-cli's plain
        # answer may itself be a JSON object (a lead's DECISION).
        if result.output_format != "stream-json":
            return result.stdout  # kimi-cli's text mode
        answer = None
        for event in json_objects(result.stdout):
            if isinstance(event, dict) and event.get("role") == "assistant":
                text = _content_text(event.get("content"))
                if text.strip():
                    answer = text
        if answer is None:
            raise ValueError("no assistant message in kimi's stream-json output")
        return answer

    def read_usage(self, result: RawResult) -> Usage | None:
        """None: neither program reports usage in the mode council runs it. kimi-cli 1.51's
        `--quiet` prints the final message (and a resume hint on stderr); kimi-code 2.1.0's
        stream-json has assistant and tool messages and `meta` lines (`system.version`,
        `turn.step.retrying`, `session.resume_hint`), no token counts."""
        return None

    def auth_state(self, env: Mapping[str, str], home: Path) -> AuthState:
        """What gives either program a model (measured: a key variable alone, MOONSHOT_API_KEY
        or KIMI_MODEL_API_KEY or KIMI_API_KEY, gets "No model configured" / "LLM not set").
        kimi-code 2.1.0: KIMI_MODEL_NAME with KIMI_MODEL_API_KEY, else a login
        (`credentials/kimi-code.json`) or a `default_model` in config.toml under
        KIMI_CODE_HOME (~/.kimi-code). kimi-cli 1.51.0: KIMI_API_KEY with KIMI_MODEL_NAME,
        else the same files under KIMI_SHARE_DIR (~/.kimi)."""
        env = {**env, **self.settings.env}
        if env.get("KIMI_MODEL_NAME") and env.get("KIMI_MODEL_API_KEY"):
            return AuthState(True, "KIMI_MODEL_NAME and KIMI_MODEL_API_KEY (kimi-code)")
        if env.get("KIMI_MODEL_NAME") and env.get("KIMI_API_KEY"):
            return AuthState(True, "KIMI_MODEL_NAME and KIMI_API_KEY (kimi-cli)")
        homes = _kimi_homes(env, home)
        for directory in homes:
            creds = directory / "credentials" / "kimi-code.json"
            if _has_token(creds):
                return AuthState(True, str(creds))
        for directory in homes:
            if (state := _configured_model(directory / "config.toml", env)) is not None:
                return state
        return AuthState(
            False, "no login, no default_model in config.toml, no KIMI_MODEL_NAME with its key"
        )

    def state_paths(
        self, env: Mapping[str, str], home: Path
    ) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        dirs, files = super().state_paths(env, home)
        moved = tuple(
            Path(env[name]) for name in ("KIMI_CODE_HOME", "KIMI_SHARE_DIR") if env.get(name)
        )
        return (*dirs, *moved), files

    # -- warm worker: `kimi acp` (kimi-cli 1.51.0, kimi-code 2.1.0) ------------------------

    # Which of the two programs is installed decides the launch: probed first.
    warm_needs_probe = True

    def warm_refusal(self, tool: Tool, env: Mapping[str, str], home: Path) -> str | None:
        """kimi-cli 1.51's `kimi acp` refuses every session ("Authentication required") unless
        the user logged in with a Kimi account, whatever its config.toml says."""
        if tool.variant == KIMI_CLI and not _has_token(
            _kimi_homes({**env, **self.settings.env}, home)[1] / "credentials" / "kimi-code.json"
        ):
            return (
                "kimi-cli's `kimi acp` opens sessions only for a user logged in with a Kimi "
                "account (`kimi login`)"
            )
        return None

    def warm_launch(
        self,
        tool: Tool,
        *,
        model: str | None,
        effort: str | None,
        lean: LeanStart | None = None,
    ) -> WarmLaunch | None:
        """ACP. kimi-code: each session put in plan mode (its write tools refused), closed
        after its call. kimi-cli has no plan mode in ACP: every write asks the client, who
        refuses it. `kimi acp` takes no options, so a seat with a model or thinking of its
        own spawns per call; so do extra arguments. Nor an agent file: the worker never
        starts lean (`lean` is not used)."""
        if tool.variant not in (KIMI_CLI, KIMI_CODE):
            return None
        if model or self.settings.extra_args:
            return None
        if tool.variant == KIMI_CLI and effort in self.high_efforts:
            return None  # --thinking
        argv = (*tool.command, "acp")
        if tool.variant == KIMI_CLI:
            return WarmLaunch(argv=argv, acp=AcpOptions())
        return WarmLaunch(
            argv=argv,
            env={"KIMI_DISABLE_TELEMETRY": "1", "KIMI_LOOP_MAX_ATTEMPTS_PER_STEP": "2"},
            acp=AcpOptions(mode="plan", close=True),
        )

    def acp_verdict(self, outcome: AcpOutcome, prompt: str) -> WarmTurn:
        """Both answer a model call refused with 429 or 500 (kimi-cli also 401) by ending the
        turn with no text and no error: spawned, the same call says what happened."""
        turn = super().acp_verdict(outcome, prompt)
        if outcome.error is None and not outcome.text.strip():
            return replace(turn, redo_cold=True)
        return turn


def _kimi_homes(env: Mapping[str, str], home: Path) -> tuple[Path, Path]:
    """Where kimi-code 2.1.0 (KIMI_CODE_HOME) and kimi-cli 1.51.0 (KIMI_SHARE_DIR) keep their
    config and login."""
    return (
        Path(env.get("KIMI_CODE_HOME") or home / ".kimi-code"),
        Path(env.get("KIMI_SHARE_DIR") or home / ".kimi"),
    )


def _has_token(path: Path) -> bool:
    """A login `kimi login` saved: a JSON object with an access token."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("access_token"))


def _configured_model(config: Path, env: Mapping[str, str]) -> AuthState | None:
    """What config.toml says: a `default_model` whose provider has a key (`api_key`, or an
    `api_key_env` that is set) logs in; one whose key council cannot see (its provider's
    own login) may; None: no file or no default model, so it says nothing."""
    try:
        with config.open("rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None
    default = data.get("default_model")
    if not isinstance(default, str) or not default:
        return None
    model = _table(_table(data.get("models")).get(default))
    provider = _table(_table(data.get("providers")).get(model.get("provider")))
    key_env = provider.get("api_key_env")
    if provider.get("api_key") or (isinstance(key_env, str) and env.get(key_env)):
        return AuthState(True, str(config))
    return AuthState(None, f"{config} names a model; its key is not checked")


def _table(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _jinja_literal(text: str) -> str:
    """`text` as a kimi-cli system prompt template that renders to itself."""
    return (
        "{% raw %}"
        + text.replace("{% endraw %}", "{% endraw %}{{ '{% endraw %}' }}{% raw %}")
        + "{% endraw %}"
    )


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text"
        )
    return ""
