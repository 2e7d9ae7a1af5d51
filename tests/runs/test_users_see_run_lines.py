"""The lines the run commands print, exactly as a user reads them (docs/spec/commands.md,
"council list / show ID / wait ID ..."): `list`'s columns for debates, reviews and checks
(id, date, status, rounds run over requested, question); `status`'s one line and its `--json`
seat counts for every state a seat can be in; `wait --since N` and a progress line still
being written. Each record is a finished `--sim` run whose state.json or progress.log is then
set to what a real run leaves at that point: no timing in any assertion."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from project import QUESTION, Project, edit_state

STARTED = "2026-11-28T09:05:00+00:00"  # shown by `list` as "2026-11-28 09:05"
LONG = "Should the sessions service keep its cache in Redis, in Postgres, or in both of them?"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(tmp_path)
    (project.root / "service.py").write_text("import os\n\n\ndef run(c):\n    os.system(c)\n")
    return project


def ended(project: Project, kind: str, question: str = QUESTION) -> Path:
    """A debate, review or check run on the simulator to its end: its record."""
    args = {
        "debate": ["debate", question, "--sim"],
        "review": ["review", "--files", "service.py", "--sim"],
        "check": ["check", question, "--sim"],
    }[kind]
    run = project.run(*args)
    assert run.returncode == 0, run.stderr
    return project.records()[-1]


def stopped_after_one_of_three(status: str) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        state.update(status=status, started_at=STARTED, rounds_run=1)
        state["plan"]["rounds"] = 3

    return change


@pytest.mark.parametrize(
    ("kind", "status", "question", "shown"),
    [
        ("debate", "completed", QUESTION, QUESTION),
        ("debate", "degraded", LONG, LONG[:57] + "..."),
        ("review", "failed", "", "review of service.py"),
        ("check", "interrupted", "Is Redis  fine\nhere?", "Is Redis fine here?"),
    ],
)
def test_list_prints_id_date_status_rounds_run_over_requested_and_question(
    project, kind, status, question, shown
):
    record = ended(project, kind, question or QUESTION)
    edit_state(record, stopped_after_one_of_three(status))
    listed = project.run("list")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == f"{record.name}  2026-11-28 09:05  {status:<11}  1/3   {shown}\n"
    (summary,) = json.loads(project.run("list", "--json").stdout)
    assert (summary["status"], summary["rounds"]) == (status, {"requested": 3, "run": 1})


def _call_status(status: str) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        state["calls"]["critic-r2"]["status"] = status

    return change


def _dropped(state: dict[str, Any]) -> None:
    state["seats"]["critic"]["status"] = "dropped"


def _asked_no_answer_yet(state: dict[str, Any]) -> None:
    # What a run killed while the critic's second challenge was out leaves behind.
    del state["calls"]["critic-r2"]
    state.update(status="running", phase="CHALLENGE", round=2)


# (case, change to a finished debate's state, status and where, ok / failed / waiting)
SEAT_STATES = [
    ("ok", lambda state: None, "completed · DECISION", (2, 0, 0)),
    ("late-and-used", _call_status("late"), "completed · DECISION", (2, 0, 0)),
    ("failed-call", _call_status("failed"), "completed · DECISION", (1, 1, 0)),
    ("timed-out-call", _call_status("timeout"), "completed · DECISION", (1, 1, 0)),
    ("dropped", _dropped, "completed · DECISION", (1, 1, 0)),
    ("waiting", _asked_no_answer_yet, "interrupted · CHALLENGE", (1, 0, 1)),
]


@pytest.mark.parametrize(
    ("change", "where", "counts"),
    [case[1:] for case in SEAT_STATES],
    ids=[case[0] for case in SEAT_STATES],
)
def test_status_counts_each_seat_by_where_its_last_call_is(project, change, where, counts):
    record = ended(project, "debate")
    edit_state(record, change)
    edit_state(record, duration_s=65.0)
    ok, failed, waiting = counts
    line = project.run("status", record.name)
    assert line.returncode == 0, line.stderr
    assert line.stdout == (
        f"{record.name} {where} · seats {ok} ok, {failed} failed, {waiting} waiting · 1m05s\n"
    )
    as_json = project.run("status", record.name, "--json")
    assert as_json.returncode == 0, as_json.stderr
    shown = json.loads(as_json.stdout)
    assert shown["seats"] == {"ok": ok, "failed": failed, "waiting": waiting}
    assert (shown["id"], shown["elapsed_s"]) == (record.name, 65.0)


def progress_printed(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("[")]


@pytest.mark.parametrize("since", [0, 3, "all", "past-the-end"])
def test_wait_since_n_prints_the_progress_lines_after_the_first_n(project, since):
    record = ended(project, "debate")
    log = (record / "progress.log").read_text().splitlines()
    n = {"all": len(log), "past-the-end": len(log) + 5}.get(since, since)
    assert project.run("wait", record.name).returncode == 0  # the cursor now at the end
    waited = project.run("wait", record.name, "--since", str(n))
    assert waited.returncode == 0, waited.stderr
    assert progress_printed(waited.stderr) == log[n:]
    assert waited.stdout == (record / "decision.md").read_text()
    again = project.run("wait", record.name)  # from where the last wait stopped
    assert progress_printed(again.stderr) == []


def test_wait_prints_a_progress_line_only_once_it_is_whole(project):
    record = ended(project, "debate")
    log = record / "progress.log"
    whole = log.read_text().splitlines()
    with log.open("a") as out:
        out.write("[00:02] a line still being wr")
    first = project.run("wait", record.name, "--since", "0")
    assert first.returncode == 0, first.stderr
    assert progress_printed(first.stderr) == whole
    assert "still being wr" not in first.stderr
    with log.open("a") as out:
        out.write("itten\n")
    second = project.run("wait", record.name)
    assert progress_printed(second.stderr) == ["[00:02] a line still being written"]
