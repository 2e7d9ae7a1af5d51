"""decision.md as docs/spec/outputs.md lays it out, built from the result alone."""

from __future__ import annotations

from council.debate.result import render_markdown


def result(**changes):
    base = {
        "question": "Redis or Postgres?",
        "status": "completed",
        "simulated": False,
        "rounds": {"requested": 3, "run": 3, "stopped_early": False},
        "duration_s": 412.3,
        "seats": [
            {"name": "advocate", "cli": "claude", "model": None},
            {"name": "proxy-gemini", "cli": "gemini", "model": "gemini-2.5-pro"},
        ],
        "warnings": [],
        "decision_prompt": None,
        "contributions": [
            {
                "seat": "advocate",
                "phase": "PROPOSAL",
                "round": 1,
                "status": "ok",
                "words": 3,
                "truncated": False,
                "original_words": 3,
                "text": "Use Redis here.",
            }
        ],
        "decision": {
            "recommendation": "Use Redis.",
            "consensus": [],
            "disagreements": [{"point": "a | b", "ruling": "r", "reason": "why", "loop": True}],
            "tradeoffs": [],
            "blocking_concerns": [],
            "next_step": {"action": "do", "verify_command": "pytest", "done_criterion": "green"},
            "confidence": 78,
            "votes": {"proxy-gemini": "revise"},
        },
    }
    base.update(changes)
    return base


def test_the_header_names_participants_status_rounds_time_and_confidence():
    lines = render_markdown(result()).splitlines()
    assert lines[0] == "# DECISION: Redis or Postgres?"
    assert lines[1] == (
        "Participants: advocate (claude: served model not reported), "
        "proxy-gemini (gemini: gemini-2.5-pro asked, served model not reported)"
    )
    assert lines[2] == "Status: completed · rounds 3/3 · 6m52s · confidence 78/100"


def test_the_participants_show_the_served_model_and_the_asked_one_only_when_it_differs():
    seats = [
        {"name": "advocate", "cli": "claude", "model": None, "served_models": ["claude-opus-4-5"]},
        {"name": "critic", "cli": "codex", "model": "gpt-5.2", "served_models": ["gpt-5.2"]},
        {"name": "proxy-pi", "cli": "pi", "model": "o3", "served_models": ["openai/gpt-5.2"]},
        {"name": "proxy-qwen", "cli": "qwen", "model": "a", "served_models": ["b", "c"]},
    ]
    lines = render_markdown(result(seats=seats)).splitlines()
    assert lines[1] == (
        "Participants: advocate (claude: claude-opus-4-5 served), "
        "critic (codex: gpt-5.2 served), proxy-pi (pi: o3 asked, openai/gpt-5.2 served), "
        "proxy-qwen (qwen: a asked, b + c served)"
    )


def test_a_tally_under_quorum_distinct_shows_each_group_its_seats_and_the_vote_it_counts_as():
    decision = {
        **result()["decision"],
        "votes": {"critic": "agree", "proxy-codex": "disagree", "proxy-gemini": "agree"},
        "tally": {
            "agree": 1,
            "revise": 0,
            "disagree": 1,
            "no_vote": 0,
            "distinct": "vendor",
            "groups": [
                {"group": "openai", "seats": ["critic", "proxy-codex"], "vote": "disagree"},
                {"group": "google", "seats": ["proxy-gemini"], "vote": "agree"},
            ],
        },
    }
    lines = render_markdown(result(decision=decision)).splitlines()
    at = lines.index("Tally (one vote per vendor): 1 agree, 0 revise, 1 disagree, 0 no vote")
    assert lines[at + 1 : at + 3] == [
        "- openai: critic, proxy-codex (agree, disagree): one vote, disagree",
        "- google: proxy-gemini (agree): one vote, agree",
    ]


def test_sections_follow_the_documented_order_and_empty_blocking_means_proceed():
    text = render_markdown(result())
    order = [
        "## Recommendation",
        "## Consensus",
        "## Disagreements and rulings",
        "## Accepted trade-offs",
        "## Blocking concerns",
        "## Next step",
        "## Votes",
        "## Debate record",
    ]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert "None - proceed" in text
    assert "| a \\| b (loop) | r | why |" in text
    assert "- Verify: `pytest`" in text


def test_a_simulated_run_says_so_in_its_first_line():
    assert render_markdown(result(simulated=True)).startswith("# DECISION (SIMULATED):")
