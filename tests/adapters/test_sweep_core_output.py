"""The figures and names council reads from a CLI's structured output (`adapters/output.py`;
clis.md "Token usage" and "Served model"): a count is a non-negative integer or nothing, a
price of $0.00 is a price, the model that wrote most comes first, and every JSON value of a
JSONL stream is read. With the words every result shows: the call statuses, the settings a
CLI has when the config names none, and an interactive prompt's detail."""

from __future__ import annotations

import pytest

from council.adapters import adapter_for, registered
from council.adapters.base import CliSettings, Status, model_family
from council.adapters.output import (
    cost_figure,
    json_objects,
    output_figure,
    ranked_models,
    token_count,
)
from council.config import parse_config


@pytest.mark.parametrize("value", [0, 1, 128_000])
def test_a_token_count_is_a_non_negative_integer(value):
    assert token_count(value) == value


@pytest.mark.parametrize("value", [-1, 1.5, "12", None, True])
def test_anything_else_is_no_count_never_a_guess(value):
    with pytest.raises(ValueError, match="not a token count"):
        token_count(value)


def test_a_price_of_zero_is_a_price_and_no_price_is_none():
    assert cost_figure(0) == 0.0 and isinstance(cost_figure(0), float)
    assert cost_figure(0.0123) == 0.0123
    assert cost_figure(None) is None


@pytest.mark.parametrize("value", [-0.01, "0.10", True])
def test_a_price_council_cannot_read_is_refused(value):
    with pytest.raises(ValueError, match="not a cost"):
        cost_figure(value)


def test_the_model_that_wrote_most_comes_first_and_ties_keep_the_clis_order():
    assert ranked_models({"haiku": 12, "opus": 900, "sonnet": 40}) == ("opus", "sonnet", "haiku")
    assert ranked_models({"first": 5, "second": 5}) == ("first", "second")
    assert ranked_models({"": 10, "  ": 3, "named": 0}) == ("named",)


@pytest.mark.parametrize(("value", "figure"), [(7, 7), (0, 0), (-3, 0), (True, 0), ("9", 0)])
def test_a_per_model_figure_that_is_not_a_count_ranks_last(value, figure):
    assert output_figure(value) == figure


def test_every_value_of_a_jsonl_stream_is_read_and_garbage_lines_are_skipped():
    stdout = (
        '{"type": "start"}\n'
        "warning: using a fallback model\n"
        '{"type": "broken", \n'
        "[1, 2]\n"
        '  {"type": "end", "text": "An answer."}  \n'
    )
    assert json_objects(stdout) == [
        {"type": "start"},
        [1, 2],
        {"type": "end", "text": "An answer."},
    ]


def test_one_json_document_over_several_lines_is_one_value():
    assert json_objects('{\n  "result": "multi-line",\n  "n": 2\n}\n') == [
        {"result": "multi-line", "n": 2}
    ]
    assert json_objects("  \n") == []
    assert json_objects("plain text only") == []


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("Claude-Opus-4-5", "anthropic"),
        (" GPT-5.2 ", "openai"),
        ("vertex_ai/Gemini-2.5-Pro", "google"),
        ("openrouter/qwen/Qwen3-Coder", "qwen"),
        ("openrouter/moonshotai/Kimi-K2", "moonshot"),  # the last segment names the model
        ("gateway/openai/gpt-5.2", "openai"),
        ("", None),
    ],
)
def test_a_served_models_family_ignores_case_spaces_and_the_gateways_prefix(model, family):
    assert model_family(model, registered().values()) == family


# -- words every result shows ---------------------------------------------------------------


def test_the_call_statuses_are_the_words_the_record_uses():
    # protocol.md section 2: status (ok|timeout|error|late|rate_limited|auth|empty); `late`
    # is the lead's, not an attempt's.
    assert {s.value for s in Status} == {"ok", "timeout", "error", "rate_limited", "auth", "empty"}


@pytest.mark.parametrize(
    ("cli", "config"),
    [
        ("claude", {}),
        ("codex", {"clis": {"codex": {"model": "gpt-5.2"}}}),
        ("mine", {"clis": {"mine": {"command": ["mine"]}}}),
    ],
)
def test_a_cli_the_config_says_nothing_about_may_run_lean_and_warm(cli, config):
    settings = adapter_for(cli, parse_config(config).clis).settings
    assert (settings.lean, settings.warm) == (True, True)
    assert (settings.input, settings.output, settings.tty) == ("stdin", "stdout", False)
    assert (settings.extra_args, settings.pass_env, settings.timeout_s) == ((), (), None)


def test_bare_settings_are_the_documented_defaults():
    settings = CliSettings(name="x", adapter="x")
    assert (settings.lean, settings.warm, settings.input, settings.output) == (
        True,
        True,
        "stdin",
        "stdout",
    )
    assert settings.version_args is None and settings.state_dirs == ()


@pytest.mark.parametrize(
    ("cli", "screen", "detail"),
    [
        (
            "gemini",
            "\x1b[2J Gemini CLI\n│ Please log in with Google to continue │\n",
            "gemini stopped at an interactive prompt (│ Please log in with Google to continue │); "
            "run `gemini` once to log in, or set GEMINI_API_KEY",
        ),
        (
            "mine",
            "Welcome!\nDo you trust the files in this folder? (y/n)\n",
            "mine stopped at an interactive prompt (Do you trust the files in this folder? "
            "(y/n)); run `mine --fast` once in a terminal to log in or trust the folder",
        ),
    ],
)
def test_an_interactive_prompt_names_the_question_and_what_to_run(cli, screen, detail):
    config = parse_config({"clis": {"mine": {"command": ["mine", "--fast"]}}})
    assert adapter_for(cli, config.clis).interactive_prompt_detail(screen) == detail
