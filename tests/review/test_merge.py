"""MERGE (council.review.merge): the merge rule, the support of each finding, and the gate,
checked on reviews made up here; no CLI runs."""

from __future__ import annotations

from council.review.findings import Finding, Verdict
from council.review.merge import finding_key, gate, merge, same_issue

ORDER = ["reviewer-a", "reviewer-b", "reviewer-c"]


def finding(title: str, line: int | None = 10, **more) -> Finding:
    values = {"severity": "high", "file": "app.py", "end_line": None, "kind": "security"}
    return Finding(title=title, line=line, **{**values, **more})


def test_the_same_issue_in_other_words_on_nearby_lines_merges():
    a = finding("SQL query built by string formatting", 12)
    b = finding("User input formatted into an SQL query", 14, file="./app.py")
    assert same_issue(a, b)


def test_other_files_far_lines_or_other_titles_stay_apart():
    a = finding("SQL query built by string formatting", 12)
    assert not same_issue(a, finding("SQL query built by string formatting", 12, file="db.py"))
    assert not same_issue(a, finding("SQL query built by string formatting", 20))
    assert not same_issue(a, finding("Bare except swallows every error", 12))
    assert not same_issue(a, finding("SQL query built by string formatting", None))


def test_a_range_counts_from_both_its_ends():
    wide = finding("Race between check and write", 10, end_line=30)
    assert same_issue(wide, finding("Check and write race", 33))
    assert not same_issue(wide, finding("Check and write race", 34))


def test_duplicates_merge_and_a_lone_finding_survives_with_its_support():
    reviews = {
        "reviewer-a": [finding("SQL query built by string formatting", 12, confidence=90)],
        "reviewer-b": [
            finding(
                "User input formatted into an SQL query", 13, severity="critical", confidence=70
            ),
            finding("Debug print left in", 40, severity="low", kind="style"),
        ],
        "reviewer-c": [],
    }
    verdicts = {
        "reviewer-a": {finding_key("reviewer-b", 2): Verdict("dispute", "it is a CLI")},
        "reviewer-c": {
            finding_key("reviewer-a", 1): Verdict("confirm"),
            finding_key("reviewer-b", 1): Verdict("confirm"),
            finding_key("reviewer-b", 2): Verdict("dispute", "print is the output"),
        },
    }
    sql, debug = merge(reviews, verdicts, ORDER, ORDER)
    assert sql.id == "F1" and debug.id == "F2"
    assert sql.raised_by == ["reviewer-a", "reviewer-b"] and sql.confirmed_by == ["reviewer-c"]
    assert (sql.severity, sql.line, sql.end_line) == ("critical", 12, 13)  # the most severe, widest
    assert sql.to_json("high")["confidence"] == 80 and sql.first.title.startswith("SQL query")
    assert (sql.support, sql.reviewers, sql.majority) == (3, 3, True)
    assert debug.raised_by == ["reviewer-b"] and debug.confirmed_by == []
    assert debug.disputed_by == [
        {"reviewer": "reviewer-a", "reason": "it is a CLI"},
        {"reviewer": "reviewer-c", "reason": "print is the output"},
    ]
    assert (debug.support, debug.majority) == (1, False)  # "1 of 3", kept


def test_a_reviewer_never_merges_two_of_its_own_findings():
    reviews = {
        "reviewer-a": [finding("Unbounded cache growth", 5), finding("Cache grows unbounded", 6)]
    }
    assert len(merge(reviews, {}, ["reviewer-a"], ORDER)) == 2


def test_the_gate_needs_the_severity_and_a_strict_majority_of_those_who_answered():
    reviews = {
        "reviewer-a": [finding("Shell command built from a string", 3, severity="high")],
        "reviewer-b": [finding("Unfinished TODO", 30, severity="low", kind="maintainability")],
    }
    confirm = {"reviewer-b": {finding_key("reviewer-a", 1): Verdict("confirm")}}
    two = ["reviewer-a", "reviewer-b"]
    merged = merge(reviews, confirm, two, ORDER)
    assert gate(merged, "high") == ["F1"] and gate(merged, "critical") == []
    assert gate(merged, "low") == ["F1"]  # F2: 1 of 2 is no majority
    assert gate(merged, None) == []
    disputed = {"reviewer-b": {finding_key("reviewer-a", 1): Verdict("dispute", "no")}}
    assert gate(merge(reviews, disputed, two, ORDER), "high") == []  # 1 of 2


def test_the_fingerprint_ignores_lines_and_wording_order_but_not_the_file():
    one = merge({"reviewer-a": [finding("SQL query built by formatting", 12)]}, {}, ORDER, ORDER)
    moved = merge({"reviewer-a": [finding("formatting built by SQL query", 80)]}, {}, ORDER, ORDER)
    other = merge({"reviewer-a": [finding("SQL query built by formatting", 12, file="b.py")]}, {},
                  ORDER, ORDER)  # fmt: skip
    assert one[0].fingerprint() == moved[0].fingerprint() != other[0].fingerprint()
