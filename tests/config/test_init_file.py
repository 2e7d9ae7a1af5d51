"""The council.yaml `council init` writes (docs/spec/config.md: "a commented council.yaml with
every key at its default"): each key's line as written, each found CLI's entry with its soft
timeouts (docs/spec/clis.md, "Default soft timeouts"), comments in one column, and a file that
reads back as the built-in defaults."""

from __future__ import annotations

import pytest
import yaml

from council.adapters import adapter_for
from council.config import Config, parse_config
from council.config.template import COMMENT_COLUMN, FoundCli, render_template


def template(*names: str, version: str | None = "1.0") -> list[str]:
    found = [FoundCli(adapter_for(n), version) for n in names]
    seats = (names[0], names[1 % len(names)], names[0]) if names else (None, None, None)
    return render_template(*seats, found).splitlines()


def value_part(line: str) -> str:
    return line.split(" # ", 1)[0].rstrip()


# The file's lines with no CLI found, comments left out, in order: every key at the spec's
# default, each once.
KEY_LINES = [
    "version: 1",
    "roles:",
    "  advocate: null",
    "  critic: null",
    "  lead: null",
    "  proxies: []",
    "debate:",
    "  rounds: 2",
    "  quorum: 1",
    "  words:",
    "    proposal: 300",
    "    blind: 150",
    "    challenge: 300",
    "    proxy: 200",
    "    respond: 300",
    "    rebuttal: 200",
    "    final_summary: 200",
    "  context_lines: 15",
    "  file_lines: 500",
    "  total_lines: 2000",
    "  ready_timeout_s: 60",
    "  hard_timeout_factor: 1.5",
    "  blind: true",
    "  max_warm_seats: 4",
    "  on_injection: warn",
    "  max_cost: null",
    "quorum:",
    '  distinct: "off"',
    "presets: {}",
    "clis: {}",
    "scratchpad: .scratchpad",
    "redact:",
    "  extra_patterns: []",
    "  allow_files: []",
]


def test_every_key_is_written_once_at_its_default():
    written = [value_part(x) for x in template() if not x.startswith("#")]
    assert written == KEY_LINES


def test_the_file_reads_back_as_the_built_in_defaults():
    text = "\n".join(template("claude", "codex"))
    config = parse_config(yaml.safe_load(text))
    defaults = Config()
    assert config.debate == defaults.debate and config.quorum == defaults.quorum
    assert config.redact == defaults.redact and config.scratchpad == defaults.scratchpad
    assert (config.roles.advocate, config.roles.critic, config.roles.lead) == (
        "claude",
        "codex",
        "claude",
    )
    assert config.roles.proxies == ()
    assert list(config.clis) == ["claude", "codex"]
    for settings in config.clis.values():
        assert (settings.lean, settings.warm, settings.model, settings.timeout_s) == (
            True,
            True,
            None,
            None,
        )


def test_the_seats_picked_are_written_under_roles():
    lines = [value_part(x) for x in template("gemini", "qwen")]
    assert lines[lines.index("roles:") + 1 : lines.index("roles:") + 4] == [
        "  advocate: gemini",
        "  critic: qwen",
        "  lead: gemini",
    ]


def test_with_no_cli_found_the_seats_are_null_and_clis_empty():
    lines = template()
    assert "  advocate: null              # none found here: null = pick at run time" in lines
    assert "clis: {}                      # no AI CLI found here" in lines


# (CLI, its `timeout_s` comment: the spec's default soft timeouts, and its efforts)
CLI_LINES = [
    ("codex", "soft timeout; null: 600 s, 1800 s at xhigh", "minimal|low|medium|high|xhigh"),
    ("claude", "soft timeout; null: 600 s, 900 s at xhigh|max", "low|medium|high|xhigh|max"),
    ("pi", "soft timeout; null: 600 s, 900 s at xhigh", "off|minimal|low|medium|high|xhigh"),
    ("kimi", "soft timeout; null: 300 s, 600 s at high|xhigh|max", "low|medium|high|xhigh|max"),
    ("gemini", "soft timeout; null: 300 s", "this CLI takes no effort setting"),
    ("qwen", "soft timeout; null: 300 s", "this CLI takes no effort setting"),
]


@pytest.mark.parametrize(("name", "timeouts", "efforts"), CLI_LINES)
def test_each_found_cli_gets_its_entry_with_its_timeouts_and_efforts(name, timeouts, efforts):
    lines = template(name)
    start = [value_part(x) for x in lines].index(f"  {name}:")
    assert lines[start].endswith("# found here (1.0)")
    entry = lines[start + 1 : start + 10]
    assert [value_part(x) for x in entry] == [
        f"    command: {name}",
        "    model: null",
        "    effort: null",
        "    timeout_s: null",
        "    extra_args: []",
        "    pass_env: []",
        "    env: {}",
        "    lean: true",
        "    warm: true",
    ]
    assert entry[2].endswith(f"# {efforts}")
    assert entry[3].startswith("    timeout_s: null") and entry[3].endswith(f"# {timeouts}")


def test_a_cli_found_without_a_version_says_found_here_alone():
    lines = template("codex", version=None)
    assert "  codex:                      # found here" in lines


def test_comments_start_in_one_column():
    commented = [x for x in template("claude", "codex") if " # " in x and not x.startswith("#")]
    assert commented and {x.index(" # ") + 1 for x in commented} == {COMMENT_COLUMN}


def test_the_first_lines_say_the_precedence():
    lines = template()
    assert lines[2] == (
        "# Precedence: flag > preset > this file > user file > built-in default. Every key"
    )
