"""The lead's own model calls (docs/spec/protocol.md section 7, commands.md `resume`): the
DECISION and its one repair, the convergence check, and what a resumed run reuses of them:
an answer that came in is reused, a failed one is asked again; an unreadable DECISION keeps
the first reply's text with no confidence and a warning; an unreadable or failed convergence
check runs the extra cycle. The lead's CLI is a fake `call_cli` that answers from a script."""

from __future__ import annotations

import json
from types import SimpleNamespace

import anyio
import pytest

import council.debate.synthesis as synthesis_module
from council.context.fences import Fences
from council.debate.state import DebateState
from council.debate.synthesis import Synthesis
from council.panel.contribution import Contribution
from council.panel.messages import Reply
from debate.test_users_see_lead_prompts import debate_plan

GOOD = json.dumps({"recommendation": "Use Redis.", "confidence": 80})


class Journal:
    def __init__(self, state: DebateState, tmp_path) -> None:
        self.state = state
        self.record = SimpleNamespace(path=tmp_path)
        self.progress = SimpleNamespace(info=self.infos_append)
        self.warnings: list[str] = []
        self.infos: list[str] = []
        self.phases: list[tuple[str, int]] = []

    def infos_append(self, text: str) -> None:
        self.infos.append(text)

    async def note(self, *args, **kwargs) -> None:
        pass

    async def warn(self, text: str) -> None:
        self.warnings.append(text)

    async def enter(self, phase: str, round_no: int) -> None:
        self.phases.append((phase, round_no))

    def project_changed(self, warning) -> None:
        pass

    def store(self, contribution: Contribution) -> None:
        self.state.store(contribution)


def lead_calls(tmp_path, monkeypatch, answers, stored=()):
    """The lead's Synthesis whose CLI answers each stem from `answers` ((status, text),
    taken in order), over a state holding `stored` calls; the stems asked are kept."""
    plan = debate_plan(rounds=4)
    state = DebateState(id="debate-1", question=plan.question, plan=plan.to_json())
    for c in stored:
        state.store(c)
    asked: list[str] = []
    queue = list(answers)

    async def call_cli(site, ask, tuning):
        asked.append(ask.stem)
        status, text = queue.pop(0)
        return Reply(stem=ask.stem, cli="gemini", status=status, text=text, detail="it hung")

    monkeypatch.setattr(synthesis_module, "call_cli", call_cli)

    async def ready():
        return None

    roster = SimpleNamespace(
        plan=plan,
        config=SimpleNamespace(clis={}),
        lead_tool_ready=ready,
        lead_worker_ready=ready,
        build_room=lambda name: tmp_path,
        rooms=SimpleNamespace(tmp=lambda name: tmp_path),
        guard=None,
        lean_prompt=lambda: None,
        lead_worker_used=lambda: None,
    )
    journal = Journal(state, tmp_path)
    synthesis = Synthesis(roster, journal, SimpleNamespace(), Fences.new())
    return synthesis, journal, asked


def lead_call(stem: str, phase: str, status: str, text: str) -> Contribution:
    return Contribution(stem=stem, seat="lead", role="lead", phase=phase, round=2,
                        status=status, text=text, cli="gemini")  # fmt: skip


def test_a_readable_decision_is_taken_as_is(tmp_path, monkeypatch):
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, [("ok", GOOD)])
    decision, synthesized = anyio.run(synthesis.decide, 2, "prompt")
    assert (decision["recommendation"], decision["confidence"], synthesized) == (
        "Use Redis.", 80, True,
    )  # fmt: skip
    assert asked == ["lead-decision"] and journal.warnings == []


def test_an_unreadable_decision_is_repaired_once(tmp_path, monkeypatch):
    answers = [("ok", "I think Redis."), ("ok", GOOD)]
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, answers)
    decision, synthesized = anyio.run(synthesis.decide, 2, "prompt")
    assert asked == ["lead-decision", "lead-decision-repair"]
    assert (decision["recommendation"], synthesized) == ("Use Redis.", True)
    assert journal.warnings == []


