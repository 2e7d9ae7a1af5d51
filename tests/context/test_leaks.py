"""End to end below the lead: a planted-secrets project goes through `gather_context`, a clean
room and a rendered prompt into a fake CLI run by `council.runner.run_call`; no secret may
appear in the record, the room, the report, the result's context, or anything the CLI got.
And a CLI that tries to write changes nothing outside the scratchpad."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from context.secrets_corpus import find_leaks, plant_secret_corpus, read_tree, snapshot
from council.adapters import adapter_for
from council.context import (
    RunContext,
    build_room,
    context_json,
    gather_context,
    remove_room,
    render_context_md,
    setup_report,
)
from council.context.rooms import room_files
from council.errors import UsageError
from council.runner import CallFiles, CallOutcome, Timeouts, run_call
from council.runner.resolve import resolve_tool

from fakes.install import FakeClis

pytestmark = pytest.mark.anyio

HEADER = (
    "IMPORTANT: You are an independent analyst in a structured technical debate.\n"
    "- Answer only the debate task below, directly, in at most 300 words.\n\n"
)


def debate_prompt(ctx: RunContext, question: str = "Is this configuration safe?") -> str:
    """A prompt shaped like the real ones: header, question, the context as sent."""
    return f"{HEADER}ACTION: CHALLENGE\nQuestion: {question}\n\n{render_context_md(ctx)}"


async def call_seat(cli: str, ctx: RunContext, record: Path, seat: str) -> CallOutcome:
    room = record / "rooms" / seat
    build_room(room, ctx)
    adapter = adapter_for(cli)
    resolved = await resolve_tool(adapter, timeout_s=10)
    assert resolved.tool is not None, resolved.problem
    return await run_call(
        adapter,
        resolved.tool,
        debate_prompt(ctx),
        room=room,
        files=CallFiles(record, f"{seat}-r2"),
        timeouts=Timeouts(soft_s=20, hard_s=30, grace_s=1),
    )


def answer_calls(fakes: FakeClis, cli: str) -> list[dict]:
    return [c for c in fakes.calls(cli) if c["argv"] not in (["--version"], ["-V"])]


@pytest.mark.parametrize("cli", ["claude", "codex"])
async def test_no_planted_secret_leaves_through_a_prompt_a_room_or_a_cli(
    cli, project, fakes, scratch
):
    corpus = plant_secret_corpus(project)
    assert len(corpus.planted) >= 25
    ctx = gather_context(corpus.files, cwd=project, allow_secrets=True)
    assert [f.path for f in ctx.files] == corpus.files
    assert ctx.total_redactions >= len(corpus.planted)

    outcome = await call_seat(cli, ctx, scratch, "critic")
    assert outcome.status.value == "ok", outcome.detail
    (call,) = answer_calls(fakes, cli)
    assert call["stdin"] == debate_prompt(ctx)
    assert "[REDACTED:" in call["stdin"]

    everything = {
        **{f"record/{k}": v for k, v in read_tree(scratch).items()},
        **{f"fake/{k}": v for k, v in read_tree(fakes.state_dir).items()},
        "stdin": call["stdin"],
        "argv": json.dumps(call["argv"]),
        "setup report": "\n".join(setup_report(ctx)),
        "result context": json.dumps(context_json(ctx)),
        "saved context": json.dumps(ctx.to_json()),
        "warnings": "\n".join(ctx.warnings),
    }
    assert any(k.startswith("record/rooms/critic/") for k in everything)
    assert "record/critic-r2-prompt.md" in everything
    assert find_leaks(corpus, everything) == []


def test_every_planted_secret_is_found_in_the_raw_files():
    """The checker itself: without redaction, every planted secret is seen."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        corpus = plant_secret_corpus(Path(tmp))
        raw = read_tree(Path(tmp))
        found = find_leaks(corpus, raw)
    assert len(found) == len(corpus.planted)


def test_the_corpus_is_fully_redacted_whatever_the_seed(tmp_path):
    """Random values hit edge cases (a `#` in a URL password, a value starting with `!`):
    many seeds, every secret redacted exactly once."""
    for seed in range(40):
        root = tmp_path / f"s{seed}"
        (root / ".git").mkdir(parents=True)
        corpus = plant_secret_corpus(root, seed=seed)
        ctx = gather_context(corpus.files, cwd=root, allow_secrets=True)
        rooms = {f.path: f.room_text for f in ctx.files}
        assert find_leaks(corpus, rooms) == [], seed
        assert ctx.total_redactions == len(corpus.planted), seed


def test_without_allow_secrets_the_secret_named_files_are_refused(project):
    corpus = plant_secret_corpus(project)
    assert corpus.secret_named == [".env", "deploy/credentials.json"]
    with pytest.raises(UsageError) as caught:
        gather_context(corpus.files, cwd=project)
    assert caught.value.exit_code == 2
    message = str(caught.value)
    assert message.startswith("cannot use 2 files: ")
    for name in corpus.secret_named:
        assert f"{name}: may hold secrets" in message
    assert find_leaks(corpus, {"message": message}) == []


async def test_a_cli_trying_to_write_changes_nothing_outside_the_scratchpad(project, fakes):
    corpus = plant_secret_corpus(project)
    scratchpad = project / ".scratchpad"
    record = scratchpad / "debate-test"
    ctx = gather_context(corpus.ordinary_files, cwd=project)
    room = record / "rooms" / "critic"
    build_room(room, ctx)
    tree_before = snapshot(project, skip=(".scratchpad",))
    room_before = room_files(room)
    # The seat's view of the user's tree is its room: `app` is the project's `app/` there.
    fakes.set("claude", "write_attempt", target="app")
    try:
        outcome = await call_seat("claude", ctx, record, "critic")
        assert outcome.status.value == "ok", outcome.detail
        (call,) = answer_calls(fakes, "claude")
        targets = [w["path"] for w in call["writes"]]
        assert targets == [str(room / "fake-wrote.txt"), "app/fake-wrote.txt"]  # cwd: the room
        assert snapshot(project, skip=(".scratchpad",)) == tree_before
        if os.geteuid() != 0:  # root ignores permission bits (see test_rooms for nobody)
            assert [w["ok"] for w in call["writes"]] == [False, False]
            assert room_files(room) == room_before
    finally:
        remove_room(scratchpad)
