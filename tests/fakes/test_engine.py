"""The engine every fake shares: output-shape modes, call records, stdin and processes.

A mode (``FakeClis.set``) changes what a fake does after parsing its argv like the real CLI;
the call record is written before the mode acts, so a hung or killed fake is on record.
The interactive modes (needs_tty, login_prompt) are checked through council instead, where a
seat stuck at such a question must end at once: tests/adapters/test_custom.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from fakes.engine import CLASSES
from fakes.helpers import CLAUDE, CODEX, PROMPT, QWEN, documented_call, run, started, wait_for_calls
from fakes.install import VENDORS, FakeClis, expected_answer


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


FAKE_MODULES = {"engine", "grammar", "vendor", *(module for module, _ in CLASSES.values())}
VENDOR_MODULES = {"qwen": {"gemini", "qwen"}}
"""The vendor modules each fake loads besides its own (qwen-code is a fork of gemini-cli)."""
SLOW_IMPORTS = {"typing", "dataclasses", "pathlib", "uuid", "platform", "subprocess"}


@pytest.mark.parametrize("name", VENDORS)
def test_a_fake_imports_the_engine_and_its_own_vendor_module_only(
    name: str, fake_clis: FakeClis, env: dict[str, str], room: Path
) -> None:
    script = fake_clis.executable(name)
    python = script.read_text(encoding="utf-8").split()[0].removeprefix("#!")
    result = subprocess.run(
        [python, "-IS", "-X", "importtime", str(script), "--version"],
        capture_output=True,
        env=env,
        cwd=room,
        check=True,
    )
    lines = result.stderr.decode().splitlines()
    imported = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time")}
    expected = {"engine", "grammar", "vendor", *VENDOR_MODULES.get(name, {name})}
    assert imported & FAKE_MODULES == expected
    assert imported & SLOW_IMPORTS == set()


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
