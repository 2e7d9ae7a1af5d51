"""Who sits when a CLI cannot (docs/spec/protocol.md section 3, "READY handshake"): a dropped
advocate is replaced by the next installed CLI of the default order it has not tried, on that
CLI's own default model, kept in state.json for a resume; a second drop moves on again; with
none left (or on the simulator) the run stops with exit 3 and how to resume; a lead whose CLI
cannot run stops the run saying how to choose another. In-process, with the CLIs' lookup
faked: `installed` is what resolves."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import anyio
import pytest

import council.debate.roster as roster_module
from council.config import parse_config
from council.debate.plan import DebatePlan
from council.debate.roster import DebateRoster
from council.debate.state import DebateState
from council.errors import NoUsableCliError
from debate.test_users_see_lead_prompts import debate_plan


class Journal:
    def __init__(self, state: DebateState) -> None:
        self.state, self.warnings, self.notes, self.saved = state, [], [], 0

    async def warn(self, text: str) -> None:
        self.warnings.append(text)

    async def note(self, text: str, **meta) -> None:
        self.notes.append(text)

    def save(self) -> None:
        self.saved += 1


def roster_for(plan: DebatePlan, monkeypatch, installed=("claude", "codex", "gemini")):
    monkeypatch.setattr(
        roster_module, "default_order", lambda: ("claude", "codex", "gemini", "qwen", "kimi")
    )

    async def resolve_tool(adapter):
        found = adapter.name in installed
        return SimpleNamespace(tool=object() if found else None, problem="not installed")

    monkeypatch.setattr(roster_module, "resolve_tool", resolve_tool)
    roster = DebateRoster.__new__(DebateRoster)
    roster.plan = plan
    roster.config = parse_config({})
    roster._advocates_tried = {plan.advocate.cli}
    roster.journal = Journal(DebateState(id="debate-1", question="q", plan=plan.to_json()))
    roster.started = []
    roster.start = roster.started.append
    return roster


def advocate_on(spec_cli: str, model: str | None = "opus", effort: str | None = None):
    plan = debate_plan()
    return replace(plan, advocate=replace(plan.advocate, cli=spec_cli, model=model, effort=effort))


def test_a_dropped_advocate_is_replaced_by_the_next_installed_cli_on_its_own_model(monkeypatch):
    roster = roster_for(advocate_on("claude"), monkeypatch, installed=("codex", "gemini"))
    anyio.run(roster.dropped, roster.plan.advocate)
    (started,) = roster.started
    assert (started.name, started.cli, started.model) == ("advocate", "codex", None)
    assert roster.plan.advocate == started
    assert roster.journal.warnings == ["the advocate is now codex"]
    # Kept for `council resume`: the record's plan seats the replacement.
    assert roster.journal.state.plan["advocate"]["cli"] == "codex"
    assert roster.journal.state.plan["advocate"]["model"] is None
    assert roster.journal.state.status == "running"


def test_a_replacement_dropped_in_turn_moves_on_to_a_cli_not_tried_yet(monkeypatch):
    roster = roster_for(advocate_on("claude"), monkeypatch, installed=("claude", "codex", "kimi"))
    anyio.run(roster.dropped, roster.plan.advocate)
    anyio.run(roster.dropped, roster.plan.advocate)
    assert [s.cli for s in roster.started] == ["codex", "kimi"]
    assert roster.journal.warnings == ["the advocate is now codex", "the advocate is now kimi"]


def test_a_dropped_challenger_is_not_replaced(monkeypatch):
    roster = roster_for(advocate_on("claude"), monkeypatch)
    anyio.run(roster.dropped, roster.plan.critic)
    assert roster.started == [] and roster.journal.warnings == []


@pytest.mark.parametrize("simulated", [False, True])
def test_with_no_cli_left_for_the_advocate_the_run_fails_saying_how_to_resume(
    monkeypatch, simulated
):
    plan = replace(advocate_on("claude"), simulated=simulated)
    installed = ("claude", "codex") if simulated else ("claude",)
    roster = roster_for(plan, monkeypatch, installed=installed)
    with pytest.raises(NoUsableCliError) as raised:
        anyio.run(roster.dropped, roster.plan.advocate)
    assert str(raised.value) == (
        "no CLI left for the advocate seat: install one (see `council doctor`), then "
        "`council resume debate-1`"
    )
    assert raised.value.exit_code == 3
    assert roster.journal.state.status == "failed" and roster.journal.saved >= 1
    assert roster.started == []


def test_a_lead_whose_cli_cannot_run_stops_the_run_naming_the_way_out(monkeypatch):
    roster = roster_for(debate_plan(lead="gemini"), monkeypatch)

    async def resolve(adapter):
        return SimpleNamespace(tool=None, problem="gemini: command not found")

    roster.tools = SimpleNamespace(resolve=resolve)
    with pytest.raises(NoUsableCliError) as raised:
        anyio.run(roster.beside_ready)
    assert str(raised.value) == (
        "the lead's CLI (gemini) cannot run: gemini: command not found; choose another with "
        "--lead, or --lead caller"
    )
    assert roster.journal.state.status == "failed"


def test_a_caller_lead_has_no_cli_to_probe(monkeypatch):
    roster = roster_for(debate_plan(lead="caller"), monkeypatch)
    roster.tools = None  # never looked at
    anyio.run(roster.beside_ready)
    assert roster.journal.state.status == "running"


@pytest.mark.parametrize(
    ("lead", "max_warm", "starts"),
    [("gemini", 4, True), ("gemini", 0, False), ("caller", 4, False)],
)
def test_the_leads_warm_worker_starts_unless_cold_or_no_lead(monkeypatch, lead, max_warm, starts):
    roster = roster_for(debate_plan(lead=lead), monkeypatch)
    started = []
    roster._tg = SimpleNamespace(start_soon=started.append)
    roster._lead_warm = None
    roster.max_warm_seats = max_warm
    roster.warm_lead_soon()
    roster.warm_lead_soon()  # asked again at a later CHALLENGE: one worker
    assert len(started) == (1 if starts else 0)
