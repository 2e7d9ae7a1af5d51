"""The fake model's answers: a pure function of the prompt, so a test can predict them.

A plain prompt gets `reply_for(prompt)`, which names the sha256 of the prompt's UTF-8 bytes:
the answer council extracts equals `reply_for(PROMPT)` only if the prompt reached the model
byte for byte. A prompt that asks for one of the debate's JSON objects (the DECISION, a
repair, the convergence check) gets the offline simulator's JSON for it, so the end-to-end
debate can run against the real CLIs too.
"""

from __future__ import annotations

import hashlib

from council.sim.prompt import JSON_PHASES, detect_phase
from council.sim.replies import build_reply
from fakemodel.behaviour import Behaviour

_VOCABULARY = (
    "the adapter reads every line of output and keeps the answer whole while a seat waits "
    "for its turn in the debate so council can compare proposals challenges and rebuttals "
    "across vendors without losing bytes quotes unicode café naïve 日本語 braces {} [] "
    "backslash \\ tab-free markdown `code` lists tables headings links numbers 42 3.14"
)
_WORDS = tuple(_VOCABULARY.split())


def digest(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def reply_for(prompt: str, behaviour: Behaviour | None = None) -> str:
    """The answer the fake model gives to `prompt` (with the markers it carries)."""
    behaviour = behaviour or Behaviour()
    phase = detect_phase(prompt)
    if phase in JSON_PHASES:
        return build_reply(prompt.encode("utf-8"), prompt, phase, "fake-model")
    # Several lines, Markdown, non-ASCII and JSON-like text: an extraction that reformats,
    # re-encodes or keeps only one line shows up as a mismatch.
    text = (
        f"Fake model answer {digest(prompt)[:24]} to a prompt of {len(prompt.encode())} bytes.\n"
        "\n"
        "- “Quoted” café, 日本語 and `inline code`\n"
        '- braces {"k": [1, 2]} and a back\\slash'
    )
    if behaviour.long_chars:
        body = f"{text}\n\n{_prose(prompt, behaviour.long_chars)}"
        text = body[: behaviour.long_chars - 4] + " END"
    return text


def _prose(seed: str, length: int) -> str:
    """Deterministic text that never repeats itself: gemini stops an answer it sees looping
    ("Loop detected, stopping execution") and returns what it had, with exit 0."""
    words: list[str] = []
    size = 0
    counter = 0
    while size < length:
        block = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        counter += 1
        for i, byte in enumerate(block):
            word = _WORDS[byte % len(_WORDS)]
            if i % 11 == 10:
                word += "."
            words.append(word)
            size += len(word) + 1
    return " ".join(words)


AFTER_TOOL_REPLY = "Fake model: the tool call is done; no further action."


def chunks(text: str) -> list[str]:
    """The pieces a streamed answer is sent in: several, so that streaming is really tested,
    but not thousands (a long answer is 50 pieces)."""
    size = max(40, len(text) // 50)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
