"""Under a cost cap (`--max-cost`, docs/spec/config.md `debate.max_cost`), result.json's
`budget.unpriced_seats` names the seats whose CLI reported no cost for a call it made. A seat
that sat a phase out (`skipped`, protocol.md section 3) made no call there: on a CLI that
prices every call (claude) it is not unpriced.

The critic is a straggler as in tests/panel/test_stragglers.py: its CHALLENGE waits for the
advocate's FINAL_SUMMARY in the transcript, so the REBUTTAL closes while it is busy, whatever
the machine's load. Every seat runs the fake claude, which prices each call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.runner.confine import EXTRA_ENV, SUITE_ENV
from panel.gate import SEEN, gated_project, gated_seat
from panel.record import contribution
from panel.test_stragglers import debate

from fakes.install import install_fakes

# The fake claude, its CHALLENGE held until the transcript holds GATE_UNTIL.
GATE = (
    SEEN
    + """\

argv = sys.argv[1:]
prompt = b"" if "--version" in argv else sys.stdin.buffer.read()
if f"ACTION: {os.environ['GATE_PHASE']}\\n".encode() in prompt + " ".join(argv).encode():
    hold()
sys.exit(subprocess.run([os.environ["FAKE_CLAUDE"], *argv], input=prompt).returncode)
"""
)


def test_a_seat_that_sat_a_phase_out_on_a_priced_cli_is_not_listed_unpriced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = gated_project(tmp_path, GATE)
    fakes = install_fakes(tmp_path / "bin", ["claude"])
    # Under write confinement the fake may write its call log beside itself only so.
    monkeypatch.setenv(EXTRA_ENV, str(fakes.bin_dir / ".fake"))
    monkeypatch.setenv(SUITE_ENV, "1")
    claude = str(fakes.executable("claude"))
    key = {"ANTHROPIC_API_KEY": "sk-ant-test"}
    summary_in = json.dumps({"kind": "broadcast", "phase": "FINAL_SUMMARY"})
    critic = gated_seat(project, 1.0, {"GATE_PHASE": "CHALLENGE", "GATE_UNTIL": summary_in})
    critic = {**critic, "adapter": "claude", "env": {**critic["env"], **key, "FAKE_CLAUDE": claude}}
    clis = {
        "claude-main": {"adapter": "claude", "command": [claude], "env": key},
        "claude-gated": critic,
    }
    run, _ = debate(
        project,
        clis,
        advocate="claude-main",
        critic="claude-gated",
        lead="claude-main",
        proxies=(),
        rounds=3,
        no_blind=True,
        max_cost=100.0,
        # Spawned per call: the gated script speaks no warm worker's protocol, and a warm
        # start would wait out its handshake (30 s) before the seat fell back to spawning.
        cold=True,
    )
    assert run.exit_code == 0, run.error
    assert contribution(run, "critic", "REBUTTAL")["status"] == "skipped"
    budget = run.result["budget"]
    assert budget["unpriced_seats"] == []
    assert budget["spent_usd"] > 0
    decision = (run.record.path / "decision.md").read_text()
    assert "unpriced" not in decision
