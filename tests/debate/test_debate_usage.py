"""A debate on the strict fake vendor CLIs and the simulator: result.json keeps what each CLI
reported it used, per seat and in total, and null where a CLI reports nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project, validate

from fakes.install import expected_answer, expected_usage, install_fakes

CLAUDE_COST = 0.0012  # what the fake claude reports each call cost


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def reported(cli: str, prompts: list[str]) -> tuple[int, int]:
    """The tokens the fake `cli` reported for these prompts, added up."""
    counts = [expected_usage(p, expected_answer(cli, p)) for p in prompts]
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def test_result_json_carries_each_seats_usage_and_the_total_and_null_where_none(
    project: Project, tmp_path: Path
):
    fakes = install_fakes(tmp_path / "bin")
    run = project.run(
        "debate",
        QUESTION,
        "--files",
        "app.py",
        "--advocate",
        "claude",
        "--critic",
        "gemini",
        "--lead",
        "claude",
        "--with",
        "sim,codex",
        "--rounds",
        "2",
        "--json",
        # Every call spawned: gemini's warm mode reports no output count (tests/realcli/
        # test_warm.py pins what each warm mode reports).
        "--cold",
        PATH=fakes.path_env(project.env()["PATH"]),
        ANTHROPIC_API_KEY="sk-ant-test",  # claude's seats bill a metered key
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    record = project.record()
    billed = {s["name"]: s["billing"]["mode"] for s in result["seats"]}
    assert billed == {
        "advocate": "api_key",
        "critic": "unknown",  # no key nor login the fake HOME holds
        "proxy-sim": "none",
        "proxy-codex": "unknown",
        "lead": "api_key",
    }
    billing_line = (record / "decision.md").read_text().splitlines()[3]
    assert billing_line == (
        "Billing: advocate, lead: metered API key (ANTHROPIC_API_KEY); critic, proxy-codex: unknown"
    )
    seats = {s["name"]: s for s in result["seats"]}
    assert {s: seats[s]["cli"] for s in seats} == {
        "advocate": "claude",
        "critic": "gemini",
        "proxy-sim": "sim",
        "proxy-codex": "codex",
        "lead": "claude",
    }

    # Each seat: the sum of what its CLI reported for the prompts the record shows it sent.
    seats_of = (("advocate", "claude"), ("critic", "gemini"), ("proxy-codex", "codex"))
    for name, cli in (*seats_of, ("lead", "claude")):
        prompts = [p.read_text() for p in sorted(record.glob(f"{name}-*prompt.md"))]
        assert len(prompts) == seats[name]["calls"] >= 1, name
        tokens_in, tokens_out = reported(cli, prompts)
        cost = round(CLAUDE_COST * len(prompts), 6) if cli == "claude" else None
        assert seats[name]["usage"] == {
            "input_tokens": tokens_in,
            "output_tokens": tokens_out,
            "cost_usd": cost,
        }, name
    # The simulator reports nothing council keeps.
    assert seats["proxy-sim"]["usage"] is None and seats["proxy-sim"]["calls"] >= 1

    # The total: every call the fakes answered, as the fakes themselves recorded them.
    clis = ("claude", "gemini", "codex")
    sent = {cli: [c["stdin"] for c in fakes.calls(cli) if c["stdin"]] for cli in clis}
    counts = [reported(cli, sent[cli]) for cli in clis]
    tokens_in, tokens_out = sum(c[0] for c in counts), sum(c[1] for c in counts)
    assert result["usage"] == {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "cost_usd": round(CLAUDE_COST * len(sent["claude"]), 6),
        # A floor: the seats whose calls reported nothing are named, not guessed at.
        "partial": True,
        "unreported_seats": ["proxy-sim"],
    }
    status = (record / "decision.md").read_text().splitlines()[2]
    assert f"{tokens_in:,} tokens in, {tokens_out:,} out, $" in status
    assert status.endswith("(not counted: proxy-sim, which reported none)")


def test_max_cost_stops_asking_at_the_cap_and_the_decision_says_why(project: Project, tmp_path):
    fakes = install_fakes(tmp_path / "bin")
    run = project.run(
        "debate",
        QUESTION,
        "--files",
        "app.py",
        *("--advocate", "claude", "--critic", "gemini", "--lead", "claude"),
        *("--rounds", "3", "--max-cost", "0.002", "--cold", "--json"),
        PATH=fakes.path_env(project.env()["PATH"]),
    )
    # PROPOSAL and RESPOND cost 2 x $0.0012: the cap is reached before the REBUTTAL
    assert run.returncode == 5, run.stderr  # degraded: no DECISION was synthesized
    result = json.loads(run.stdout)
    validate(result)
    assert result["budget"] == {
        "max_cost_usd": 0.002,
        "spent_usd": 0.0024,
        "stopped": "the cost cap of $0.0020 was reached ($0.0024 reported) before REBUTTAL: "
        "no more calls were asked",
        "unpriced_seats": ["critic"],  # gemini prices nothing: the cap cannot see it
    }
    phases = {(c["seat"], c["phase"]) for c in result["contributions"]}
    assert ("critic", "REBUTTAL") not in phases and ("advocate", "FINAL_SUMMARY") not in phases
    assert len([c for c in fakes.calls("claude") if c["stdin"]]) == 2  # no lead call either
    assert result["decision"]["synthesized"] is False
    assert "before REBUTTAL" in result["decision"]["recommendation"]
    decision_md = (project.root / result["scratchpad"] / "decision.md").read_text()
    assert "Cost cap: $0.0020, $0.0024 reported; the cost cap of" in decision_md
    assert "unpriced (their cost is not counted): critic" in decision_md
