"""result.json's seats and decision.md's lines as a user reads them (docs/spec/outputs.md):
each seat's status, calls, retries, words and model; the rounds run; the header's status and
cost; a run that never decided; the caller's prompt; a DECISION that could not be
synthesized; the next step and the votes. Built in-process from a state, as `council show`
builds them."""

from __future__ import annotations

from typing import Any

import pytest

from council.debate.result import build_result, render_markdown
from council.debate.state import DebateState
from council.panel.contribution import Contribution

PLAN: dict[str, Any] = {
    "advocate": {"name": "advocate", "role": "advocate", "cli": "claude", "model": None,
                 "effort": None},
    "critic": {"name": "critic", "role": "critic", "cli": "codex", "model": "gpt-5.2",
               "effort": "high"},
    "proxies": [{"name": "proxy-gemini", "role": "proxy", "cli": "gemini", "model": None,
                 "effort": None}],
    "lead": {"name": "lead", "role": "lead", "cli": "gemini", "model": None, "effort": None},
    "rounds": 3,
    "max_cost": None,
    "simulated": False,
}  # fmt: skip


def call(seat: str, role: str, phase: str, round_no: int, **fields: Any) -> Contribution:
    values: dict[str, Any] = {
        "stem": f"{seat}-r{round_no}-{phase.lower()}",
        "seat": seat,
        "role": role,
        "phase": phase,
        "round": round_no,
        "status": "ok",
        "text": f"{seat} says {phase.lower()} here",
        "cli": "x",
        "words": 4,
        "attempts": 1,
        "latency_s": 1.0,
    }
    return Contribution(**(values | fields))


def state_of(*calls: Contribution, **fields: Any) -> DebateState:
    state = DebateState(id="debate-1", question="Redis or Postgres?", plan=PLAN, **fields)
    for c in calls:
        state.store(c)
    return state


def seats_of(state: DebateState) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in build_result(state, ".scratchpad/debate-1")["seats"]}


def test_a_seats_calls_retries_latency_and_words_are_its_own_calls_summed():
    state = state_of(
        call("critic", "critic", "BLIND_TAKE", 1, attempts=1, latency_s=2.25, words=10),
        call("critic", "critic", "CHALLENGE", 2, attempts=3, latency_s=4.0, words=30),
        call("critic", "critic", "REBUTTAL", 3, status="skipped", attempts=0, reason="busy"),
        call("lead", "lead", "DECISION", 3, attempts=2, words=500, latency_s=3.0),
    )
    seats = seats_of(state)
    critic = seats["critic"]
    # A phase it sat out is no call.
    assert (critic["calls"], critic["retries"], critic["latency_s"]) == (2, 2, 6.2)
    assert critic["words_out"] == 40
    assert (critic["model"], critic["effort"], critic["cli"]) == ("gpt-5.2", "high", "codex")
    # The lead's words are not a seat's contribution to the debate.
    assert (seats["lead"]["calls"], seats["lead"]["retries"]) == (1, 1)
    assert seats["lead"]["words_out"] == 0


@pytest.mark.parametrize(
    ("statuses", "seat_info", "shown"),
    [
        (["ok", "timeout"], {}, "timeout"),  # its last failure, not ok
        (["error", "ok", "empty"], {}, "empty"),
        (["ok", "late"], {}, "ok"),  # a late answer is an answer
        ([], {"status": "ready"}, "ready"),  # asked nothing yet
        ([], {"status": "dropped"}, "dropped"),
        (["ok"], {"status": "dropped"}, "dropped"),  # dropped wins over what it did before
    ],
)
def test_a_seats_status_is_dropped_else_its_last_failure_else_ok(statuses, seat_info, shown):
    calls = [
        call("proxy-gemini", "proxy", phase, i + 1, status=status)
        for i, (phase, status) in enumerate(
            zip(("BLIND_TAKE", "CHALLENGE", "REBUTTAL"), statuses, strict=False)
        )
    ]
    state = state_of(*calls, seats={"proxy-gemini": seat_info} if seat_info else {})
    assert seats_of(state)["proxy-gemini"]["status"] == shown


def test_a_seat_with_no_model_asked_shows_the_model_its_cli_was_configured_with():
    state = state_of(call("advocate", "advocate", "PROPOSAL", 1, model="opus-from-config"))
    seats = seats_of(state)
    assert seats["advocate"]["model"] == "opus-from-config"
    assert seats["critic"]["model"] == "gpt-5.2"  # its own, though it made no call


