"""Word counting and truncation as docs/spec/protocol.md defines them."""

from __future__ import annotations

from council.words import count_words, truncate


def test_words_are_whitespace_separated_tokens():
    assert count_words("Cache sessions in Redis, not Postgres.") == 6
    assert count_words("  \n\t ") == 0


def test_each_cjk_character_counts_as_one_word():
    assert count_words("使用缓存") == 4
    assert count_words("Redis 缓存会话。") == 5  # "Redis" + 4 characters; the full stop is no word
    assert count_words("キャッシュ") == 5


def test_korean_is_counted_by_tokens():
    assert count_words("세션을 캐시합니다") == 2


def test_a_reply_within_the_limit_is_unchanged():
    result = truncate("One. Two three.", 3)
    assert result.text == "One. Two three." and not result.truncated


def test_an_over_long_reply_is_cut_at_the_last_sentence_end_with_the_marker():
    text = "First sentence here. Second one is longer and goes past the limit"
    result = truncate(text, 6)
    assert result.text == "First sentence here. [truncated: original ~12 words]"
    assert result.truncated and result.original_words == 12 and result.words == 3


def test_without_a_sentence_end_the_cut_is_at_the_limit_itself():
    result = truncate("one two three four five six", 4)
    assert result.text == "one two three four [truncated: original ~6 words]"


def test_a_dot_inside_a_word_is_not_a_sentence_end():
    result = truncate("Use v3.5 of the API and retry later today please", 5)
    assert result.text.startswith("Use v3.5 of the API [truncated")


def test_cjk_text_is_cut_at_a_full_width_sentence_end():
    text = "我们应该使用缓存。这样更快但是更复杂"
    result = truncate(text, 12)
    assert result.text == "我们应该使用缓存。 [truncated: original ~17 words]"
