"""The file `council init` writes: valid YAML that loads, validates and reads back as written,
whichever CLIs were found."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from council import __version__
from council.adapters import adapter_for
from council.config import parse_config
from council.config.template import RAW_SOURCE, FoundCli, _yaml, render_template, schema_url

ROOT = Path(__file__).resolve().parents[1]


def test_with_no_cli_found_the_file_still_loads_at_the_defaults():
    text = render_template(None, None, None, [])
    config = parse_config(yaml.safe_load(text))
    assert config.roles.advocate is None and config.clis == {}
    assert config.debate.rounds == 2 and config.scratchpad == ".scratchpad"


def test_every_found_cli_gets_an_entry_that_loads():
    found = [FoundCli(adapter_for(n), "1.0") for n in ("kimi", "pi", "qwen")]
    config = parse_config(yaml.safe_load(render_template("kimi", "pi", "kimi", found)))
    assert list(config.clis) == ["kimi", "pi", "qwen"]
    assert config.clis["pi"].command == ("pi",) and config.clis["pi"].lean is True


@pytest.mark.parametrize("text", ["claude", "yes", "no", "on", "null", ".inf", "1.5", "a b", ""])
def test_a_string_reads_back_as_the_same_string(text):
    assert yaml.safe_load(f"key: {_yaml(text)}")["key"] == text


def test_the_schema_line_names_this_versions_schema_by_a_url_of_the_repository():
    first = render_template(None, None, None, []).splitlines()[0]
    url = first.removeprefix("# yaml-language-server: $schema=")
    assert url == schema_url() and url.startswith("https://")
    # The URL is the shipped file's path in the source tree at the release's tag ...
    tag, _, path = url.removeprefix(RAW_SOURCE + "/").partition("/")
    assert tag == f"v{__version__}"
    assert (ROOT / path).is_file()
    # ... of the repository the package metadata names.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    owner_repo = project["urls"]["Repository"].removeprefix("https://github.com/")
    assert f"https://raw.githubusercontent.com/{owner_repo}" == RAW_SOURCE


def test_the_file_holds_no_path_of_this_machine():
    found = [FoundCli(adapter_for(n), "1.0") for n in ("claude", "codex")]
    text = render_template("claude", "codex", "codex", found)
    assert "file://" not in text and str(Path.home()) not in text and sys.prefix not in text
    assert "found here (1.0)" in text