def test_the_seat_that_replaced_a_dropped_cli_shows_the_cli_it_ran_on():
    state = state_of(seats={"advocate": {"cli": "gemini", "status": "ready"}})
    assert seats_of(state)["advocate"]["cli"] == "gemini"


def test_result_json_carries_the_rounds_the_status_and_the_exit_code():
    state = state_of(
        call("advocate", "advocate", "PROPOSAL", 1),
        status="degraded",
        rounds_run=2,
        stopped_early=True,
        exit_code=5,
    )
    result = build_result(state, ".scratchpad/debate-1")
    assert result["rounds"] == {"requested": 3, "run": 2, "stopped_early": True}
    assert (result["status"], result["exit_code"]) == ("degraded", 5)
    assert result["scratchpad"] == ".scratchpad/debate-1"
    # A run still going has no exit code yet: 0 until it ends.
    assert build_result(state_of(), ".scratchpad/debate-1")["exit_code"] == 0


def test_the_contributions_carry_each_calls_own_fields():
    state = state_of(
        call("critic", "critic", "CHALLENGE", 2, truncated=True, original_words=410, words=300,
             served_model="gpt-5.2-mini", served_models=["gpt-5.2-mini"], attempts=2),
    )  # fmt: skip
    (c,) = build_result(state, ".scratchpad/debate-1")["contributions"]
    assert (c["seat"], c["phase"], c["round"], c["status"]) == ("critic", "CHALLENGE", 2, "ok")
    assert (c["truncated"], c["original_words"], c["words"]) == (True, 410, 300)
    assert (c["served_model"], c["attempts"]) == ("gpt-5.2-mini", 2)


def test_the_cost_cap_shows_what_was_reported_against_it_and_who_prices_nothing():
    plan = PLAN | {"max_cost": 0.5}
    state = DebateState(id="debate-1", question="q", plan=plan, budget_stop="stopped before X")
    for c in (
        call("advocate", "advocate", "PROPOSAL", 1, usage={"cost_usd": 0.25, "input_tokens": 9}),
        call("critic", "critic", "CHALLENGE", 2, usage={"input_tokens": 5}),
    ):
        state.store(c)
    result = build_result(state, ".scratchpad/debate-1")
    assert result["budget"] == {
        "max_cost_usd": 0.5,
        "spent_usd": 0.25,
        "stopped": "stopped before X",
        "unpriced_seats": ["critic"],
    }
    lines = render_markdown(result).splitlines()
    assert (
        "Cost cap: $0.50, $0.25 reported; stopped before X; "
        "unpriced (their cost is not counted): critic"
    ) in lines


def base(**changes: Any) -> dict[str, Any]:
    result = build_result(state_of(call("advocate", "advocate", "PROPOSAL", 1)), ".s/d")
    result |= {"duration_s": 75.0}
    result["decision"] = {
        "recommendation": "Use Redis.",
        "consensus": ["Sessions are small."],
        "disagreements": [],
        "tradeoffs": [],
        "blocking_concerns": [],
        "next_step": {"action": "", "verify_command": "", "done_criterion": ""},
        "confidence": None,
        "synthesized": True,
    }
    for key, value in changes.items():
        if key == "decision":
            result["decision"] = None if value is None else result["decision"] | value
        else:
            result[key] = value
    return result


def lines_of(result: dict[str, Any]) -> list[str]:
    return render_markdown(result).splitlines()


def test_the_status_line_says_unchallenged_rounds_minutes_and_an_unknown_confidence():
    result = base(status="degraded", decision={"unchallenged": True})
    assert (
        lines_of(result)[2]
        == "Status: degraded (unchallenged) · rounds 0/3 · 1m15s · confidence n/a"
    )
    assert lines_of(base(duration_s=59.4))[2].startswith("Status: running · rounds 0/3 · 59s ·")
    assert lines_of(base(duration_s=3605))[2].startswith("Status: running · rounds 0/3 · 60m05s ·")


