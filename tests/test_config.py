"""The config file: defaults, user-defined CLIs and variants, and errors that name the file,
the key path and what was expected (exit 4)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.custom import CustomAdapter
from council.adapters.sim import SimAdapter
from council.config import Config, RunSettings, load_config, parse_config
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.errors import ConfigError
from council.review.flags import ReviewFlags
from council.review.plan import resolve_review_plan


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "council.yaml"
    path.write_text(text)
    return path


def test_no_config_file_gives_the_built_in_defaults(tmp_path):
    config = load_config(cwd=tmp_path, environ={"HOME": str(tmp_path)})
    assert config == Config()
    assert config.debate.rounds == 2 and config.debate.words["proxy"] == 200
    assert set(config.presets) == {"quick", "balanced", "deep"}


def test_the_config_in_the_current_directory_is_found(tmp_path):
    write(tmp_path, "debate: {rounds: 3}\n")
    assert load_config(cwd=tmp_path, environ={}).debate.rounds == 3


def test_a_user_defined_cli_becomes_a_custom_adapter(tmp_path):
    config = parse_config(
        {
            "clis": {
                "mytool": {
                    "command": ["mytool", "--quiet", "--out", "{answer_file}"],
                    "output": "file",
                    "model_flag": "--model",
                    "timeout_s": 120,
                }
            }
        }
    )
    adapter = adapter_for("mytool", config.clis)
    assert isinstance(adapter, CustomAdapter)
    assert adapter.soft_timeout(None) == 120
    assert adapter.vendor == "custom:mytool"


def test_a_variant_of_the_simulator_carries_its_own_fault_injection():
    config = parse_config(
        {"clis": {"sim-slow": {"adapter": "sim", "env": {"COUNCIL_SIM_DELAY": 3}}}}
    )
    adapter = adapter_for("sim-slow", config.clis)
    assert isinstance(adapter, SimAdapter)
    assert adapter.settings.env == {"COUNCIL_SIM_DELAY": "3"}


@pytest.mark.parametrize(
    ("yaml_text", "message"),
    [
        ("debate: {rounds: 7}\n", "debate.rounds: expected an integer from 2 to 5, got 7"),
        ("debate: {roundz: 3}\n", "debate.roundz: unknown key"),
        ("clis: {codex: {timeout_s: fast}}\n", "clis.codex.timeout_s: expected a number"),
        ("clis: {mytool: {model: x}}\n", "clis.mytool: a user-defined CLI needs `command:`"),
        ("clis: {mytool: {command: [t], output: file}}\n", "needs {answer_file}"),
        (
            "clis: {codex: {extra_args: [--dangerously-bypass-approvals-and-sandbox]}}\n",
            "bypass approvals or sandboxes",
        ),
        ("clis: {gemini: {extra_args: [--yolo]}}\n", "bypass approvals"),
        ("clis: {mytool: {command: [t], input: pipe}}\n", "expected one of stdin, file, arg"),
        ("clis: {codex: {tty: true}}\n", "only a user-defined CLI"),
        ("redact: {extra_patterns: ['([']}\n", "not a valid regular expression"),
        ("version: 2\n", "version: expected 1"),
        ("presets: {mine: {effort: extreme}}\n", "presets.mine.effort: expected one of"),
        ("quorum: {distinct: vendors}\n", "quorum.distinct: expected one of off, vendor, family"),
    ],
)
def test_bad_values_name_the_file_the_key_and_the_expectation(tmp_path, yaml_text, message):
    path = write(tmp_path, yaml_text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)
    assert caught.value.exit_code == 4


def test_quorum_distinct_is_off_unless_a_file_says_what_counts_as_one_voice(tmp_path):
    assert load_config(write(tmp_path, "version: 1\n")).quorum.distinct == "off"
    config = load_config(write(tmp_path, "quorum: {distinct: family}\n"))
    assert config.quorum.distinct == "family"


def test_a_yaml_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, "debate:\n  rounds: 3\n  words: {proposal: 300\n")
    with pytest.raises(ConfigError, match=r"line \d+: YAML syntax error"):
        load_config(path)


def test_an_unknown_cli_name_lists_the_valid_ones():
    with pytest.raises(ConfigError, match="use one of claude, codex, gemini, qwen, kimi, pi, sim"):
        adapter_for("gpt-cli")


def test_a_missing_explicit_config_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_the_schema_and_the_code_know_the_same_keys():
    from dataclasses import fields

    from council.adapters.base import CliSettings
    from council.config import EFFORTS, WORD_KEYS, DebateSettings
    from council.config.validation import config_schema

    schema = config_schema()
    top = schema["properties"]
    assert set(top["debate"]["properties"]) == {f.name for f in fields(DebateSettings)}
    assert tuple(top["debate"]["properties"]["words"]["properties"]) == WORD_KEYS
    cli_keys = set(top["clis"]["additionalProperties"]["properties"])
    assert cli_keys == {f.name for f in fields(CliSettings)} - {"name"}
    assert tuple(v for v in schema["$defs"]["effort"]["enum"] if v) == EFFORTS


def test_without_a_config_file_neither_yaml_nor_jsonschema_is_imported(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; from council.config import load_config; "
        f"load_config(cwd=__import__('pathlib').Path({str(tmp_path)!r}), environ={{}}); "
        "print(sorted(m for m in ('yaml', 'jsonschema') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    version = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "council", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {line.split("|")[-1].strip() for line in version.stderr.splitlines()}
    assert not {"yaml", "jsonschema", "council.config"} & imported


def test_parse_config_checks_against_the_schema_too():
    with pytest.raises(ConfigError, match=r"^config: debate.rounds: expected an integer"):
        parse_config({"debate": {"rounds": 1}})
    config = parse_config({"debate": {"rounds": 3.0, "blind": False, "max_warm_seats": 0}})
    assert config.debate.rounds == 3 and isinstance(config.debate.rounds, int)
    assert (config.debate.blind, config.debate.max_warm_seats) == (False, 0)


def test_lean_warm_and_version_args_are_stored():
    config = parse_config(
        {
            "clis": {
                "codex": {"lean": False, "warm": False},
                "mine": {"command": "mine", "version_args": []},
            }
        }
    )
    assert (config.clis["codex"].lean, config.clis["codex"].warm) == (False, False)
    assert config.clis["mine"].version_args == () and config.clis["mine"].command == ("mine",)


def test_the_settings_every_run_reads_are_the_debate_keys_users_write(tmp_path):
    write(
        tmp_path,
        "debate:\n  file_lines: 40\n  total_lines: 90\n  context_lines: 3\n"
        "  ready_timeout_s: 7\n  hard_timeout_factor: 2\n  max_warm_seats: 1\n"
        "  on_injection: exclude\n",
    )
    config = load_config(cwd=tmp_path, environ={})
    assert config.run == RunSettings(
        context_lines=3,
        file_lines=40,
        total_lines=90,
        ready_timeout_s=7,
        hard_timeout_factor=2,
        max_warm_seats=1,
        on_injection="exclude",
    )
    (tmp_path / "a.py").write_text("x = 1\n")
    debate = resolve_plan(DebateFlags(question="q", sim=True), config, lambda _n: False)
    review = resolve_review_plan(
        ReviewFlags(files=("a.py",), sim=True), config, cwd=tmp_path, installed=lambda _n: False
    )
    for plan in (debate, review):
        assert {k: getattr(plan, k) for k in asdict(config.run)} == asdict(config.run)


# Each CLI's flags that lift its approvals or its read-only sandbox, as its vendor documents
# them (docs/spec/clis.md, the first rule of the file), in each form a user may
# write them: every one is refused in extra_args, in the config file, with exit 4.
BYPASS_FLAGS = [
    ("claude", ["--dangerously-skip-permissions"]),
    ("claude", ["--allow-dangerously-skip-permissions"]),
    ("claude", ["--permission-mode=bypassPermissions"]),
    ("claude", ["--permission-mode", "bypassPermissions"]),
    ("codex", ["--dangerously-bypass-approvals-and-sandbox"]),
    ("codex", ["--full-auto"]),
    ("codex", ["--yolo"]),
    ("codex", ["--sandbox", "danger-full-access"]),
    ("codex", ["-s=danger-full-access"]),
    ("gemini", ["--yolo"]),
    ("gemini", ["-y"]),
    ("gemini", ["--approval-mode=yolo"]),
    ("gemini", ["--approval-mode", "yolo"]),
    ("qwen", ["--yolo"]),
    ("qwen", ["--approval-mode", "yolo"]),
    ("kimi", ["--yolo"]),
    ("kimi", ["-y"]),
    ("pi", ["--approve"]),
]


@pytest.mark.parametrize(("cli", "args"), BYPASS_FLAGS, ids=[" ".join(a) for _, a in BYPASS_FLAGS])
def test_a_flag_that_lifts_a_clis_approvals_or_sandbox_is_refused(tmp_path, cli, args):
    path = write(tmp_path, f"clis: {{{cli}: {{extra_args: {json.dumps(args)}}}}}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "bypass approvals or sandboxes" in str(caught.value)
    assert caught.value.exit_code == 4
