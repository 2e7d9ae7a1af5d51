"""council inside IDE hosts: the files of `skill/` in each host's own format, installed and
uninstalled where each host reads them, and played through as a host model would: the shell
commands a file tells the model to run, run in order by a real shell against a simulated
run, with a question no shell may expand."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from council.hosts import headless_setting, skill_dir
from project import QUESTION, Project

SKILL = skill_dir()
MARKDOWN_COMMANDS = ["claude/commands/debate.md"]
REVIEW_COMMAND = "claude/commands/review.md"
TOML_COMMANDS = ["gemini/commands/debate.toml", "qwen/commands/debate.toml"]
TOML_REVIEWS = ["gemini/commands/review.toml", "qwen/commands/review.toml"]
AGENT_SKILL = "claude/skills/council/SKILL.md"
CODEX_SKILL = "codex/skills/council/SKILL.md"
CODEX_REVIEW_SKILL = "codex/skills/council-review/SKILL.md"
ARGS = f'"{QUESTION}" --files app.py --sim --rounds 3'
# What a user may type after /debate: nothing of it may reach a shell as code.
HOSTILE = "Should we $(touch pwned) `touch pwned2` cache $HOME in * what's the risk?"


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


@pytest.mark.parametrize("relative", [*TOML_COMMANDS, *TOML_REVIEWS])
def test_a_toml_command_has_a_description_and_a_prompt_with_the_args_placeholder(relative):
    command = tomllib.loads((SKILL / relative).read_text(encoding="utf-8"))
    assert set(command) == {"description", "prompt"} and command["description"]
    assert command["prompt"].count("{{args}}") == 2 and "$ARGUMENTS" not in command["prompt"]


def test_the_agent_skill_says_when_to_use_it_and_may_run_council_only():
    meta, body = front_matter(SKILL / AGENT_SKILL)
    assert meta["name"] == "council"
    assert "Use when" in meta["description"] and "second opinion" in meta["description"]
    assert meta["allowed-tools"] == "Bash(council:*)"
    assert "$ARGUMENTS" not in body and "{{args}}" not in body


@pytest.mark.parametrize(
    ("relative", "name"), [(CODEX_SKILL, "council"), (CODEX_REVIEW_SKILL, "council-review")]
)
def test_a_codex_skill_holds_only_the_frontmatter_keys_codex_accepts(relative, name):
    meta, body = front_matter(SKILL / relative)
    assert set(meta) == {"name", "description"}  # codex refuses a skill with any other key
    assert meta["name"] == name == Path(relative).parent.name
    assert "Use when" in meta["description"]
    assert "$ARGUMENTS" not in body and "{{args}}" not in body


def test_the_codex_debate_skill_is_the_claude_one_without_its_allowed_tools():
    claude, codex = (front_matter(SKILL / r) for r in (AGENT_SKILL, CODEX_SKILL))
    assert {k: v for k, v in claude[0].items() if k != "allowed-tools"} == codex[0]
    assert claude[1] == codex[1]


def test_no_command_puts_the_users_arguments_on_a_shell_command_line():
    """The arguments reach council through a quoted heredoc, never as shell words."""
    every = [
        *MARKDOWN_COMMANDS,
        REVIEW_COMMAND,
        *TOML_COMMANDS,
        *TOML_REVIEWS,
        AGENT_SKILL,
        CODEX_SKILL,
        CODEX_REVIEW_SKILL,
    ]
    for relative in every:
        start = bash_blocks(body_of(relative))[0]
        first, *between, last = start.splitlines()
        assert first.endswith("--detach --json --args-stdin <<'COUNCIL_ARGS'"), relative
        assert last == "COUNCIL_ARGS" and len(between) == 1, relative
        assert "$ARGUMENTS" not in first and "{{args}}" not in first, relative


def test_every_host_gets_the_same_steps_and_rules():
    bodies = {r: steps(body_of(r)) for r in [*MARKDOWN_COMMANDS, *TOML_COMMANDS]}
    assert len(set(bodies.values())) == 1, "the command files drifted apart"
    reviews = {r: steps(body_of(r)) for r in [REVIEW_COMMAND, *TOML_REVIEWS]}
    assert len(set(reviews.values())) == 1, "the review command files drifted apart"
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
        ".agents/skills/council/SKILL.md",
        ".agents/skills/council-review/SKILL.md",
        ".gemini/commands/debate.toml",
        ".gemini/commands/review.toml",
        ".qwen/commands/debate.toml",
        ".qwen/commands/review.toml",
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
        ".codex/skills/council/SKILL.md",
        ".codex/skills/council-review/SKILL.md",
        ".gemini/commands/debate.toml",
        ".gemini/commands/review.toml",
        ".qwen/commands/debate.toml",
        ".qwen/commands/review.toml",
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


def test_install_all_says_which_clis_it_skipped_and_what_each_host_needs_headless(project):
    done = project.run("skill", "install", "--host", "all")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    skipped = [line for line in lines if line.startswith("skipped ")]
    assert [line.split(":")[0] for line in skipped] == ["skipped kimi", "skipped pi", "skipped sim"]
    headless = [line for line in lines if line.startswith("to let ")]
    assert headless == [
        f"to let {name} run council headless: {headless_setting(name)}"
        for name in ("claude", "codex", "gemini", "qwen")
    ]
    assert '--allowedTools "Bash(council:*)"' in headless[0]
    assert "--sandbox danger-full-access" in headless[1]
    assert "allowRedirection = true" in headless[2]
    one = project.run("skill", "install", "--host", "gemini")
    assert "skipped" not in one.stdout and one.stdout.count("to let ") == 1


def test_codex_gets_skills_in_the_project_and_in_codex_home(project):
    done = project.run("skill", "install", "--host", "codex", "--scope", "project")
    assert done.returncode == 0, done.stderr
    for name in ("council", "council-review"):
        installed = project.root / f".agents/skills/{name}/SKILL.md"
        assert installed.read_bytes() == (SKILL / f"codex/skills/{name}/SKILL.md").read_bytes()
    moved = project.run(
        "skill",
        "install",
        "--host",
        "codex",
        "--scope",
        "user",
        CODEX_HOME=str(project.home / "cx"),
    )
    assert moved.returncode == 0 and (project.home / "cx/skills/council/SKILL.md").is_file()
    assert not (project.home / ".codex").exists()
    # Set but empty, as `export CODEX_HOME=` leaves it: codex's own default, not the cwd.
    empty = project.run("skill", "install", "--host", "codex", "--scope", "user", CODEX_HOME="")
    assert empty.returncode == 0, empty.stderr
    assert (project.home / ".codex/skills/council/SKILL.md").is_file()
    assert not (project.root / "skills").exists()


def old_codex_prompt(project: Project) -> tuple[Path, Path]:
    """The custom prompt an older council installed for codex, in the user manifest."""
    old = project.home / ".codex/prompts/debate.md"
    old.parent.mkdir(parents=True)
    old.write_text("old /debate\n")
    manifest = project.home / ".local/share/council/installed.json"
    manifest.parent.mkdir(parents=True)
    digest = hashlib.sha256(old.read_bytes()).hexdigest()
    entry = {"host": "codex", "sha256": digest, "base": str(project.home / ".codex")}
    manifest.write_text(json.dumps({"files": {str(old): entry}}))
    return old, manifest


def test_install_removes_the_codex_prompt_an_older_council_wrote(project):
    """Codex 0.169.0 reads no custom prompts: the file an older council installed is dead."""
    old, manifest = old_codex_prompt(project)
    done = project.run("skill", "install", "--host", "codex", "--scope", "user")
    assert done.returncode == 0, done.stderr
    assert "removed ~/.codex/prompts/debate.md: council no longer installs it" in done.stdout
    assert not old.parent.exists() and (project.home / ".codex/skills/council/SKILL.md").is_file()
    assert str(old) not in json.loads(manifest.read_text())["files"]


def test_uninstall_removes_the_codex_prompt_an_older_council_wrote(project):
    old, manifest = old_codex_prompt(project)
    gone = project.run("skill", "uninstall", "--host", "codex", "--scope", "user")
    assert gone.returncode == 0 and "removed ~/.codex/prompts/debate.md" in gone.stdout
    assert not old.exists() and not manifest.exists()


# -- a host model, played by the test ---------------------------------------------------------


def shell(project: Project, script: str) -> subprocess.CompletedProcess:
    """`script` run by a real POSIX shell in the project, as a host's shell tool runs it."""
    return subprocess.run(
        ["/bin/sh", "-c", script],
        cwd=project.root,
        env=project.env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def play(project: Project, installed: Path, args: str, placeholder: str) -> str:
    """Run the shell commands `installed` tells the model to run, in order, as it says, each
    by a real shell: the first starts the run; the second is repeated while it exits 75.
    Returns the last stdout."""
    text = installed.read_text(encoding="utf-8")
    if installed.suffix == ".toml":
        text = tomllib.loads(text)["prompt"]
    start, follow = bash_blocks(text.replace(placeholder, args))
    assert start.startswith("council ") and follow.startswith("council ")
    started = shell(project, start)
    assert started.returncode == 0, started.stderr
    run_id = json.loads(started.stdout)["id"]
    for _ in range(30):
        waited = shell(project, follow.replace("<id>", run_id))
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
    assert (
        start
        == "council review --detach --json --args-stdin <<'COUNCIL_ARGS'\n$ARGUMENTS\nCOUNCIL_ARGS"
    )
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


@pytest.mark.parametrize(
    ("host", "installed", "placeholder"),
    [
        ("claude", ".claude/commands/debate.md", "$ARGUMENTS"),
        ("qwen", ".qwen/commands/debate.toml", "{{args}}"),
    ],
)
def test_a_question_as_typed_reaches_council_verbatim_and_no_shell_runs_any_of_it(
    project, host, installed, placeholder
):
    assert project.run("skill", "install", "--host", host).returncode == 0
    play(
        project, project.root / installed, f"{HOSTILE} --files app.py --sim --rounds 3", placeholder
    )
    result = json.loads((project.record() / "result.json").read_text(encoding="utf-8"))
    assert result["question"] == HOSTILE
    assert result["rounds"]["requested"] == 3
    assert not list(project.root.parent.rglob("pwned*"))


def test_the_codex_review_skill_reaches_the_findings_when_its_example_is_filled_in(project):
    assert project.run("skill", "install", "--host", "codex").returncode == 0
    installed = project.root / ".agents/skills/council-review/SKILL.md"
    out = play(project, installed, "--files app.py --sim", "--diff main")
    assert out.startswith("# REVIEW (SIMULATED): app.py")
