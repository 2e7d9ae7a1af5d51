"""The timeline on report.html (docs/spec/commands.md `show --html`; README "Looking at a
run"): one row per seat in the plan's order, one bar per attempt coloured by its status with a
tooltip of its seat, phase, round, status and duration, the soft and hard limits on a
straggler's row only, a line where each phase starts, and a time axis that leaves out the
hours a resumed run was not running. Checked on the page itself, from hand-made runs."""

from __future__ import annotations

import re

import pytest

from report.pages import T0, call, chart_of, page_of, parsed, phase_note, state_of

WIDE = 1000.0  # seconds: a long axis, so a short call's bar is too narrow for its label


def bars(html: str) -> list:
    return parsed(html).having("rect", "call")


def limits(html: str) -> list:
    return [line for line in parsed(html).having("line", "limit") if line.title]  # not legend


def limit_texts(html: str) -> list[str]:
    return re.findall(r'<text class="limit-text"[^>]*>([^<]*)</text>', html)


@pytest.mark.parametrize(
    ("duration", "soft", "hard", "straggler"),
    [
        (4.0, 5.0, 7.5, False),  # inside its soft limit
        (5.0, 5.0, 7.5, False),  # exactly at it: not past it
        (6.0, 5.0, 7.5, True),  # past the soft limit, before the hard one
        (8.0, 5.0, 7.5, True),  # past both
        (6.0, 5.0, 60.0, True),  # a far hard limit changes nothing
        (6.0, None, None, False),  # no limits known: nothing to draw
    ],
)
def test_a_call_past_its_soft_limit_is_a_straggler_with_its_limits_drawn(
    duration, soft, hard, straggler
):
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]], soft=30.0),
        call("critic", "CHALLENGE", 1.0, [[0.0, duration, "ok"]], soft=soft, hard=hard),
    )
    html = page_of(state)
    drawn = limits(html)
    if not straggler:
        assert drawn == [] and limit_texts(html) == []
        return
    assert [(line.classes, line.title) for line in drawn] == [
        (["limit", "soft"], f"critic CHALLENGE: soft limit {soft:g}s (the lead may move on)"),
        (["limit", "hard"], f"critic CHALLENGE: hard limit {hard:g}s (the process tree is killed)"),
    ]
    assert limit_texts(html) == [f"soft {soft:g}s", f"hard {hard:g}s"]


@pytest.mark.parametrize("status", ["late", "timeout"])
def test_a_late_or_timed_out_call_gets_its_limits_even_inside_them(status):
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]]),
        call("proxy-a", "CHALLENGE", 1.0, [[0.0, 2.0, "ok"]], status=status, soft=10.0),
    )
    html = page_of(state)
    assert [line.title.split(":")[0] for line in limits(html)] == ["proxy-a CHALLENGE"] * 2
    assert limit_texts(html) == ["soft 10s", "hard 15s"]


def test_the_limits_sit_where_they_fall_from_the_calls_start_and_the_axis_reaches_the_hard_one():
    # The answer came at 12 s, the hard limit falls at 15 s: the axis runs past the answer.
    state = state_of(
        call("critic", "CHALLENGE", 0.0, [[0.0, 12.0, "ok"]], status="late", soft=10.0),
    )
    chart = chart_of(state)
    (bar,) = chart.bars
    soft, hard = chart.limits
    scale = bar.width / 12.0
    assert bar.x == pytest.approx(chart.plot_left)
    assert soft.x == pytest.approx(bar.x + 10.0 * scale)
    assert hard.x == pytest.approx(bar.x + 15.0 * scale)
    assert hard.x <= chart.plot_right
    assert chart.ticks[-1].label == "16s"  # 2 s ticks, the last one past the hard limit
    # The soft limit's name sits left of its line, the hard one's right of its own.
    assert (soft.anchor, hard.anchor) == ("end", "start")
    assert soft.text_x < soft.x < hard.x < hard.text_x


