"""council inside the real IDE hosts, run headless against the fake model server
(docs/spec/commands.md, "council skill install").

Codex reads council's agent skill where `council skill install --host codex` puts it: it lists
the `council` skill in the first request it sends its model (0.169.0 dropped custom prompts, so
the skill is how it learns of council at all). And each host, given the setting `skill
install` prints for it, runs the command its installed file gives (the fake model answers with
exactly that shell command), so council records the user's question verbatim and no shell
runs any of it; without the setting, the host declines. Then the model follows the debate
with `council wait`, as the file says, and the host's next request hands it the DECISION's
recommendation itself."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakemodel.installed import installed
from fakemodel.sent import strings

# A real host starts its own Node runtime and council (and its seats) inside it: ~30 s for
# qwen alone on a quiet machine, so the suite's 60 s hang guard is too tight under -n 4.
pytestmark = [pytest.mark.realcli, pytest.mark.timeout(240)]

SKILL_LINE = "- council: Runs a structured debate between AI coding CLIs"


HOSTILE = "Should we $(touch pwned) `touch pwned2` cache $HOME in * what's the risk?"
PLAIN = "Should we cache $HOME in * what's the risk?"  # gemini refuses `$(` and backticks


def run(argv: list[str], cwd: Path, environ: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv,
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=240,
        stdin=subprocess.DEVNULL,
    )


def council(cwd: Path, environ: dict[str, str], *args: str) -> str:
    done = run([sys.executable, "-m", "council", *args], cwd, environ)
    assert done.returncode == 0, done.stderr
    return done.stdout


def first_request_text(cli, project: Path, environ: dict[str, str]) -> str:
    """`codex exec` run once in `project`; the text of the first request its model got."""
    done = run([str(installed("codex").bin_dir / "codex"), "exec", "say hi"], project, environ)
    assert done.returncode == 0, done.stderr[-2000:]
    sent = cli.server.requests("codex")
    assert sent, "codex sent its model no request"
    return json.dumps(sent[0].body, ensure_ascii=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    made = tmp_path / "project"
    made.mkdir()
    subprocess.run(["git", "init", "-q", str(made)], check=True)
    return made


def test_codex_lists_the_council_skill_installed_in_the_project(real_cli, project):
    cli = real_cli("codex")
    said = council(project, cli.environ, "skill", "install", "--host", "codex")
    assert "wrote .agents/skills/council/SKILL.md" in said
    text = first_request_text(cli, project, cli.environ)
    assert SKILL_LINE in text and "- council-review: Reviews code" in text


def test_codex_lists_the_council_skill_installed_in_codex_home(real_cli, project):
    cli = real_cli("codex")
    moved = cli.home / "elsewhere"  # CODEX_HOME away from ~/.codex, its config with it
    shutil.copytree(cli.home / ".codex", moved)
    environ = {**cli.environ, "CODEX_HOME": str(moved)}
    said = council(project, environ, "skill", "install", "--host", "codex", "--scope", "user")
    assert "wrote ~/elsewhere/skills/council/SKILL.md" in said
    assert not (project / ".agents").exists()
    text = first_request_text(cli, project, environ)
    assert SKILL_LINE in text


def test_codex_lists_no_council_skill_before_install(real_cli, project):
    cli = real_cli("codex")
    assert SKILL_LINE not in first_request_text(cli, project, cli.environ)


# -- headless hosts run the installed command ------------------------------------------------


def start_command(installed: Path, args: str) -> str:
    """The first shell block of an installed command or skill, with the user's arguments."""
    text = installed.read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S).group(1).strip()
    first, _example, last = block.splitlines()
    return f"{first}\n{args}\n{last}"


def run_host(cli, project: Path, argv: list[str]) -> subprocess.CompletedProcess:
    binary = installed(cli.name).bin_dir / cli.name
    venv = str(Path(sys.executable).parent)  # where `council` is
    environ = {**cli.environ, "PATH": f"{venv}:{cli.environ['PATH']}"}
    # codex runs commands in a login shell, which sets PATH anew from the profile.
    (cli.home / ".bash_profile").write_text(f'export PATH="{venv}:$PATH"\n')
    return run([str(binary), *argv], project, environ)


def recorded_questions(project: Path) -> list[str]:
    return [
        json.loads(state.read_text(encoding="utf-8"))["question"]
        for state in sorted(project.glob(".scratchpad/*/state.json"))
    ]


