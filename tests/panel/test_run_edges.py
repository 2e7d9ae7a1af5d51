"""A run's second paths as its user meets them: a seat's soft timeout at a high effort or set by
`--timeout` (docs/spec/protocol.md section 3, clis.md's table), who pays for a seat's calls
judged from the environment its CLI gets, where the record goes for an absolute, relative or
`~` scratchpad, and a failed run resumed to its end: its failed call asked again, its error
gone from the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council import protocols
from council.adapters import adapter_for
from council.config import parse_config
from council.errors import ExitCode
from council.panel.calls import Tuning, billing_of
from council.panel.run import resolve_path, resume, start
from council.panel.seat import SeatPlan
from council.panel.seats import soft_timeout_of
from council.runner import RetryPolicy
from council.runs.record import Record
from panel.echo import ECHO, SEAT, EchoFlags, EchoLead, run_echo
from panel.test_run_life import calls, quiet


@pytest.mark.parametrize(
    ("cli", "effort", "timeout_s", "soft"),
    [
        ("codex", None, None, 600.0),
        ("codex", "xhigh", None, 1800.0),
        ("codex", "high", None, 600.0),
        ("codex", "xhigh", 900.0, 900.0),
        ("claude", "xhigh", None, 900.0),
        ("gemini", "xhigh", 120.0, 120.0),
    ],
)
def test_a_seats_soft_timeout_is_its_timeout_flag_else_its_clis_at_its_effort(
    cli: str, effort: str | None, timeout_s: float | None, soft: float
):
    seat = SeatPlan(name="critic", role="critic", cli=cli, effort=effort, soft_timeout_s=timeout_s)
    assert soft_timeout_of(seat, adapter_for(cli, {})) == soft


def test_a_seats_soft_timeout_follows_its_clis_configured_effort():
    config = parse_config({"clis": {"codex": {"effort": "xhigh"}}})
    seat = SeatPlan(name="critic", role="critic", cli="codex")
    assert soft_timeout_of(seat, adapter_for("codex", config.clis)) == 1800.0


@pytest.mark.parametrize(
    ("environ", "mode", "text"),
    [
        (
            {"ANTHROPIC_API_KEY": "sk-ant-test"},
            "api_key",
            "metered API key (ANTHROPIC_API_KEY)",
        ),
        ({"OPENAI_API_KEY": "sk-test"}, "unknown", None),  # another vendor's key: not claude's
        ({}, "unknown", None),
    ],
)
def test_who_pays_for_a_seat_is_judged_from_the_environment_its_cli_gets(
    tmp_path: Path, environ: dict, mode: str, text: str | None
):
    home = tmp_path / "home"
    home.mkdir()
    tuning = Tuning(environ={**environ, "HOME": str(home), "PATH": "/usr/bin"})
    found = billing_of(adapter_for("claude", {}), tuning)
    assert found["mode"] == mode
    if text is not None:
        assert found["text"] == text


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (".scratchpad", "{cwd}/.scratchpad"),
        ("records/debates", "{cwd}/records/debates"),
        ("/srv/council", "/srv/council"),
        ("~/council-records", "{home}/council-records"),
    ],
)
def test_the_scratchpad_is_under_the_project_unless_absolute_or_under_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, expected: str
):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cwd = tmp_path / "project"
    want = Path(expected.format(cwd=cwd, home=tmp_path / "home"))
    assert resolve_path(cwd, given) == want


def echo_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """`echo` registered, a user's project (no user's council.yaml) and the simulator's call
    log (COUNCIL_SIM_COUNT_FILE)."""
    monkeypatch.setitem(protocols.PROTOCOLS, ECHO.kind, ECHO)
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def load(text):\n    return eval(text)\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    count = tmp_path / "sim-calls.txt"
    count.touch()
    return project, count


def test_a_failed_run_resumed_asks_its_failed_call_again_and_ends_without_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    project, count = echo_project(tmp_path, monkeypatch)
    env = {"COUNCIL_SIM_COUNT_FILE": str(count)}
    broken = parse_config({"clis": {"sim": {"env": {**env, "COUNCIL_SIM_EXIT": "3"}}}})
    no_wait = Tuning(policy=RetryPolicy(other_delay_s=0.0))  # the failed call's retry: at once
    first = start(ECHO, EchoFlags(files=("app.py",)), broken, quiet(), cwd=project, tuning=no_wait)
    assert first.exit_code != ExitCode.OK
    record = first.record.path
    failed = json.loads((record / "state.json").read_text())
    assert failed["status"] == "failed"
    assert failed["error"] == f"the {SEAT} seat did not answer; see the record"
    assert failed["calls"][f"{SEAT}-r1"]["status"] == "error"
    asked_before = len(calls(count))

    # While the resumed run goes on, its record says so (`council list`, `council wait`).
    while_running: list[str] = []

    async def conduct(lead: EchoLead) -> None:
        while_running.append(lead.state.status)
        await run_echo(lead)

    monkeypatch.setattr(ECHO, "conduct", conduct)
    fixed = parse_config({"clis": {"sim": {"env": env}}})
    run = resume(ECHO, Record(record), fixed, quiet(), cwd=project)
    assert while_running == ["running"]
    assert run.exit_code == ExitCode.OK, run.error
    ended = json.loads((record / "state.json").read_text())
    assert (ended["status"], ended["error"], ended["exit_code"]) == ("completed", None, 0)
    assert ended["calls"][f"{SEAT}-r1"]["status"] == "ok"
    assert len(calls(count)) == asked_before + 1  # the failed call, asked again once
    assert json.loads((record / "result.json").read_text())["status"] == "completed"
