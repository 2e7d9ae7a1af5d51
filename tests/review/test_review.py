"""`council review` end to end on the simulator, run as a user runs it: the record, the blind
round in parallel, anonymity, support and the gate, repairs, timeouts, and the three outputs
against their schemas (docs/spec/commands.md "council review")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from council.review.sarif import FINGERPRINT
from project import Project, gated_sim, late_ready_sim
from review.helpers import (
    MAJORITY_RULES,
    SERVICE,
    finding_titled,
    result_of,
    review_project,
    reviewer,
    validate_review,
    validate_sarif,
)

# The isolation header every prompt starts with, naming the work as a review, not a debate.
HEADER = "IMPORTANT: You are an independent analyst in a structured technical code review.\n"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return review_project(tmp_path)


def test_a_simulated_review_writes_its_record_and_three_valid_outputs(project):
    run = project.run("review", "--files", "service.py", "--sim", "--format", "json")
    result = result_of(run)
    assert run.returncode == 0  # no --fail-on: nothing blocks
    validate_review(result)
    record = project.record()
    assert record.name.startswith("review-") and result["id"] == record.name
    assert result["status"] == "completed" and result["simulated"] is True
    assert result["subject"] == "service.py" and result["answered"] == 2
    assert {r["name"] for r in result["reviewers"]} == {"reviewer-sim", "reviewer-sim-2"}
    assert json.loads((record / "result.json").read_text()) == result
    for stem in ("reviewer-sim-r1", "reviewer-sim-2-r1", "reviewer-sim-r2", "reviewer-sim-2-r2"):
        for suffix in ("prompt.md", "response.md"):
            assert (record / f"{stem}-{suffix}").is_file(), f"{stem}-{suffix}"
        prompt = (record / f"{stem}-prompt.md").read_text()
        assert prompt.startswith(HEADER)  # the isolation header, as every prompt
        assert "- Answer only the code review task below, directly, in at most" in prompt
        assert "debate" not in prompt.lower()
    blind = {(record / f"{s}-r1-prompt.md").read_text() for s in ("reviewer-sim", "reviewer-sim-2")}
    assert len(blind) == 1  # the same blind prompt, byte for byte, for every reviewer
    assert [f["severity"] for f in result["findings"]] == ["critical", "high", "medium", "low"]
    sql = finding_titled(result, "SQL")
    assert (sql["file"], sql["line"], sql["kind"]) == ("service.py", 9, "security")
    assert sql["raised_by"] == ["reviewer-sim", "reviewer-sim-2"] and sql["support"] == 2
    sarif = json.loads((record / "review.sarif").read_text())
    validate_sarif(sarif)
    assert (record / "review.md").read_text().startswith("# REVIEW (SIMULATED): service.py")
    state = json.loads((record / "state.json").read_text())
    assert isinstance(state["seed"], int) and state["seed"] == result["seed"]
    assert run.stderr.strip().endswith(f"saved: .scratchpad/{record.name}/")


def test_the_sarif_output_has_a_rule_per_kind_locations_and_fingerprints(project):
    run = project.run("review", "--files", "service.py", "--sim", "--format", "sarif")
    assert run.returncode == 0, run.stderr
    sarif = json.loads(run.stdout)
    validate_sarif(sarif)
    (sarif_run,) = sarif["runs"]
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    assert rules == ["council/security", "council/reliability", "council/maintainability"]
    results = sarif_run["results"]
    assert len(results) == 4
    for item in results:
        assert rules[item["ruleIndex"]] == item["ruleId"]
        location = item["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "service.py"
        assert location["region"]["startLine"] >= 1
        assert re.fullmatch(r"[0-9a-f]{32}", item["partialFingerprints"][FINGERPRINT])
        assert item["properties"]["raisedBy"] and item["properties"]["support"] == 2
    assert [r["level"] for r in results] == ["error", "error", "warning", "note"]


def test_the_blind_reviews_run_in_parallel(project):
    run = project.run(
        "review", "--files", "service.py", "--sim", "--format", "json",
        COUNCIL_SIM_DELAY="1.5", COUNCIL_SIM_PHASES="REVIEW",
    )  # fmt: skip
    calls = [c for c in result_of(run)["calls"] if c["phase"] == "REVIEW"]
    assert len(calls) == 2
    # Each call's interval, as the record has it: its start and its attempts' spans.
    spans = [(c["started_at"], c["started_at"] + sum(s[1] for s in c["spans"])) for c in calls]
    assert max(start for start, _ in spans) < min(end for _, end in spans)


def test_a_reviewer_that_becomes_ready_late_still_reviews_and_cross_checks(project):
    """Its READY probe answers only once the other reviewer's REVIEW call has started: the
    REVIEW went out to the one that was READY without waiting for it."""
    project.write_config("clis:\n" + late_ready_sim(project, "lateready", after="REVIEW"))
    run = project.run(
        "review", "--files", "service.py", "--with", "sim,lateready", "--format", "json"
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    validate_review(result)
    late = reviewer(result, "reviewer-lateready")
    assert (late["review"], late["cross_check"]) == ("ok", "ok")
    transcript = project.transcript()
    first = next(m["seq"] for m in transcript if m["kind"] == "dm" and m["to"] == "reviewer-sim")
    ready = next(
        m["seq"] for m in transcript if m["kind"] == "ready" and m["from"] == "reviewer-lateready"
    )
    asks = [m for m in transcript if m["kind"] == "dm" and m["to"] == "reviewer-lateready"]
    assert [m["action"] for m in asks] == ["REVIEW", "CROSS_CHECK"]
    assert first < ready < asks[0]["seq"]
    assert "ready 2/2" in run.stderr


def test_no_prompt_names_another_reviewers_seat_cli_or_model(project):
    project.write_config("clis:\n  falcon:\n    adapter: sim\n  heron:\n    adapter: sim\n")
    run = project.run(
        "review", "--files", "service.py", "--with", "falcon:model-one,heron:model-two,sim",
        "--format", "json",
    )  # fmt: skip
    result = result_of(run)
    assert result["answered"] == 3
    named = {"falcon", "heron", "model-one", "model-two", "sim"}
    named |= {r["name"] for r in result["reviewers"]}
    forbidden = re.compile(r"\b(" + "|".join(sorted(map(re.escape, named))) + r")\b", re.I)
    prompts = sorted(project.record().glob("*-prompt.md"))
    assert len(prompts) == 6  # three blind reviews, three cross-checks
    for prompt in prompts:
        body = prompt.read_text().split("in at most", 1)[1]  # past the header's CLAUDE.md
        assert not forbidden.findall(body), f"{prompt.name} names {forbidden.findall(body)}"
    cross_check = (project.record() / "reviewer-falcon-r2-prompt.md").read_text()
    assert "(from Reviewer B)" in cross_check and "(from Reviewer C)" in cross_check
    assert "(from Reviewer A)" not in cross_check  # its own findings are not listed
    state = json.loads((project.record() / "state.json").read_text())
    assert state["labels"] == {
        "reviewer-falcon": "Reviewer A",
        "reviewer-heron": "Reviewer B",
        "reviewer-sim": "Reviewer C",
    }
    markdown = (project.record() / "review.md").read_text()
    assert "reviewer-falcon (falcon: model-one served)" in markdown  # the real seats and models


def test_each_cross_check_lists_the_findings_in_an_order_of_its_own_from_the_recorded_seed(
    project,
):
    args = ("review", "--files", "service.py", "--sim", "--with", "sim,sim,sim", "--seed", "7")
    assert project.run(*args).returncode == 0
    assert project.run(*args).returncode == 0
    first, again = (json.loads((r / "state.json").read_text()) for r in project.records())
    assert first["seed"] == again["seed"] == 7
    assert first["shown"] == again["shown"]  # the same seed, the same orders
    state = first
    orders = list(state["shown"].values())
    assert len(orders) == 3 and all(len(order) == 8 for order in orders)  # 4 from each other
    assert any(order != sorted(order) for order in orders)  # shuffled, not in seat order
    prompt = (project.records()[0] / "reviewer-sim-r2-prompt.md").read_text()
    listed = re.findall(r"^- title: (.+)$", prompt, re.M)
    titles = [
        state["reviews"][key.split("#")[0]][int(key.split("#")[1]) - 1]["title"]
        for key in state["shown"]["reviewer-sim"]
    ]
    assert listed == titles  # F1, F2, ... exactly in the recorded order


def gated(project: Project, marker: str, fail_on: str = "high"):
    project.root.joinpath("service.py").write_text(
        f"import os\n\n\ndef run(command):\n    os.system(command)  # {marker}\n"
    )
    return project.run(
        "review", "--files", "service.py", "--with", "sim:alpha,sim:beta,sim:gamma",
        "--fail-on", fail_on, "--format", "json",
    )  # fmt: skip


def test_a_finding_one_reviewer_raises_survives_with_its_support_and_does_not_block(project):
    run = gated(project, "SIM_ONLY(alpha)")
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    shell = finding_titled(result, "Shell command")
    assert shell["raised_by"] == ["reviewer-sim"] and shell["confirmed_by"] == []
    assert [d["reviewer"] for d in shell["disputed_by"]] == ["reviewer-sim-2", "reviewer-sim-3"]
    assert all(d["reason"] for d in shell["disputed_by"])
    assert (shell["support"], shell["reviewers"], shell["majority"]) == (1, 3, False)
    assert result["gate"] == {
        "fail_on": "high",
        "rules": MAJORITY_RULES,
        "blocking": [],
        "passed": True,
    }
    markdown = (project.record() / "review.md").read_text()
    assert "support 1 of 3 (no majority)" in markdown
    assert "- Disputed by:\n  - reviewer-sim-2: [SIMULATED] Nothing at service.py:5" in markdown


def test_a_finding_a_majority_supports_at_or_above_fail_on_exits_6(project):
    run = gated(project, "SIM_ONLY(alpha,beta)")
    assert run.returncode == 6, run.stderr
    result = result_of(run)
    shell = finding_titled(result, "Shell command")
    assert shell["raised_by"] == ["reviewer-sim", "reviewer-sim-2"]
    assert (shell["support"], shell["majority"], shell["blocking"]) == (2, True, True)
    assert result["gate"]["blocking"] == [shell["id"]] and result["exit_code"] == 6
    assert f"blocking findings at --fail-on high: {shell['id']}" in run.stderr
    validate_review(result)


def test_a_majority_below_fail_on_does_not_block(project):
    run = gated(project, "SIM_ONLY(alpha,beta)", fail_on="critical")
    assert run.returncode == 0, run.stderr
    assert finding_titled(result_of(run), "Shell command")["majority"] is True


def test_garbage_from_the_simulator_gets_one_repair_and_then_counts(project):
    project.write_config(
        "clis:\n  sim-garbled:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_WORDS: '9'\n      COUNCIL_SIM_PHASES: REVIEW\n"
    )
    run = project.run(
        "review", "--files", "service.py", "--with", "sim,sim-garbled", "--format", "json"
    )
    result = result_of(run)
    garbled = reviewer(result, "reviewer-sim-garbled")
    assert (garbled["review"], garbled["repairs"], garbled["findings_raised"]) == ("ok", 1, 4)
    assert (project.record() / "reviewer-sim-garbled-r1-repair-prompt.md").is_file()
    repair = (project.record() / "reviewer-sim-garbled-r1-repair-prompt.md").read_text()
    assert repair.startswith("IMPORTANT: You are an independent analyst")
    assert "ACTION: REVIEW_REPAIR" in repair and "could not be read" in repair
    assert project.sim_calls() == {"REVIEW": 2, "REVIEW_REPAIR": 1, "CROSS_CHECK": 2}


def hung_config(project: Project) -> None:
    project.write_config(
        "debate:\n  hard_timeout_factor: 1.5\n"
        "clis:\n  sim-hung:\n    adapter: sim\n    timeout_s: 2\n    env:\n"
        "      COUNCIL_SIM_HANG: '1'\n      COUNCIL_SIM_IGNORE_SIGTERM: '1'\n"
        "      COUNCIL_SIM_PHASES: REVIEW\n"
    )


def test_a_reviewer_that_hangs_is_left_behind_and_recorded_as_timed_out(project):
    hung_config(project)
    run = project.run(
        "review", "--files", "service.py", "--with", "sim,sim,sim-hung", "--format", "json"
    )
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    assert result["status"] == "completed" and result["answered"] == 2
    hung = reviewer(result, "reviewer-sim-hung")
    assert (hung["status"], hung["review"], hung["cross_check"]) == ("failed", "failed", "skipped")
    assert hung["problems"]["review"].startswith("timeout")
    assert all(f["reviewers"] == 2 for f in result["findings"])  # support out of who answered
    transcript = project.transcript()
    cross_check = next(m for m in transcript if m["action"] == "CROSS_CHECK")
    late = next(
        m for m in transcript if m["kind"] == "broadcast" and m["from"] == "reviewer-sim-hung"
    )
    assert cross_check["seq"] < late["seq"]  # the cross-check went out while it still hung
    assert late["meta"]["status"] == "timeout"
    assert "progressive wait" in run.stderr
    assert any("reviewer-sim-hung's review failed" in w for w in result["warnings"])


def test_a_reviewer_whose_review_came_late_cross_checks_while_the_cross_check_collects(project):
    """A straggler's REVIEW (1.25 s, soft timeout 1 s) is in while the others' cross-checks
    (2.5 s) still run: its review is read and it is asked to cross-check then, never while its
    review was still out; its verdicts count (it disputes a finding only `alpha` raises)."""
    with (project.root / "service.py").open("a") as service:
        service.write("value = eval(input())  # SIM_ONLY(alpha)\n")
    project.write_config(
        "clis:\n"
        "  sim-late:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_DELAY: '1.25'\n      COUNCIL_SIM_PHASES: REVIEW\n"
        "  sim-slowcheck:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_DELAY: '2.5'\n      COUNCIL_SIM_PHASES: CROSS_CHECK\n"
    )
    run = project.run(
        "review",
        "--files",
        "service.py",
        "--with",
        "sim-slowcheck:alpha,sim-slowcheck,sim-late",
        "--timeout",
        "sim-late=1",
        "--format",
        "json",
    )
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    validate_review(result)
    late = reviewer(result, "reviewer-sim-late")
    assert (late["review"], late["cross_check"], late["calls"]) == ("ok", "ok", 2)
    transcript = project.transcript()
    review = next(
        m for m in transcript if m["kind"] == "broadcast" and m["from"] == "reviewer-sim-late"
    )
    asks = [m for m in transcript if m["kind"] == "dm" and m["to"] == "reviewer-sim-late"]
    assert [m["action"] for m in asks] == ["REVIEW", "CROSS_CHECK"]
    others = [m for m in transcript if m["kind"] == "broadcast" and m["phase"] == "CROSS_CHECK"]
    assert review["seq"] < asks[1]["seq"] < max(m["seq"] for m in others)
    statuses = {(c["reviewer"], c["phase"]): c["status"] for c in result["calls"]}
    assert statuses[("reviewer-sim-late", "REVIEW")] == "late"
    assert statuses[("reviewer-sim-late", "CROSS_CHECK")] == "ok"
    only_alpha = finding_titled(result, "Dynamic code execution")
    assert only_alpha["raised_by"] == ["reviewer-sim-slowcheck"]
    disputes = [d["reviewer"] for d in only_alpha["disputed_by"]]
    assert disputes == ["reviewer-sim-slowcheck-2", "reviewer-sim-late"]
    assert all(f["support"] <= f["reviewers"] == 3 for f in result["findings"])


def test_a_reviewer_still_on_its_review_when_the_cross_check_closes_sits_it_out_busy(project):
    """The straggler's REVIEW answer waits for the others' CROSS_CHECK calls: the
    cross-check closes while it is still reviewing, so it is never asked to check; its late
    review still counts, unchecked."""
    # The hard limit is a bound on a hang (the most council.yaml allows): at the default
    # 1.5 x 3 s a busy machine pushed the gated answer past it.
    project.write_config(
        "debate:\n  hard_timeout_factor: 10\n"
        "clis:\n"
        + gated_sim(project, "sim-gated", phase="REVIEW", after="CROSS_CHECK", pause_s=0.4)
    )
    run = project.run(
        "review",
        "--files",
        "service.py",
        "--with",
        "sim,sim,sim-gated",
        "--timeout",
        "sim-gated=3",
        "--format",
        "json",
    )
    assert run.returncode == 0, run.stderr
    result = result_of(run)
    validate_review(result)
    gated = reviewer(result, "reviewer-sim-gated")
    assert (gated["review"], gated["cross_check"], gated["calls"]) == ("ok", "skipped", 1)
    assert gated["problems"]["cross_check"].startswith("busy: still answering its REVIEW")
    skipped = next(c for c in result["calls"] if c["status"] == "skipped")
    assert (skipped["reviewer"], skipped["phase"], skipped["reason"]) == (
        "reviewer-sim-gated",
        "CROSS_CHECK",
        "busy",
    )
    transcript = project.transcript()
    asks = [m for m in transcript if m["kind"] == "dm" and m["to"] == "reviewer-sim-gated"]
    assert [m["action"] for m in asks] == ["REVIEW"]
    (note,) = [m for m in transcript if m["meta"].get("reason") == "busy"]
    review = next(
        m for m in transcript if m["kind"] == "broadcast" and m["from"] == "reviewer-sim-gated"
    )
    assert note["phase"] == "CROSS_CHECK" and note["seq"] < review["seq"]
    assert review["meta"]["status"] == "ok"
    assert all("reviewer-sim-gated" in f["raised_by"] for f in result["findings"])
    assert "CROSS_CHECK reviewer-sim-gated skipped: busy" in run.stderr


def test_with_one_of_two_reviewers_left_the_review_is_degraded(project):
    hung_config(project)
    run = project.run("review", "--files", "service.py", "--with", "sim,sim-hung")
    assert run.returncode == 5, run.stderr
    assert "Status: degraded · 1 of 2 reviewers answered" in run.stdout
    assert "nothing was cross-checked" in run.stderr


def test_a_diff_is_reviewed_on_the_lines_it_adds(project):
    import subprocess

    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=project.root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=project.root, check=True)
    with (project.root / "service.py").open("a") as service:
        service.write("value = eval(input())\n")
    run = project.run("review", "--diff", "HEAD", "--sim", "--format", "json")
    result = result_of(run)
    assert result["subject"] == "git diff HEAD" and result["diff_ref"] == "HEAD"
    assert [(f["title"], f["line"]) for f in result["findings"]] == [
        ("Dynamic code execution with eval or exec", len(SERVICE.splitlines()) + 1)
    ]
