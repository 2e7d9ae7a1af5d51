"""Reading what a reviewer answers: tolerant of what models write, strict about what reaches
the result (docs/spec/commands.md "council review")."""

from __future__ import annotations

import pytest

from council.review.findings import (
    Finding,
    ReviewUnreadable,
    Verdict,
    parse_findings,
    parse_verdicts,
)


def test_a_fenced_object_with_prose_around_it_is_read():
    text = """Here is my review.
```json
{"findings": [{"severity": "High", "kind": "security", "file": "app.py", "line": "12",
  "end_line": 14, "title": "SQL built by formatting", "detail": "d", "suggestion": "s",
  "confidence": "80%"},]}
```
Thanks."""
    (finding,), warnings = parse_findings(text)
    assert finding == Finding("high", "app.py", 12, 14, "SQL built by formatting", "d", "s", 80,
                              "security")  # fmt: skip
    assert warnings == []


def test_a_bare_list_and_synonyms_of_the_severities_are_read():
    text = (
        '[{"severity": "blocker", "file": "a.py", "title": "x"}, {"severity": "nit", "title": "y"}]'
    )
    found, _ = parse_findings(text)
    assert [f.severity for f in found] == ["critical", "low"]
    assert found[1].file == "" and found[1].line is None and found[1].kind == "other"


def test_an_empty_list_is_a_review_that_found_nothing():
    assert parse_findings('{"findings": []}') == ([], [])


def test_an_unreadable_finding_is_left_out_with_a_warning_and_the_rest_kept():
    text = '{"findings": [{"severity": "urgent", "title": "x"}, {"severity": "low", "title": "y"}]}'
    found, warnings = parse_findings(text)
    assert [f.title for f in found] == ["y"]
    assert warnings == ["finding 1 left out: unknown severity 'urgent'"]


@pytest.mark.parametrize(
    "text",
    [
        "I could not find the JSON format, sorry.",
        '{"findings": [{"severity": "urgent", "title": "x"}]}',  # nothing readable in it
        '{"summary": "fine", "score": 3}',
    ],
)
def test_no_readable_findings_is_unreadable_and_says_why(text):
    with pytest.raises(ReviewUnreadable) as why:
        parse_findings(text)
    assert str(why.value)


def test_a_line_range_that_runs_backwards_keeps_only_its_first_line():
    (finding,), _ = parse_findings('[{"severity": "low", "title": "t", "line": 9, "end_line": 3}]')
    assert (finding.line, finding.end_line) == (9, None)


def test_verdicts_are_read_by_id_and_only_for_the_ids_listed():
    text = """{"verdicts": [
        {"id": "F1", "verdict": "Confirm", "reason": "it is there"},
        {"id": "f2", "verdict": "false positive", "reason": "  the input is   validated "},
        {"id": "F9", "verdict": "confirm"},
        {"id": "F3", "verdict": "maybe"}
    ]}"""
    verdicts, warnings = parse_verdicts(text, ["F1", "F2", "F3"])
    assert verdicts == {
        "F1": Verdict("confirm", "it is there"),
        "F2": Verdict("dispute", "the input is validated"),
    }
    assert len(warnings) == 2


def test_a_cross_check_without_one_readable_verdict_is_unreadable():
    with pytest.raises(ReviewUnreadable):
        parse_verdicts('{"verdicts": [{"id": "F7", "verdict": "confirm"}]}', ["F1"])
