"""The range of every number in council.yaml, at its edges (docs/spec/config.md, the schema
`council schema config` prints): the edge itself is taken and reaches the run, one step past
it is refused in one line naming the file, the key, the range and the value, with exit 4. And
each closed list of words (effort, on_injection, distinct, gate rules, input) in full."""

from __future__ import annotations

import pytest

from council.config import load_config, parse_config

# (key path, lowest taken, highest taken or None, the range as the message says it)
RANGES = [
    ("debate.rounds", 2, 5, "an integer from 2 to 5"),
    ("debate.quorum", 0, None, "an integer of at least 0"),
    ("debate.words.proposal", 1, None, "an integer of at least 1"),
    ("debate.words.blind", 1, None, "an integer of at least 1"),
    ("debate.words.challenge", 1, None, "an integer of at least 1"),
    ("debate.words.proxy", 1, None, "an integer of at least 1"),
    ("debate.words.respond", 1, None, "an integer of at least 1"),
    ("debate.words.rebuttal", 1, None, "an integer of at least 1"),
    ("debate.words.final_summary", 1, None, "an integer of at least 1"),
    ("debate.context_lines", 1, None, "an integer of at least 1"),
    ("debate.file_lines", 1, None, "an integer of at least 1"),
    ("debate.total_lines", 1, None, "an integer of at least 1"),
    ("debate.ready_timeout_s", 0.1, 86400, "a number from 0.1 to 86400"),
    ("debate.hard_timeout_factor", 1, 10, "a number from 1 to 10"),
    ("debate.max_warm_seats", 0, None, "an integer of at least 0"),
    ("presets.mine.rounds", 2, 5, "an integer from 2 to 5"),
    ("presets.mine.quorum", 0, None, "an integer of at least 0"),
    ("clis.codex.timeout_s", 1, 86400, "a number from 1 to 86400 (or null)"),
]


def nested(path: str, value: object) -> str:
    text = str(value)
    for key in reversed(path.split(".")):
        text = f"{{{key}: {text}}}"
    return text[1:-1] + "\n"


def value_in_run(config, key: str):
    if key.startswith("presets."):
        return getattr(config.presets["mine"], key.split(".")[-1])
    if key.startswith("clis."):
        return config.clis["codex"].timeout_s
    node = config
    for part in key.split("."):
        node = node[part] if isinstance(node, dict) else getattr(node, part)
    return node


def edges(low, high):
    return [low] + ([high] if high is not None else [])


@pytest.mark.parametrize("edge", ["lowest", "highest"])
def test_a_value_at_the_edge_of_its_range_is_taken_and_reaches_the_run(place, edge):
    # every key at once, in one file: each at its lowest (or highest) value
    chosen = {
        key: low if edge == "lowest" else high
        for key, low, high, _ in RANGES
        if edge == "lowest" or high is not None
    }
    text = "".join(nested(key, value) for key, value in chosen.items())
    tree = yaml_tree(text)
    config = parse_config(tree)
    assert {key: value_in_run(config, key) for key in chosen} == chosen


def yaml_tree(text: str) -> dict:
    """The flow-mapping lines of `nested` merged into one tree."""
    import yaml

    tree: dict = {}

    def merge(into: dict, new: dict) -> None:
        for key, value in new.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            else:
                into[key] = value

    for line in text.splitlines():
        merge(tree, yaml.safe_load(line))
    return tree


def step_outside(low, high):
    step = 0.05 if isinstance(low, float) else 1
    below = round(low - step, 2)
    return [below] + ([high + step] if high is not None else [])


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [(key, v, words) for key, low, high, words in RANGES for v in step_outside(low, high)],
)
def test_a_value_one_step_outside_its_range_is_refused_in_one_line(place, key, value, expected):
    place.project(nested(key, value))
    assert place.refused() == f"{place.project_file}: {key}: expected {expected}, got {value}"


@pytest.mark.parametrize("cost", [0.01, 12.5, 100])
def test_a_cost_cap_above_zero_is_taken(place, cost):
    place.project(f"debate: {{max_cost: {cost}}}\n")
    assert load_config(cwd=place.root, environ={}).debate.max_cost == cost


