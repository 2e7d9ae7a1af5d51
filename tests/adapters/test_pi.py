"""pi: print mode with only its read tools, no session, no context files, and (where the
release has the flags) no MCP servers and no trust in the room's project files; usage from
its JSON events."""

from __future__ import annotations

import json

import pytest
from helpers import answer_calls, warm_calls

from council.adapters import adapter_for, find_forbidden
from council.adapters.base import RawResult, Status, Tool
from council.adapters.pi import PiAdapter, version_at_least

from fakes.install import expected_answer, expected_usage

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: CHALLENGE\nQuestion: threads or asyncio?"


async def test_pi_gets_only_read_tools_and_no_context_files(fakes, seat_for):
    await seat_for("pi").ask(PROMPT)
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert argv[argv.index("--tools") + 1] == "read,grep,find,ls"
    assert {"-p", "--no-session", "--no-context-files", "--offline"} <= set(argv)


async def test_a_current_pi_connects_no_mcp_server_and_trusts_no_project_file(fakes, seat_for):
    """pi 1.x's `--tools` keeps the tools of the user's MCP servers, and a `.pi/` in the room
    would be project settings and extensions: both are off for a seat."""
    outcome = await seat_for("pi").ask(PROMPT)
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert outcome.status is Status.OK
    assert {"--no-mcp", "--no-approve"} <= set(argv)
    assert "--approve" not in argv


@pytest.mark.parametrize(
    ("version", "no_approve", "no_mcp", "json_mode"),
    [
        ("0.73.1", False, False, False),  # the last release as @mariozechner/pi-coding-agent
        ("0.79.0", True, False, False),  # project trust arrives
        ("0.84.0", True, False, True),  # JSON events stop repeating the whole answer
        ("1.0.3", True, False, True),  # MCP built in, no switch for it yet
        ("1.0.4", True, True, True),
        ("1.6.0", True, True, True),
    ],
)
async def test_each_pi_release_gets_the_flags_it_has_and_answers(
    fakes, seat_for, version, no_approve, no_mcp, json_mode
):
    """Before project trust, `--no-extensions` is what keeps the room's `.pi/extensions`
    from running."""
    fakes.set("pi", "ok", version=version)
    outcome = await seat_for("pi").ask(PROMPT)
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == expected_answer("pi", PROMPT)
    assert ("--no-approve" in argv) is no_approve
    assert ("--no-extensions" in argv) is not no_approve
    assert ("--no-mcp" in argv) is no_mcp
    assert (argv[argv.index("--mode") + 1] == "json" if "--mode" in argv else False) is json_mode


@pytest.mark.parametrize(
    ("version", "minimum", "expected"),
    [
        ("1.10.0", (1, 9, 0), True),  # not text: "1.10" < "1.9" as strings
        ("0.100.0", (0, 99, 0), True),
        ("0.9.0", (0, 79, 0), False),
        ("1.0.3", (1, 0, 4), False),
        ("1.0.4", (1, 0, 4), True),
        ("1.0", (1, 0, 4), False),
        ("v22.19.0", (22, 19), True),
        ("1.6.0-beta.2", (1, 6, 0), True),
        (None, (1, 0, 4), True),  # unknown: a current pi's read-only flags
    ],
)
def test_versions_are_compared_as_numbers(version, minimum, expected):
    assert version_at_least(version, minimum) is expected


async def test_a_provider_slash_model_spec_sets_both_flags(fakes, seat_for):
    outcome = await seat_for("pi").ask(
        PROMPT, model="openrouter/anthropic/claude-sonnet", effort="high"
    )
    argv = answer_calls(fakes, "pi")[0]["argv"]
    assert outcome.status is Status.OK
    assert argv[argv.index("--provider") + 1] == "openrouter"
    assert argv[argv.index("--model") + 1] == "anthropic/claude-sonnet"
    assert argv[argv.index("--thinking") + 1] == "high"


async def test_pi_json_mode_usage_counts_the_cache_as_input(fakes, seat_for):
    fakes.set("pi", "ok", cached_tokens=3, reasoning_tokens=2)
    outcome = await seat_for("pi").ask(PROMPT)
    sent = answer_calls(fakes, "pi")[0]["stdin"]
    assert outcome.status is Status.OK
    assert outcome.usage is not None
    expected = expected_usage(sent, expected_answer("pi", sent))
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == expected
    assert outcome.usage.cost_usd is None  # pi prices no model it has no table entry for


