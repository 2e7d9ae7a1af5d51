"""Contract tests of lean warm workers (docs/lean.md, "Lean and warm"): a seat whose every
call may run lean starts its worker lean, and the real CLI's persistent mode then sends
each request with no tool and council's system prompt, a fraction of a usual worker's bytes.

Each test runs the real CLI against the fake model server, which logs every request's body
and its size. The byte figures of docs/lean.md come from `test_a_lean_worker_sends_...`'s
output (`-s`): the median of three requests per set-up."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

import pytest

from council.adapters.base import Status
from council.adapters.warm import LeanStart
from council.prompts import render
from fakemodel.fixtures import _skip_or_fail, council_env
from fakemodel.installed import installed
from vendor_lists import programs

pytestmark = [pytest.mark.anyio, pytest.mark.realcli]

LEAN = render("lean_system")
LEAN_MARK = LEAN.splitlines()[0]  # how a request shows council's system prompt arrived
SOFT_S = 30.0
# The CLIs whose persistent mode takes council's system prompt and no tool. kimi's `kimi
# acp` takes no option at all (no agent file): its worker starts as usual.
LEAN_WARM = [p for p in programs(warm=True) if not p.startswith("kimi")]
PROMPT = "ACTION: PROPOSAL\nQuestion: what does a lean worker send? Seat {seat}, call {n}.\n"
# What the CLI may put around council's prompt in a request, at most (the aim);
# qwen 0.24.4 lists its bundled skills whatever it is told (~10 KB), lean spawned as well.
ADDED_AT_MOST = 5 * 1024
ADDED_AT_MOST_BY_CLI = {"qwen": 12 * 1024}


def _body(request) -> str:
    return json.dumps(request.body, ensure_ascii=False)


async def _three_calls(seat, *, label: str, warm: bool, lean: bool):
    """Three calls as the seat makes them: on its worker (started lean or as usual), or
    spawned lean; the requests the server logged for them, and what the CLI added."""
    prompts = [PROMPT.format(seat=label, n=n) for n in range(3)]
    lean_prompt = LEAN if lean else None
    outcomes = []
    if warm:
        start = LeanStart(LEAN, seat.room) if lean else None
        async with seat.warm_worker(lean=start) as worker:
            assert worker.lean is lean
            for prompt in prompts:
                outcomes.append(await seat.ask(prompt, soft=SOFT_S, warm=worker, lean_prompt=LEAN))
    else:
        for prompt in prompts:
            outcomes.append(await seat.ask(prompt, soft=SOFT_S, lean_prompt=lean_prompt))
    for outcome in outcomes:
        assert outcome.status is Status.OK, (label, outcome.detail, outcome.stderr_tail)
        assert [a.warm for a in outcome.attempts] == [warm], label
    requests = seat.server.requests(seat.name, prompt_has=f"Seat {label},")
    assert len(requests) == len(prompts), (label, [r.outcome for r in requests])
    added = [r.body_bytes - len(prompts[0].encode()) for r in requests]
    return requests, added


@pytest.mark.parametrize("cli", LEAN_WARM)
async def test_a_lean_worker_declares_no_tool_and_carries_councils_system_prompt(real_cli, cli):
    """Every request of a worker started lean declares no tool and carries council's system
    prompt, and the CLI adds at most ~5 KB around the prompt; a worker started as usual
    declares its read tools, without council's prompt."""
    lean = real_cli(cli, label="lean")
    requests, added = await _three_calls(lean, label="L", warm=True, lean=True)
    for request in requests:
        assert request.tools == (), request.tools
        assert LEAN_MARK in _body(request)
    assert max(added) <= ADDED_AT_MOST_BY_CLI.get(cli, ADDED_AT_MOST), added
    usual = real_cli(cli, label="usual")
    requests, _ = await _three_calls(usual, label="U", warm=True, lean=False)
    assert all(r.tools != () and LEAN_MARK not in _body(r) for r in requests)


@pytest.mark.parametrize("cli", LEAN_WARM)
async def test_a_lean_worker_sends_the_bytes_of_a_lean_spawned_call(real_cli, cli):
    """What each CLI adds to council's prompt per request, warm lean against warm usual and
    spawned lean (printed for docs/lean.md): warm lean within 1 KB of spawned lean, and at
    most a quarter of warm usual."""
    figures = {}
    for label, warm, lean in (("WU", True, False), ("WL", True, True), ("SL", False, True)):
        seat = real_cli(cli, label=label)
        _, added = await _three_calls(seat, label=label, warm=warm, lean=lean)
        figures[label] = statistics.median(added)
    print(f"\n{cli}: added per request (median of 3): {figures}")
    assert figures["WL"] * 4 <= figures["WU"], figures
    assert abs(figures["WL"] - figures["SL"]) <= 1024, figures


