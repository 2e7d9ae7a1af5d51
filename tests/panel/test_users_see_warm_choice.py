"""Which seats keep a warm worker, as the user reads it in `result.json` (`seats[].worker`,
`reviewers[].worker`) and as the CLIs were really run (the strict fakes log each warm turn).
docs/spec/protocol.md "Warm seats": up to `debate.max_warm_seats` seats (default 4, in seat
order; `--cold`: none) whose CLI has a persistent mode run warm; the lead's worker does not
count toward the cap and is off when it is 0 or under `--cold`, or `clis.<name>.warm: false`.
docs/spec/outputs.md: `worker` is `null` when the seat was never to run warm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from project import Project, debate_on_fakes

from fakes.install import install_fakes

# gemini and codex have a persistent mode (ACP, app-server); the simulator has none.
SEATS = ("--advocate", "gemini", "--critic", "codex", "--with", "sim", "--lead", "gemini")
WARM_CLIS = ("gemini", "codex")

# (flags, council.yaml, each seat's worker mode: "warm", or None for spawned per call)
CHOICES = {
    "default": ((), "", {"advocate": "warm", "critic": "warm", "proxy-sim": None, "lead": "warm"}),
    "cold": (
        ("--cold",),
        "",
        {"advocate": None, "critic": None, "proxy-sim": None, "lead": None},
    ),
    "cold-beats-config": (
        ("--cold",),
        "debate:\n  max_warm_seats: 8\n",
        {"advocate": None, "critic": None, "proxy-sim": None, "lead": None},
    ),
    "no-warm-seats": (
        (),
        "debate:\n  max_warm_seats: 0\n",
        {"advocate": None, "critic": None, "proxy-sim": None, "lead": None},
    ),
    # The cap counts seats in seat order; the lead is not one of them.
    "one-warm-seat": (
        (),
        "debate:\n  max_warm_seats: 1\n",
        {"advocate": "warm", "critic": None, "proxy-sim": None, "lead": "warm"},
    ),
    "gemini-not-warm": (
        (),
        "clis:\n  gemini:\n    warm: false\n",
        {"advocate": None, "critic": "warm", "proxy-sim": None, "lead": None},
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def warm_turns(fakes) -> dict[str, int]:
    """How many calls each CLI answered on a warm worker, by the fakes' own log."""
    return {cli: sum(1 for c in fakes.calls(cli) if c.get("warm")) for cli in WARM_CLIS}


def modes(members: list[dict]) -> dict[str, str | None]:
    return {m["name"]: m["worker"] and m["worker"]["mode"] for m in members}


@pytest.mark.parametrize(("flags", "config", "expected"), CHOICES.values(), ids=list(CHOICES))
def test_each_seat_runs_warm_or_spawned_as_the_flags_and_config_say(
    project, tmp_path, flags, config, expected
):
    fakes = install_fakes(tmp_path / "bin")
    if config:
        project.write_config(config)
    result = debate_on_fakes(project, fakes, *SEATS, "--rounds", "2", *flags)
    assert modes(result["seats"]) == expected
    recorded = json.loads((project.record() / "result.json").read_text())
    assert modes(recorded["seats"]) == expected
    # What the record says is what happened: no warm turn for a CLI no seat runs warm.
    warm_clis = {seat["cli"] for seat in result["seats"] if seat["worker"]}
    assert {cli for cli, n in warm_turns(fakes).items() if n} == warm_clis


@pytest.mark.parametrize(
    ("flags", "expected"),
    [((), "warm"), (("--cold",), None)],
    ids=["default", "cold"],
)
def test_a_review_keeps_its_reviewers_warm_unless_cold(project, tmp_path, flags, expected):
    fakes = install_fakes(tmp_path / "bin")
    run = project.run(
        "review",
        "--files",
        "app.py",
        "--with",
        "gemini,codex,sim",
        "--json",
        *flags,
        PATH=fakes.path_env(project.env()["PATH"]),
    )
    result = json.loads(run.stdout)
    assert modes(result["reviewers"]) == {
        "reviewer-gemini": expected,
        "reviewer-codex": expected,
        "reviewer-sim": None,
    }
    assert all(n > 0 if expected else n == 0 for n in warm_turns(fakes).values())
