"""The `council mcp` command itself: what it says without the optional SDK, that the rest
of council never loads the SDK (`council --version` stays fast), and that the server loads
council's library only for a tool call (`initialize` waits for the SDK alone)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from council.cli import cli

# `tests/mcp` has no `__init__.py` on purpose: `tests` is on sys.path (pytest's `pythonpath`),
# and a regular package `tests/mcp` would be imported as `mcp` in place of the SDK; a plain
# directory loses to the installed package.


def test_without_the_sdk_it_says_how_to_install_it_in_one_line(monkeypatch):
    for name in list(sys.modules):
        if name.startswith("council.mcp."):
            monkeypatch.delitem(sys.modules, name)  # imported afresh, from a missing SDK
        elif name == "mcp" or name.startswith("mcp."):
            monkeypatch.setitem(sys.modules, name, None)  # `import` fails as if not installed
    monkeypatch.setitem(sys.modules, "mcp", None)  # also when nothing imported it yet
    result = CliRunner().invoke(cli, ["mcp"], prog_name="council")
    assert result.exit_code == 2
    assert result.output == (
        f"council: the MCP server needs the MCP SDK: {sys.executable} -m pip install 'mcp>=2'\n"
    )


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["mcp", "--help"]])
def test_the_cli_never_loads_the_sdk_unless_it_serves(argv):
    probe = (
        "import sys\n"
        "from council.cli import main\n"
        f"sys.argv = ['council', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_the_server_answers_initialize_before_loading_councils_library():
    """`initialize` waits only for the SDK: the server, its tools built, has loaded the flags
    its schemas come from, not the config, the protocols or the runs a tool call needs."""
    probe = (
        "import json, sys\n"
        "from council.mcp.server import Settings, build_server\n"
        "build_server(Settings())\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('council.')]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert {"council.debate.flags", "council.review.flags"} <= loaded
    later = {"council.config", "council.protocols", "council.panel.run", "council.runs.store"}
    assert loaded & later == set()
