"""What a detached run's process is started with (docs/spec/commands.md, `--detach`; the
module's promise in runs/detach.py): `<python> -m council <global options> run-detached
<record> --lock-fd N`, in the project, in a session of its own, stdin and stdout on /dev/null,
its stderr appended to the record's progress.log, and holding the record's lock after the
starting council let go of its own copy, so the run is never seen unowned. The program started
here stands in for council: it reports what it was given, then waits to be told to end."""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from council.runs import detach as detach_module
from council.runs.lock import RecordLock, holder, is_held
from council.runs.record import PROGRESS, Record
from project import wait_for

# Stands in for `<python>`: reports its argv, directory, session and standard streams.
CHILD = """\
#!{python}
import json, os, sys, time
from pathlib import Path

here = Path(sys.argv[0]).parent
null = os.stat("/dev/null")
report = {{
    "argv": sys.argv[1:],
    "cwd": os.getcwd(),
    "own_session": os.getsid(0) == os.getpid(),
    "stdin_null": os.path.samestat(os.fstat(0), null),
    "stdout_null": os.path.samestat(os.fstat(1), null),
    "lock_fd_open": os.path.isdir(f"/proc/self/fd/{{sys.argv[-1]}}"),
}}
sys.stderr.write("[00:00] written by the detached council\\n")
sys.stderr.flush()
(here / "report.tmp").write_text(json.dumps(report))
(here / "report.tmp").rename(here / "report.json")  # whole when the test sees it
while not (here / "go").exists():
    time.sleep(0.02)
"""


@dataclass
class State:
    pid: int | None = None
    status: str = "running"
    plan: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "status": self.status, "plan": self.plan}


@pytest.fixture
def terminal_stdin():
    """This process's stdin a pipe while the test runs (as a terminal would be, never
    /dev/null), so a child that inherited it would not look detached."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)


@pytest.fixture
def child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The stand-in for council's python, as `sys.executable` of the detach module; its
    folder, where it writes its report and waits for `go`."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "python"
    program.write_text(CHILD.format(python=sys.executable))
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(detach_module, "sys", SimpleNamespace(executable=str(program)))
    return folder


def test_a_detached_run_gets_its_argv_session_streams_log_and_the_records_lock(
    tmp_path: Path, child: Path, terminal_stdin: None
):
    project = tmp_path / "project"
    project.mkdir()
    record = Record.create(project / ".scratchpad")
    record.file(PROGRESS).write_text("[00:00] setup: written before the hand-over\n")
    lock = RecordLock.acquire(record.path)
    state = State()
    spawned: list[int | None] = []
    try:
        handed = detach_module.hand_over(
            record,
            lock,
            state,
            cwd=project,
            council_args=("--config", "/etc/ci.yaml", "--verbose"),
            spawned=lambda: spawned.append(state.pid),
        )
        assert handed is record
        wait_for(lambda: (child / "report.json").exists())
        report = json.loads((child / "report.json").read_text())
        pid = state.pid
        assert pid is not None and pid != os.getpid() and spawned == [pid]
        assert report["argv"][:6] == [
            "-m",
            "council",
            "--config",
            "/etc/ci.yaml",
            "--verbose",
            "run-detached",
        ]
        assert report["argv"][6:8] == [str(record.path), "--lock-fd"]
        assert report["cwd"] == str(project)
        assert report["own_session"] and report["stdin_null"] and report["stdout_null"]
        assert report["lock_fd_open"]
        # Our copy is let go; the child's keeps the record locked, and the lock names it.
        assert lock.fd == -1
        assert is_held(record.path)
        assert holder(record.path) is not None and holder(record.path).pid == pid
        saved = json.loads(record.file("state.json").read_text())
        assert saved["pid"] == pid
    finally:
        (child / "go").touch()
        lock.release()
    wait_for(lambda: not is_held(record.path))  # the child ended: nobody holds the record
    assert record.file(PROGRESS).read_text() == (
        "[00:00] setup: written before the hand-over\n[00:00] written by the detached council\n"
    )
