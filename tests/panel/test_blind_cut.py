"""A BLIND TAKE that would come after the PROPOSAL (docs/spec/protocol.md section 3, row
3b): once the PROPOSAL is in, the blind takes get a short grace; what is not in at its end is
cut: a seat still answering is sent a CANCEL for that call, a seat not READY yet is never asked.
Either way it sits the phase out, `skipped` with the reason `late`, and the debate goes on:
the seat still challenges. The critic here never answers its blind take."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel.calls import Tuning
from council.panel.run import start
from council.progress import Progress
from panel.home import user_project
from panel.record import contribution, stored, transcript

QUESTION = "Should this service cache sessions in Redis or Postgres?"
GRACE_S = 0.5


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return user_project(tmp_path, monkeypatch)


def test_a_blind_take_not_in_by_the_end_of_its_grace_is_cut_and_recorded_late(project):
    mute = {"COUNCIL_SIM_HANG": "1", "COUNCIL_SIM_PHASES": "BLIND_TAKE"}
    config = parse_config({"clis": {"sim-mute": {"adapter": "sim", "env": mute}}})
    flags = DebateFlags(
        question=QUESTION, files=("app.py",), advocate="sim", critic="sim-mute", lead="sim"
    )
    stream = io.StringIO()
    run = start(
        DEBATE,
        flags,
        config,
        Progress(stream, verbose=True, live=False),
        cwd=project,
        tuning=Tuning(grace_s=1.0, blind_grace_s=GRACE_S),
    )
    assert run.exit_code == 0, run.error
    assert contribution(run, "critic", "BLIND_TAKE")["status"] == "skipped"
    blind = stored(run, "critic-r1")
    assert (blind["status"], blind["reason"], blind["text"]) == ("skipped", "late", "")
    messages = transcript(run)
    asked = [m for m in messages if m["kind"] == "dm" and m["to"] == "critic"]
    cancels = [m for m in asked if m["body"] == "CANCEL:critic-r1"]
    if any(m["action"] == "BLIND_TAKE" for m in asked):  # READY in time: asked, then cut
        assert blind["detail"] == (
            f"still answering when the PROPOSAL was in: cancelled after {GRACE_S:g}s"
        )
        assert len(cancels) == 1 and cancels[0]["meta"] == {"stem": "critic-r1"}
    else:  # a busy machine: READY only after the grace, never asked
        assert blind["detail"] == f"not READY {GRACE_S:g}s after the PROPOSAL was in"
        assert cancels == []
    shown = re.sub(r"\[\d\d:\d\d\] ", "", stream.getvalue())
    assert f"BLIND_TAKE critic skipped: late ({blind['detail']})\n" in shown
    assert contribution(run, "critic", "CHALLENGE")["status"] == "ok"
