"""The review's protocol as a user meets it (docs/spec/protocol.md section 9), run in-process
on made-up answers (`review.inprocess`): what each cross-check lists and how its verdicts land,
the one repair and what it quotes, a reviewer whose review or cross-check failed, a degraded
and a failed review, and the exit code, files and warnings each ends with."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from review.helpers import SERVICE, validate_review, validate_sarif
from review.inprocess import findings, review_by_hand, run_scripted, verdicts

SHELL = {"severity": "high", "kind": "security", "file": "service.py", "line": 5,
         "title": "Shell command built from a string"}  # fmt: skip
SQL = {"severity": "critical", "kind": "security", "file": "service.py", "line": 9,
       "title": "Query assembled by formatting"}  # fmt: skip
TODO = {"severity": "low", "kind": "maintainability", "file": "service.py", "line": 16,
        "title": "Unfinished work in a TODO"}  # fmt: skip


def raises(by_seat: dict[str, list[dict]], check: str = "confirm"):
    """Each seat raises its findings and gives `check` on every finding it is shown."""

    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if phase.startswith("REVIEW"):
            return findings(*by_seat.get(seat, []))
        listed = values.get("findings") or [{"id": "F1"}]  # a repair lists none again
        return verdicts(**{f["id"]: check for f in listed})

    return script


def titled(result: dict, title: str) -> dict:
    (found,) = [f for f in result["findings"] if f["title"] == title]
    return found


def test_each_cross_check_lists_the_others_findings_by_label_and_its_verdicts_land_on_them(root):
    listed: dict[str, list[tuple[str, str, str]]] = {}

    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if phase == "REVIEW":
            own = {"reviewer-sim": [SHELL], "reviewer-sim-2": [SQL], "reviewer-sim-3": [TODO]}
            return findings(*own[seat])
        listed[seat] = [(f["id"], f["label"], f["title"]) for f in values["findings"]]
        # Confirms only the second finding it is shown, disputes the first.
        return verdicts(F1="dispute", F2="confirm")

    with review_by_hand(root, "sim", "sim", "sim", fail_on="high") as review:
        run_scripted(review, script)
        run = review.finish()
        state = review.state
    labels = {"reviewer-sim": "Reviewer A", "reviewer-sim-2": "Reviewer B",
              "reviewer-sim-3": "Reviewer C"}  # fmt: skip
    titles = {"reviewer-sim": SHELL["title"], "reviewer-sim-2": SQL["title"],
              "reviewer-sim-3": TODO["title"]}  # fmt: skip
    for checker, shown in state.shown.items():
        others = [seat for seat in labels if seat != checker]
        assert sorted(key.split("#")[0] for key in shown) == others  # never its own
        assert listed[checker] == [
            (f"F{n}", labels[key.split("#")[0]], titles[key.split("#")[0]])
            for n, key in enumerate(shown, 1)
        ]
        first, second = shown
        assert state.verdicts[checker] == {
            first: {"verdict": "dispute", "reason": "dispute: F1"},
            second: {"verdict": "confirm", "reason": "confirm: F2"},
        }
    result = run.result
    validate_review(result)
    for seat, title in titles.items():
        found = titled(result, title)
        checkers = [c for c in labels if c != seat]
        confirmed = [c for c in checkers if state.shown[c][1] == f"{seat}#1"]
        assert found["raised_by"] == [seat] and found["confirmed_by"] == confirmed
        assert [d["reviewer"] for d in found["disputed_by"]] == [
            c for c in checkers if c not in confirmed
        ]


def test_the_recorded_order_of_a_cross_check_is_listed_again_on_resume(root):
    by_seat = {"reviewer-sim": [SHELL, SQL], "reviewer-sim-2": [TODO]}
    with review_by_hand(root, "sim", "sim") as review:
        # A resumed run: the first reviewer's list was recorded before it stopped.
        review.state.shown["reviewer-sim-2"] = ["reviewer-sim#2", "reviewer-sim#1"]
        dispatch = run_scripted(review, raises(by_seat))
    (asked,) = [v for s, p, v in dispatch.asked if (s, p) == ("reviewer-sim-2", "CROSS_CHECK")]
    assert [f["title"] for f in asked["findings"]] == [SQL["title"], SHELL["title"]]


def test_the_shuffled_orders_follow_the_seed_and_the_checkers_label(root):
    many = [{**SHELL, "line": n, "title": f"Problem number {n} here"} for n in range(1, 9)]
    orders = []
    for seed in (7, 7, 8):
        with review_by_hand(root, "sim", "sim", "sim", seed=seed) as review:
            for seat in ("reviewer-sim", "reviewer-sim-2", "reviewer-sim-3"):
                review.answer(seat, "REVIEW", findings(*many))
            assert review.state.seed == seed
            orders.append({c: review.lead._shuffled_for(c) for c in review.state.labels})
    assert orders[0] == orders[1]  # the same seed, the same orders
    assert orders[0] != orders[2]
    first = orders[0]
    assert first["reviewer-sim"] != first["reviewer-sim-2"]  # each checker its own
    assert sorted(first["reviewer-sim"]) == sorted(
        f"{seat}#{n}" for seat in ("reviewer-sim-2", "reviewer-sim-3") for n in range(1, 9)
    )


def test_each_checkers_order_is_the_runs_seed_and_its_label_shuffled_as_the_spec_says(root):
    """protocol.md section 9: `random.Random` seeded by the run's seed and the reviewer's
    label, so a record's seed gives every list again."""
    import random

    many = [{**SHELL, "line": n, "title": f"Problem number {n} here"} for n in range(1, 6)]
    with review_by_hand(root, "sim", "sim", "sim", seed=11) as review:
        for seat in review.state.labels:
            review.answer(seat, "REVIEW", findings(*many))
        for checker, label in review.state.labels.items():
            keys = [f"{s}#{n}" for s in review.state.labels if s != checker for n in range(1, 6)]
            random.Random(f"11:{label}").shuffle(keys)
            assert review.lead._shuffled_for(checker) == keys


