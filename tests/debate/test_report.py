"""The report page and its timeline, from hand-made states: the cases a simulated debate does
not produce on demand (a late answer, a run resumed hours later, phases a few milliseconds
apart, hostile names), checked on the shapes `report/chart.py` computes and on the page."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from council.debate.report import render_report
from council.debate.result import build_result
from council.debate.state import Contribution, DebateState
from council.report.chart import (
    LANE_H,
    PHASE_FONT_PX,
    Chart,
    _text_w,
)
from council.report.page import seat_rows, timeline_chart
from council.report.timeline import Clock, calls_from_state, tick_step
from report import pages
from report.pages import T0, phase_note
from report.pages import state_of as debate


def call(
    stem: str,
    who: str,
    phase: str,
    start: float,
    spans: list[list[Any]],
    status: str = "ok",
    soft: float = 10.0,
    text: str = "fine",
) -> Contribution:
    made = pages.call(who, phase, start, spans, status=status, soft=soft, text=text)
    return dataclasses.replace(made, stem=stem)


def chart_of(state: dict[str, Any], transcript: list[dict[str, Any]]) -> Chart:
    result = build_result(DebateState.from_json(state), ".scratchpad/x/")
    chart = timeline_chart(seat_rows(result["seats"]), state, transcript)
    assert chart is not None
    return chart


def page_of(state: dict[str, Any], transcript: list[dict[str, Any]], **changes: Any) -> str:
    result = build_result(DebateState.from_json(state), ".scratchpad/x/")
    return render_report({**result, **changes}, state, transcript)


def test_a_straggler_that_answered_after_the_lead_moved_on_is_late_with_its_limits():
    state = debate(
        call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]),
        call("proxy-a-r1", "proxy-a", "CHALLENGE", 2.0, [[0.0, 12.0, "ok"]], status="late"),
        call("critic-r1", "critic", "CHALLENGE", 2.0, [[0.0, 3.0, "ok"]]),
    )
    chart = chart_of(state, [phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 2.0)])
    late = [b for b in chart.bars if b.title.startswith("proxy-a")]
    assert [b.css for b in late] == ["call late"]  # the runner said ok; the lead said late
    assert [(lim.kind, lim.title.split(":")[0]) for lim in chart.limits] == [
        ("soft", "proxy-a CHALLENGE"),
        ("hard", "proxy-a CHALLENGE"),
    ]
    bar = late[0]
    scale = bar.width / 12.0  # px per second on this axis
    soft, hard = chart.limits
    assert soft.x == pytest.approx(bar.x + 10.0 * scale)
    assert hard.x == pytest.approx(bar.x + 15.0 * scale)  # after its answer: still on the axis
    assert hard.x <= chart.plot_right


def test_a_call_past_its_soft_limit_gets_its_limits_one_inside_does_not():
    state = debate(
        call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 4.0, "ok"]], soft=5.0),
        call("critic-r1", "critic", "CHALLENGE", 4.0, [[0.0, 6.0, "ok"]], soft=5.0),
    )
    chart = chart_of(state, [])
    assert {lim.title.split(":")[0] for lim in chart.limits} == {"critic CHALLENGE"}


def test_every_attempt_is_a_bar_and_only_the_failed_ones_before_a_retry_are_retried():
    spans = [[0.0, 1.0, "rate_limited"], [3.0, 1.0, "empty"], [5.0, 2.0, "ok"]]
    state = debate(call("proxy-a-r1", "proxy-a", "CHALLENGE", 0.0, spans))
    chart = chart_of(state, [])
    assert [b.css for b in chart.bars] == [
        "call rate_limited retried",
        "call empty retried",
        "call ok",
    ]
    assert [b.title.rsplit("attempt ", 1)[1].split(";")[0] for b in chart.bars] == [
        "1 of 3",
        "2 of 3",
        "3 of 3",
    ]
    assert len(chart.waits) == 2  # the pauses before each retry


def test_a_run_resumed_hours_later_leaves_the_idle_time_out_of_the_axis():
    state = debate(
        call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 20.0, "ok"]]),
        call("critic-r1", "critic", "CHALLENGE", 3 * 3600.0, [[0.0, 20.0, "ok"]]),
    )
    transcript = [phase_note("PROPOSAL", 0.0), phase_note("SETUP", 3 * 3600.0 - 1)]
    chart = chart_of(state, transcript)
    assert len(chart.breaks) == 1 and "2h59m" in chart.breaks[0].title
    first, second = chart.bars
    assert first.width == pytest.approx(second.width)
    assert first.width > (chart.plot_right - chart.plot_left) / 3  # not a sliver
    assert first.x + first.width <= chart.breaks[0].x <= second.x


def test_phase_names_close_together_never_overlap_and_no_line_crosses_a_name():
    names = ["SETUP", "PROPOSAL", "CHALLENGE", "RESPOND", "REBUTTAL", "FINAL_SUMMARY", "DECISION"]
    state = debate(call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 30.0, "ok"]]))
    transcript = [phase_note(n, i * 0.01) for i, n in enumerate(names)]
    transcript.append(phase_note("CONVERGENCE", 29.99))  # at the right edge
    chart = chart_of(state, transcript)
    boxes = []
    for phase in chart.phases:
        width = _text_w(phase.name, PHASE_FONT_PX)
        left = phase.text_x - width if phase.anchor == "end" else phase.text_x
        boxes.append((left, left + width, phase.text_y))
        assert left >= 0 and left + width <= chart.width
        assert phase.text_y < chart.plot_top
    for i, (left, right, y) in enumerate(boxes):
        for other_left, other_right, other_y in boxes[i + 1 :]:
            if y == other_y:
                assert right < other_left or other_right < left
        for phase in chart.phases:  # each line runs from under its name down to the rows
            if phase.y1 < y and left - 1 <= phase.x <= right + 1:
                raise AssertionError(f"the line of {phase.name} crosses a name at {y}")
    assert len({p.text_y for p in chart.phases}) * LANE_H <= chart.plot_top


def test_ticks_are_round_seconds_and_the_axis_ends_on_one():
    assert tick_step(3.3) == 0.5 and tick_step(412.0) == 60 and tick_step(0.05) == 0.1
    state = debate(call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 3.3, "ok"]]))
    chart = chart_of(state, [])
    assert [t.label for t in chart.ticks] == [f"{v:g}s" for v in (0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5)]
    assert chart.ticks[0].x == chart.plot_left and chart.ticks[-1].x == chart.plot_right


def test_clock_without_gaps_is_plain_seconds():
    clock = Clock.over([(T0, T0 + 5), (T0 + 4, T0 + 9), (T0 + 9.5, T0 + 9.5)])
    assert clock is not None and clock.cuts == () and clock.length == 9.5
    assert Clock.over([]) is None


def test_a_call_that_never_started_has_no_bar():
    lost = Contribution(
        stem="proxy-a-r1", seat="proxy-a", role="proxy", phase="CHALLENGE", round=1,
        status="error", text="no answer from its worker", cli="sim",
    )  # fmt: skip
    state = debate(call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]]), lost)
    assert [c.stem for c in calls_from_state(state)] == ["advocate-r1"]


def test_hostile_names_and_replies_stay_text():
    hostile = '<img src=x onerror="alert(1)">'
    state = debate(
        call("p-r1", hostile, "CHALLENGE</text>", 0.0, [[0.0, 1.0, 'ok"><script>']], text=hostile),
    )
    html = page_of(state, [phase_note("<svg onload=alert(1)>", 0.0)])
    assert "<img" not in html and "<script" not in html and "<svg onload" not in html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html
    assert 'class="call okscript"' in html  # a status is a class name: letters only


def test_a_run_with_no_call_yet_says_so_and_a_caller_lead_shows_the_prompt():
    state = debate()
    html = page_of(state, [], decision=None, decision_prompt="Write the DECISION <now>.")
    assert "No call has ended yet." in html and 'class="timeline"' not in html
    assert "Write the DECISION &lt;now&gt;." in html


def test_the_decision_shows_rulings_votes_and_the_tally():
    state = debate(call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]]))
    decision = {
        "recommendation": "Use Postgres.",
        "disagreements": [{"point": "speed", "ruling": "enough", "reason": "bench", "loop": True}],
        "votes": {"critic": "agree", "proxy-a": "disagree"},
        "vote_reasons": {"proxy-a": "too slow"},
        "confidence": 71,
    }
    html = page_of(state, [], decision=decision)
    text = " ".join(html.split())
    assert "Use Postgres." in text and "71/100" in text
    assert '<td>proxy-a</td><td>disagree</td><td class="text">too slow</td>' in text
    assert "agree 1 · revise 0 · disagree 1 · no vote 0" in text
    assert ">loop</span>" in text
    assert "None - proceed" in text


def test_a_vote_left_out_for_injection_says_so_and_is_not_in_the_pages_tally():
    state = debate(call("advocate-r1", "advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]]))
    decision = {
        "recommendation": "Use Postgres.",
        "votes": {"critic": "agree", "proxy-a": "disagree"},
        "excluded_votes": {"critic": "suspect: echoed the run's canary"},
    }
    text = " ".join(page_of(state, [], decision=decision).split())
    assert "<td>critic</td><td>agree (not counted: suspect: echoed the run&#39;s canary)</td>" in (
        text
    )
    assert "agree 0 · revise 0 · disagree 1 · no vote 0" in text
