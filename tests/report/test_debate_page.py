"""What a debate's report.html tells a reader, figure by figure (docs/spec/commands.md `show
--html`): the header (status, rounds, duration, confidence, participants, warnings), the
DECISION with its votes and tally, the seats table and every contribution by round, all from
a hand-made finished run; and hostile text in any of them stays text."""

from __future__ import annotations

import re

import pytest

from council import __version__
from report.pages import (
    call,
    meta_lines,
    page_of,
    parsed,
    shown_text,
    state_of,
    table_rows,
    words,
)

ONE_CALL = (call("advocate", "PROPOSAL", 0.0, [[0.0, 2.0, "ok"]]),)


def header(**changes) -> str:
    """The header's first meta line of a finished one-call debate."""
    return meta_lines(page_of(state_of(*ONE_CALL), decision=None, **changes))[0]


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0.0, "0s"),
        (5.0, "5s"),
        (59.4, "59s"),
        (59.6, "1m00s"),  # rounded to the second before it is split
        (60.0, "1m00s"),
        (65.0, "1m05s"),
        (125.2, "2m05s"),
        (600.0, "10m00s"),
        (3725.0, "62m05s"),
    ],
)
def test_the_headers_duration_is_minutes_and_two_digit_seconds(seconds, shown):
    assert f"· {shown} ·" in header(duration_s=seconds)


def test_a_run_without_a_duration_yet_shows_zero_seconds():
    assert "· 0s ·" in header(duration_s=None)


@pytest.mark.parametrize(
    ("rounds", "shown"),
    [
        ({"requested": 3, "run": 2, "stopped_early": False}, "rounds 2/3 ·"),
        ({"requested": 3, "run": 1, "stopped_early": True}, "rounds 1/3 (stopped early) ·"),
    ],
)
def test_the_header_shows_rounds_run_of_those_asked_and_an_early_stop(rounds, shown):
    line = header(rounds=rounds)
    assert shown in line
    assert ("stopped early" in line) == rounds["stopped_early"]


@pytest.mark.parametrize("status", ["completed", "degraded", "failed", "interrupted"])
def test_the_status_badge_names_the_status_and_is_styled_by_it(status):
    html = page_of(state_of(*ONE_CALL), decision=None, status=status)
    assert f'<span class="badge {status}">{status}</span>' in html
    assert header(status=status).startswith(f"{status} · rounds")


def test_an_unchallenged_decision_says_so_beside_the_status():
    decision = {"recommendation": "Use Postgres.", "unchallenged": True}
    line = meta_lines(page_of(state_of(*ONE_CALL), decision=decision, status="degraded"))[0]
    assert line.startswith("degraded (unchallenged) · rounds")
    line = meta_lines(page_of(state_of(*ONE_CALL), decision={"recommendation": "Use it."}))[0]
    assert "unchallenged" not in line


@pytest.mark.parametrize(
    ("confidence", "shown"), [(71, "confidence 71/100"), (0, "confidence 0/100"), (None, "n/a")]
)
def test_the_confidence_is_out_of_100_or_not_available(confidence, shown):
    decision = {"recommendation": "Use Postgres.", "confidence": confidence}
    line = meta_lines(page_of(state_of(*ONE_CALL), decision=decision))[0]
    assert shown in line
    if confidence is None:
        assert "confidence n/a ·" in line


def test_the_header_names_the_start_the_participants_and_every_warning():
    html = page_of(
        state_of(*ONE_CALL),
        decision=None,
        started_at="2027-01-15T10:00:00+00:00",
        warnings=["proxy-a timed out in CHALLENGE", "the budget is nearly spent"],
    )
    first, participants = meta_lines(html)[:2]
    assert first.endswith("· started 2027-01-15T10:00:00+00:00")
    assert participants.startswith("Participants: advocate (sim: ")
    assert [s.split(" (")[0] for s in participants.removeprefix("Participants: ").split(", ")] == [
        "advocate",
        "critic",
        "proxy-a",
        "lead",
    ]
    warnings = re.findall(r"<li>(warning: [^<]*)</li>", html)
    assert warnings == [
        "warning: proxy-a timed out in CHALLENGE",
        "warning: the budget is nearly spent",
    ]
    assert 'class="warnings"' not in page_of(state_of(*ONE_CALL), decision=None, warnings=[])


def test_a_simulated_run_is_badged_and_a_real_one_is_not():
    assert '<span class="badge sim">SIMULATED</span>' in page_of(
        state_of(*ONE_CALL), decision=None, simulated=True
    )
    assert "SIMULATED" not in page_of(state_of(*ONE_CALL), decision=None, simulated=False)


