"""One default-seat rule (panel/seating.py) for both protocols: the review's two default
reviewers are the debate's default advocate and critic, whatever is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.errors import NoUsableCliError
from council.review.flags import ReviewFlags
from council.review.plan import resolve_review_plan

INSTALLED_SETS = [
    ("claude", "codex", "gemini"),
    ("codex", "gemini"),
    ("claude", "codex"),
    ("gemini", "qwen", "kimi"),
    ("qwen",),
    ("pi",),
]


def installed(names: tuple[str, ...]):
    return lambda name: name in names


def review_seats(have: tuple[str, ...], tmp_path: Path, warnings: list[str]) -> list[str]:
    plan = resolve_review_plan(
        ReviewFlags(files=("a.py",)),
        parse_config({}),
        cwd=tmp_path,
        installed=installed(have),
        warn=warnings.append,
    )
    return [r.cli for r in plan.reviewers]


@pytest.mark.parametrize("have", INSTALLED_SETS)
def test_a_reviews_default_reviewers_are_a_debates_default_advocate_and_critic(have, tmp_path):
    debate = resolve_plan(DebateFlags(question="q"), parse_config({}), installed(have))
    assert review_seats(have, tmp_path, []) == [debate.advocate.cli, debate.critic.cli]


def test_the_seats_are_those_the_rule_always_gave(tmp_path):
    assert review_seats(("codex", "gemini", "claude"), tmp_path, []) == ["claude", "codex"]
    assert review_seats(("gemini", "qwen"), tmp_path, []) == ["gemini", "qwen"]
    warnings: list[str] = []
    assert review_seats(("qwen",), tmp_path, warnings) == ["qwen", "qwen"]
    assert warnings == ["only one vendor's CLI is installed: both reviewers are qwen"]


def test_a_review_with_no_cli_installed_is_exit_3(tmp_path):
    with pytest.raises(NoUsableCliError, match="no AI CLI found to review with"):
        review_seats((), tmp_path, [])
