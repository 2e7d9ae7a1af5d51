"""The runs in a scratchpad: finding one by id, prefix or `last`, listing them, and telling
whether one is still running.

A run's `state.json` says `running` from its start until it ends; if its process died without
ending it (SIGKILL, a crash, a reboot), nobody holds its lock any more, and the run is
reported as `interrupted`, never as running forever. Everything here reads only `state.json`
and the lock, so `council list` over hundreds of records stays fast.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from council.errors import ExitCode, UsageError
from council.runs.lock import holder, is_held
from council.runs.record import PROGRESS, STATE, Record, is_record_name

LAST = "last"
RESULT = "result.json"
_POLL_S = 0.1


@dataclass(frozen=True)
class RunSummary:
    """What `list` and `status` show of one run, from its `state.json` and its lock."""

    id: str
    path: Path
    status: str  # running | completed | degraded | failed | interrupted
    phase: str
    round: int
    rounds: int  # requested
    rounds_run: int
    question: str
    started_at: str
    duration_s: float  # of the runs before this one, when running
    run_started_at: str  # when the latest (or current) process took the run over
    pid: int | None
    exit_code: int | None
    held: bool = False  # a process still holds the record (maybe writing its result files)

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def settled(self) -> bool:
        """Ended and let go: its state says it ended and its process has written
        `result.json` and released the record (the state turns final a moment before)."""
        return not self.running and not self.held

    @property
    def elapsed_s(self) -> float:
        if not self.running:
            return self.duration_s
        started = datetime.fromisoformat(self.run_started_at).timestamp()
        return self.duration_s + max(0.0, time.time() - started)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": str(self.path),
            "status": self.status,
            "phase": self.phase,
            "round": self.round,
            "rounds": {"requested": self.rounds, "run": self.rounds_run},
            "question": self.question,
            "started_at": self.started_at,
            "elapsed_s": round(self.elapsed_s, 1),
            "pid": self.pid,
            "exit_code": self.exit_code,
        }


def effective_status(record: Path, recorded: str) -> str:
    """`recorded` (state.json's status), except that a `running` record nobody holds is
    `interrupted`: its process is gone."""
    if recorded == "running" and not is_held(record):
        return "interrupted"
    return recorded


def summarize(record: Record, state: dict[str, Any] | None = None) -> RunSummary:
    """What the runs commands show of a record. A `state.json` that cannot be read is a
    `UsageError` naming it (`read_state`); a field of the wrong type reads as unknown, never as
    a crash of every command that lists the runs."""
    state = state if state is not None else read_state(record)
    plan = state.get("plan") if isinstance(state.get("plan"), dict) else {}
    live = holder(record.path)
    status = state.get("status")
    return RunSummary(
        id=record.id,
        path=record.path,
        status=effective_status(record.path, status if status in STATUSES else "running"),
        phase=str(state.get("phase") or "?"),
        round=_number(state.get("round"), int),
        rounds=_number(plan.get("rounds"), int),
        rounds_run=_number(state.get("rounds_run"), int),
        question=str(state.get("question", "")),
        started_at=str(state.get("started_at", "")),
        duration_s=_number(state.get("duration_s"), float),
        run_started_at=str(state.get("run_started_at") or state.get("started_at", "")),
        pid=live.pid if live else _number(state.get("pid"), int) or None,
        exit_code=state.get("exit_code") if isinstance(state.get("exit_code"), int) else None,
        held=is_held(record.path),
    )


STATUSES = ("running", "completed", "degraded", "failed", "interrupted")


def _number(value: Any, kind: type) -> Any:
    """`value` as an int or float, 0 when it is none (or a bool, a string, a list...)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return kind(0)
    try:
        return kind(value)
    except (ValueError, OverflowError):  # nan or inf as an int
        return kind(0)


def records(scratchpad: Path) -> list[Record]:
    """Every record in `scratchpad`, newest first (ids sort by their time stamp)."""
    if not scratchpad.is_dir():
        return []
    found = [Record(p) for p in scratchpad.iterdir() if is_record_name(p.name) and _has_state(p)]
    return sorted(found, key=_age, reverse=True)


def _has_state(path: Path) -> bool:
    """Whether `path` is a run's record: something stands at its `state.json` (damaged or
    not: the reader says what is wrong with it), or the record cannot be looked into (another
    user's, `chmod 000`). A record without one is a run still being set up: not yet a run."""
    try:
        os.stat(path / STATE)
    except FileNotFoundError:
        return False
    except OSError:
        return path.is_dir()
    return True


def _age(record: Record) -> tuple[str, int]:
    """The id's time stamp, then (two runs started in one second) when its record was
    created: the lock file is made at once and never rewritten after the run started."""
    try:
        made = (record.path / "lock").stat().st_ctime_ns
    except OSError:
        made = 0
    return record.id.split("-", 1)[1][:15], made


def find_run(scratchpad: Path, ref: str) -> Record:
    """The record `ref` names: `last`, a whole id, a record path, or any unique prefix of an
    id (with or without its `debate-` part)."""
    ref = ref.strip().rstrip("/")
    if not ref:
        raise UsageError("give a run id, a unique prefix of one, or `last`; see `council list`")
    path = Path(ref)
    if "/" in ref and path.is_dir() and _has_state(path):
        return Record(path)
    every = records(scratchpad)
    if ref == LAST:
        if not every:
            raise UsageError(f"no runs in {scratchpad} yet; start one with `council debate`")
        return every[0]
    matches = [r for r in every if r.id.startswith(ref) or r.id.split("-", 1)[1].startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        if is_record_name(ref) and (scratchpad / ref).is_dir():
            raise UsageError(
                f"{scratchpad / ref}: the record has no {STATE} (its run never started, or the "
                "file was deleted); it cannot be shown or resumed"
            )
        recent = ", ".join(r.id for r in every[:3]) or "none"
        raise UsageError(f"no run '{ref}' in {scratchpad} (recent: {recent}); see `council list`")
    shown = ", ".join(r.id for r in matches[:4]) + (", ..." if len(matches) > 4 else "")
    raise UsageError(f"'{ref}' matches {len(matches)} runs ({shown}): give more of the id")


def read_state(record: Record) -> dict[str, Any]:
    """`state.json`, or a `UsageError` naming the file when it cannot be read, is not JSON, or
    holds a field every reader uses with the wrong type (the one reader of a record's state:
    every runs command goes through it, so a damaged record is exit 2, never a crash)."""
    value = read_record_json(record, STATE)
    if not isinstance(value, dict):
        raise UsageError(f"{record.file(STATE)}: not a run's state (expected a JSON object)")
    missing = [name for name in _REQUIRED if name not in value]
    if missing:
        raise UsageError(
            f"{record.file(STATE)}: not a run's state (it has no {', '.join(missing)})"
        )
    for name, kinds in _FIELDS.items():
        if name in value and (not isinstance(value[name], kinds) or _is_bool(value[name], kinds)):
            raise UsageError(
                f"{record.file(STATE)}: not a run's state (its {name} is "
                f"{type(value[name]).__name__}, not {_names(kinds)})"
            )
    for name in ("seats", "calls"):
        if not all(isinstance(v, dict) for v in (value.get(name) or {}).values()):
            raise UsageError(
                f"{record.file(STATE)}: not a run's state (its {name} are not objects)"
            )
    if value.get("status", "running") not in STATUSES:
        raise UsageError(f"{record.file(STATE)}: unknown status {value['status']!r}")
    recorded_exit(record, value)
    return value


_REQUIRED = ("status", "plan")  # what every run's state has had from its first write
# The fields of a state that the runs commands read, by the types they may hold.
_FIELDS: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "question": (str,),
    "plan": (dict,),
    "status": (str,),
    "phase": (str,),
    "round": (int,),
    "rounds_run": (int,),
    "started_at": (str,),
    "finished_at": (str, type(None)),
    "run_started_at": (str, type(None)),
    "duration_s": (int, float),
    "seats": (dict,),
    "calls": (dict,),
    "exit_code": (int, type(None)),
    "error": (str, type(None)),
    "pid": (int, type(None)),
}


def _is_bool(value: Any, kinds: tuple[type, ...]) -> bool:
    return isinstance(value, bool) and bool not in kinds


def _names(kinds: tuple[type, ...]) -> str:
    return " or ".join("null" if k is type(None) else k.__name__ for k in kinds)


def recorded_exit(record: Record, state: dict[str, Any]) -> ExitCode:
    """The exit code a record's state holds (0 while none), or a `UsageError` naming
    `state.json` when it is none of council's (protocol.md section 8)."""
    code = state.get("exit_code") or 0
    try:
        return ExitCode(code)
    except ValueError:
        known = ", ".join(str(int(c)) for c in ExitCode)
        raise UsageError(
            f"{record.file(STATE)}: unknown exit code {code} (council's are {known})"
        ) from None


def read_record_json(record: Record, name: str) -> Any:
    """A record's JSON file, or a `UsageError` naming it: missing, unreadable, a directory,
    not UTF-8 (a torn multibyte character) or not JSON."""
    try:
        return record.read_json(name)
    except OSError as exc:
        raise UsageError(f"{record.file(name)}: cannot be read ({exc.strerror})") from None
    except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError alike
        raise UsageError(f"{record.file(name)}: cannot be read ({exc})") from None


def stored_or_built_result(
    record: Record,
    state: dict[str, Any],
    kind: str,
    parse: Callable[[dict[str, Any]], Any],
    build: Callable[[Any, str], dict[str, Any]],
) -> dict[str, Any]:
    """A record's result: `result.json` once the run wrote it at its end, else what `build`
    makes of its state so far (a run still going, or one whose process died). A state that
    `parse` cannot take is no `kind`'s: a `UsageError` naming it (a failure of `build` on a
    state it took is a bug, and says so)."""
    if stored_result(record, state):
        return read_result(record)
    try:
        run = parse(state)
    except (TypeError, KeyError, AttributeError, ValueError):
        raise UsageError(
            f"{record.file(STATE)}: not a {kind}'s state (fields are missing or of the wrong "
            "type); the record cannot be shown"
        ) from None
    return build(run, record.display())


def stored_result(record: Record, state: dict[str, Any]) -> bool:
    """Whether a reader takes the record's result from `result.json` (the run ended and
    wrote it), not from its state."""
    return os.path.lexists(record.file(RESULT)) and bool(state.get("finished_at"))


def read_result(record: Record) -> dict[str, Any]:
    """`result.json`, or a `UsageError` naming it when it cannot be read (a torn or foreign
    file): the record's state is still there for `show`, and `resume` rewrites it."""
    try:
        value = read_record_json(record, RESULT)
    except UsageError as exc:
        raise UsageError(f"{exc}; `council resume {record.id}` writes it again") from None
    if not isinstance(value, dict) or value.get("status") not in STATUSES:
        raise damaged_result(record, "not a run's result")
    if not isinstance(value.get("scratchpad"), str):
        raise damaged_result(record, "its scratchpad is missing")
    return value


def damaged_result(record: Record, why: str) -> UsageError:
    """A `result.json` a reader could not use: named, with the way to write it again."""
    return UsageError(
        f"{record.file(RESULT)}: cannot be read ({why}); `council resume {record.id}` "
        "writes it again"
    )


def settled_state(record: Record, state: dict[str, Any]) -> dict[str, Any]:
    """`state` as a reader should show it: a run whose state still says `running` while no
    process holds its record died without its cleanup (`kill -9`, a crash): it is
    `interrupted`, exit 130, resumable, never shown as running with exit 0."""
    if effective_status(record.path, state.get("status", "running")) != "interrupted":
        return state
    if state.get("status") == "interrupted":
        return state
    return {
        **state,
        "status": "interrupted",
        "exit_code": int(ExitCode.INTERRUPTED),
        "error": state.get("error")
        or f"{record.id} stopped when its process died; resume with: council resume {record.id}",
    }


def elapsed_text(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def seat_counts(record: Record, state: dict[str, Any]) -> dict[str, int]:
    """Seats by where they are now: ok (idle, last call answered), failed (dropped, or last
    call failed), waiting (asked, no answer yet). The lead is not a seat here."""
    asked: dict[str, str] = {}
    for entry in record.transcript():
        meta = entry.get("meta")
        stem = meta.get("stem") if isinstance(meta, dict) else None
        if entry.get("kind") == "dm" and entry.get("action") and isinstance(stem, str):
            asked[str(entry.get("to"))] = stem
    counts = {"ok": 0, "failed": 0, "waiting": 0}
    for name, seat in state.get("seats", {}).items():
        if seat.get("role") == "lead":
            continue
        if seat.get("status") == "dropped":
            counts["failed"] += 1
            continue
        call = state.get("calls", {}).get(asked.get(name, ""))
        if name in asked and call is None:
            counts["waiting"] += 1
        elif call is not None and call.get("status") not in ("ok", "late"):
            counts["failed"] += 1
        else:
            counts["ok"] += 1
    return counts


def status_line(summary: RunSummary, counts: dict[str, int]) -> str:
    where = f"{summary.phase} round {summary.round}" if summary.running else summary.phase
    seats = f"{counts['ok']} ok, {counts['failed']} failed, {counts['waiting']} waiting"
    return f"{summary.id} {summary.status} · {where} · seats {seats} · " + elapsed_text(
        summary.elapsed_s
    )


def new_progress_lines(record: Record, since: int) -> list[str]:
    try:
        text = record.file(PROGRESS).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UsageError(f"{record.file(PROGRESS)}: cannot be read ({exc.strerror})") from None
    whole = text[: text.rfind("\n") + 1]  # a line still being written waits for next time
    return whole.splitlines()[since:]


def cancel_run(record: Record, wait_s: float) -> int | None:
    """Stop a running run as Ctrl-C would (it stays resumable) and wait up to `wait_s` for
    its process to let go of the record. Returns None once stopped, else the pid still
    stopping. A run that is not running is a `UsageError`."""
    summary = summarize(record)
    running = holder(record.path)
    if summary.running and summary.held and running is None:
        # Someone holds the record but its lock file, which names the process, is gone: a
        # pid read elsewhere may since belong to another program, so council sends nothing.
        named = f" (state.json names process {summary.pid})" if summary.pid else ""
        raise UsageError(
            f"{record.id} is running, but its lock file is gone, so council cannot tell which "
            f"process to stop{named}; stop it with kill -INT <pid> after checking it with ps"
        )
    if not summary.running or running is None or not running.alive():
        raise UsageError(f"{record.id} is not running ({summary.status}); nothing to cancel")
    os.kill(running.pid, signal.SIGINT)
    deadline = time.monotonic() + wait_s
    while is_held(record.path) and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    return running.pid if is_held(record.path) else None
