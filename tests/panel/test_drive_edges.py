"""How a run ends when its lead does not finish (docs/spec/protocol.md section 6): a council
error raised inside the lead's task groups is the run's error, with its own exit code, and the
run is `failed`, resumable; a bug propagates, its traceback kept in the record's `council.err`
and named on the exception, and the state is still saved last. On the `echo` protocol
(tests/panel/echo.py), in this process."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from council.config import parse_config
from council.errors import ExitCode, NoUsableCliError
from council.panel.run import start
from council.runs.store import records
from panel.echo import ECHO, EchoFlags, EchoLead
from panel.test_run_edges import echo_project
from panel.test_run_life import quiet


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return echo_project(tmp_path, monkeypatch)[0]


def run_with(project: Path, monkeypatch: pytest.MonkeyPatch, conduct):
    monkeypatch.setattr(ECHO, "conduct", conduct)
    return start(ECHO, EchoFlags(files=("app.py",)), parse_config({}), quiet(), cwd=project)


def only_record(project: Path) -> Path:
    (record,) = records(project / ".scratchpad")
    return record.path


def test_a_council_error_inside_the_leads_task_group_is_the_runs_error_and_exit_code(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    async def conduct(lead: EchoLead) -> None:
        async def seat_gone() -> None:
            raise NoUsableCliError("no seat could answer")

        async with anyio.create_task_group() as tg:
            tg.start_soon(seat_gone)
            await anyio.sleep_forever()

    run = run_with(project, monkeypatch, conduct)
    assert isinstance(run.error, NoUsableCliError)
    assert run.exit_code == NoUsableCliError("x").exit_code != ExitCode.OK
    state = json.loads((run.record.path / "state.json").read_text())
    assert (state["status"], state["error"]) == ("failed", "no seat could answer")
    assert state["exit_code"] == run.exit_code
    assert state["finished_at"] is not None
    assert not (run.record.path / "council.err").exists()


def test_a_bug_in_the_lead_propagates_with_its_traceback_kept_in_the_record(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    async def conduct(lead: EchoLead) -> None:
        await lead.journal.enter("REVIEW", 1)
        raise RuntimeError("the lead tripped over its own feet")

    with pytest.raises(BaseExceptionGroup) as raised:  # as the lead's task group raised it
        run_with(project, monkeypatch, conduct)
    assert raised.group_contains(RuntimeError, match="its own feet", depth=None)
    record = only_record(project)
    kept = record / "council.err"
    assert raised.value.council_traceback == str(kept)
    text = kept.read_text()
    assert "Traceback" in text and "RuntimeError: the lead tripped" in text
    state = json.loads((record / "state.json").read_text())
    assert (state["status"], state["phase"]) == ("failed", "REVIEW")