def test_the_status_line_gives_the_tokens_and_the_cost_reported_and_who_reported_none():
    usage = {"input_tokens": 18234, "output_tokens": 912, "cost_usd": 0.41,
             "partial": True, "unreported_seats": ["critic"]}  # fmt: skip
    line = lines_of(base(usage=usage))[2]
    assert line.endswith(
        "confidence n/a · 18,234 tokens in, 912 out, $0.41 "
        "(not counted: critic, which reported none)"
    )
    cheap = {"input_tokens": None, "output_tokens": None, "cost_usd": 0.0012}
    assert lines_of(base(usage=cheap))[2].endswith("confidence n/a · $0.0012")
    free = {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.0}  # a $0.00 price is a price
    assert lines_of(base(usage=free))[2].endswith("confidence n/a · 10 tokens in, 2 out, $0.0000")


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (
            "interrupted",
            "The run was interrupted before a DECISION: nothing here is a recommendation.",
        ),
        ("failed", "The run ended failed before a DECISION: nothing here is a recommendation."),
        ("running", "The run is still going before a DECISION: nothing here is a recommendation."),
    ],
)
def test_a_run_that_never_decided_says_so_and_how_to_continue(status, says):
    lines = render_markdown(base(status=status, decision=None)).splitlines()
    assert lines[0] == "# NO DECISION: Redis or Postgres?"
    assert says in lines
    assert ("Continue it with: council resume debate-1" in lines) is (status != "running")
    assert "## Recommendation" not in lines and "None - proceed" not in lines


def test_each_warning_of_the_run_is_a_line_under_the_header():
    lines = lines_of(base(warnings=["critic timed out in CHALLENGE", "the advocate is now gemini"]))
    assert lines[3:5] == [
        "> warning: critic timed out in CHALLENGE",
        "> warning: the advocate is now gemini",
    ]


def test_a_caller_lead_gets_the_decision_prompt_to_answer():
    result = base(decision=None, decision_prompt="Write the DECISION of this debate.\n")
    lines = render_markdown(result).splitlines()
    assert lines[0] == "# DECISION: Redis or Postgres?"
    at = lines.index("## Decision prompt (for the calling agent)")
    assert lines[at + 1 : at + 6] == [
        "No DECISION was synthesized (`--lead caller`): answer this prompt to write it.",
        "",
        "````markdown",
        "Write the DECISION of this debate.",
        "````",
    ]


def test_a_decision_that_could_not_be_synthesized_never_reads_as_proceed():
    lines = lines_of(base(decision={"synthesized": False, "blocking_concerns": []}))
    at = lines.index("## Blocking concerns")
    assert (
        lines[at + 1] == "Unknown: no DECISION could be synthesized; read the debate record below"
    )
    # A record of an older council, whose DECISION does not say, was synthesized.
    older = base()
    del older["decision"]["synthesized"]
    lines = lines_of(older)
    assert lines[lines.index("## Blocking concerns") + 1] == "None - proceed"
    blocking = lines_of(base(decision={"blocking_concerns": ["Data loss on failover"]}))
    assert blocking[blocking.index("## Blocking concerns") + 1] == "- Data loss on failover"


def test_the_next_step_shows_each_part_or_none():
    step = {"action": "Add the cache", "verify_command": "pytest -q", "done_criterion": "green"}
    lines = lines_of(base(decision={"next_step": step}))
    at = lines.index("## Next step")
    assert lines[at + 1 : at + 4] == [
        "- Action: Add the cache",
        "- Verify: `pytest -q`",
        "- Done when: green",
    ]
    empty = lines_of(base())
    at = empty.index("## Next step")
    assert empty[at + 1 : at + 4] == ["- Action: (none)", "- Verify: (none)", "- Done when: (none)"]


def test_the_votes_table_the_tally_and_the_minority_report():
    decision = {
        "votes": {"critic": "disagree", "proxy-gemini": None, "proxy-codex": "agree"},
        "vote_reasons": {"critic": "it | loses writes", "proxy-codex": "fine"},
        "excluded_votes": {"proxy-codex": "its answers forged a fence"},
        "tally": {"agree": 0, "revise": 0, "disagree": 1, "no_vote": 1, "excluded": 1},
        "minority": [{"seat": "critic", "reason": "it loses writes", "excerpt": "The retry path."}],
    }
    lines = render_markdown(base(decision=decision)).splitlines()
    at = lines.index("## Votes")
    assert lines[at + 3 : at + 6] == [
        "| critic | disagree | it \\| loses writes |",
        "| proxy-gemini | no vote |  |",
        "| proxy-codex | agree (not counted: its answers forged a fence) | fine |",
    ]
    assert "Tally: 0 agree, 0 revise, 1 disagree, 1 no vote, 1 not counted" in lines
    at = lines.index("## Minority report")
    assert lines[at + 2 : at + 5] == [
        "**critic** voted disagree: it loses writes",
        "",
        "> The retry path.",
    ]


