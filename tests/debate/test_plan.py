"""Seat specs and the one precedence function: flag > preset > config file > default."""

from __future__ import annotations

import pytest

from council.config import Config, parse_config
from council.debate.flags import DebateFlags
from council.debate.plan import SeatSpec, parse_seat_spec, resolve_plan
from council.errors import NoUsableCliError, UsageError
from council.review.flags import ReviewFlags
from council.review.plan import resolve_review_plan


def installed(*names):
    return lambda name: name in names


def plan(flags=None, config=None, have=("claude", "codex", "gemini")):
    return resolve_plan(
        flags or DebateFlags(question="q"), parse_config(config or {}), installed(*have)
    )


def test_a_seat_spec_names_cli_model_and_effort():
    assert parse_seat_spec("codex:gpt-5.3-codex#high") == SeatSpec("codex", "gpt-5.3-codex", "high")
    assert parse_seat_spec("gemini") == SeatSpec("gemini")
    with pytest.raises(UsageError, match="bad effort"):
        parse_seat_spec("codex#turbo")


def test_defaults_take_the_first_installed_advocate_and_a_critic_and_lead_of_another_vendor():
    p = plan(have=("codex", "gemini"))
    assert (p.advocate.cli, p.critic.cli, p.lead.cli) == ("codex", "gemini", "gemini")
    p = plan(have=("claude", "codex"))
    # No model rules on its own vendor's proposal: claude proposes, codex judges.
    assert (p.advocate.cli, p.critic.cli, p.lead.cli) == ("claude", "codex", "codex")


def test_with_only_one_vendor_the_critic_is_the_same_cli():
    p = plan(have=("qwen",))
    assert p.advocate.cli == p.critic.cli == "qwen"


def test_a_lead_of_the_advocates_own_vendor_is_warned_about():
    from council.debate.protocol import _own_vendor_lead

    alone = _own_vendor_lead(plan(have=("qwen",)), Config())
    assert alone is not None and "rules on its own vendor's proposal" in alone
    assert _own_vendor_lead(plan(have=("claude", "codex")), Config()) is None


def test_no_installed_cli_is_exit_3():
    with pytest.raises(NoUsableCliError):
        plan(have=())


def test_rounds_out_of_the_declared_bound_are_refused_however_they_arrive():
    with pytest.raises(UsageError, match=r"--rounds must be 2 to 5, not 6"):
        plan(DebateFlags(question="q", rounds=6))


def test_a_flag_beats_the_preset_which_beats_the_config_file():
    config = {"debate": {"rounds": 4}}
    assert plan(config=config).rounds == 4
    assert plan(DebateFlags(question="q", preset="deep"), config).rounds == 3
    assert plan(DebateFlags(question="q", preset="deep", rounds=2), config).rounds == 2
    deep = plan(DebateFlags(question="q", preset="deep"))
    # Each vendor's strongest, as its adapter declares it (claude's effort tops out at max).
    assert (deep.advocate.cli, deep.advocate.model, deep.advocate.effort) == (
        "claude",
        "opus",
        "max",
    )
    assert (deep.critic.cli, deep.critic.model, deep.critic.effort) == ("codex", "gpt-5.2", "xhigh")


def test_a_seat_spec_beats_model_and_effort_flags():
    p = plan(
        DebateFlags(
            question="q",
            advocate="codex:o3#low",
            models=("codex:gpt-5",),
            effort="high",
            critic="codex",
        )
    )
    assert (p.advocate.model, p.advocate.effort) == ("o3", "low")
    assert (p.critic.model, p.critic.effort) == ("gpt-5", "high")


def test_the_same_cli_may_sit_twice_as_proxies_and_auto_adds_the_unseated():
    p = plan(DebateFlags(question="q", proxies=("codex", "codex")))
    assert [x.name for x in p.proxies] == ["proxy-codex", "proxy-codex-2"]
    p = plan(DebateFlags(question="q", proxies=("auto",)))
    assert [x.cli for x in p.proxies] == ["gemini"]


def test_a_cli_whose_name_starts_like_anothers_takes_no_number_from_it(tmp_path):
    # `sim-late` and `sim-slow` are user-defined CLIs: the plain `sim` seat is still `-sim`.
    clis = {"clis": {n: {"adapter": "sim"} for n in ("sim-late", "sim-slow")}}
    p = plan(
        DebateFlags(question="q", sim=True, proxies=("sim-late", "sim-slow", "sim", "sim")),
        config=clis,
        have=(),
    )
    assert [x.name for x in p.proxies] == [
        "proxy-sim-late",
        "proxy-sim-slow",
        "proxy-sim",
        "proxy-sim-2",
    ]
    review = resolve_review_plan(
        ReviewFlags(files=("a.py",), reviewers=("sim-late", "sim-slow", "sim"), sim=True),
        parse_config(clis),
        cwd=tmp_path,
        installed=installed(),
    )
    assert [r.name for r in review.reviewers] == [
        "reviewer-sim-late",
        "reviewer-sim-slow",
        "reviewer-sim",
    ]


