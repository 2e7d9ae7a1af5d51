"""The BLIND TAKE in the prompts that follow it (docs/spec/protocol.md section 3, phases 3b
and 4): each challenger's CHALLENGE prompt holds its own blind take beside the proposal, and
no other seat's prompt holds it; a blind take that failed is no take at all, never quoted to
its seat as "your own first take"."""

from __future__ import annotations

import pytest

from debate.scripted import prompts, scripted_seats
from project import QUESTION, Project

OWN_TAKE = "## Your own first take"
# Each challenger's CLI, its seat, and what its BLIND_TAKE does; the marker is in the answer
# (or the failure's stderr), so a test can follow where it went.
SEATS = {
    "keen": ("critic", "Cache in Redis. BLINDMARK-KEEN keeps it simple."),
    "plain": ("proxy-plain", "Use Postgres. BLINDMARK-PLAIN avoids a new service."),
    "crashing": ("proxy-crashing", {"exit": 1, "stderr": "crashing: BLINDMARK-CRASHING died"}),
    "silent": ("proxy-silent", {"empty": True}),
}
ANSWERED = [(cli, seat) for cli, (seat, how) in SEATS.items() if isinstance(how, str)]
FAILED = [(cli, seat) for cli, (seat, how) in SEATS.items() if not isinstance(how, str)]


@pytest.fixture(scope="module")
def seat_prompts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every prompt of one three-round debate whose challengers are SEATS."""
    project = Project(tmp_path_factory.mktemp("blind"))
    project.write_config(
        scripted_seats(project, {cli: {"BLIND_TAKE": how} for cli, (_, how) in SEATS.items()})
    )
    critic, *proxies = SEATS
    run = project.run(
        "debate", QUESTION, "--advocate", "sim", "--lead", "sim", "--critic", critic,
        "--with", ",".join(proxies), "--rounds", "3",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    every = prompts(project.record())
    # The lead sees the whole debate, blind takes included (section 1): the seats are tested.
    return {name: text for name, text in every.items() if not name.startswith("lead-")}


@pytest.mark.parametrize(("cli", "seat"), ANSWERED)
def test_an_answered_blind_take_is_quoted_in_its_own_challenge_prompt_and_nowhere_else(
    seat_prompts, cli, seat
):
    marker = f"BLINDMARK-{cli.upper()}"
    assert [name for name, text in seat_prompts.items() if marker in text] == [
        f"{seat}-r2-prompt.md"
    ]
    challenge = seat_prompts[f"{seat}-r2-prompt.md"]
    assert challenge.count(OWN_TAKE) == 1
    assert marker in challenge.split(OWN_TAKE, 1)[1]  # under its own heading


@pytest.mark.parametrize(("cli", "seat"), FAILED)
def test_a_failed_blind_take_is_never_quoted_as_the_seats_own_take(seat_prompts, cli, seat):
    assert f"{seat}-r1-prompt.md" in seat_prompts  # it was asked
    challenge = seat_prompts[f"{seat}-r2-prompt.md"]
    assert OWN_TAKE not in challenge
    assert "no answer" not in challenge
    marker = f"BLINDMARK-{cli.upper()}"
    assert [name for name, text in seat_prompts.items() if marker in text] == []


def test_only_the_challenge_prompts_of_seats_with_a_take_have_the_section(seat_prompts):
    with_take = sorted(name for name, text in seat_prompts.items() if OWN_TAKE in text)
    assert with_take == sorted(f"{seat}-r2-prompt.md" for _, seat in ANSWERED)
