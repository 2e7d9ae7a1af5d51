"""Line numbers in a review's prompt (`files_block(..., numbered=True)`): every number is the
file's own, after a head-and-tail marker too, so a finding names the line a user opens; the
markers themselves carry no number."""

from __future__ import annotations

from context.tree import numbered, write
from council.context import files_block, gather_context
from council.context.fences import Fences
from council.context.render import number_lines

FENCES = Fences(nonce="0123456789abcdef", canary="CANARY-fedcba9876543210")


def test_a_capped_file_numbers_its_tail_with_the_files_own_line_numbers(project):
    write(project, "big.py", numbered(700))
    block = files_block(gather_context(["big.py"], cwd=project), numbered=True)
    lines = block.split("\n")
    assert lines[:4] == ["### big.py", "```python", "  1 | line 1", "  2 | line 2"]
    at = lines.index("[... 500 lines left out (lines 101-600 of 700) ...]")
    assert lines[at - 1] == "100 | line 100"
    assert lines[at + 1] == "601 | line 601"
    assert lines[at + 2] == "602 | line 602"
    assert lines[-3:] == ["700 | line 700", "```", ""]


def test_numbers_are_padded_to_the_width_of_the_files_last_line_number():
    assert number_lines("a\nb", 2) == "1 | a\n2 | b"
    assert number_lines("a\nb", 10) == " 1 | a\n 2 | b"
    assert number_lines("a", 1000) == "   1 | a"


def test_an_empty_file_has_no_numbered_line():
    assert number_lines("", 0) == ""


def test_blank_lines_are_numbered_too():
    assert number_lines("a\n\nc", 3) == "1 | a\n2 | \n3 | c"


def test_the_total_cut_note_is_not_numbered(project):
    write(project, "a.py", numbered(30))
    (a,) = gather_context(["a.py"], cwd=project, total_lines=20).files
    text = number_lines(a.text, a.lines_total)
    lines = text.split("\n")
    assert lines[-2:] == [
        "20 | line 20",
        "[... 10 more lines not sent: the 20-line total was reached ...]",
    ]


def test_a_file_cut_both_ways_keeps_true_numbers_up_to_the_total_note(project):
    write(project, "a.py", numbered(3000))
    (a,) = gather_context(["a.py"], cwd=project, total_lines=150).files
    lines = number_lines(a.text, a.lines_total).split("\n")
    assert lines[99] == " 100 | line 100"
    assert lines[100] == "[... 2800 lines left out (lines 101-2900 of 3000) ...]"
    assert lines[101] == "2901 | line 2901"
    assert lines[150] == "2950 | line 2950"
    assert lines[151] == "[... 50 more lines not sent: the 150-line total was reached ...]"


def test_numbered_lines_sit_inside_the_runs_fences(project):
    write(project, "app.py", "x = 1\ny = 2\n")
    block = files_block(gather_context(["app.py"], cwd=project), FENCES, numbered=True)
    assert block == (
        "### app.py\n"
        f"<<<UNTRUSTED {FENCES.nonce} BEGIN file: app.py>>>\n"
        "```python\n1 | x = 1\n2 | y = 2\n```\n"
        f"<<<UNTRUSTED {FENCES.nonce} END file: app.py>>>\n"
    )


def test_the_diff_is_never_numbered(repo):
    write(repo, "app.py", "def handler(event):\n    return None\n")
    block = files_block(gather_context([], cwd=repo, diff_ref="HEAD"), numbered=True)
    assert block.startswith("### git diff HEAD\n```diff\ndiff --git a/app.py b/app.py\n")
    assert "\n1 | def handler(event):\n2 |     return None\n```" in block
