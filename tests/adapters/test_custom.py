"""User-defined CLIs from the config: each input and output mode, and `tty: true` under a
pseudo-terminal, where an interactive prompt ends the call at once as `auth`."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from council.adapters import adapter_for
from council.adapters.base import Request, Status, Tool
from council.config import parse_config
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call

pytestmark = pytest.mark.anyio
PROMPT = "ACTION: PROPOSAL\nQuestion: tabs or spaces?\n"
FAST = RetryPolicy(base_delay_s=0.01, other_delay_s=0.01)

# A tiny CLI: reads the prompt from stdin, a file (--in) or an argument (--arg), answers on
# stdout, into a file (--out) or as JSON (--json); --tty needs a terminal and asks to trust.
TOOL = r"""
import json, os, sys
args = sys.argv[1:]
def opt(name):
    return args[args.index(name) + 1] if name in args else None
if "--tty" in args:
    if not os.isatty(0):
        print("needs a terminal", file=sys.stderr); sys.exit(2)
    if "--ask" in args:
        print("Do you trust the files in this folder? (y/n)", flush=True)
        sys.stdin.readline()
        sys.exit(0)
    prompt = sys.stdin.read()
    print("tty answer to: " + prompt.splitlines()[1], flush=True); sys.exit(0)
if opt("--in"):
    prompt = open(opt("--in")).read()
elif opt("--arg"):
    prompt = opt("--arg")
else:
    prompt = sys.stdin.read()
answer = "custom answer to: " + prompt.splitlines()[1]
if opt("--out"):
    open(opt("--out"), "w").write(answer)
elif "--json" in args:
    usage = {"prompt_tokens": 12, "completion_tokens": 5}
    print(json.dumps({"choices": [{"message": {"content": answer}}], "usage": usage}))
else:
    print(answer)
