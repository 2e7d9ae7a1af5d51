"""Finding a CLI and asking its version (`runner/resolve.py`): what `council doctor` and a
seat's READY show when the CLI is missing, cannot start, hangs or is unusable, a CLI with no
version probe, and one probe per CLI however many seats ask at once."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from council.adapters import adapter_for
from council.adapters.base import Tool, VersionInfo
from council.config import parse_config
from council.runner.resolve import ToolCache, resolve_tool

pytestmark = pytest.mark.anyio

# Answers `--version` (or any argument) after `delay` seconds, and counts its runs in a file
# beside itself, so a test can tell whether it ran at all.
CLI = """#!{python}
import os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "runs"), "a") as runs:
    runs.write(" ".join(sys.argv[1:]) + "\\n")
time.sleep({delay})
print("mine 2.4.1")
"""


def user_cli(tmp_path: Path, *, delay: float = 0, name: str = "mine-cli") -> Path:
    """A user-defined CLI in its own directory; `runs(script)` lists its invocations."""
    folder = tmp_path / "cli"
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(CLI.format(python=sys.executable, delay=delay))
    script.chmod(0o755)
    return script


def runs(script: Path) -> list[str]:
    log = script.parent / "runs"
    return log.read_text().splitlines() if log.exists() else []


def custom(name: str, command: list[str], **settings: object):
    config = parse_config({"clis": {name: {"command": command, **settings}}})
    return adapter_for(name, config.clis)


def version_calls(fakes, name: str) -> int:
    return sum(1 for call in fakes.calls(name) if call["argv"] == ["--version"])


async def test_a_missing_cli_is_not_found_and_the_problem_says_how_to_install_it(
    tmp_path, monkeypatch
):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    adapter = adapter_for("gemini", parse_config({}).clis)
    resolution = await resolve_tool(adapter)
    assert resolution.adapter is adapter
    assert (resolution.found, resolution.tool, resolution.version) == (False, None, None)
    assert resolution.problem == (
        "`gemini` not found on PATH; install: npm install -g @google/gemini-cli"
    )


async def test_a_missing_user_defined_cli_names_its_command_and_no_install_step():
    adapter = custom("mine", ["council-test-no-such-cli", "--quiet"])
    resolution = await resolve_tool(adapter)
    assert resolution.adapter is adapter
    assert (resolution.found, resolution.tool) == (False, None)
    assert resolution.problem == (
        "`council-test-no-such-cli` not found on PATH; check `clis.mine.command` in your config"
    )


@pytest.mark.parametrize("name", ["claude", "sim"])
async def test_a_built_in_cli_whose_command_the_config_names_points_at_the_config_not_an_install(
    name,
):
    # A wrapper the user named is not brought back by the vendor's npm package (or by
    # reinstalling council for the simulator): the fix is in the config.
    config = parse_config({"clis": {name: {"command": ["council-test-no-such-wrapper"]}}})
    resolution = await resolve_tool(adapter_for(name, config.clis))
    assert resolution.problem == (
        f"`council-test-no-such-wrapper` not found on PATH; check `clis.{name}.command` in your"
        " config"
    )


async def test_a_cli_without_a_version_probe_is_ready_unrun_with_an_unknown_version(tmp_path):
    script = user_cli(tmp_path)
    adapter = custom("mine", [str(script), "--quiet"], version_args=[])
    resolution = await resolve_tool(adapter)
    assert resolution.adapter is adapter
    assert resolution.tool == Tool("mine", (str(script), "--quiet"), None, None)
    assert (resolution.found, resolution.problem) == (True, None)
    assert runs(script) == []  # found is all READY asks of it: the CLI never ran


async def test_a_cli_found_on_path_reports_its_path_and_version(fakes):
    fakes.set("gemini", version="0.62.1")
    adapter = adapter_for("gemini", parse_config({}).clis)
    resolution = await resolve_tool(adapter)
    assert resolution.adapter is adapter
    assert resolution.tool == Tool("gemini", (str(fakes.executable("gemini")),), "0.62.1")
    assert resolution.version == VersionInfo("0.62.1")
    assert (resolution.found, resolution.problem) == (True, None)


async def test_the_probe_tells_which_of_two_programs_of_one_name_is_installed(fakes):
    fakes.set("kimi", variant="kimi-code")
    resolution = await resolve_tool(adapter_for("kimi", parse_config({}).clis))
    kimi = str(fakes.executable("kimi"))
    assert resolution.tool == Tool("kimi", (kimi,), "2.1.0", "kimi-code")


async def test_the_probe_runs_with_the_cli_s_fixed_variables_and_no_other_vendor_s_key(
    fakes, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-council-test-not-for-gemini")
    resolution = await resolve_tool(adapter_for("gemini", parse_config({}).clis))
    assert resolution.tool is not None
    (probe,) = [call for call in fakes.calls("gemini") if call["argv"] == ["--version"]]
    # Without it gemini 0.61 starts a second node process for its `--version` as well.
    assert probe["env"]["GEMINI_CLI_NO_RELAUNCH"] == "true"
    assert "OPENAI_API_KEY" not in probe["env"]


async def test_a_found_but_unusable_cli_says_why_and_keeps_its_version(fakes):
    fakes.set("kimi", variant="kimi-cli-1.52")
    adapter = adapter_for("kimi", parse_config({}).clis)
    resolution = await resolve_tool(adapter)
    assert resolution.adapter is adapter
    assert (resolution.found, resolution.tool) == (True, None)
    assert resolution.version is not None and resolution.version.version == "1.52.0"
    assert resolution.problem is not None
    assert resolution.problem.startswith("kimi-cli 1.52.0 is the archived release")


async def test_a_cli_whose_probe_cannot_start_is_found_but_unusable(tmp_path):
    # Executable and on the path, but its interpreter is gone: exec fails.
    script = tmp_path / "broken-cli"
    script.write_text("#!/nonexistent/council-test/python\nprint('1.0')\n")
    script.chmod(0o755)
    adapter = custom("broken", [str(script)])
    resolution = await resolve_tool(adapter)
    assert resolution.adapter is adapter
    assert (resolution.found, resolution.tool) == (True, None)
    assert resolution.problem == f"cannot start {script}: No such file or directory"


async def test_a_probe_that_does_not_answer_in_time_names_the_command_and_the_deadline(
    tmp_path,
):
    # It would answer after 5 s: well before the default 10 s, long after the 0.3 s given.
    script = user_cli(tmp_path, delay=5)
    adapter = custom("mine", [str(script), "--quiet"], version_args=["version", "--short"])
    resolution = await resolve_tool(adapter, timeout_s=0.3)
    assert resolution.adapter is adapter
    assert (resolution.found, resolution.tool) == (True, None)
    assert resolution.problem == f"`{script} version --short` did not answer within 0.3s"


async def test_seats_on_the_same_cli_share_one_probe_even_when_they_ask_at_once(fakes):
    cache = ToolCache()
    answers = []

    async def seat() -> None:
        # Each seat builds its own adapter for the CLI, as the panel does.
        answers.append(await cache.resolve(adapter_for("gemini", parse_config({}).clis)))

    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(seat)
    later = await cache.resolve(adapter_for("gemini", parse_config({}).clis))
    assert version_calls(fakes, "gemini") == 1
    assert all(answer is later for answer in answers) and len(answers) == 3
    assert later.tool == Tool("gemini", (str(fakes.executable("gemini")),), "0.61.0")
    # Another CLI has a probe of its own.
    other = await cache.resolve(adapter_for("qwen", parse_config({}).clis))
    assert other.tool is not None and other.tool.name == "qwen"
    assert (version_calls(fakes, "qwen"), version_calls(fakes, "gemini")) == (1, 1)


async def test_the_cache_probes_with_its_own_deadline(tmp_path):
    script = user_cli(tmp_path, delay=5)
    cache = ToolCache(timeout_s=0.3)
    resolution = await cache.resolve(custom("mine", [str(script)]))
    assert resolution.problem == f"`{script} --version` did not answer within 0.3s"
    # Not asked again: a second probe would have made a Resolution of its own.
    assert await cache.resolve(custom("mine", [str(script)])) is resolution


async def test_a_cli_whose_probe_hangs_does_not_hold_up_another_cli_s(tmp_path, fakes):
    script = user_cli(tmp_path, delay=30)
    cache = ToolCache(timeout_s=60)
    slow_done = anyio.Event()

    async def slow() -> None:
        await cache.resolve(custom("mine", [str(script)]))
        slow_done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(slow)
        while not runs(script):  # noqa: ASYNC110 - its probe is running: another process
            await anyio.sleep(0.02)
        gemini = await cache.resolve(adapter_for("gemini", parse_config({}).clis))
        assert gemini.tool is not None and gemini.tool.version == "0.61.0"
        assert not slow_done.is_set()
        tg.cancel_scope.cancel()


def broken(*, unusable: bool):
    from council.adapters.versions import KnownBroken

    return KnownBroken(
        "drops the prompt's last line",
        "install mine 2.5 or later",
        since=(2, 4),
        before=(2, 5),
        unusable=unusable,
    )


async def test_a_release_known_broken_and_unusable_is_refused_with_the_way_round(tmp_path):
    script = user_cli(tmp_path)
    adapter = custom("mine", [str(script)], version_args=["--version"])
    adapter.known_broken = (broken(unusable=True),)
    resolution = await resolve_tool(adapter)
    assert (resolution.found, resolution.tool) == (True, None)
    assert resolution.problem == (
        "mine 2.4.1 is a known-broken release (>= 2.4, < 2.5): drops the prompt's last line; "
        "install mine 2.5 or later"
    )


async def test_a_release_known_broken_but_usable_still_runs(tmp_path):
    script = user_cli(tmp_path)
    adapter = custom("mine", [str(script)], version_args=["--version"])
    adapter.known_broken = (broken(unusable=False),)
    resolution = await resolve_tool(adapter)
    assert resolution.problem is None
    assert resolution.tool is not None and resolution.tool.version == "2.4.1"
