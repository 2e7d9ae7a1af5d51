"""The file `council init` writes: valid YAML that loads, validates and reads back as written,
whichever CLIs were found."""

from __future__ import annotations

import pytest
import yaml

from council.adapters import adapter_for
from council.config import parse_config
from council.config.template import FoundCli, _yaml, render_template


def test_with_no_cli_found_the_file_still_loads_at_the_defaults():
    text = render_template(None, None, None, [])
    config = parse_config(yaml.safe_load(text))
    assert config.roles.advocate is None and config.clis == {}
    assert config.debate.rounds == 2 and config.scratchpad == ".scratchpad"


def test_every_found_cli_gets_an_entry_that_loads():
    found = [FoundCli(adapter_for(n), f"/usr/bin/{n}", "1.0") for n in ("kimi", "pi", "qwen")]
    config = parse_config(yaml.safe_load(render_template("kimi", "pi", "kimi", found)))
    assert list(config.clis) == ["kimi", "pi", "qwen"]
    assert config.clis["pi"].command == ("pi",) and config.clis["pi"].lean is True


@pytest.mark.parametrize("text", ["claude", "yes", "no", "on", "null", ".inf", "1.5", "a b", ""])
def test_a_string_reads_back_as_the_same_string(text):
    assert yaml.safe_load(f"key: {_yaml(text)}")["key"] == text
