"""What a seat shows of the argv it ran (under -v and in the transcript)."""

from __future__ import annotations

from council.panel.calls import mask_argv


def test_a_prompt_passed_as_an_argument_is_abbreviated():
    prompt = "Question: should we?\n" + "context " * 100
    assert mask_argv(("kimi", "-p", prompt)) == ["kimi", "-p", f"<prompt: {len(prompt)} chars>"]


def test_values_of_key_token_and_password_flags_are_masked():
    argv = ("tool", "--api-key", "sk-123", "--token=abc", "-m", "k2", "--password", "pw")
    assert mask_argv(argv) == [
        "tool",
        "--api-key",
        "****",
        "--token=****",
        "-m",
        "k2",
        "--password",
        "****",
    ]
