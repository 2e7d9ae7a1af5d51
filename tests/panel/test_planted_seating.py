"""The default seats when the user names none (docs/spec/protocol.md section 1): the critic
and the lead are the first installed CLI of another vendor than the advocate's, so no model
rules on its own vendor's proposal; the advocate's own CLI only when no other vendor is
installed. Seen where a user sees them: `council doctor`'s `ready:` line and a debate's plan.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from council.adapters.claude import ClaudeAdapter
from council.adapters.registry import register, unregister
from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.panel.seating import default_seats
from project import Project

from fakes.install import install_fakes


def test_doctor_seats_the_lead_on_another_vendor_than_the_advocate(tmp_path: Path) -> None:
    # Started as a user would, from a project whose PATH holds only claude and codex.
    fakes = install_fakes(tmp_path / "bin", ["claude", "codex"])
    project = Project(tmp_path)
    result = project.run("doctor", PATH=f"{fakes.bin_dir}:{Path(project.argv()[0]).parent}")
    assert result.returncode == 0, result.stderr
    assert "ready: advocate=claude critic=codex lead=codex (2 usable: claude, codex)" in (
        result.stdout.splitlines()
    )


class SecondAnthropicCli(ClaudeAdapter):
    """Another CLI served by the advocate's vendor (a registered adapter, as a new built-in
    CLI would be: docs/architecture.md, "A CLI")."""

    name = "claude-work"
    binary = "claude-work"


@pytest.fixture
def second_anthropic_cli() -> Iterator[str]:
    register(SecondAnthropicCli)
    try:
        yield SecondAnthropicCli.name
    finally:
        unregister(SecondAnthropicCli.name)


def test_a_second_cli_of_the_advocates_vendor_is_not_its_critic_or_lead(
    second_anthropic_cli: str,
) -> None:
    have = ("claude", second_anthropic_cli)
    plan = resolve_plan(DebateFlags(question="q"), parse_config({}), lambda n: n in have)
    assert plan.lead is not None
    # Only one vendor installed: the advocate's own CLI takes the other seats.
    assert (plan.advocate.cli, plan.critic.cli, plan.lead.cli) == ("claude", "claude", "claude")
    seats = default_seats(list(have), lambda n: "anthropic")
    assert (seats.advocate, seats.critic, seats.lead) == ("claude", "claude", "claude")


def test_with_another_vendor_installed_it_takes_the_critic_and_the_lead(
    second_anthropic_cli: str,
) -> None:
    vendors = {"claude": "anthropic", second_anthropic_cli: "anthropic", "qwen": "alibaba"}
    seats = default_seats(list(vendors), vendors.__getitem__)
    assert (seats.advocate, seats.critic, seats.lead) == ("claude", "qwen", "qwen")
    have = tuple(vendors)
    plan = resolve_plan(DebateFlags(question="q"), parse_config({}), lambda n: n in have)
    assert plan.lead is not None
    assert (plan.critic.cli, plan.lead.cli) == ("qwen", "qwen")
