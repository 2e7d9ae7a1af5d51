"""The timeline of a run as shapes in SVG user units: one row per seat, one bar per CLI
attempt, the soft and hard limits on a straggler's row, a vertical line where each phase
starts, and a time axis in seconds. The report template only draws what is here, so every
decision about the picture is made (and tested) in Python.

Text widths are estimates (no font metrics without a browser), kept generous so labels that
are placed side by side do not touch in any common sans-serif font.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from council.report.timeline import CallTimes, Clock, PhaseStart, seconds_label, tick_step

WIDTH = 1160.0  # the SVG's own width; the page scales it to the column
LABEL_W = 150.0  # the seat names' column
RIGHT_PAD = 64.0  # room for a hard-limit label right of the last bar
ROW_H = 40.0
BAR_H = 16.0
LANE_H = 15.0  # one line of phase names
NAME_GAP = 12.0  # between two phase names on one line, or they read as one
AXIS_H = 30.0
BREAK_H = 14.0  # a line under the axis for the names of left-out gaps
PHASE_FONT_PX = 11.0
SMALL_FONT_PX = 9.5
CAPS_EM = 0.72  # mean width of an upper-case letter, in em, in wide fonts (DejaVu Sans)
TEXT_EM = 0.62
SEAT_CHARS = 19  # a longer seat name is cut in its row (the tooltip has it whole)

XOf = Callable[[float], float]  # Unix time -> x in the SVG


@dataclass(frozen=True)
class Seat:
    name: str
    detail: str  # the CLI and model, or why the seat has no calls


@dataclass(frozen=True)
class Row:
    seat: str
    label: str
    detail: str
    y: float  # top
    striped: bool


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    status: str  # a CSS class: ok, late, timeout, error, auth, empty, rate_limited
    retried: bool  # failed and was tried again
    title: str
    label: str  # "" when it does not fit inside the bar

    @property
    def css(self) -> str:
        return f"call {self.status}" + (" retried" if self.retried else "")


@dataclass(frozen=True)
class Wait:
    """The pause between a failed attempt and its retry."""

    x1: float
    x2: float
    y: float


@dataclass(frozen=True)
class Limit:
    kind: str  # soft | hard
    x: float
    y1: float
    y2: float
    text: str
    text_x: float
    text_y: float
    anchor: str  # start | end
    title: str


@dataclass(frozen=True)
class PhaseLine:
    name: str
    x: float
    y1: float  # the top of the line, under its name
    text_x: float
    text_y: float
    anchor: str
    title: str


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Break:
    """Where the clock leaves out a time the run was not running."""

    x: float
    label: str
    title: str


@dataclass(frozen=True)
class Chart:
    width: float
    height: float
    plot_left: float
    plot_right: float
    plot_top: float
    plot_bottom: float
    rows: tuple[Row, ...]
    bars: tuple[Bar, ...]
    waits: tuple[Wait, ...]
    limits: tuple[Limit, ...]
    phases: tuple[PhaseLine, ...]
    ticks: tuple[Tick, ...]
    breaks: tuple[Break, ...]

    @property
    def row_h(self) -> float:
        return ROW_H

    @property
    def bar_h(self) -> float:
        return BAR_H


def css_status(status: str) -> str:
    """A status as a class name: the record is data from disk, a class is markup."""
    return re.sub(r"[^a-z_]", "", status.lower()) or "unknown"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.2f}s" if seconds < 10 else f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def _text_w(text: str, font_px: float) -> float:
    caps = sum(1 for c in text if c.isupper() or c.isdigit() or c == "_")
    return (caps * CAPS_EM + (len(text) - caps) * TEXT_EM) * font_px


def _lanes(marks: Sequence[tuple[float, float, float]]) -> list[int]:
    """A lane (0 at the top) for each phase name (start, end, x of its line), in time order.

    A name's line runs down from it through every lane below to the rows. So a name may go
    in a lane when the lane's last name ends before it starts, no name in a lane below covers
    its line, and no line from a name above crosses it (a name drawn left of its line, at the
    right edge, could); otherwise a new lane opens at the bottom.
    """
    ends: list[float] = []  # per lane, where its last name ends
    lines: list[tuple[int, float]] = []  # (lane, x) of every line placed so far
    lanes = []
    for start, end, x in marks:
        lane = next(
            (i for i in range(len(ends)) if _free(i, (start, end, x), ends, lines)), len(ends)
        )
        if lane == len(ends):
            ends.append(end)
        ends[lane] = end
        lines.append((lane, x))
        lanes.append(lane)
    return lanes


def _free(
    lane: int,
    mark: tuple[float, float, float],
    ends: Sequence[float],
    lines: Iterable[tuple[int, float]],
) -> bool:
    start, end, x = mark
    return (
        start >= ends[lane] + NAME_GAP
        and all(x > below + 1 for below in ends[lane + 1 :])
        and not any(above < lane and start - 2 <= at <= end + 2 for above, at in lines)
    )


def build_chart(
    seats: Sequence[Seat], calls: Sequence[CallTimes], phases: Sequence[PhaseStart], clock: Clock
) -> Chart:
    plot_left, plot_right = LABEL_W, WIDTH - RIGHT_PAD
    step = tick_step(clock.length)
    domain = max(step, math.ceil(clock.length / step - 1e-9) * step)  # the axis ends on a tick

    def x_of(t: float) -> float:
        return plot_left + clock.at(t) / domain * (plot_right - plot_left)

    # Phase names first: how many lanes they take decides where the rows start.
    named = []
    for phase in phases:
        x = x_of(phase.at)
        width = _text_w(phase.name, PHASE_FONT_PX)
        if x + 3 + width <= WIDTH:
            named.append((x + 3, x + 3 + width, x))
        else:  # no room on the right of the line: the name goes on its left
            named.append((x - 3 - width, x - 3, x))
    lanes = _lanes(named)
    lane_count = max(lanes, default=-1) + 1
    plot_top = 6 + lane_count * LANE_H + 4

    rows = _rows(seats, calls, plot_top)
    plot_bottom = plot_top + len(rows) * ROW_H
    row_y = {row.seat: row.y for row in rows}

    phase_lines = []
    for phase, (start, _, x), lane in zip(phases, named, lanes, strict=True):
        text_y = 6 + (lane + 1) * LANE_H - 4
        left_of_line = start < x
        phase_lines.append(
            PhaseLine(
                name=phase.name,
                x=x,
                y1=text_y + 3,
                text_x=x - 3 if left_of_line else x + 3,
                text_y=text_y,
                anchor="end" if left_of_line else "start",
                title=f"{phase.name} (round {phase.round}) starts at "
                f"{seconds_label(clock.at(phase.at))}",
            )
        )

    bars, waits, limits = [], [], []
    for call in calls:
        top = row_y[call.seat]
        bars += _bars(call, top, x_of)
        waits += _waits(call, top, x_of)
        if call.straggler:
            limits += _limits(call, top, x_of)

    ticks = []
    count = round(domain / step)
    for i in range(count + 1):
        value = i * step
        ticks.append(
            Tick(plot_left + value / domain * (plot_right - plot_left), seconds_label(value))
        )
    breaks = tuple(
        Break(
            x_of(start),
            f"{_duration(end - start)} not running",
            f"not running for {_duration(end - start)}, then resumed: left out of the axis",
        )
        for start, end in clock.cuts
    )
    return Chart(
        width=WIDTH,
        height=plot_bottom + AXIS_H + (BREAK_H if breaks else 0),
        plot_left=plot_left,
        plot_right=plot_right,
        plot_top=plot_top,
        plot_bottom=plot_bottom,
        rows=tuple(rows),
        bars=tuple(bars),
        waits=tuple(waits),
        limits=tuple(limits),
        phases=tuple(phase_lines),
        ticks=tuple(ticks),
        breaks=breaks,
    )


def _rows(seats: Sequence[Seat], calls: Iterable[CallTimes], top: float) -> list[Row]:
    """The seats in the plan's order, then any seat that called but is not in it."""
    ordered = list(seats)
    known = {s.name for s in ordered}
    for call in calls:
        if call.seat not in known:
            known.add(call.seat)
            ordered.append(Seat(call.seat, ""))
    rows = []
    for i, seat in enumerate(ordered):
        label = seat.name if len(seat.name) <= SEAT_CHARS else seat.name[: SEAT_CHARS - 1] + "…"
        rows.append(Row(seat.name, label, seat.detail, top + i * ROW_H, striped=i % 2 == 1))
    return rows


