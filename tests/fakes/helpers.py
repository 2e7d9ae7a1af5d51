"""Helpers of the fakes' self-tests: the targets, how to run a fake and read its answer.

The self-tests (``test_*.py`` beside this file) trust nothing but these: every fake runs as a
real subprocess found through PATH, with the minimal environment council gives a CLI
(``conftest.py`` installs the fakes and builds that environment).
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

import pytest

from fakes.install import FakeClis

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


# The headless call of each CLI as documented in docs/spec/clis.md, and how to read its answer.
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
        lines = [json.loads(line) for line in text.splitlines()]
        return [line for line in lines if line["role"] == "assistant"][-1]["content"]
    return text.removesuffix("\n")
