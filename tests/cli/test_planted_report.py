"""`council show ID --html`: a seat dropped from the debate (docs/spec/protocol.md section 2:
a seat whose CLI is missing at READY is dropped) keeps its row in the page's timeline, and the
row says it was dropped, beside the seat's CLI."""

from __future__ import annotations

import re
from pathlib import Path

from cli.test_show_html import show_html
from project import QUESTION, Project

CONFIG = """\
clis:
  gone:
    adapter: sim
    command: ["{missing}"]
"""


def test_the_timeline_row_of_a_dropped_seat_says_dropped(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.write_config(CONFIG.format(missing=tmp_path / "not-installed" / "gone"))
    ran = project.run("debate", QUESTION, "--sim", "--with", "sim,gone", "--files", "app.py")
    assert ran.returncode == 0, ran.stderr
    assert "dropped: proxy-gone (gone)" in ran.stderr.splitlines()
    shown = show_html(project)
    details = re.findall(r'<text class="seat-detail"[^>]*>([^<]*)</text>', shown.html)
    assert "gone · dropped" in details, details
    assert not [d for d in details if d != "gone · dropped" and "dropped" in d], details
