"""The merge rule, the support and the gate as docs/spec/protocol.md section 9 states them,
one row per clause: which two findings are one, what the merged finding shows, who counts as
support or dispute, how the findings are numbered, and which block under each rule."""

from __future__ import annotations

import re

import pytest

from council.review.findings import Finding, Verdict
from council.review.merge import (
    finding_key,
    gate_rules,
    merge,
    normal_path,
    rules_text,
    same_issue,
)

ORDER = ["reviewer-a", "reviewer-b", "reviewer-c", "reviewer-d"]
TITLE = "SQL query built by string formatting"


def found(title: str = TITLE, line: int | None = 10, **more: object) -> Finding:
    values = {"severity": "high", "file": "app.py", "end_line": None, "kind": "security"}
    return Finding(title=title, line=line, **{**values, **more})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("given", "normal"),
    [
        ("app.py", "app.py"), ("./app.py", "app.py"), ("././app.py", "app.py"),
        ("a/app.py", "app.py"), ("b/app.py", "app.py"), (" app.py ", "app.py"),
        ("lib\\db.py", "lib/db.py"), (".\\lib\\db.py", "lib/db.py"), ("b/lib/db.py", "lib/db.py"),
        ("lib/a/db.py", "lib/a/db.py"),  # only a leading a/ or b/ is a diff's
    ],
)  # fmt: skip
def test_a_path_is_compared_as_a_diff_or_a_user_would_name_it(given, normal):
    assert normal_path(given) == normal


@pytest.mark.parametrize(
    ("a", "b", "one"),
    [
        pytest.param(found(), found(file="b/app.py"), True, id="diff path"),
        pytest.param(found(), found(file="./app.py"), True, id="dot path"),
        pytest.param(found(), found(file="db.py"), False, id="other file"),
        pytest.param(found(line=10), found(line=13), True, id="3 lines apart"),
        pytest.param(found(line=13), found(line=10), True, id="3 lines apart, other way"),
        pytest.param(found(line=10), found(line=14), False, id="4 lines apart"),
        pytest.param(found(line=10, end_line=20), found(line=23), True, id="3 past a range"),
        pytest.param(found(line=10, end_line=20), found(line=24), False, id="4 past a range"),
        pytest.param(found(line=30), found(line=10, end_line=27), True, id="3 past the other's"),
        pytest.param(found(line=None), found(line=None), True, id="neither names a line"),
        pytest.param(found(line=None), found(line=10), False, id="one names a line"),
        pytest.param(found(line=10), found(line=None), False, id="the other names a line"),
        pytest.param(
            found("SQL query built by string formatting"),
            found("User input formatted into an SQL query"), True, id="other words, half shared",
        ),
        pytest.param(
            found("Password stored in plain text"), found("Plaintext password kept in the log"),
            False, id="one shared word of four",
        ),
        pytest.param(
            found("Formatting the strings"), found("formatted string"), True,
            id="-ing, -ed and -s dropped",
        ),
        pytest.param(
            found("The cache and the lock"), found("Cache with a lock that may leak"), True,
            id="stop words left out",
        ),
        pytest.param(found("Bare except swallows every error"), found(TITLE), False, id="other"),
        pytest.param(
            found("SQL injection"), found("SQL injection through the name given to find"),
            True, id="all of the shorter title's words",
        ),
        pytest.param(found("API keys in logs"), found("API key in log"), True, id="-s, 3 left"),
        pytest.param(found("API key leaked"), found("API key shown"), True, id="3-letter words"),
        pytest.param(found("A b"), found("a B"), True, id="no words: same title"),
        pytest.param(found("A b"), found("a c"), False, id="no words: other title"),
    ],
)  # fmt: skip
def test_which_two_findings_are_one_issue(a, b, one):
    assert same_issue(a, b) is one
    assert same_issue(b, a) is one


def test_a_merged_finding_shows_its_first_findings_words_and_the_groups_extremes():
    reviews = {
        "reviewer-a": [
            found(line=12, severity="medium", confidence=61, detail="first", suggestion="fix")
        ],
        "reviewer-b": [found("User input formatted into an SQL query", 9, end_line=11,
                             severity="critical", confidence=90, kind="correctness")],
        "reviewer-c": [found("SQL formatted query", 14, severity="low")],
    }  # fmt: skip
    (merged,) = merge(reviews, {}, ORDER[:3], ORDER)
    shown = merged.to_json("high")
    assert (shown["title"], shown["detail"], shown["suggestion"], shown["kind"]) == (
        TITLE, "first", "fix", "security",
    )  # fmt: skip
    assert (shown["severity"], shown["line"], shown["end_line"]) == ("critical", 9, 14)
    assert shown["confidence"] == 76  # the mean of 61 and 90, rounded; no confidence: not counted
    assert shown["raised"] == [
        {"reviewer": "reviewer-a", "number": 1, "title": TITLE, "severity": "medium"},
        {"reviewer": "reviewer-b", "number": 1, "title": "User input formatted into an SQL query",
         "severity": "critical"},
        {"reviewer": "reviewer-c", "number": 1, "title": "SQL formatted query", "severity": "low"},
    ]  # fmt: skip
    assert (shown["support"], shown["reviewers"], shown["majority"]) == (3, 3, True)


