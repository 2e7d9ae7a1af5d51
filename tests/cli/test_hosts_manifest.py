"""`council skill install` / `uninstall` (docs/spec/commands.md, "council skill install";
skill/README.md): what it prints, where the files and council's record of them (the manifest)
go in each scope, the environment that moves a host's directory, files the user changed or
owned first, and what is refused (exit 2, one line, nothing written)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import Result

from ordinary_user import as_ordinary_user
from project import InProcessPlace

CLAUDE_FILES = ["commands/debate.md", "commands/review.md", "skills/council/SKILL.md"]
SKILL = Path(__file__).resolve().parents[2] / "skill"


class Place(InProcessPlace):
    """A project (the current directory, a git top level) and a HOME of its own."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__(tmp_path, monkeypatch)
        (self.root / ".git").mkdir()

    def skill(self, *args: str) -> Result:
        return self.council("skill", *args)

    def ok(self, *args: str) -> Result:
        result = self.skill(*args)
        assert result.exit_code == 0, result.output
        return result

    def manifest(self, scope: str = "project") -> dict[str, dict[str, str]]:
        path = (
            self.root / ".council/installed.json"
            if scope == "project"
            else self.home / ".local/share/council/installed.json"
        )
        return json.loads(path.read_text(encoding="utf-8"))["files"]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    return Place(tmp_path, monkeypatch)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_install_says_each_file_it_wrote_relative_to_the_current_directory(place):
    done = place.ok("install", "--host", "claude")
    assert done.stdout.splitlines()[:3] == [f"wrote .claude/{f}" for f in CLAUDE_FILES]


def test_install_in_the_user_scope_says_each_file_under_home(place):
    done = place.ok("install", "--host", "gemini", "--scope", "user")
    assert done.stdout.splitlines()[:2] == [
        "wrote ~/.gemini/commands/debate.toml",
        "wrote ~/.gemini/commands/review.toml",
    ]


@pytest.mark.parametrize("scope", ["project", "user"])
def test_the_manifest_records_each_file_with_its_host_digest_and_base(place, scope):
    place.ok("install", "--host", "all", "--scope", scope)
    base = place.root if scope == "project" else place.home
    dirs = {
        "claude": ".claude",
        "gemini": ".gemini",
        "qwen": ".qwen",
        "codex": ".agents" if scope == "project" else ".codex",
    }
    recorded = place.manifest(scope)
    assert len(recorded) == 9
    for path_text, entry in recorded.items():
        path = Path(path_text)
        host = entry["host"]
        assert path.is_relative_to(base / dirs[host]), (path, host)
        assert entry["base"] == str(base / dirs[host])
        assert entry["sha256"] == sha256(path)


def test_installed_files_are_byte_for_byte_the_shipped_ones(place):
    place.ok("install", "--host", "claude")
    for name in CLAUDE_FILES:
        shipped = SKILL / "claude" / name
        assert (place.root / ".claude" / name).read_bytes() == shipped.read_bytes()


def test_the_project_scope_is_the_git_top_level_not_the_current_directory(place):
    sub = place.root / "src" / "pkg"
    sub.mkdir(parents=True)
    place.monkeypatch.chdir(sub)
    done = place.ok("install", "--host", "qwen")
    # outside the current directory and HOME: the whole path
    assert done.stdout.splitlines()[0] == f"wrote {place.root / '.qwen/commands/debate.toml'}"
    assert (place.root / ".qwen/commands/debate.toml").is_file()
    assert (place.root / ".council/installed.json").is_file()
    assert not (sub / ".qwen").exists()


def test_claude_config_dir_moves_claudes_user_files(place):
    moved = place.home / "claude-conf"
    place.monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    place.ok("install", "--host", "claude", "--scope", "user")
    assert sorted(str(p.relative_to(moved)) for p in moved.rglob("*") if p.is_file()) == sorted(
        CLAUDE_FILES
    )
    assert not (place.home / ".claude").exists()
    # the project scope ignores it
    place.ok("install", "--host", "claude")
    assert (place.root / ".claude/commands/debate.md").is_file()


def test_a_codex_home_written_with_a_tilde_is_under_home(place):
    # as a shell leaves it when the user quotes it: CODEX_HOME="~/codex-home"
    place.monkeypatch.setenv("CODEX_HOME", "~/codex-home")
    place.ok("install", "--host", "codex", "--scope", "user")
    assert (place.home / "codex-home/skills/council/SKILL.md").is_file()
    assert not (place.root / "~").exists()


def test_an_empty_claude_config_dir_is_claudes_default_place(place):
    place.monkeypatch.setenv("CLAUDE_CONFIG_DIR", "")
    place.ok("install", "--host", "claude", "--scope", "user")
    assert (place.home / ".claude/commands/debate.md").is_file()