def test_limits_count_from_the_calls_start_not_from_its_retry():
    spans = [[0.0, 2.0, "rate_limited"], [4.0, 9.0, "ok"]]  # answered 13 s after the start
    state = state_of(call("critic", "CHALLENGE", 0.0, spans, soft=10.0))
    chart = chart_of(state)
    first, _ = chart.bars
    scale = first.width / 2.0
    soft, hard = chart.limits
    assert soft.x == pytest.approx(first.x + 10.0 * scale)
    assert hard.x == pytest.approx(first.x + 15.0 * scale)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0.5, "0.50s"),
        (3.456, "3.46s"),
        (9.99, "9.99s"),
        (12.34, "12.3s"),
        (59.94, "59.9s"),
        (60.0, "1m00s"),
        (65.0, "1m05s"),
        (600.0, "10m00s"),
        (3725.0, "1h02m"),
    ],
)
def test_a_bars_tooltip_gives_its_seat_phase_round_status_and_duration(seconds, shown):
    state = state_of(
        call("proxy-a", "REBUTTAL", 0.0, [[0.0, seconds, "ok"]], round_no=2, soft=None)
    )
    (bar,) = bars(page_of(state))
    assert bar.title == f"proxy-a · REBUTTAL (round 2) · ok · {shown}"


def test_a_retried_calls_tooltips_count_attempts_and_give_the_limits():
    spans = [[0.0, 1.0, "rate_limited"], [3.0, 2.0, "ok"]]
    state = state_of(call("critic", "CHALLENGE", 0.0, spans, soft=10.0))
    assert [b.title for b in bars(page_of(state))] == [
        "critic · CHALLENGE (round 1) · rate_limited · 1.00s, attempt 1 of 2; "
        "soft limit 10s, hard 15s",
        "critic · CHALLENGE (round 1) · ok · 2.00s, attempt 2 of 2; soft limit 10s, hard 15s",
    ]


def test_each_attempt_is_a_bar_coloured_by_how_it_ended_retries_marked_and_waits_drawn():
    spans = [[0.0, 1.0, "rate_limited"], [3.0, 1.0, "empty"], [5.0, 2.0, "timeout"]]
    state = state_of(call("proxy-a", "CHALLENGE", 0.0, spans, status="timeout"))
    html = page_of(state)
    assert [b.classes for b in bars(html)] == [
        ["call", "rate_limited", "retried"],
        ["call", "empty", "retried"],
        ["call", "timeout"],
    ]
    assert len(parsed(html).having("rect", "hatch")) == 2  # the retried ones are hatched
    chart = chart_of(state)
    assert len(chart.waits) == 2
    for wait, before, after in zip(chart.waits, chart.bars, chart.bars[1:], strict=False):
        assert wait.x1 == pytest.approx(before.x + before.width)
        assert wait.x2 == pytest.approx(after.x)


def test_a_late_answer_is_drawn_late_though_its_attempt_says_ok():
    spans = [[0.0, 1.0, "error"], [2.0, 12.0, "ok"]]
    state = state_of(call("proxy-a", "CHALLENGE", 0.0, spans, status="late"))
    assert [b.classes for b in bars(page_of(state))] == [
        ["call", "error", "retried"],  # the failed attempt keeps its own status
        ["call", "late"],
    ]


@pytest.mark.parametrize(
    ("status", "label"),
    [("ok", "CHALLENGE"), ("timeout", "CHALLENGE · timeout"), ("error", "CHALLENGE · error")],
)
def test_a_wide_bar_is_labelled_with_its_phase_and_a_failure(status, label):
    state = state_of(call("critic", "CHALLENGE", 0.0, [[0.0, 20.0, status]], status=status))
    html = page_of(state)
    assert re.findall(r'<text class="bar-label [a-z_]+"[^>]*>([^<]*)</text>', html) == [label]


def test_a_bar_too_narrow_for_its_label_has_none_but_is_still_drawn():
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, WIDE, "ok"]], soft=None),
        call("critic", "CHALLENGE", 1.0, [[0.0, 0.001, "ok"]], soft=None),
    )
    chart = chart_of(state)
    wide, narrow = chart.bars
    assert wide.label == "PROPOSAL" and narrow.label == ""
    assert narrow.width == 2.0  # a call of a millisecond is still visible