def test_the_title_is_the_id_and_the_question_cut_at_80_characters():
    question = "Should we " + "really " * 20 + "cache?"
    html = page_of(state_of(*ONE_CALL), decision=None, question=question)
    title = re.findall(r"<title>([^<]*)</title>", html)[0]  # the page's, before the SVG's
    assert title.startswith("debate-20270115-100000-abcd: Should we really")
    assert len(title.split(": ", 1)[1]) <= 80 and title.endswith("...")
    assert f"<h1>{question}</h1>" in html  # the heading has it whole


FULL_DECISION = {
    "recommendation": "Use Postgres with a sessions table.",
    "synthesized_by": "lead (sim)",
    "consensus": ["Postgres is already run", "Redis adds an ops burden"],
    "disagreements": [
        {"point": "latency", "ruling": "acceptable", "reason": "p99 under 5 ms"},
        {"point": "expiry", "ruling": "cron job", "reason": "simple", "loop": True},
    ],
    "tradeoffs": ["a little slower reads"],
    "blocking_concerns": ["no index on expires_at"],
    "next_step": {
        "action": "Add the sessions table",
        "verify_command": "pytest tests/test_sessions.py",
        "done_criterion": "all session tests pass",
    },
    "confidence": 80,
    "votes": {"critic": "agree", "proxy-a": "revise", "proxy-b": "disagree", "proxy-c": None},
    "vote_reasons": {"proxy-b": "Redis is faster"},
    "minority": [{"seat": "proxy-b", "reason": "speed matters", "excerpt": "Redis wins on p99"}],
}


def decision_text(decision: dict) -> str:
    html = page_of(state_of(*ONE_CALL), decision=decision)
    return shown_text(html.split('<section id="decision">', 1)[1].split("</section>", 1)[0])


def test_the_decision_section_shows_each_part_in_order():
    text = decision_text(FULL_DECISION)
    parts = [
        "Recommendation Use Postgres with a sessions table.",
        "Synthesized by lead (sim).",
        "Consensus Postgres is already run Redis adds an ops burden",
        "Disagreements and rulings point ruling reason latency acceptable p99 under 5 ms "
        "expiry loop cron job simple",
        "Accepted trade-offs a little slower reads",
        "Blocking concerns no index on expires_at",
        "Next step Action Add the sessions table Verify pytest tests/test_sessions.py "
        "Done when all session tests pass",
        "Votes seat vote reason",
        "Minority report proxy-b : speed matters “Redis wins on p99”",
    ]
    at = [text.find(part) for part in parts]
    assert -1 not in at, [p for p, i in zip(parts, at, strict=True) if i < 0]
    assert at == sorted(at)
    assert "None - proceed" not in text


def test_an_empty_decision_says_none_where_it_has_nothing():
    text = decision_text({"recommendation": "Ship it."})
    assert "Consensus (none)" in text
    assert "Disagreements and rulings (none)" in text
    assert "Accepted trade-offs (none)" in text
    assert "Blocking concerns None - proceed" in text
    assert "Action (none) Verify (none) Done when (none)" in text
    assert "Votes (no votes)" in text
    assert "Minority report" not in text and "Synthesized by" not in text
    assert "Recommendation (none)" in decision_text({"confidence": 50})


def test_every_vote_is_a_row_and_the_tally_counts_each_kind():
    votes = {"a": "agree", "b": "revise", "c": "revise", "d": "disagree", "e": "disagree"}
    decision = {"votes": {**votes, "f": "disagree", "g": None}}
    assert "agree 1 · revise 2 · disagree 3 · no vote 1" in words(
        page_of(state_of(*ONE_CALL), decision=decision)
    )
    html = page_of(state_of(*ONE_CALL), decision=FULL_DECISION)
    rows = re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td class=\"text\">([^<]*)</td>", html)
    assert rows == [
        ("critic", "agree", ""),
        ("proxy-a", "revise", ""),
        ("proxy-b", "disagree", "Redis is faster"),
        ("proxy-c", "no vote", ""),
    ]
    assert "agree 1 · revise 1 · disagree 1 · no vote 1" in words(html)


def test_without_any_reason_the_votes_table_has_no_reason_column():
    decision = {"recommendation": "Ship it.", "votes": {"critic": "agree", "proxy-a": "agree"}}
    html = words(page_of(state_of(*ONE_CALL), decision=decision))
    assert "<thead><tr><th>seat</th><th>vote</th></tr></thead>" in html
    assert "<tr><td>critic</td><td>agree</td></tr>" in html
    assert "agree 2 · revise 0 · disagree 0 · no vote 0" in html


