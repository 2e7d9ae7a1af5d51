"""What the other seats learn about a seat that failed (docs/spec/protocol.md section 3,
"Anonymity"): in every prompt that quotes the failure, the failed seat is its role letter
(`Seat C (proxy)`), never its CLI, its vendor, its model or the words its CLI printed on
stderr, which name all three."""

from __future__ import annotations

import json
import re

import pytest

from debate.scripted import prompts, scripted_seats
from project import QUESTION, Project

# Each failing proxy: the phase it fails, how, and the names its failure would give away.
FAILURES = {
    "zorro": (
        "BLIND_TAKE",
        {"exit": 1, "stderr": "zorro-cli 2.1 (ZorroCorp, model zmodel-9): request refused"},
        ("zorro", "ZorroCorp", "zmodel", "request refused"),
    ),
    "yeti": (
        "CHALLENGE",
        {"exit": 2, "stderr": "yeti-cli (YetiLabs, ymodel-3): segmentation fault"},
        ("yeti", "YetiLabs", "ymodel", "segmentation fault"),
    ),
    "kraken": (
        "CHALLENGE",
        {"exit": 1, "stderr": "kraken: Not logged in (KrakenSoft account, kmodel-2)"},
        ("kraken", "KrakenSoft", "kmodel", "Not logged in"),
    ),
    "wyvern": ("REBUTTAL", {"empty": True}, ("wyvern",)),
}
# Every seat's CLI reports `scripted 1.0` at READY: no prompt may carry a tool report either.
NAMES = [name for *_, names in FAILURES.values() for name in names] + ["scripted"]


@pytest.fixture(scope="module")
def debate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, dict, dict[str, str]]:
    """One three-round debate whose four proxies each fail once, in the phase FAILURES says:
    its project, its result and every prompt of it."""
    project = Project(tmp_path_factory.mktemp("anonymity"))
    seats = {cli: {phase: how} for cli, (phase, how, _) in FAILURES.items()}
    project.write_config(scripted_seats(project, seats))
    run = project.run(
        "debate", QUESTION, "--files", "app.py", "--advocate", "sim", "--critic", "sim",
        "--lead", "sim", "--with", ",".join(FAILURES), "--rounds", "3", "--json",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return project, json.loads(run.stdout), prompts(project.record())


def test_each_seat_failed_where_the_test_says(debate):
    _, result, _ = debate
    failed = {
        c["seat"]: c["phase"]
        for c in result["contributions"]
        if c["status"] not in ("ok", "late") and c["seat"].startswith("proxy-")
    }
    assert failed == {f"proxy-{cli}": phase for cli, (phase, _, _) in FAILURES.items()}


@pytest.mark.parametrize("name", NAMES)
def test_no_other_seats_prompt_and_no_lead_prompt_names_a_failed_seat(debate, name):
    _, _, every = debate
    owner = re.compile(rf"^proxy-{re.escape(name)}-", re.IGNORECASE)
    others = {file: text for file, text in every.items() if not owner.match(file)}
    assert len(others) >= 12  # advocate x3, critic x3, the lead, the other proxies
    named = [file for file, text in others.items() if name.lower() in text.lower()]
    assert named == [], f"{name!r} is named in {named}"


@pytest.mark.parametrize(
    ("cli", "prompt"),
    [
        ("yeti", "advocate-r2-prompt.md"),  # the RESPOND quotes every challenge
        ("kraken", "advocate-r2-prompt.md"),
        ("yeti", "critic-r3-prompt.md"),  # the REBUTTAL's round context block
        ("yeti", "proxy-zorro-r3-prompt.md"),
        ("zorro", "lead-decision-prompt.md"),  # the lead sees the whole debate
        ("yeti", "lead-decision-prompt.md"),
        ("wyvern", "lead-decision-prompt.md"),
    ],
)
def test_a_failed_call_is_quoted_under_the_seats_letter(debate, cli, prompt):
    project, _, every = debate
    labels = json.loads((project.record() / "state.json").read_text())["labels"]
    label = labels[f"proxy-{cli}"]
    assert re.fullmatch(r"Seat [A-Z] \(proxy\)", label)
    assert label in every[prompt]
    # Other seats are named by role and letter only, and by the run's own letters.
    assert set(re.findall(r"Seat [A-Z] \((?:critic|proxy)\)", every[prompt])) <= set(
        labels.values()
    )
