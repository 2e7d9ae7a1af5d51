"""The defaults a user meets when they set nothing, as `council config show` prints them and
as a review's prompts state them, against what the spec says: every key of docs/spec/config.md's
documented council.yaml that has a built-in default is one row (generated from the Markdown,
never retyped), and a review's word budget (docs/spec/protocol.md section 9, "Word limits") is
checked on the prompts a review sent."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from council.adapters.base import CliSettings
from council.cli.app import cli
from project import Project
from test_shipped_defaults import config_md, prose

# Sections of the documented file that are built-in defaults; `roles`, `presets` and `clis`
# hold examples there (a user's seats, a preset, CLIs of their own).
DEFAULT_SECTIONS = ("version", "debate", "quorum", "scratchpad", "redact")
# What config.md's `clis.codex` example shows of every CLI's settings at their defaults.
CLI_DEFAULTS = ("extra_args", "pass_env", "lean", "warm")


def leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [
            leaf for key, v in value.items() for leaf in leaves(v, f"{path}.{key}" if path else key)
        ]
    return [(path, value)]


ROWS = [leaf for section in DEFAULT_SECTIONS for leaf in leaves({section: config_md()[section]})]


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`council config show` in a project with no council.yaml and no user file: key -> value."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(home)
        patch.setenv("HOME", str(home))
        patch.delenv("XDG_CONFIG_HOME", raising=False)
        out = CliRunner().invoke(cli, ["config", "show"], prog_name="council").output
    found = {}
    for line in out.splitlines():
        key, _, rest = line.partition(" = ")
        value, source = rest.rsplit("  (", 1)
        assert source == "default)", line
        found[key] = yaml.safe_load(value)
    return found


def test_the_table_is_not_empty_and_holds_the_keys_users_tune_most():
    keys = {key for key, _ in ROWS}
    assert {"debate.rounds", "debate.words.proposal", "debate.ready_timeout_s"} <= keys
    assert len(ROWS) >= 20


@pytest.mark.parametrize(("key", "documented"), ROWS, ids=[key for key, _ in ROWS])
def test_every_documented_default_is_what_council_config_show_prints(shown, key, documented):
    assert key in shown, f"`council config show` has no {key}"
    assert shown[key] == documented


@pytest.mark.parametrize("name", CLI_DEFAULTS)
def test_every_cli_s_documented_settings_are_its_defaults(name):
    documented = config_md()["clis"]["codex"][name]
    value = getattr(CliSettings(name="codex", adapter="codex"), name)
    assert (list(value) if isinstance(value, tuple) else value) == documented


def review_budget(phase: str) -> int:
    match = re.search(rf"the {phase} prompt (?:asks )?for\s+at most (\d+)", prose("protocol.md"))
    assert match, f"protocol.md states no word limit for a review's {phase}"
    return int(match.group(1))


def test_a_review_s_prompts_state_the_documented_word_budget(tmp_path: Path):
    project = Project(tmp_path)
    done = project.run("review", "--files", "app.py", "--sim")
    assert done.returncode == 0, done.stderr
    record = project.record()
    for phase, round_ in (("REVIEW", 1), ("CROSS_CHECK", 2)):
        limit = review_budget(phase)
        for prompt in sorted(record.glob(f"reviewer-*-r{round_}-prompt.md")):
            assert f"in at most {limit} words" in prompt.read_text(), (phase, prompt.name)
    assert len(list(record.glob("reviewer-*-prompt.md"))) == 4
