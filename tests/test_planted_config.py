"""council.yaml mistakes inside a known section are refused, in one line naming the key, with
exit 4 (docs/spec/config.md): a misspelt key under `debate.words` (it would be ignored, and the
limit the user meant never applied), and a zero where a number of at least one is needed. And the
`quick` preset seats no proxy the config names, unless given on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import QUESTION, Project

CASES = [
    (
        "debate:\n  words:\n    chalenge: 500\n",
        "debate.words.chalenge: unknown key; known keys: proposal, blind, challenge, proxy, "
        "respond, rebuttal, final_summary",
    ),
    (
        "debate:\n  hard_timeout_factor: 0\n",
        "debate.hard_timeout_factor: expected a number from 1 to 10, got 0",
    ),
    (
        "debate:\n  words:\n    proposal: 0\n",
        "debate.words.proposal: expected an integer of at least 1, got 0",
    ),
]


@pytest.mark.parametrize(("text", "message"), CASES)
def test_a_mistake_inside_a_known_section_is_one_line_and_exit_4(tmp_path: Path, text, message):
    project = Project(tmp_path)
    project.write_config(text)
    shown = project.run("config", "show")
    assert shown.returncode == 4
    assert shown.stderr == f"council: {project.root / 'council.yaml'}: {message}\n"


def test_the_quick_preset_seats_no_proxy_the_config_names_unless_given(tmp_path: Path):
    # docs/spec/config.md: `quick` (rounds 2, effort low, no proxies unless given, ...).
    project = Project(tmp_path)
    project.write_config("roles:\n  proxies: [sim]\n")

    def seats(*args: str) -> list[str]:
        run = project.run("debate", QUESTION, "--sim", "--json", *args)
        assert run.returncode == 0, run.stderr
        return [seat["name"] for seat in json.loads(run.stdout)["seats"]]

    assert seats() == ["advocate", "critic", "proxy-sim", "lead"]
    assert seats("--preset", "quick") == ["advocate", "critic", "lead"]
    assert seats("--preset", "quick", "--with", "sim") == [
        "advocate",
        "critic",
        "proxy-sim",
        "lead",
    ]
