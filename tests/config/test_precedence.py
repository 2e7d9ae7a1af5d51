"""Where each value comes from (docs/spec/config.md): the project file (`./council.yaml`, or
`--config PATH` in its place) over the user file (`$XDG_CONFIG_HOME/council/config.yaml`,
default `~/.config/council/config.yaml`) over the built-in default; mappings merge key by key,
lists and scalars replace, null never hides a lower file's value. `config show` names the
source of each value."""

from __future__ import annotations

import json

import pytest

from council.config import (
    DEFAULT_SOURCE,
    FLAG_SOURCE,
    Level,
    Source,
    Sourced,
    load_config,
    pick,
)
from council.debate.flags import DebateFlags
from council.debate.plan import plan_settings

PROJECT = "project: ./council.yaml"
USER = "user: ~/.config/council/config.yaml"

# (key path, project file, user file, value shown, source shown)
ROWS = [
    ("debate.rounds", "debate: {rounds: 4}", "debate: {rounds: 3}", "4", PROJECT),
    ("debate.rounds", "debate: {quorum: 2}", "debate: {rounds: 3}", "3", USER),
    ("debate.rounds", "debate: {rounds: null}", "debate: {rounds: 3}", "3", USER),
    ("debate.rounds", "debate: {rounds: null}", "debate: {rounds: null}", "2", "default"),
    (
        "debate.words.proxy",
        "debate: {words: {proxy: 90}}",
        "debate: {words: {proxy: 80}}",
        "90",
        PROJECT,
    ),
    (
        "debate.words.proposal",
        "debate: {words: {proxy: 90}}",
        "debate: {words: {proposal: 80}}",
        "80",
        USER,
    ),
    (
        "debate.words.challenge",
        "debate: {words: {proxy: 90}}",
        "debate: {words: {proposal: 80}}",
        "300",
        "default",
    ),
    (
        "roles.proxies",
        "roles: {proxies: [gemini]}",
        "roles: {proxies: [qwen, kimi]}",
        '["gemini"]',
        PROJECT,
    ),
    ("roles.critic", "roles: {advocate: claude}", "roles: {critic: codex}", "codex", USER),
    ("clis.codex.model", "clis: {codex: {model: null}}", "clis: {codex: {model: o3}}", "o3", USER),
    (
        "clis.codex.timeout_s",
        "clis: {codex: {timeout_s: 900}}",
        "clis: {codex: {model: o3}}",
        "900",
        PROJECT,
    ),
    (
        "clis.codex.env.A",
        "clis: {codex: {env: {A: x}}}",
        "clis: {codex: {env: {B: y}}}",
        "x",
        PROJECT,
    ),
    ("clis.codex.env.B", "clis: {codex: {env: {A: x}}}", "clis: {codex: {env: {B: y}}}", "y", USER),
    (
        "clis.codex.extra_args",
        "clis: {codex: {extra_args: [--a]}}",
        "clis: {codex: {extra_args: [--b, --c]}}",
        '["--a"]',
        PROJECT,
    ),
    (
        "review.gate.low",
        "review: {gate: {high: any}}",
        "review: {gate: {low: unanimous}}",
        "unanimous",
        USER,
    ),
    (
        "quorum.distinct",
        "quorum: {distinct: vendor}",
        "quorum: {distinct: family}",
        "vendor",
        PROJECT,
    ),
    ("scratchpad", "version: 1", "scratchpad: .notes", ".notes", USER),
    ("adr.dir", "adr: {dir: decisions}", "adr: {dir: adr}", "decisions", PROJECT),
]


@pytest.mark.parametrize(("key", "project", "user", "value", "source"), ROWS)
def test_config_show_names_the_level_each_value_came_from(place, key, project, user, value, source):
    place.project(project + "\n")
    place.user(user + "\n")
    assert f"{key} = {value}  ({source})" in place.show()