def test_seed_zero_is_the_seed_and_no_seed_is_the_codes(root):
    with review_by_hand(root, "sim", "sim", seed=0) as review:
        assert review.state.seed == 0
    with review_by_hand(root, "sim", "sim") as first, review_by_hand(root, "sim", "sim") as again:
        assert first.state.seed == again.state.seed  # the same code, the same seed
    (root / "service.py").write_text(SERVICE + "# changed\n")
    with review_by_hand(root, "sim", "sim") as changed:
        assert changed.state.seed != first.state.seed


def test_an_unreadable_review_is_repaired_once_quoting_the_answer_and_the_task(root):
    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if seat == "reviewer-sim-2" and phase == "REVIEW":
            return "It looks risky to me."
        return raises({"reviewer-sim": [SHELL], "reviewer-sim-2": [SQL]})(seat, phase, values)

    with review_by_hand(root, "sim", "sim", fail_on="critical") as review:
        dispatch = run_scripted(review, script)
        run = review.finish()
    phases = [(s, p) for s, p, _ in dispatch.asked]
    assert phases.count(("reviewer-sim-2", "REVIEW_REPAIR")) == 1
    assert ("reviewer-sim", "REVIEW_REPAIR") not in phases
    (repair,) = [v for s, p, v in dispatch.asked if p == "REVIEW_REPAIR"]
    assert repair["previous"] == "It looks risky to me."
    assert repair["original"] == "ACTION: REVIEW\nthe task of reviewer-sim-2-r1\n"
    assert repair["problem"]
    result = run.result
    second = result["reviewers"][1]
    assert (second["review"], second["repairs"], second["findings_raised"]) == ("ok", 1, 1)
    assert second["calls"] == 3  # its review, the repair, its cross-check
    assert run.exit_code == 6  # the repaired review's critical finding, confirmed
    assert "REVIEW reviewer-sim-2: unreadable JSON" in review.progress.getvalue()
    # The record lists the calls in run order: the reviews, the repair, the cross-checks.
    assert [(c["reviewer"], c["phase"]) for c in result["calls"]] == [
        ("reviewer-sim", "REVIEW"), ("reviewer-sim-2", "REVIEW"),
        ("reviewer-sim-2", "REVIEW_REPAIR"), ("reviewer-sim", "CROSS_CHECK"),
        ("reviewer-sim-2", "CROSS_CHECK"),
    ]  # fmt: skip