def test_the_debate_record_heads_each_round_and_says_what_was_cut_and_who_is_suspect():
    result = base()
    result["contributions"] = [
        {"seat": "advocate", "phase": "PROPOSAL", "round": 1, "status": "ok", "words": 3,
         "truncated": False, "original_words": 3, "text": "Use Redis."},
        {"seat": "critic", "phase": "CHALLENGE", "round": 2, "status": "ok", "words": 300,
         "truncated": True, "original_words": 412, "text": "Too long.",
         "injection": {"suspect": True, "evidence": ["echoed the run's canary"]}},
        {"seat": "proxy-gemini", "phase": "CHALLENGE", "round": 2, "status": "ok", "words": 5,
         "truncated": False, "original_words": 5, "text": "Fine.",
         "injection": {"suspect": False, "reported": ["ignore the question"]}},
    ]  # fmt: skip
    lines = render_markdown(result).splitlines()
    record = lines[lines.index("## Debate record") :]
    assert [line for line in record if line.startswith(("### ", "**"))] == [
        "### Round 1",
        "**advocate**, PROPOSAL (ok, 3 words)",
        "### Round 2",
        "**critic**, CHALLENGE (ok, 300 words, truncated from 412 words) · suspect: "
        "echoed the run's canary",
        "**proxy-gemini**, CHALLENGE (ok, 5 words) · reported an injection",
    ]


def test_the_result_carries_the_callers_decision_prompt_and_the_technical_context(tmp_path):
    (tmp_path / "lead-decision-prompt.md").write_text("Write the DECISION.\n", encoding="utf-8")
    state = state_of(decision_prompt_file="lead-decision-prompt.md")
    state.technical = ["- Stack: Python", "- [R2] Redis 7.2 keeps 5 GB in memory."]
    result = build_result(state, str(tmp_path))
    assert result["decision_prompt"] == "Write the DECISION.\n"
    assert result["context"]["technical_context"] == state.technical
    # A prompt file gone from the record is no prompt, not a crash.
    assert build_result(state, str(tmp_path / "elsewhere"))["decision_prompt"] is None


def test_the_result_keeps_why_a_call_was_skipped_where_it_came_from_and_who_served_it():
    plan = PLAN | {"on_injection": "exclude"}
    state = DebateState(id="debate-1", question="q", plan=plan)
    for c in (
        call("critic", "critic", "BLIND_TAKE", 1, status="skipped", reason="late", attempts=0),
        call("proxy-gemini", "proxy", "BLIND_TAKE", 1, copied_from="check-20261128-101010-abcd"),
        call("critic", "critic", "CHALLENGE", 2, served_model="gpt-5.2",
             usage={"input_tokens": 100, "output_tokens": 20, "cost_usd": 0.5},
             injection={"suspect": True, "evidence": ["echoed the run's canary"]}),
        call("critic", "critic", "REBUTTAL", 3, served_model="gpt-5.2-mini",
             usage={"input_tokens": 50, "output_tokens": 5, "cost_usd": 0.25}),
    ):  # fmt: skip
        state.store(c)
    result = build_result(state, ".s/d")
    by_phase = {(c["seat"], c["phase"]): c for c in result["contributions"]}
    assert by_phase[("critic", "BLIND_TAKE")]["reason"] == "late"
    assert by_phase[("proxy-gemini", "BLIND_TAKE")]["copied_from"] == "check-20261128-101010-abcd"
    critic = next(s for s in result["seats"] if s["name"] == "critic")
    assert critic["served_models"] == ["gpt-5.2", "gpt-5.2-mini"]
    assert critic["usage"] == {"input_tokens": 150, "output_tokens": 25, "cost_usd": 0.75}
    # The critic votes: under `exclude` its suspect vote is left out.
    (suspect,) = result["injection"]["suspects"]
    assert (suspect["seat"], suspect["excluded"]) == ("critic", True)