@pytest.mark.parametrize("cli", LEAN_WARM)
async def test_a_call_that_needs_its_tools_spawns_beside_a_lean_worker(real_cli, cli):
    """A worker started lean has no tool: a call that may not run lean (a file cut by the
    line caps) is spawned with the CLI's read tools, and the worker serves the next lean
    call."""
    seat = real_cli(cli)
    async with seat.warm_worker(lean=LeanStart(LEAN, seat.room)) as worker:
        tooled = await seat.ask(PROMPT.format(seat="T", n=0), soft=SOFT_S, warm=worker)
        lean = await seat.ask(
            PROMPT.format(seat="L", n=1), soft=SOFT_S, warm=worker, lean_prompt=LEAN
        )
    assert tooled.status is Status.OK and lean.status is Status.OK
    assert [a.warm for a in tooled.attempts] == [False]
    assert [a.warm for a in lean.attempts] == [True]
    (with_tools,) = seat.server.requests(cli, prompt_has="Seat T,")
    (without,) = seat.server.requests(cli, prompt_has="Seat L,")
    assert with_tools.tools != () and without.tools == ()


# -- A whole debate: every call lean, round 3, the proxy and the lead included ------------

DEBATE_CLIS = ("claude", "codex", "gemini")


def _debate(fake_model, tmp_path, *extra: str) -> tuple[dict, dict[str, list]]:
    """The issue's debate (claude advocate and lead, codex critic, gemini proxy, 3 rounds)
    over two small files, every one whole; its result.json and each CLI's requests."""
    for name in DEBATE_CLIS:
        if not installed(name).ok:
            _skip_or_fail(installed(name).problem())
    home, tmpdir, project = (tmp_path / d for d in ("home", "tmp", "project"))
    for directory in (home, tmpdir, project):
        directory.mkdir(parents=True)
    (project / "README.md").write_text("# Sessions service\n\nKeeps user sessions.\n")
    (project / "app.py").write_text("class SessionStore:\n    def get(self, key): ...\n")
    env, models = council_env(fake_model, DEBATE_CLIS, home, tmpdir)
    argv = [
        *("debate", "Redis or Postgres for sessions?", "--files", "README.md", "app.py"),
        *("--advocate", "claude", "--critic", "codex", "--with", "gemini", "--lead", "claude"),
        *("--rounds", "3", "--model", ",".join(models), "--json", *extra),
    ]
    run = subprocess.run(
        [sys.executable, "-m", "council", *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout), {cli: fake_model.requests(cli) for cli in DEBATE_CLIS}


def _per_request(requests) -> tuple[float, float]:
    """The median request's size, and the median of what the CLI added to council's prompt."""
    sizes = [r.body_bytes for r in requests]
    added = [r.body_bytes - len(r.prompt.encode()) for r in requests]
    return statistics.median(sizes), statistics.median(added)


@pytest.mark.timeout(900)
def test_a_debate_whose_files_are_whole_runs_every_call_lean_on_lean_workers(fake_model, tmp_path):
    """Every model request of the debate (the advocate's, the critic's, the proxy's, round
    3's and the lead's) declares no tool and carries council's system prompt; the seats'
    workers ran warm; each CLI adds at most ~5 KB a request. `--no-lean` (every worker as
    it starts without lean mode: the figures before it) is run too, for the comparison
    printed with `-s` (docs/lean.md)."""
    result, sent = _debate(fake_model, tmp_path / "lean")
    workers = {s["name"]: s["worker"] for s in result["seats"] if s["name"] != "lead"}
    assert all(w and w["mode"] == "warm" for w in workers.values()), workers
    phases = {(c["seat"], c["phase"]) for c in result["contributions"]}
    assert ("proxy-gemini", "REBUTTAL") in phases and ("advocate", "FINAL_SUMMARY") in phases
    for cli, requests in sent.items():
        assert requests, cli
        for request in requests:
            assert request.tools == (), (cli, request.tools)
            assert LEAN_MARK in _body(request), cli
    lean = {cli: _per_request(requests) for cli, requests in sent.items()}
    for cli, (_, added) in lean.items():
        assert added <= ADDED_AT_MOST, (cli, lean)
    _, after = _debate(fake_model, tmp_path / "usual", "--no-lean")
    usual_sent = {cli: requests[len(sent[cli]) :] for cli, requests in after.items()}
    usual = {cli: _per_request(requests) for cli, requests in usual_sent.items()}
    for cli in DEBATE_CLIS:
        print(
            f"\n{cli}: per request, whole / added: lean {lean[cli][0]:.0f} / {lean[cli][1]:.0f}"
            f" B, --no-lean {usual[cli][0]:.0f} / {usual[cli][1]:.0f} B"
            f" ({len(sent[cli])} and {len(usual_sent[cli])} requests)"
        )
