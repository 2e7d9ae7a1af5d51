"""What a review's report.html tells a reader (docs/spec/commands.md `show --html`): how many
reviewers answered, how many findings of each severity, the gate's verdict and the duration;
the findings by severity, each in the words `show --md` prints; the reviewers' table, every
call, and what was out of scope. From a hand-made finished review's result."""

from __future__ import annotations

import re
from typing import Any

import pytest

from council.review.report import render_report
from report.pages import call, meta_lines, parsed, shown_text, state_of, table_rows


def finding(fid: str, severity: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": fid, "severity": severity, "title": f"{severity} problem {fid}", "file": "x.py",
        "line": 4, "end_line": None, "kind": "bug", "support": 2, "reviewers": 2,
        "majority": True, "confidence": None, "blocking": False, "raised_by": ["reviewer-a"],
        "confirmed_by": ["reviewer-b"], "disputed_by": [], "detail": f"detail of {fid}",
        "suggestion": f"fix {fid}", "out_of_scope": None, **fields,
    }  # fmt: skip


def reviewer(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name, "cli": "sim", "version": None, "model": None, "effort": None,
        "status": "ok", "review": "ok", "cross_check": "ok", "findings_raised": 1, "calls": 2,
        "retries": 0, "latency_s": 3.5, "problems": {"review": None, "cross_check": None},
        "served_models": [], **fields,
    }  # fmt: skip


def review_result(**changes: Any) -> dict[str, Any]:
    findings = [
        finding("F1", "low"),
        finding("F2", "critical", blocking=True),
        finding("F3", "medium"),
        finding("F4", "high", blocking=True),
        finding("F5", "high"),
    ]
    return {
        "id": "review-20270115-100000-abcd", "subject": "x.py", "simulated": False,
        "status": "completed", "answered": 2, "duration_s": 65.0,
        "started_at": "2027-01-15T10:00:00+00:00", "warnings": [], "error": None,
        "reviewers": [reviewer("reviewer-a"), reviewer("reviewer-b")],
        "findings": findings, "counts": {"critical": 1, "high": 2, "medium": 1, "low": 1},
        "gate": {"fail_on": "high", "rules": {"high": "majority", "critical": "majority"},
                 "blocking": ["F2", "F4"], "passed": False},
        "calls": [], "scratchpad": ".scratchpad/review-x/", **changes,
    }  # fmt: skip


def page(state: dict[str, Any] | None = None, **changes: Any) -> str:
    return render_report(review_result(**changes), state or state_of(), [])


def test_the_header_counts_answers_findings_by_severity_and_gives_the_gate_and_duration():
    first, reviewers = meta_lines(page())[:2]
    assert first == (
        "completed · 2 of 2 reviewers answered · 5 findings (1 critical, 2 high, 1 medium, 1 low)"
        " · gate high (majority): FAILED (F2, F4) · 1m05s · started 2027-01-15T10:00:00+00:00"
    )
    assert reviewers.startswith("Reviewers: reviewer-a (sim: ")


@pytest.mark.parametrize(
    ("changes", "shown"),
    [
        ({"answered": 1}, "· 1 of 2 reviewers answered ·"),
        ({"counts": {"high": 3}}, "· 3 findings (3 high) ·"),
        ({"counts": {"critical": 0, "low": 2}}, "· 2 findings (2 low) ·"),
        ({"counts": {}}, "· 0 findings ·"),
        ({"gate": {"fail_on": None, "blocking": [], "passed": True}}, "· no gate ·"),
        (
            {
                "gate": {
                    "fail_on": "critical",
                    "rules": {"critical": "any"},
                    "blocking": [],
                    "passed": True,
                }
            },
            "· gate critical (critical any, high majority, medium majority, low majority): passed",
        ),
        ({"duration_s": 9.0}, "· 9s ·"),
        ({"duration_s": 121.0}, "· 2m01s ·"),
    ],
)
def test_the_headers_figures_follow_the_result(changes, shown):
    assert shown in meta_lines(page(**changes))[0]


def test_findings_are_shown_by_severity_then_id_each_with_its_markdown():
    html = page()
    articles = parsed(html).having("article", "finding")
    assert [a.classes[2] for a in articles] == ["critical", "high", "high", "medium", "low"]
    text = shown_text(html.split('<section id="findings">', 1)[1].split("</section>", 1)[0])
    heads = [
        "F2 · critical blocking · critical problem F2",
        "F4 · high blocking · high problem F4",
        "F5 · high · high problem F5",
        "F3 · medium · medium problem F3",
        "F1 · low · low problem F1",
    ]
    at = [text.find(h) for h in heads]
    assert -1 not in at and at == sorted(at), text
    assert (
        "`x.py:4` · bug · support 2 of 2 (majority) · BLOCKING - Raised by: reviewer-a - "
        "Confirmed by: reviewer-b - Disputed by: nobody detail of F2 Suggestion: fix F2" in text
    )


