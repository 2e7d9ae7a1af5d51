"""`council skill install` / `uninstall` on their second paths (docs/spec/commands.md, "council
skill install"; README, "Slash-commands and an agent skill"): a refusal names every file
council did not write and writes nothing for any host; hosts installed one after another
are all remembered; each host's headless setting says what the README's table says; and the
codex review skill tells its model the same steps and rules as the other hosts' `/review`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.test_hosts_manifest import Place
from council.hosts import skill_dir

SKILL = skill_dir()


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    return Place(tmp_path, monkeypatch)


def test_a_refusal_names_every_file_council_did_not_write_and_writes_nothing(place):
    theirs = [place.root / ".claude/commands/debate.md", place.root / ".qwen/commands/review.toml"]
    for path in theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's own\n")
    refused = place.skill("install", "--host", "all")
    assert refused.exit_code == 2
    assert refused.output == (
        f"council: not overwriting files council did not write: {theirs[0]}, {theirs[1]}; "
        "add --force\n"
    )
    written = sorted(str(p.relative_to(place.root)) for p in place.root.rglob("*") if p.is_file())
    assert written == [".claude/commands/debate.md", ".qwen/commands/review.toml"]


def test_hosts_installed_one_after_another_are_all_remembered_and_removed(place):
    place.ok("install", "--host", "gemini")
    place.ok("install", "--host", "claude")
    assert {entry["host"] for entry in place.manifest().values()} == {"gemini", "claude"}
    gone = place.ok("uninstall", "--host", "gemini")
    assert sorted(gone.stdout.splitlines()) == [
        "removed .gemini/commands/debate.toml",
        "removed .gemini/commands/review.toml",
    ]
    assert (place.root / ".claude/commands/debate.md").is_file()
    assert {entry["host"] for entry in place.manifest().values()} == {"claude"}


def test_a_kept_file_stays_in_the_manifest_and_a_forced_uninstall_removes_it(place):
    place.ok("install", "--host", "qwen")
    changed = place.root / ".qwen/commands/debate.toml"
    changed.write_text(changed.read_text() + "# mine\n")
    kept = place.ok("uninstall", "--host", "qwen")
    assert kept.stdout == "removed .qwen/commands/review.toml\n"
    assert kept.stderr == (
        "kept .qwen/commands/debate.toml: changed since council installed it (--force)\n"
    )
    assert list(place.manifest()) == [str(changed)]
    forced = place.ok("uninstall", "--host", "qwen", "--force")
    assert forced.stdout == "removed .qwen/commands/debate.toml\n"
    assert not changed.exists() and not (place.root / ".qwen").exists()
    assert not (place.root / ".council").exists()


# What the README's table (and docs/spec/commands.md) says each host needs headless.
HEADLESS = {
    "claude": ['claude -p ... --allowedTools "Bash(council:*)"'],
    "codex": ["codex exec --sandbox danger-full-access", "workspace-write", "--sim only"],
    "gemini": [
        "~/.gemini/policies/council.toml",
        'toolName = "run_shell_command"',
        'commandPrefix = "council"',
        'decision = "allow"',
        "allowRedirection = true",
        "--skip-trust",
    ],
    "qwen": ["--approval-mode yolo", "in a sandbox", '"run_shell_command(council)"'],
}


@pytest.mark.parametrize("host", sorted(HEADLESS))
def test_install_prints_the_headless_setting_the_readme_gives_each_host(place, host):
    lines = place.ok("install", "--host", host, "--scope", "user").stdout.splitlines()
    prefix = f"to let {host} run council headless: "
    (line,) = [line for line in lines if line.startswith("to let ")]
    assert line.startswith(prefix)
    for words in HEADLESS[host]:
        assert words in line, words


def _after_the_start(relative: str) -> str:
    """What the file says from the started run's output on: its exit codes, steps, rules."""
    text = (SKILL / relative).read_text(encoding="utf-8")
    return " ".join(text[text.index("It prints") :].split())


def _start_command(relative: str) -> str:
    text = (SKILL / relative).read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.*?)\n", text)[0]


def test_the_codex_review_skill_tells_the_same_steps_and_rules_as_the_review_command():
    codex, claude = "codex/skills/council-review/SKILL.md", "claude/commands/review.md"
    assert _after_the_start(codex) == _after_the_start(claude)
    assert (
        _start_command(codex)
        == _start_command(claude)
        == ("council review --detach --json --args-stdin <<'COUNCIL_ARGS'")
    )
    text = _after_the_start(codex)
    for rule in ("council wait <id> --timeout 100", "Exit 3", "Exit 75", "Exit 6", "saved:"):
        assert rule in text, rule


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_manifest_that_is_a_folder_is_refused_and_nothing_is_written(place, command):
    manifest = place.root / ".council/installed.json"
    manifest.mkdir(parents=True)
    refused = place.skill(command, "--host", "claude")
    assert refused.exit_code == 2
    assert refused.output == (
        f"council: {manifest}: cannot read council's manifest (Is a directory)\n"
    )
    assert not (place.root / ".claude").exists() and manifest.is_dir()
