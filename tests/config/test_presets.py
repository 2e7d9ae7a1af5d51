"""Presets (docs/spec/config.md): the built-in quick, balanced and deep, a user's own preset
with every key a preset takes, one that replaces a built-in whole, and what `council config
show --preset NAME` says a preset sets over the files."""

from __future__ import annotations

import pytest

from council.adapters import registered
from council.config import Preset, load_config

ALL_CLIS = ["claude", "codex", "gemini", "qwen", "kimi", "pi", "sim"]


def presets(place) -> dict[str, Preset]:
    return dict(load_config(cwd=place.root, environ=place.environ()).presets)


def test_quick_is_two_rounds_at_low_effort_without_proxies_or_the_blind_take(place):
    quick = presets(place)["quick"]
    assert (quick.rounds, quick.effort, quick.proxies, quick.blind) == (2, "low", (), False)
    assert (quick.quorum, dict(quick.models), dict(quick.efforts)) == (None, {}, {})


def test_balanced_is_the_defaults_two_rounds_at_high_effort(place):
    balanced = presets(place)["balanced"]
    assert (balanced.rounds, balanced.effort) == (2, "high")
    # it leaves the proxies and the blind take to the files
    assert (balanced.proxies, balanced.blind, balanced.quorum) == (None, None, None)


def test_deep_is_three_rounds_at_xhigh_on_each_vendors_strongest_model(place):
    deep = presets(place)["deep"]
    assert (deep.rounds, deep.effort, deep.proxies, deep.blind) == (3, "xhigh", None, None)
    assert deep.efforts["claude"] == "max"  # the spec: "how deep gives claude max"
    strongest = {n: c.strongest_model for n, c in registered().items() if c.strongest_model}
    assert dict(deep.models) == strongest and strongest
    efforts = {n: c.strongest_effort for n, c in registered().items() if c.strongest_effort}
    assert dict(deep.efforts) == efforts


def test_a_user_preset_takes_every_key_a_preset_has(place):
    place.user(
        "presets:\n  team:\n    rounds: 4\n    effort: medium\n    quorum: 2\n"
        "    models: {codex: o3, gemini: gemini-2.5-pro}\n    efforts: {claude: max}\n"
        "    proxies: [gemini, qwen]\n    blind: false\n"
    )
    team = presets(place)["team"]
    assert team == Preset(
        "team",
        rounds=4,
        effort="medium",
        quorum=2,
        models={"codex": "o3", "gemini": "gemini-2.5-pro"},
        efforts={"claude": "max"},
        proxies=("gemini", "qwen"),
        blind=False,
    )


def test_a_preset_with_one_proxy_as_a_string_and_blind_true(place):
    place.project("presets:\n  solo: {proxies: gemini, blind: true, rounds: 3.0}\n")
    solo = presets(place)["solo"]
    assert (solo.proxies, solo.blind, solo.rounds) == (("gemini",), True, 3)
    assert isinstance(solo.rounds, int)
    assert (solo.effort, solo.quorum, dict(solo.models)) == (None, None, {})


def test_a_user_preset_joins_the_built_in_ones(place):
    place.project("presets:\n  mine: {rounds: 3}\n")
    assert list(presets(place)) == ["quick", "balanced", "deep", "mine"]


def test_a_preset_named_like_a_built_in_one_replaces_it_whole(place):
    place.project("presets:\n  quick: {rounds: 3}\n")
    quick = presets(place)["quick"]
    assert quick == Preset("quick", rounds=3)
    shown = place.shown()
    assert shown["presets.quick.rounds"] == {
        "value": 3,
        "source": "project",
        "from": str(place.project_file),
    }
    assert "presets.quick.effort" not in shown and "presets.quick.blind" not in shown
    assert shown["presets.deep.rounds"]["value"] == 3  # the others stay


# What each built-in preset sets, as `config show --preset NAME` prints it.
PRESET_LINES = {
    "quick": [
        "debate.rounds = 2  (preset: quick)",
        "debate.blind = false  (preset: quick)",
        "roles.proxies = []  (preset: quick)",
        *(f"clis.{cli}.effort = low  (preset: quick)" for cli in ALL_CLIS),
    ],
    "balanced": [
        "debate.rounds = 2  (preset: balanced)",
        "debate.blind = true  (default)",
        "roles.proxies = []  (default)",
        *(f"clis.{cli}.effort = high  (preset: balanced)" for cli in ALL_CLIS),
    ],
    "deep": [
        "debate.rounds = 3  (preset: deep)",
        "debate.blind = true  (default)",
        "clis.claude.effort = max  (preset: deep)",
        "clis.gemini.effort = xhigh  (preset: deep)",
        "clis.qwen.effort = xhigh  (preset: deep)",
    ],
}


@pytest.mark.parametrize("name", list(PRESET_LINES))
def test_config_show_with_a_preset_says_what_it_sets(place, name):
    lines = place.show("--preset", name)
    assert [line for line in PRESET_LINES[name] if line not in lines] == []
    assert "debate.quorum = 1  (default)" in lines  # no built-in preset sets the quorum


def test_config_show_with_deep_names_each_vendors_strongest_model(place):
    shown = place.shown("--preset", "deep")
    for cli, adapter in registered().items():
        key = f"clis.{cli}.model"
        if adapter.strongest_model:
            assert shown[key] == {
                "value": adapter.strongest_model,
                "source": "preset",
                "from": "deep",
            }
        else:
            assert key not in shown  # council knows none: the CLI's own model


def test_a_preset_beats_both_files_and_leaves_what_it_does_not_set(place):
    place.user("debate: {rounds: 5, quorum: 2}\nroles: {proxies: [qwen]}\n")
    place.project("debate: {rounds: 4, blind: false}\nclis: {codex: {model: o3, effort: low}}\n")
    lines = place.show("--preset", "deep")
    assert "debate.rounds = 3  (preset: deep)" in lines
    assert "debate.quorum = 2  (user: ~/.config/council/config.yaml)" in lines
    assert "debate.blind = false  (project: ./council.yaml)" in lines
    assert 'roles.proxies = ["qwen"]  (user: ~/.config/council/config.yaml)' in lines
    assert "clis.codex.effort = xhigh  (preset: deep)" in lines


def test_a_user_preset_shows_its_own_models_efforts_quorum_and_proxies(place):
    place.project(
        "presets:\n  team: {quorum: 2, effort: medium, efforts: {codex: high}, "
        "models: {gemini: flash}, proxies: [qwen]}\n"
    )
    lines = place.show("--preset", "team")
    for line in [
        "debate.quorum = 2  (preset: team)",
        "debate.rounds = 2  (default)",
        'roles.proxies = ["qwen"]  (preset: team)',
        "clis.gemini.model = flash  (preset: team)",
        "clis.codex.effort = high  (preset: team)",
        "clis.claude.effort = medium  (preset: team)",
    ]:
        assert line in lines


def test_an_unknown_preset_is_a_usage_error_listing_the_known_ones(place):
    place.project("presets:\n  team: {rounds: 3}\n")
    result = place.council("config", "show", "--preset", "tema")
    assert result.exit_code == 2, result.output
    assert result.output == (
        "council: unknown preset 'tema': use one of quick, balanced, deep, team\n"
    )
