"""scripts/bench.py's account of council's own time, phase by phase, from a record (no debate
runs here, and no timing): the segments it cuts a simulated debate's wall into add up to the
wall, and a phase that called nobody is council's time after the last calls."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scripts_module import load_script

ROOT = Path(__file__).resolve().parents[1]


bench = load_script("bench.py", "bench_sim")
T0 = 1_800_000_000.0  # launch


def ms(seconds: float):
    """The transcript's times are to the millisecond."""
    return pytest.approx(seconds, abs=0.002)


def iso(at: float) -> str:
    return datetime.fromtimestamp(T0 + at, UTC).isoformat(timespec="milliseconds")


def record(
    tmp_path: Path, marks: list[tuple[str, int, float]], calls: dict, replies: tuple = ()
) -> Path:
    lines = [
        {"kind": "system", "body": f"phase {name}", "round": round_no, "ts": iso(at)}
        for name, round_no, at in marks
    ] + [
        {"kind": "broadcast", "body": "...", "phase": phase, "round": 2, "ts": iso(at)}
        for phase, at in replies
    ]
    (tmp_path / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in lines))
    state = {
        "calls": {
            stem: {
                "started_at": T0 + start,
                "latency_s": round(took, 2),
                "spans": [[0.0, took, "ok"]],
                "phase": stem.split(":")[0],
            }
            for stem, (start, took) in calls.items()
        }
    }
    (tmp_path / "state.json").write_text(json.dumps(state))
    return tmp_path


def run(path: Path, wall: float):
    return bench.Run({}, wall, 0.0, path, T0, 0.0, 0.0)


def test_a_debates_wall_is_start_up_council_before_and_after_each_phases_calls_and_exit(tmp_path):
    marks = [
        ("SETUP", 0, 0.30),
        ("PROPOSAL", 1, 0.35),
        ("CHALLENGE", 2, 1.60),
        ("DECISION", 2, 2.80),
    ]
    calls = {
        "advocate-r1": (0.40, 1.10),  # the PROPOSAL, 0.05 s after its phase; 0.10 beyond D
        "critic-r1": (0.41, 1.05),  # the BLIND TAKE beside it
        "critic-r2": (1.62, 1.02),  # CHALLENGE: ends 2.64, the DECISION entered 0.16 s later
        "lead-decision": (2.85, 1.00),  # ends 3.85; council exits at 3.95
    }
    account = bench.phase_account(run(record(tmp_path, marks, calls), 3.95), 1.0)
    assert account["launch_to_setup_s"] == ms(0.30)
    assert account["setup_s"] == ms(0.05)
    assert account["phases"] == {
        "R1 PROPOSAL": {
            "before_calls_s": ms(0.05),
            "calls_beyond_d_s": ms(0.10),
            "after_calls_s": ms(0.10),
        },
        "R2 CHALLENGE": {
            "before_calls_s": ms(0.02),
            "calls_beyond_d_s": ms(0.02),
            "after_calls_s": ms(0.16),
        },
        "R2 DECISION": {
            "before_calls_s": ms(0.05),
            "calls_beyond_d_s": ms(0.0),
            "after_calls_s": 0.0,
        },
    }
    assert account["exit_s"] == ms(0.10)
    total = (
        account["launch_to_setup_s"]
        + account["setup_s"]
        + account["council_between_s"]
        + account["calls_beyond_d_s"]
        + 3 * 1.0  # D per phase
        + account["exit_s"]
    )
    assert total == ms(3.95)


def test_a_phase_that_called_nobody_is_councils_time_after_the_phase_before(tmp_path):
    marks = [("SETUP", 0, 0.3), ("PROPOSAL", 1, 0.35), ("CHALLENGE", 2, 1.5), ("DECISION", 2, 1.6)]
    calls = {"advocate-r1": (0.4, 1.0), "lead-decision": (1.7, 1.0)}
    account = bench.phase_account(run(record(tmp_path, marks, calls), 2.8), 1.0)
    assert list(account["phases"]) == ["R1 PROPOSAL", "R2 DECISION"]
    assert account["phases"]["R1 PROPOSAL"]["after_calls_s"] == ms(0.1 + 0.1)
    assert account["exit_s"] == ms(0.1)


def test_the_challenge_of_many_proxies_splits_into_spawning_them_the_slowest_and_the_replies(
    tmp_path,
):
    marks = [("SETUP", 0, 0.3), ("PROPOSAL", 1, 0.35), ("CHALLENGE", 2, 1.50)]
    calls = {
        "PROPOSAL:advocate-r1": (0.40, 1.0),
        "CHALLENGE:critic-r2": (1.51, 1.02),  # the first spawned, 10 ms after the phase
        "CHALLENGE:proxy-sim-r2": (1.55, 1.08),  # the slowest: 80 ms beyond D
        "CHALLENGE:proxy-sim-2-r2": (1.60, 1.01),  # the last spawned
    }
    replies = (("CHALLENGE", 2.55), ("CHALLENGE", 2.64))
    split = bench.challenge_split(run(record(tmp_path, marks, calls, replies), 3.0), 1.0)
    assert split == {
        "to_first_spawn_s": ms(0.01),
        "spawns_s": ms(0.09),
        "slowest_beyond_d_s": ms(0.08),
        "to_last_reply_s": ms(0.01),  # the slowest ended at 2.63
    }