def test_the_user_manifest_follows_xdg_data_home_and_an_empty_one_is_unset(place):
    data = place.home / "data"
    place.monkeypatch.setenv("XDG_DATA_HOME", str(data))
    place.ok("install", "--host", "gemini", "--scope", "user")
    assert (data / "council/installed.json").is_file()
    place.monkeypatch.setenv("XDG_DATA_HOME", "")
    place.ok("install", "--host", "qwen", "--scope", "user")
    assert {e["host"] for e in place.manifest("user").values()} == {"qwen"}


@pytest.mark.parametrize("unset", [True, False], ids=["unset", "empty"])
def test_without_home_the_user_scope_is_refused_and_the_project_scope_works(place, unset):
    if unset:
        place.monkeypatch.delenv("HOME")
    else:
        place.monkeypatch.setenv("HOME", "")
    refused = place.skill("install", "--host", "gemini", "--scope", "user")
    assert refused.exit_code == 2
    assert refused.output == (
        "council: HOME is not set: set it, or install into the project (--scope project)\n"
    )
    assert not (place.root / ".gemini").exists()  # not under the current directory either
    place.ok("install", "--host", "gemini", "--scope", "project")
    assert (place.root / ".gemini/commands/debate.toml").is_file()


@pytest.mark.parametrize(
    "text",
    ["not json", "[]", '{"files": []}', '{"files": {"/x": {"host": "claude"}}}', "{}"],
)
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_manifest_council_cannot_read_is_refused_and_nothing_is_written(place, command, text):
    manifest = place.root / ".council/installed.json"
    manifest.parent.mkdir()
    manifest.write_text(text)
    refused = place.skill(command, "--host", "claude")
    assert refused.exit_code == 2
    assert refused.output == (
        f"council: {manifest}: not a manifest council can read; move it away\n"
    )
    assert not (place.root / ".claude").exists() and manifest.read_text() == text


def test_a_directory_where_a_file_goes_is_refused_before_anything_is_written(place):
    (place.root / ".claude/commands/review.md").mkdir(parents=True)
    # without --force it is a file council did not write; with it, still no file can go there
    assert place.skill("install", "--host", "claude").exit_code == 2
    refused = place.skill("install", "--host", "claude", "--force")
    assert refused.exit_code == 2
    assert refused.output == (
        f"council: {place.root / '.claude/commands/review.md'} is a directory where council "
        "would write a file\n"
    )
    assert not (place.root / ".claude/commands/debate.md").exists()
    assert not (place.root / ".council").exists()


def test_a_file_where_a_folder_goes_is_refused_before_anything_is_written(place):
    (place.root / ".gemini").write_text("not a folder\n")
    refused = place.skill("install", "--host", "gemini")
    assert refused.exit_code == 2
    assert refused.output == (
        f"council: cannot write {place.root / '.gemini/commands/debate.toml'}: "
        f"{place.root / '.gemini'} is a file, not a folder\n"
    )
    assert not (place.root / ".council").exists()


def test_a_manifest_folder_council_cannot_write_is_refused_before_any_file(open_project):
    # .council is another user's (as `sudo council skill install` leaves it): the manifest
    # cannot be written, so no command is written either, or uninstall would never find it.
    council_dir = open_project.root / ".council"
    council_dir.mkdir()
    home = open_project.root / "home"
    home.mkdir()
    refused = as_ordinary_user(
        open_project, "skill", "install", "--host", "claude", home=home, foreign=[council_dir]
    )
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr == (
        f"council: cannot write {council_dir / 'installed.json'}: {council_dir} is read-only; "
        "nothing was written\n"
    )
    assert not (open_project.root / ".claude").exists()


def test_an_unknown_host_is_a_usage_error_listing_the_hosts(place):
    refused = place.skill("install", "--host", "vim")
    assert refused.exit_code == 2
    assert "'vim' is not one of 'claude', 'codex', 'gemini', 'qwen', 'all'" in refused.output


def test_uninstall_with_nothing_installed_says_so(place):
    done = place.ok("uninstall", "--host", "claude")
    assert done.stdout == ""
    assert done.stderr == "nothing of council's installed for claude in the project scope\n"
    user = place.ok("uninstall", "--host", "all", "--scope", "user")
    assert user.stderr == "nothing of council's installed for all in the user scope\n"


def test_uninstall_says_each_file_it_removed(place):
    place.ok("install", "--host", "claude")
    gone = place.ok("uninstall", "--host", "claude")
    assert gone.stdout.splitlines() == sorted(f"removed .claude/{f}" for f in CLAUDE_FILES)
    assert gone.stderr == ""


def test_uninstall_in_one_scope_leaves_the_other_scopes_files(place):
    place.ok("install", "--host", "gemini", "--scope", "project")
    place.ok("install", "--host", "gemini", "--scope", "user")
    place.ok("uninstall", "--host", "gemini", "--scope", "user")
    assert not (place.home / ".gemini").exists()
    assert (place.root / ".gemini/commands/debate.toml").is_file()
    place.ok("uninstall", "--host", "gemini", "--scope", "project")
    assert not (place.root / ".gemini").exists()


