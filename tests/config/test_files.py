"""Reading the config files (docs/spec/config.md): what is wrong with a file is one line on
stderr naming the file and the problem, with exit 4, before any run starts: a missing or
directory `--config`, a file that is no UTF-8 text, a YAML syntax error (its line), an alias,
a NaN, a wrong type; and a problem found in the merged result names the file it came from."""

from __future__ import annotations

import json
import os

import pytest

from council.config import load_config
from council.errors import ConfigError


def test_a_missing_config_path_is_refused(place):
    missing = place.root / "nope.yaml"
    assert place.refused("--config", str(missing)) == (
        f"{missing}: config file not found; check the --config path"
    )


def test_a_directory_as_config_path_is_refused(place):
    assert place.refused("--config", str(place.home)) == (
        f"{place.home}: is a directory, not a config file; check --config"
    )


def test_config_dev_null_means_no_project_file_and_the_user_file_still_applies(place):
    place.project("debate:\n  rounds: 5\n")
    place.user("debate:\n  rounds: 3\n")
    result = place.council("--config", os.devnull, "config", "show", "--json")
    assert result.exit_code == 0, result.output
    rounds = json.loads(result.stdout)["values"]["debate.rounds"]
    assert (rounds["value"], rounds["source"]) == (3, "user")


def test_a_pipe_as_config_path_is_refused_with_the_fix(place):
    fifo = place.root / "config.fifo"
    os.mkfifo(fifo)
    assert place.refused("--config", str(fifo)) == (
        f"{fifo}: not a regular file (a pipe or a device); write the config to a file and "
        "pass its path"
    )


def test_a_directory_where_the_project_file_belongs_is_refused_not_skipped(place):
    place.project_file.mkdir()
    assert (
        place.refused() == f"{place.project_file}: is a directory, not a config file; give a file"
    )


def test_a_directory_where_the_user_file_belongs_is_refused_not_skipped(place):
    place.user_file.mkdir(parents=True)
    assert place.refused() == f"{place.user_file}: is a directory, not a config file; give a file"


def test_a_file_that_is_not_utf8_is_refused(place):
    place.project_file.write_bytes(b"debate: {rounds: 3}\n# caf\xe9\n")
    assert place.refused() == f"{place.project_file}: the config file is not UTF-8 text"


def test_a_binary_file_is_refused(place):
    place.project_file.write_bytes(b"debate:\0\0\n")
    assert place.refused() == f"{place.project_file}: the config file is binary, not YAML text"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_file_is_refused(place):
    place.project("debate: {rounds: 3}\n")
    place.project_file.chmod(0)
    assert place.refused() == (
        f"{place.project_file}: cannot read the config file: Permission denied"
    )


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_an_empty_file_leaves_every_default(place, text):
    place.project(text)
    assert "debate.rounds = 2  (default)" in place.show()


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("debate:\n  rounds: 3\n  quorum: [1\n", "line 4"),
        ("debate:\n  rounds: 3\n blind: true\n", "line 3"),
        ("roles: {advocate: claude\n", "line 2"),
        ("version: 1\ndebate: : x\n", "line 2"),
    ],
)
def test_a_yaml_syntax_error_names_its_line(place, text, line):
    place.project(text)
    assert place.refused().startswith(f"{place.project_file}: {line}: YAML syntax error: ")


def test_an_alias_is_refused_with_the_line_that_uses_it(place):
    place.project("roles:\n  advocate: &a claude\n  lead: *a\n")
    assert place.refused() == (
        f"{place.project_file}: line 3: YAML aliases (*a) are not supported in council's "
        "config; write the value out where it is used"
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("debate: {hard_timeout_factor: .nan}\n", "debate.hard_timeout_factor"),
        ("debate: {ready_timeout_s: .NaN}\n", "debate.ready_timeout_s"),
        ("clis: {codex: {timeout_s: .nan}}\n", "clis.codex.timeout_s"),
    ],
)
def test_a_nan_is_refused_where_a_number_goes(place, text, key):
    place.project(text)
    assert place.refused() == f"{place.project_file}: {key}: expected a number, got .nan"