def test_each_ask_states_its_word_limit_and_a_repair_its_phases(root):
    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if phase in ("REVIEW", "CROSS_CHECK") and seat == "reviewer-sim":
            return "not JSON"
        return raises({"reviewer-sim": [SHELL], "reviewer-sim-2": [SQL]})(seat, phase, values)

    with review_by_hand(root, "sim", "sim") as review:
        dispatch = run_scripted(review, script)
    limits = {(s, p): v["limit"] for s, p, v in dispatch.asked}
    assert limits == {
        ("reviewer-sim", "REVIEW"): 1500, ("reviewer-sim-2", "REVIEW"): 1500,
        ("reviewer-sim", "REVIEW_REPAIR"): 1500, ("reviewer-sim", "CROSS_CHECK"): 800,
        ("reviewer-sim-2", "CROSS_CHECK"): 800, ("reviewer-sim", "CROSS_CHECK_REPAIR"): 800,
    }  # fmt: skip


def test_a_review_unreadable_twice_is_failed_and_the_review_degraded(root):
    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if seat == "reviewer-sim-2":
            return "No JSON here." if phase == "REVIEW" else "Still none."
        return raises({"reviewer-sim": [SHELL]})(seat, phase, values)

    with review_by_hand(root, "sim", "sim", fail_on="high") as review:
        dispatch = run_scripted(review, script)
        run = review.finish()
    assert [(s, p) for s, p, _ in dispatch.asked] == [
        ("reviewer-sim", "REVIEW"),
        ("reviewer-sim-2", "REVIEW"),
        ("reviewer-sim-2", "REVIEW_REPAIR"),
    ]  # fmt: skip  (nothing to cross-check: the other review was never read)
    result = run.result
    validate_review(result)
    failed = result["reviewers"][1]
    assert (failed["status"], failed["review"], failed["cross_check"]) == (
        "failed", "failed", "skipped",
    )  # fmt: skip
    assert failed["problems"]["review"].startswith("unreadable JSON even after one repair: ")
    assert (result["status"], result["answered"], run.exit_code) == ("degraded", 1, 6)
    assert titled(result, SHELL["title"])["reviewers"] == 1  # support out of who answered
    assert "only 1 of 2 reviewers answered: nothing was cross-checked" in result["warnings"]
    assert any(
        w.startswith("reviewer-sim-2's review failed (unreadable JSON even after one repair")
        for w in result["warnings"]
    )
    assert "REVIEW reviewer-sim-2: unreadable JSON again; recorded as failed" in (
        review.progress.getvalue()
    )


def test_a_cross_check_unreadable_twice_fails_only_the_cross_check(root):
    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if seat == "reviewer-sim-2" and phase.startswith("CROSS_CHECK"):
            return "I agree with most of them."
        return raises({"reviewer-sim": [SHELL], "reviewer-sim-2": [SQL]})(seat, phase, values)

    with review_by_hand(root, "sim", "sim", fail_on="high") as review:
        dispatch = run_scripted(review, script)
        run = review.finish()
    assert [p for s, p, _ in dispatch.asked if s == "reviewer-sim-2"] == [
        "REVIEW", "CROSS_CHECK", "CROSS_CHECK_REPAIR",
    ]  # fmt: skip
    result = run.result
    second = result["reviewers"][1]
    assert (second["status"], second["review"], second["cross_check"]) == ("ok", "ok", "failed")
    assert second["problems"]["cross_check"].startswith("unreadable JSON even after one repair")
    assert result["status"] == "completed" and result["answered"] == 2
    shell = titled(result, SHELL["title"])
    assert (shell["support"], shell["confirmed_by"], shell["disputed_by"]) == (1, [], [])
    assert run.exit_code == 6  # the SQL finding: raised by one, confirmed by the other
    assert any(w.startswith("reviewer-sim-2's cross-check failed (") for w in result["warnings"])


