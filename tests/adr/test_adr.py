"""`council adr` end to end on the simulator (docs/spec/commands.md "council adr"): a finished
debate written as the next ADR of an existing MADR project, a Nygard project, a fresh project
and a configured directory; the refusals; and `--recheck`, whose verdict is scripted in the
lead's DECISION (COUNCIL_SIM_REPLY_FILE) and decides the exit code."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

from project import QUESTION, Project

SLUG = "should-this-service-cache-sessions-in-redis-or-postgres"
CHANGED = 7

MADR_ONE = """\
---
status: accepted
date: 2026-01-10
decision-makers: the team
---

# Use Markdown Architectural Decision Records

## Context and Problem Statement

We want to record architectural decisions made in this project.

## Considered Options

* MADR 4.0.0
* Nygard's template

## Decision Outcome

Chosen option: "MADR 4.0.0", because it is lean.
"""
MADR_TWO = MADR_ONE.replace(
    "Use Markdown Architectural Decision Records", "Keep sessions in memory"
)
NYGARD_ONE = """\
# 1. Record architecture decisions

Date: 2026-01-10

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as described by Michael Nygard.

## Consequences

See Michael Nygard's article.
"""
DISSENT = (
    "The proposal keeps every session in one process: an unbounded cache will exhaust memory "
    "under load, and a restart loses every login.\n\nVOTE: disagree - an unbounded cache will "
    "exhaust memory under load."
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def script(project: Project, name: str, replies: dict[str, str]) -> str:
    """A COUNCIL_SIM_REPLY_FILE: the replies a simulated seat gives, by phase."""
    path = project.root.parent / f"{name}.json"
    path.write_text(json.dumps(replies))
    return str(path)


def finished_debate(project: Project, *args: str, **env: str) -> dict:
    run = project.run("debate", QUESTION, "--sim", "--json", *args, **env)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def headings(text: str) -> list[str]:
    return re.findall(r"^(#{1,2} .+)$", text, re.M)


def test_an_adr_takes_the_next_number_and_the_template_of_an_existing_madr_project(project):
    decisions = project.root / "docs" / "decisions"
    decisions.mkdir(parents=True)
    (decisions / "0001-use-markdown-architectural-decision-records.md").write_text(MADR_ONE)
    (decisions / "0002-keep-sessions-in-memory.md").write_text(MADR_TWO)
    dissent = script(project, "dissent", {"CHALLENGE": DISSENT})
    project.write_config(
        f"clis:\n  dissent:\n    adapter: sim\n    env: {{COUNCIL_SIM_REPLY_FILE: '{dissent}'}}\n"
    )
    result = finished_debate(project, "--critic", "dissent")
    decision = result["decision"]
    assert decision["votes"]["critic"] == "disagree"

    run = project.run("adr", "last")
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"docs/decisions/0003-{SLUG}.md\n"
    text = (project.root / run.stdout.strip()).read_text()
    assert text.startswith(
        f"---\nstatus: accepted\ndate: {result['finished_at'][:10]}\ndecision-makers: "
    )
    assert headings(text)[:4] == [
        f"# {QUESTION}",
        "## Context and Problem Statement",
        "## Considered Options",
        "## Decision Outcome",
    ]
    assert f"> {QUESTION}" in text
    recommendation = " ".join(decision["recommendation"].split()).replace('"', "'")
    assert f'Chosen option: "{recommendation}"' in text
    assert f"* {recommendation} (chosen)" in text
    assert "| critic | disagree | an unbounded cache will exhaust memory under load. |" in text
    minority = text.split("### Minority Report", 1)[1]
    assert "**critic**: an unbounded cache will exhaust memory under load." in minority
    assert "> The proposal keeps every session in one process" in minority
    record = f".scratchpad/{result['id']}/"
    link = f"../../{record}decision.md"
    assert f"Record: [`{result['id']}`]({link}) (`{record}`;" in text
    assert (decisions / link).is_file()
    assert sorted(p.name for p in decisions.iterdir())[:2] == [
        "0001-use-markdown-architectural-decision-records.md",
        "0002-keep-sessions-in-memory.md",
    ]  # left as they were


def test_a_nygard_project_gets_a_nygard_record(project):
    adr_dir = project.root / "doc" / "adr"
    adr_dir.mkdir(parents=True)
    (adr_dir / "0001-record-architecture-decisions.md").write_text(NYGARD_ONE)
    result = finished_debate(project)
    run = project.run("adr", result["id"])
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"doc/adr/0002-{SLUG}.md\n"
    text = (project.root / run.stdout.strip()).read_text()
    assert text.startswith(
        f"# 2. {QUESTION}\n\nDate: {result['finished_at'][:10]}\n\n## Status\n\nAccepted\n"
    )
    assert headings(text) == [
        f"# 2. {QUESTION}", "## Status", "## Context", "## Decision", "## Consequences",
    ]  # fmt: skip
    assert result["decision"]["recommendation"].strip() in text
    assert f"Record: [`{result['id']}`]" in text


def test_a_fresh_project_gets_docs_decisions_in_madr(project):
    result = finished_debate(project)
    run = project.run("adr", "last", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "path": f"docs/decisions/0001-{SLUG}.md",
        "number": 1,
        "template": "madr",
        "record": result["id"],
    }
    assert (project.root / f"docs/decisions/0001-{SLUG}.md").read_text().startswith("---\n")


def test_adr_dir_is_honoured_and_its_numbering_kept(project):
    # A configured directory, numbered without padding, wins over docs/decisions.
    (project.root / "docs" / "decisions").mkdir(parents=True)
    kept = project.root / "records"
    kept.mkdir()
    (kept / "7-use-postgres.md").write_text(MADR_ONE)
    project.write_config("adr:\n  dir: records\n")
    finished_debate(project)
    run = project.run("adr", "last")
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"records/8-{SLUG}.md\n"


def test_a_debate_is_written_down_once(project):
    first = finished_debate(project)
    assert project.run("adr", first["id"]).returncode == 0
    again = project.run("adr", first["id"])
    assert again.returncode == 2
    assert again.stderr == (
        f"council: docs/decisions/0001-{SLUG}.md was already written from {first['id']}; "
        "an ADR is never written twice (recheck it with council adr --recheck)\n"
    )
    assert sorted(p.name for p in (project.root / "docs" / "decisions").iterdir()) == [
        f"0001-{SLUG}.md"
    ]


def test_a_debate_whose_decision_was_never_synthesized_is_not_written_down(project):
    # The lead's DECISION call fails: the debate ends degraded with the debate as it stands,
    # which is no decision to record as accepted.
    run = project.run(
        "debate", QUESTION, "--sim", "--json",
        COUNCIL_SIM_EXIT="1", COUNCIL_SIM_STDERR="internal error", COUNCIL_SIM_PHASES="DECISION",
    )  # fmt: skip
    assert run.returncode == 5, run.stderr
    result = json.loads(run.stdout)
    assert (result["status"], result["decision"]["synthesized"]) == ("degraded", False)
    refused = project.run("adr", "last")
    assert refused.returncode == 2
    assert refused.stderr == (
        f"council: {result['id']} ended degraded without a DECISION; an ADR needs a finished "
        f"debate (council resume {result['id']}, or run it again)\n"
    )
    assert not (project.root / "docs").exists()


def test_a_review_is_no_debate_to_write_down(project):
    (project.root / "service.py").write_text("import os\nos.system(input())\n")
    review = project.run("review", "--files", "service.py", "--sim", "--format", "json")
    review_id = json.loads(review.stdout)["id"]
    refused = project.run("adr", review_id)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"council: {review_id} is a review, not a debate: an ADR is written from a debate's "
        "DECISION\n"
    )
    assert not (project.root / "docs").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("last", "--rounds", "3"), "--rounds is an option of --recheck (its new panel); drop it"),
        ((), "give the debate to write down (council adr last, or its id)"),
        (("last", "--recheck", "x.md"), "--recheck takes the ADR file alone; drop last"),
    ],
)
def test_a_command_line_that_asks_nothing_sensible_is_refused(project, args, said):
    run = project.run("adr", *args)
    assert run.returncode == 2 and run.stderr.startswith(f"council: {said}"), run.stderr


def lead_ruling(recommendation: str) -> str:
    return json.dumps(
        {
            "recommendation": recommendation,
            "consensus": ["Sessions must survive a restart."],
            "disagreements": [],
            "tradeoffs": [],
            "blocking_concerns": [],
            "next_step": {"action": "Move the sessions.", "verify_command": "true",
                          "done_criterion": "Logins survive a restart."},
            "confidence": 80,
        }
    )  # fmt: skip


@pytest.mark.parametrize(
    ("ruling", "verdict", "exit_code", "recorded"),
    [
        ("CHANGED: keep the sessions in Postgres; the cache is no longer needed.", "changed",
         CHANGED, MADR_TWO),
        ("**Unchanged** - the decision holds as written.", "unchanged", 0, MADR_TWO),
        ("REFINED: keep it, and add an expiry to every session.", "refined", 0, NYGARD_ONE),
        ("Keep going as decided.", "unclear", 5, MADR_TWO),
    ],
)  # fmt: skip
def test_a_recheck_appends_its_section_and_exits_by_its_verdict(
    project, ruling, verdict, exit_code, recorded
):
    adr = project.root / "docs" / "decisions" / "0002-keep-sessions-in-memory.md"
    adr.parent.mkdir(parents=True)
    adr.write_text(recorded)
    lead = script(project, "lead", {"DECISION": lead_ruling(ruling)})
    run = project.run(
        "adr", "--recheck", "docs/decisions/0002-keep-sessions-in-memory.md", "--sim",
        "--files", "app.py", COUNCIL_SIM_REPLY_FILE=lead,
    )  # fmt: skip
    assert run.returncode == exit_code, run.stderr
    after = adr.read_text()
    assert after.startswith(recorded.rstrip("\n") + "\n\n")
    section = after[len(recorded.rstrip("\n")) + 2 :]
    assert run.stdout == section
    (new_id,) = [p.name for p in (project.root / ".scratchpad").iterdir() if p.is_dir()]
    shown = "unclear (the new DECISION named none of unchanged, refined, changed; read it)"
    assert section.splitlines()[:5] == [
        f"## Rechecked {date.today().isoformat()}",
        "",
        f"Verdict: **{shown if verdict == 'unclear' else verdict}**.",
        "",
        f"New ruling: {ruling}",
    ]
    assert f"New record: [`{new_id}`](../../.scratchpad/{new_id}/decision.md)" in section
    result = json.loads((project.root / ".scratchpad" / new_id / "result.json").read_text())
    question = result["question"]
    assert question.startswith(
        f"Recheck of an architecture decision ({adr.name}, recorded 2026-01-10)"
    )
    decided = "MADR 4.0.0" if recorded == MADR_TWO else "We will use Architecture Decision Records"
    assert decided in question  # the recorded decision, put to the panel


def test_a_recheck_puts_the_latest_recheck_to_the_panel(project):
    adr = project.root / "0002-keep-sessions-in-memory.md"
    adr.write_text(
        MADR_TWO + "\n## Rechecked 2026-06-01\n\nVerdict: **changed**.\n\n"
        "New ruling: CHANGED: move the sessions to Postgres.\n"
    )
    lead = script(project, "lead", {"DECISION": lead_ruling("Unchanged: Postgres it stays.")})
    run = project.run(
        "adr", "--recheck", adr.name, "--sim", "--json", COUNCIL_SIM_REPLY_FILE=lead
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout)
    assert (said["verdict"], said["exit_code"], said["path"]) == ("unchanged", 0, adr.name)
    assert adr.read_text().count("## Rechecked ") == 2
    result = project.root / ".scratchpad" / said["record"] / "result.json"
    asked = json.loads(result.read_text())["question"]
    assert "Latest recheck: Verdict: **changed**." in asked and "move the sessions" in asked
