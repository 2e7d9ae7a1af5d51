"""The question a run is asked: one check for every way it arrives (an argument, `-`, `@file`,
an MCP tool's argument), so each front end refuses what the others refuse, with the same words.
"""

from __future__ import annotations

import unicodedata

from council.errors import UsageError

QUESTION_CAP = 16_000  # characters; the question goes into every prompt, whole


def checked_question(text: str) -> str:
    """`text` as a run's question (stripped), or a `UsageError` that says what is wrong."""
    if "\0" in text:
        raise UsageError("the question holds NUL bytes: it is binary, not text; give text")
    if not text.strip():
        raise UsageError("the question is empty: give it as an argument, `-` or @file.md")
    if all(unicodedata.category(c).startswith(("C", "Z")) for c in text):
        raise UsageError("the question holds only control characters: give text")
    if len(text) > QUESTION_CAP:
        raise UsageError(
            f"the question is {len(text):,} characters, over the {QUESTION_CAP:,} a question "
            "may have: put the long text in a file and give it with --files"
        )
    return text.strip()


# How much of a question's source to read: past the cap the answer is the same refusal, so an
# endless stdin or `@/dev/zero` is read no further than that.
READ_LIMIT = QUESTION_CAP + 1