def test_rows_are_the_plans_seats_in_order_then_any_other_seat_that_called():
    state = state_of(
        call("lead", "DECISION", 5.0, [[0.0, 1.0, "ok"]]),
        call("stranger", "CHALLENGE", 2.0, [[0.0, 1.0, "ok"]]),
        call("advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]]),
        proxies=("proxy-a", "proxy-b"),
    )
    chart = chart_of(state)
    assert [r.seat for r in chart.rows] == [
        "advocate",
        "critic",
        "proxy-a",
        "proxy-b",
        "lead",
        "stranger",
    ]
    assert [r.striped for r in chart.rows] == [False, True, False, True, False, True]
    assert [r.y for r in chart.rows] == [chart.plot_top + i * chart.row_h for i in range(6)]
    by_seat = {r.seat: r.y for r in chart.rows}
    for bar in chart.bars:
        seat = bar.title.split(" · ")[0]
        assert by_seat[seat] < bar.y < by_seat[seat] + chart.row_h  # in its own row


def test_a_long_seat_name_is_cut_in_its_row_and_whole_in_its_tooltip():
    long_name = "proxy-" + "x" * 30
    state = state_of(call(long_name, "CHALLENGE", 0.0, [[0.0, 1.0, "ok"]]), proxies=(long_name,))
    html = page_of(state)
    rows = {e.title: e for e in parsed(html).having("text", "seat")}
    assert long_name in rows
    labels = re.findall(r'<text class="seat"[^>]*>([^<]*)<title>', html)
    assert long_name[:18] + "…" in labels
    exact = "proxy-" + "y" * 13  # 19 characters: fits
    state = state_of(call(exact, "CHALLENGE", 0.0, [[0.0, 1.0, "ok"]]), proxies=(exact,))
    assert exact in re.findall(r'<text class="seat"[^>]*>([^<]*)<title>', page_of(state))


def test_a_rows_detail_names_the_cli_and_model_and_a_dropped_seat():
    seats = [
        {"name": "advocate", "role": "advocate", "cli": "claude", "model": "opus", "status": "ok"},
        {"name": "critic", "role": "critic", "cli": "codex", "model": None, "status": "ok"},
        {"name": "proxy-a", "role": "proxy", "cli": "gemini", "model": None, "status": "dropped"},
        {"name": "lead", "role": "lead", "cli": "claude", "model": "", "status": "timeout"},
    ]
    from council.report.page import seat_rows

    assert [(s.name, s.detail) for s in seat_rows(seats)] == [
        ("advocate", "claude · opus"),
        ("critic", "codex"),
        ("proxy-a", "gemini · dropped"),
        ("lead", "claude"),
    ]


def test_the_calls_drawn_are_the_states_in_the_order_received_and_only_those_that_ran():
    from council.report.timeline import calls_from_state

    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 1.0, "ok"]]),
        call("critic", "CHALLENGE", 1.0, [[0.0, 1.0, "ok"]]),
        call("proxy-a", "CHALLENGE", 1.0, [[0.0, 2.0, "ok"]]),
    )
    stems = list(state["calls"])
    state["order"] = [stems[2], stems[0]]  # critic's not in the order: it comes after
    assert [c.seat for c in calls_from_state(state)] == ["proxy-a", "advocate", "critic"]
    state["calls"][stems[0]]["started_at"] = None  # a worker lost before it started
    state["calls"][stems[1]]["spans"] = [["x", 1.0, "ok"], [0.0, None, "ok"]]  # nothing usable
    assert [c.seat for c in calls_from_state(state)] == ["proxy-a"]


def test_an_attempt_of_negative_length_is_drawn_as_an_instant():
    from council.report.timeline import calls_from_state

    state = state_of(call("critic", "CHALLENGE", 3.0, [[1.0, -5.0, "error"]]))
    (times,) = calls_from_state(state)
    (attempt,) = times.attempts
    assert (attempt.start, attempt.end) == (T0 + 4.0, T0 + 4.0)


def test_each_phase_start_is_a_named_line_with_its_round_and_time():
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]),
        call("critic", "CHALLENGE", 2.5, [[0.0, 3.0, "ok"]], round_no=2),
    )
    transcript = [
        phase_note("PROPOSAL", 0.0),
        {"ts": phase_note("X", 1.0)["ts"], "kind": "seat", "body": "phase NOT A PHASE"},
        {"ts": phase_note("X", 1.0)["ts"], "kind": "system", "body": "round 2 begins"},
        phase_note("CHALLENGE", 2.5, round_no=2),
    ]
    html = page_of(state, transcript)
    names = parsed(html).having("text", "phase-name")
    assert [(e.title) for e in names] == [
        "PROPOSAL (round 1) starts at 0s",
        "CHALLENGE (round 2) starts at 2.5s",
    ]
    assert re.findall(r'<text class="phase-name"[^>]*>([^<]*)<title>', html) == [
        "PROPOSAL",
        "CHALLENGE",
    ]
    chart = chart_of(state, transcript)
    proposal, challenge = chart.phases
    critic_bar = chart.bars[1]
    assert proposal.x == pytest.approx(chart.plot_left)
    assert challenge.x == pytest.approx(critic_bar.x)  # the line is where the phase began


