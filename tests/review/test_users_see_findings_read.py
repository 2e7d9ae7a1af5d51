"""What a reviewer's answer becomes (docs/spec/protocol.md section 9, REVIEW and CROSS_CHECK):
the fields models name in other words, severities and verdicts in a model's words, numbers
written as text, and what is left out with a warning rather than taken as a finding."""

from __future__ import annotations

import json

import pytest

from council.review.findings import ReviewUnreadable, Verdict, parse_findings, parse_verdicts


def read_one(**fields: object) -> tuple[object, list[str]]:
    """The one finding an answer holding `fields` (plus a title and severity) gives."""
    item = {"title": "Shell command built from a string", "severity": "high", **fields}
    (finding,), warnings = parse_findings(json.dumps({"findings": [item]}))
    return finding, warnings


@pytest.mark.parametrize(
    ("given", "severity"),
    [
        ("High", "high"), (" CRITICAL ", "critical"), ("low", "low"), ("Medium", "medium"),
        ("info", "low"), ("informational", "low"), ("minor", "low"), ("trivial", "low"),
        ("nit", "low"), ("moderate", "medium"), ("warning", "medium"), ("major", "high"),
        ("error", "high"), ("severe", "critical"), ("blocker", "critical"),
    ],
)  # fmt: skip
def test_a_severity_in_a_models_words_is_one_of_the_four(given, severity):
    finding, warnings = read_one(severity=given)
    assert finding.severity == severity and warnings == []


@pytest.mark.parametrize(
    ("fields", "attribute", "value"),
    [
        ({"path": "lib/db.py"}, "file", "lib/db.py"),
        ({"file": " app.py "}, "file", "app.py"),
        ({"file": "app.py", "path": "other.py"}, "file", "app.py"),
        ({"description": "Input reaches the shell."}, "detail", "Input reaches the shell."),
        ({"fix": "Pass a list."}, "suggestion", "Pass a list."),
        ({"category": "Security"}, "kind", "security"),
        ({"kind": "PERFORMANCE"}, "kind", "performance"),
        ({"kind": "bug"}, "kind", "other"),  # not one of the kinds: other
        ({}, "kind", "other"),
        ({"line": "12"}, "line", 12),
        ({"line": 12.0}, "line", 12),
        ({"line": "line 12"}, "line", 12),
        ({"line": 0}, "line", None),  # lines count from 1
        ({"line": -4}, "line", None),
        ({"line": True}, "line", None),
        ({"line": 5, "end_line": 5}, "end_line", 5),
        ({"line": 5, "end_line": "8"}, "end_line", 8),
        ({"line": 5, "end_line": 4}, "end_line", None),
        ({"end_line": 8}, "end_line", None),  # no first line: no range
        ({"confidence": "80%"}, "confidence", 80),
        ({"confidence": 0}, "confidence", 0),
        ({"confidence": 100}, "confidence", 100),
        ({"confidence": 79.6}, "confidence", 80),
        ({"confidence": 101}, "confidence", None),  # 0-100 only
        ({"confidence": -1}, "confidence", None),
        ({"confidence": "high"}, "confidence", None),
        ({"title": "  SQL   built\nby formatting "}, "title", "SQL built by formatting"),
    ],
)
def test_each_field_is_read_as_the_result_shows_it(fields, attribute, value):
    finding, _ = read_one(**fields)
    assert getattr(finding, attribute) == value


def test_findings_left_out_are_named_by_their_place_and_why():
    text = json.dumps(
        {
            "findings": [
                {"severity": "high", "title": "kept"},
                {"severity": "high", "title": "   "},
                "a string, not a finding",
                {"severity": "urgent", "title": "x"},
                {"title": "no severity"},
            ]
        }
    )
    found, warnings = parse_findings(text)
    assert [f.title for f in found] == ["kept"]
    assert warnings == [
        "finding 2 left out: no title",
        "finding 3 left out: not a JSON object",
        "finding 4 left out: unknown severity 'urgent'",
        "finding 5 left out: unknown severity None",
    ]


@pytest.mark.parametrize(
    "text",
    [
        '{"results": [{"severity": "low", "title": "t"}]}',  # the one list the object holds
        '[{"severity": "low", "title": "t"}]',  # a bare list
        'Sure:\n```json\n{"findings": [{"severity": "low", "title": "t"}]}\n```\nDone.',
    ],
)
def test_the_findings_are_found_where_models_put_them(text):
    (finding,), _ = parse_findings(text)
    assert finding.title == "t"


def test_an_object_with_several_lists_and_no_findings_is_unreadable_and_says_so():
    with pytest.raises(ReviewUnreadable) as unreadable:
        parse_findings('{"a": [1], "b": [2]}')
    assert "no `findings` list" in str(unreadable.value)


@pytest.mark.parametrize(
    ("word", "verdict"),
    [
        ("confirm", "confirm"), ("Confirmed", "confirm"), ("agree", "confirm"),
        ("valid", "confirm"), ("true positive", "confirm"), ("YES", "confirm"),
        ("dispute", "dispute"), ("disputed", "dispute"), ("disagree", "dispute"),
        ("reject", "dispute"), ("invalid", "dispute"), ("False Positive", "dispute"),
        ("no", "dispute"),
    ],
)  # fmt: skip
def test_a_verdict_in_a_models_words_is_confirm_or_dispute(word, verdict):
    said, warnings = parse_verdicts(
        json.dumps({"verdicts": [{"id": "F1", "verdict": word}]}), ["F1"]
    )
    assert said == {"F1": Verdict(verdict, "")} and warnings == []


@pytest.mark.parametrize(
    "item",
    [
        {"id": "F2", "verdict": "confirm"},
        {"id": "f2", "verdict": "confirm"},
        {"id": " 2 ", "verdict": "confirm"},
        {"finding": "F2", "verdict": "confirm"},
        {"id": 2, "verdict": "confirm"},
    ],
)
def test_a_verdict_names_its_finding_in_any_of_the_ways_models_write_it(item):
    said, _ = parse_verdicts(json.dumps([item]), ["F1", "F2"])
    assert list(said) == ["F2"]


def test_verdicts_on_findings_not_listed_or_in_no_known_words_are_warned_of_and_dropped():
    text = json.dumps(
        {
            "verdicts": [
                {"id": "F1", "verdict": "confirm", "reason": " seen \n it "},
                {"id": "F3", "verdict": "confirm"},
                {"id": "F2", "verdict": "perhaps"},
                "not an object",
            ]
        }
    )
    said, warnings = parse_verdicts(text, ["F1", "F2"])
    assert said == {"F1": Verdict("confirm", "seen it")}
    assert warnings == [
        "verdict 'F3': 'confirm' not understood",
        "verdict 'F2': 'perhaps' not understood",
    ]


def test_a_cross_check_with_nothing_to_check_reads_as_no_verdicts():
    assert parse_verdicts('{"verdicts": []}', []) == ({}, [])
    with pytest.raises(ReviewUnreadable):
        parse_verdicts('{"verdicts": []}', ["F1"])
