"""`version_args: []`: a user-defined CLI that has no `--version` (here one that takes any
argument for an unknown flag and fails) still sits as a proxy, because READY then only checks
that its executable exists. Without the key the probe fails and the seat is dropped."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from council.adapters import adapter_for
from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.panel.run import start
from council.progress import Progress
from council.runner.resolve import resolve_tool
from project import Project, validate

# A CLI with no flags at all: an argument is an error, the prompt comes on stdin.
NO_VERSION_CLI = """
import sys
if sys.argv[1:]:
    print(f"mine: unknown option {sys.argv[1]}", file=sys.stderr)
    sys.exit(2)
prompt = sys.stdin.read().splitlines()
phase = next((l[7:].strip() for l in prompt if l.startswith("ACTION:")), "?")
print(f"Mine answers {phase}: bound the cache and evict the least recently used entry.")
"""


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    script = tmp_path / "mine.py"
    script.write_text(NO_VERSION_CLI)
    return script


def settings(script: Path, **extra: object) -> dict:
    return {"command": [sys.executable, str(script)], **extra}


def roles(proxy: str) -> dict:
    return {"advocate": "sim", "critic": "sim", "lead": "sim", "proxies": [proxy]}


def test_no_version_args_means_no_probe_and_an_unknown_version(mine):
    config = parse_config({"clis": {"mine": settings(mine, version_args=[])}})
    adapter = adapter_for("mine", config.clis)
    assert adapter.version_argv() is None
    resolution = anyio.run(resolve_tool, adapter)
    assert resolution.tool is not None and resolution.tool.version is None
    # Without the key the probe runs `mine --version`, which this CLI refuses.
    default = adapter_for("mine", parse_config({"clis": {"mine": settings(mine)}}).clis)
    failed = anyio.run(resolve_tool, default)
    assert failed.tool is None
    assert "--version` failed: mine: unknown option --version" in failed.problem


@pytest.mark.parametrize(
    ("printed", "version"), [("v1", "1"), ("mytool 7", "7"), ("build 12\n", "12")]
)
def test_a_version_without_a_dot_is_a_version(tmp_path, printed, version):
    script = tmp_path / "vtool.py"
    script.write_text(f"print({printed!r})\n")
    config = parse_config({"clis": {"vtool": settings(script)}})
    resolution = anyio.run(resolve_tool, adapter_for("vtool", config.clis))
    assert resolution.tool is not None, resolution.problem
    assert resolution.tool.version == version


def test_other_version_args_replace_the_probe(tmp_path):
    script = tmp_path / "vtool.py"
    script.write_text("import sys\nprint('vtool 2.0' if sys.argv[1:] == ['-V'] else 'no')\n")
    config = parse_config({"clis": {"vtool": settings(script, version_args=["-V"])}})
    resolution = anyio.run(resolve_tool, adapter_for("vtool", config.clis))
    assert resolution.tool is not None and resolution.tool.version == "2.0"


def test_a_cli_without_version_sits_as_a_proxy_in_a_simulated_debate(mine, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("CACHE = {}\n")
    config = parse_config(
        {"roles": roles("mine"), "clis": {"mine": settings(mine, version_args=[])}}
    )
    flags = DebateFlags(question="Should the cache be bounded?", files=("app.py",))
    progress = Progress(open(os.devnull, "w"), quiet=True)  # noqa: SIM115 - closed with the test
    run = start(DEBATE, flags, config, progress, cwd=project)
    progress.stream.close()
    assert run.exit_code == 0, run.result["warnings"]
    seat = next(s for s in run.result["seats"] if s["name"] == "proxy-mine")
    assert (seat["cli"], seat["version"], seat["status"]) == ("mine", None, "ok")
    contributions = run.result["contributions"]
    (challenge,) = [
        c for c in contributions if c["seat"] == "proxy-mine" and c["phase"] == "CHALLENGE"
    ]
    assert challenge["text"].startswith("Mine answers CHALLENGE: bound the cache")


def test_the_same_from_council_yaml_through_the_command_line(mine, tmp_path):
    project = Project(tmp_path)
    project.write_config(
        "roles: {advocate: sim, critic: sim, lead: sim, proxies: [mine]}\n"
        "clis:\n"
        f"  mine: {{command: [{sys.executable}, {mine}], version_args: []}}\n"
    )
    run = project.run("debate", "Should the cache be bounded?", "--files", "app.py", "--json")
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    validate(result)
    seat = next(s for s in result["seats"] if s["name"] == "proxy-mine")
    assert (seat["version"], seat["status"]) == (None, "ok")
    assert any(c["seat"] == "proxy-mine" for c in result["contributions"])


def test_the_seat_is_dropped_when_the_probe_fails(mine, tmp_path):
    project = Project(tmp_path)
    project.write_config(
        "roles: {advocate: sim, critic: sim, lead: sim, proxies: [mine]}\n"
        f"clis:\n  mine: {{command: [{sys.executable}, {mine}]}}\n"
    )
    run = project.run("debate", "Should the cache be bounded?", "--files", "app.py", "--json")
    result = json.loads(run.stdout)
    seat = next(s for s in result["seats"] if s["name"] == "proxy-mine")
    assert seat["status"] == "dropped"
    assert not any(c["seat"] == "proxy-mine" for c in result["contributions"])