@pytest.mark.parametrize("cost", [0, -1])
def test_a_cost_cap_of_zero_or_less_is_refused(place, cost):
    place.project(f"debate: {{max_cost: {cost}}}\n")
    line = place.refused()
    assert line.startswith(f"{place.project_file}: debate.max_cost: expected a number")
    assert line.endswith(f"got {cost}")


# Each closed list of words, in full: every word taken, a near miss refused naming them all.
WORDS = [
    ("debate.on_injection", ["warn", "exclude"], "drop", "one of warn, exclude"),
    ("quorum.distinct", ["off", "vendor", "family"], "model", "one of off, vendor, family"),
    (
        "review.gate.high",
        ["majority", "any", "unanimous"],
        "most",
        "one of majority, any, unanimous",
    ),
    (
        "presets.mine.effort",
        ["minimal", "low", "medium", "high", "xhigh", "max"],
        "ultra",
        "one of minimal, low, medium, high, xhigh, max (or null)",
    ),
    (
        "clis.codex.effort",
        ["minimal", "low", "medium", "high", "xhigh", "max"],
        "ultra",
        "one of minimal, low, medium, high, xhigh, max (or null)",
    ),
    ("clis.mine.input", ["stdin", "file", "arg"], "pipe", "one of stdin, file, arg"),
]


def with_command(key: str, text: str) -> str:
    # a user-defined CLI needs its command beside the key under test
    return (
        text.replace("{mine: {", "{mine: {command: [mine], ")
        if key.startswith("clis.mine")
        else text
    )


@pytest.mark.parametrize(("key", "words"), [(key, words) for key, words, _, _ in WORDS])
def test_every_word_of_a_closed_list_is_taken(place, key, words):
    taken = []
    for word in words:
        place.project(with_command(key, nested(key, word)))
        shown = place.shown()[key]
        taken.append((shown["value"], shown["source"]))
    assert taken == [(word, "project") for word in words]


@pytest.mark.parametrize(("key", "words", "wrong", "expected"), WORDS)
def test_a_word_outside_a_closed_list_is_refused_naming_the_list(
    place, key, words, wrong, expected
):
    place.project(with_command(key, nested(key, wrong)))
    assert place.refused() == f"{place.project_file}: {key}: expected {expected}, got {wrong!r}"


def test_the_effort_of_a_preset_per_cli_is_one_of_the_efforts(place):
    place.project("presets: {mine: {efforts: {claude: max, codex: minimal}}}\n")
    mine = load_config(cwd=place.root, environ={}).presets["mine"]
    assert dict(mine.efforts) == {"claude": "max", "codex": "minimal"}
    place.project("presets: {mine: {efforts: {claude: maximum}}}\n")
    assert place.refused().startswith(
        f"{place.project_file}: presets.mine.efforts.claude: expected one of minimal, low,"
    )


INTEGER_KEYS = [
    "rounds",
    "quorum",
    "context_lines",
    "file_lines",
    "total_lines",
    "max_warm_seats",
]


def test_a_whole_number_written_with_a_point_is_read_as_an_integer(place):
    # YAML reads 3.0 as a float and the schema takes it as an integer: the run gets 3, which
    # a slice of the seats or a line count can use.
    place.project(
        "debate: {rounds: 3.0, quorum: 2.0, context_lines: 9.0, file_lines: 90.0, "
        "total_lines: 900.0, max_warm_seats: 2.0, words: {proxy: 120.0}}\n"
        "presets: {mine: {rounds: 4.0, quorum: 1.0}}\n"
    )
    config = load_config(cwd=place.root, environ={})
    read = {key: getattr(config.debate, key) for key in INTEGER_KEYS}
    read["words.proxy"] = config.debate.words["proxy"]
    read["presets.rounds"] = config.presets["mine"].rounds
    read["presets.quorum"] = config.presets["mine"].quorum
    assert read == {
        "rounds": 3,
        "quorum": 2,
        "context_lines": 9,
        "file_lines": 90,
        "total_lines": 900,
        "max_warm_seats": 2,
        "words.proxy": 120,
        "presets.rounds": 4,
        "presets.quorum": 1,
    }
    assert {key: type(value) for key, value in read.items()} == dict.fromkeys(read, int)