def test_a_failed_call_is_not_repaired_and_its_reason_is_shown(root):
    def script(seat: str, phase: str, values: dict[str, Any]):
        if seat == "reviewer-sim-3" and phase == "REVIEW":
            return ("timeout", "")
        return raises({"reviewer-sim": [SHELL], "reviewer-sim-2": [SHELL]})(seat, phase, values)

    with review_by_hand(root, "sim", "sim", "sim", fail_on="high") as review:
        dispatch = run_scripted(review, script)
        run = review.finish()
    assert [p for s, p, _ in dispatch.asked if s == "reviewer-sim-3"] == ["REVIEW"]
    result = run.result
    hung = result["reviewers"][2]
    assert (hung["status"], hung["review"], hung["cross_check"]) == ("failed", "failed", "skipped")
    assert hung["problems"]["review"] == "timeout: timeout after 5 s"
    shell = titled(result, SHELL["title"])
    assert (shell["support"], shell["reviewers"], shell["blocking"]) == (2, 2, True)
    assert (result["status"], run.exit_code) == ("completed", 6)
    markdown = review.record_file("review.md").read_text()
    assert (
        "| reviewer-sim-3 (sim) | failed | skipped | 0 | timeout: timeout after 5 s |" in markdown
    )


def test_a_review_that_read_no_review_fails_with_exit_3_and_writes_no_output(root):
    with review_by_hand(root, "sim", "sim", fail_on="low", output="out/x.sarif") as review:
        run_scripted(review, lambda seat, phase, values: "no JSON at all")
        assert review.error is not None
        assert "no reviewer's review could be read" in str(review.error)
        run = review.finish(review.error)
        result = run.result
        assert (run.exit_code, result["status"], result["exit_code"]) == (3, "failed", 3)
        assert result["gate"]["passed"] is False and result["answered"] == 0
        assert not (root / "out").exists()  # no empty SARIF to close a repository's alerts
        assert json.loads(review.record_file("result.json").read_text()) == result


def test_a_finished_review_writes_its_files_and_the_output_in_its_suffixs_form(root):
    with review_by_hand(root, "sim", "sim", fail_on="high", output="reports/c.sarif") as review:
        run_scripted(review, raises({"reviewer-sim": [SHELL, TODO], "reviewer-sim-2": [SHELL]}))
        run = review.finish()
        record = review.ready.record
    assert run.exit_code == 6 and run.error is None
    sarif = json.loads((root / "reports" / "c.sarif").read_text())
    validate_sarif(sarif)
    assert sarif == json.loads((record.file("review.sarif")).read_text())
    assert json.loads(record.file("result.json").read_text()) == run.result
    markdown = record.file("review.md").read_text()
    assert markdown.startswith("# REVIEW (SIMULATED): service.py\n")
    assert "gate high (majority): FAILED (F1)" in markdown


def test_findings_out_of_scope_or_past_the_end_are_placed_and_warned_of(root):
    outside = {**SHELL, "file": "../../etc/passwd", "title": "Password file exposed"}
    other = {**SHELL, "file": "setup.py", "title": "Setup runs a shell"}
    late = {**TODO, "line": 400}
    by_seat = {"reviewer-sim": [outside, other, late], "reviewer-sim-2": [outside, other]}
    with review_by_hand(root, "sim", "sim", fail_on="low") as review:
        run_scripted(review, raises(by_seat))
        run = review.finish()
    result = run.result
    passwd = titled(result, "Password file exposed")
    assert (passwd["out_of_scope"], passwd["blocking"]) == (
        "names a path outside the project", False,
    )  # fmt: skip
    setup = titled(result, "Setup runs a shell")
    assert (setup["out_of_scope"], setup["blocking"]) == (
        "names a file that was not reviewed",
        False,
    )
    todo = titled(result, TODO["title"])
    assert (todo["line"], todo["out_of_scope"], todo["blocking"]) == (16, None, True)
    assert result["gate"]["blocking"] == [todo["id"]] and run.exit_code == 6
    assert result["counts"] == {"critical": 0, "high": 0, "medium": 0, "low": 1}
    warnings = result["warnings"]
    assert f"{todo['id']} names line 400 of service.py, which has 16 lines: shown at line 16" in (
        warnings
    )
    assert (
        f"{passwd['id']} (../../etc/passwd) names a path outside the project: kept in the "
        "record only"
    ) in warnings


def test_left_out_findings_and_verdicts_not_understood_are_warned_of_by_seat(root):
    def script(seat: str, phase: str, values: dict[str, Any]) -> str:
        if phase == "REVIEW":
            return findings(SHELL, {"severity": "huge", "title": "x"})
        return json.dumps({"verdicts": [{"id": "F1", "verdict": "confirm"},
                                        {"id": "F9", "verdict": "confirm"}]})  # fmt: skip

    with review_by_hand(root, "sim", "sim") as review:
        run_scripted(review, script)
        warnings = review.finish().result["warnings"]
    assert "reviewer-sim: finding 2 left out: unknown severity 'huge'" in warnings
    assert "reviewer-sim-2: verdict 'F9': 'confirm' not understood" in warnings


