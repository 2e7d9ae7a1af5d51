"""Word limits (docs/spec/protocol.md "Word limits").

A word is a whitespace-separated token, except that each CJK ideograph or kana counts as one
word on its own (Chinese and Japanese do not separate words with spaces). Hangul is written
with spaces, so Korean is counted by tokens like English. A token longer than 64 characters
(a base64 blob, a minified line) counts as one word per 64 characters begun: a limit in words
is then a limit in size too, and such a token is cut inside. A reply over its limit is cut at
the last sentence end within the limit, or at the limit itself when there is none.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Iterator  # loaded with the interpreter; `typing` costs ~5 ms

_CJK = re.compile(
    "[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]"
)
_TOKEN = re.compile(r"\S+")
_SENTENCE_END = ".!?。！？"  # noqa: RUF001 - the full-width marks end CJK sentences
_CJK_SENTENCE_END = "。！？"  # noqa: RUF001
_CLOSERS = "\"')]}»”’」』"  # noqa: RUF001
# Characters one word may hold: past this a token counts as more words (a URL of up to 64
# characters is one word; a 1.5 MB base64 line is ~24,600, not one).
LONG_WORD = 64


# A namedtuple, not a dataclass: the simulator imports this module, and `dataclasses` would
# add ~10 ms to every simulated call's start-up. `words` counts the text without the marker.
Truncation = namedtuple("Truncation", "text truncated words original_words")


def word_ends(text: str) -> Iterator[int]:
    """The index just past each word, in order."""
    for match in _TOKEN.finditer(text):
        token, start = match.group(), match.start()
        if not _CJK.search(token):
            yield from range(start + LONG_WORD, match.end(), LONG_WORD)
            yield match.end()
            continue
        run_has_word = False
        for offset, char in enumerate(token):
            if _CJK.match(char):
                if run_has_word:
                    yield start + offset
                    run_has_word = False
                yield start + offset + 1
            elif char.isalnum():
                run_has_word = True
        if run_has_word:
            yield match.end()


def first_words(text: str, count: int) -> str:
    """The first `count` whitespace-separated words on one line, `...` when there are more."""
    words = text.split()
    return " ".join(words[:count]) + (" ..." if len(words) > count else "")


def count_words(text: str) -> int:
    return sum(1 for _ in word_ends(text))


def cut_words(text: str, limit: int) -> str:
    """The longest prefix of `text` holding at most `limit` words (no marker)."""
    end = 0
    for n, word_end in enumerate(word_ends(text), start=1):
        if n > limit:
            break
        end = word_end
    return text[:end] if count_words(text) > limit else text


def truncate(text: str, limit: int, unread_words: int = 0) -> Truncation:
    """`text` cut to at most `limit` words, with the protocol's marker when it was cut.
    `unread_words`: words of the original that `text` leaves out (a long answer's middle,
    kept on disk only), counted in the original's size."""
    total = count_words(text) + unread_words
    if total <= limit:
        return Truncation(text, False, total, total)
    end = 0
    for n, word_end in enumerate(word_ends(text), start=1):
        end = word_end
        if n == limit:
            break
    cut = _last_sentence_end(text, end) or end
    kept = text[:cut].rstrip()
    return Truncation(
        f"{kept} [truncated: original ~{total} words]", True, count_words(kept), total
    )


def _last_sentence_end(text: str, end: int) -> int | None:
    for i in range(end - 1, -1, -1):
        char = text[i]
        if char not in _SENTENCE_END:
            continue
        after = i + 1
        while after < end and text[after] in _CLOSERS:
            after += 1
        if char in _CJK_SENTENCE_END or after >= len(text) or text[after].isspace():
            return after
    return None