# (council.yaml, message after the file name): a wrong type, each kind the schema has.
WRONG_TYPES = [
    ("debate: {quorum: 1.5}", "debate.quorum: expected an integer of at least 0, got 1.5"),
    (
        "debate: {ready_timeout_s: soon}",
        "debate.ready_timeout_s: expected a number from 0.1 to 86400, got 'soon'",
    ),
    ("debate: {blind: 1}", "debate.blind: expected true or false, got 1"),
    ("debate: {words: 300}", "debate.words: expected a mapping, got 300"),
    ("roles: [claude]", "roles: expected a mapping, got ['claude']"),
    ("roles: {lead: 3}", "roles.lead: expected a non-empty string (or null), got 3"),
    ("clis: {codex: {lean: 'no'}}", "clis.codex.lean: expected true or false, got 'no'"),
    ("clis: {codex: {warm: 0}}", "clis.codex.warm: expected true or false, got 0"),
    (
        "clis: {codex: {model: ''}}",
        "clis.codex.model: expected a non-empty string (or null), got ''",
    ),
    ("clis: {codex: {env: {A: [1]}}}", "clis.codex.env.A: expected a string or a number, got [1]"),
    ("clis: {codex: {env: [A]}}", "clis.codex.env: expected a mapping, got ['A']"),
    (
        "clis: {codex: {extra_args: [1]}}",
        "clis.codex.extra_args: expected a non-empty string or a list of non-empty strings (or "
        "null), got [1]",
    ),
    (
        "clis: {codex: {pass_env: {A: 1}}}",
        "clis.codex.pass_env: expected a non-empty string or a list of non-empty strings (or "
        "null), got {'A': 1}",
    ),
    (
        "clis: {mine: {command: [mine], tty: yes please}}",
        "clis.mine.tty: expected true or false, got 'yes please'",
    ),
    ("scratchpad: ''", "scratchpad: expected a non-empty string (or null), got ''"),
    ("adr: {dir: 5}", "adr.dir: expected a non-empty string, got 5"),
    (
        "redact: {allow_files: [1]}",
        "redact.allow_files: expected a non-empty string or a list of non-empty strings (or "
        "null), got [1]",
    ),
    (
        "presets: {mine: {blind: sometimes}}",
        "presets.mine.blind: expected true or false, got 'sometimes'",
    ),
    (
        "presets: {mine: {models: {codex: ''}}}",
        "presets.mine.models.codex: expected a non-empty string, got ''",
    ),
    (
        "presets: {'my preset': {rounds: 3}}",
        "presets.my preset: expected a preset name (letters, digits, '-' and '_')",
    ),
    (
        "clis: {Codex: {model: o3}}",
        "clis.Codex: expected a CLI name (lower-case letters, digits, '-' and '_')",
    ),
]


@pytest.mark.parametrize(("text", "message"), WRONG_TYPES, ids=[t for t, _ in WRONG_TYPES])
def test_a_wrong_type_is_one_line_naming_the_key_the_type_and_the_value(place, text, message):
    place.project(text + "\n")
    assert place.refused() == f"{place.project_file}: {message}"


# Unknown keys: the key path of the misspelt key, and the keys its section knows.
UNKNOWN = [
    (
        "versoin: 1",
        "versoin",
        "version, roles, debate, quorum, presets, clis, scratchpad, redact, review, adr",
    ),
    ("roles: {advocat: claude}", "roles.advocat", "advocate, critic, lead, proxies"),
    ("quorum: {distinct: off, count: 2}", "quorum.count", "distinct"),
    ("redact: {patterns: [x]}", "redact.patterns", "extra_patterns, allow_files"),
    ("review: {gates: {}}", "review.gates", "gate"),
    ("review: {gate: {blocker: any}}", "review.gate.blocker", "critical, high, medium, low"),
    ("adr: {directory: x}", "adr.directory", "dir"),
    (
        "presets: {mine: {model: o3}}",
        "presets.mine.model",
        "rounds, effort, quorum, models, efforts, proxies, blind",
    ),
    (
        "clis: {codex: {modle: o3}}",
        "clis.codex.modle",
        "command, adapter, model, effort, timeout_s, extra_args, pass_env, env, input, output, "
        "model_flag, tty, version_args, state_dirs, lean, warm",
    ),
]