HEADLESS = [
    # host, installed file, what the user typed, the host's argv, the question that arrives
    ("claude", ".claude/commands/debate.md", "/debate", [], HOSTILE),
    (
        "claude",
        ".claude/skills/council/SKILL.md",
        "Run council on whether to cache",
        ["--allowedTools", "Bash(council:*)"],
        HOSTILE,
    ),
    (
        "codex",
        ".agents/skills/council/SKILL.md",
        "Run council on whether to cache",
        ["--sandbox", "danger-full-access"],
        HOSTILE,
    ),
    ("gemini", ".gemini/commands/debate.toml", "/debate", ["--skip-trust"], PLAIN),
    ("qwen", ".qwen/commands/debate.toml", "/debate", ["--approval-mode", "yolo"], HOSTILE),
]
DECLINED = [
    ("claude", "Run council on whether to cache", []),
    ("codex", "Run council on whether to cache", []),  # its read-only sandbox
    ("gemini", "/debate", ["--skip-trust", "--allowed-tools", "run_shell_command(council)"]),
    ("qwen", "/debate", ["--allowed-tools", "run_shell_command(council)"]),
]
GEMINI_POLICY = """[[rule]]
toolName = "run_shell_command"
commandPrefix = "council"
decision = "allow"
priority = 100
allowRedirection = true
"""


def headless_argv(name: str, typed: str, extra: list[str], model: str | None) -> list[str]:
    if name == "codex":
        return ["exec", *extra, typed]
    return ["-p", typed, *extra, *(["--model", model] if model else [])]


@pytest.mark.parametrize(("name", "relative", "typed", "extra", "question"), HEADLESS)
def test_a_headless_host_with_its_setting_runs_council_with_the_question_verbatim(
    real_cli, project, name, relative, typed, extra, question
):
    cli = real_cli(name)
    (project / "app.py").write_text("x = 1\n")
    council(project, cli.environ, "skill", "install", "--host", name)
    if name == "gemini":  # the policy `skill install` prints for gemini
        policies = cli.home / ".gemini" / "policies"
        policies.mkdir(parents=True)
        (policies / "council.toml").write_text(GEMINI_POLICY)
    script = start_command(project / relative, f"{question} --files app.py --sim")
    cli.server.add_rule(client=name, contains="council", shell_command=script)
    done = run_host(cli, project, headless_argv(name, typed, extra, cli.setup.model))
    assert done.returncode == 0, done.stderr[-2000:]
    assert recorded_questions(project) == [question], done.stdout[-2000:]
    assert not list(project.parent.rglob("pwned*"))


@pytest.mark.parametrize(("name", "typed", "extra"), DECLINED)
def test_a_headless_host_without_its_setting_runs_no_council(real_cli, project, name, typed, extra):
    cli = real_cli(name)
    (project / "app.py").write_text("x = 1\n")
    council(project, cli.environ, "skill", "install", "--host", name)
    script = start_command(
        next(project.glob(".*/*/debate.*"), None) or project / ".agents/skills/council/SKILL.md",
        f"{PLAIN} --files app.py --sim",
    )
    cli.server.add_rule(client=name, contains="council", shell_command=script)
    run_host(cli, project, headless_argv(name, typed, extra, cli.setup.model))
    assert [r.outcome for r in cli.server.requests(name)][:1] == ["tool-call"]
    assert recorded_questions(project) == []


# One per host: its slash command (codex: its skill) and the setting `skill install` prints.
FOLLOWED = [entry[:4] for entry in HEADLESS if entry[1] != ".claude/skills/council/SKILL.md"]
WAIT = "council wait last --timeout 100"  # the file's second step, the id found by `last`


@pytest.mark.parametrize(
    ("name", "relative", "typed", "extra"), FOLLOWED, ids=[entry[0] for entry in FOLLOWED]
)
def test_a_headless_host_follows_the_debate_and_hands_its_model_the_decision(
    real_cli, project, name, relative, typed, extra
):
    cli = real_cli(name)
    (project / "app.py").write_text("x = 1\n")
    council(project, cli.environ, "skill", "install", "--host", name)
    if name == "gemini":
        policies = cli.home / ".gemini" / "policies"
        policies.mkdir(parents=True)
        (policies / "council.toml").write_text(GEMINI_POLICY)
    start = start_command(project / relative, f"{PLAIN} --files app.py --sim")
    cli.server.add_rule(client=name, contains="council", shell_commands=(start, WAIT))
    done = run_host(cli, project, headless_argv(name, typed, extra, cli.setup.model))
    assert done.returncode == 0, done.stderr[-2000:]
    results = list(project.glob(".scratchpad/*/result.json"))
    assert len(results) == 1, done.stdout[-2000:]
    result = json.loads(results[0].read_text(encoding="utf-8"))
    assert (result["question"], result["status"]) == (PLAIN, "completed")
    sent = cli.server.requests(name)
    waited = [i for i, r in enumerate(sent) if r.tool_call and WAIT in str(r.tool_call)]
    assert waited, [r.outcome for r in sent]
    following = [r for r in sent[waited[0] + 1 :] if r.after_tool]
    assert following, "the host sent its model nothing after `council wait`"
    recommendation = result["decision"]["recommendation"]
    assert any(recommendation in s for s in strings(following[0].body)), json.dumps(
        following[0].body
    )[-3000:]