@pytest.mark.parametrize(
    ("lines", "shown"),
    [
        ([(10, None)], (10, None)),
        ([(10, 10)], (10, None)),  # a range of one line is that line
        ([(10, None), (12, None)], (10, 12)),
        ([(12, None), (10, 11)], (10, 12)),
        ([(10, 15), (12, None)], (10, 15)),
        ([(None, None), (None, None)], (None, None)),
    ],
)
def test_a_merged_findings_lines_are_the_widest_its_members_name(lines, shown):
    reviews = {
        seat: [found(line=line, end_line=end)]
        for seat, (line, end) in zip(ORDER, lines, strict=False)
    }
    (merged,) = merge(reviews, {}, ORDER, ORDER)
    assert (merged.line, merged.end_line) == shown


def test_no_confidence_given_shows_none():
    (merged,) = merge({"reviewer-a": [found()]}, {}, ORDER, ORDER)
    assert merged.to_json(None)["confidence"] is None


def test_support_counts_raisers_and_confirmers_and_disputes_carry_their_reasons():
    reviews = {
        "reviewer-a": [found()],
        "reviewer-b": [found("User input formatted into an SQL query", 11)],
    }
    a, b = finding_key("reviewer-a", 1), finding_key("reviewer-b", 1)
    verdicts = {
        # A confirmation of either finding of the group is a confirmation of the group.
        "reviewer-a": {b: Verdict("dispute", "raising is confirming")},
        "reviewer-c": {a: Verdict("dispute", "it is escaped"), b: Verdict("confirm", "seen")},
        "reviewer-d": {a: Verdict("dispute", "escaped"), b: Verdict("dispute", "escaped")},
    }
    (merged,) = merge(reviews, verdicts, ORDER, ORDER)
    assert merged.raised_by == ["reviewer-a", "reviewer-b"]
    assert merged.confirmed_by == ["reviewer-c"]
    assert merged.disputed_by == [{"reviewer": "reviewer-d", "reason": "escaped"}]
    assert (merged.support, merged.reviewers, merged.majority) == (3, 4, True)


def test_dispute_reasons_are_joined_once_each_and_a_silent_reviewer_is_neither():
    reviews = {"reviewer-a": [found(), found("Bare except swallows every error", 40)]}
    one, two = finding_key("reviewer-a", 1), finding_key("reviewer-a", 2)
    verdicts = {
        "reviewer-b": {one: Verdict("dispute", ""), two: Verdict("dispute", "handled above")},
        "reviewer-c": {two: Verdict("confirm", "")},
    }
    bare, sql = merge(reviews, verdicts, ORDER[:3], ORDER)  # support 2 before support 1
    assert (bare.first.title, sql.first.title) == ("Bare except swallows every error", TITLE)
    assert sql.disputed_by == [{"reviewer": "reviewer-b", "reason": ""}]
    assert sql.confirmed_by == [] and (sql.support, sql.reviewers) == (1, 3)
    assert bare.disputed_by == [{"reviewer": "reviewer-b", "reason": "handled above"}]
    assert bare.confirmed_by == ["reviewer-c"]


def test_a_dispute_of_two_findings_of_a_group_gives_each_reason_once():
    reviews = {"reviewer-a": [found()], "reviewer-b": [found("SQL query formatted", 11)]}
    a, b = finding_key("reviewer-a", 1), finding_key("reviewer-b", 1)
    for said, reason in (
        ({a: Verdict("dispute", ""), b: Verdict("dispute", "escaped")}, "escaped"),
        ({a: Verdict("dispute", "escaped"), b: Verdict("dispute", "unreachable")},
         "escaped; unreachable"),
    ):  # fmt: skip
        (merged,) = merge(reviews, {"reviewer-c": said}, ORDER[:3], ORDER)
        assert merged.disputed_by == [{"reviewer": "reviewer-c", "reason": reason}]


@pytest.mark.parametrize(
    ("support", "answered", "majority"),
    [(1, 1, True), (1, 2, False), (2, 2, True), (2, 3, True), (2, 4, False), (3, 4, True)],
)
def test_a_majority_is_more_than_half_of_the_reviewers_that_answered(support, answered, majority):
    reviews = {"reviewer-a": [found()]}
    confirms = {s: {finding_key("reviewer-a", 1): Verdict("confirm")} for s in ORDER[1:support]}
    (merged,) = merge(reviews, confirms, ORDER[:answered], ORDER)
    assert (merged.support, merged.reviewers, merged.majority) == (support, answered, majority)
    assert merged.blocks("high") is majority


