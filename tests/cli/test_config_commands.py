"""`council init`, `config show`, `schema` and `completion`, run as a user would: init writes a
council.yaml for the CLIs found here that loads, validates against `council schema config` and
shows every value with its source; it never overwrites a file without --force."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from fakes.install import install_fakes


class Shell:
    """A project directory and a HOME, with the fake vendor CLIs first on PATH."""

    def __init__(self, root: Path) -> None:
        self.project = root / "project"
        self.project.mkdir()
        self.home = root / "home"
        self.home.mkdir()
        self.fakes = install_fakes(root / "bin", ["claude", "codex", "gemini"])

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "council", *args],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=self.project,
            env={
                "PATH": f"{self.fakes.bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin",
                "HOME": str(self.home),
                "LANG": "C.UTF-8",
            },
        )


@pytest.fixture
def shell(tmp_path: Path) -> Shell:
    return Shell(tmp_path)


def test_init_writes_a_commented_file_for_the_clis_found_here(shell):
    result = shell.run("init")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "wrote council.yaml: advocate claude, critic codex, lead codex; CLIs: claude, codex, gemini"
    )
    text = (shell.project / "council.yaml").read_text()
    first, *rest = text.splitlines()
    # Nothing of this machine's: the schema by its release URL, no CLI's path.
    assert first.startswith("# yaml-language-server: $schema=https://")
    assert first.endswith("/config.schema.json")
    assert str(shell.project.parent) not in text
    # Keys carry a comment that says what they take.
    assert "  rounds: 2                   # 2..5" in rest
    assert "    timeout_s: null           # soft timeout; null: 600 s, 1800 s at xhigh" in rest
    written = yaml.safe_load(text)
    assert written["roles"] == {
        "advocate": "claude",
        "critic": "codex",
        "lead": "codex",
        "proxies": [],
    }
    assert list(written["clis"]) == ["claude", "codex", "gemini"]


def test_init_then_config_show_lists_every_value_with_its_source(shell):
    assert shell.run("init").returncode == 0
    user = shell.home / ".config" / "council" / "config.yaml"
    user.parent.mkdir(parents=True)
    user.write_text("clis: {codex: {model: o3}}\nredact: {allow_files: ['*.env.example']}\n")
    result = shell.run("config", "show")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "debate.rounds = 2  (project: ./council.yaml)" in lines
    assert "roles.advocate = claude  (project: ./council.yaml)" in lines
    # null in the project file leaves the user file's value in force; a list replaces.
    assert "clis.codex.model = o3  (user: ~/.config/council/config.yaml)" in lines
    assert "redact.allow_files = []  (project: ./council.yaml)" in lines
    assert "presets.deep.models.claude = opus  (default)" in lines
    shown = json.loads(shell.run("config", "show", "--json").stdout)
    assert shown["values"]["debate.rounds"] == {
        "value": 2,
        "source": "project",
        "from": str(shell.project / "council.yaml"),
    }
    assert [f["level"] for f in shown["files"]] == ["project", "user"]
    deep = shell.run("config", "show", "--preset", "deep").stdout.splitlines()
    assert "debate.rounds = 3  (preset: deep)" in deep
    assert "clis.claude.effort = max  (preset: deep)" in deep


def test_init_refuses_to_overwrite_without_force(shell):
    config = shell.project / "council.yaml"
    config.write_text("debate: {rounds: 5}\n")
    result = shell.run("init")
    assert result.returncode == 2
    assert "council: council.yaml exists; use --force to overwrite it" in result.stderr
    assert config.read_text() == "debate: {rounds: 5}\n"
    assert shell.run("init", "--force").returncode == 0
    assert "rounds: 2" in config.read_text()


def test_init_writes_to_the_config_path_when_one_is_given(shell):
    result = shell.run("--config", "ci.yaml", "init")
    assert result.returncode == 0, result.stderr
    assert (shell.project / "ci.yaml").is_file() and not (shell.project / "council.yaml").exists()


def test_schema_config_is_a_json_schema_that_validates_the_init_output(shell):
    assert shell.run("init").returncode == 0
    result = shell.run("schema", "config")
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    written = yaml.safe_load((shell.project / "council.yaml").read_text())
    jsonschema.Draft202012Validator(schema).validate(written)
    assert schema["properties"]["debate"]["additionalProperties"] is False


def test_schema_defaults_to_result_and_review_prints_the_review_schema(shell):
    assert json.loads(shell.run("schema").stdout)["title"] == "council.result/v1"
    review = shell.run("schema", "review")
    assert review.returncode == 0, review.stderr
    schema = json.loads(review.stdout)
    assert schema["title"] == "council.review/v1"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("shell_name", ["bash", "zsh", "fish"])
def test_completion_prints_clicks_script_for_the_shell(shell, shell_name):
    result = shell.run("completion", shell_name)
    assert result.returncode == 0
    assert "_COUNCIL_COMPLETE" in result.stdout
    assert f"{shell_name}_" in result.stdout  # e.g. _COUNCIL_COMPLETE=bash_complete


def test_the_completion_script_completes_commands_and_choices():
    env = {
        "COMP_WORDS": "council schema ",
        "COMP_CWORD": "2",
        "_COUNCIL_COMPLETE": "bash_complete",
    }
    result = subprocess.run(
        [sys.executable, "-m", "council"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert result.stdout.split() == ["plain,result", "plain,config", "plain,review", "plain,check"]
