"""council's MCP server inside the real IDE hosts, run headless against the fake model server
(docs/spec/commands.md, "council mcp").

Each host is given `council mcp` the way the README says to register it; the fake model
answers with a call of council's `debate` tool (under whatever name the host offers it, after
the host's tool search where it defers MCP tools), so council runs a debate on the simulator;
and the host's next request to its model must carry the DECISION's recommendation, the text
itself: a host that handed its model only the id or the status would leave the user without
the answer. What each host needs to run the tool headless is in `register`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fakemodel.installed import installed
from fakemodel.sent import strings
from project import Project

# A real host starts its own Node runtime and council (and its seats) inside it: ~30 s for
# qwen alone on a quiet machine, so the suite's 60 s hang guard is too tight under -n 4.
pytestmark = [pytest.mark.realcli, pytest.mark.timeout(240)]

QUESTION = "Should the sessions service cache in Redis or in Postgres?"
ARGUMENTS = json.dumps({"question": QUESTION, "sim": True})
DEBATE_TOOL = r"(^|__|_)debate$"  # claude and qwen: mcp__council__debate; codex, gemini: debate
DIRECT = ((DEBATE_TOOL, ARGUMENTS),)
# The calls the model makes, host by host. claude 2.1.332 and qwen 0.24.4 defer MCP tools:
# the first request names them only, and the model must fetch a schema with the host's search
# tool first, as a real model would. qwen then calls a deferred tool through its `tool_call`
# bridge (the tool itself is never declared to the model).
STEPS = {
    "claude": (
        ("^ToolSearch$", json.dumps({"query": "select:mcp__council__debate"})),
        *DIRECT,
    ),
    "codex": DIRECT,  # under its namespace `mcp__council`, as `debate`
    "gemini": DIRECT,
    "qwen": (
        ("^tool_search$", json.dumps({"query": "select:mcp__council__debate"})),
        (
            "^tool_call$",
            json.dumps({"name": "mcp__council__debate", "arguments": json.loads(ARGUMENTS)}),
        ),
    ),
}
ASK = "Ask council whether to cache sessions in Redis or Postgres."


def server_entry(project: Project) -> dict[str, Any]:
    """`council mcp` as a host starts it: in the project, with the simulator on PATH."""
    return {
        "command": sys.executable,
        "args": ["-m", "council", "mcp"],
        "cwd": str(project.root),
        "env": project.env(),
    }


def register(name: str, cli: Any, project: Project) -> list[str]:
    """Register council with host `name`; the extra arguments its headless run needs."""
    entry = server_entry(project)
    if name == "claude":
        config = cli.home / "council-mcp.json"
        config.write_text(json.dumps({"mcpServers": {"council": entry}}))
        # `claude -p` refuses a tool call it would have asked the user about.
        return ["--mcp-config", str(config), "--allowedTools", "mcp__council__debate"]
    if name == "codex":
        config = cli.home / ".codex" / "config.toml"
        env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in entry["env"].items())
        config.write_text(
            config.read_text()
            + "\n[mcp_servers.council]\n"
            + f"command = {json.dumps(entry['command'])}\n"
            + f"args = {json.dumps(entry['args'])}\n"
            + f"cwd = {json.dumps(entry['cwd'])}\n"
            + f"env = {{ {env} }}\n"
            + "required = true\n"
            + "tool_timeout_sec = 120\n"
            # `codex exec` never asks: without this it refuses the call ("MCP tool call
            # requires approval, but approval policy is never").
            + 'default_tools_approval_mode = "approve"\n'
        )
        return []
    settings_file = cli.home / f".{name}" / "settings.json"
    settings = json.loads(settings_file.read_text())
    # `trust`: the server's tools run without asking, so no approval mode is needed.
    settings["mcpServers"] = {"council": {**entry, "trust": True, "timeout": 120_000}}
    settings_file.write_text(json.dumps(settings))
    return ["--skip-trust"] if name == "gemini" else []


def host_argv(name: str, extra: list[str], model: str | None) -> list[str]:
    binary = str(installed(name).bin_dir / name)
    if name == "codex":
        return [binary, "exec", "--skip-git-repo-check", *extra, ASK]
    return [binary, "-p", ASK, *extra, *(["--model", model] if model else [])]


@pytest.mark.parametrize("name", ["claude", "codex", "gemini", "qwen"])
def test_a_host_calls_council_over_mcp_and_hands_its_model_the_decision(
    real_cli, tmp_path: Path, name: str
):
    cli = real_cli(name)
    project = Project(tmp_path)
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    extra = register(name, cli, project)
    cli.server.add_rule(client=name, tool_calls=STEPS[name])
    done = subprocess.run(
        host_argv(name, extra, cli.setup.model),
        cwd=project.root,
        env=cli.environ,
        capture_output=True,
        text=True,
        timeout=150,
        stdin=subprocess.DEVNULL,
    )
    sent = cli.server.requests(name)
    called = [i for i, r in enumerate(sent) if r.tool_call and QUESTION in str(r.tool_call)]
    assert called, f"the model saw no debate tool: {[r.tools for r in sent][:1]}\n{done.stderr}"
    assert done.returncode == 0, done.stderr[-2000:]
    # (b) council ran the debate it was asked for, to its end.
    results = list(project.root.glob(".scratchpad/*/result.json"))
    assert len(results) == 1, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(results[0].read_text(encoding="utf-8"))
    assert (result["question"], result["status"]) == (QUESTION, "completed")
    # (c) the host's next request hands its model the DECISION itself.
    recommendation = result["decision"]["recommendation"]
    following = [r for r in sent[called[0] + 1 :] if r.after_tool]
    assert following, "the host sent its model nothing after the tool call"
    assert any(recommendation in s for s in strings(following[0].body)), json.dumps(
        following[0].body
    )[-3000:]


README = Path(__file__).parents[2] / "README.md"
CONNECTED = {"claude": "Connected", "gemini": "Connected"}


def readme_registration(name: str) -> list[str]:
    """The README's `<host> mcp add council ...` line for host `name`, as argv."""
    (line,) = [
        line.split("#", 1)[0].split()
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith(f"{name} mcp add council")
    ]
    return line


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_the_readmes_registration_command_gives_the_host_a_working_council_server(
    real_cli, tmp_path: Path, name: str
):
    cli = real_cli(name)
    project = Project(tmp_path)
    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    # `council` on PATH, as a user's install puts it; the host's own environment otherwise.
    environ = {**cli.environ, "PATH": f"{Path(sys.executable).parent}:{cli.environ['PATH']}"}
    binary = str(installed(name).bin_dir / name)

    def host(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [binary, *args],
            cwd=project.root,
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )

    added = host(*readme_registration(name)[1:])
    assert added.returncode == 0, added.stdout + added.stderr
    # gemini runs no server of a folder it does not trust (the README's table says so);
    # `mcp list` takes no --skip-trust, the variable it sets does the same.
    if name == "gemini":
        environ["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    listed = host("mcp", "list")
    shown = listed.stdout + listed.stderr
    assert listed.returncode == 0 and "council" in shown, shown
    # claude and gemini start each server to list it: council's answered.
    if name in CONNECTED:
        (line,) = [line for line in shown.splitlines() if "council" in line]
        assert CONNECTED[name] in line, shown
    else:  # codex lists what its config holds: council's command, as the README gave it
        assert "council" in shown and "mcp" in shown, shown