async def test_pi_before_0_84_prints_text_and_reports_no_usage(fakes, seat_for):
    fakes.set("pi", "ok", version="0.73.1")
    outcome = await seat_for("pi").ask(PROMPT)
    assert outcome.status is Status.OK
    assert outcome.usage is None


@pytest.mark.parametrize(
    ("mode", "status"),
    [
        ("rate_limit", Status.RATE_LIMITED),
        ("auth", Status.AUTH),
        ("server_error", Status.RATE_LIMITED),
        ("connection", Status.ERROR),
    ],
)
async def test_a_model_failure_in_json_mode_exits_0_and_is_still_classified(
    fakes, seat_for, mode, status
):
    fakes.set("pi", mode)
    outcome = await seat_for("pi").ask(PROMPT)
    assert outcome.status is status, outcome.detail
    assert {a.exit_code for a in outcome.attempts} == {0}


def test_a_priced_model_reports_pis_own_cost_summed_over_the_turns_messages():
    def end(tokens_in: int, cached: int, tokens_out: int, cost: float) -> str:
        usage = {
            "input": tokens_in,
            "output": tokens_out,
            "cacheRead": cached,
            "cacheWrite": 1,
            "cost": {"total": cost},
        }
        message = {"role": "assistant", "content": [], "usage": usage, "stopReason": "toolUse"}
        return json.dumps({"type": "message_end", "message": message})

    stdout = "\n".join([end(10, 4, 7, 0.002), end(30, 12, 9, 0.003)])
    usage = adapter_for("pi").read_usage(RawResult(0, stdout, "", output_format="json"))
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens) == (10 + 4 + 1 + 30 + 12 + 1, 16)
    assert usage.cost_usd == pytest.approx(0.005)


async def test_pi_1_x_on_node_20_is_unusable_with_the_node_it_needs_in_one_line(fakes, seat_for):
    fakes.set("pi", "ok", node="20.20.2")
    resolved = await seat_for("pi").resolve()
    assert resolved.tool is None
    assert "Node >= 22.19" in resolved.problem and "v20.20.2" in resolved.problem
    assert "\n" not in resolved.problem and "SyntaxError" not in resolved.problem


async def test_pi_0_73_still_runs_on_node_20(fakes, seat_for):
    fakes.set("pi", "ok", version="0.73.1", node="20.20.2")
    outcome = await seat_for("pi").ask(PROMPT)
    assert outcome.status is Status.OK, outcome.detail


def test_a_config_that_would_trust_the_rooms_project_files_is_refused():
    assert find_forbidden(["--thinking", "high", "--approve"]) == "--approve"


def test_the_install_hint_names_the_package_pi_is_published_under_now():
    assert "@earendil-works/pi-coding-agent" in adapter_for("pi").install_hint


@pytest.mark.parametrize("version", ["0.73.1", "1.6.0"])
async def test_each_warm_call_reports_the_usage_of_its_own_turn(fakes, tmp_path, version):
    fakes.set("pi", "ok", version=version, cached_tokens=3)
    adapter = adapter_for("pi")
    tool = Tool("pi", (str(fakes.executable("pi")),), version)
    launch = adapter.warm_launch(tool, model=None, effort=None)
    assert launch is not None
    # The worker takes print mode's read-only flags, as far as its release has them.
    assert ("--no-mcp" in launch.argv) is ("--no-approve" in launch.argv) is (version == "1.6.0")
    prompts = ["Question: first?\n", "Question: second, a longer one?\n"]
    outcomes = await warm_calls(adapter, tool, launch, tmp_path, prompts)
    for prompt, outcome in zip(prompts, outcomes, strict=True):
        assert outcome.status is Status.OK and outcome.attempts[0].warm
        assert outcome.usage is not None
        tokens = (outcome.usage.input_tokens, outcome.usage.output_tokens)
        assert tokens == expected_usage(prompt, expected_answer("pi", prompt))


@pytest.mark.parametrize(
    ("version", "broken"), [("0.98.2", False), ("0.99.0", True), ("1.0.3", True), ("1.0.4", False)]
)
def test_the_releases_that_connect_mcp_servers_with_no_switch_are_known_broken(version, broken):
    (entry,) = PiAdapter.known_broken
    assert entry.applies(version) is broken
    assert not entry.unusable  # a warning naming the fix, not a refusal