def test_sim_seats_every_role_on_the_simulator():
    p = plan(DebateFlags(question="q", sim=True, proxies=("sim", "sim")), have=())
    assert {s.cli for s in (*p.seats, p.lead)} == {"sim"} and p.simulated


def test_sim_with_a_real_cli_named_on_the_command_line_is_a_usage_error():
    with pytest.raises(UsageError, match="--with codex names a real CLI: drop --sim"):
        plan(DebateFlags(question="q", sim=True, proxies=("codex",)), have=())


def test_a_run_seating_only_the_simulator_is_simulated_without_sim():
    p = plan(DebateFlags(question="q", advocate="sim", critic="sim", lead="sim"))
    assert p.simulated


def test_lead_caller_leaves_the_lead_empty():
    assert plan(DebateFlags(question="q", lead="caller")).lead is None


def test_a_timeout_flag_sets_the_soft_timeout_of_that_cli():
    p = plan(DebateFlags(question="q", timeouts=("codex=900,claude=120",)))
    assert p.critic.soft_timeout_s == 900 and p.advocate.soft_timeout_s == 120
    for bad in ("soon", "nan", "inf", "-1", "0", "1e-9", "0.5", "1e9"):
        with pytest.raises(UsageError, match="not a number of seconds from 1 to 86400"):
            plan(DebateFlags(question="q", timeouts=(f"codex={bad}",)))


def test_a_timeout_or_model_for_a_cli_without_a_seat_is_a_usage_error():
    with pytest.raises(UsageError, match="--timeout names gemini, which has no seat"):
        plan(DebateFlags(question="q", timeouts=("gemini=900",)))
    with pytest.raises(UsageError, match="--model names qwen, which has no seat"):
        plan(DebateFlags(question="q", models=("qwen:max",)))


def test_an_unknown_cli_in_a_flag_is_a_usage_error_listing_the_valid_ones():
    with pytest.raises(UsageError, match="use one of claude, codex"):
        plan(DebateFlags(question="q", proxies=("gpt4",)))


def test_the_plan_survives_a_round_trip_through_state_json():
    from council.debate.plan import DebatePlan

    p = plan(DebateFlags(question="q", proxies=("gemini",), files=("a.py",)))
    assert DebatePlan.from_json(p.to_json()) == p


def test_quick_seats_no_proxies_even_when_the_config_names_some_and_no_blind_take():
    config = {"roles": {"proxies": ["gemini"]}}
    quick = plan(DebateFlags(question="q", preset="quick"), config)
    assert quick.proxies == () and quick.blind is False
    assert (quick.rounds, quick.advocate.effort) == (2, "low")
    given = plan(DebateFlags(question="q", preset="quick", proxies=("gemini",)), config)
    assert [p.cli for p in given.proxies] == ["gemini"]
    assert [p.cli for p in plan(config=config).proxies] == ["gemini"]  # no preset: the file's


def test_balanced_is_the_defaults_and_deep_derives_from_the_registry():
    from council.adapters import registered
    from council.config import builtin_presets

    balanced = plan(DebateFlags(question="q", preset="balanced"))
    assert (balanced.rounds, balanced.advocate.effort, balanced.blind) == (2, "high", True)
    deep = builtin_presets()["deep"]
    strongest = {n: c.strongest_model for n, c in registered().items() if c.strongest_model}
    assert (deep.rounds, deep.effort, dict(deep.models)) == (3, "xhigh", strongest)
    # gemini declares no strongest effort: the preset's effort for every seat reaches it.
    p = plan(DebateFlags(question="q", preset="deep", advocate="gemini", critic="codex"))
    assert (p.advocate.model, p.advocate.effort) == (None, "xhigh")
    # --effort still beats the preset, a seat spec beats both.
    p = plan(DebateFlags(question="q", preset="deep", effort="low", critic="codex#medium"))
    assert (p.advocate.effort, p.critic.effort) == ("low", "medium")


def test_a_user_preset_is_added_and_one_of_a_built_in_name_replaces_it():
    config = {"presets": {"mine": {"rounds": 4, "proxies": []}, "quick": {"rounds": 3}}}
    assert plan(DebateFlags(question="q", preset="mine"), config).rounds == 4
    quick = plan(DebateFlags(question="q", preset="quick"), config)
    assert (quick.rounds, quick.advocate.effort, quick.blind) == (3, None, True)
