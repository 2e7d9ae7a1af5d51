"""The record a run leaves (docs/spec/protocol.md section 5): under the scratchpad the command
line names, relative to the project (not to wherever the process happens to be), one
directory named `<kind>-<YYYYMMDD-HHMMSS>-<4 chars>` holding the plan, the context, the
progress log, the transcript, each call's prompt and reply, the result and its renderings.
Run on `echo` (panel/echo.py) on the simulator."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest

from council import protocols
from council.config import parse_config
from council.errors import UsageError
from council.panel.run import resume, start
from council.progress import Progress
from council.runs.lock import RecordLock
from council.runs.record import Record
from panel.echo import ECHO, SEAT, EchoFlags
from panel.home import APP, user_project

STEM = f"{SEAT}-r1"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setitem(protocols.PROTOCOLS, ECHO.kind, ECHO)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the process is not in the project it runs on
    return user_project(tmp_path, monkeypatch)


def test_a_runs_record_is_under_the_projects_scratchpad_with_every_file(project, tmp_path):
    stream = io.StringIO()
    flags = EchoFlags(files=("app.py",), scratchpad="records")
    run = start(ECHO, flags, parse_config({}), Progress(stream, live=False), cwd=project)
    assert run.exit_code == 0, run.error
    record = run.record.path
    assert record.parent == project / "records"
    assert not (tmp_path / "elsewhere" / "records").exists()
    assert re.fullmatch(r"echo-\d{8}-\d{6}-[a-z0-9]{4}", record.name)
    names = {p.name for p in record.iterdir()}
    assert {
        "state.json",
        "context.json",
        "context.md",
        "progress.log",
        "transcript.jsonl",
        "result.json",
        "echo.md",
        "lock",
        f"{STEM}-prompt.md",
        f"{STEM}-reply.md",
    } <= names
    state = json.loads((record / "state.json").read_text())
    assert state["id"] == record.name
    # Times as a record writes them: UTC, ISO 8601, to the second.
    for key in ("started_at", "run_started_at", "finished_at"):
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", state[key]), key
    assert state["started_at"] <= state["run_started_at"] <= state["finished_at"]
    assert state["pid"] == os.getpid() and state["exit_code"] == 0 and state["error"] is None
    assert state["plan"]["scratchpad"] == "records"
    assert state["plan"]["files"] == ["app.py"]
    assert state["labels"] == {SEAT: "Echo"}
    assert state["order"] == [STEM]
    assert state["calls"][STEM]["prompt_file"] == f"{STEM}-prompt.md"
    context = json.loads((record / "context.json").read_text())
    assert context["root"] == str(project)
    assert [f["path"] for f in context["files"]] == ["app.py"]
    assert APP.splitlines()[1] in (record / f"{STEM}-prompt.md").read_text()
    assert (record / f"{STEM}-reply.md").read_text() == run.result["reply"]
    # The result names the record as the user would type it from the project.
    assert run.result["scratchpad"] == f"records/{record.name}/"
    log = (record / "progress.log").read_text()
    assert "setup: echo on sim\n" in log
    assert "setup: echo on sim\n" in stream.getvalue()  # the terminal shows what the log keeps


@pytest.mark.parametrize(
    ("status", "again"),
    # completed and interrupted: tests/panel/test_run_life.py
    [("degraded", False), ("failed", True)],
)
def test_resume_continues_a_failed_or_interrupted_run_and_leaves_an_ended_one(
    project, status, again
):
    config = parse_config({})
    first = start(ECHO, EchoFlags(files=("app.py",)), config, quiet(), cwd=project)
    record = first.record
    state = json.loads(record.file("state.json").read_text())
    state.update(status=status, exit_code=None)
    record.file("state.json").write_text(json.dumps(state))
    stream = io.StringIO()
    run = resume(ECHO, Record(record.path), config, Progress(stream, live=False), cwd=project)
    shown = stream.getvalue()
    if again:
        assert f"resuming {record.id} from REVIEW" in shown
        assert run.state.status == "completed" and run.exit_code == 0
    else:
        assert f"{record.id} already ended ({status}); nothing to resume" in shown
        assert run.state.status == status


def quiet() -> Progress:
    return Progress(io.StringIO(), live=False)


def test_resume_of_a_run_another_process_holds_is_refused_naming_it(project):
    config = parse_config({})
    first = start(ECHO, EchoFlags(files=("app.py",)), config, quiet(), cwd=project)
    record = first.record
    lock = RecordLock.acquire(record.path)  # as the council still running it would
    try:
        with pytest.raises(UsageError) as refused:
            resume(ECHO, Record(record.path), config, quiet(), cwd=project)
    finally:
        lock.release()
    assert str(refused.value) == (
        f"{record.id} is still running (process {os.getpid()}); wait for it "
        f"(`council wait {record.id}`) or stop it first (`council cancel {record.id}`)"
    )