def test_a_caller_lead_shows_the_decision_prompt_and_no_decision_says_why():
    prompt = "Write the DECISION for: Redis or Postgres?"
    text = decision_text_of(decision=None, decision_prompt=prompt)
    assert "No DECISION was synthesized ( --lead caller ): answer this prompt to write it." in text
    assert prompt in text
    assert "No DECISION yet (failed)." in decision_text_of(decision=None, status="failed")


def decision_text_of(**changes) -> str:
    html = page_of(state_of(*ONE_CALL), **changes)
    return shown_text(html.split('<section id="decision">', 1)[1].split("</section>", 1)[0])


def seats_rows(html: str) -> list[list[str]]:
    table = html.split('<section id="seats">', 1)[1].split("</table>", 1)[0]
    return table_rows(table.split("<tbody>", 1)[1])


def test_the_seats_table_has_a_row_per_seat_with_its_figures():
    seats = [
        {
            "name": "advocate", "role": "advocate", "cli": "claude", "version": "2.1.3",
            "model": "opus", "effort": "high", "status": "ok", "calls": 3, "retries": 1,
            "latency_s": 41.5, "words_out": 812,
        },
        {
            "name": "proxy-a", "role": "proxy", "cli": "gemini", "version": None,
            "model": None, "effort": None, "status": "timeout", "calls": 2, "retries": 0,
            "latency_s": 90.0, "words_out": 0,
        },
    ]  # fmt: skip
    html = page_of(state_of(*ONE_CALL), decision=None, seats=seats)
    assert seats_rows(html) == [
        ["advocate", "advocate", "claude 2.1.3", "opus #high", "ok", "3", "1", "41.5s", "812"],
        ["proxy-a", "proxy", "gemini", "default", "timeout", "2", "0", "90.0s", "0"],
    ]
    assert '<span class="badge timeout">timeout</span>' in html


def record_text(html: str) -> str:
    return shown_text(html.split('<section id="record">', 1)[1].split("</section>", 1)[0])


def contribution(**fields) -> dict:
    return {
        "seat": "critic", "phase": "CHALLENGE", "round": 1, "status": "ok", "text": "a reply",
        "words": 2, "truncated": False, "original_words": 0, "latency_s": 3.2, "attempts": 1,
        "files": {"prompt": "p.md", "response": "critic-r1.out.md"}, "reason": None,
        **fields,
    }  # fmt: skip


def test_the_record_groups_contributions_by_round_in_round_order():
    contributions = [
        contribution(seat="critic", round=2, text="second round"),
        contribution(seat="advocate", phase="PROPOSAL", round=1, text="first round"),
        contribution(seat="lead", phase="DECISION", round=3, text="third round"),
        contribution(seat="proxy-a", round=1, text="also first"),
    ]
    html = page_of(state_of(*ONE_CALL), decision=None, contributions=contributions)
    text = record_text(html)
    order = ["Round 1", "first round", "also first", "Round 2", "second round", "Round 3"]
    at = [text.find(part) for part in order]
    assert -1 not in at and at == sorted(at), text
    assert len(parsed(html).having("article", "contribution")) == 4


def test_a_contributions_header_shows_its_words_latency_attempts_and_reply_file():
    one = contribution(words=120, latency_s=3.2, attempts=1)
    retried = contribution(seat="proxy-a", words=80, latency_s=7.5, attempts=3)
    cut = contribution(seat="proxy-b", words=500, truncated=True, original_words=1900)
    html = page_of(state_of(*ONE_CALL), decision=None, contributions=[one, retried, cut])
    text = record_text(html)
    assert "critic · CHALLENGE · ok · 120 words · 3.2s critic-r1.out.md" in text
    assert "proxy-a · CHALLENGE · ok · 80 words · 7.5s · 3 attempts" in text
    assert "proxy-b · CHALLENGE · ok · 500 words (truncated from 1900) · 3.2s" in text
    assert "1 attempts" not in text and text.count("truncated") == 1


@pytest.mark.parametrize(
    ("reason", "shown"),
    [
        ("late", "sat this phase out: late (too late to be of use)"),
        ("busy", "sat this phase out: busy (still answering its previous ask)"),
    ],
)
def test_a_seat_that_sat_a_phase_out_says_why_and_shows_no_reply(reason, shown):
    skipped = contribution(status="skipped", reason=reason, text="SHOULD NOT SHOW", words=0)
    html = page_of(state_of(*ONE_CALL), decision=None, contributions=[skipped])
    text = record_text(html)
    assert f"critic · CHALLENGE · skipped · {shown}" in text
    assert "SHOULD NOT SHOW" not in text and "words" not in text


