"""The argv a user sees under -v and in the transcript, at its edges: an argument of up to 200
characters on one line is shown whole, a longer one or one of several lines is a prompt and
is abbreviated; a secret flag's value is masked, whether it follows the flag or is joined to
it with `=`, and the argument after a joined one is shown."""

from __future__ import annotations

import pytest

from council.panel.calls import mask_argv


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (("x", "a" * 200), ["x", "a" * 200]),
        (("x", "a" * 201), ["x", "<prompt: 201 chars>"]),
        (("x", "two\nlines"), ["x", "<prompt: 9 chars>"]),
        (("x", "--auth", "v", "--model", "m"), ["x", "--auth", "****", "--model", "m"]),
        (("x", "--secret=s", "--model", "m"), ["x", "--secret=****", "--model", "m"]),
        (("x", "--API-KEY", "v"), ["x", "--API-KEY", "****"]),
        (("x", "--model", "key-value"), ["x", "--model", "key-value"]),
        (("x", "token-budget.md", "notes.md"), ["x", "token-budget.md", "notes.md"]),
    ],
)
def test_the_argv_shown_abbreviates_prompts_and_masks_secrets(argv, shown):
    assert mask_argv(argv) == shown