def test_the_findings_are_numbered_most_severe_then_best_supported_then_by_place():
    reviews = {
        "reviewer-a": [
            found("Zebra crossing unchecked", 5, severity="low", file="z.py"),
            found("Alpha handler unchecked", 9, severity="low", file="b.py"),
            found("Alpha handler unchecked", 3, severity="low", file="b.py", kind="style"),
            found("Beta handler unchecked", 3, severity="low", file="b.py"),
            found("Critical secret logged", 50, severity="critical", file="z.py"),
            found("Medium thing wrong", 1, severity="medium", file="a.py"),
        ],
        "reviewer-b": [found("Zebra crossing unchecked", 5, severity="low", file="z.py")],
    }
    merged = merge(reviews, {}, ORDER[:2], ORDER)
    assert [(m.id, m.first.title, m.first.file, m.line) for m in merged] == [
        ("F1", "Critical secret logged", "z.py", 50),
        ("F2", "Medium thing wrong", "a.py", 1),
        ("F3", "Zebra crossing unchecked", "z.py", 5),  # support 2 before the files
        ("F4", "Alpha handler unchecked", "b.py", 3),  # then by file and line
        ("F5", "Beta handler unchecked", "b.py", 3),  # then by title
        ("F6", "Alpha handler unchecked", "b.py", 9),
    ]


RULES = ("majority", "any", "unanimous")


@pytest.mark.parametrize(
    ("confirms", "disputes", "answered", "blocking"),
    [
        # support 1 of 3, undisputed: only `any` blocks
        (0, 0, 3, {"any"}),
        # support 1 of 3, disputed: none
        (0, 1, 3, set()),
        # support 2 of 3, one dispute: majority and any
        (1, 1, 3, {"majority", "any"}),
        # support 2 of 4: `any` only (half is no majority)
        (1, 0, 4, {"any"}),
        # support 3 of 3: every rule
        (2, 0, 3, {"majority", "any", "unanimous"}),
        # support 1 of 1 (a degraded review): every rule
        (0, 0, 1, {"majority", "any", "unanimous"}),
    ],
)
def test_which_rules_a_finding_passes(confirms, disputes, answered, blocking):
    key = finding_key("reviewer-a", 1)
    verdicts = {s: {key: Verdict("confirm")} for s in ORDER[1 : 1 + confirms]}
    verdicts |= {
        s: {key: Verdict("dispute", "no")} for s in ORDER[1 + confirms : 1 + confirms + disputes]
    }
    (merged,) = merge({"reviewer-a": [found()]}, verdicts, ORDER[:answered], ORDER)
    assert {rule for rule in RULES if merged.passes(rule)} == blocking
    for rule in RULES:
        rules = dict.fromkeys(("low", "medium", "high", "critical"), rule)
        assert merged.blocks("high", rules) is (rule in blocking)
        assert merged.blocks("medium", rules) is (rule in blocking)  # high is above medium
        assert merged.blocks("critical", rules) is False  # below the bar
        assert merged.blocks(None, rules) is False  # no --fail-on: never
        assert merged.to_json("high", rules)["gate"] == rule


def test_a_severity_with_no_rule_of_its_own_is_held_to_majority():
    (merged,) = merge({"reviewer-a": [found(severity="critical")]}, {}, ORDER[:3], ORDER)
    assert merged.rule({"high": "any"}) == "majority"
    assert merged.blocks("low", {"high": "any"}) is False
    assert merged.blocks("low", {"critical": "any"}) is True


@pytest.mark.parametrize(
    ("flag", "config", "rules"),
    [
        (None, {}, dict.fromkeys(("low", "medium", "high", "critical"), "majority")),
        ("any", {}, dict.fromkeys(("low", "medium", "high", "critical"), "any")),
        ("unanimous", {"high": "any"}, dict.fromkeys(("low", "medium", "high", "critical"),
                                                     "unanimous")),
        (None, {"critical": "any", "low": "unanimous"},
         {"low": "unanimous", "medium": "majority", "high": "majority", "critical": "any"}),
    ],
)  # fmt: skip
def test_the_flag_is_the_rule_for_every_severity_else_the_config_by_severity(flag, config, rules):
    assert gate_rules(flag, config) == rules


@pytest.mark.parametrize(
    ("rules", "text"),
    [
        ({}, "majority"),
        (dict.fromkeys(("low", "medium", "high", "critical"), "any"), "any"),
        (
            {"critical": "any", "high": "majority", "low": "unanimous"},
            "critical any, high majority, medium majority, low unanimous",
        ),
    ],
)
def test_the_rules_in_words(rules, text):
    assert rules_text(rules) == text


def test_the_fingerprint_follows_the_file_kind_and_title_words_not_the_line_or_path_spelling():
    def fingerprint(*args: object, **more: object) -> str:
        (merged,) = merge({"reviewer-a": [found(*args, **more)]}, {}, ORDER, ORDER)
        return merged.fingerprint()

    base = fingerprint()
    assert re.fullmatch(r"[0-9a-f]{32}", base)
    assert fingerprint(line=200) == base
    assert fingerprint(file="./app.py") == fingerprint(file="b/app.py") == base
    assert fingerprint("String formatting built the SQL query") == base
    assert fingerprint(severity="low") == base
    assert fingerprint(kind="correctness") != base
    assert fingerprint(file="db.py") != base
    assert fingerprint("Shell command built from a string") != base
