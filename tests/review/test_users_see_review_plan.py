"""What `council review`'s command line decides before any CLI runs (docs/spec/commands.md
"council review"): the reviewers and their seats' names, the gate, where `--output` goes and
in which form, the subject a user sees in `council list`, and each bad flag refused with exit
2 and one line. Resolved in-process (`resolve_review_plan`), no CLI started."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.config import parse_config
from council.errors import NoUsableCliError, UsageError
from council.review.flags import ReviewFlags
from council.review.plan import ReviewPlan, resolve_review_plan


def plan(
    tmp_path: Path,
    *,
    installed: tuple[str, ...] = ("claude", "codex", "gemini"),
    config: dict | None = None,
    warnings: list[str] | None = None,
    **flags: object,
) -> ReviewPlan:
    values: dict[str, object] = {"files": ("app.py",)}
    values.update(flags)
    return resolve_review_plan(
        ReviewFlags(**values),  # type: ignore[arg-type]
        parse_config(config or {}),
        cwd=tmp_path,
        installed=lambda name: name in installed,
        warn=(warnings if warnings is not None else []).append,
    )


def seats(resolved: ReviewPlan) -> list[tuple[str, str, str | None, str | None]]:
    return [(r.name, r.cli, r.model, r.effort) for r in resolved.reviewers]


@pytest.mark.parametrize(
    ("installed", "reviewers", "warned"),
    [
        (("claude", "codex", "gemini"), ["claude", "codex"], False),
        (("codex", "gemini"), ["codex", "gemini"], False),
        (("gemini", "qwen"), ["gemini", "qwen"], False),
        (("codex",), ["codex", "codex"], True),  # one vendor only: it reviews twice
    ],
)
def test_by_default_the_first_two_installed_clis_of_different_vendors_review(
    tmp_path, installed, reviewers, warned
):
    warnings: list[str] = []
    resolved = plan(tmp_path, installed=installed, warnings=warnings)
    assert [r.cli for r in resolved.reviewers] == reviewers
    assert [r.role for r in resolved.reviewers] == ["reviewer", "reviewer"]
    if warned:
        assert warnings == ["only one vendor's CLI is installed: both reviewers are codex"]
    else:
        assert warnings == []


def test_with_no_cli_installed_the_review_says_how_to_go_on(tmp_path):
    with pytest.raises(NoUsableCliError) as error:
        plan(tmp_path, installed=())
    assert "--sim" in str(error.value) and "council doctor" in str(error.value)


def test_seats_are_named_by_cli_a_second_one_numbered_and_take_their_model_and_effort(tmp_path):
    resolved = plan(
        tmp_path,
        reviewers=("codex:gpt-5#high", "codex", "claude#low", "gemini"),
        models=("claude:opus", "codex:gpt-4"),
        effort="medium",
        timeouts=("codex=90",),
    )
    assert seats(resolved) == [
        ("reviewer-codex", "codex", "gpt-5", "high"),  # the seat's own model and effort
        ("reviewer-codex-2", "codex", "gpt-4", "medium"),  # --model and --effort
        ("reviewer-claude", "claude", "opus", "low"),
        ("reviewer-gemini", "gemini", None, "medium"),
    ]
    assert [r.soft_timeout_s for r in resolved.reviewers] == [90, 90, None, None]
    assert resolved.labels() == {
        "reviewer-codex": "Reviewer A",
        "reviewer-codex-2": "Reviewer B",
        "reviewer-claude": "Reviewer C",
        "reviewer-gemini": "Reviewer D",
    }


def test_auto_seats_every_installed_cli_once_in_the_registrys_order(tmp_path):
    resolved = plan(tmp_path, installed=("gemini", "claude", "kimi"), reviewers=("auto",))
    assert [r.cli for r in resolved.reviewers] == ["claude", "gemini", "kimi"]


def test_sim_seats_every_reviewer_on_the_simulator(tmp_path):
    resolved = plan(tmp_path, installed=(), sim=True)
    assert [r.name for r in resolved.reviewers] == ["reviewer-sim", "reviewer-sim-2"]
    assert resolved.simulated is True
    named = plan(tmp_path, installed=(), sim=True, reviewers=("codex:gpt-5", "claude"))
    assert seats(named) == [
        ("reviewer-sim", "sim", "gpt-5", None),
        ("reviewer-sim-2", "sim", None, None),
    ]


def test_a_timeout_given_for_a_cli_holds_for_its_simulated_seat(tmp_path):
    resolved = plan(tmp_path, sim=True, reviewers=("codex", "claude"), timeouts=("codex=90",))
    assert [r.soft_timeout_s for r in resolved.reviewers] == [90, None]
    both = plan(tmp_path, sim=True, reviewers=("codex", "claude"), timeouts=("codex=90", "sim=30"))
    assert [r.soft_timeout_s for r in both.reviewers] == [30, 30]


def test_the_twenty_seventh_reviewer_is_labelled_past_z(tmp_path):
    resolved = plan(tmp_path, reviewers=("claude",) * 28)
    labels = list(resolved.labels().values())
    assert labels[:2] == ["Reviewer A", "Reviewer B"]
    assert labels[25:] == ["Reviewer Z", "Reviewer A1", "Reviewer B1"]
    assert len(set(labels)) == 28


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ({"files": ()}, "nothing to review: give --diff REF"),
        ({"reviewers": ("codex",)}, "a review needs at least 2 reviewers, got 1 (codex)"),
        ({"fail_on": "blocker"}, "--fail-on must be one of low, medium, high, critical"),
        ({"gate": "most"}, "--gate must be one of majority, any, unanimous"),
        ({"format": "html"}, "--format must be one of md, json, sarif, github, gitlab"),
        ({"reviewers": ("nosuch", "codex")}, "unknown CLI 'nosuch': use one of claude, codex"),
        ({"output": "."}, "is a directory; give a file name"),
        ({"output": "app.py"}, "is one of the reviewed files and would be overwritten"),
        ({"output": "./app.py"}, "is one of the reviewed files"),
    ],
)
def test_bad_flags_are_refused_with_what_to_do(tmp_path, flags, words):
    with pytest.raises(UsageError) as error:
        plan(tmp_path, **flags)
    assert words in str(error.value)
    assert error.value.exit_code == 2


def test_auto_with_too_few_installed_says_none_installed(tmp_path):
    with pytest.raises(UsageError) as error:
        plan(tmp_path, installed=(), reviewers=("auto",))
    assert "got 0 (none installed)" in str(error.value)


@pytest.mark.parametrize(
    ("output", "format_", "form"),
    [
        ("review.sarif", "md", "sarif"),
        ("out/REVIEW.SARIF", "md", "sarif"),
        ("review.json", "md", "json"),
        ("review.md", "json", "md"),
        ("review.txt", "json", "json"),  # no suffix it knows: --format's
        ("review", "sarif", "sarif"),
        ("gl-code-quality.json", "gitlab", "gitlab"),  # a gitlab report is JSON too
        ("review.sarif", "gitlab", "sarif"),
        ("review.json", "github", "json"),
    ],
)
def test_the_output_takes_the_form_its_suffix_names(tmp_path, output, format_, form):
    resolved = plan(tmp_path, output=output, format=format_)
    assert resolved.output == str(tmp_path / output)
    assert (resolved.format, resolved.output_format) == (format_, form)


def test_without_output_nothing_is_written_beside_and_the_form_is_formats(tmp_path):
    resolved = plan(tmp_path, format="sarif")
    assert (resolved.output, resolved.output_format) == (None, "sarif")


def test_an_absolute_output_stays_where_it_is(tmp_path):
    target = tmp_path / "elsewhere" / "x.sarif"
    assert plan(tmp_path, output=str(target)).output == str(target)


@pytest.mark.parametrize(
    ("flags", "subject"),
    [
        ({"files": ("app.py",)}, "app.py"),
        ({"files": ("a.py", "b.py", "c.py")}, "a.py, b.py, c.py"),
        ({"files": ("a.py", "b.py", "c.py", "d.py")}, "4 files"),
        ({"files": (), "diff": "main"}, "git diff main"),
        ({"files": ("a.py",), "diff": "HEAD~1"}, "git diff HEAD~1 + a.py"),
    ],
)
def test_the_subject_names_the_diff_and_the_files(tmp_path, flags, subject):
    assert plan(tmp_path, **flags).subject == subject


@pytest.mark.parametrize(
    ("flags", "config", "fail_on", "rules"),
    [
        ({}, {}, None, dict.fromkeys(("low", "medium", "high", "critical"), "majority")),
        ({"fail_on": "medium", "gate": "any"}, {"review": {"gate": {"high": "unanimous"}}},
         "medium", dict.fromkeys(("low", "medium", "high", "critical"), "any")),
        ({"fail_on": "high"}, {"review": {"gate": {"high": "unanimous"}}}, "high",
         {"low": "majority", "medium": "majority", "high": "unanimous", "critical": "majority"}),
    ],
)  # fmt: skip
def test_the_gate_is_planned_from_the_flags_over_the_config(
    tmp_path, flags, config, fail_on, rules
):
    resolved = plan(tmp_path, config=config, **flags)
    assert (resolved.fail_on, dict(resolved.gate)) == (fail_on, rules)


def test_the_seed_given_is_kept_even_zero(tmp_path):
    assert plan(tmp_path, seed=0).seed == 0
    assert plan(tmp_path).seed is None


def test_a_plan_read_back_from_the_record_is_the_same_plan(tmp_path):
    resolved = plan(tmp_path, reviewers=("codex:gpt-5#high", "claude"), fail_on="low", seed=3)
    again = ReviewPlan.from_json(resolved.to_json())
    assert again == resolved
