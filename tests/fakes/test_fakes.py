"""Self-tests of the fake vendor CLIs in ``tests/fakes``.

The rest of the suite trusts the fakes to behave like the real CLIs described in
``/work/shared/spec/clis.md``. These tests pin that down: every fake runs as a real subprocess
found through PATH, with the minimal environment council gives a CLI, and must be strict about
its argv, faithful about its output and failure texts, and honest in what it records.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from fakes.install import (
    EXIT_FORBIDDEN,
    NEEDS_TTY_MESSAGE,
    TRUST_PROMPT,
    FakeClis,
    expected_answer,
    install_fakes,
)

PROMPT = "Review this change:\n  naïve — café ✓\n\tline three\n"


@dataclass(frozen=True)
class Target:
    """One fake CLI to test: an executable name plus, for kimi, the variant it emulates."""

    name: str
    variant: str | None = None

    @property
    def id(self) -> str:
        return self.variant or self.name

    def set(self, fakes: FakeClis, mode: str = "ok", **options: Any) -> None:
        """Select a mode, keeping this target's kimi variant."""
        if self.variant:
            options["variant"] = self.variant
        fakes.set(self.name, mode, **options)


CODEX = Target("codex")
CLAUDE = Target("claude")
GEMINI = Target("gemini")
QWEN = Target("qwen")
PI = Target("pi")
KIMI_CLI = Target("kimi", "kimi-cli")
KIMI_CODE = Target("kimi", "kimi-code")
KIMI_ARCHIVED = Target("kimi", "kimi-cli-1.52")
WORKING = [CODEX, CLAUDE, GEMINI, QWEN, PI, KIMI_CLI, KIMI_CODE]
ALL = [*WORKING, KIMI_ARCHIVED]


def by_id(targets: list[Target]) -> Any:
    """Parametrize over targets with readable ids."""
    return pytest.mark.parametrize("target", targets, ids=[t.id for t in targets])


@pytest.fixture
def fake_clis(tmp_path: Path) -> Iterator[FakeClis]:
    """All fakes installed in a fresh bin dir; fails the test if a fake process survives it."""
    fakes = install_fakes(tmp_path / "bin")
    yield fakes
    survivors = fakes.kill_leftovers()
    assert survivors == [], f"the test left fake processes running: {survivors}"


@pytest.fixture
def room(tmp_path: Path) -> Path:
    """The cwd of a run, like a seat's room."""
    path = tmp_path / "room"
    path.mkdir()
    return path


@pytest.fixture
def env(fake_clis: FakeClis, tmp_path: Path) -> dict[str, str]:
    """The allow-listed environment council passes to a CLI, fakes first on PATH."""
    home = tmp_path / "home"
    home.mkdir()
    return fake_clis.env(home)


