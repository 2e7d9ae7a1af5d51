"""council inside IDE hosts: the files of `skill/` in each host's own format, installed and
uninstalled where each host reads them, and played through as a host model would: the shell
commands a file tells the model to run, run in order against a simulated debate."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from council.hosts import skill_dir
from project import QUESTION, Project

SKILL = skill_dir()
MARKDOWN_COMMANDS = ["claude/commands/debate.md", "codex/prompts/debate.md"]
REVIEW_COMMAND = "claude/commands/review.md"
TOML_COMMANDS = ["gemini/commands/debate.toml", "qwen/commands/debate.toml"]
AGENT_SKILL = "claude/skills/council/SKILL.md"
ARGS = f'"{QUESTION}" --files app.py --sim --rounds 3'


def front_matter(path: Path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
    assert match, f"{path} has no YAML front matter"
    return yaml.safe_load(match.group(1)), match.group(2)


def body_of(relative: str) -> str:
    path = SKILL / relative
    if path.suffix == ".toml":
        return tomllib.loads(path.read_text(encoding="utf-8"))["prompt"]
    return front_matter(path)[1]


def bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, re.S)]


def steps(text: str) -> str:
    """The instructions with the host's placeholder spelled one way, for comparing hosts."""
    return " ".join(text.replace("{{args}}", "$ARGUMENTS").split())


@pytest.mark.parametrize("relative", MARKDOWN_COMMANDS)
def test_a_markdown_command_has_its_front_matter_and_the_arguments_placeholder(relative):
    meta, body = front_matter(SKILL / relative)
    assert meta["description"] and meta["argument-hint"].startswith('"question"')
    if relative.startswith("claude/"):
        assert meta["allowed-tools"] == "Bash(council:*)"  # it may run council, nothing else
    assert body.count("$ARGUMENTS") == 2 and "{{args}}" not in body


@pytest.mark.parametrize("relative", TOML_COMMANDS)
def test_a_toml_command_has_a_description_and_a_prompt_with_the_args_placeholder(relative):
    command = tomllib.loads((SKILL / relative).read_text(encoding="utf-8"))
    assert set(command) == {"description", "prompt"} and command["description"]
    assert command["prompt"].count("{{args}}") == 2 and "$ARGUMENTS" not in command["prompt"]


def test_the_agent_skill_says_when_to_use_it():
    meta, body = front_matter(SKILL / AGENT_SKILL)
    assert meta["name"] == "council"
    assert "Use when" in meta["description"] and "second opinion" in meta["description"]
    assert "$ARGUMENTS" not in body and "{{args}}" not in body


def test_every_host_gets_the_same_steps_and_rules():
    bodies = {r: steps(body_of(r)) for r in [*MARKDOWN_COMMANDS, *TOML_COMMANDS]}
    assert len(set(bodies.values())) == 1, "the command files drifted apart"
    every = [*bodies.values(), steps(body_of(AGENT_SKILL))]
    for text in every:
        assert "--detach --json" in text and "council wait <id> --timeout 100" in text
        assert "Exit 75" in text and "council doctor" in text and "saved:" in text
        assert "never answer the question yourself" in text
        assert "never stand in for a seat" in text and "never invent seats" in text
        assert "--lead caller" in text


# -- install and uninstall ------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Project:
    made = Project(tmp_path)
    subprocess.run(["git", "init", "-q", str(made.root)], check=True)
    return made


def files_under(root: Path) -> set[str]:
    return {
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git/" not in str(p)
    }


def test_install_then_uninstall_in_both_scopes_leaves_nothing_behind(project):
    before_home, before_project = files_under(project.home), files_under(project.root)
    for scope in ("project", "user"):
        done = project.run("skill", "install", "--host", "all", "--scope", scope)
        assert done.returncode == 0, done.stderr
    assert files_under(project.root) - before_project == {
        ".claude/commands/debate.md",
        ".claude/commands/review.md",
        ".claude/skills/council/SKILL.md",
        ".gemini/commands/debate.toml",
        ".qwen/commands/debate.toml",
        ".council/installed.json",
        ".council/.gitignore",
    }
    # The manifest is council's own: git shows only the commands, to be committed.
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".council" not in status and ".claude/commands/debate.md" in status
    assert files_under(project.home) - before_home == {
        ".claude/commands/debate.md",
        ".claude/commands/review.md",
        ".claude/skills/council/SKILL.md",
        ".codex/prompts/debate.md",
        ".gemini/commands/debate.toml",
        ".qwen/commands/debate.toml",
        ".local/share/council/installed.json",
        ".local/share/council/.gitignore",
    }
    installed = project.root / ".gemini/commands/debate.toml"
    assert installed.read_bytes() == (SKILL / "gemini/commands/debate.toml").read_bytes()
    mine = project.root / ".claude/commands/mine.md"  # the user's own command stays
    mine.write_text("my command\n")
    for scope in ("project", "user"):
        gone = project.run("skill", "uninstall", "--host", "all", "--scope", scope)
        assert gone.returncode == 0, gone.stderr
        assert gone.stdout.count("removed ") >= 4
    assert files_under(project.home) == before_home
    assert files_under(project.root) == before_project | {".claude/commands/mine.md"}