def test_uninstall_leaves_the_hosts_own_files_and_folders(place):
    settings = place.home / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text("{}\n")
    mine = place.home / ".claude/commands/mine.md"
    mine.parent.mkdir()
    mine.write_text("my command\n")
    place.ok("install", "--host", "claude", "--scope", "user")
    place.ok("uninstall", "--host", "claude", "--scope", "user")
    assert settings.read_text() == "{}\n" and mine.read_text() == "my command\n"
    assert not (place.home / ".claude/skills").exists()  # the folder install made: gone
    assert place.home.is_dir()


def test_uninstalling_everything_removes_the_manifest_and_its_folder(place):
    place.ok("install", "--host", "claude")
    place.ok("install", "--host", "gemini")
    place.ok("uninstall", "--host", "claude")
    assert [e["host"] for e in place.manifest().values()] == ["gemini", "gemini"]
    place.ok("uninstall", "--host", "gemini")
    assert not (place.root / ".council").exists()
    assert sorted(p.name for p in place.root.iterdir()) == [".git"]


def test_install_updates_its_own_unchanged_files_without_force(place):
    # What an older council wrote, recorded with its digest: council's own, so replaced.
    place.ok("install", "--host", "claude")
    target = place.root / ".claude/commands/debate.md"
    target.write_text("an older council's /debate\n")
    manifest = place.root / ".council/installed.json"
    record = json.loads(manifest.read_text())
    record["files"][str(target)]["sha256"] = sha256(target)
    manifest.write_text(json.dumps(record))
    again = place.ok("install", "--host", "claude")
    assert "wrote .claude/commands/debate.md" in again.stdout.splitlines()
    assert target.read_bytes() == (SKILL / "claude/commands/debate.md").read_bytes()
    assert place.manifest()[str(target)]["sha256"] == sha256(target)


def test_install_with_force_over_a_users_file_records_it_as_councils(place):
    theirs = place.root / ".gemini/commands/review.toml"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("my /review\n")
    refused = place.skill("install", "--host", "gemini")
    assert refused.exit_code == 2
    assert refused.stderr == (
        f"council: not overwriting files council did not write: {theirs}; add --force\n"
    )
    assert not (place.root / ".gemini/commands/debate.toml").exists()  # nothing written
    forced = place.ok("install", "--host", "gemini", "--force")
    assert "wrote .gemini/commands/review.toml" in forced.stdout.splitlines()
    assert place.manifest()[str(theirs)]["host"] == "gemini"
    place.ok("uninstall", "--host", "gemini")
    assert not theirs.exists()


def test_a_retired_file_the_user_changed_is_kept_on_install(place):
    old = place.home / ".codex/prompts/debate.md"
    old.parent.mkdir(parents=True)
    old.write_text("old /debate\n")
    manifest = place.home / ".local/share/council/installed.json"
    manifest.parent.mkdir(parents=True)
    entry = {"host": "codex", "sha256": sha256(old), "base": str(place.home / ".codex")}
    manifest.write_text(json.dumps({"files": {str(old): entry}}))
    old.write_text("old /debate, with my own edits\n")
    done = place.ok("install", "--host", "codex", "--scope", "user")
    assert "removed" not in done.stdout
    assert old.read_text() == "old /debate, with my own edits\n"
    assert place.manifest("user")[str(old)] == entry
    kept = place.ok("uninstall", "--host", "codex", "--scope", "user")
    assert kept.stderr == (
        "kept ~/.codex/prompts/debate.md: changed since council installed it (--force)\n"
    )


def test_uninstall_that_keeps_every_file_says_only_what_it_kept(place):
    place.ok("install", "--host", "gemini")
    for name in ("debate", "review"):
        command = place.root / f".gemini/commands/{name}.toml"
        command.write_text(command.read_text() + "# mine\n")
    kept = place.ok("uninstall", "--host", "gemini")
    assert kept.stdout == ""
    assert kept.stderr.splitlines() == [
        f"kept .gemini/commands/{name}.toml: changed since council installed it (--force)"
        for name in ("debate", "review")
    ]
    assert len(place.manifest()) == 2  # still council's record: --force removes them later


def test_a_file_the_user_deleted_is_dropped_from_the_manifest_on_uninstall(place):
    place.ok("install", "--host", "gemini")
    (place.root / ".gemini/commands/debate.toml").unlink()
    gone = place.ok("uninstall", "--host", "gemini")
    assert "removed .gemini/commands/review.toml" in gone.stdout.splitlines()
    assert not (place.root / ".council").exists()


def test_install_all_in_the_user_scope_says_what_each_host_needs_headless(place):
    done = place.ok("install", "--host", "all", "--scope", "user")
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith("to let ")] == [
        f"to let {name} run council headless" for name in ("claude", "codex", "gemini", "qwen")
    ]
    assert [line.split(":")[0] for line in lines if line.startswith("skipped ")] == [
        "skipped kimi",
        "skipped pi",
        "skipped sim",
    ]
    assert sum(line.startswith("wrote ~/") for line in lines) == 9
