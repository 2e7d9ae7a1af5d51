"""What every CLI shares through the registry and the base adapter, as the docs state it: the
default seat order (protocol.md section 1), the flags no config may pass (config.md), the
hint when a CLI is missing, the soft timeouts per effort (clis.md "Default soft timeouts"),
the efforts a CLI takes, which releases count as tested (clis.md "Versions"), who pays for a
call (outputs.md `billing`), and where the simulator and a CLI that keeps no state may write."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

import council
from council.adapters import adapter_for, default_order, find_forbidden, known_names, register
from council.adapters.base import Adapter, Billing, CliSettings, Request, Tool
from council.adapters.confinement import state_paths
from council.adapters.sim import SimAdapter
from council.config import parse_config
from council.errors import ConfigError
from council.runner.resolve import resolve_tool

# -- the registry --------------------------------------------------------------------------


def test_default_seats_are_picked_in_the_documented_order_and_never_the_simulator():
    assert default_order() == ("claude", "codex", "gemini", "qwen", "kimi", "pi")


def test_an_unknown_cli_names_every_cli_it_could_be_and_how_to_define_it():
    clis = parse_config({"clis": {"mine": {"command": ["mine"]}}}).clis
    assert known_names(clis) == ["claude", "codex", "gemini", "qwen", "kimi", "pi", "sim", "mine"]
    with pytest.raises(ConfigError) as unknown:
        adapter_for("mien", clis)
    assert str(unknown.value) == (
        "unknown CLI 'mien': use one of claude, codex, gemini, qwen, kimi, pi, sim, mine, "
        "or define it under `clis:` in council.yaml"
    )


def test_a_built_in_cli_takes_its_settings_from_the_config():
    clis = parse_config({"clis": {"codex": {"model": "gpt-5.2", "timeout_s": 45}}}).clis
    adapter = adapter_for("codex", clis)
    assert (adapter.settings.model, adapter.soft_timeout(None)) == ("gpt-5.2", 45.0)


def test_a_second_adapter_under_a_taken_name_is_refused():
    class Impostor(Adapter):
        name = "codex"
        vendor = "impostor"
        binary = "codex"

    with pytest.raises(ValueError, match="an adapter named 'codex' is already registered"):
        register(Impostor)
    assert type(adapter_for("codex")).__name__ == "CodexAdapter"


FORBIDDEN = [
    (["--approval-mode", "yolo"], "--approval-mode yolo"),
    (["--approval-mode=yolo"], "--approval-mode=yolo"),
    (["-m", "x", "--yolo"], "--yolo"),
    (["--yolo=true"], "--yolo=true"),
    (["--full-auto"], "--full-auto"),
    (["--dangerously-skip-permissions"], "--dangerously-skip-permissions"),
    (["--approve"], "--approve"),
    (["--approval-mode", "plan"], None),
    (["--model", "yolo"], None),
    (["--approval-mode"], None),
    ([], None),
]


def test_a_flag_that_bypasses_approvals_is_found_in_any_of_its_spellings():
    assert [find_forbidden(args) for args, _ in FORBIDDEN] == [found for _, found in FORBIDDEN]


@pytest.mark.parametrize(
    "entry",
    [
        {"gemini": {"extra_args": ["--approval-mode", "yolo"]}},
        {"qwen": {"extra_args": ["--approval-mode=yolo"]}},
        {"mine": {"command": ["mine", "--yolo"]}},
    ],
)
def test_the_config_refuses_such_a_flag_naming_the_key(entry):
    with pytest.raises(ConfigError, match=r"flags that bypass"):
        parse_config({"clis": entry})


# -- a missing CLI --------------------------------------------------------------------------


@pytest.fixture
def empty_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))


def test_a_missing_built_in_cli_says_how_to_install_it(empty_path):
    resolved = anyio.run(resolve_tool, adapter_for("claude"))
    assert resolved.tool is None and resolved.found is False
    assert resolved.problem == (
        "`claude` not found on PATH; install: npm install -g @anthropic-ai/claude-code"
    )


def test_a_missing_command_of_the_config_says_to_check_the_config_not_to_install(empty_path):
    clis = parse_config({"clis": {"claude": {"command": ["claude-wrapper", "--quiet"]}}}).clis
    resolved = anyio.run(resolve_tool, adapter_for("claude", clis))
    assert resolved.problem == (
        "`claude-wrapper` not found on PATH; check `clis.claude.command` in your config"
    )
    mine = parse_config({"clis": {"mine": {"command": ["mine"]}}}).clis
    assert anyio.run(resolve_tool, adapter_for("mine", mine)).problem == (
        "`mine` not found on PATH; check `clis.mine.command` in your config"
    )


# -- soft timeouts and efforts --------------------------------------------------------------

TIMEOUTS = [
    # clis.md "Default soft timeouts": (cli, effort) -> seconds
    ("codex", None, 600),
    ("codex", "high", 600),
    ("codex", "xhigh", 1800),
    ("pi", "high", 600),
    ("pi", "xhigh", 900),
    ("claude", "high", 600),
    ("claude", "xhigh", 900),
    ("claude", "max", 900),
    ("gemini", "xhigh", 300),
    ("qwen", "max", 300),
    ("kimi", "low", 300),
    ("kimi", "high", 600),  # thinking on
    ("kimi", "xhigh", 600),
    ("sim", "max", 60),
]


def test_the_soft_timeout_is_the_clis_own_and_longer_at_high_effort():
    got = [(cli, effort, adapter_for(cli).soft_timeout(effort)) for cli, effort, _ in TIMEOUTS]
    assert got == TIMEOUTS


@pytest.mark.parametrize("effort", [None, "low", "xhigh"])
def test_a_configured_timeout_beats_every_default(effort):
    clis = {"codex": CliSettings(name="codex", adapter="codex", timeout_s=90)}
    assert adapter_for("codex", clis).soft_timeout(effort) == 90.0


def _request(tmp_path: Path, effort: str | None) -> Request:
    return Request("q", room=tmp_path, answer_path=tmp_path / "a", effort=effort)


@pytest.mark.parametrize(
    ("cli", "effort", "sent"),
    [
        ("claude", "max", "max"),
        ("claude", "minimal", None),  # claude has no `minimal`: nothing is passed
        ("codex", "minimal", "minimal"),
        ("codex", "max", None),  # codex has no `max`
        ("gemini", "high", None),  # gemini takes no effort at all
        ("sim", "xhigh", "xhigh"),
    ],
)
def test_only_an_effort_the_cli_takes_is_passed(tmp_path, cli, effort, sent):
    assert adapter_for(cli).effort_for(_request(tmp_path, effort)) == sent


def test_the_simulator_is_asked_for_the_seats_model_and_effort_and_timed_from_the_start(
    tmp_path,
):
    sim = adapter_for("sim")
    tool = Tool("sim", ("council-sim",))
    request = Request(
        "ACTION: PROPOSAL\n", room=tmp_path, answer_path=tmp_path / "a", model="m", effort="low"
    )
    invocation = sim.build(tool, request)
    assert invocation.argv == ("council-sim", "--model", "m", "--effort", "low")
    assert invocation.stdin == b"ACTION: PROPOSAL\n"
    assert float(invocation.env["COUNCIL_SIM_STARTED_AT"]) > 0


# -- tested releases ------------------------------------------------------------------------

TESTED = [
    # clis.md, first paragraph: the releases the contract tests ran
    ("claude", "2.1.332 (Claude Code)", True),
    ("claude", "2.1.197 (Claude Code)", True),
    ("claude", "2.1.33", False),
    ("codex", "codex-cli 0.171.0", True),
    ("codex", "codex-cli 0.169.0", True),
    ("codex", "codex-cli 0.170.0", False),
    ("gemini", "0.61.0", True),
    ("gemini", "0.61.1", False),
    ("qwen", "0.24.4", True),
    ("qwen", "0.15.10", True),
    ("qwen", "0.15.1", False),
    ("pi", "1.6.0", True),
    ("pi", "0.73.1", True),
    ("kimi", "kimi, version 1.51.0", True),
    ("kimi", "2.1.0", True),
    ("kimi", "1.52.0", False),
    ("claude", None, None),  # no version known: cannot tell
]


def test_tested_means_a_release_the_contract_tests_ran():
    got = [(cli, version, adapter_for(cli).is_tested(version)) for cli, version, _ in TESTED]
    assert got == TESTED


def test_the_simulator_names_no_tested_release():
    assert adapter_for("sim").is_tested("1.0.0") is None


# -- who pays -------------------------------------------------------------------------------


def billing(cli: str, home: Path, **env: str) -> Billing:
    return adapter_for(cli).billing(env, home)


def test_a_gateway_token_bills_per_token(tmp_path):
    found = billing("claude", tmp_path, ANTHROPIC_AUTH_TOKEN="t")
    assert (found.mode, found.text) == ("api_key", "metered API key (ANTHROPIC_AUTH_TOKEN)")


def test_a_saved_console_key_bills_per_token_and_names_the_key(tmp_path):
    (tmp_path / ".claude.json").write_text('{"primaryApiKey": "sk-ant-api03-x"}')
    assert billing("claude", tmp_path).text == "metered API key (primaryApiKey)"


def test_a_login_file_is_the_clis_own_login_and_names_the_file(tmp_path):
    creds = tmp_path / ".claude" / ".credentials.json"
    creds.parent.mkdir()
    creds.write_text("{}")
    found = billing("claude", tmp_path)
    assert (found.mode, found.text) == ("login", f"its own login ({creds})")


def test_an_oauth_variable_is_a_plan_not_a_metered_key(tmp_path):
    assert billing("qwen", tmp_path, QWEN_OAUTH="1").text == "its own login (QWEN_OAUTH)"
    assert billing("claude", tmp_path, CLAUDE_CODE_OAUTH_TOKEN="t").mode == "login"


def test_a_key_pair_of_kimi_code_bills_its_key(tmp_path):
    found = billing("kimi", tmp_path, KIMI_MODEL_NAME="k2", KIMI_MODEL_API_KEY="sk")
    assert (found.mode, found.source) == ("api_key", "KIMI_MODEL_API_KEY")


def test_nothing_found_is_unknown(tmp_path):
    found = billing("claude", tmp_path)
    assert (found.mode, found.text) == ("unknown", "unknown")
    # qwen says which key it lacks: a key it lacks bills nothing
    missing = billing("qwen", tmp_path, OPENAI_API_KEY="sk-x")
    assert "OPENAI_API_KEY" in missing.source
    assert (missing.mode, missing.text) == ("unknown", "unknown")


# -- where a CLI may write --------------------------------------------------------------------


def test_the_simulators_call_log_and_counter_are_writable_when_a_test_names_them(tmp_path):
    env = {
        "COUNCIL_SIM_STATE_DIR": str(tmp_path / "state"),
        "COUNCIL_SIM_COUNT_FILE": str(tmp_path / "count"),
    }
    assert state_paths(SimAdapter(), env, tmp_path) == (
        (tmp_path / "state",),
        (tmp_path / "count",),
    )
    assert state_paths(SimAdapter(), {}, tmp_path) == ((), ())


def test_a_cli_that_keeps_no_state_may_write_nowhere_under_home(tmp_path):
    class Plain(Adapter):
        name = "plain"
        vendor = "plain"
        binary = "plain"

    assert state_paths(Plain(), {}, tmp_path) == ((), ())


def test_a_built_in_clis_state_is_under_home(tmp_path):
    dirs, _ = state_paths(adapter_for("gemini"), {}, tmp_path)
    assert tmp_path / ".gemini" in dirs
    assert all(d.is_relative_to(tmp_path) for d in dirs)


# -- a CLI found: the argv prefix that starts it ------------------------------------------


def test_a_configured_command_keeps_its_arguments_after_the_executable(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "claude-wrapper"
    wrapper.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "print('2.1.332 (Claude Code)' if sys.argv[1:] == ['--profile', 'work', '--version']"
        " else 'wrong argv: ' + ' '.join(sys.argv[1:]))\n"
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    clis = parse_config({"clis": {"claude": {"command": ["claude-wrapper", "--profile", "work"]}}})
    resolved = anyio.run(resolve_tool, adapter_for("claude", clis.clis))
    assert resolved.tool is not None, resolved.problem
    assert resolved.tool.command == (str(wrapper), "--profile", "work")
    assert resolved.tool.version == "2.1.332"
    # still claude, driven as claude (a wrapper is no user-defined CLI): tested, its argv
    adapter = resolved.adapter
    assert adapter.is_tested(resolved.tool.version) is True
    request = Request("q", room=tmp_path, answer_path=tmp_path / "a")
    assert "--strict-mcp-config" in adapter.build(resolved.tool, request).argv


def test_the_simulator_of_this_install_answers_its_version_probe():
    resolved = anyio.run(resolve_tool, adapter_for("sim"))
    assert resolved.tool is not None, resolved.problem
    assert resolved.tool.version == council.__version__
    assert resolved.tool.command[0] == sys.executable
