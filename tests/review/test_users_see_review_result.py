"""Each reviewer as `result.json` and review.md's table show it (docs/spec/outputs.md:
`status`, `review` and `cross_check` each ok|failed|pending|skipped, `problems`, `calls`,
`repairs`, retries, the model), while a review runs and once it ended; built from a review's
state made in-process (`review.inprocess`)."""

from __future__ import annotations

from typing import Any

from council.review.protocol import REVIEW
from review.helpers import validate_review
from review.inprocess import findings, review_by_hand, run_scripted, verdicts

SHELL = {"severity": "high", "kind": "security", "file": "service.py", "line": 5,
         "title": "Shell command built from a string"}  # fmt: skip


def shown(result: dict[str, Any]) -> dict[str, tuple]:
    return {
        r["name"]: (r["status"], r["review"], r["cross_check"], r["problems"]["review"])
        for r in result["reviewers"]
    }


def test_while_a_review_runs_a_reviewer_asked_and_not_answered_is_pending(root):
    with review_by_hand(root, "sim", "sim", "sim", "sim") as review:
        state = review.state
        state.seats["reviewer-sim-3"] = {"status": "failed", "cli": "sim",
                                         "problem": "not ready: exit 1"}  # fmt: skip
        state.seats["reviewer-sim-4"] = {"status": "dropped", "cli": "sim"}
        review.answer("reviewer-sim", "REVIEW", findings(SHELL))
        running = REVIEW.build_result(state, ".scratchpad/x/")
        assert shown(running) == {
            "reviewer-sim": ("ok", "ok", "skipped", None),
            "reviewer-sim-2": ("pending", "pending", "skipped", None),
            "reviewer-sim-3": ("pending", "skipped", "skipped", "not ready: exit 1"),
            "reviewer-sim-4": ("dropped", "skipped", "skipped", None),
        }
        assert running["gate"]["passed"] is False and running["exit_code"] == 0
        review.show("reviewer-sim-2")
        checking = REVIEW.build_result(state, ".scratchpad/x/")
        assert checking["reviewers"][1]["cross_check"] == "pending"
        state.status = "degraded"
        ended = REVIEW.build_result(state, ".scratchpad/x/")
    assert shown(ended)["reviewer-sim-2"] == ("failed", "pending", "pending", None)
    assert shown(ended)["reviewer-sim-3"] == ("failed", "skipped", "skipped", "not ready: exit 1")
    assert ended["answered"] == 1 and ended["gate"]["passed"] is True


def test_a_reviewers_calls_repairs_retries_time_and_model_are_counted(root):
    with review_by_hand(root, "sim", "sim:gpt-x") as review:
        review.answer("reviewer-sim", "REVIEW", "garbage", attempts=3, latency_s=1.25,
                      model="served-one")  # fmt: skip
        review.answer("reviewer-sim", "REVIEW_REPAIR", findings(SHELL), attempts=1,
                      latency_s=0.5)  # fmt: skip
        review.answer("reviewer-sim-2", "REVIEW", findings(), attempts=2, latency_s=2.0)
        review.show("reviewer-sim-2")
        review.answer("reviewer-sim-2", "CROSS_CHECK", "no JSON", attempts=1, latency_s=1.0)
        review.answer("reviewer-sim-2", "CROSS_CHECK_REPAIR", verdicts(F1="confirm"),
                      attempts=2, latency_s=1.0)  # fmt: skip
        review.state.status = "completed"
        result = REVIEW.build_result(review.state, ".scratchpad/x/")
    first, second = result["reviewers"]
    assert (first["calls"], first["repairs"], first["retries"], first["latency_s"]) == (
        2, 1, 2, 1.8,
    )  # fmt: skip
    assert (second["calls"], second["repairs"], second["retries"], second["latency_s"]) == (
        3, 1, 2, 4.0,
    )  # fmt: skip
    assert (first["model"], second["model"]) == ("served-one", "gpt-x")  # asked over served
    assert (first["findings_raised"], second["findings_raised"]) == (1, 0)
    assert (second["review"], second["cross_check"]) == ("ok", "ok")
    assert list(result["counts"]) == ["critical", "high", "medium", "low"]
    assert "diff" not in result["context"]


def test_a_reviewer_with_nothing_to_check_skips_the_cross_check_and_nothing_failed(root):
    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if phase == "REVIEW":
            return findings(SHELL) if seat == "reviewer-sim-2" else findings()
        return verdicts(**{f["id"]: "confirm" for f in values["findings"]})

    with review_by_hand(root, "sim", "sim", fail_on="high") as review:
        dispatch = run_scripted(review, script)
        run = review.finish()
    assert [(s, p) for s, p, _ in dispatch.asked] == [
        ("reviewer-sim", "REVIEW"), ("reviewer-sim-2", "REVIEW"), ("reviewer-sim", "CROSS_CHECK"),
    ]  # fmt: skip
    result = run.result
    validate_review(result)
    assert shown(result) == {
        "reviewer-sim": ("ok", "ok", "ok", None),
        "reviewer-sim-2": ("ok", "ok", "skipped", None),
    }
    assert result["reviewers"][1]["problems"]["cross_check"] is None
    assert not any("failed" in w for w in result["warnings"]), result["warnings"]
    assert (result["status"], run.exit_code) == ("completed", 6)
    transcript = review.ready.record.path / "transcript.jsonl"
    assert "reviewer-sim-2: no other reviewer's finding to check" in transcript.read_text()
