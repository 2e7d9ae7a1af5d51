"""council.yaml as a user gets it wrong (docs/spec/config.md: "Validation: unknown keys, wrong
types and out-of-range values are errors naming the file, the key path and the expected type
or range", exit 4), table-driven: an unknown key inside every known section (the sections
generated from the shipped schema), and a zero under every key that needs a positive number
(the table written from the spec, and checked to hold every such key the schema has)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from council.cli.app import cli

TYPO = "council_typo"
# Where a user-defined section goes in a key path: a preset's name, a CLI's.
NAMED = {"presets": "mine", "clis": "codex"}

# Keys whose zero the spec refuses: counts of words and lines, rounds (2 to 5), timeouts in
# seconds, the hard limit's factor (1.5 x T: at least 1), a cost cap in USD.
POSITIVE = [
    "debate.rounds",
    *(
        f"debate.words.{phase}"
        for phase in ("proposal", "blind", "challenge", "proxy", "respond", "rebuttal")
    ),
    "debate.words.final_summary",
    "debate.context_lines",
    "debate.file_lines",
    "debate.total_lines",
    "debate.ready_timeout_s",
    "debate.hard_timeout_factor",
    "debate.max_cost",
    "presets.mine.rounds",
    "clis.codex.timeout_s",
]
# Zero is a meaning there: no challenge needed for a DECISION, no warm worker (as `--cold`).
ZERO_MEANS_NONE = ["debate.quorum", "debate.max_warm_seats", "presets.mine.quorum"]


@cache
def _schema() -> dict:
    """The schema as `council schema config` prints it."""
    return json.loads(CliRunner().invoke(cli, ["schema", "config"]).output)


def _nodes(node: dict, path: tuple[str, ...] = ()):
    """(key path, schema node) of every object property of the schema, a named section
    (`presets.<name>`) under its example name."""
    yield path, node
    for key, child in node.get("properties", {}).items():
        yield from _nodes(child, (*path, key))
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and path and path[-1] in NAMED:
        yield from _nodes(extra, (*path, NAMED[path[-1]]))


def closed_sections() -> list[str]:
    """Every section of council.yaml that takes only the keys it names."""
    return [
        ".".join(path)
        for path, node in _nodes(_schema())
        if path and node.get("properties") and node.get("additionalProperties") is False
    ]


def positive_in_schema() -> set[str]:
    found = set()
    for path, node in _nodes(_schema()):
        low = node.get("minimum", node.get("exclusiveMinimum"))
        if isinstance(low, int | float) and (low > 0 or "exclusiveMinimum" in node):
            found.add(".".join(path))
    return found


def nested(path: str, value: object) -> str:
    """`a.b.c` = value as council.yaml's flow mapping: `{a: {b: {c: value}}}`."""
    text = json.dumps(value)
    for key in reversed(path.split(".")):
        text = f"{{{key}: {text}}}"
    return text[1:-1]


def config_show(project: Path, yaml_text: str):
    (project / "council.yaml").write_text(yaml_text + "\n")
    return CliRunner().invoke(cli, ["config", "show"], prog_name="council")


def test_the_table_of_positive_keys_holds_every_one_the_schema_has():
    assert positive_in_schema() == set(POSITIVE)


@pytest.mark.parametrize("section", closed_sections())
def test_an_unknown_key_inside_a_known_section_is_refused_naming_its_path(project, section):
    result = config_show(project, nested(f"{section}.{TYPO}", 1))
    assert result.exit_code == 4, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"council: {project / 'council.yaml'}: {section}.{TYPO}: unknown key")
    assert "known keys: " in line


def test_the_unknown_key_table_reaches_into_every_nested_section():
    assert {"roles", "debate", "debate.words", "quorum", "presets.mine", "clis.codex"} <= set(
        closed_sections()
    )


@pytest.mark.parametrize("key", POSITIVE)
def test_a_zero_where_a_positive_number_is_needed_is_refused_naming_the_key(project, key):
    result = config_show(project, nested(key, 0))
    assert result.exit_code == 4, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"council: {project / 'council.yaml'}: {key}: expected "), line
    assert line.endswith("got 0"), line


@pytest.mark.parametrize("key", ZERO_MEANS_NONE)
def test_a_zero_where_zero_means_none_is_taken(project, key):
    result = config_show(project, nested(key, 0))
    assert result.exit_code == 0, result.output
    assert f"{key} = 0  (project: ./council.yaml)" in result.output.splitlines()