@pytest.mark.parametrize(("text", "key", "known"), UNKNOWN, ids=[u[1] for u in UNKNOWN])
def test_an_unknown_key_names_its_path_and_the_keys_its_section_knows(place, text, key, known):
    place.project(text + "\n")
    assert place.refused() == f"{place.project_file}: {key}: unknown key; known keys: {known}"


def test_null_is_not_set_for_every_key_and_fails_no_type(place):
    place.project(
        "roles: {advocate: null, proxies: null}\ndebate: {words: {proxy: null}, blind: null}\n"
        "clis: {codex: {lean: null, env: null, timeout_s: null}}\nscratchpad: null\n"
        "adr: {dir: null}\nredact: null\n"
    )
    lines = place.show()
    for line in [
        "debate.words.proxy = 200  (default)",
        "debate.blind = true  (default)",
        "clis.codex.lean = true  (default)",
        "scratchpad = .scratchpad  (default)",
        "adr.dir = null  (default)",
    ]:
        assert line in lines
    assert load_config(cwd=place.root, environ={}).clis["codex"].lean is True


def test_an_unquoted_off_is_the_distinct_setting_off(place):
    place.project("quorum:\n  distinct: off\n")
    assert load_config(cwd=place.root, environ={}).quorum.distinct == "off"


def test_a_problem_in_the_user_file_names_the_user_file(place):
    place.project("debate: {rounds: 3}\n")
    place.user("debate: {words: {proxy: many}}\n")
    assert place.refused() == (
        f"{place.user_file}: debate.words.proxy: expected an integer of at least 1, got 'many'"
    )


def test_a_problem_of_the_merged_result_names_the_file_the_value_came_from(place):
    place.project("clis: {codex: {model: o3}}\nredact: {allow_files: ['*.pem']}\n")
    place.user("clis: {codex: {extra_args: [--yolo]}}\nredact: {extra_patterns: ['(']}\n")
    assert place.refused().startswith(f"{place.user_file}: clis.codex.extra_args: flags that")
    place.user("redact: {extra_patterns: ['(']}\n")
    assert place.refused().startswith(
        f"{place.user_file}: redact.extra_patterns[0]: not a valid regular expression"
    )
    place.user("clis: {mine: {model: x}}\n")
    place.project("clis: {mine: {timeout_s: 30}}\n")
    # both files gave keys of the entry: the higher one is named
    assert place.refused().startswith(f"{place.project_file}: clis.mine: a user-defined CLI")


def test_a_user_defined_cli_split_across_the_two_files_is_checked_whole(place):
    place.user("clis: {mine: {command: [mine, --out, '{answer_file}']}}\n")
    place.project("clis: {mine: {output: file, timeout_s: 30}}\n")
    mine = load_config(cwd=place.root, environ=place.environ()).clis["mine"]
    assert (mine.command, mine.output, mine.timeout_s) == (
        ("mine", "--out", "{answer_file}"),
        "file",
        30,
    )


def test_each_file_is_checked_on_its_own_before_they_merge(place):
    # a bad value in the user file is refused even where the project file sets that key
    place.project("debate: {rounds: 3}\n")
    place.user("debate: {rounds: 9}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=place.root, environ=place.environ())
    assert str(caught.value) == (
        f"{place.user_file}: debate.rounds: expected an integer from 2 to 5, got 9"
    )
    assert caught.value.exit_code == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "colour: blue\ndebate: {rounds: 9, words: {proxy: 0}}\n",
            "colour: unknown key; known keys: version, roles, debate, quorum, presets, clis, "
            "scratchpad, redact, review, adr",
        ),
        (
            "debate: {rounds: 9, words: {proxy: 0, respond: x}}\n",
            "debate.rounds: expected an integer from 2 to 5, got 9",
        ),
    ],
)
def test_a_file_with_several_mistakes_gets_one_line_naming_one_of_them(place, text, message):
    place.project(text)
    assert place.refused() == f"{place.project_file}: {message}"
