"""Contract tests of the warm workers: every persistent mode council drives (runner/warm.py),
against the real CLI and the fake model server, as a seat runs it: one process for all the
seat's calls, a fresh session with no history per call, the same read-only measures, the
hard limit by the protocol's cancel, errors classified, and spawn-per-call when the worker
dies twice."""

from __future__ import annotations

import json
import os
import secrets
import signal

import psutil
import pytest

from council.adapters.base import Status
from council.runner import RetryPolicy
from council.runner.environment import CALL_MARKER
from fakemodel.clients import API_KEY, codex_built_in
from fakemodel.replies import AFTER_TOOL_REPLY, reply_for
from vendor_lists import programs

pytestmark = [pytest.mark.anyio, pytest.mark.realcli]

WARM = programs(warm=True)
# Both kimis end a turn the model refused (429, 500) with no text and no error: the call is
# redone spawned, which classifies it.
REDONE_SPAWNED = ("kimi-code", "kimi-cli")
SOFT_S = 30.0
# qwen retries a 500 on its own for about 80 s (1.5 s doubling to 30 s) whatever its settings
# say: its 500 test waits that long, once.
ERROR_SOFT_S = {"qwen": 150.0}
NO_RETRY = RetryPolicy(rate_limit_retries=0, other_retries=0)


def council_processes() -> list[psutil.Process]:
    """Live processes of council calls made by this test process (its descendants, and any
    that carry its call marker)."""
    own = f"{psutil.Process().pid}-"
    found = {p.pid: p for p in psutil.Process().children(recursive=True)}
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(CALL_MARKER, "").startswith(own):
                found[proc.pid] = proc
        except psutil.Error:
            continue
    alive = []
    for proc in found.values():
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except psutil.Error:
            continue
    return alive


def warm_seat(real_cli, cli: str):
    """The CLI as a seat runs it warm: kimi-cli's `kimi acp` opens sessions only for a user
    logged in with a Kimi account, so its test user is (a placeholder token)."""
    seat = real_cli(cli)
    if cli == "kimi-cli":
        creds = seat.home / ".kimi" / "credentials"
        creds.mkdir(parents=True, exist_ok=True)
        (creds / "kimi-code.json").write_text(json.dumps({"access_token": "placeholder"}))
    return seat


async def _kill(worker) -> None:
    """SIGKILL the worker's process group (the CLI and what it started) between two calls,
    and wait until council has seen it go."""
    process = worker.process
    os.killpg(process.pid, signal.SIGKILL)
    await process.exited.wait()


@pytest.mark.parametrize("cli", WARM)
async def test_one_worker_answers_every_call_in_a_new_session_that_holds_no_other_call(
    real_cli, cli
):
    seat = warm_seat(real_cli, cli)
    nonces = [f"nonce-{i}-{secrets.token_hex(6)}" for i in range(4)]
    prompts = [f"ACTION: PROPOSAL\nQuestion {i}: keep {n} in mind?\n" for i, n in enumerate(nonces)]
    async with seat.warm_worker() as worker:
        pid = worker.pid
        if cli not in ("pi", "claude"):  # their handshakes name no version: probed
            assert worker.version == seat.tool.version  # the handshake says what --version says
        outcomes = [await seat.ask(p, soft=SOFT_S, warm=worker) for p in prompts]
        assert worker.pid == pid, "one process served every call"
        assert worker.stats.calls == len(prompts)
    for prompt, outcome in zip(prompts, outcomes, strict=True):
        assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
        assert [a.warm for a in outcome.attempts] == [True]
        assert outcome.text == reply_for(prompt, seat.server.behaviour_for(cli, prompt))
    requests = seat.server.requests(cli)
    assert len(requests) == len(prompts)  # one model request per call
    for request in requests:
        body = json.dumps(request.body, ensure_ascii=False)
        assert sum(n in body for n in nonces) == 1, "a request carried another call's prompt"
    assert council_processes() == []