def _bars(call: CallTimes, top: float, x_of: XOf) -> list[Bar]:
    found = []
    count = len(call.attempts)
    for number, attempt in enumerate(call.attempts, start=1):
        last = number == count
        # The runner calls a straggler's answer `ok`; the lead's word for it is `late`.
        status = css_status(call.status if last and call.status == "late" else attempt.status)
        x1, x2 = x_of(attempt.start), x_of(attempt.end)
        width = max(2.0, x2 - x1)
        tried = f", attempt {number} of {count}" if count > 1 else ""
        limits = (
            f"; soft limit {seconds_label(call.soft_s)}, hard {seconds_label(call.hard_s)}"
            if call.soft_s is not None and call.hard_s is not None
            else ""
        )
        title = (
            f"{call.seat} · {call.phase} (round {call.round}) · {status} · "
            f"{_duration(attempt.end - attempt.start)}{tried}{limits}"
        )
        label = call.phase if status == "ok" else f"{call.phase} · {status}"
        if _text_w(label, SMALL_FONT_PX) + 8 > width:
            label = ""
        found.append(Bar(x1, top + (ROW_H - BAR_H) / 2, width, status, not last, title, label))
    return found


def _waits(call: CallTimes, top: float, x_of: XOf) -> list[Wait]:
    middle = top + ROW_H / 2
    pairs = zip(call.attempts, call.attempts[1:], strict=False)
    return [Wait(x_of(a.end), x_of(b.start), middle) for a, b in pairs]


def _limits(call: CallTimes, top: float, x_of: XOf) -> list[Limit]:
    """Soft and hard limit of a straggler: lines across its row; the soft limit's name sits
    above the bar left of its line, the hard one's below the bar right of its line, so the
    two never collide however close they are."""
    found = []
    soft, hard = call.limit_at(call.soft_s), call.limit_at(call.hard_s)
    y1, y2 = top + 2, top + ROW_H - 2
    if soft is not None and call.soft_s is not None:
        x = x_of(soft)
        found.append(
            Limit(
                "soft",
                x,
                y1,
                y2,
                f"soft {seconds_label(call.soft_s)}",
                x - 3,
                top + (ROW_H - BAR_H) / 2 - 3,
                "end",
                f"{call.seat} {call.phase}: soft limit {seconds_label(call.soft_s)} "
                "(the lead may move on)",
            )
        )
    if hard is not None and call.hard_s is not None:
        x = x_of(hard)
        found.append(
            Limit(
                "hard",
                x,
                y1,
                y2,
                f"hard {seconds_label(call.hard_s)}",
                x + 3,
                top + (ROW_H + BAR_H) / 2 + SMALL_FONT_PX,
                "start",
                f"{call.seat} {call.phase}: hard limit {seconds_label(call.hard_s)} "
                "(the process tree is killed)",
            )
        )
    return found
