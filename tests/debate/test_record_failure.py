"""The record survives a failing disk: a write that fails mid-run (a read-only record
directory, a full disk) ends the run with one line naming the file and exit 130, leaves
`state.json` and `transcript.jsonl` agreeing on every reply, and `council resume` completes
the run once the disk is fixed.

Simulated in-process: the tests run as root, whom a read-only directory does not stop, and
no unprivileged user can run this interpreter here (/root is 0700). The record's own write
functions and the runner's file creation raise the errno a real failure would, from the
moment the disk "breaks" on."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel.run import resume, start
from council.progress import Progress
from council.runs.record import Record
from runs.disk import Disk


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("class SessionStore:\n    def get(self, key): ...\n")
    return root


CONFIG = parse_config({"roles": {"advocate": "sim", "critic": "sim", "lead": "sim"}})


def debate(project: Path):
    progress = Progress(open(os.devnull, "w"), quiet=True)  # noqa: SIM115 - closed below
    try:
        return start(
            DEBATE,
            DebateFlags(question="Redis or Postgres?", files=("app.py",)),
            CONFIG,
            progress,
            cwd=project,
        )
    finally:
        progress.stream.close()


def on_disk(record: Path) -> tuple[dict, list[dict]]:
    state = json.loads((record / "state.json").read_text())
    lines = (record / "transcript.jsonl").read_text().splitlines()
    return state, [json.loads(line) for line in lines]


def assert_agree(state: dict, transcript: list[dict]) -> None:
    """Every answered reply is in both, or in neither."""
    broadcast = {
        m["meta"]["stem"]
        for m in transcript
        if m["kind"] == "broadcast" and m["meta"].get("status") == "ok"
    }
    stored = {
        stem
        for stem, call in state["calls"].items()
        if call["status"] in ("ok", "late") and not stem.startswith("lead-")
    }
    assert broadcast == stored


def test_a_state_write_failing_mid_run_stops_it_consistent_and_resume_completes_it(
    project, monkeypatch
):
    disk = Disk(
        errno.EROFS,
        lambda path, value: path.name == "state.json" and "critic-r2" in value.get("calls", {}),
    )
    with monkeypatch.context() as patch:
        disk.patch(patch)
        run = debate(project)
    assert disk.broken
    assert run.exit_code == 130
    message = str(run.error)
    assert "\n" not in message
    assert f"{run.record.path / 'state.json'}: Read-only file system" in message
    assert f"council resume {run.record.id}" in message
    state, transcript = on_disk(run.record.path)
    assert "critic-r2" not in state["calls"]  # the reply whose state could not be saved...
    assert not any(m["meta"].get("stem") == "critic-r2" for m in transcript)  # ...nor here
    assert state["status"] == "running"  # the last state that could be written
    assert_agree(state, transcript)
    assert not (run.record.path / "result.json").exists()

    # The disk is fixed: resume (a new process, its own Record) picks up from the last
    # consistent state.
    progress = Progress(open(os.devnull, "w"), quiet=True)  # noqa: SIM115
    try:
        resumed = resume(DEBATE, Record(run.record.path), CONFIG, progress, cwd=project)
    finally:
        progress.stream.close()
    assert resumed.exit_code == 0, resumed.error
    state, transcript = on_disk(run.record.path)
    assert state["status"] == "completed" and state["calls"]["critic-r2"]["status"] == "ok"
    assert_agree(state, transcript)
    assert [m["seq"] for m in transcript] == list(range(1, len(transcript) + 1))


def test_a_full_disk_when_a_call_starts_stops_the_run_naming_the_file(project, monkeypatch):
    # The disk fills up once the proposal is stored: the next call cannot create its files.
    disk = Disk(
        errno.ENOSPC,
        lambda path, value: path.name == "state.json" and "advocate-r1" in value.get("calls", {}),
    )
    with monkeypatch.context() as patch:
        disk.patch(patch)
        run = debate(project)
    assert run.exit_code == 130
    assert "No space left on device" in str(run.error)
    assert str(run.record.path) in str(run.error)
    state, transcript = on_disk(run.record.path)
    assert_agree(state, transcript)


@pytest.mark.parametrize("limit", [30, 60, 80])
def test_running_out_of_descriptors_is_named_with_its_own_fix(tmp_path, limit):
    """`ulimit -n` too low for 18 seats: a clear stop naming the limit, not "free space", and
    the same stop (130, resumable) whether a record write or a CLI's start meets it first
    (which one does depends on the limit and on how fast the seats start). Each call lasts
    2 s, so the sixteen proxies' calls overlap however busy the machine: a quick call that
    ended before the next one started would let a limit of 80 suffice."""
    import resource
    import subprocess

    from project import QUESTION, Project

    project = Project(tmp_path)

    def low_limit() -> None:  # in the child only, before council starts
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    run = subprocess.run(
        project.argv("debate", QUESTION, "--sim", "--with", ",".join(["sim"] * 16)),
        cwd=project.root,
        env=project.env(COUNCIL_SIM_DELAY="2"),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=low_limit,  # a test's own child: nothing runs between fork and exec
    )
    # Too few descriptors for 18 seats: stopped where it ran out, and said so with the fix
    assert run.returncode == 130, run.stderr
    assert "Too many open files" in run.stderr
    assert "raise the open-file limit (`ulimit -n`) or seat fewer proxies" in run.stderr
    assert "internal error" not in run.stderr
