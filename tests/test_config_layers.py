"""Where each setting comes from: flag > preset > project file > user file > default, in one
function (`council.config.pick`, applied by `plan_settings`), and how the two files merge:
mappings key by key, lists and scalars replaced, null never hiding a lower level."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.config import (
    DEFAULT_SOURCE,
    FLAG_SOURCE,
    Level,
    Source,
    Sourced,
    load_config,
    pick,
    read_config,
)
from council.debate.flags import DebateFlags
from council.debate.plan import plan_settings, resolve_plan


def files(tmp_path: Path, project: str | None, user: str | None) -> dict[str, str]:
    """Write the project file (in cwd) and the user file (under XDG_CONFIG_HOME)."""
    if project is not None:
        (tmp_path / "council.yaml").write_text(project)
    if user is not None:
        (tmp_path / "xdg" / "council").mkdir(parents=True)
        (tmp_path / "xdg" / "council" / "config.yaml").write_text(user)
    return {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path / "home")}


# A user preset `team` (quorum 7) lives in the user file so a preset row needs no flag of its
# own; each row drops the level above the previous row's winner.
PRECEDENCE = [
    # (level that wins, --quorum, --preset, project file, user file, quorum, source label)
    ("flag", 9, "team", "debate: {quorum: 5}\n", "debate: {quorum: 3}\n", 9, "flag"),
    ("preset", None, "team", "debate: {quorum: 5}\n", "debate: {quorum: 3}\n", 7, "preset"),
    ("project", None, None, "debate: {quorum: 5}\n", "debate: {quorum: 3}\n", 5, "project"),
    ("user", None, None, "debate: {rounds: 3}\n", "debate: {quorum: 3}\n", 3, "user"),
    ("default", None, None, "debate: {rounds: 3}\n", "debate: {rounds: 4}\n", 1, "default"),
]


@pytest.mark.parametrize(
    ("level", "flag", "preset", "project", "user", "quorum", "source"),
    PRECEDENCE,
    ids=[row[0] for row in PRECEDENCE],
)
def test_each_level_beats_every_level_below_it(
    tmp_path, level, flag, preset, project, user, quorum, source
):
    user += "presets: {team: {quorum: 7}}\n"
    config = load_config(cwd=tmp_path, environ=files(tmp_path, project, user))
    flags = DebateFlags(question="q", quorum=flag, preset=preset)
    chosen = plan_settings(flags, config)["quorum"]
    assert (chosen.value, chosen.source.label) == (quorum, source)
    plan = resolve_plan(flags, config, installed=lambda name: name in ("claude", "codex"))
    assert plan.quorum == quorum
    if source in ("project", "user"):
        name = "council.yaml" if source == "project" else "config.yaml"
        assert Path(chosen.source.where).name == name


def test_pick_takes_the_highest_level_that_is_set():
    user = Source(Level.USER, "/home/u/.config/council/config.yaml")
    project = Source(Level.PROJECT, "./council.yaml")
    assert pick(Sourced(3, user), Sourced(5, project), Sourced(2, DEFAULT_SOURCE)).value == 5
    # None is "not given" at any level: it never hides a lower one.
    assert pick(Sourced(None, FLAG_SOURCE), Sourced(3, user)).source == user
    # Nothing set: the lowest candidate, so an unset value still says where it lives.
    assert pick(Sourced(None, project), Sourced(None, DEFAULT_SOURCE)).source == DEFAULT_SOURCE


def test_the_two_files_merge_mappings_key_by_key_and_replace_lists(tmp_path):
    environ = files(
        tmp_path,
        project="debate: {words: {proxy: 90}}\nroles: {proxies: [gemini]}\n"
        "clis: {codex: {model: null, timeout_s: 900}}\n",
        user="debate: {rounds: 4, words: {proposal: 150}}\nroles: {proxies: [qwen, kimi]}\n"
        "clis: {codex: {model: o3, extra_args: [--quiet]}}\n",
    )
    loaded = read_config(cwd=tmp_path, environ=environ)
    config = loaded.config
    assert config.debate.rounds == 4  # only the user file says
    assert (config.debate.words["proxy"], config.debate.words["proposal"]) == (90, 150)
    assert config.debate.words["challenge"] == 300  # the default fills the rest
    assert config.roles.proxies == ("gemini",)  # a list is replaced, not merged
    codex = config.clis["codex"]
    # `model: null` in the project file leaves the user file's model in force.
    assert (codex.model, codex.timeout_s, codex.extra_args) == ("o3", 900, ("--quiet",))
    assert [f.level for f in loaded.files] == [Level.PROJECT, Level.USER]
    assert config.files == (tmp_path / "council.yaml", tmp_path / "xdg/council/config.yaml")
    sources = {key: v.source.label for key, v in loaded.values.items()}
    assert sources["debate.words.proxy"] == "project"
    assert sources["debate.words.proposal"] == "user"
    assert sources["debate.words.rebuttal"] == "default"
    assert sources["clis.codex.model"] == "user"


def test_config_path_replaces_the_project_file_but_the_user_file_still_merges(tmp_path):
    environ = files(tmp_path, "debate: {rounds: 5}\n", "debate: {quorum: 2}\n")
    other = tmp_path / "ci.yaml"
    other.write_text("debate: {rounds: 3}\n")
    config = load_config(other, cwd=tmp_path, environ=environ)
    assert (config.debate.rounds, config.debate.quorum) == (3, 2)
    assert config.files == (other, tmp_path / "xdg/council/config.yaml")


def test_the_user_file_defaults_to_dot_config_under_home(tmp_path):
    home = tmp_path / "home"
    (home / ".config/council").mkdir(parents=True)
    (home / ".config/council/config.yaml").write_text("debate: {rounds: 5}\n")
    assert load_config(cwd=tmp_path, environ={"HOME": str(home)}).debate.rounds == 5


def test_a_file_preset_replaces_the_built_in_one_of_its_name(tmp_path):
    environ = files(tmp_path, "presets: {deep: {rounds: 4}}\n", None)
    deep = load_config(cwd=tmp_path, environ=environ).presets["deep"]
    assert (deep.rounds, deep.effort, dict(deep.models)) == (4, None, {})


def test_a_bad_value_names_the_file_it_is_in_when_two_merge(tmp_path):
    from council.errors import ConfigError

    environ = files(tmp_path, "debate: {rounds: 3}\n", "clis: {codex: {extra_args: [--yolo]}}\n")
    with pytest.raises(ConfigError, match=r"xdg/council/config.yaml: clis.codex.extra_args"):
        load_config(cwd=tmp_path, environ=environ)
    # A user-defined CLI may be split across the files: the merged entry is what is checked.
    (tmp_path / "2").mkdir()
    environ = files(
        tmp_path / "2", "clis: {mine: {timeout_s: 30}}\n", "clis: {mine: {command: [mine]}}\n"
    )
    mine = load_config(cwd=tmp_path / "2", environ=environ).clis["mine"]
    assert (mine.command, mine.timeout_s) == (("mine",), 30)