def test_a_decision_unreadable_after_its_repair_keeps_the_first_reply_as_text(
    tmp_path, monkeypatch
):
    answers = [("ok", "I think Redis, firmly."), ("ok", "Still prose.")]
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, answers)
    decision, synthesized = anyio.run(synthesis.decide, 2, "prompt")
    assert (decision["recommendation"], decision["confidence"]) == ("I think Redis, firmly.", None)
    assert asked == ["lead-decision", "lead-decision-repair"]
    assert synthesized is True
    assert journal.warnings == [
        "the DECISION reply was not valid JSON (no JSON object found), even after one repair: "
        "kept as raw text, confidence unknown"
    ]


def test_a_failed_decision_call_is_no_decision_and_is_not_repaired(tmp_path, monkeypatch):
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, [("timeout", "")])
    decision, synthesized = anyio.run(synthesis.decide, 2, "prompt")
    assert asked == ["lead-decision"] and synthesized is False
    assert decision["recommendation"] == (
        "The lead could not synthesize a DECISION (timeout: it hung). See the debate record below."
    )
    assert journal.warnings == ["the DECISION could not be synthesized: it hung"]


@pytest.mark.parametrize(
    ("status", "asked_again"), [("ok", False), ("timeout", True), ("error", True), ("empty", True)]
)
def test_resume_reuses_a_decision_that_came_in_and_asks_again_for_one_that_failed(
    tmp_path, monkeypatch, status, asked_again
):
    stored = [lead_call("lead-decision", "DECISION", status, GOOD if status == "ok" else "")]
    synthesis, _, asked = lead_calls(tmp_path, monkeypatch, [("ok", GOOD)], stored)
    decision, synthesized = anyio.run(synthesis.decide, 2, "prompt")
    assert asked == (["lead-decision"] if asked_again else [])
    assert (decision["recommendation"], synthesized) == ("Use Redis.", True)


@pytest.mark.parametrize(
    ("status", "reply", "converged", "warned"),
    [
        ("ok", '{"converged": true, "open_blocking": []}', True, False),
        ("ok", '{"converged": false, "open_blocking": ["auth", "ttl"]}', False, False),
        ("ok", "Looks converged to me.", False, True),  # unreadable: run the extra cycle
        ("timeout", '{"converged": true}', False, True),  # a failed check proves nothing
    ],
)
def test_the_convergence_check_skips_a_cycle_only_on_a_readable_yes(
    tmp_path, monkeypatch, status, reply, converged, warned
):
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, [(status, reply)])
    assert anyio.run(synthesis.converged, 2) is converged
    assert asked == ["lead-r2-convergence"] and journal.phases == [("CONVERGENCE", 2)]
    warning = "convergence check unreadable after round 2; running the extra cycle"
    assert journal.warnings == ([warning] if warned else [])
    if not warned:
        said = "no open blocking disagreement" if converged else "2 open"
        assert journal.infos[-1] == f"convergence after round 2: {said}"


def test_resume_reuses_a_convergence_check_that_came_in_without_entering_it_again(
    tmp_path, monkeypatch
):
    stored = [lead_call("lead-r2-convergence", "CONVERGENCE", "ok", '{"converged": true}')]
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, [], stored)
    assert anyio.run(synthesis.converged, 2) is True
    assert asked == [] and journal.phases == []


def test_a_caller_lead_runs_every_extra_cycle(tmp_path, monkeypatch):
    synthesis, journal, asked = lead_calls(tmp_path, monkeypatch, [])
    synthesis.roster.plan = debate_plan(rounds=4, lead="caller")
    assert anyio.run(synthesis.converged, 2) is False and asked == []
    assert journal.phases == [] and journal.warnings == []


def test_what_had_to_be_fixed_in_a_decision_is_a_warning(tmp_path, monkeypatch):
    reply = json.dumps({"recommendation": "Use Redis.", "confidence": 140})
    synthesis, journal, _ = lead_calls(tmp_path, monkeypatch, [("ok", reply)])
    decision, _ = anyio.run(synthesis.decide, 2, "prompt")
    assert decision["confidence"] is None
    assert journal.warnings == ["decision: confidence 140 is not 0-100; dropped"]