def test_settle_names_what_an_asked_reviewer_never_answered(root):
    with review_by_hand(root, "sim", "sim", "sim") as review:
        lead = review.lead
        for seat in review.state.labels:
            lead.roster.ready[seat] = None  # type: ignore[assignment]
        review.answer("reviewer-sim", "REVIEW", findings(SHELL))
        review.answer("reviewer-sim-2", "REVIEW", findings(SQL))
        review.show("reviewer-sim")
        review.answer("reviewer-sim-2", "CROSS_CHECK", verdicts())  # shown nothing: no ids
        asyncio.run(lead.settle())
        assert review.state.failed == {
            "reviewer-sim": {"CROSS_CHECK": "no answer"},
            "reviewer-sim-3": {"REVIEW": "no answer"},
        }
        assert set(review.state.reviews) == {"reviewer-sim", "reviewer-sim-2"}


def test_a_review_read_after_a_failure_clears_it_and_a_later_failure_drops_it(root):
    with review_by_hand(root, "sim", "sim") as review:
        assert review.answer("reviewer-sim", "REVIEW", "garbage") is not None  # earns a repair
        assert "reviewer-sim" not in review.state.failed
        assert review.answer("reviewer-sim", "REVIEW_REPAIR", "garbage again") is None
        assert "REVIEW" in review.state.failed["reviewer-sim"]
        review.answer("reviewer-sim", "REVIEW_REPAIR", findings(SHELL, SQL))
        assert review.state.failed["reviewer-sim"] == {}
        assert len(review.state.reviews["reviewer-sim"]) == 2
        review.answer("reviewer-sim", "REVIEW", "", status="error")
        assert "reviewer-sim" not in review.state.reviews
        assert review.state.failed["reviewer-sim"]["REVIEW"] == "error: no answer"


def test_a_late_answer_is_read_as_an_answer_and_a_failed_one_is_not(root):
    with review_by_hand(root, "sim", "sim", "sim") as review:
        review.answer("reviewer-sim", "REVIEW", findings(SHELL, SQL), status="late")
        review.answer("reviewer-sim-2", "REVIEW", findings(SHELL), status="timeout")
        review.answer("reviewer-sim-3", "REVIEW", findings(TODO))
        assert list(review.state.reviews) == ["reviewer-sim", "reviewer-sim-3"]
        assert review.state.failed == {"reviewer-sim-2": {"REVIEW": "timeout: no answer"}}
        lines = review.progress.getvalue().splitlines()
        assert any(line.endswith("REVIEW reviewer-sim: 2 findings read") for line in lines)
        assert any(line.endswith("REVIEW reviewer-sim-3: 1 finding read") for line in lines)


def test_the_setup_line_names_the_reviewers_files_redactions_gate_and_seed(root):
    with (root / "service.py").open("a") as service:
        service.write('TOKEN = "ghp_' + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + '"\n')
    for flags, gate in (({"fail_on": "medium"}, "medium"), ({}, "never")):
        with review_by_hand(root, "sim", "sim", seed=4, **flags) as review:
            (line,) = [x for x in review.progress.getvalue().splitlines() if "setup (" in x]
        assert line.endswith(
            "setup (SIMULATED): reviewers=sim,sim files=1 (17 lines, 1 redaction) "
            f"fail-on={gate} seed=4"
        ), line


def test_the_merged_line_reports_what_was_merged_and_the_gate(root):
    with review_by_hand(root, "sim", "sim", fail_on="medium", gate="any") as review:
        run_scripted(review, raises({"reviewer-sim": [SHELL, TODO], "reviewer-sim-2": [SHELL]}))
    lines = review.progress.getvalue().splitlines()
    merged = [line for line in lines if "merged:" in line]
    assert [re.sub(r"^\[\d+:\d+\] ", "", line) for line in merged] == [
        "merged: 2 finding(s) from 3 raised by 2/2 reviewers; 1 blocking at --fail-on medium (any)"
    ]