@pytest.mark.parametrize("cli", WARM)
async def test_a_write_the_model_asks_for_never_happens_on_a_warm_worker(real_cli, cli, tmp_path):
    seat = warm_seat(real_cli, cli)
    project = tmp_path / "project"
    project.mkdir()
    outside = project / "evil.py"
    before = seat.room_snapshot()
    async with seat.warm_worker() as worker:
        placed = seat.room_snapshot()  # what council put in the room for the worker
        inside = await seat.ask(
            f"Question: write? [[fake:write={seat.room / 'written.txt'}]]", soft=SOFT_S, warm=worker
        )
        beyond = await seat.ask(
            f"Question: write outside? [[fake:write={outside}]]", soft=SOFT_S, warm=worker
        )
    for outcome in (inside, beyond):
        assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
        assert outcome.attempts[0].warm
    assert set(before) <= set(placed)
    assert seat.room_snapshot() == placed
    assert not outside.exists() and list(project.iterdir()) == []
    first = seat.server.requests(cli, answered=True)[0]
    if first.tool_call is not None:
        assert inside.text == AFTER_TOOL_REPLY  # the model tried, and the CLI came back
    else:
        assert not {"write_file", "Write", "write", "WriteFile"} & set(first.tools)


@pytest.mark.parametrize("cli", WARM)
async def test_the_hard_limit_cancels_the_session_and_the_worker_serves_the_next_call(
    real_cli, cli
):
    seat = warm_seat(real_cli, cli)
    async with seat.warm_worker() as worker:
        pid = worker.pid
        hung = await seat.ask("Question: hang? [[fake:hang]]", soft=2, hard=3, warm=worker)
        after = await seat.ask("Question: still there?", soft=SOFT_S, warm=worker)
        assert worker.pid == pid and worker.stats.deaths == 0
    assert hung.status is Status.TIMEOUT, (hung.detail, hung.stderr_tail)
    assert "cancelled" in hung.detail and not hung.attempts[0].killed
    assert [r.outcome for r in seat.server.requests(cli)][:1] == ["hang"]
    assert after.status is Status.OK, (after.detail, after.stderr_tail)
    assert council_processes() == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("cli", WARM)
async def test_a_server_error_on_a_warm_worker_is_classified_rate_limited(real_cli, cli):
    seat = warm_seat(real_cli, cli)
    soft = ERROR_SOFT_S.get(cli, SOFT_S)
    async with seat.warm_worker() as worker:
        failed = await seat.ask(
            "Question: 500? [[fake:status=500]]", soft=soft, warm=worker, policy=NO_RETRY
        )
        after = await seat.ask("Question: and now?", soft=SOFT_S, warm=worker)
    assert failed.status is Status.RATE_LIMITED, (failed.detail, failed.stderr_tail)
    redone = [False] if cli in REDONE_SPAWNED else []
    assert [a.warm for a in failed.attempts] == [True, *redone]
    assert after.status is Status.OK and after.attempts[0].warm


async def test_a_codex_500_on_a_warm_worker_is_retried_once_inside_codex(real_cli):
    """As a spawned call: codex's own retries capped to one (2 requests), council's policy
    decides the rest."""
    seat = warm_seat(real_cli, "codex")
    seat.server.add_rule(client="codex", contains="fail?", status=500)
    async with seat.warm_worker() as worker:
        failed = await seat.ask("Question: fail?", soft=SOFT_S, warm=worker, policy=NO_RETRY)
    assert failed.status is Status.RATE_LIMITED, (failed.detail, failed.stderr_tail)
    assert [r.status for r in seat.server.requests("codex")] == [500, 500]