def run(
    argv: list[str],
    env: dict[str, str],
    cwd: Path,
    stdin: str | None = None,
    timeout: float = 10,
) -> subprocess.CompletedProcess[bytes]:
    """Run a fake by name (resolved through ``env["PATH"]``), stdin closed after ``stdin``."""
    return subprocess.run(
        argv,
        input=None if stdin is None else stdin.encode(),
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


@contextlib.contextmanager
def started(argv: list[str], **kwargs: Any) -> Iterator[subprocess.Popen[bytes]]:
    """Popen in a new session; the whole group is SIGKILLed and reaped on the way out."""
    proc = subprocess.Popen(argv, start_new_session=True, **kwargs)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def wait_for_calls(fakes: FakeClis, name: str, count: int = 1) -> list[dict[str, Any]]:
    """Poll the call record until ``count`` calls are there (the fake records before acting)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        calls = fakes.calls(name)
        if len(calls) >= count:
            return calls
        time.sleep(0.01)
    raise AssertionError(f"{name} never recorded {count} call(s)")


# The headless call of each CLI as documented in clis.md, and how to get the answer out of it.
def documented_call(target: Target, room: Path) -> tuple[list[str], str | None]:
    """argv and stdin of the documented headless call of ``target`` carrying ``PROMPT``."""
    calls = {
        "codex": [
            "codex",
            *("exec", "--skip-git-repo-check", "--ephemeral", "--color", "never"),
            *("-s", "read-only", "-o", str(room / "last.txt"), "-"),
        ],
        "claude": [
            "claude",
            *("-p", "--output-format", "json", "--no-session-persistence"),
            *("--tools", "Read,Grep,Glob", "--setting-sources", "", "--strict-mcp-config"),
        ],
        "gemini": ["gemini", "-o", "json", "-m", "gemini-2.5-pro", "--approval-mode", "plan"],
        "qwen": ["qwen", "-o", "json", "--approval-mode", "plan"],
        "pi": [
            "pi",
            *("-p", "--no-session", "--no-context-files", "--offline"),
            *("--tools", "read,grep,find,ls", "--thinking", "low"),
        ],
        "kimi-cli": ["kimi", "--quiet", "-m", "kimi-k2", "--max-retries-per-step", "1"],
        "kimi-code": ["kimi", "-p", PROMPT, "--output-format", "stream-json"],
    }
    argv = calls[target.id]
    return argv, (None if target == KIMI_CODE else PROMPT)


def answer_of(target: Target, stdout: bytes) -> str:
    """The answer in the output format of the documented call."""
    text = stdout.decode()
    if target == CLAUDE:
        return json.loads(text)["result"]
    if target == GEMINI:
        return json.loads(text)["response"]
    if target == QWEN:
        return next(e["result"] for e in json.loads(text) if e["type"] == "result")
    if target == KIMI_CODE:
        return json.loads(text.splitlines()[-1])["content"]
    return text.removesuffix("\n")


# --- version and strictness -------------------------------------------------------------------

VERSIONS = {
    "codex": "codex-cli 0.169.0\n",
    "claude": "2.1.197 (Claude Code)\n",
    "gemini": "0.61.0\n",
    "qwen": "0.15.10\n",
    "pi": "0.73.1\n",
    "kimi-cli": "kimi, version 1.51.0\n",
    "kimi-code": "2.1.0\n",
    "kimi-cli-1.52": "kimi, version 1.52.0\nkimi-cli is deprecated; install kimi-code",
}


@by_id(ALL)
def test_each_fake_prints_its_vendors_version_format(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis)
    result = run([target.name, "--version"], env, room)
    assert result.returncode == 0
    assert result.stdout.decode().startswith(VERSIONS[target.id])


CLAP_UNKNOWN = (
    "error: unexpected argument '--foo' found\n\n"
    "  tip: to pass '--foo' as a value, use '-- --foo'\n\n"
    "Usage: codex exec [OPTIONS] [PROMPT]\n\nFor more information, try '--help'.\n"
)
UNKNOWN_FLAG = {
    # id: (argv, exit code, stderr prefix, stderr suffix)
    "codex": (["exec", "--foo"], 2, CLAP_UNKNOWN, CLAP_UNKNOWN),
    "claude": (["-p", "--foo"], 1, "error: unknown option '--foo'\n", "'--foo'\n"),
    "gemini": (["--foo"], 1, "Usage: gemini", "\nUnknown argument: foo\n"),
    "qwen": (["--foo"], 1, "Usage: qwen", "\nUnknown argument: foo\n"),
    "pi": (["-p", "--foo"], 1, "Error: Unknown option: --foo\n", "--foo\n"),
    "kimi-cli": (
        ["--quiet", "--foo"],
        2,
        "Usage: kimi [OPTIONS]\nTry 'kimi -h' for help.\n\nError: No such option: --foo\n",
        "--foo\n",
    ),
    "kimi-code": (["-p", "x", "--foo"], 1, "error: unknown option '--foo'\n", "'--foo'\n"),
    "kimi-cli-1.52": (["--foo"], 1, "kimi-cli is deprecated", "kimi-code)\n"),
}


@by_id(ALL)
def test_an_unknown_flag_fails_with_the_vendors_own_message_and_exit_code(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis)
    argv, code, prefix, suffix = UNKNOWN_FLAG[target.id]
    result = run([target.name, *argv], env, room, stdin=PROMPT)
    stderr = result.stderr.decode()
    assert result.returncode == code
    assert stderr.startswith(prefix)
    assert stderr.endswith(suffix)
    assert result.stdout == b""
    assert fake_clis.calls(target.name)[-1]["argv"] == argv


@pytest.mark.parametrize(
    ("target", "argv", "code", "message"),
    [
        (CODEX, ["exec", "-s", "yolo", "-"], 2, "error: invalid value 'yolo' for '--sandbox"),
        (CODEX, ["exec", "-m"], 2, "error: a value is required for '--model <MODEL>'"),
        (CODEX, ["exec", "--json", "--json"], 2, "cannot be used multiple times"),
        (CODEX, ["exec", "-c", "oops", "-"], 1, "Invalid override (missing '='): oops"),
        (CODEX, ["exec", "a", "b"], 2, "error: unexpected argument 'b' found"),
        (CODEX, ["--skip-git-repo-check", "exec"], 2, "unexpected argument"),
        (CLAUDE, ["-p", "--effort", "huge"], 1, "argument 'huge' is invalid. Allowed choices"),
        (CLAUDE, ["-p", "--output-format", "stream-json"], 1, "requires --verbose"),
        (CLAUDE, ["-p", "--setting-sources", "user,cloud"], 1, "Invalid setting source: cloud"),
        (GEMINI, ["-o", "xml"], 1, 'Argument: output-format, Given: "xml"'),
        (GEMINI, ["-y", "--approval-mode", "plan"], 1, "Cannot use both --yolo"),
        (GEMINI, ["--foo", "--bar"], 1, "Unknown arguments: foo, bar"),
        (QWEN, ["--approval-mode", "auto_edit"], 1, 'Given: "auto_edit"'),
        (PI, ["-p", "--tools", "read,rm"], 1, "Error: Unknown tool: rm."),
        (PI, ["-p", "--thinking", "max"], 1, 'Invalid value "max" for --thinking'),
        (KIMI_CLI, ["--quiet", "-m"], 2, "Error: Option '-m' requires an argument."),
        (KIMI_CLI, ["--quiet", "stray"], 2, "Error: Got unexpected extra argument (stray)"),
        (KIMI_CODE, ["-p", "x", "--plan"], 1, "--plan cannot be used with --prompt"),
        (KIMI_CODE, ["-p"], 1, "error: option '-p, --prompt <prompt>' argument missing"),
    ],
    ids=lambda v: v.id if isinstance(v, Target) else None,
)
def test_bad_values_fail_the_way_each_argument_parser_fails(
    target: Target,
    argv: list[str],
    code: int,
    message: str,
    fake_clis: FakeClis,
    env: dict[str, str],
    room: Path,
) -> None:
    target.set(fake_clis)
    result = run([target.name, *argv], env, room, stdin=PROMPT)
    assert result.returncode == code
    assert message in result.stderr.decode()


# --- the documented headless calls ------------------------------------------------------------


@by_id(WORKING)
def test_the_documented_headless_call_answers_with_the_prompts_digest(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis)
    argv, stdin = documented_call(target, room)
    result = run(argv, {**env, "GEMINI_CLI_TRUST_WORKSPACE": "true"}, room, stdin=stdin)
    assert result.returncode == 0, result.stderr.decode()
    expected = expected_answer(target.name, PROMPT)
    assert answer_of(target, result.stdout) == expected
    assert expected.startswith(f"FAKE-{target.name} answer ")
    assert expected.endswith(": Review this change: naïve — café ✓ line three")


def test_codex_writes_the_final_message_to_the_o_file(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(CODEX, room)
    result = run(argv, env, room, stdin=stdin)
    assert result.returncode == 0
    assert (room / "last.txt").read_text() == expected_answer("codex", PROMPT)
    assert result.stdout.decode() == expected_answer("codex", PROMPT) + "\n"


def test_codex_refuses_a_folder_outside_git_unless_told_to_skip_the_check(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    refused = run(["codex", "exec", "-"], env, room, stdin=PROMPT)
    (room / ".git").mkdir()
    accepted = run(["codex", "exec", "-"], env, room, stdin=PROMPT)
    assert refused.returncode == 1
    assert "--skip-git-repo-check was not specified" in refused.stderr.decode()
    assert accepted.returncode == 0


def test_claude_json_output_is_one_result_object(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(CLAUDE, room)
    result = json.loads(run(argv, env, room, stdin=stdin).stdout)
    assert result["type"] == "result"
    assert result["subtype"] == "success"
    assert result["is_error"] is False
    assert result["num_turns"] == 1
    assert result["result"] == expected_answer("claude", PROMPT)
    assert isinstance(result["session_id"], str)
    assert result["total_cost_usd"] > 0
    assert set(result["usage"]) >= {"input_tokens", "output_tokens"}
    assert "api_error_status" not in result


def test_claude_tools_flag_swallows_a_following_prompt_like_commanders_variadic_option(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    result = run(["claude", "-p", "--tools", "Read", "the prompt"], env, room)
    assert result.returncode == 1
    assert "Input must be provided" in result.stderr.decode()


def test_qwen_json_output_is_an_array_of_events_ending_with_the_result(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(QWEN, room)
    events = json.loads(run(argv, env, room, stdin=stdin).stdout)
    assert [e["type"] for e in events] == ["system", "assistant", "result"]
    assert events[0]["subtype"] == "init"
    assert events[1]["message"]["content"] == [
        {"type": "text", "text": expected_answer("qwen", PROMPT)}
    ]
    assert events[2]["is_error"] is False
    assert events[2]["result"] == expected_answer("qwen", PROMPT)
    assert set(events[2]["usage"]) >= {"input_tokens", "output_tokens"}


@pytest.mark.parametrize("content_parts", [False, True], ids=["string", "parts"])
def test_kimi_code_stream_json_ends_with_the_full_answer_after_a_partial_one(
    content_parts: bool, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_CODE.set(fake_clis, content_parts=content_parts)
    result = run(["kimi", "-p", PROMPT, "--output-format", "stream-json"], env, room, stdin="x")
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    answer = expected_answer("kimi", PROMPT)
    full = [{"type": "text", "text": answer}] if content_parts else answer
    assert result.returncode == 0
    assert all(line["role"] == "assistant" for line in lines)
    assert len(lines) == 2
    assert lines[-1]["content"] == full
    assert lines[0]["content"] != full
    assert fake_clis.calls("kimi")[-1]["stdin"] is None, "kimi-code -p never reads stdin"


def test_kimi_code_text_mode_prefixes_the_answer_with_a_bullet(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_CODE.set(fake_clis)
    result = run(["kimi", "-p", PROMPT], env, room)
    assert result.stdout.decode() == f"• {expected_answer('kimi', PROMPT)}\n"


@by_id([KIMI_CLI, KIMI_CODE, KIMI_ARCHIVED])
def test_kimi_run_with_no_arguments_exits_99_and_is_recorded(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis)
    result = run(["kimi"], env, room, stdin=PROMPT)
    assert result.returncode == EXIT_FORBIDDEN
    assert result.stderr.decode() == "FAKE: kimi run with no arguments\n"
    assert fake_clis.calls("kimi")[-1]["argv"] == []


def test_the_archived_kimi_cli_only_prints_its_deprecation_notice(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    KIMI_ARCHIVED.set(fake_clis)
    result = run(["kimi", "--quiet"], env, room, stdin=PROMPT)
    assert result.returncode == 1
    assert result.stdout == b""
    assert "kimi-cli is deprecated; install kimi-code" in result.stderr.decode()


def test_gemini_refuses_an_untrusted_folder_with_exit_55(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    untrusted = run(["gemini", "-m", "m"], env, room, stdin=PROMPT)
    skipped = run(["gemini", "-m", "m", "--skip-trust"], env, room, stdin=PROMPT)
    assert untrusted.returncode == 55
    assert untrusted.stderr.decode().startswith("Gemini CLI is not running in a trusted directory")
    assert skipped.returncode == 0


# --- failure modes ----------------------------------------------------------------------------

SIMPLE_CALL = {
    "codex": ["codex", "exec", "--skip-git-repo-check", "-"],
    "claude": ["claude", "-p"],
    "gemini": ["gemini", "-m", "m", "--skip-trust"],
    "qwen": ["qwen"],
    "pi": ["pi", "-p"],
    "kimi-cli": ["kimi", "--quiet"],
    "kimi-code": ["kimi", "-p", PROMPT],
}
FAILURES = {
    # id: {mode: (stream, text, exit code)}
    "codex": {
        "rate_limit": (
            "stderr",
            "ERROR: exceeded retry limit, last status: 429 Too Many Requests",
            1,
        ),
        "auth": (
            "stderr",
            "ERROR: unexpected status 401 Unauthorized: Missing bearer or basic authentication",
            1,
        ),
        "server_error": ("stderr", "ERROR: unexpected status 500 Internal Server Error", 1),
        "connection": ("stderr", "ERROR: stream disconnected before completion", 1),
    },
    "claude": {
        "rate_limit": ("stdout", "API Error: Request rejected (429)", 1),
        "auth": ("stdout", "Not logged in · Please run /login", 1),
        "server_error": ("stdout", 'API Error: 500 {"type":"error","error":{"type":"api_error"', 1),
        "connection": ("stdout", "API Error: Unable to connect to API", 1),
    },
    "gemini": {
        "rate_limit": (
            "stderr",
            '[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check '
            'quota).","status":"RESOURCE_EXHAUSTED"}}]',
            1,
        ),
        "auth": ("stderr", "Please set an Auth method in your", 41),
        "server_error": ("stderr", '[API Error: {"error":{"code":500', 1),
        "connection": ("stderr", "fetch failed", 1),
    },
    "qwen": {
        "rate_limit": ("stderr", "[API Error: 429 Too Many Requests]", 1),
        "auth": ("stderr", "[API Error: 401 Incorrect API key provided]", 1),
        "server_error": ("stderr", "[API Error: 500", 1),
        "connection": ("stderr", "[API Error: Connection error.]", 1),
    },
    "pi": {
        "rate_limit": ("stderr", "429 Too Many Requests: rate limit exceeded", 1),
        "auth": ("stderr", "401 Unauthorized: invalid api key", 1),
        "server_error": ("stderr", "500 Internal Server Error", 1),
        "connection": ("stderr", "Connection error.", 1),
    },
    "kimi-cli": {
        "rate_limit": (
            "stdout",
            "Error code: 429 - {'error': {'message': 'rate limit reached'",
            75,
        ),
        "auth": ("stdout", "Error code: 401 - {'error': {'message': 'Invalid Authentication'", 75),
        "server_error": ("stdout", "Error code: 500", 75),
        "connection": ("stdout", "Connection error.", 75),
    },
    "kimi-code": {
        "rate_limit": ("stderr", "provider.rate_limit: 429 Too Many Requests", 1),
        "auth": ("stderr", "provider.auth_error: 401 Unauthorized", 1),
        "server_error": ("stderr", "provider.server_error: 500", 1),
        "connection": ("stderr", "provider.connection_error", 1),
    },
}


@pytest.mark.parametrize("mode", ["auth", "server_error", "connection"])
@by_id(WORKING)
def test_each_failure_mode_prints_the_vendors_signature_on_the_vendors_stream(
    target: Target, mode: str, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis, mode)
    stream, text, code = FAILURES[target.id][mode]
    result = run(SIMPLE_CALL[target.id], env, room, stdin=PROMPT)
    assert result.returncode == code
    assert text in getattr(result, stream).decode()
    assert "FAKE-" not in result.stdout.decode()


@by_id(WORKING)
def test_rate_limit_with_times_one_fails_once_then_succeeds(
    target: Target, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    target.set(fake_clis, "rate_limit", times=1, retry_after=7)
    stream, text, code = FAILURES[target.id]["rate_limit"]
    first = run(SIMPLE_CALL[target.id], env, room, stdin=PROMPT)
    second = run(SIMPLE_CALL[target.id], env, room, stdin=PROMPT)
    assert first.returncode == code
    assert text in getattr(first, stream).decode()
    assert "Retry after 7s" in getattr(first, stream).decode()
    assert second.returncode == 0
    assert expected_answer(target.name, PROMPT) in second.stdout.decode()


def test_claude_json_failures_carry_is_error_and_the_api_status(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    argv, stdin = documented_call(CLAUDE, room)
    outcomes = {}
    for mode in ("rate_limit", "auth", "server_error"):
        fake_clis.set("claude", mode)
        result = run(argv, env, room, stdin=stdin)
        outcomes[mode] = (result.returncode, json.loads(result.stdout))
    assert {code for code, _ in outcomes.values()} == {1}
    limited, auth, server = (outcomes[m][1] for m in ("rate_limit", "auth", "server_error"))
    assert limited["is_error"] is True
    assert limited["api_error_status"] == 429
    assert limited["result"] == "API Error: Request rejected (429) · Rate limited"
    assert auth["is_error"] is True
    assert auth["result"] == "Not logged in · Please run /login"
    assert "api_error_status" not in auth
    assert server["api_error_status"] == 500


# --- output-shape modes -----------------------------------------------------------------------


def test_garbage_mode_puts_invalid_utf8_inside_the_vendors_format(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("claude", "garbage")
    fake_clis.set("pi", "garbage")
    claude = run(documented_call(CLAUDE, room)[0], env, room, stdin=PROMPT)
    pi = run(["pi", "-p"], env, room, stdin=PROMPT)
    assert claude.returncode == pi.returncode == 0
    with pytest.raises(UnicodeDecodeError):
        claude.stdout.decode()
    assert "\ufffd" in json.loads(claude.stdout.decode(errors="replace"))["result"]
    assert b"\xff\xfe" in pi.stdout


def test_huge_mode_writes_the_requested_bytes_before_the_answer(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("pi", "huge", bytes=3_000_000)
    result = run(["pi", "-p"], env, room, stdin=PROMPT)
    answer = expected_answer("pi", PROMPT) + "\n"
    assert result.returncode == 0
    assert len(result.stdout) == 3_000_000 + len(answer.encode())
    assert result.stdout.endswith(answer.encode())


def test_empty_mode_is_well_formed_with_an_empty_answer(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    for name in ("claude", "qwen", "codex"):
        fake_clis.set(name, "empty")
    claude = run(documented_call(CLAUDE, room)[0], env, room, stdin=PROMPT)
    qwen = run(documented_call(QWEN, room)[0], env, room, stdin=PROMPT)
    codex = run(documented_call(CODEX, room)[0], env, room, stdin=PROMPT)
    assert json.loads(claude.stdout)["result"] == ""
    assert json.loads(qwen.stdout)[-1]["result"] == ""
    assert (room / "last.txt").read_text() == ""
    assert claude.returncode == qwen.returncode == codex.returncode == 0


def test_echo_mode_and_answer_option_replace_the_answer(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("pi", "echo")
    echoed = run(["pi", "-p"], env, room, stdin=PROMPT)
    fake_clis.set("pi", answer="fixed")
    fixed = run(["pi", "-p"], env, room, stdin=PROMPT)
    assert echoed.stdout.decode() == PROMPT + "\n"
    assert fixed.stdout.decode() == "fixed\n"


def test_slow_mode_answers_after_its_delay(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("gemini", "slow", delay=0.3)
    begin = time.monotonic()
    result = run(["gemini", "-m", "m", "--skip-trust"], env, room, stdin=PROMPT)
    assert time.monotonic() - begin >= 0.3
    assert result.stdout.decode() == expected_answer("gemini", PROMPT) + "\n"


def test_crash_mode_prints_a_python_traceback_and_exits_1(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("qwen", "crash")
    result = run(["qwen"], env, room, stdin=PROMPT)
    assert result.returncode == 1
    assert result.stderr.decode().startswith("Traceback (most recent call last):\n")


def test_write_attempt_mode_records_which_writes_succeeded(
    fake_clis: FakeClis, env: dict[str, str], room: Path, tmp_path: Path
) -> None:
    fake_clis.set("pi", "write_attempt", target=str(tmp_path / "missing" / "dir"))
    result = run(["pi", "-p"], env, room, stdin=PROMPT)
    writes = fake_clis.calls("pi")[-1]["writes"]
    assert result.returncode == 0
    assert (room / "fake-wrote.txt").exists()
    assert [(w["path"], w["ok"]) for w in writes] == [
        (str(room / "fake-wrote.txt"), True),
        (str(tmp_path / "missing" / "dir" / "fake-wrote.txt"), False),
    ]


# --- recording, stdin and process behaviour ---------------------------------------------------


def test_calls_are_recorded_with_argv_cwd_env_and_stdin_in_order(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    run(["pi", "--version"], env, room)
    run(["pi", "-p", "--offline"], env, room, stdin=PROMPT)
    first, second = fake_clis.calls("pi")
    assert first["argv"] == ["--version"]
    assert first["stdin"] is None
    assert second["argv"] == ["-p", "--offline"]
    assert second["cwd"] == str(room)
    assert second["env"] == env
    assert second["stdin"] == PROMPT
    assert second["stdin_isatty"] is False
    assert first["time"] <= second["time"]
    assert {"pid", "pgid", "sid", "mode"} <= set(second)


def test_a_fake_in_a_new_session_is_its_own_process_group_leader(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    with started(
        ["claude", "-p"],
        env=env,
        cwd=room,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        proc.communicate(timeout=10)
    call = fake_clis.calls("claude")[-1]
    assert call["pid"] == call["pgid"] == call["sid"] == proc.pid
    assert call["stdin"] is None, "/dev/null gives no prompt"
    assert proc.returncode == 1


def test_codex_reads_stdin_to_eof_so_an_open_pipe_hangs_it(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    with started(
        ["codex", "exec", "--skip-git-repo-check", "-"],
        env=env,
        cwd=room,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write(PROMPT.encode())
        proc.stdin.flush()
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.3)
        assert fake_clis.calls("codex") == [], "nothing is recorded before stdin ends"
        stdout, _ = proc.communicate(timeout=10)  # closes stdin
    assert stdout.decode() == expected_answer("codex", PROMPT) + "\n"


def test_hang_mode_is_recorded_before_hanging_and_dies_on_sigterm(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("pi", "hang")
    with started(
        ["pi", "-p"], env=env, cwd=room, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write(PROMPT.encode())
        proc.stdin.close()
        call = wait_for_calls(fake_clis, "pi")[-1]
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=10) == -signal.SIGTERM
    assert call["stdin"] == PROMPT


def test_ignore_term_mode_survives_sigterm_and_needs_sigkill(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("codex", "ignore_term")
    with started(
        ["codex", "exec", "--skip-git-repo-check", "hi"],
        env=env,
        cwd=room,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ) as proc:
        wait_for_calls(fake_clis, "codex")
        os.killpg(proc.pid, signal.SIGTERM)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.3)
        os.killpg(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=10) == -signal.SIGKILL


def test_grandchild_mode_leaves_an_escaped_grandchild_in_another_process_group(
    fake_clis: FakeClis, env: dict[str, str], room: Path, tmp_path: Path
) -> None:
    fake_clis.set("claude", "grandchild")
    script = str(fake_clis.executable("claude"))
    escaped: list[psutil.Process] = []
    (tmp_path / "prompt.txt").write_text(PROMPT)
    try:
        with (
            (tmp_path / "prompt.txt").open("rb") as stdin,
            (tmp_path / "out.txt").open("wb") as stdout,
            started(["claude", "-p"], env=env, cwd=room, stdin=stdin, stdout=stdout) as proc,
        ):
            assert proc.wait(timeout=10) == 0
        escaped = [
            p
            for p in psutil.process_iter(["pid", "cmdline"])
            if script in (p.info["cmdline"] or []) and p.pid != proc.pid
        ]
        assert [p.pid for p in escaped] == fake_clis.grandchildren("claude")
        grandchild = escaped[0]
        assert os.getpgid(grandchild.pid) not in (proc.pid, os.getpgid(0))
        assert os.getsid(grandchild.pid) == grandchild.pid
        assert str(tmp_path / "out.txt") in [f.path for f in grandchild.open_files()]
        out = (tmp_path / "out.txt").read_text()
        assert out == expected_answer("claude", PROMPT) + "\n"
    finally:
        for p in escaped:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        psutil.wait_procs(escaped, timeout=10)


def test_needs_tty_mode_fails_without_a_terminal(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("claude", "needs_tty")
    result = run(["claude", "-p"], env, room, stdin=PROMPT)
    assert result.returncode == 1
    assert result.stderr.decode() == NEEDS_TTY_MESSAGE + "\n"


def test_needs_tty_mode_asks_on_a_terminal_and_waits_for_an_answer(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("claude", "needs_tty")
    controller, terminal = os.openpty()
    try:
        with started(
            ["claude", "-p", "hi"], env=env, cwd=room, stdin=terminal, stdout=subprocess.PIPE
        ) as proc:
            os.close(terminal)
            terminal = -1
            assert proc.stdout is not None
            shown = b""
            while len(shown) < len(TRUST_PROMPT) and (chunk := os.read(proc.stdout.fileno(), 64)):
                shown += chunk
            assert shown.decode() == TRUST_PROMPT
            assert proc.poll() is None
            assert fake_clis.calls("claude")[-1]["stdin_isatty"] is True
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)


def test_login_prompt_mode_asks_and_keeps_waiting(
    fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    fake_clis.set("gemini", "login_prompt")
    with started(
        ["gemini", "-m", "m", "--skip-trust"],
        env=env,
        cwd=room,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as proc:
        assert proc.stdout is not None
        line = proc.stdout.readline().decode()
        assert line.startswith("Please log in: press Enter to open the browser")
        assert proc.poll() is None