def test_a_run_reads_the_merged_files(place):
    place.project(
        "debate: {words: {proxy: 90}, rounds: null}\nroles: {proxies: [gemini]}\n"
        "clis: {codex: {timeout_s: 900, env: {A: x}}}\n"
    )
    place.user(
        "debate: {rounds: 4, quorum: 0, words: {proposal: 150}}\nroles: {proxies: [qwen]}\n"
        "clis: {codex: {model: o3, env: {B: y}, lean: false}}\n"
    )
    config = load_config(cwd=place.root, environ=place.environ())
    assert (config.debate.rounds, config.debate.quorum) == (4, 0)
    assert dict(config.debate.words) == {
        "proposal": 150,
        "blind": 150,
        "challenge": 300,
        "proxy": 90,
        "respond": 300,
        "rebuttal": 200,
        "final_summary": 200,
    }
    assert config.roles.proxies == ("gemini",)
    codex = config.clis["codex"]
    assert (codex.model, codex.timeout_s, dict(codex.env), codex.lean) == (
        "o3",
        900,
        {"A": "x", "B": "y"},
        False,
    )
    assert config.files == (place.project_file, place.user_file)


def test_the_user_file_is_under_xdg_config_home_when_it_is_set(place, monkeypatch):
    place.user("debate: {rounds: 3}\n")
    xdg = place.home / "xdg"
    (xdg / "council").mkdir(parents=True)
    (xdg / "council" / "config.yaml").write_text("debate: {rounds: 5}\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    assert "debate.rounds = 5  (user: ~/xdg/council/config.yaml)" in place.show()
    # set but empty: the default place under HOME
    monkeypatch.setenv("XDG_CONFIG_HOME", "")
    assert f"debate.rounds = 3  ({USER})" in place.show()


def test_without_home_or_xdg_config_home_only_the_project_file_is_read(place):
    place.project("debate: {rounds: 4}\n")
    place.user("debate: {quorum: 3}\n")
    config = load_config(cwd=place.root, environ={})
    assert (config.debate.rounds, config.debate.quorum) == (4, 1)
    assert config.files == (place.project_file,)


def test_config_path_replaces_the_project_file_and_the_user_file_still_merges(place):
    place.project("debate: {rounds: 5, blind: false}\n")
    place.user("debate: {quorum: 2}\n")
    other = place.root / "ci.yaml"
    other.write_text("debate: {rounds: 3}\n")
    lines = place.council("--config", str(other), "config", "show").stdout.splitlines()
    assert "debate.rounds = 3  (project: ./ci.yaml)" in lines
    assert "debate.blind = true  (default)" in lines  # ./council.yaml is not read
    assert f"debate.quorum = 2  ({USER})" in lines


def test_config_show_json_lists_the_files_highest_first(place):
    place.project("debate: {rounds: 4}\n")
    place.user("debate: {quorum: 2}\n")
    result = place.council("config", "show", "--json")
    files = json.loads(result.stdout)["files"]
    assert files == [
        {"path": str(place.project_file), "level": "project"},
        {"path": str(place.user_file), "level": "user"},
    ]


def test_the_user_file_given_as_config_is_read_once(place):
    place.user("debate: {rounds: 4}\n")
    config = load_config(place.user_file, cwd=place.root, environ=place.environ())
    assert config.files == (place.user_file,)
    assert config.debate.rounds == 4


def test_a_file_named_council_yaml_in_the_project_is_found_from_the_current_directory(place):
    place.project("debate: {rounds: 4}\n")
    assert load_config(cwd=place.root, environ={}).debate.rounds == 4
    assert load_config(cwd=place.home, environ={}).debate.rounds == 2  # another directory


def test_levels_rank_flag_preset_project_user_default():
    order = sorted(Level, key=int)
    assert order == [Level.FLAG, Level.PRESET, Level.PROJECT, Level.USER, Level.DEFAULT]
    candidates = [
        Sourced("user", Source(Level.USER, "u")),
        Sourced("default", DEFAULT_SOURCE),
        Sourced("preset", Source(Level.PRESET, "deep")),
        Sourced("project", Source(Level.PROJECT, "p")),
        Sourced("flag", FLAG_SOURCE),
    ]
    for winner in ("flag", "preset", "project", "user", "default"):
        assert pick(*candidates).value == winner
        candidates = [c for c in candidates if c.value != winner]


def test_a_source_reads_as_its_level_and_where():
    assert str(Source(Level.PROJECT, "./council.yaml")) == "project: ./council.yaml"
    assert str(Source(Level.PRESET, "deep")) == "preset: deep"
    assert str(DEFAULT_SOURCE) == "default" and str(FLAG_SOURCE) == "flag"


# flag > preset > project file > user file > default, for the settings a debate takes from all
# of them. The user file holds a preset `team` so a row needs no flag to name a preset.
FLAG_ROWS = [
    # (setting, flags, project, user, value, source)
    (
        "rounds",
        {"rounds": 5, "preset": "team"},
        "debate: {rounds: 4}",
        "debate: {rounds: 3}",
        5,
        "flag",
    ),
    ("rounds", {"preset": "team"}, "debate: {rounds: 4}", "debate: {rounds: 3}", 2, "preset"),
    ("rounds", {}, "debate: {rounds: 4}", "debate: {rounds: 3}", 4, "project"),
    ("rounds", {}, "version: 1", "debate: {rounds: 3}", 3, "user"),
    (
        "blind",
        {"no_blind": True, "preset": "team"},
        "debate: {blind: true}",
        "version: 1",
        False,
        "flag",
    ),
    ("blind", {"preset": "team"}, "debate: {blind: false}", "version: 1", True, "preset"),
    ("blind", {}, "debate: {blind: false}", "debate: {blind: true}", False, "project"),
    ("blind", {}, "version: 1", "version: 1", True, "default"),
    (
        "proxies",
        {"proxies": ("qwen",), "preset": "team"},
        "roles: {proxies: [kimi]}",
        "version: 1",
        ("qwen",),
        "flag",
    ),
    (
        "proxies",
        {"preset": "team"},
        "roles: {proxies: [kimi]}",
        "version: 1",
        ("gemini",),
        "preset",
    ),
    ("proxies", {}, "roles: {proxies: [kimi]}", "roles: {proxies: [pi]}", ("kimi",), "project"),
    (
        "advocate",
        {"advocate": "gemini"},
        "roles: {advocate: codex}",
        "version: 1",
        "gemini",
        "flag",
    ),
    ("advocate", {}, "roles: {advocate: codex}", "roles: {advocate: qwen}", "codex", "project"),
    ("effort", {"effort": "low", "preset": "team"}, "version: 1", "version: 1", "low", "flag"),
    ("effort", {"preset": "team"}, "version: 1", "version: 1", "medium", "preset"),
]


@pytest.mark.parametrize(("setting", "flags", "project", "user", "value", "source"), FLAG_ROWS)
def test_a_flag_beats_a_preset_beats_the_files(place, setting, flags, project, user, value, source):
    place.project(project + "\n")
    place.user(
        user + "\npresets: {team: {rounds: 2, blind: true, proxies: [gemini], effort: medium}}\n"
    )
    config = load_config(cwd=place.root, environ=place.environ())
    chosen = plan_settings(DebateFlags(question="q", **flags), config)[setting]
    assert (chosen.value, chosen.source.label) == (value, source)


def test_a_run_reads_the_gate_rules_the_decisions_directory_and_the_scratchpad(place):
    place.user("review: {gate: {low: unanimous, high: any}}\nadr: {dir: docs/adr}\n")
    place.project(
        "review: {gate: {high: majority}}\nscratchpad: .notes\nroles: {proxies: gemini}\n"
        "redact: {extra_patterns: ['sk-[a-z]+'], allow_files: [fixtures/*.pem]}\n"
    )
    config = load_config(cwd=place.root, environ=place.environ())
    assert dict(config.review.gate) == {"low": "unanimous", "high": "majority"}
    assert (config.adr.dir, config.scratchpad) == ("docs/adr", ".notes")
    assert config.roles.proxies == ("gemini",)  # one proxy may be written as a string
    assert config.redact.extra_patterns == ("sk-[a-z]+",)
    assert config.redact.allow_files == ("fixtures/*.pem",)


def test_a_mapping_a_file_fills_is_shown_by_its_keys_and_an_empty_one_as_itself(place):
    place.project("clis: {codex: {env: {A: x}}, gemini: {model: flash}}\n")
    shown = place.shown()
    assert shown["clis.codex.env.A"]["value"] == "x"
    assert "clis.codex.env" not in shown and "clis" not in shown
    assert shown["clis.gemini.env"] == {"value": {}, "source": "default", "from": None}
