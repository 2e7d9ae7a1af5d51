"""The runs of a scratchpad as the run commands read them (docs/spec/commands.md, "council list
/ show ID / wait ID / resume ID / status ID / cancel ID"), on records made here with the state
a run leaves: which directories are runs, their order, how an id, a prefix, a path or `last`
names one and what a reference that names none says, a state still `running` that no process
holds, the status line, the elapsed time as written, progress lines, and the lock that says
who runs a record."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from council.cli import cli
from council.errors import ExitCode, UsageError
from council.runs.lock import RecordLock, RecordLocked, holder, is_held
from council.runs.record import PROGRESS, Record, kind_of
from council.runs.store import (
    cancel_run,
    elapsed_text,
    find_run,
    new_progress_lines,
    read_state,
    records,
    settled_state,
    status_line,
    stored_result,
    summarize,
)

STARTED = "2026-11-28T09:05:00+00:00"


def make(pad: Path, run_id: str, **state: object) -> Record:
    """A record as a run leaves it: its state.json (a completed two-round debate unless
    `state` says otherwise) and the lock file made when it was taken."""
    path = pad / run_id
    path.mkdir(parents=True)
    fields = {
        "id": run_id,
        "question": "Redis or Postgres?",
        "plan": {"rounds": 2},
        "status": "completed",
        "phase": "DECISION",
        "round": 2,
        "rounds_run": 2,
        "started_at": STARTED,
        "finished_at": STARTED,
        "duration_s": 75.4,
        "seats": {},
        "calls": {},
        "exit_code": 0,
        "pid": 4242,
    }
    (path / "state.json").write_text(json.dumps({**fields, **state}))
    (path / "lock").write_text("")
    return Record(path)


@pytest.fixture
def pad(tmp_path: Path) -> Path:
    return tmp_path / ".scratchpad"


def ids(found: list[Record]) -> list[str]:
    return [r.id for r in found]


def test_runs_are_listed_newest_first_by_their_time_stamp_whatever_their_kind(pad):
    make(pad, "review-20261128-090000-zzzz")
    make(pad, "debate-20261128-100000-aaaa")
    make(pad, "check-20261127-230000-mmmm")
    make(pad, "debate-20261128-093000-bbbb")
    assert ids(records(pad)) == [
        "debate-20261128-100000-aaaa",
        "debate-20261128-093000-bbbb",
        "review-20261128-090000-zzzz",
        "check-20261127-230000-mmmm",
    ]


def test_two_runs_of_one_second_are_listed_by_when_their_records_were_made(pad):
    first = make(pad, "debate-20261128-090000-zzzz")
    second = make(pad, "debate-20261128-090000-aaaa")
    made = (second.path / "lock").stat().st_ctime_ns
    # utime sets the ctime to now: the first record's lock is then the later made (a coarse
    # clock may need a few tries to tell them apart)
    while (first.path / "lock").stat().st_ctime_ns <= made:
        os.utime(first.path / "lock")
    assert ids(records(pad)) == [first.id, second.id]


def test_only_named_records_with_a_state_are_runs(pad):
    make(pad, "debate-20261128-090000-aaaa")
    (pad / "debate-20261128-090001-bbbb").mkdir()  # still being set up: no state.json yet
    (pad / "notes").mkdir()
    (pad / "Debate-20261128-090002-cccc").mkdir()
    (pad / "Debate-20261128-090002-cccc" / "state.json").write_text("{}")
    assert ids(records(pad)) == ["debate-20261128-090000-aaaa"]
    assert records(pad / "missing") == []


def test_last_is_the_newest_and_a_prefix_names_a_run_with_or_without_its_kind(pad):
    make(pad, "debate-20261128-090000-aaaa")
    make(pad, "review-20261128-100000-bbbb")
    assert find_run(pad, "last").id == "review-20261128-100000-bbbb"
    assert find_run(pad, "debate-2026").id == "debate-20261128-090000-aaaa"
    assert find_run(pad, "20261128-09").id == "debate-20261128-090000-aaaa"
    assert find_run(pad, " 20261128-1 ").id == "review-20261128-100000-bbbb"
    assert find_run(pad, str(pad / "debate-20261128-090000-aaaa") + "/").path == (
        pad / "debate-20261128-090000-aaaa"
    )


def refusal(pad: Path, ref: str) -> str:
    with pytest.raises(UsageError) as refused:
        find_run(pad, ref)
    return str(refused.value)


def test_a_reference_that_names_no_single_run_says_what_to_give(pad):
    assert refusal(pad, "last") == f"no runs in {pad} yet; start one with `council debate`"
    assert refusal(pad, "  ") == (
        "give a run id, a unique prefix of one, or `last`; see `council list`"
    )
    for second in range(5):
        make(pad, f"debate-20261128-09000{second}-abcd")
    assert refusal(pad, "20261129") == (
        f"no run '20261129' in {pad} (recent: debate-20261128-090004-abcd, "
        "debate-20261128-090003-abcd, debate-20261128-090002-abcd); see `council list`"
    )
    assert refusal(pad, "debate-20261128-09000") == (
        "'debate-20261128-09000' matches 5 runs (debate-20261128-090004-abcd, "
        "debate-20261128-090003-abcd, debate-20261128-090002-abcd, "
        "debate-20261128-090001-abcd, ...): give more of the id"
    )
    (pad / "debate-20261128-100000-zzzz").mkdir()
    assert refusal(pad, "debate-20261128-100000-zzzz") == (
        f"{pad / 'debate-20261128-100000-zzzz'}: the record has no state.json (its run never "
        "started, or the file was deleted); it cannot be shown or resumed"
    )


def test_a_prefix_of_four_runs_names_all_four(pad):
    for second in range(4):
        make(pad, f"review-20261128-09000{second}-abcd")
    assert refusal(pad, "review") == (
        "'review' matches 4 runs (review-20261128-090003-abcd, review-20261128-090002-abcd, "
        "review-20261128-090001-abcd, review-20261128-090000-abcd): give more of the id"
    )


def test_a_prefix_of_exactly_two_runs_names_both(pad):
    make(pad, "debate-20261128-090000-aaaa")
    make(pad, "review-20261128-090001-bbbb")
    assert refusal(pad, "2026") == (
        "'2026' matches 2 runs (review-20261128-090001-bbbb, debate-20261128-090000-aaaa): "
        "give more of the id"
    )


def test_a_summary_holds_what_list_and_status_show(pad):
    record = make(
        pad,
        "debate-20261128-090000-aaaa",
        status="degraded",
        phase="DECISION",
        round=2,
        rounds_run=1,
        plan={"rounds": 3},
        exit_code=5,
    )
    summary = summarize(record)
    assert summary.to_json() == {
        "id": record.id,
        "path": str(record.path),
        "status": "degraded",
        "phase": "DECISION",
        "round": 2,
        "rounds": {"requested": 3, "run": 1},
        "question": "Redis or Postgres?",
        "started_at": STARTED,
        "elapsed_s": 75.4,
        "pid": 4242,
        "exit_code": 5,
    }
    assert summary.settled and not summary.running


def test_a_running_state_nobody_holds_is_interrupted_and_a_held_one_is_running(pad):
    record = make(pad, "debate-20261128-090000-aaaa", status="running", finished_at=None)
    assert summarize(record).status == "interrupted"
    state = read_state(record)
    settled = settled_state(record, state)
    assert (settled["status"], settled["exit_code"]) == ("interrupted", 130)
    assert settled["error"] == (
        f"{record.id} stopped when its process died; resume with: council resume {record.id}"
    )
    lock = RecordLock.acquire(record.path)
    try:
        assert is_held(record.path)
        live = summarize(record)
        assert live.status == "running" and live.running and not live.settled
        assert live.pid == os.getpid()  # the lock names the process that runs it
        assert settled_state(record, state) is state
        with pytest.raises(RecordLocked, match=f"in use by process {os.getpid()}"):
            RecordLock.acquire(record.path)
    finally:
        lock.release()
    assert not is_held(record.path)
    assert holder(record.path) is not None and holder(record.path).pid == os.getpid()


def test_an_ended_run_whose_process_still_holds_it_is_not_settled_yet(pad):
    # Its state turns final a moment before its process has written result.json and let go:
    # `council wait` must not read the result before then.
    record = make(pad, "debate-20261128-090000-aaaa", status="completed")
    lock = RecordLock.acquire(record.path)
    try:
        held = summarize(record)
        assert (held.status, held.held, held.settled) == ("completed", True, False)
    finally:
        lock.release()
    assert summarize(record).settled


def test_an_ended_state_is_shown_as_it_is(pad):
    record = make(pad, "debate-20261128-090000-aaaa", status="failed", exit_code=3, error="x")
    state = read_state(record)
    assert settled_state(record, state) is state
    interrupted = make(pad, "debate-20261128-090001-aaaa", status="interrupted", error="kept")
    assert settled_state(interrupted, read_state(interrupted))["error"] == "kept"


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "0s"), (59.9, "59s"), (60, "1m00s"), (125.7, "2m05s"), (3600, "60m00s")],
)
def test_elapsed_time_is_written_in_minutes_and_seconds(seconds, shown):
    assert elapsed_text(seconds) == shown


def test_the_status_line_says_the_round_only_while_running(pad):
    counts = {"ok": 2, "failed": 1, "waiting": 0}
    ended = summarize(make(pad, "debate-20261128-090000-aaaa", duration_s=125.0))
    assert status_line(ended, counts) == (
        "debate-20261128-090000-aaaa completed · DECISION · seats 2 ok, 1 failed, 0 waiting · 2m05s"
    )
    record = make(pad, "debate-20261128-090001-aaaa", status="running", phase="CHALLENGE", round=2)
    lock = RecordLock.acquire(record.path)
    try:
        line = status_line(summarize(record), {"ok": 1, "failed": 0, "waiting": 1})
    finally:
        lock.release()
    assert line.startswith(
        "debate-20261128-090001-aaaa running · CHALLENGE round 2 · seats 1 ok, 0 failed, "
        "1 waiting · "
    )


def test_progress_lines_are_given_from_the_nth_and_only_when_whole(pad):
    record = make(pad, "debate-20261128-090000-aaaa")
    assert new_progress_lines(record, 0) == []  # no log yet
    record.file(PROGRESS).write_text("[00:00] one\n[00:01] two\n[00:02] thr")
    assert new_progress_lines(record, 0) == ["[00:00] one", "[00:01] two"]
    assert new_progress_lines(record, 1) == ["[00:01] two"]
    assert new_progress_lines(record, 2) == []


def test_the_result_file_is_the_result_only_once_the_run_finished(pad):
    record = make(pad, "debate-20261128-090000-aaaa")
    state = read_state(record)
    assert not stored_result(record, state)  # no result.json
    record.file("result.json").write_text("{}")
    assert stored_result(record, state)
    assert not stored_result(record, {**state, "finished_at": None})


def test_an_unknown_exit_code_in_a_state_is_named(pad):
    record = make(pad, "debate-20261128-090000-aaaa", exit_code=42)
    with pytest.raises(UsageError) as refused:
        read_state(record)
    known = ", ".join(str(int(c)) for c in ExitCode)
    assert str(refused.value) == (
        f"{record.file('state.json')}: unknown exit code 42 (council's are {known})"
    )


def test_cancel_refuses_a_run_that_is_not_running(pad):
    record = make(pad, "debate-20261128-090000-aaaa", status="degraded")
    with pytest.raises(UsageError) as refused:
        cancel_run(record, 1.0)
    assert str(refused.value) == (
        "debate-20261128-090000-aaaa is not running (degraded); nothing to cancel"
    )


def test_a_records_kind_is_the_start_of_its_id():
    assert kind_of("review-20261128-090000-aaaa") == "review"
    assert kind_of("check-20261128-090000-aaaa") == "check"


# -- the run commands on these records, in this process -----------------------------------


def council(pad: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--scratchpad", str(pad)], prog_name="council")


def test_list_shows_twenty_runs_unless_told_and_limit_cuts_to_the_newest(pad):
    for minute in range(22):
        make(pad, f"debate-20261128-09{minute:02d}00-abcd")
    listed = council(pad, "list")
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert len(lines) == 20
    assert lines[0].split()[0] == "debate-20261128-092100-abcd"
    assert lines[-1].split()[0] == "debate-20261128-090200-abcd"
    five = council(pad, "list", "--limit", "5", "--json")
    assert [r["id"] for r in json.loads(five.stdout)] == [
        f"debate-20261128-09{minute:02d}00-abcd" for minute in (21, 20, 19, 18, 17)
    ]
    assert council(pad, "list", "--limit", "0").exit_code == 2


def test_list_prints_each_runs_line_and_says_so_when_there_is_none(pad):
    empty = council(pad, "list")
    assert (empty.exit_code, empty.stdout) == (0, "")
    assert empty.stderr == f"no runs in {pad.absolute()} yet; start one with `council debate`\n"
    make(pad, "debate-20261128-090000-aaaa", status="degraded", rounds_run=1, plan={"rounds": 3})
    (line,) = council(pad, "list").stdout.splitlines()
    assert (
        line
        == "debate-20261128-090000-aaaa  2026-11-28 09:05  degraded     1/3   Redis or Postgres?"
    )


def test_status_prints_one_line_and_its_json_the_summary_with_the_seat_counts(pad):
    seats = {
        "advocate": {"role": "advocate", "status": "ready"},
        "critic": {"role": "critic", "status": "dropped"},
        "lead": {"role": "lead", "status": "ready"},
    }
    calls = {"advocate-r1": {"status": "ok"}}
    record = make(pad, "debate-20261128-090000-aaaa", seats=seats, calls=calls)
    line = council(pad, "status", "last")
    assert line.exit_code == 0, line.output
    assert line.stdout == (
        f"{record.id} completed · DECISION · seats 1 ok, 1 failed, 0 waiting · 1m15s\n"
    )
    shown = json.loads(council(pad, "status", "20261128", "--json").stdout)
    assert shown["seats"] == {"ok": 1, "failed": 1, "waiting": 0}
    assert (shown["id"], shown["status"], shown["elapsed_s"]) == (record.id, "completed", 75.4)


def test_status_of_a_run_whose_process_died_is_interrupted(pad):
    make(pad, "debate-20261128-090000-aaaa", status="running", phase="CHALLENGE", round=2)
    shown = json.loads(council(pad, "status", "last", "--json").stdout)
    assert (shown["status"], shown["exit_code"]) == ("interrupted", 130)


def test_cancel_of_a_run_that_ended_is_a_usage_error(pad):
    make(pad, "debate-20261128-090000-aaaa")
    cancelled = council(pad, "cancel", "last")
    assert cancelled.exit_code == 2
    assert (
        "debate-20261128-090000-aaaa is not running (completed); nothing to cancel"
        in cancelled.stderr
    )


def test_an_id_with_the_trailing_slash_shell_completion_leaves_names_its_run(pad, monkeypatch):
    # Completing a record's directory name leaves `debate-.../`: still that run, wherever
    # the user stands (here: not in the scratchpad).
    monkeypatch.chdir(pad.parent)
    record = make(pad, "debate-20261128-090000-aaaa")
    assert find_run(pad, f"{record.id}/").id == record.id
    shown = council(pad, "status", f"{record.id}/")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.startswith(f"{record.id} completed · DECISION · ")


def test_a_resumed_running_run_counts_its_earlier_processes_time_too(pad):
    # A run resumed 10 minutes in: `status` shows those 10 minutes plus the time since it
    # was taken over, not the time since the resume alone.
    taken_over = datetime.now(UTC) - timedelta(seconds=5)
    record = make(
        pad,
        "debate-20261128-090000-aaaa",
        status="running",
        phase="CHALLENGE",
        round=2,
        finished_at=None,
        duration_s=600.0,
        run_started_at=taken_over.isoformat(),
    )
    lock = RecordLock.acquire(record.path)
    try:
        before = time.time()
        shown = json.loads(council(pad, "status", "last", "--json").stdout)
        line = council(pad, "status", "last").stdout
        after = time.time()
    finally:
        lock.release()
    since = taken_over.timestamp()
    assert shown["status"] == "running"
    # elapsed_s is written to a tenth of a second
    low, high = 600.0 + (before - since) - 0.05, 600.0 + (after - since) + 0.05
    assert low <= shown["elapsed_s"] <= high
    shown_text = line.rstrip("\n").rsplit(" · ", 1)[1]
    assert shown_text in {
        elapsed_text(600.0 + seconds)
        for seconds in range(int(before - since), int(after - since) + 1)
    }
    assert shown_text.startswith("10m")
