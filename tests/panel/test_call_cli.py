"""One call of a seat's CLI as the record keeps it (`panel.calls.call_cli`, the path every model
call of a run takes): the answer cut to its word limit with the words it had, or whole when
no limit is set (a JSON answer); the model asked (the seat's, else its CLI's in council.yaml)
and the model served; the soft limit and the hard one (the factor times it); the prompt and
response files; a failure's notice `<seat> <status>: <detail>` with its stderr. On the
simulator, in this process."""

from __future__ import annotations

from pathlib import Path

import anyio

from council.adapters import adapter_for
from council.config import parse_config
from council.panel.calls import CallSite, Tuning, call_cli
from council.panel.messages import Ask, Reply
from council.runner import RetryPolicy
from council.runner.resolve import ToolCache

PROMPT = "ACTION: CHALLENGE\nround=2\nQuestion: Redis or Postgres?\n"


def call(
    tmp_path: Path, *, limit: int | None, model: str | None = None, **env: str
) -> tuple[Reply, Path]:
    """One CHALLENGE call of the critic on `sim-x` (model `m-config` in council.yaml),
    soft timeout 30 s, hard factor 2; the reply and the record's folder."""
    config = parse_config({"clis": {"sim-x": {"adapter": "sim", "model": "m-config", "env": env}}})
    adapter = adapter_for("sim-x", config.clis)
    resolved = anyio.run(ToolCache(timeout_s=60).resolve, adapter)
    assert resolved.tool is not None, resolved.problem
    record, room = tmp_path / "record", tmp_path / "room"
    record.mkdir()
    room.mkdir()
    site = CallSite(
        seat="critic",
        adapter=adapter,
        tool=resolved.tool,
        record_dir=record,
        room=room,
        soft_timeout_s=30,
        hard_timeout_factor=2,
        model=model,
    )
    ask = Ask(prompt=PROMPT, stem="critic-r2", limit=limit)
    # A failed call is tried once more, at once here (a second later for a user).
    tuning = Tuning(grace_s=1.0, policy=RetryPolicy(other_delay_s=0.0))
    return anyio.run(call_cli, site, ask, tuning), record


def test_a_long_answer_is_cut_to_its_limit_and_keeps_the_words_it_had(tmp_path):
    reply, record = call(tmp_path, limit=50, COUNCIL_SIM_WORDS="300")
    assert (reply.status, reply.answered, reply.truncated) == ("ok", True, True)
    assert reply.original_words == 300
    marker = " [truncated: original ~300 words]"
    assert reply.text.endswith(marker)
    assert 0 < reply.words <= 50 and reply.words == len(reply.text.removesuffix(marker).split())
    assert (reply.soft_s, reply.hard_s) == (30, 60)
    assert (reply.cli, reply.model, reply.served_model) == ("sim-x", "m-config", "m-config")
    assert reply.argv[-2:] == ("--model", "m-config")
    assert (reply.prompt_file, reply.response_file) == (
        "critic-r2-prompt.md",
        "critic-r2-response.md",
    )
    assert (record / "critic-r2-prompt.md").read_text() == PROMPT
    assert len((record / "critic-r2-response.md").read_text().split()) >= 300
    assert (reply.attempts, reply.exit_code) == (1, 0)


def test_an_answer_without_a_limit_is_whole_and_the_seats_model_comes_first(tmp_path):
    reply, _ = call(tmp_path, limit=None, model="m-seat", COUNCIL_SIM_WORDS="300")
    assert not reply.truncated
    assert reply.words == reply.original_words == len(reply.text.split()) >= 300
    assert (reply.model, reply.served_model) == ("m-seat", "m-seat")
    assert reply.argv[-2:] == ("--model", "m-seat")


def test_a_failed_call_is_a_notice_naming_the_seat_its_status_and_detail(tmp_path):
    stderr = "council-sim: this install is broken"
    reply, _ = call(tmp_path, limit=50, COUNCIL_SIM_EXIT="3", COUNCIL_SIM_STDERR=stderr)
    assert reply.status == "error" and not reply.answered
    assert reply.text == f"critic error: {reply.detail}"
    assert reply.detail and reply.exit_code == 3
    assert reply.attempts == 2  # tried once more, then given up
    assert stderr in reply.stderr_tail
    assert reply.words == 0


def test_a_huge_whole_answer_counts_the_words_of_its_middle_kept_on_disk(tmp_path):
    reply, record = call(tmp_path, limit=None, COUNCIL_SIM_HUGE="1300000")
    assert reply.status == "ok" and not reply.truncated
    assert reply.words == len(reply.text.split())
    # The middle of a huge answer is on disk only, yet its words count in the original.
    assert reply.original_words > reply.words
    assert (record / "critic-r2-response.md").stat().st_size >= 1_300_000
