"""Contract tests: council's adapters against the real vendor CLIs (docs/spec/clis.md,
"Contract tests").

Each test runs one real CLI, installed by scripts/install-real-clis.sh, through
`council.runner.run_call` exactly as a seat would, with HOME and TMPDIR in a temporary
directory and the CLI configured to use the fake model server on 127.0.0.1. A CLI whose
install failed is skipped with the reason; nothing here needs an account or the internet.
"""

from __future__ import annotations

import functools
import json

import anyio
import psutil
import pytest

from council.adapters import adapter_for
from council.adapters.base import CliSettings, Status
from council.adapters.pi import LINEAR_JSON_SINCE as PI_JSON_SINCE
from council.adapters.versions import version_at_least
from council.prompts import render
from council.runner import RetryPolicy
from council.runner.environment import CALL_MARKER
from fakemodel.clients import API_KEY, codex_built_in
from fakemodel.installed import installed
from fakemodel.replies import AFTER_TOOL_REPLY, reply_for
from vendor_lists import programs

pytestmark = [pytest.mark.anyio, pytest.mark.realcli]

CLIS = programs()
# Quotes, shell syntax, escapes, non-ASCII, a tab, lines that look like flags or slash
# commands, and the trailing newline every rendered prompt ends with.
PROMPT = (
    "ACTION: PROPOSAL\n"
    "Question: does the prompt arrive intact?\n"
    "Quotes \"double\" 'single' `back`; shell $HOME $(id) ; | & > < * ? ~ \\ and \\n literal\n"
    "Unicode: café, naïve, 日本語, emoji 🚀, tab\there\n"
    "- a line starting with a dash\n"
    "--version\n"
    "   indented line\n"
    "/help\n"
    "Last line.\n"
)
# Code under debate is full of `@`: decorators, e-mail addresses, handles. (gemini also
# expands `@path` when the room holds that file, appending its content: not tested here.)
AT_PROMPT = (
    "ACTION: CHALLENGE\n"
    "Question: is this code right?\n"
    "@dataclass(frozen=True)\n"
    "class Seat:  # mail user@example.com, ask @maintainer, see @src/app.py\n"
)
# What a CLI itself does to the prompt on its way to the model (not council's doing).
CLI_REWRITES = {
    # qwen joins stdin and the -p prompt as f"{stdin}\n\n{prompt}", the prompt being empty.
    "qwen": lambda prompt: prompt + "\n\n",
    # pi and kimi-cli trim the prompt they read from stdin.
    "pi": str.strip,
    "kimi-cli": str.strip,
}
LONG = 30_000  # characters in the answer to PROMPT
# A call that should answer at once still pays for the CLI's start-up (up to ~5 s here);
# the hard limit (1.5x) stays below pytest's 60 s per test, so council, not pytest, stops it.
SOFT_S = 30.0
# qwen retries a 429 seven times over ~80 s (1.5 s doubling to 30 s, Retry-After ignored)
# and has no setting to cap it: its rate-limit tests wait that long, once.
RATE_LIMIT_SOFT_S = {"qwen": 150.0}
# The others: two CLIs side by side, each with its own retries, on a busy machine; the test's
# point is that a persistent 429 ends rate_limited before the soft timeout, not its speed.
RATE_LIMIT_DEFAULT_SOFT_S = 60.0
RATE_LIMIT_RETRIES = {"qwen": 0}
# The hung-server test's hard limits, tried in turn until the CLI reaches the server in time.
HUNG_SERVER_HARD_S = (8.0, 20.0, 45.0)


def arrived(cli: str, prompt: str) -> str:
    """The prompt as the model should see it when council passes `prompt` to `cli`."""
    return CLI_REWRITES.get(cli, str)(prompt)


def council_processes() -> list[psutil.Process]:
    """Live processes started by a council call of this test process: its descendants, and
    any that carry its call marker (kimi-cli blanks its /proc environ, hence both)."""
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


