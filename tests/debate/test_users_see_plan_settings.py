"""What a debate's plan takes from the config file, a preset and the flags, beyond the
roles (docs/spec/config.md, protocol.md section 1): a preset's quorum and models, a flag's
model over a preset's, a word limit, the cost cap, `quorum.distinct`, the labels prompts
name the seats by, `--with auto` in any case, and `--sim` over roles the config file names."""

from __future__ import annotations

import pytest

from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.errors import UsageError

HAVE = ("claude", "codex", "gemini")


def plan(config=None, have=HAVE, **flags):
    return resolve_plan(
        DebateFlags(question="q", **flags), parse_config(config or {}), lambda n: n in have
    )


MINE = {"presets": {"mine": {"quorum": 2, "models": {"codex": "o3"}, "rounds": 3}}}


def test_a_preset_sets_the_quorum_and_a_clis_model_and_a_flag_beats_both():
    preset = plan(MINE, preset="mine")
    assert (preset.quorum, preset.rounds, preset.critic.model) == (2, 3, "o3")
    flagged = plan(MINE, preset="mine", quorum=1, models=("codex:gpt-5.2",))
    assert (flagged.quorum, flagged.critic.model) == (1, "gpt-5.2")
    assert plan(MINE).quorum == 1  # the preset only when asked for


def test_the_config_files_word_limits_cost_cap_and_distinct_reach_the_plan():
    config = {
        "debate": {"words": {"proposal": 250}, "max_cost": 2.5},
        "quorum": {"distinct": "vendor"},
    }
    planned = plan(config)
    assert planned.words["proposal"] == 250 and planned.words["challenge"] == 300
    assert (planned.max_cost, planned.distinct) == (2.5, "vendor")
    assert plan(config, max_cost=0.5).max_cost == 0.5  # --max-cost beats the file
    assert (plan().max_cost, plan().distinct) == (None, "off")


def test_prompts_name_the_advocate_the_lead_and_each_challenger_by_letter_and_role():
    planned = plan(proxies=("gemini", "codex"))
    assert planned.labels() == {
        "advocate": "the advocate",
        "lead": "the lead",
        "critic": "Seat A (critic)",
        "proxy-gemini": "Seat B (proxy)",
        "proxy-codex": "Seat C (proxy)",
    }
    assert (planned.lead.name, planned.lead.role) == ("lead", "lead")


@pytest.mark.parametrize("auto", ["auto", "AUTO", " Auto "])
def test_with_auto_in_any_case_seats_every_installed_cli_not_seated(auto):
    planned = plan(have=("claude", "codex", "gemini", "qwen"), proxies=(auto,))
    assert [p.name for p in planned.proxies] == ["proxy-gemini", "proxy-qwen"]


def test_sim_with_auto_proxies_is_no_real_cli_named():
    planned = plan(sim=True, proxies=("auto",))
    assert planned.simulated and planned.advocate.cli == "sim"


def test_sim_seats_the_config_files_roles_on_the_simulator_keeping_their_timeouts():
    config = {"roles": {"critic": "codex", "lead": "claude", "proxies": ["gemini", "qwen"]}}
    planned = plan(config, sim=True, timeouts=("codex=45", "claude=50"))
    assert [s.cli for s in planned.seats] == ["sim", "sim", "sim", "sim"]
    # A timeout given for the CLI the config names still applies to its seat on the simulator.
    assert (planned.critic.soft_timeout_s, planned.lead.soft_timeout_s) == (45, 50)
    assert [p.name for p in planned.proxies] == ["proxy-sim", "proxy-sim-2"]


def test_a_run_with_one_real_seat_is_not_simulated():
    assert not plan(critic="sim").simulated
    assert plan(advocate="sim", critic="sim", lead="sim").simulated


def test_a_model_flag_for_the_lead_alone_is_accepted_and_one_for_nobody_refused():
    planned = plan(lead="gemini", models=("gemini:gemini-2.5-pro",))
    assert planned.lead.model == "gemini-2.5-pro"
    with pytest.raises(UsageError, match=r"^--model names qwen, which has no seat"):
        plan(lead="gemini", models=("qwen:qwen3",))