"""


@pytest.fixture
def tool_script(tmp_path: Path) -> str:
    path = tmp_path / "mytool.py"
    path.write_text(TOOL)
    return str(path)


async def ask(tmp_path: Path, settings: dict, **timeouts):
    config = parse_config({"clis": {"mytool": settings}})
    adapter = adapter_for("mytool", config.clis)
    room = tmp_path / "room"
    room.mkdir(exist_ok=True)
    return await run_call(
        adapter,
        Tool("mytool", tuple(adapter.command())),
        PROMPT,
        room=room,
        files=CallFiles(tmp_path / "record", "proxy-mytool-r2"),
        timeouts=Timeouts(
            soft_s=timeouts.get("soft", 10), hard_s=timeouts.get("hard", 15), grace_s=0.5
        ),
        policy=FAST,
    )


@pytest.mark.parametrize(
    ("extra", "settings"),
    [
        ([], {}),
        (["--in", "{prompt_file}"], {"input": "file"}),
        (["--arg", "{prompt}"], {"input": "arg"}),
        (["--out", "{answer_file}"], {"output": "file"}),
        (["--json"], {"output": "json:choices.0.message.content"}),
    ],
)
async def test_each_input_and_output_mode_delivers_the_answer(
    tmp_path, tool_script, extra, settings
):
    outcome = await ask(tmp_path, {"command": [sys.executable, tool_script, *extra], **settings})
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == "custom answer to: Question: tabs or spaces?"
    # council knows no user-defined CLI's usage format, even when its JSON carries one.
    assert outcome.usage is None


async def test_a_json_path_that_is_not_there_is_an_error_naming_it(tmp_path, tool_script):
    outcome = await ask(
        tmp_path,
        {"command": [sys.executable, tool_script, "--json"], "output": "json:choices.0.text"},
    )
    assert outcome.status is Status.ERROR
    assert "choices.0.text" in outcome.detail


async def test_a_cli_that_needs_a_terminal_answers_under_one(tmp_path, tool_script):
    outcome = await ask(tmp_path, {"command": [sys.executable, tool_script, "--tty"], "tty": True})
    assert outcome.status is Status.OK, outcome.detail
    assert outcome.text == "tty answer to: Question: tabs or spaces?"


async def test_an_interactive_prompt_under_a_terminal_ends_the_call_at_once_as_auth(
    tmp_path, tool_script
):
    outcome = await ask(
        tmp_path,
        {"command": [sys.executable, tool_script, "--tty", "--ask"], "tty": True},
        soft=30,
        hard=45,
    )
    assert outcome.status is Status.AUTH
    assert "trust" in outcome.detail.lower()
    assert "once in a terminal" in outcome.detail
    assert outcome.latency_s < 30  # it did not wait for the timeout


async def test_a_cli_that_needs_a_terminal_fails_cleanly_without_one(tmp_path, tool_script):
    outcome = await ask(tmp_path, {"command": [sys.executable, tool_script, "--tty"]})
    assert outcome.status is Status.ERROR
    assert "needs a terminal" in outcome.stderr_tail


async def test_a_hung_terminal_cli_is_killed_at_the_hard_limit(tmp_path):
    script = tmp_path / "hang.py"
    script.write_text(
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)\n"
    )
    outcome = await ask(
        tmp_path, {"command": [sys.executable, str(script)], "tty": True}, soft=0.5, hard=1.0
    )
    assert outcome.status is Status.TIMEOUT


# The vendor fakes' interactive modes, seen through council: a CLI run as `tty: true` that
# stops at its trust or login question (the vendors' own wording) is ended at once as `auth`
# with the question quoted; run without a terminal, one that needs one fails with its stderr.
@pytest.mark.parametrize(
    ("vendor", "mode", "argv", "question"),
    [
        ("claude", "needs_tty", ["-p"], "Do you trust the files in this folder? (y/n)"),
        ("gemini", "login_prompt", ["-m", "m", "--skip-trust", "-p", "hi"], "Please log in"),
    ],
)
async def test_a_vendor_cli_stuck_at_its_question_under_a_terminal_ends_at_once_as_auth(
    tmp_path, fakes, vendor, mode, argv, question
):
    fakes.set(vendor, mode)
    outcome = await ask(tmp_path, {"command": [vendor, *argv], "tty": True}, soft=30, hard=45)
    assert outcome.status is Status.AUTH, outcome.detail
    assert question in outcome.detail
    assert f"run `{vendor} {' '.join(argv)}` once in a terminal" in outcome.detail
    assert fakes.calls(vendor)[-1]["stdin_isatty"] is True
    assert len(outcome.attempts) == 1  # a retry cannot answer the question either
    assert outcome.attempts[0].killed  # nothing left waiting at the question


async def test_a_vendor_cli_that_needs_a_terminal_fails_without_one_with_its_message(
    tmp_path, fakes
):
    from fakes.install import NEEDS_TTY_MESSAGE

    fakes.set("claude", "needs_tty")
    outcome = await ask(tmp_path, {"command": ["claude", "-p"]})
    assert outcome.status is Status.ERROR
    assert NEEDS_TTY_MESSAGE in outcome.stderr_tail
    assert fakes.calls("claude")[-1]["stdin_isatty"] is False


def documented_agy_entry() -> dict:
    """The `clis.agy` entry docs/spec/clis.md gives users (Antigravity: no contract test)."""
    import yaml

    text = (Path(__file__).parents[2] / "docs" / "spec" / "clis.md").read_text()
    section = text.split("### agy (Antigravity CLI)", 1)[1]
    block = "    clis:\n" + section.split("\n    clis:\n", 1)[1].split("\n\n", 1)[0]
    return yaml.safe_load(textwrap.dedent(block))


def test_the_documented_agy_entry_is_valid_and_calls_agy_as_its_docs_say(tmp_path):
    config = parse_config(documented_agy_entry())
    adapter = adapter_for("agy", config.clis)
    request = Request(PROMPT, room=tmp_path, answer_path=tmp_path / "a.txt", model="flash")
    invocation = adapter.build(Tool("agy", tuple(adapter.command())), request)
    # the prompt is -p's own argument (agy reads no prompt from stdin), flags after it
    assert invocation.argv == ("agy", "--print-timeout", "0", "-p", PROMPT, "--model", "flash")
    assert invocation.tty and invocation.stdin is None
    dirs, _ = adapter.state_paths({}, tmp_path / "home")
    assert dirs == (tmp_path / "home" / ".gemini" / "antigravity-cli",)