@pytest.mark.parametrize(
    ("length", "labels"),
    [
        (3.3, ["0s", "0.5s", "1s", "1.5s", "2s", "2.5s", "3s", "3.5s"]),
        (10.0, ["0s", "1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s"]),
        (45.0, ["0s", "5s", "10s", "15s", "20s", "25s", "30s", "35s", "40s", "45s"]),
        (412.0, ["0s", "60s", "120s", "180s", "240s", "300s", "360s", "420s"]),
    ],
)
def test_the_axis_has_round_ticks_ending_on_one_past_the_last_call(length, labels):
    state = state_of(call("advocate", "PROPOSAL", 0.0, [[0.0, length, "ok"]], soft=None))
    html = page_of(state)
    assert re.findall(r'<text class="tick"[^>]*>([^<]*)</text>', html) == labels
    chart = chart_of(state)
    assert chart.ticks[0].x == chart.plot_left and chart.ticks[-1].x == chart.plot_right
    assert "seconds since start" in html and "seconds running" not in html


@pytest.mark.parametrize(
    ("idle", "cut"),
    [(30.0, False), (60.0, False), (61.0, True), (3 * 3600.0, True)],
)
def test_a_run_idle_for_over_a_minute_has_that_time_left_out_of_its_axis(idle, cut):
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 20.0, "ok"]], soft=None),
        call("critic", "CHALLENGE", 20.0 + idle, [[0.0, 20.0, "ok"]], soft=None),
    )
    html = page_of(state)
    chart = chart_of(state)
    assert len(chart.breaks) == (1 if cut else 0)
    assert ("seconds running" in html) == cut and ("seconds since start" in html) != cut
    first, second = chart.bars
    if cut:
        assert first.width == pytest.approx(second.width)
        assert first.x + first.width == pytest.approx(chart.breaks[0].x)
        assert second.x == pytest.approx(chart.breaks[0].x)
        assert chart.ticks[-1].label == "40s"
        plain = chart_of(state_of(call("advocate", "PROPOSAL", 0.0, [[0.0, 40.0, "ok"]])))
        assert chart.height == plain.height + 14.0  # a line for the gap's name
    else:
        assert second.x - (first.x + first.width) == pytest.approx(idle * first.width / 20.0)


@pytest.mark.parametrize(
    ("idle", "label"),
    [(61.0, "1m01s not running"), (3 * 3600.0, "3h00m not running"), (90.5, "1m30s not running")],
)
def test_a_left_out_gap_is_named_with_its_length(idle, label):
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 20.0, "ok"]]),
        call("critic", "CHALLENGE", 20.0 + idle, [[0.0, 20.0, "ok"]]),
    )
    html = page_of(state)
    assert re.findall(r'<text class="break-text"[^>]*>([^<]*)</text>', html) == [label]
    duration = label.removesuffix(" not running")
    assert f"not running for {duration}, then resumed: left out of the axis" in html


def test_a_call_still_running_across_a_quiet_minute_keeps_that_minute_on_the_axis():
    # The advocate runs 0-200 s; the critic's short call ends at 20 s; the proxy starts at
    # 150 s: 130 s after the critic, but the advocate was running all along.
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 200.0, "ok"]]),
        call("critic", "CHALLENGE", 10.0, [[0.0, 10.0, "ok"]]),
        call("proxy-a", "CHALLENGE", 150.0, [[0.0, 10.0, "ok"]]),
    )
    chart = chart_of(state)
    assert chart.breaks == ()
    assert chart.ticks[-1].label == "200s"