def test_each_contribution_is_styled_by_its_status():
    contributions = [contribution(status=s) for s in ("ok", "timeout", "late", "error")]
    html = page_of(state_of(*ONE_CALL), decision=None, contributions=contributions)
    assert [a.classes for a in parsed(html).having("article", "contribution")] == [
        ["contribution", s] for s in ("ok", "timeout", "late", "error")
    ]


@pytest.mark.parametrize(
    ("status", "css"),
    [("Late", "late"), ("TIME-OUT", "timeout"), ("", "unknown"), ("?!", "unknown")],
)
def test_a_status_is_styled_by_its_letters_lowercased_or_as_unknown(status, css):
    html = page_of(state_of(*ONE_CALL), decision=None, contributions=[contribution(status=status)])
    (article,) = parsed(html).having("article", "contribution")
    assert article.classes == ["contribution", css]
    assert f'<span class="badge {css}">{status}</span>' in html


def test_a_run_with_no_contribution_yet_says_so():
    html = page_of(state_of(), decision=None, contributions=[])
    assert "No contribution yet." in record_text(html)


def test_the_footer_names_the_version_and_the_record():
    html = page_of(state_of(*ONE_CALL), decision=None, scratchpad=".scratchpad/debate-x/")
    text = shown_text(html)
    assert (
        f"Written by council {__version__} from the record .scratchpad/debate-x/ "
        "(state.json, transcript.jsonl)." in text
    )
    assert f'<meta name="generator" content="council {__version__}">' in html


HOSTILE = '</pre></td></svg><script>alert("x")</script><img src=x onerror=alert(1)>'
ESCAPED = "&lt;/pre&gt;&lt;/td&gt;&lt;/svg&gt;&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"


@pytest.mark.parametrize(
    "changes",
    [
        {"question": HOSTILE},
        {"warnings": [HOSTILE]},
        {"decision_prompt": HOSTILE, "decision": None},
        {"decision": {"recommendation": HOSTILE}},
        {"decision": {"consensus": [HOSTILE]}},
        {"decision": {"disagreements": [{"point": HOSTILE, "ruling": HOSTILE, "reason": "r"}]}},
        {"decision": {"next_step": {"verify_command": HOSTILE}}},
        {"decision": {"votes": {"critic": "agree"}, "vote_reasons": {"critic": HOSTILE}}},
        {"decision": {"minority": [{"seat": "critic", "reason": HOSTILE, "excerpt": HOSTILE}]}},
        {"contributions": [contribution(text=HOSTILE)]},
        {"contributions": [contribution(seat=HOSTILE, phase=HOSTILE)]},
        {
            "seats": [
                {
                    "name": HOSTILE,
                    "role": "proxy",
                    "cli": HOSTILE,
                    "status": HOSTILE,
                    "model": HOSTILE,
                    "version": HOSTILE,
                    "effort": None,
                    "calls": 1,
                    "retries": 0,
                    "latency_s": 1,
                    "words_out": 1,
                }
            ]
        },
    ],
    ids=lambda changes: "-".join(changes),
)
def test_hostile_text_anywhere_on_the_page_stays_text(changes):
    html = page_of(state_of(*ONE_CALL), **{"decision": None, **changes})
    page = parsed(html)
    assert not [e for e in page.elements if e.tag in ("script", "img")]
    assert "<script" not in html
    assert not [e for e in page.elements if "onerror" in e.attrs]
    assert ESCAPED in html
    assert html.count("</pre>") == html.count("<pre")
    # A status is a class name: only its letters reach the markup.
    assert all(re.fullmatch(r"[a-z_ -]*", e.attrs.get("class", "")) for e in page.elements)


def test_a_vote_left_out_for_injection_is_shown_as_not_counted_and_left_out_of_the_tally():
    decision = {
        "votes": {"critic": "agree", "proxy-a": "disagree", "proxy-b": "agree"},
        "excluded_votes": {"proxy-b": "suspect: echoed the canary"},
    }
    html = words(page_of(state_of(*ONE_CALL), decision=decision))
    assert "<td>proxy-b</td><td>agree (not counted: suspect: echoed the canary)</td>" in html
    assert "<td>critic</td><td>agree</td>" in html
    assert "agree 1 · revise 0 · disagree 1 · no vote 0" in html