@pytest.mark.parametrize("cli", CLIS)
async def test_the_adapter_argv_is_accepted_and_the_prompt_and_a_long_answer_pass_unchanged(
    real_cli, cli
):
    seat = real_cli(cli)
    # Long enough to need many stream events and pipe reads; its first line names the
    # prompt's digest, so the answer also proves which prompt the model saw.
    seat.server.add_rule(client=cli, contains="does the prompt arrive", long_chars=LONG)
    outcome = await seat.ask(PROMPT, soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert [a.exit_code for a in outcome.attempts] == [0]
    answered = seat.server.requests(cli, answered=True)
    assert answered, "the CLI never reached the fake model server"
    assert answered[0].prompt == arrived(cli, PROMPT)
    expected = reply_for(arrived(cli, PROMPT), seat.server.behaviour_for(cli, PROMPT))
    assert len(outcome.text) == len(expected) == LONG
    assert outcome.text == expected


@pytest.mark.parametrize("cli", CLIS)
async def test_one_call_is_one_model_request(real_cli, cli):
    """No hidden model turn after the answer (qwen's managed auto-memory made a second
    request after every call, and the call waited for it)."""
    seat = real_cli(cli)
    outcome = await seat.ask(PROMPT, soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    # A tool call the model asks for (reading a room file) is part of the one turn.
    answers = [r for r in seat.server.requests(cli) if r.outcome == "answer"]
    assert len(answers) == 1, [(r.outcome, r.prompt[:60]) for r in seat.server.requests(cli)]


@pytest.mark.parametrize(
    "cli",
    [
        pytest.param(
            cli,
            marks=pytest.mark.xfail(
                strict=True,
                reason="qwen (0.15.10, 0.24.4) runs every headless prompt through its "
                "`@path` processor, which puts spaces around each `@` (and inlines a room "
                "file named after one); no flag turns it off",
            ),
        )
        if cli == "qwen"
        else cli
        for cli in CLIS
    ],
)
async def test_at_signs_in_code_reach_the_model_unchanged(real_cli, cli):
    seat = real_cli(cli)
    outcome = await seat.ask(AT_PROMPT, soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert seat.server.requests(cli, answered=True)[0].prompt == arrived(cli, AT_PROMPT)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("cli", CLIS)
async def test_a_429_is_retried_until_it_clears_and_a_persistent_one_ends_rate_limited(
    real_cli, cli
):
    # Two seats side by side, so that the CLIs' own retries are waited for once.
    once, always = real_cli(cli, label="once"), real_cli(cli, label="always")
    once_prompt = "ACTION: PROPOSAL\nQuestion: retry after a rate limit?\n"
    # Every request of the first council attempt fails, however often the CLI retries it.
    once.server.add_rule(client=cli, contains="retry after a rate", fail_calls=1, status=429)
    # Error words in the prompt must not decide the outcome (codex echoes it on stderr).
    always_prompt = (
        "Question: always limited? Our logs show 401 Unauthorized and "
        "'Not logged in · Please run /login'.\n"
    )
    always.server.add_rule(client=cli, contains="always limited", status=429, retry_after_s=0)
    soft = RATE_LIMIT_SOFT_S.get(cli, RATE_LIMIT_DEFAULT_SOFT_S)
    retries = RATE_LIMIT_RETRIES.get(cli, 2)
    policy = RetryPolicy(base_delay_s=0.05, max_delay_s=0.2, rate_limit_retries=retries)
    outcomes = {}

    async def run(name, seat, prompt, **kwargs):
        outcomes[name] = await seat.ask(prompt, soft=soft, **kwargs)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "once", once, once_prompt)
        tg.start_soon(functools.partial(run, "always", always, always_prompt, policy=policy))

    cleared, persistent = outcomes["once"], outcomes["always"]
    assert [a.status for a in cleared.attempts] == [Status.RATE_LIMITED, Status.OK], (
        [(a.status, a.exit_code, a.detail) for a in cleared.attempts],
        [(r.caller, r.status) for r in once.server.requests(cli, prompt_has="retry after")],
    )
    assert cleared.text == reply_for(arrived(cli, once_prompt))
    assert persistent.status is Status.RATE_LIMITED, (persistent.detail, persistent.stderr_tail)
    assert [a.status for a in persistent.attempts] == [Status.RATE_LIMITED] * (1 + retries)
    assert not persistent.exceeded_soft and persistent.latency_s < soft
    assert all(r.status == 429 for r in always.server.requests(cli, prompt_has="always limited"))


@pytest.mark.timeout(180)
@pytest.mark.parametrize("cli", CLIS)
async def test_a_hung_server_ends_timeout_with_the_process_tree_dead(real_cli, cli):
    seat = real_cli(cli)
    # The hard limit must leave the CLI time to start and reach the server: ~5 s on a quiet
    # machine, several times that at load 10. A CLI still starting at the limit is no bug,
    # so the same call is made again with a longer one; the server seeing the request is
    # what the test waits for, not a time.
    for hard in HUNG_SERVER_HARD_S:
        outcome = await seat.ask("Question: hang? [[fake:hang]]", soft=hard / 2, hard=hard)
        if seat.server.requests(cli):
            break
    assert outcome.status is Status.TIMEOUT, (outcome.detail, outcome.stderr_tail)
    assert len(outcome.attempts) == 1 and outcome.attempts[0].killed
    assert [r.outcome for r in seat.server.requests(cli)][:1] == ["hang"], (
        "the CLI must reach the server before the hard limit for this test to mean anything"
    )
    assert council_processes() == []


@pytest.mark.parametrize("cli", CLIS)
async def test_missing_or_rejected_credentials_end_auth_with_the_login_hint(real_cli, cli):
    # Side by side: a CLI with no key or login at all, and one whose key the server refuses.
    missing, rejected = real_cli(cli, credentials=False), real_cli(cli, label="rejected")
    rejected.server.add_rule(client=cli, contains="rejected key", status=401)
    outcomes = {}

    async def run(name, seat, prompt):
        outcomes[name] = await seat.ask(prompt, soft=SOFT_S)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "missing", missing, "Question: who am I?")
        tg.start_soon(run, "rejected", rejected, "Question: rejected key?")

    for name, outcome in outcomes.items():
        assert outcome.status is Status.AUTH, (name, outcome.detail, outcome.stderr_tail)
        assert missing.adapter.login_hint in outcome.detail, name
        assert len(outcome.attempts) == 1, name  # a retry cannot log in
    assert missing.server.requests(cli, prompt_has="who am I") == []


# Every CLI keeps its room unchanged: its own read-only mode where it has one (kimi-cli's
# --plan among them), and write confinement (Landlock) for the rest, root included: kimi-code
# has no read-only mode usable headless, so there the denied write is Landlock's doing.
@pytest.mark.parametrize("cli", CLIS)
async def test_the_room_is_unchanged_when_the_model_asks_to_write_a_file(real_cli, cli):
    seat = real_cli(cli)
    before = seat.room_snapshot()
    target = seat.room / "written.txt"
    prompt = f"Question: write? [[fake:write={target}]]"
    outcome = await seat.ask(prompt, soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert seat.room_snapshot() == {**before, **await seat.placed_by_council(prompt)}
    first = seat.server.requests(cli, answered=True)[0]
    if first.tool_call is not None:
        # The model really tried, and the CLI came back after the denied call.
        assert outcome.text == AFTER_TOOL_REPLY
    else:
        # Nothing it could write with was even offered.
        assert not {"write_file", "Write", "write", "WriteFile"} & set(first.tools)


# Part of every input read from a prompt cache and part of every output spent thinking: each
# API reports them its own way (tests/fakemodel/dialects.py), and council's figures must be the
# totals all the same: no cached token lost, none counted twice.
CACHED, REASONING = 3, 5
USAGE_READ = ("claude", "gemini", "qwen", "codex", "pi")
USAGE_NONE = ("kimi-cli", "kimi-code")


def _served(seat) -> list:
    """What the fake model server reported for every request it answered this CLI."""
    answered = seat.server.requests(seat.name, answered=True)
    assert answered and all(r.usage is not None for r in answered), answered
    assert {(r.usage.cached, r.usage.reasoning) for r in answered} == {(CACHED, REASONING)}
    return [r.usage for r in answered]


@pytest.mark.parametrize("cli", USAGE_READ)
async def test_the_usage_council_reads_adds_up_what_the_model_server_reported(real_cli, cli):
    seat = real_cli(cli)
    seat.server.add_rule(client=cli, cached_tokens=CACHED, reasoning_tokens=REASONING)
    # A model that tries to write: a tool call and the answer after it, two requests, where
    # the CLI offers a tool it could write with (gemini, codex; not claude nor qwen in
    # council's modes).
    target = seat.room / "written.txt"
    outcome = await seat.ask(f"Question: {cli} usage? [[fake:write={target}]]", soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    served = _served(seat)
    if cli == "pi" and not version_at_least((await seat.resolve()).version, PI_JSON_SINCE):
        # Before 0.84 council runs print mode as text (its JSON grew with the square of the
        # answer): the answer alone, no figure.
        assert outcome.usage is None
        return
    # The CLI's own sum over the run's requests (qwen's background memory extractor among
    # them), the cache counted as input, the thinking as output.
    expected = (sum(u.input for u in served), sum(u.output for u in served))
    assert outcome.usage is not None
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == expected, served
    if cli == "claude":
        printed = json.loads(outcome.attempts[-1].response_file.read_text())["total_cost_usd"]
        assert outcome.usage.cost_usd == printed > 0  # claude's own price of the run
    else:
        assert outcome.usage.cost_usd is None


@pytest.mark.parametrize("cli", USAGE_NONE)
async def test_a_cli_that_prints_no_usage_figure_council_keeps_reads_as_none(real_cli, cli):
    seat = real_cli(cli)
    seat.server.add_rule(client=cli, cached_tokens=CACHED, reasoning_tokens=REASONING)
    outcome = await seat.ask(f"Question: {cli} usage?", soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    _served(seat)
    assert outcome.usage is None


@pytest.mark.parametrize("cli", CLIS)
async def test_a_file_outside_the_room_is_not_created_when_the_model_writes_there(
    real_cli, cli, tmp_path
):
    """The user's project is outside the room: an absolute path into it is refused by the
    CLI's read-only mode, or by write confinement where the CLI would write (kimi-code)."""
    seat = real_cli(cli)
    project = tmp_path / "project"
    project.mkdir()
    target = project / "evil.py"
    outcome = await seat.ask(f"Question: write outside? [[fake:write={target}]]", soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert not target.exists()
    assert list(project.iterdir()) == []


# -- Lean mode (docs/lean.md): every CLI still answers, with no tool and far fewer bytes -----

LEAN = render("lean_system")
LEAN_MARK = LEAN.splitlines()[0]  # how a request shows council's system prompt arrived


def _body_text(request) -> str:
    return json.dumps(request.body, ensure_ascii=False)


@pytest.mark.parametrize("cli", CLIS)
async def test_lean_mode_answers_unchanged_with_no_tool_and_a_fraction_of_the_bytes(real_cli, cli):
    """The same call twice side by side, the CLI's usual set-up and lean: the lean one
    declares no tool, carries council's system prompt instead of the agent's, answers the
    same, in one request, the CLI adding at most a quarter of the bytes it adds otherwise
    (measured: 6-58 times fewer, docs/lean.md)."""
    usual, lean = real_cli(cli, label="usual"), real_cli(cli, label="lean")
    prompts = {"usual": PROMPT + "Seat: U\n", "lean": PROMPT + "Seat: L\n"}
    usual.server.add_rule(client=cli, contains="does the prompt arrive", long_chars=LONG)
    outcomes = {}

    async def run(name, seat, **kwargs):
        outcomes[name] = await seat.ask(prompts[name], soft=SOFT_S, **kwargs)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "usual", usual)
        tg.start_soon(functools.partial(run, "lean", lean, lean_prompt=LEAN))

    sent = {}
    for name, outcome in outcomes.items():
        assert outcome.status is Status.OK, (name, outcome.detail, outcome.stderr_tail)
        assert [a.exit_code for a in outcome.attempts] == [0], name
        requests = usual.server.requests(cli, prompt_has=f"Seat: {name[0].upper()}")
        assert [r.outcome for r in requests] == ["answer"], (name, requests)
        expected = reply_for(arrived(cli, prompts[name]), usual.server.behaviour_for(cli, PROMPT))
        assert outcome.text == expected, name
        sent[name] = requests[0]
    assert sent["lean"].tools == () and sent["usual"].tools != ()
    assert LEAN_MARK in _body_text(sent["lean"]) and LEAN_MARK not in _body_text(sent["usual"])
    # What the CLI adds to council's prompt (the same prompt in both, but for one letter).
    added = {
        name: request.body_bytes - len(prompts[name].encode()) for name, request in sent.items()
    }
    assert added["lean"] * 4 <= added["usual"], added


@pytest.mark.parametrize("cli", CLIS)
async def test_lean_mode_writes_nothing_when_the_model_asks_to(real_cli, cli, tmp_path):
    """Read-only as ever: plan modes, sandboxes and write confinement stay; with no tool the
    CLI has nothing to write with, in the room or outside it."""
    seat = real_cli(cli)
    project = tmp_path / "project"
    project.mkdir()
    before = seat.room_snapshot()
    prompt = f"Question: write? [[fake:write={project / 'evil.py'}]]"
    outcome = await seat.ask(prompt, soft=SOFT_S, lean_prompt=LEAN)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert [r.tools for r in seat.server.requests(cli)] == [()]
    assert seat.room_snapshot() == {**before, **await seat.placed_by_council(prompt, LEAN)}
    assert list(project.iterdir()) == []


async def test_codex_sends_codex_api_key_and_never_openai_api_key_through_its_own_provider(
    real_cli,
):
    """codex's built-in `openai` provider pointed at the server, as a user with an OpenAI
    key runs it: CODEX_API_KEY is the bearer token. OPENAI_API_KEY alone (passed through on
    purpose, which council's allow-list does not do) reaches the server as no key at all
    (0.169.0 and 0.171.0; openai/codex#7323): the call ends AUTH with the hint naming
    CODEX_API_KEY, and doctor's look says the same."""
    keyed = real_cli("codex", label="codex-key")
    unread = real_cli("codex", credentials=False, label="openai-key")
    unread.environ["OPENAI_API_KEY"] = API_KEY
    unread.adapter = adapter_for(
        "codex",
        {"codex": CliSettings(name="codex", adapter="codex", pass_env=("OPENAI_API_KEY",))},
    )
    for seat in (keyed, unread):
        codex_built_in(seat.server, seat.home)
    keyed.server.add_rule(client="codex", key=API_KEY)
    assert keyed.adapter.auth_state(keyed.environ, keyed.home).found is True
    assert unread.adapter.auth_state(unread.environ, unread.home).found is False
    outcomes = {}

    async def run(name, seat, prompt):
        outcomes[name] = await seat.ask(prompt, soft=SOFT_S)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "keyed", keyed, "Question: whose key?")
        tg.start_soon(run, "unread", unread, "Question: openai key?")

    assert outcomes["keyed"].status is Status.OK, outcomes["keyed"].detail
    sent = keyed.server.requests("codex", prompt_has="whose key")
    assert sent and {_bearer(r) for r in sent} == {f"Bearer {API_KEY}"}
    refused = outcomes["unread"]
    assert refused.status is Status.AUTH, (refused.detail, refused.stderr_tail)
    assert unread.adapter.login_hint in refused.detail and "CODEX_API_KEY" in refused.detail
    assert len(refused.attempts) == 1
    tried = unread.server.requests("codex", prompt_has="openai key")
    assert tried and {(r.status, _bearer(r)) for r in tried} == {(401, None)}


def _bearer(request) -> str | None:
    """The Authorization header a request carried (codex spells it in lower case)."""
    found = [v for k, v in request.headers.items() if k.lower() == "authorization"]
    return found[0] if found else None


async def test_a_codex_500_is_retried_once_inside_codex_then_left_to_council(real_cli):
    """0.169.0 ignores top-level `request_max_retries` (council passed it until now: a 500
    was 30 requests over 24 s). Per provider it counts: one retry in codex, 2 requests per
    council attempt, and the 500 reads as transient, for council's own retry policy."""
    seat = real_cli("codex")
    seat.server.add_rule(client="codex", contains="fail?", status=500)
    policy = RetryPolicy(base_delay_s=0.05, max_delay_s=0.2, rate_limit_retries=1)
    outcome = await seat.ask("Question: fail?", soft=SOFT_S, policy=policy)
    assert outcome.status is Status.RATE_LIMITED, (outcome.detail, outcome.stderr_tail)
    assert len(outcome.attempts) == 2
    assert [r.status for r in seat.server.requests("codex")] == [500] * 4
    err = outcome.attempts[0].err_file.read_text()
    assert "model_providers.fakemodel.request_max_retries=0" in outcome.attempts[0].argv
    assert "is ignored" not in err  # no setting of council's goes unread


async def test_gemini_answers_in_one_node_process_not_relaunched(real_cli):
    """Left alone, gemini runs itself again in a second node process, for the `--version`
    probe too (~1 s more CPU and ~150 MB more a call); council's GEMINI_CLI_NO_RELAUNCH keeps
    the first one. It reads the variable as set when it is not empty."""
    seat = real_cli("gemini")
    outcome, nodes = await _watch_node_processes(seat, "gemini")
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert [r.outcome for r in seat.server.requests("gemini")] == ["answer"]
    relaunched = [pid for pid, (parent, seen, _) in nodes.items() if parent in nodes and seen >= 5]
    assert relaunched == [], nodes


async def test_qwen_answers_through_at_most_its_launcher_one_model_request_and_none_left(
    real_cli,
):
    """qwen's own relaunch for a bigger heap (~1.1 s more CPU and ~210 MB more a call) never
    happens: council's QWEN_CODE_NO_RELAUNCH. 0.24.x's launcher (`cli-entry.js`) still starts
    the CLI in a second node process (for `--expose-gc`) whatever its environment says, and
    waits for it (~45 MB, ~0.03 s of CPU): that one is expected, and the process group's kill
    takes both (the hung-server test). What a user sees: one model request, and nothing of the
    call left running after it."""
    seat = real_cli("qwen")
    # The launcher is in the installed package (the bin may be a wrapper that puts a newer
    # Node first on PATH, scripts/install-real-clis.sh, not a link to it).
    package = installed("qwen").bin_dir.parent / "prefix/lib/node_modules/@qwen-code/qwen-code"
    launcher = (package / "cli-entry.js").is_file()
    outcome, nodes = await _watch_node_processes(seat, "qwen")
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert [r.outcome for r in seat.server.requests("qwen")] == ["answer"]
    lasting = {pid: v for pid, v in nodes.items() if v[1] >= 5}
    children = [pid for pid, (parent, _, _) in lasting.items() if parent in lasting]
    assert len(children) == (1 if launcher else 0), nodes
    for pid in children:
        # the launcher's child, never a relaunch for a bigger heap
        assert "--expose-gc" in lasting[pid][2] and lasting[lasting[pid][0]][0] not in lasting
    assert not any("--max-old-space-size" in " ".join(v[2]) for v in nodes.values()), nodes
    assert council_processes() == []


async def test_qwen_answers_under_write_confinement_with_its_home_moved_by_qwen_home(
    real_cli, tmp_path
):
    """QWEN_HOME moves qwen's settings and state out of ~/.qwen: write confinement lets it
    write there (0.15.10 died on EACCES writing its output-language file), and no more."""
    seat = real_cli("qwen")
    moved = tmp_path / "qwen-home"
    moved.mkdir()
    (moved / "settings.json").write_bytes((seat.home / ".qwen" / "settings.json").read_bytes())
    seat.environ["QWEN_HOME"] = str(moved)
    outcome = await seat.ask("Question: where is home?", soft=SOFT_S)
    assert outcome.status is Status.OK, (outcome.detail, outcome.stderr_tail)
    assert (moved / "projects").is_dir()  # qwen kept its chats where QWEN_HOME says
    assert str(moved) not in outcome.stderr_tail  # no write there refused (0.24.4 says so)


async def _watch_node_processes(seat, cli: str):
    """One call (the model answers after 3 s) and the node processes of it, sampled every
    0.1 s: pid -> (parent pid, times seen, argv). A fork that has not exec'd its program
    yet also looks like node, for a moment: `times seen` tells it from a process that lives
    as long as the call."""
    seat.server.add_rule(client=cli, contains="one process?", delay_s=3.0)
    nodes: dict[int, tuple[int, int, list[str]]] = {}

    async def watch() -> None:
        while True:
            for proc in council_processes():
                if _is_node(proc):
                    parent, seen, argv = nodes.get(proc.pid, (_ppid(proc), 0, _argv(proc)))
                    nodes[proc.pid] = (parent, seen + 1, argv)
            await anyio.sleep(0.1)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        outcome = await seat.ask("Question: one process?", soft=SOFT_S)
        tg.cancel_scope.cancel()
    return outcome, nodes


def _argv(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except psutil.Error:
        return []


def _ppid(proc: psutil.Process) -> int:
    try:
        return proc.ppid()
    except psutil.Error:
        return 0


def _is_node(proc: psutil.Process) -> bool:
    try:
        return proc.name().startswith("node")
    except psutil.Error:
        return False