def test_a_phase_after_a_left_out_gap_starts_at_its_running_time():
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 20.0, "ok"]]),
        call("critic", "CHALLENGE", 3620.0, [[0.0, 20.0, "ok"]]),
    )
    transcript = [phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 3620.0)]
    titles = [e.title for e in parsed(page_of(state, transcript)).having("text", "phase-name")]
    assert titles == ["PROPOSAL (round 1) starts at 0s", "CHALLENGE (round 1) starts at 20s"]


def test_the_transcripts_activity_keeps_a_gap_that_was_running_on_the_axis():
    state = state_of(
        call("advocate", "PROPOSAL", 0.0, [[0.0, 20.0, "ok"]]),
        call("critic", "CHALLENGE", 200.0, [[0.0, 20.0, "ok"]]),
    )
    busy = [phase_note("CHALLENGE", t) for t in (60.0, 110.0, 160.0)]  # the lead wrote
    assert chart_of(state, busy).breaks == ()
    assert len(chart_of(state, []).breaks) == 1


def test_a_run_with_no_call_yet_has_no_timeline_only_a_line_saying_so():
    html = page_of(state_of(), [phase_note("SETUP", 0.0)])
    assert "No call has ended yet." in html and '<svg class="timeline"' not in html
    html = page_of(state_of(call("critic", "CHALLENGE", 0.0, [[0.0, 1.0, "ok"]])))
    assert "No call has ended yet." not in html and '<svg class="timeline"' in html


def test_the_svg_is_sized_to_its_rows_and_titled_with_the_run():
    state = state_of(call("critic", "CHALLENGE", 0.0, [[0.0, 1.0, "ok"]]))
    chart = chart_of(state)
    assert chart.height == chart.plot_bottom + 30.0
    assert chart.plot_bottom == chart.plot_top + 4 * chart.row_h  # four seats, four rows
    html = page_of(state)
    assert f'viewBox="0 0 {chart.width} {round(chart.height, 1)}"' in html
    assert "Every CLI call of debate-20270115-100000-abcd: one row per seat" in html


def test_phase_names_far_apart_share_the_top_line_and_close_ones_stack_without_touching():
    state = state_of(call("advocate", "PROPOSAL", 0.0, [[0.0, 100.0, "ok"]], soft=None))
    apart = chart_of(state, [phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 50.0)])
    assert len({p.text_y for p in apart.phases}) == 1
    close = chart_of(
        state,
        [phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 0.5), phase_note("RESPOND", 1.0)],
    )
    ys = [p.text_y for p in close.phases]
    assert len(set(ys)) == 3 and ys == sorted(ys)  # each a line lower than the one before
    assert close.plot_top > max(ys) and close.plot_top > apart.plot_top  # rows start below
    for phase in close.phases:
        assert phase.anchor == "start" and phase.text_x == pytest.approx(phase.x + 3)
        assert phase.y1 == pytest.approx(phase.text_y + 3)  # its line starts under its name


def test_a_phase_name_at_the_right_edge_is_written_left_of_its_line():
    state = state_of(call("advocate", "PROPOSAL", 0.0, [[0.0, 100.0, "ok"]], soft=None))
    chart = chart_of(state, [phase_note("PROPOSAL", 0.0), phase_note("FINAL_SUMMARY", 99.0)])
    first, last = chart.phases
    assert (first.anchor, last.anchor) == ("start", "end")
    assert last.text_x == pytest.approx(last.x - 3) and last.x > chart.plot_right - 20


def test_a_phase_name_that_would_nearly_touch_the_one_before_goes_a_line_lower():
    # On a 100 s axis PROPOSAL's name ends about 4 px before CHALLENGE's (at 7.1 s) would
    # start: closer than the gap names need, so CHALLENGE goes on the next line; at 9 s it
    # is far enough to share the first. Then REBUTTAL right after CHALLENGE (on the first
    # line) cannot share it: the line is taken up to CHALLENGE's end.
    state = state_of(call("advocate", "PROPOSAL", 0.0, [[0.0, 100.0, "ok"]], soft=None))
    near = chart_of(state, [phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 7.1)])
    assert near.phases[0].text_y < near.phases[1].text_y
    far = chart_of(
        state,
        [phase_note("PROPOSAL", 0.0), phase_note("CHALLENGE", 9.0), phase_note("REBUTTAL", 9.5)],
    )
    first, second, third = (p.text_y for p in far.phases)
    assert first == second < third
