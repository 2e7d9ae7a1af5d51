"""A finding's place at the edges of what was reviewed (docs/spec/outputs.md: "a line past the
file's end is shown at its last line, with a warning"): the last line itself, a range that
runs past the end, and paths spelled the ways reviewers spell them."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.review.scope import NOT_REVIEWED, OUTSIDE, place

ROOT = Path("/home/dev/project")
REVIEWED = {"service.py": 16, "lib/db.py": 40, "empty.py": 0}


def finding(file: str = "service.py", line: int | None = 5, end: int | None = None) -> dict:
    return {"id": "F2", "file": file, "line": line, "end_line": end, "blocking": True}


@pytest.mark.parametrize(
    ("line", "end", "shown", "warned"),
    [
        (16, None, (16, None), False),  # the last line is a line of the file
        (16, 16, (16, 16), False),
        (15, 16, (15, 16), False),
        (15, 30, (15, 16), False),  # a range past the end ends at it
        (16, 30, (16, None), False),  # from the last line on: that line
        (17, None, (16, None), True),
        (40, 44, (16, None), True),
        (None, None, (None, None), False),
    ],
)
def test_lines_at_and_past_the_files_end(line, end, shown, warned):
    placed, warning = place(finding(line=line, end=end), REVIEWED, ROOT)
    assert (placed["line"], placed["end_line"]) == shown
    assert placed["out_of_scope"] is None and placed["blocking"] is True
    if warned:
        assert warning == (
            f"F2 names line {line} of service.py, which has 16 lines: shown at line 16"
        )
    else:
        assert warning is None


def test_a_finding_about_no_one_file_is_in_scope_and_may_block():
    placed, warning = place(finding("", None), REVIEWED, ROOT)
    assert (placed["file"], placed["out_of_scope"], placed["blocking"], warning) == (
        "", None, True, None,
    )  # fmt: skip


def test_a_line_of_an_empty_file_is_shown_at_line_1():
    placed, warning = place(finding("empty.py", 3), REVIEWED, ROOT)
    assert placed["line"] == 1 and "which has 0 lines: shown at line 1" in str(warning)


@pytest.mark.parametrize(
    ("path", "shown", "why"),
    [
        ("/home/dev/project/lib/db.py", "lib/db.py", None),
        ("lib\\db.py", "lib/db.py", None),
        ("./lib/./db.py", "lib/db.py", None),
        ("lib/../service.py", "service.py", None),
        ("/home/dev/project/setup.py", "setup.py", NOT_REVIEWED),
        ("/home/dev/other/service.py", "/home/dev/other/service.py", OUTSIDE),
        ("..\\..\\etc\\passwd", "..\\..\\etc\\passwd", OUTSIDE),
        ("/home/dev/project", "/home/dev/project", OUTSIDE),  # the root itself is no file
    ],
)
def test_a_path_is_placed_relative_to_the_project(path, shown, why):
    placed, warning = place(finding(path), REVIEWED, ROOT)
    assert (placed["file"], placed["out_of_scope"]) == (shown, why)
    assert placed["blocking"] is (why is None)
    if why:
        assert warning == f"F2 ({shown}) {why}: kept in the record only"
