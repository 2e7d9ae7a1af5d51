"""Each seat's soft and hard timeouts as docs/spec/commands.md gives them: `--timeout cli=SECONDS`
over the CLI's `timeout_s` in council.yaml, and the hard limit `debate.hard_timeout_factor`
times the soft one. What a user reads is each call's `soft_s` and `hard_s` in state.json, and
the seat's timeout in its READY message of the transcript."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel.run import Run, start
from council.progress import Progress
from panel.home import user_project

QUESTION = "Should this service cache sessions in Redis or Postgres?"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return user_project(tmp_path, monkeypatch)


def debate(project: Path, *timeouts: str) -> tuple[Run, str]:
    """A debate: the advocate on sim-a (timeout_s 40 and a model in council.yaml), the
    critic on sim-b (timeout_s 50), the lead on sim; the hard factor 2. The run and its
    progress lines."""
    config = parse_config(
        {
            "debate": {"hard_timeout_factor": 2},
            "clis": {
                "sim-a": {"adapter": "sim", "timeout_s": 40, "model": "sim-large"},
                "sim-b": {"adapter": "sim", "timeout_s": 50},
            },
        }
    )
    flags = DebateFlags(
        question=QUESTION,
        files=("app.py",),
        advocate="sim-a",
        critic="sim-b",
        lead="sim",
        no_blind=True,
        timeouts=timeouts,
    )
    stream = io.StringIO()
    run = start(DEBATE, flags, config, Progress(stream, live=False), cwd=project)
    assert run.exit_code == 0, (run.error, stream.getvalue())
    return run, stream.getvalue()


def limits(run: Run) -> dict[str, tuple[float, float]]:
    """(soft_s, hard_s) of each call, by its stem."""
    calls = json.loads((run.record.path / "state.json").read_text())["calls"]
    return {stem: (call["soft_s"], call["hard_s"]) for stem, call in calls.items()}


def ready(run: Run) -> dict[str, dict]:
    """Each seat's READY report, as the transcript keeps it."""
    lines = (run.record.path / "transcript.jsonl").read_text().splitlines()
    messages = [json.loads(line) for line in lines]
    return {m["from"]: m["meta"] for m in messages if m["kind"] == "ready"}


def test_the_timeout_flag_overrides_a_clis_configured_timeout_and_its_hard_limit(project):
    run, shown = debate(project, "sim-b=600", "sim=300")
    got = limits(run)
    assert got["advocate-r1"] == (40, 80)  # sim-a: no flag, its council.yaml timeout_s, hard x2
    assert got["advocate-r2"] == (40, 80)
    assert got["critic-r2"] == (600, 1200)  # sim-b: the flag, not its timeout_s 50
    assert got["lead-decision"] == (300, 600)
    reports = ready(run)
    assert {seat: report["timeout_s"] for seat, report in reports.items()} == {
        "advocate": 40,
        "critic": 600,
    }
    # The model council.yaml gives a CLI is the one its seat reports and its calls ask for.
    assert (reports["advocate"]["model"], reports["critic"]["model"]) == ("sim-large", None)
    calls = json.loads((run.record.path / "state.json").read_text())["calls"]
    assert calls["advocate-r1"]["model"] == calls["advocate-r1"]["served_model"] == "sim-large"
    assert calls["critic-r2"]["model"] is None
    assert "] ready 2/2\n" in shown