async def test_codex_app_server_ignores_codex_api_key_so_such_a_seat_spawns_per_call(real_cli):
    """`codex exec` sends CODEX_API_KEY; `codex app-server` sends no key at all (0.169.0 and
    0.171.0), so a seat with only that key runs spawned (`warm_refusal`). The key `codex
    login --with-api-key` writes to auth.json is read by both. When a codex sends the
    variable from its app-server too, the warm call below passes: drop the refusal."""
    seat = warm_seat(real_cli, "codex")
    codex_built_in(seat.server, seat.home)
    seat.server.add_rule(client="codex", key=API_KEY)
    tool = await seat.resolve()
    assert "does not read CODEX_API_KEY" in (
        seat.adapter.warm_refusal(tool, seat.environ, seat.home) or ""
    )
    async with seat.warm_worker() as worker:
        warm = await seat.ask("Question: warm key?", soft=SOFT_S, warm=worker, policy=NO_RETRY)
    spawned = await seat.ask("Question: spawned key?", soft=SOFT_S)
    assert warm.status is Status.AUTH, (warm.detail, warm.stderr_tail)
    assert spawned.status is Status.OK, (spawned.detail, spawned.stderr_tail)
    logged_in = {**seat.environ}
    del logged_in["CODEX_API_KEY"]
    (seat.home / ".codex" / "auth.json").write_text(
        json.dumps({"auth_mode": "apikey", "OPENAI_API_KEY": API_KEY})
    )
    seat.environ = logged_in
    assert seat.adapter.warm_refusal(tool, seat.environ, seat.home) is None
    async with seat.warm_worker() as worker:
        login = await seat.ask("Question: login key?", soft=SOFT_S, warm=worker)
    assert login.status is Status.OK and login.attempts[0].warm, (login.detail, login.stderr_tail)


@pytest.mark.parametrize("cli", WARM)
async def test_a_worker_killed_twice_leaves_the_seat_spawning_per_call(real_cli, cli):
    seat = warm_seat(real_cli, cli)
    async with seat.warm_worker() as worker:
        first = worker.pid
        await _kill(worker)
        restarted = await seat.ask("Question: after one death?", soft=SOFT_S, warm=worker)
        assert worker.usable and worker.pid not in (None, first)
        await _kill(worker)
        spawned = await seat.ask("Question: after two?", soft=SOFT_S, warm=worker)
        assert not worker.usable and worker.stats.deaths == 2
        assert "died twice" in (worker.stats.problem or "")
    assert restarted.status is Status.OK and restarted.attempts[0].warm
    assert spawned.status is Status.OK, (spawned.detail, spawned.stderr_tail)
    assert [a.warm for a in spawned.attempts] == [False]
    assert council_processes() == []


# Part of every input read from a cache, part of every output spent thinking: each CLI's warm
# mode reports usage its own way, and council's figures must be the totals all the same.
CACHED, REASONING = 3, 5
# What each warm mode reports: gemini's ACP counts its output without the thinking tokens
# and says nothing of them, so its output is unknown (None).
WARM_USAGE = {"gemini": False, "qwen": True, "claude": True, "codex": True, "pi": True}


@pytest.mark.parametrize("cli", list(WARM_USAGE))
async def test_the_usage_of_each_warm_call_adds_up_what_the_model_server_reported_for_it(
    real_cli, cli
):
    seat = warm_seat(real_cli, cli)
    seat.server.add_rule(client=cli, cached_tokens=CACHED, reasoning_tokens=REASONING)
    target = seat.room / "written.txt"
    prompts = [f"Question: first usage? [[fake:write={target}]]", "Question: second usage?"]
    async with seat.warm_worker() as worker:
        outcomes = [await seat.ask(p, soft=SOFT_S, warm=worker) for p in prompts]
    for prompt, outcome in zip(prompts, outcomes, strict=True):
        assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
        served = [r.usage for r in seat.server.requests(cli, answered=True, prompt_has=prompt[:20])]
        assert served and all(u is not None for u in served)
        output = sum(u.output for u in served) if WARM_USAGE[cli] else None
        expected = (sum(u.input for u in served), output)
        assert outcome.usage is not None, prompt
        assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == expected, served
