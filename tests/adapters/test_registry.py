"""The vendor registry: everything that depends on the set of CLIs derives from the registered
adapter classes. A new adapter class, once registered, is seated from `council.yaml` as a
proxy in a simulated debate with nothing else changed."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from council.adapters import (
    adapter_for,
    default_order,
    find_forbidden,
    host_markers,
    known_names,
    register,
    registered,
)
from council.adapters.base import Invocation, Request, Tool
from council.adapters.host import IdeHost
from council.adapters.registry import unregister
from council.config import parse_config
from council.debate.flags import DebateFlags
from council.debate.protocol import DEBATE
from council.errors import ConfigError
from council.panel.run import start
from council.progress import Progress

# A CLI council has never heard of: reads the prompt on stdin, answers with what it saw.
ECHO_CLI = """#!{python}
import os, sys
if sys.argv[1:] == ["--version"]:
    print("echo-cli 3.1.4")
    sys.exit(0)
prompt = sys.stdin.read().splitlines()
phase = next((l[7:].strip() for l in prompt if l.startswith("ACTION:")), "?")
key = os.environ.get("ECHO_KEY")
print(f"Echo answers {{phase}}: the cache needs an eviction policy. key={{key}}")
"""


class EchoAdapter(IdeHost):
    name = "echo"
    vendor = "echo-labs"
    binary = "echo-cli"
    env_prefixes = ("ECHO_",)
    host_markers = ("ECHO_HOSTED",)
    forbidden_args = ("--unsafe",)
    soft_timeout_s = 30.0
    soft_timeout_high_s = 30.0

    def build(self, tool: Tool, request: Request) -> Invocation:
        return Invocation(
            argv=(*tool.command, *self.settings.extra_args), stdin=request.prompt.encode()
        )


@pytest.fixture
def echo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "echo-cli"
    script.write_text(ECHO_CLI.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ECHO_KEY", "k-123")
    register(EchoAdapter)
    yield script
    unregister("echo")


def test_a_registered_adapter_is_known_everywhere_the_set_of_clis_matters(echo):
    assert registered()["echo"] is EchoAdapter
    assert "echo" in known_names() and default_order()[-1] == "echo"
    assert "ECHO_HOSTED" in host_markers()
    assert find_forbidden(["--model", "m", "--unsafe"]) == "--unsafe"
    assert isinstance(adapter_for("echo"), EchoAdapter)


def test_the_config_takes_a_registered_cli_by_name_and_refuses_its_forbidden_flags(echo):
    config = parse_config({"clis": {"echo": {"timeout_s": 12, "extra_args": ["--quiet"]}}})
    assert config.clis["echo"].adapter == "echo"
    assert adapter_for("echo", config.clis).soft_timeout(None) == 12
    with pytest.raises(ConfigError, match=r"clis.echo.extra_args: flags that bypass"):
        parse_config({"clis": {"echo": {"extra_args": ["--unsafe"]}}})


def test_a_registered_cli_sits_as_a_proxy_in_a_simulated_debate(echo, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("CACHE = {}\n")
    config = parse_config(
        {"roles": {"advocate": "sim", "critic": "sim", "lead": "sim", "proxies": ["echo"]}}
    )
    flags = DebateFlags(question="Should the cache be bounded?", files=("app.py",))
    progress = Progress(open(os.devnull, "w"), quiet=True)  # noqa: SIM115 - closed with the test
    run = start(DEBATE, flags, config, progress, cwd=project)
    progress.stream.close()
    assert run.exit_code == 0, run.result["warnings"]
    seat = next(s for s in run.result["seats"] if s["name"] == "proxy-echo")
    assert (seat["cli"], seat["version"], seat["status"]) == ("echo", "3.1.4", "ok")
    contributions = run.result["contributions"]
    (challenge,) = [
        c for c in contributions if c["seat"] == "proxy-echo" and c["phase"] == "CHALLENGE"
    ]
    # Its own vendor's variable reached it through the allow-list.
    assert challenge["text"] == (
        "Echo answers CHALLENGE: the cache needs an eviction policy. key=k-123"
    )
    state = json.loads((run.record.path / "state.json").read_text())
    assert state["seats"]["proxy-echo"]["path"] == str(echo)
