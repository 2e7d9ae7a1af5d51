"""`council debate --from <check-id>` (docs/spec/protocol.md section 10, "From a check to a
debate"), in-process on a check record made by hand: what the debate takes from the check
(its question, files and the very seats, models and efforts included), what it refuses, and
which answers it copies as BLIND TAKEs; and what `council check` seats and asks
(`resolve_check_plan`). The whole run is tests/check/test_check.py's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from check.made import CHECK_ID, QUESTION, made_state
from council.check.flags import CheckFlags
from council.check.handoff import continued
from council.check.plan import resolve_check_plan
from council.config import Config, parse_config
from council.debate.flags import DebateFlags
from council.errors import UsageError


def saved(state, pad: Path, name: str = CHECK_ID) -> Path:
    """The check's record as its run leaves it: state.json and each reply's file."""
    record = pad / name
    record.mkdir(parents=True)
    (record / "state.json").write_text(json.dumps({**state.to_json(), "id": name}))
    for stem in state.order:
        (record / f"{stem}-reply.md").write_text(state.contribution(stem).text)
    return record


@pytest.fixture
def check(tmp_path: Path):
    state = made_state({"advocate": "Redis", "proxy-gemini": "Postgres"}, failed=("critic",))
    state.plan.update(files=["app.py"], diff_ref="main", simulated=True, allow_secrets=True)
    state.plan["advocate"].update(model="opus", effort="high")
    state.plan["critic"].update(effort="low")
    state.plan["proxies"][0].update(model="gemini-2.5-pro")
    saved(state, tmp_path / ".scratchpad")
    return state


def test_the_debate_takes_the_checks_question_files_and_very_seats(tmp_path, check):
    protocol, given = continued(DebateFlags(question="", from_check="last"), Config(), tmp_path)
    assert (given.question, given.files, given.diff) == (QUESTION, ("app.py",), "main")
    assert (given.advocate, given.critic, given.proxies) == (
        "claude:opus#high",
        "codex#low",
        ("gemini:gemini-2.5-pro",),
    )
    assert (given.sim, given.allow_secrets, given.allow_outside) == (True, True, False)
    # Only an answered challenger's call is copied: the critic's failed, it is asked again;
    # the advocate's answer is never a BLIND TAKE (it writes the PROPOSAL).
    (copied,) = protocol.carried()
    assert (copied.stem, copied.seat, copied.phase, copied.round) == (
        "proxy-gemini-r1",
        "proxy-gemini",
        "BLIND_TAKE",
        1,
    )
    assert copied.text == "I would pick it.\nPOSITION: Postgres"
    assert copied.copied_from == f"{CHECK_ID}/proxy-gemini-r1"
    assert copied.detail == f"copied from {CHECK_ID}: its CHECK answer, not asked again"
    assert (copied.started_at, copied.spans, copied.prompt_file, copied.response_file) == (
        None,
        [],
        "",
        "",
    )
    assert (copied.words, copied.status) == (5, "ok")  # the figures are kept


@pytest.mark.parametrize(
    ("given", "flag"),
    [
        ({"files": ("app.py",)}, "--files"),
        ({"diff": "main"}, "--diff"),
        ({"proxies": ("codex",)}, "--with"),
        ({"advocate": "codex"}, "--advocate"),
        ({"critic": "claude"}, "--critic"),
    ],
)
def test_a_flag_the_check_decides_is_refused(tmp_path, check, given, flag):
    flags = DebateFlags(question="", from_check=CHECK_ID, **given)
    with pytest.raises(UsageError) as refused:
        continued(flags, Config(), tmp_path)
    assert str(refused.value) == (
        f"--from {CHECK_ID} debates the check's own question, files and seats: drop {flag}"
    )


@pytest.mark.parametrize("status", ["running", "failed", "interrupted"])
def test_a_check_that_has_not_ended_is_refused(tmp_path, status):
    saved(made_state({"advocate": "Redis"}, status=status), tmp_path / ".scratchpad")
    with pytest.raises(UsageError) as refused:
        continued(DebateFlags(question="", from_check="last"), Config(), tmp_path)
    assert str(refused.value) == (
        f"--from last: {CHECK_ID} has not ended ({status}); wait for it (council wait "
        f"{CHECK_ID}) or resume it (council resume {CHECK_ID})"
    )


def test_the_check_is_found_in_the_scratchpad_given(tmp_path):
    saved(made_state({"advocate": "Redis"}), tmp_path / "elsewhere")
    flags = DebateFlags(question="", from_check=CHECK_ID[:12], scratchpad="elsewhere")
    _, given = continued(flags, Config(), tmp_path)
    assert given.question == QUESTION
    with pytest.raises(UsageError, match="no run 'check-2026"):
        continued(DebateFlags(question="", from_check=CHECK_ID[:12]), Config(), tmp_path)


def test_a_record_that_is_no_check_is_refused(tmp_path):
    pad = tmp_path / ".scratchpad"
    review = "review-20261128-143005-abcd"
    saved(made_state({"advocate": "Redis"}), pad, review)
    with pytest.raises(UsageError) as refused:
        continued(DebateFlags(question="", from_check=review), Config(), tmp_path)
    assert str(refused.value) == (
        f"--from {review}: {review} is a review, not a check; --from takes a check's id "
        "(council list shows them)"
    )
    broken = made_state({"advocate": "Redis"})
    del broken.plan["critic"]
    saved(broken, pad)
    with pytest.raises(UsageError) as refused:
        continued(DebateFlags(question="", from_check=CHECK_ID), Config(), tmp_path)
    assert str(refused.value) == f"--from {CHECK_ID}: {CHECK_ID}'s state.json is not a check's"


def test_a_check_seats_a_debates_seats_and_its_own_options():
    config = parse_config({"debate": {"words": {"blind": 80}}})
    flags = CheckFlags(
        question="Cache?",
        options=(" Redis ", "Post  gres", "", "Redis"),
        advocate="codex",
        critic="claude:opus",
        proxies=("gemini#low",),
    )
    plan = resolve_check_plan(flags, config)
    assert plan.options == ("Redis", "Post gres")  # one line each, once, none empty
    assert (plan.question, plan.limit, plan.rounds) == ("Cache?", 80, 1)
    assert [(s.name, s.role, s.cli, s.model, s.effort) for s in plan.seats] == [
        ("advocate", "advocate", "codex", None, None),
        ("critic", "critic", "claude", "opus", None),
        ("proxy-gemini", "proxy", "gemini", None, "low"),
    ]
    assert resolve_check_plan(CheckFlags(question="Cache?", sim=True), Config()).limit == 150
    assert resolve_check_plan(CheckFlags(question="Cache?", sim=True), Config()).options == ()


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        (("Redis",), 1),
        (("Redis", " Redis"), 1),
        (tuple(f"option {i}" for i in range(11)), 11),
        (tuple(f"option {i}" for i in range(10)), None),
        (("Redis", "Postgres"), None),
    ],
)
def test_options_take_two_to_ten_answers(options, refused):
    flags = CheckFlags(question="Cache?", options=options, sim=True)
    if refused is None:
        assert len(resolve_check_plan(flags, Config()).options) == len(options)
        return
    with pytest.raises(UsageError) as error:
        resolve_check_plan(flags, Config())
    assert str(error.value) == (
        f"--options takes 2 to 10 answers to choose from, not {refused}; give them "
        "comma-separated (--options Redis,Postgres) or leave --options out"
    )
