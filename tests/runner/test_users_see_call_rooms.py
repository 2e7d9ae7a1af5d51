"""Each spawned call outside a run gets a temporary directory of its own, never the user's: the
CLI's TMPDIR names it, the user's TMP/TEMP do not reach the CLI, and however the call ends
(an answer, a failing exit, a hang killed at the hard limit) nothing of it is left behind in
the user's temporary directory (docs/spec/protocol.md sections 3 and 4, docs/adr/005: "a
private one per seat, set as `TMPDIR`; one per call outside a run")."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest

from council.adapters.base import CliSettings, Status, Tool
from council.adapters.custom import CustomAdapter
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call

pytestmark = pytest.mark.anyio

FAST_RETRY = RetryPolicy(base_delay_s=0.01, max_delay_s=0.05, other_delay_s=0.01)
PROMPT = "ACTION: PROPOSAL\nQuestion: Should we cache sessions in Redis?\n"

# A CLI that says which temporary directories it was given, leaves a file in its TMPDIR (as
# real CLIs do: claude's `claude-<uid>/`, codex's `codex-bwrap-*`), then ends as told: `ok`
# answers, `fail` exits 1, `hang` waits for an event nobody sets, until the runner kills it.
CLI = """\
import json, os, sys, threading
sys.stdin.read()
tmp = os.environ.get("TMPDIR", "")
os.makedirs(os.path.join(tmp, "cli-state"), exist_ok=True)
with open(os.path.join(tmp, "cli-state", "session.json"), "w") as f:
    f.write("{}")
print(json.dumps({k: os.environ.get(k) for k in ("TMPDIR", "TMP", "TEMP")}), flush=True)
mode = sys.argv[1]
if mode == "fail":
    sys.exit(1)
if mode == "hang":
    threading.Event().wait()
"""

# (how the call ends, the status the user sees, the runner's limits)
ENDINGS = [
    ("ok", Status.OK, Timeouts(soft_s=60, hard_s=90, grace_s=1)),
    ("fail", Status.ERROR, Timeouts(soft_s=60, hard_s=90, grace_s=1)),
    # The hard limit must outlast the CLI's start on a busy machine (it prints its TMPDIR
    # first): a bound, not a speed check, and the one wait this table pays.
    ("hang", Status.TIMEOUT, Timeouts(soft_s=2.5, hard_s=5, grace_s=0.5)),
]


@pytest.fixture
def user_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's temporary directory, as council's own process sees it."""
    path = tmp_path / "user-tmp"
    path.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(path))
    return path


def left_behind(user_tmp: Path) -> list[str]:
    """What is in the user's temporary directory, nested paths included."""
    return sorted(p.relative_to(user_tmp).as_posix() for p in user_tmp.rglob("*"))


async def call(tmp_path: Path, room: Path, record_dir: Path, user_tmp: Path, mode: str, timeouts):
    script = tmp_path / "tmp_reporter.py"
    script.write_text(CLI)
    settings = CliSettings(
        name="reporter", adapter="custom", command=(sys.executable, str(script), mode)
    )
    environ = {
        **{k: v for k, v in os.environ.items() if k not in ("TMP", "TEMP")},
        "TMPDIR": str(user_tmp),
        "TMP": str(user_tmp),
        "TEMP": str(user_tmp),
    }
    name = f"proxy-reporter-{mode}"
    outcome = await run_call(
        CustomAdapter(settings),
        Tool("reporter", settings.command),
        PROMPT,
        room=room,
        files=CallFiles(record_dir, name),
        timeouts=timeouts,
        policy=FAST_RETRY,
        environ=environ,
    )
    said = (record_dir / f"{name}-response.md").read_text().splitlines()[0]
    return outcome, json.loads(said)


@pytest.mark.parametrize(("mode", "status", "timeouts"), ENDINGS, ids=[e[0] for e in ENDINGS])
async def test_the_cli_writes_in_a_private_tmpdir_that_is_gone_when_the_call_ends(
    tmp_path, room, record_dir, user_tmp, mode, status, timeouts
):
    outcome, seen = await call(tmp_path, room, record_dir, user_tmp, mode, timeouts)
    assert outcome.status is status
    private = Path(seen["TMPDIR"])
    assert private.parent == user_tmp and private.name.startswith("council-call-")
    # The user's TMP/TEMP never point the CLI back at the shared directory.
    assert {seen["TMP"], seen["TEMP"]} <= {None, str(private)}
    assert left_behind(user_tmp) == []


async def test_two_calls_never_share_a_temporary_directory(tmp_path, room, record_dir, user_tmp):
    ok = ENDINGS[0][2]
    _, first = await call(tmp_path, room, record_dir, user_tmp, "ok", ok)
    _, second = await call(tmp_path, room, record_dir, user_tmp, "fail", ok)
    assert first["TMPDIR"] != second["TMPDIR"]
    assert left_behind(user_tmp) == []
