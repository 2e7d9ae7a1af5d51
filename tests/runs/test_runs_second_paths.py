"""The run commands on their second paths (docs/spec/commands.md, "council list / show ID /
wait ID / resume ID / status ID / cancel ID"): `cancel` of a live run (the signal it sends, what
it says, a run still stopping), `wait` on a run still going and on one whose process died, a
holder named by a reused pid, the question column at its width, the exit code of a run that
ended well, a form a record's kind does not have, and progress lines in another encoding.

The live runs here are small processes holding a record's lock as council does: no timing in
any assertion (each waits on what the process wrote, with a generous bound on a hang)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil
import pytest
from click.testing import CliRunner

from council.cli import cli
from council.runs.lock import Holder, RecordLock, holder, is_held
from council.runs.record import PROGRESS, Record
from council.runs.store import find_run, new_progress_lines
from project import QUESTION, Project, edit_state, wait_for
from runs.test_store import STARTED, council, make

# A process that runs a record as council does: it takes the record's lock (naming itself in
# the lock file) and says which signal it got; `stops` ends on it as council ends on Ctrl-C,
# `ignores` goes on (a run still writing its result when the cancel gives up).
HOLDER = textwrap.dedent(
    """
    import signal, sys
    from pathlib import Path
    from council.runs.lock import RecordLock

    record, seen, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

    def got(number, frame):
        seen.write_text(signal.Signals(number).name)
        if mode == "stops":
            sys.exit(130)

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, got)
    lock = RecordLock.acquire(record)
    while True:
        signal.pause()
    """
)


@pytest.fixture
def pad(tmp_path: Path) -> Path:
    return tmp_path / ".scratchpad"


def running(pad: Path, run_id: str = "debate-20261128-090000-aaaa", **state: object) -> Record:
    """A record whose state says it is running (its process not started yet)."""
    fields = {"status": "running", "phase": "CHALLENGE", "finished_at": None, "exit_code": None}
    return make(pad, run_id, **{**fields, **state})


@pytest.fixture
def live(pad: Path) -> Iterator[tuple[Record, subprocess.Popen, Path]]:
    """A running record held by a process that stops on a signal, as a run does."""
    yield from _held(pad, "stops")


@pytest.fixture
def stubborn(pad: Path) -> Iterator[tuple[Record, subprocess.Popen, Path]]:
    """A running record held by a process that goes on after a signal."""
    yield from _held(pad, "ignores")


def _held(pad: Path, mode: str) -> Iterator[tuple[Record, subprocess.Popen, Path]]:
    record = running(pad)
    seen = pad.parent / "signal"
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(record.path), str(seen), mode])
    try:
        wait_for(lambda: is_held(record.path) and _named(record, child.pid))
        yield record, child, seen
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


def _named(record: Record, pid: int) -> bool:
    found = holder(record.path)
    return found is not None and found.pid == pid


def test_cancel_stops_a_live_run_as_ctrl_c_would_and_says_how_to_resume_it(pad, live):
    record, child, seen = live
    cancelled = council(pad, "cancel", "last")
    assert cancelled.exit_code == 0, cancelled.output
    assert cancelled.stderr == (f"cancelled {record.id}; resume with: council resume {record.id}\n")
    assert seen.read_text() == "SIGINT"
    assert child.wait(timeout=60) == 130
    assert not is_held(record.path)


def test_cancel_of_a_run_still_stopping_exits_75_naming_its_process(pad, stubborn, monkeypatch):
    record, child, seen = stubborn
    monkeypatch.setattr("council.cli.runs._CANCEL_WAIT_S", 0.5)
    cancelled = council(pad, "cancel", record.id[:-1])
    assert cancelled.exit_code == 75, cancelled.output
    assert cancelled.stderr == (
        f"council: {record.id} (process {child.pid}) is still stopping after 0.5s; "
        f"check with: council status {record.id}\n"
    )
    wait_for(seen.exists)
    assert seen.read_text() == "SIGINT"
    assert child.poll() is None and is_held(record.path)  # it was asked, never killed


def test_a_lock_file_naming_a_reused_pid_or_a_dead_process_names_no_live_holder():
    me = psutil.Process(os.getpid())
    assert Holder(me.pid, me.create_time()).alive()
    assert not Holder(me.pid, me.create_time() - 3600).alive()  # another process, same pid
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    assert not Holder(gone.pid, 0.0).alive()


def test_wait_on_a_live_run_prints_its_whole_lines_and_where_to_go_on_from(pad):
    record = running(pad, round=2)
    record.file(PROGRESS).write_text("[00:00] one\n[00:01] two\n[00:02] three\n[00:03] fo")
    lock = RecordLock.acquire(record.path)
    try:
        first = council(pad, "wait", "last", "--timeout", "0")
        later = council(pad, "wait", "last", "--timeout", "0", "--since", "1")
    finally:
        lock.release()
    assert first.exit_code == 75, first.output
    assert first.stdout == ""
    lines = first.stderr.splitlines()
    assert lines[:3] == ["[00:00] one", "[00:01] two", "[00:02] three"]
    assert lines[3].startswith(
        f"still running: {record.id} running · CHALLENGE round 2 · seats 0 ok, 0 failed, "
        "0 waiting · "
    )
    assert lines[4:] == [f"wait again: council wait {record.id} --since 3"]
    assert later.exit_code == 75, later.output
    assert later.stderr.splitlines()[:2] == ["[00:01] two", "[00:02] three"]
    assert later.stderr.splitlines()[-1] == f"wait again: council wait {record.id} --since 3"


def test_a_running_run_taken_over_in_the_future_shows_only_its_earlier_time(pad):
    # A clock set back after the run was taken over: no negative time, the earlier runs' time.
    ahead = datetime.now(UTC) + timedelta(hours=1)
    record = running(pad, duration_s=600.0, run_started_at=ahead.isoformat())
    lock = RecordLock.acquire(record.path)
    try:
        shown = council(pad, "status", "last")
        as_json = json.loads(council(pad, "status", "last", "--json").stdout)
    finally:
        lock.release()
    assert shown.stdout.rstrip("\n").endswith(" · 10m00s")
    assert as_json["elapsed_s"] == 600.0


def test_wait_on_a_run_whose_process_died_exits_130_and_says_how_to_resume(tmp_path, monkeypatch):
    # A debate whose process died in its DECISION: its state still says `running`.
    project = Project(tmp_path)
    ran = project.run("debate", QUESTION, "--sim", "--json")
    assert ran.returncode == 0, ran.stderr
    run_id = json.loads(ran.stdout)["id"]
    edit_state(project.root / ".scratchpad" / run_id, status="running", exit_code=None)
    edit_state(project.root / ".scratchpad" / run_id, finished_at=None)
    monkeypatch.chdir(project.root)
    for form in ("md", "json"):
        argv = ["wait", run_id, "--since", "0", *(["--json"] if form == "json" else [])]
        waited = CliRunner().invoke(cli, argv, env=project.env())
        assert waited.exit_code == 130, waited.output
        assert waited.stderr.splitlines()[-2:] == [
            f"council: {run_id} stopped when its process died; resume with: "
            f"council resume {run_id}",
            f"saved: .scratchpad/{run_id}/",
        ]
        if form == "md":
            assert waited.stdout == ""  # no DECISION was reached
    # What a script reads: the status `show` and `status` report too.
    result = json.loads(waited.stdout)
    assert (result["status"], result["exit_code"]) == ("interrupted", 130)
    shown = json.loads(CliRunner().invoke(cli, ["show", run_id, "--json"]).stdout)
    assert (shown["status"], shown["exit_code"]) == ("interrupted", 130)


# A question of exactly 60 characters fits the column; one more is cut to 57 and "...".
SIXTY = "Should the sessions service keep its cache in Redis or Pg???"
QUESTIONS = [
    (SIXTY, SIXTY),
    (SIXTY + "!", SIXTY[:57] + "..."),
    ("  Redis\tor\n\nPostgres?  ", "Redis or Postgres?"),
]


@pytest.mark.parametrize(("question", "shown"), QUESTIONS, ids=["60", "61", "spaces"])
def test_list_fits_the_question_into_sixty_characters_on_one_line(pad, question, shown):
    assert len(SIXTY) == 60
    make(pad, "debate-20261128-090000-aaaa", question=question)
    listed = council(pad, "list")
    assert listed.stdout == (
        f"debate-20261128-090000-aaaa  2026-11-28 09:05  completed    2/2   {shown}\n"
    )


def test_status_json_of_a_run_that_ended_well_has_exit_code_0_and_its_pid(pad):
    make(pad, "debate-20261128-090000-aaaa")
    shown = json.loads(council(pad, "status", "last", "--json").stdout)
    assert (shown["exit_code"], shown["pid"]) == (0, 4242)
    (listed,) = json.loads(council(pad, "list", "--json").stdout)
    assert listed["exit_code"] == 0


@pytest.mark.parametrize("kind", ["debate", "check"])
def test_show_refuses_a_form_the_records_kind_does_not_have(pad, kind):
    make(pad, f"{kind}-20261128-090000-aaaa")
    shown = council(pad, "show", "last", "--sarif")
    assert shown.exit_code == 2
    assert shown.stderr.endswith(
        f"{kind}-20261128-090000-aaaa is a {kind}: --sarif is not one of its forms\n"
    )


def test_a_record_given_by_its_path_outside_the_scratchpad_is_that_run(pad, tmp_path):
    elsewhere = make(tmp_path / "artifacts", "debate-20261128-090000-aaaa")
    make(pad, "debate-20261128-100000-bbbb")
    for ref in (str(elsewhere.path), f"{elsewhere.path}/"):
        assert find_run(pad, ref).path == elsewhere.path
    shown = council(pad, "status", str(elsewhere.path))
    assert shown.stdout.startswith("debate-20261128-090000-aaaa completed · DECISION · ")


def test_an_unknown_reference_in_an_empty_scratchpad_says_there_are_none(pad):
    pad.mkdir()
    refused = council(pad, "show", "debate-2026")
    assert refused.exit_code == 2
    assert f"no run 'debate-2026' in {pad.absolute()} (recent: none); see `council list`" in (
        refused.stderr
    )


def test_progress_lines_in_another_encoding_are_printed_not_refused(pad):
    record = make(pad, "debate-20261128-090000-aaaa")
    record.file(PROGRESS).write_bytes(b"[00:00] caf\xe9 ready\n[00:01] two\n")
    assert new_progress_lines(record, 0) == ["[00:00] caf\ufffd ready", "[00:01] two"]


def test_list_json_of_an_empty_scratchpad_is_an_empty_list_for_scripts(pad):
    listed = council(pad, "list", "--json")
    assert (listed.exit_code, listed.stdout, listed.stderr) == (0, "[]\n", "")


def test_a_resumed_run_is_listed_by_when_it_first_started_with_all_its_time(pad):
    # Resumed at 11:00 after 75.4 s of earlier work, then ended: `list` and `status` give its
    # first start and the time of every process that ran it, not the resume's alone.
    make(pad, "debate-20261128-090500-aaaa", run_started_at="2026-11-28T11:00:00+00:00")
    (line,) = council(pad, "list").stdout.splitlines()
    assert line.startswith("debate-20261128-090500-aaaa  2026-11-28 09:05  completed  ")
    shown = json.loads(council(pad, "status", "last", "--json").stdout)
    assert (shown["started_at"], shown["elapsed_s"]) == (STARTED, 75.4)
    assert council(pad, "status", "last").stdout.endswith(" · 1m15s\n")


def test_wait_does_not_read_the_result_of_a_run_still_holding_its_record(pad):
    # Its state turns final a moment before its process has written result.json and let go.
    record = make(pad, "debate-20261128-090000-aaaa")
    lock = RecordLock.acquire(record.path)
    try:
        waited = council(pad, "wait", "last", "--timeout", "0")
    finally:
        lock.release()
    assert waited.exit_code == 75, waited.output
    assert waited.stderr.splitlines() == [
        f"still running: {record.id} completed · DECISION · seats 0 ok, 0 failed, 0 waiting"
        " · 1m15s",
        f"wait again: council wait {record.id} --since 0",
    ]