def test_install_never_overwrites_a_file_it_did_not_write_without_force(project):
    theirs = project.root / ".claude/commands/debate.md"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("the user's own /debate\n")
    refused = project.run("skill", "install", "--host", "claude")
    assert refused.returncode == 2
    assert "not overwriting files council did not write" in refused.stderr
    assert "--force" in refused.stderr
    assert theirs.read_text() == "the user's own /debate\n"
    assert not (project.root / ".claude/skills/council/SKILL.md").exists()  # nothing written
    forced = project.run("skill", "install", "--host", "claude", "--force")
    assert forced.returncode == 0 and theirs.read_text().startswith("---\n")
    again = project.run("skill", "install", "--host", "claude")  # its own files: updated
    assert again.returncode == 0, again.stderr


def test_uninstall_keeps_a_file_the_user_changed_unless_forced(project):
    assert project.run("skill", "install", "--host", "gemini").returncode == 0
    command = project.root / ".gemini/commands/debate.toml"
    command.write_text(command.read_text() + "# my tweak\n")
    kept = project.run("skill", "uninstall", "--host", "gemini")
    assert kept.returncode == 0 and "kept .gemini/commands/debate.toml" in kept.stderr
    assert command.exists()
    forced = project.run("skill", "uninstall", "--host", "gemini", "--force")
    assert forced.returncode == 0 and not command.exists()


def test_codex_reads_prompts_for_the_user_only(project):
    refused = project.run("skill", "install", "--host", "codex", "--scope", "project")
    assert refused.returncode == 2 and "codex reads no project files; use --scope user" in (
        refused.stderr
    )
    moved = project.run(
        "skill",
        "install",
        "--host",
        "codex",
        "--scope",
        "user",
        CODEX_HOME=str(project.home / "cx"),
    )
    assert moved.returncode == 0 and (project.home / "cx/prompts/debate.md").is_file()


# -- a host model, played by the test ---------------------------------------------------------


def play(project: Project, installed: Path, args: str, placeholder: str) -> str:
    """Run the shell commands `installed` tells the model to run, in order, as it says: the
    first starts the debate; the second is repeated while it exits 75. Returns the last
    stdout."""
    text = installed.read_text(encoding="utf-8")
    if installed.suffix == ".toml":
        text = tomllib.loads(text)["prompt"]
    start, follow = bash_blocks(text.replace(placeholder, args))
    assert shlex.split(start)[0] == shlex.split(follow)[0] == "council"
    started = project.run(*shlex.split(start)[1:], timeout=120)
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    for _ in range(30):
        waited = project.run(*shlex.split(follow.replace("<id>", run_id))[1:], timeout=120)
        if waited.returncode != 75:
            break
    assert waited.returncode == 0, waited.stderr
    assert f"saved: .scratchpad/{run_id}/" in waited.stderr
    return waited.stdout


def test_a_claude_code_host_reaches_the_decision_with_the_installed_command(project):
    assert project.run("skill", "install", "--host", "claude").returncode == 0
    installed = project.root / ".claude/commands/debate.md"
    out = play(project, installed, ARGS, "$ARGUMENTS")
    assert out.startswith(f"# DECISION (SIMULATED): {QUESTION}")
    assert "## Votes" in out


def test_the_review_command_starts_follows_and_presents_a_review_by_the_same_rules():
    meta, body = front_matter(SKILL / REVIEW_COMMAND)
    assert meta["description"] and meta["argument-hint"].startswith("[--diff main")
    assert meta["allowed-tools"] == "Bash(council:*)"
    assert body.count("$ARGUMENTS") == 2 and "{{args}}" not in body
    start, follow = bash_blocks(body)
    assert start == "council review $ARGUMENTS --detach --json"
    assert follow == "council wait <id> --timeout 100"
    text = steps(body)
    assert "Exit 75" in text and "Exit 6" in text and "council doctor" in text
    assert "saved:" in text and "never review the code yourself" in text
    assert "never stand in for a reviewer" in text and "never invent findings" in text


def test_a_claude_code_host_reaches_the_findings_with_the_installed_review_command(project):
    assert project.run("skill", "install", "--host", "claude").returncode == 0
    installed = project.root / ".claude/commands/review.md"
    assert installed.read_bytes() == (SKILL / REVIEW_COMMAND).read_bytes()
    out = play(project, installed, "--files app.py --sim", "$ARGUMENTS")
    assert out.startswith("# REVIEW (SIMULATED): app.py")
    assert "- Raised by: reviewer-sim, reviewer-sim-2" in out


def test_a_gemini_cli_host_reaches_the_decision_with_the_installed_toml(project):
    assert project.run("skill", "install", "--host", "gemini").returncode == 0
    installed = project.root / ".gemini/commands/debate.toml"
    out = play(project, installed, ARGS, "{{args}}")
    assert out.startswith(f"# DECISION (SIMULATED): {QUESTION}")
