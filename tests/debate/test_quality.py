"""A debate that earns its answer (docs/spec/protocol.md sections 1, 3 "Anonymity", 7): votes
cast by the seats themselves, a minority report, anonymous prompts, a lead of another vendor,
and records that do not depend on arrival order."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from council.adapters import registered
from council.words import first_words
from project import QUESTION, Project

from fakes.install import VENDORS, install_fakes

DISSENT = " ".join(["The cache keeps growing without a bound on every node."] * 12)
DISSENTING_CLI = f"""\
import sys
if sys.argv[1:] == ["--version"]:
    print("dissent 1.0")
    raise SystemExit
prompt = sys.stdin.read()
phase = next(l for l in prompt.splitlines() if l.startswith("ACTION:"))[8:]
print(f"On {{phase}}: {DISSENT}")
print("**VOTE:** Disagree - an unbounded cache will exhaust memory under load.")
"""


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def seat_cli(project: Project, name: str, body: str) -> str:
    script = project.root.parent / f"{name}.py"
    script.write_text(body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"  {name}:\n    command: [{sys.executable}, {script}]\n"


def result_of(run) -> dict:
    assert run.returncode in (0, 5), run.stderr
    return json.loads(run.stdout)


def test_a_seats_own_vote_reaches_the_tally_and_a_disagree_makes_a_minority_report(project):
    project.write_config("clis:\n" + seat_cli(project, "dissent", DISSENTING_CLI))
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--critic", "dissent", "--lead", "sim",
        "--with", "sim", "--json",
    )  # fmt: skip
    decision = result_of(run)["decision"]
    assert decision["votes"]["critic"] == "disagree"  # its own line, emphasis and case aside
    assert (
        decision["vote_reasons"]["critic"] == "an unbounded cache will exhaust memory under load."
    )
    # The simulated proxy's own vote is whatever its prompt's hash picks.
    proxy_dissents = decision["votes"]["proxy-sim"] == "disagree"
    assert decision["tally"]["disagree"] == 1 + proxy_dissents
    assert sum(decision["tally"].values()) == 2  # critic and proxy-sim, nobody else
    (minority,) = [m for m in decision["minority"] if m["seat"] == "critic"]
    assert len(decision["minority"]) == 1 + proxy_dissents
    assert minority["seat"] == "critic"
    # The first 80 words of its last contribution, verbatim (its reply was cut to 300 words
    # and the vote line read before the cut).
    assert minority["excerpt"].split()[:80] == f"On CHALLENGE: {DISSENT}".split()[:80]
    markdown = (project.record() / "decision.md").read_text()
    assert "## Minority report" in markdown and "**critic** voted disagree" in markdown
    assert "| critic | disagree | an unbounded cache will exhaust memory under load. |" in markdown


def test_a_seat_that_timed_out_casts_no_vote(project):
    project.write_config(
        "clis:\n  sim-hung:\n    adapter: sim\n    env:\n"
        "      COUNCIL_SIM_HANG: '1'\n      COUNCIL_SIM_PHASES: CHALLENGE\n"
    )
    run = project.run(
        "debate", QUESTION, "--sim", "--with", "sim-hung", "--timeout", "sim-hung=1", "--json"
    )
    decision = result_of(run)["decision"]
    assert decision["votes"]["proxy-sim-hung"] is None
    assert "proxy-sim-hung" not in decision["vote_reasons"]
    assert decision["tally"]["no_vote"] == 1
    assert "| proxy-sim-hung | no vote |" in (project.record() / "decision.md").read_text()


def test_the_lead_is_asked_for_no_votes_and_shown_the_seats_own(project):
    run = project.run("debate", QUESTION, "--sim", "--with", "sim", "--json")
    result_of(run)
    prompt = (project.record() / "lead-decision-prompt.md").read_text()
    assert '"votes"' not in prompt and "Give a vote" not in prompt
    assert "## Votes the seats cast" in prompt
    assert re.search(r"- Seat A \(critic\): (agree|revise|disagree)", prompt)


def test_two_identical_simulated_runs_write_the_same_decision(tmp_path):
    pages = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        project = Project(tmp_path / name)
        run = project.run(
            "debate", QUESTION, "--files", "app.py", "--sim", "--rounds", "3",
            "--with", "sim,sim", "--json",
        )  # fmt: skip
        result_of(run)
        page = (project.record() / "decision.md").read_text()
        pages.append(re.sub(r" · \d+m?\d*s · ", " · <duration> · ", page, count=1))
    assert pages[0] == pages[1]


# -- anonymity: six vendors' CLIs, and not one of them named in another's prompt ---------------


def test_no_prompt_names_another_seats_cli_vendor_or_model(tmp_path):
    project = Project(tmp_path)
    fakes = install_fakes(tmp_path / "bin")
    models = {
        "claude": "opus-alpha",
        "codex": "gpt-omega",
        "gemini": "flash-beta",
        "qwen": "coder-gamma",
        "kimi": "k2-delta",
    }
    env = {"PATH": os.pathsep.join([str(fakes.bin_dir), project.env()["PATH"]])}
    run = project.run(
        "debate", QUESTION, "--files", "app.py", "--rounds", "3",
        "--advocate", "claude:opus-alpha", "--critic", "codex:gpt-omega",
        "--with", "gemini:flash-beta,qwen:coder-gamma,kimi:k2-delta,pi", "--lead", "sim",
        "--json", **env,
    )  # fmt: skip
    result = result_of(run)
    assert {s["cli"] for s in result["seats"]} == {*VENDORS, "sim"}
    named = set(models.values()) | set(VENDORS)
    named |= {registered()[cli].vendor for cli in VENDORS}
    forbidden = re.compile(r"\b(" + "|".join(sorted(map(re.escape, named))) + r")\b", re.I)
    prompts = sorted(project.record().glob("*-prompt.md"))
    assert len(prompts) >= 15  # 6 seats x 3 rounds, blind takes, the lead
    # What the CLIs answered is theirs to word (a fake's answer names its vendor): council's
    # own words are what is left of a prompt without the answers it quotes.
    answers = [c["text"] for c in result["contributions"] if c["status"] in ("ok", "late")]
    for prompt in prompts:
        text = prompt.read_text()
        for answer in answers:
            text = text.replace(answer, "").replace(first_words(answer, 40), "")
        # The isolation header names instruction files (CLAUDE.md, GEMINI.md): the spec's words.
        body = text.split("in at most", 1)[1]
        assert not forbidden.findall(body), f"{prompt.name} names {forbidden.findall(body)}"
    state = json.loads((project.record() / "state.json").read_text())
    assert state["labels"]["proxy-gemini"] == "Seat B (proxy)"  # the mapping is kept
    markdown = (project.record() / "decision.md").read_text()
    # The DECISION shows real names: the CLI, and the model as the CLI reported it served.
    assert "proxy-gemini (gemini: flash-beta served)" in markdown, markdown.splitlines()[1]
