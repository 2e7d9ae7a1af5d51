"""One self-contained HTML page about a run, written into its record (`report.html`): what the
protocol shows (its template, extending `page.html.j2`) around a timeline of every CLI call
drawn as inline SVG.

Self-contained means nothing is fetched when the page opens: inline CSS, no script, no font,
no image, and a Content-Security-Policy that forbids them anyway. The replies are untrusted
text (a model may write `<script>`), so the page is rendered by a Jinja2 environment of its
own with autoescape on; the prompts' environment (`council.prompts`) never escapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from council import __version__
from council.report.chart import Chart, Seat, build_chart, css_status
from council.report.timeline import (
    Clock,
    activity_from_transcript,
    calls_from_state,
    phases_from_transcript,
)
from council.runs.record import Record

REPORT = "report.html"
TEMPLATES = Path(__file__).parent / "templates"  # shipped in the wheel with the package


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every value is text, never markup
        undefined=jinja2.StrictUndefined,  # a misspelt field fails the tests, not the page
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_page(template: str, result: dict[str, Any], **values: Any) -> str:
    """`template` (a protocol's, extending `page.html.j2`) with what every page uses."""
    return (
        _environment()
        .get_template(template)
        .render(
            result=result,
            status_class=css_status(result["status"]),
            duration=duration_text(result.get("duration_s") or 0.0),
            css_status=css_status,
            version=__version__,
            **values,
        )
    )


def write_page(record: Record, page: str) -> Path:
    """Write `report.html` into the record (0600, like every file there) and return it."""
    record.write_text(REPORT, page)
    return record.file(REPORT)


def timeline_chart(
    seats: Sequence[Seat], state: dict[str, Any], transcript: list[dict[str, Any]]
) -> Chart | None:
    """The timeline, or None when nothing has happened yet that could be drawn."""
    calls = calls_from_state(state)
    phases = phases_from_transcript(transcript)
    # A straggler's limits are drawn even when its answer came before them: on the axis too.
    busy = [
        (c.started_at, max(c.end, c.limit_at(c.hard_s) or 0.0) if c.straggler else c.end)
        for c in calls
    ]
    busy += [(t, t) for t in activity_from_transcript(transcript)]
    clock = Clock.over(busy)
    if clock is None or not calls:
        return None
    return build_chart(seats, calls, phases, clock)


def seat_rows(seats: Sequence[dict[str, Any]]) -> list[Seat]:
    """The timeline's rows from a result's seats (a debate's `seats`, a review's `reviewers`):
    the seat's name, its CLI and model, and whether it was dropped."""
    rows = []
    for seat in seats:
        detail = seat["cli"] + (f" · {seat['model']}" if seat.get("model") else "")
        if seat.get("status") == "dropped":
            detail += " · dropped"
        rows.append(Seat(seat["name"], detail))
    return rows


def duration_text(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
