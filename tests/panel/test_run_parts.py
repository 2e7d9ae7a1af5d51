"""The small parts of a run a user reads straight off its record or its report: each call's
usage summed per run (README "Usage and cost"), the cost cap (`--max-cost`, docs/spec/commands.md)
and how a cost is written, the participants line, what other seats' prompts quote of a call,
the shared part of a plan that `state.json` keeps, the run order of the stored calls, and the
JSON read out of a model's reply."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from council.config import parse_config
from council.panel.budget import BudgetSpent, check, dollars, spend_of
from council.panel.contribution import (
    Contribution,
    participant,
    run_usage,
    served_by,
    served_text,
    total_usage,
)
from council.panel.flags import RunFlags
from council.panel.messages import Ask, Reply
from council.panel.replies import ReplyUnreadable, extract_json_list, extract_json_object
from council.panel.setup import RunSetup, shared_setup
from council.panel.state import RunState, reply_file


def usage(tokens_in: int | None, tokens_out: int | None, cost: float | None = None) -> dict:
    return {"input_tokens": tokens_in, "output_tokens": tokens_out, "cost_usd": cost}


# -- usage summed -------------------------------------------------------------------------


def test_usage_sums_each_figure_over_the_calls_that_reported_it():
    total = total_usage([usage(100, 20, 0.25), None, usage(50, None, 0.5), usage(7, 3)])
    assert total == {"input_tokens": 157, "output_tokens": 23, "cost_usd": 0.75}


def test_usage_a_figure_no_call_reported_stays_null_and_nothing_reported_is_null():
    assert total_usage([usage(1, 2), usage(3, 4)]) == {
        "input_tokens": 4,
        "output_tokens": 6,
        "cost_usd": None,
    }
    assert total_usage([None, {}]) is None
    assert total_usage([]) is None


def test_usage_costs_are_summed_to_the_millionth_of_a_dollar():
    total = total_usage([usage(1, 1, 0.1), usage(1, 1, 0.2), usage(1, 1, 0.0000004)])
    assert total is not None and total["cost_usd"] == 0.3


def test_run_usage_names_the_unreported_seats_in_seat_order():
    total = run_usage(
        [
            ("proxy-pi", [None]),
            ("advocate", [usage(10, 1)]),
            ("critic", [usage(None, 3, 0.1)]),
            ("lead", [usage(2, 2)]),
        ]
    )
    assert total == {
        "input_tokens": 12,
        "output_tokens": 6,
        "cost_usd": 0.1,
        "partial": True,
        "unreported_seats": ["proxy-pi", "critic"],
    }


# -- the cost cap -------------------------------------------------------------------------


def call(seat: str, cost: float | None, *, skipped: bool = False) -> SimpleNamespace:
    return SimpleNamespace(seat=seat, usage=usage(1, 1, cost), skipped=skipped)


@pytest.mark.parametrize(
    ("amount", "shown"),
    [(0.41, "$0.41"), (0.1, "$0.10"), (12.5, "$12.50"), (0.0999, "$0.0999"), (0.0012, "$0.0012")],
)
def test_a_cost_is_written_in_cents_or_to_four_places_below_ten_cents(amount, shown):
    assert dollars(amount) == shown


def test_spend_sums_reported_costs_and_lists_each_unpriced_seat_once_in_call_order():
    calls = [
        call("advocate", 0.25),
        call("proxy-codex", None),
        call("critic", 0.5),
        call("proxy-codex", None),
        call("proxy-gemini", None),
        call("proxy-kimi", None, skipped=True),  # sat the phase out: never asked, never billed
        SimpleNamespace(seat="lead", usage=None, skipped=False),  # killed: reported nothing
    ]
    spend = spend_of(calls)
    assert spend.spent_usd == 0.75
    assert spend.unpriced_seats == ["proxy-codex", "proxy-gemini", "lead"]


def test_the_cap_stops_the_next_phase_once_reached_not_before():
    check(None, "CHALLENGE", [call("advocate", 99.0)])  # no cap: never stops
    check(1.0, "CHALLENGE", [call("advocate", 0.5), call("critic", 0.49)])
    with pytest.raises(BudgetSpent) as reached:
        check(1.0, "RESPOND", [call("advocate", 0.5), call("critic", 0.5)])
    assert reached.value.phase == "RESPOND"
    assert str(reached.value) == (
        "the cost cap of $1.00 was reached ($1.00 reported) before RESPOND: "
        "no more calls were asked"
    )
    with pytest.raises(BudgetSpent, match=r"cap of \$0\.0500 was reached \(\$0\.0600 reported"):
        check(0.05, "DECISION", [call("critic", 0.06)])


# -- who served a seat, and what other seats are shown of a call --------------------------


@pytest.mark.parametrize(
    ("asked", "served", "shown"),
    [
        (None, [], "served model not reported"),
        ("o3", [], "o3 asked, served model not reported"),
        (None, ["gpt-5.2"], "gpt-5.2 served"),
        ("gpt-5.2", ["gpt-5.2"], "gpt-5.2 served"),
        ("o3", ["gpt-5.2"], "o3 asked, gpt-5.2 served"),
        ("o3", ["o3", "o3-mini"], "o3 asked, o3 + o3-mini served"),
    ],
)
def test_the_participants_line_names_the_asked_and_the_served_models(asked, served, shown):
    assert served_text(asked, served) == shown
    seat = {"name": "critic", "cli": "codex", "model": asked, "served_models": served}
    assert participant(seat) == f"critic (codex: {shown})"


def contribution(stem: str, status: str = "ok", **fields) -> Contribution:
    seat = stem.rpartition("-")[0]
    values = {"phase": "CHALLENGE", "round": 2, "text": f"answer of {stem}", "cli": "sim"}
    return Contribution(stem=stem, seat=seat, role=seat, status=status, **(values | fields))


def test_served_by_lists_each_model_once_first_seen_first():
    calls = [
        contribution("a-r1", served_model="m2"),
        contribution("b-r1", served_model=None),
        contribution("c-r1", served_model="m1"),
        contribution("a-r2", served_model="m2"),
    ]
    assert served_by(calls) == ["m2", "m1"]


@pytest.mark.parametrize(
    ("status", "answered", "shown"),
    [
        ("ok", True, "answer of critic-r2"),
        ("late", True, "answer of critic-r2"),
        ("timeout", False, "(no answer: timeout)"),
        ("error", False, "(no answer: error)"),
        ("skipped", False, "(no answer: skipped)"),
    ],
)
def test_other_seats_are_shown_an_answer_only_when_it_came(status, answered, shown):
    found = contribution("critic-r2", status)
    assert (found.answered, found.shown) == (answered, shown)
    assert found.skipped is (status == "skipped")


# -- the plan's shared part ---------------------------------------------------------------


def test_the_plan_takes_the_context_limits_and_timeouts_from_the_config():
    config = parse_config(
        {
            "debate": {
                "file_lines": 120,
                "total_lines": 900,
                "context_lines": 4,
                "ready_timeout_s": 25,
                "hard_timeout_factor": 2.5,
                "max_warm_seats": 3,
                "on_injection": "exclude",
            },
            "scratchpad": "records",
            "redact": {"extra_patterns": ["ACME-[0-9]+"], "allow_files": ["*.pem.example"]},
        }
    )
    shared = shared_setup(RunFlags(files=("app.py",), diff="main"), config)
    assert shared == {
        "files": ("app.py",),
        "diff_ref": "main",
        "file_lines": 120,
        "total_lines": 900,
        "context_lines": 4,
        "ready_timeout_s": 25,
        "hard_timeout_factor": 2.5,
        "max_warm_seats": 3,
        "lean": True,
        "on_injection": "exclude",
        "allow_outside": False,
        "allow_secrets": False,
        "scratchpad": "records",
        "extra_patterns": ("ACME-[0-9]+",),
        "allow_files": ("*.pem.example",),
    }


def test_the_plan_takes_the_command_lines_switches_over_the_config():
    config = parse_config({"debate": {"max_warm_seats": 3}, "scratchpad": "records"})
    flags = RunFlags(
        cold=True, no_lean=True, allow_outside=True, allow_secrets=True, scratchpad="elsewhere"
    )
    shared = shared_setup(flags, config)
    assert shared["max_warm_seats"] == 0  # --cold: no warm workers
    assert shared["lean"] is False  # --no-lean
    assert (shared["allow_outside"], shared["allow_secrets"]) == (True, True)
    assert shared["scratchpad"] == "elsewhere"


def test_a_stored_plan_reads_back_its_lists_as_tuples_and_drops_unknown_keys():
    stored = {"files": ["a.py", "b.py"], "allow_files": ["x"], "rounds": 3, "from_later": 1}
    assert RunSetup.known_fields(stored) == {
        "files": ("a.py", "b.py"),
        "allow_files": ("x",),
        "rounds": 3,
    }


# -- state.json: calls stored in run order, their replies in files ------------------------


class TwoSeatState(RunState):
    PHASE_ORDER = ("PROPOSAL", "BLIND_TAKE", "CHALLENGE", "RESPOND")

    def seat_order(self) -> list[str]:
        return ["advocate", "critic", "proxy"]


def test_stored_calls_are_in_round_phase_seat_order_whatever_their_arrival():
    state = TwoSeatState(id="debate-20261128-090500-abcd", question="q", plan={})
    arrivals = [
        contribution("proxy-r2", phase="CHALLENGE", round=2),
        contribution("advocate-r2", phase="RESPOND", round=2),
        contribution("critic-r2", phase="CHALLENGE", round=2),
        contribution("critic-r1", phase="BLIND_TAKE", round=1),
        contribution("advocate-r1", phase="PROPOSAL", round=1),
    ]
    for arrived in arrivals:
        state.store(arrived)
    assert state.order == ["proxy-r2", "advocate-r2", "critic-r2", "critic-r1", "advocate-r1"]
    assert [c.stem for c in state.every_call()] == [
        "advocate-r1",
        "critic-r1",
        "critic-r2",
        "proxy-r2",
        "advocate-r2",
    ]


def test_a_stored_call_names_its_reply_file_and_keeps_no_text_in_the_state(tmp_path: Path):
    state = TwoSeatState(id="debate-20261128-090500-abcd", question="q", plan={})
    state.store(contribution("critic-r2"))
    state.store(contribution("critic-r2", "late"))  # stored again: still once in the order
    assert state.order == ["critic-r2"]
    stored = state.to_json()["calls"]["critic-r2"]
    assert stored["reply_file"] == reply_file("critic-r2") == "critic-r2-reply.md"
    assert "text" not in stored and stored["status"] == "late"
    # Read back from the record: the reply from its file; a lost file is asked again.
    (tmp_path / "critic-r2-reply.md").write_text("the challenge")
    again = TwoSeatState.from_json(state.to_json(), tmp_path)
    found = again.contribution("critic-r2")
    assert found is not None and (found.text, found.status) == ("the challenge", "late")
    (tmp_path / "critic-r2-reply.md").unlink()
    lost = TwoSeatState.from_json(state.to_json(), tmp_path).contribution("critic-r2")
    assert lost is not None and lost.status == "error" and not lost.answered
    assert lost.detail == "critic-r2-reply.md: the reply is missing"


def test_a_warning_is_kept_once():
    state = TwoSeatState(id="debate-20261128-090500-abcd", question="q", plan={})
    state.warn("sim-b: no READY")
    state.warn("sim-b: no READY")
    state.warn("other")
    assert state.warnings == ["sim-b: no READY", "other"]


# -- JSON in a model's reply --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Here it is:\n```json\n{"a": 2}\n```\nand {"b": 3}', {"a": 2}),
        ('Sure. {"a": [1, 2,], "b": "x",} Done.', {"a": [1, 2], "b": "x"}),
        ("{\u201ca\u201d: \u201cy\u201d}", {"a": "y"}),
    ],
)
def test_a_json_object_is_read_from_a_fenced_block_or_prose_forgiving_small_slips(text, found):
    assert extract_json_object(text) == found


def test_a_json_list_is_read_and_a_reply_without_one_says_why():
    assert extract_json_list('Findings:\n[{"line": 3}]') == [{"line": 3}]
    with pytest.raises(ReplyUnreadable, match=r"^no JSON object found$"):
        extract_json_object("no json here")
    with pytest.raises(ReplyUnreadable, match=r"^no JSON list found$"):
        extract_json_list("{}")
    assert extract_json_object('[{"a": 1}]') == {"a": 1}  # the object inside a list
    with pytest.raises(ReplyUnreadable, match=r"^invalid JSON: "):
        extract_json_object("{not: json}")


# -- what the transcript keeps of an ask and of a reply -----------------------------------


def test_an_ask_names_its_prompt_file_and_a_reply_keeps_all_but_its_text():
    ask = Ask(prompt="the whole prompt", stem="critic-r2", limit=300, vote=True)
    assert ask.meta() == {
        "stem": "critic-r2",
        "prompt_file": "critic-r2-prompt.md",
        "limit": 300,
        "vote": True,
    }
    reply = Reply(
        stem="critic-r2",
        cli="sim",
        status="ok",
        text="the answer",
        argv=("sim", "-p"),
        spans=((0.0, 1.5, "ok"),),
        served_models=("m1",),
    )
    meta = reply.meta()
    assert "text" not in meta and "prompt" not in meta
    assert (meta["argv"], meta["spans"], meta["served_models"]) == (
        ["sim", "-p"],
        [[0.0, 1.5, "ok"]],
        ["m1"],
    )
    assert reply.answered and not Reply("s", "sim", "timeout", "").answered
    assert not Reply("s", "sim", "late", "").answered  # the lead makes a straggler's `late`
