"""The gate a team chooses (docs/spec/protocol.md section 9, "Gate"): the same findings,
reviewed by the same four simulated reviewers, block differently under `--gate majority`,
`any` and `unanimous`, and under council.yaml's `review.gate` by severity; the rule applied is
in the result JSON, the Markdown and the SARIF run properties."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from council.review.findings import Finding, Verdict
from council.review.merge import finding_key, gate, merge
from review.helpers import finding_titled, result_of, review_project, validate_review

# Four reviewers; SIM_ONLY names the simulated models that report a line (council.sim.review):
# every other reviewer disputes it in the cross-check.
SERVICE = """\
import os


def run(command):
    os.system(command)


def load(blob):
    return pickle.loads(blob)  # SIM_ONLY(alpha,beta)


def calc(text):
    return eval(text)  # SIM_ONLY(alpha,beta,gamma)


def find(db, name):
    return db.execute(f"SELECT * FROM users WHERE name = '{name}'")  # SIM_ONLY(alpha)
"""
REVIEWERS = "sim:alpha,sim:beta,sim:gamma,sim:delta"
# Support out of 4: shell 4 (all), eval 3, pickle 2, SQL 1 and disputed by the other three.
TITLES = {
    "shell": "Shell command",
    "eval": "Dynamic code execution",
    "pickle": "Unpickling",
    "sql": "SQL query",
}
ALL = ("low", "medium", "high", "critical")


@pytest.mark.parametrize(
    ("args", "config", "rules", "blocking", "exit_code"),
    [
        pytest.param(
            ("--gate", "majority"), None, dict.fromkeys(ALL, "majority"),
            {"shell", "eval"}, 6, id="majority: 3 of 4 blocks, 2 of 4 does not",
        ),
        pytest.param(
            ("--gate", "any"), None, dict.fromkeys(ALL, "any"),
            {"shell", "eval", "pickle"}, 6, id="any: 2 of 4 blocks, a disputed lone one does not",
        ),
        pytest.param(
            ("--gate", "unanimous"), None, dict.fromkeys(ALL, "unanimous"),
            {"shell"}, 6, id="unanimous: only 4 of 4 blocks",
        ),
        pytest.param(
            (), "review:\n  gate: {critical: any, high: unanimous}\n",
            {"low": "majority", "medium": "majority", "high": "unanimous", "critical": "any"},
            {"shell"}, 6, id="council.yaml by severity",
        ),
        pytest.param(
            ("--gate", "any"), "review:\n  gate: {high: unanimous}\n", dict.fromkeys(ALL, "any"),
            {"shell", "eval", "pickle"}, 6, id="--gate over council.yaml",
        ),
    ],
)  # fmt: skip
def test_the_same_findings_gate_differently_under_each_rule(
    tmp_path: Path, args, config, rules, blocking, exit_code
):
    project = review_project(tmp_path, SERVICE)
    if config:
        project.write_config(config)
    run = project.run(
        "review", "--files", "service.py", "--with", REVIEWERS, "--fail-on", "high",
        "--format", "json", *args,
    )  # fmt: skip
    result = result_of(run)
    assert run.returncode == exit_code, run.stderr
    validate_review(result)
    found = {name: finding_titled(result, words) for name, words in TITLES.items()}
    assert {name: f["support"] for name, f in found.items()} == {
        "shell": 4, "eval": 3, "pickle": 2, "sql": 1,
    }  # fmt: skip
    assert len(found["sql"]["disputed_by"]) == 3
    assert result["gate"]["rules"] == rules
    assert set(result["gate"]["blocking"]) == {found[name]["id"] for name in blocking}
    assert {name for name, f in found.items() if f["blocking"]} == blocking
    assert {f["gate"] for f in result["findings"]} <= set(rules.values())
    record = project.record()
    sarif = json.loads((record / "review.sarif").read_text())
    assert sarif["runs"][0]["properties"]["gate"] == rules
    status = (record / "review.md").read_text().splitlines()[2]
    shown = ", ".join(sorted(result["gate"]["blocking"], key=lambda i: int(i[1:])))
    words = rules["low"] if len(set(rules.values())) == 1 else "critical any, high unanimous, "
    assert f"gate high ({words}" in status and f"FAILED ({shown})" in status


def test_a_disputed_lone_critical_finding_does_not_block_under_any(tmp_path: Path):
    project = review_project(tmp_path, SERVICE)
    run = project.run(
        "review", "--files", "service.py", "--with", REVIEWERS, "--fail-on", "critical",
        "--gate", "any",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "gate critical (any): passed" in run.stdout


def test_gate_refuses_an_unknown_rule(tmp_path: Path):
    project = review_project(tmp_path, SERVICE)
    run = project.run("review", "--files", "service.py", "--sim", "--gate", "most")
    assert run.returncode == 2
    assert "--gate" in run.stderr and "majority" in run.stderr


ORDER = ["reviewer-a", "reviewer-b", "reviewer-c"]


def lone(severity: str = "high") -> Finding:
    return Finding(
        severity=severity, kind="correctness", file="a.py", line=3, end_line=None,
        title="Off by one in the loop bound", detail="", suggestion="", confidence=None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("verdicts", "majority", "any_", "unanimous"),
    [
        pytest.param({}, False, True, False, id="raised by one, nobody disputed"),
        pytest.param({"reviewer-b": "dispute"}, False, False, False, id="raised by one, disputed"),
        pytest.param(
            {"reviewer-b": "confirm", "reviewer-c": "dispute"}, True, True, False,
            id="two of three, one dispute",
        ),
        pytest.param(
            {"reviewer-b": "confirm", "reviewer-c": "confirm"}, True, True, True, id="all three"
        ),
    ],
)  # fmt: skip
def test_the_rules_on_one_finding(verdicts, majority, any_, unanimous):
    said = {
        seat: {finding_key("reviewer-a", 1): Verdict(verdict, "because")}
        for seat, verdict in verdicts.items()
    }
    merged = merge({"reviewer-a": [lone()]}, said, ORDER, ORDER)
    for rule, blocks in (("majority", majority), ("any", any_), ("unanimous", unanimous)):
        assert gate(merged, "high", dict.fromkeys(ALL, rule)) == (["F1"] if blocks else []), rule
    assert gate(merged, "critical", dict.fromkeys(ALL, "any")) == []  # below --fail-on