def test_a_finding_out_of_scope_is_listed_apart_with_why():
    outside = finding("F9", "high", line=12, out_of_scope="not in the diff")
    html = page(findings=[finding("F1", "low"), outside], counts={"low": 1})
    assert [a.classes[2] for a in parsed(html).having("article", "finding")] == ["low"]
    text = shown_text(html)
    assert "Out of scope F9 high problem F9 (x.py:12): not in the diff" in text
    assert "Out of scope" not in shown_text(page(findings=[finding("F1", "low")]))


def test_no_findings_says_so_or_that_the_review_still_runs():
    assert "No findings." in shown_text(page(findings=[], counts={}))
    assert "(still running)" in shown_text(page(findings=[], counts={}, status="running"))


def test_the_reviewers_table_has_each_ones_figures_and_problem():
    reviewers = [
        reviewer("reviewer-a", cli="claude", version="2.1.3", model="opus", effort="high",
                 findings_raised=4, calls=2, retries=1, latency_s=41.5),
        reviewer("reviewer-b", cli="gemini", review="failed", cross_check="skipped",
                 findings_raised=0, calls=1, latency_s=90.0,
                 problems={"review": "timed out after 90s", "cross_check": None}),
    ]  # fmt: skip
    html = page(reviewers=reviewers)
    body = html.split('<section id="reviewers">', 1)[1].split("</tbody>", 1)[0]
    rows = table_rows(body.split("<tbody>", 1)[1])
    assert rows == [
        ["reviewer-a", "claude 2.1.3", "opus #high", "ok", "ok", "4", "2", "1", "41.5s", ""],
        ["reviewer-b", "gemini", "default", "failed", "skipped", "0", "1", "0", "90.0s",
         "timed out after 90s"],
    ]  # fmt: skip
    assert '<span class="badge failed">failed</span>' in html


def test_every_call_is_a_row_with_its_status_reason_latency_and_attempts():
    calls = [
        {"reviewer": "reviewer-a", "phase": "REVIEW", "round": 1, "status": "ok",
         "reason": None, "latency_s": 3.5, "attempts": 1, "files": {"response": "a.out.md"}},
        {"reviewer": "reviewer-b", "phase": "CROSS_CHECK", "round": 2, "status": "skipped",
         "reason": "busy", "latency_s": 0, "attempts": 0, "files": None},
    ]  # fmt: skip
    html = page(calls=calls)
    assert table_rows(html, '<tr class="call-row">') == [
        ["reviewer-a", "REVIEW", "1", "ok", "3.5s", "1", "a.out.md"],
        ["reviewer-b", "CROSS_CHECK", "2", "skipped busy", "0s", "0", ""],
    ]
    assert "No call yet." in shown_text(page(calls=[]))


def test_warnings_and_the_error_are_listed_in_the_header():
    html = page(warnings=["reviewer-b timed out"], error="the gate could not be computed")
    assert re.findall(r"<li>([^<]*)</li>", html.split('<ul class="warnings">', 1)[1])[:2] == [
        "warning: reviewer-b timed out",
        "error: the gate could not be computed",
    ]
    assert 'class="warnings"' not in page()


def test_the_reviews_timeline_has_a_row_per_reviewer():
    state = state_of(
        call("reviewer-a", "REVIEW", 0.0, [[0.0, 3.0, "ok"]]),
        call("reviewer-b", "REVIEW", 0.0, [[0.0, 4.0, "ok"]]),
        proxies=(),
    )
    html = page(state)
    rows = [e.title for e in parsed(html).having("text", "seat")]
    assert rows[:2] == ["reviewer-a", "reviewer-b"]  # the result's reviewers first
    assert len(parsed(html).having("rect", "call")) == 2
    assert re.findall(r'<text class="tick"[^>]*>([^<]*)</text>', html)[-1] == "4s"


def test_a_review_title_names_the_subject():
    html = page(subject="git diff main")
    assert "<title>review-20270115-100000-abcd: review of git diff main</title>" in html
    assert "<h1>Review of git diff main</h1>" in html


HOSTILE = "</pre><script>alert(1)</script>"


@pytest.mark.parametrize(
    "changes",
    [
        {"subject": HOSTILE},
        {"error": HOSTILE},
        {"warnings": [HOSTILE]},
        {"reviewers": [reviewer(HOSTILE, problems={"review": HOSTILE, "cross_check": None})]},
        {"findings": [finding("F1", "low", title=HOSTILE, suggestion=HOSTILE)]},
        {"findings": [finding("F1", "low", out_of_scope=HOSTILE)]},
    ],
    ids=lambda changes: "-".join(changes),
)
def test_hostile_text_on_a_reviews_page_stays_text(changes):
    html = page(**changes)
    assert "<script" not in html and "&lt;/pre&gt;&lt;script&gt;" in html
    assert html.count("</pre>") == html.count("<pre")
