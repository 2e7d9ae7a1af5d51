"""Every validation message of council.yaml through the command line: one line on stderr that
names the file, the key path, what was expected and the value got, and exit 4. The schema's
checks (types, ranges, unknown keys) and the code's (the registry, regular expressions, a
user-defined CLI's keys) read alike."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from council.cli import cli

CASES = [
    # (council.yaml, the message after "<file>: ")
    ("debate: {rounds: 7}", "debate.rounds: expected an integer from 2 to 5, got 7"),
    ("debate: {rounds: three}", "debate.rounds: expected an integer from 2 to 5, got 'three'"),
    ("debate: {quorum: -1}", "debate.quorum: expected an integer of at least 0, got -1"),
    ("debate: {words: {proxy: 0}}", "debate.words.proxy: expected an integer of at least 1, got 0"),
    (
        "debate: {hard_timeout_factor: 0.5}",
        "debate.hard_timeout_factor: expected a number from 1 to 10, got 0.5",
    ),
    ("debate: {blind: maybe}", "debate.blind: expected true or false, got 'maybe'"),
    (
        "debate: {max_warm_seats: -2}",
        "debate.max_warm_seats: expected an integer of at least 0, got -2",
    ),
    ("debate: 5", "debate: expected a mapping, got 5"),
    ("- a list", "top level: expected a mapping, got ['a list']"),
    ("version: 2", "version: expected 1, got 2"),
    (
        "debate: {roundz: 3}",
        "debate.roundz: unknown key; known keys: rounds, quorum, words, context_lines, "
        "file_lines, total_lines, ready_timeout_s, hard_timeout_factor, blind, max_warm_seats",
    ),
    (
        "colour: blue",
        "colour: unknown key; known keys: version, roles, debate, quorum, presets, clis, "
        "scratchpad, redact",
    ),
    ("roles: {advocate: ''}", "roles.advocate: expected a non-empty string (or null), got ''"),
    (
        "roles: {proxies: [1]}",
        "roles.proxies: expected a non-empty string or a list of non-empty strings (or null), "
        "got [1]",
    ),
    (
        "presets: {mine: {effort: extreme}}",
        "presets.mine.effort: expected one of minimal, low, medium, high, xhigh, max (or null), "
        "got 'extreme'",
    ),
    (
        "presets: {mine: {rounds: 9}}",
        "presets.mine.rounds: expected an integer from 2 to 5, got 9",
    ),
    (
        "clis: {codex: {timeout_s: fast}}",
        "clis.codex.timeout_s: expected a number from 1 to 86400 (or null), got 'fast'",
    ),
    (
        "clis: {Big Tool: {command: [t]}}",
        "clis.Big Tool: expected a CLI name (lower-case letters, digits, '-' and '_')",
    ),
    (
        "clis: {t: {command: [t], env: {9LIVES: x}}}",
        "clis.t.env.9LIVES: expected a variable name (letters, digits and '_', not starting "
        "with a digit)",
    ),
    (
        "clis: {t: {command: [t], version_args: [1]}}",
        "clis.t.version_args[0]: expected a non-empty string, got 1",
    ),
    (
        "clis: {t: {command: [t], input: pipe}}",
        "clis.t.input: expected one of stdin, file, arg, got 'pipe'",
    ),
    (
        "clis: {t: {command: [t], output: xml}}",
        "clis.t.output: expected stdout, file or json:<dotted.path> (user-defined CLI: where "
        "the answer comes out), got 'xml'",
    ),
    # The checks that stay as code after the schema:
    (
        "clis: {t: {command: [t], output: file}}",
        "clis.t.output: output: file needs {answer_file} in the command, where the CLI "
        "writes, got 'file'",
    ),
    (
        "clis: {t: {model: x}}",
        "clis.t: a user-defined CLI needs `command:` (or `adapter:` one of claude, codex, "
        "gemini, qwen, kimi, pi, sim)",
    ),
    ("clis: {t: {adapter: gpt}}", "clis.t.adapter: expected one of claude, codex, gemini"),
    (
        "clis: {codex: {adapter: gemini}}",
        "clis.codex.adapter: a built-in CLI keeps its own adapter (codex), got 'gemini'",
    ),
    (
        "clis: {gemini: {extra_args: [--yolo]}}",
        "clis.gemini.extra_args: flags that bypass approvals or sandboxes are never passed; "
        "remove it, got '--yolo'",
    ),
    (
        "clis: {agy: {command: [agy, --dangerously-skip-permissions, -p], input: arg}}",
        "clis.agy.command: flags that bypass approvals or sandboxes are never passed; "
        "remove it, got '--dangerously-skip-permissions'",
    ),
    (
        "clis: {codex: {version_args: []}}",
        "clis.codex.version_args: only a user-defined CLI (with `command:` and no `adapter:`) "
        "takes this key",
    ),
    (
        "clis: {claude: {state_dirs: [~/.claude2]}}",
        "clis.claude.state_dirs: only a user-defined CLI (with `command:` and no `adapter:`) "
        "takes this key",
    ),
    (
        "clis: {agy: {command: [agy], state_dirs: [~/]}}",
        "clis.agy.state_dirs[0]: expected a directory below HOME written `~/...` (e.g. "
        "~/.mytool), without `..`, got '~/'",
    ),
    (
        "clis: {agy: {command: [agy], state_dirs: [~/.agy/../projects]}}",
        "clis.agy.state_dirs[0]: expected a directory below HOME",
    ),
    (
        "clis: {agy: {command: [agy], state_dirs: /etc}}",
        "clis.agy.state_dirs[0]: expected a directory below HOME",
    ),
    (
        # 10 lines of nested aliases expand to 10^9 nodes: refused, not walked
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{c}: &{c} [{('*' + p + ', ') * 9}*{p}]\n"
            for p, c in zip("abcdefgh", "bcdefghi", strict=True)
        )
        + "debate: {rounds: 3}",
        "line 2: YAML aliases (*a) are not supported in council's config; write the value out "
        "where it is used",
    ),
    (
        "redact: {extra_patterns: ['([']}",
        "redact.extra_patterns[0]: not a valid regular expression (unterminated character set "
        "at position 1), got '(['",
    ),
    (
        "debate:\n  rounds: 3\n  words: {proposal: 300",
        "line 4: YAML syntax error: expected ',' or '}', but got '<stream end>' (while parsing "
        "a flow mapping on line 3)",
    ),
    ("debate:\n\trounds: 3", "line 2: YAML syntax error: found character '\\t' that cannot"),
]


@pytest.mark.parametrize(("yaml_text", "message"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_config_is_one_line_naming_file_key_expectation_and_value(
    project, yaml_text, message
):
    (project / "council.yaml").write_text(yaml_text + "\n")
    result = CliRunner().invoke(cli, ["config", "show"], prog_name="council")
    assert result.exit_code == 4, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"council: {project / 'council.yaml'}: {message}"), line


def test_the_user_file_is_named_when_the_problem_is_in_it(project):
    user = project / "home" / ".config" / "council" / "config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("debate: {quorum: many}\n")
    (project / "council.yaml").write_text("debate: {rounds: 3}\n")
    result = CliRunner().invoke(cli, ["doctor"], prog_name="council")
    assert result.exit_code == 4
    assert f"{user}: debate.quorum: expected an integer of at least 0, got 'many'" in result.output


def test_null_means_not_set_for_every_key(project):
    (project / "council.yaml").write_text(
        "debate: {rounds: null, quorum: null, hard_timeout_factor: null}\nroles: {critic: null}\n"
    )
    result = CliRunner().invoke(cli, ["config", "show"], prog_name="council")
    assert result.exit_code == 0, result.output
    assert "debate.rounds = 2  (default)" in result.output  # not an error, not a hidden value


def test_an_unquoted_off_is_the_setting_off_not_a_type_error(project):
    # YAML 1.1 reads `off` as false; config.md writes `distinct: off`
    (project / "council.yaml").write_text("quorum:\n  distinct: off\n")
    result = CliRunner().invoke(cli, ["config", "show"], prog_name="council")
    assert result.exit_code == 0, result.output
    assert "quorum.distinct = off" in result.output
