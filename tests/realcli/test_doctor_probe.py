"""`council doctor --probe` against the real CLIs and the fake model server, run as a user
runs it: each installed CLI answers its one tiny call (ok, exit 0), and a server that refuses
the key (401), rate-limits (429) or never answers gives that CLI's classified failure, exit 3
(with one CLI installed, it holds every role)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fakemodel.fixtures import RealCli
from vendor_lists import programs

pytestmark = pytest.mark.realcli

CLIS = programs()
# A call that answers at once still pays for the CLI's start-up (up to ~5 s here).
PROBE_TIMEOUT_S = 30
# qwen retries a 429 on its own for ~80 s and nothing caps it (test_contracts.py): within
# doctor's default 60 s it is a timeout; given longer, its rate limit is what shows.
RATE_LIMIT_TIMEOUT_S = {"qwen": 150}
COUNCIL = (sys.executable, "-m", "council")


def doctor_probe(cli: RealCli, tmp_path: Path, timeout_s: float) -> subprocess.CompletedProcess:
    """`council doctor --probe --json` in an empty project, with the CLI's environment."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    config = tmp_path / "council.yaml"
    model = cli.setup.model
    config.write_text(
        f"clis:\n  {cli.setup.adapter}:\n    model: {json.dumps(model)}\n" if model else "{}\n"
    )
    argv = [*COUNCIL, "--config", str(config), "doctor", "--probe", "--json"]
    return subprocess.run(
        [*argv, "--probe-timeout", str(timeout_s)],
        capture_output=True,
        text=True,
        timeout=timeout_s + 60,
        cwd=project,
        env=cli.environ,
        stdin=subprocess.DEVNULL,
    )


def probed(result: subprocess.CompletedProcess, cli: RealCli) -> dict:
    report = json.loads(result.stdout)
    row = next(c for c in report["clis"] if c["name"] == cli.setup.adapter)
    assert row["probe"] is not None, (row, result.stderr)
    return row


@pytest.mark.parametrize("cli", CLIS)
def test_probe_of_an_installed_cli_answers_ok_and_exits_0(real_cli, cli, tmp_path):
    seat = real_cli(cli)
    result = doctor_probe(seat, tmp_path, PROBE_TIMEOUT_S)
    row = probed(result, seat)
    assert row["probe"]["status"] == "ok", row["probe"]
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["probe"]["failed"] == []
    (request,) = seat.server.requests(cli, prompt_has="connectivity check by `council doctor`")
    assert request.status == 200
    assert list((tmp_path / "project").iterdir()) == []  # nothing written to the project


def refused(seat: RealCli, tmp_path: Path, status: str, timeout_s: float) -> dict:
    """The probe's outcome when the server refuses every call; checks what any refusal must
    show: the reason in one line, exit 3, and stderr naming the CLI."""
    result = doctor_probe(seat, tmp_path, timeout_s)
    probe = probed(result, seat)["probe"]
    assert (probe["status"], result.returncode) == (status, 3), (probe, result.stderr)
    assert probe["detail"] and "\n" not in probe["detail"]
    assert f"cannot answer ({seat.setup.adapter}: {status})" in result.stderr
    assert seat.server.requests(seat.name), "the CLI must reach the server to mean anything"
    return probe


@pytest.mark.parametrize("cli", CLIS)
def test_probe_of_a_rejected_key_is_auth_with_the_login_hint_and_exits_3(real_cli, cli, tmp_path):
    seat = real_cli(cli)
    seat.server.add_rule(client=cli, status=401)
    probe = refused(seat, tmp_path, "auth", PROBE_TIMEOUT_S)
    assert probe["hint"] == seat.adapter.login_hint


@pytest.mark.timeout(300)
@pytest.mark.parametrize("cli", CLIS)
def test_probe_of_a_rate_limited_call_is_rate_limited_and_exits_3(real_cli, cli, tmp_path):
    seat = real_cli(cli)
    seat.server.add_rule(client=cli, status=429, retry_after_s=0)
    probe = refused(seat, tmp_path, "rate_limited", RATE_LIMIT_TIMEOUT_S.get(cli, 60))
    assert probe["hint"] is None


@pytest.mark.parametrize("cli", CLIS)
def test_probe_of_a_hung_server_times_out_within_its_bound_and_exits_3(real_cli, cli, tmp_path):
    seat = real_cli(cli)
    seat.server.add_rule(client=cli, hang=True)
    # Time for the slowest start-up (~5 s, kimi-cli's up to ~10 s on a loaded machine) and
    # no more: the server must see the call for the timeout to be its.
    result = doctor_probe(seat, tmp_path, 15)
    probe = probed(result, seat)["probe"]
    assert (probe["status"], result.returncode) == ("timeout", 3), (probe, result.stderr)
    assert probe["detail"] == "no answer within the hard limit of 15s; process tree killed"
    assert [r.outcome for r in seat.server.requests(cli)][:1] == ["hang"]
