"""Every fake is strict about its argv, like the real CLI in ``docs/spec/clis.md``.

Each prints its vendor's version format and fails anything outside its grammar with the
message and exit code of its vendor's own argument parser (clap, commander, yargs, click, pi's).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fakes.helpers import (
    ALL,
    CLAUDE,
    CODEX,
    GEMINI,
    KIMI_CLI,
    KIMI_CODE,
    PI,
    PROMPT,
    QWEN,
    Target,
    by_id,
    run,
)
from fakes.install import FakeClis

VERSIONS = {
    "codex": "codex-cli 0.169.0\n",
    "claude": "2.1.197 (Claude Code)\n",
    "gemini": "0.61.0\n",
    "qwen": "0.24.4\n",
    "pi": "1.6.0\n",
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
        (PI, ["-p", "--thinking", "ultra"], 1, 'Invalid value "ultra" for --thinking'),
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
