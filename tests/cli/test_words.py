"""Word counting and truncation as docs/spec/protocol.md defines them."""

from __future__ import annotations

from council.words import count_words, cut_words, first_words, truncate


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
    assert result == ("One. Two three.", False, 3, 3)  # result.json: truncated false, 3 words


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


def test_a_closing_quote_or_bracket_after_the_sentence_end_stays_with_its_sentence():
    result = truncate('He said "Use Redis." (Then more words follow here.) and more', 5)
    assert result.text == 'He said "Use Redis." [truncated: original ~11 words]'
    result = truncate("Keep it (as is.) Then change the rest of it", 6)
    assert result.text == "Keep it (as is.) [truncated: original ~10 words]"


def test_the_cut_keeps_the_nearest_sentence_end_within_the_limit_and_none_past_it():
    assert truncate("One. Two three. four five", 3).text == (
        "One. Two three. [truncated: original ~5 words]"
    )
    assert truncate("One. Two three four five six", 4).text == (
        "One. [truncated: original ~6 words]"
    )
    assert truncate("A. bb cc dd", 2).text == "A. [truncated: original ~4 words]"
    # A lone "." just past the limit is a word of its own, not a sentence end to cut at.
    assert truncate("one two three . four five", 3).text == (
        "one two three [truncated: original ~6 words]"
    )


def test_a_reply_starting_on_a_new_line_is_cut_at_its_limit_not_emptied():
    result = truncate("\none two three four.", 2)
    assert result.text == "\none two [truncated: original ~4 words]"


def test_a_long_answers_kept_head_ending_with_a_sentence_is_cut_there():
    # The middle of a long answer stays on disk (unread_words): the head is all there is.
    result = truncate('First point. Second point."', 3, unread_words=500)
    assert result.text == "First point. [truncated: original ~504 words]"
    assert truncate('First point. Second "point."', 4, unread_words=500).text == (
        'First point. Second "point." [truncated: original ~504 words]'
    )


def test_the_simulators_cut_keeps_at_most_the_limit_of_words_without_a_marker():
    assert cut_words("one two three four", 2) == "one two"
    assert cut_words("one two\n", 2) == "one two\n"
    assert cut_words("  one two three", 5) == "  one two three"
    assert cut_words("使用缓存。更快", 3) == "使用缓"
    assert cut_words("", 3) == ""


def test_latin_letters_touching_cjk_count_as_their_own_word_and_cut_there():
    assert count_words("abc缓存def") == 4  # abc, 缓, 存, def
    assert count_words("缓存abc") == 3
    assert truncate("abc缓存def", 1).text == "abc [truncated: original ~4 words]"
    assert truncate("abc缓存def", 3).text == "abc缓存 [truncated: original ~4 words]"


def test_the_first_words_of_a_question_end_with_dots_only_when_there_are_more():
    assert first_words("Should we  cache\nsessions in Redis?", 3) == "Should we cache ..."
    assert first_words("Cache sessions?", 2) == "Cache sessions?"
    assert first_words("Cache sessions?", 3) == "Cache sessions?"


def test_a_token_past_64_characters_counts_one_word_per_64_begun():
    assert count_words("a" * 64) == 1
    assert count_words("a" * 65) == 2
    assert count_words("see " + "x" * 640 + " now") == 12


def test_a_huge_one_line_token_is_cut_to_the_limit_in_size_too():
    # a reply that starts with a 1.5 MB base64 line is not 26 words
    blob = "QUJD" * 375_000
    reply = f"{blob} then the plan holds. VOTE: agree"
    cut = truncate(reply, 300)
    assert cut.truncated and cut.original_words == 1_500_000 // 64 + 1 + 6
    assert cut.words == 300
    assert len(cut.text) < 300 * 64 + 100
    assert cut.text.endswith(f"[truncated: original ~{cut.original_words} words]")
