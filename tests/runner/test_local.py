"""council's own short commands (git): never a shell, never the user's stdin, and a hung one
killed with everything it started, naming the command and its limit."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from council.runner.local import LocalTimeout, run_local

# Starts a child that would outlive it, writes both pids, then hangs.
HANGS_WITH_A_CHILD = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
with open(sys.argv[1], "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
time.sleep(60)
"""


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def dies(pid: int) -> bool:
    """Whether `pid` is gone within 10 s: a process SIGKILLed closes its pipes (which ends
    the wait for its output) a moment before the kernel marks it dead."""
    deadline = time.monotonic() + 10
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_hung_command_is_killed_with_its_children_at_its_timeout(tmp_path: Path):
    pids = tmp_path / "pids"
    argv = [sys.executable, "-c", HANGS_WITH_A_CHILD, str(pids)]
    with pytest.raises(LocalTimeout) as caught:
        run_local(argv, cwd=tmp_path, timeout_s=4)  # room to start a child on a busy machine
    assert str(caught.value) == f"{sys.executable} took over 4s"
    assert pids.exists(), "the command was killed before it started its child"
    assert all(dies(int(pid)) for pid in pids.read_text().split())


def test_a_command_gets_dev_null_for_stdin_never_councils_own(tmp_path: Path):
    """council may be reading a question piped on its stdin: git must not take it."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)  # council's stdin is a pipe with the user's question in it
    try:
        os.write(write_end, b"the user's question\n")
        done = run_local(
            [sys.executable, "-c", "import os, sys; print(os.readlink('/proc/self/fd/0'))"],
            cwd=tmp_path,
            timeout_s=20,
        )
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == "/dev/null"


def test_a_command_runs_in_its_own_session_in_the_given_directory(tmp_path: Path):
    script = "import os; print(os.getsid(0) == os.getpid(), os.getcwd())"
    done = run_local([sys.executable, "-c", script], cwd=tmp_path, timeout_s=20)
    assert done.stdout.decode().split() == ["True", str(tmp_path)]


def test_a_command_that_ends_returns_its_exit_code_and_both_outputs(tmp_path: Path):
    script = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    done = run_local([sys.executable, "-c", script], cwd=tmp_path, timeout_s=20)
    assert (done.returncode, done.stdout, done.stderr) == (3, b"out\n", b"err\n")


def test_a_missing_program_raises_file_not_found(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        run_local([str(tmp_path / "no-such-git")], cwd=tmp_path, timeout_s=5)
