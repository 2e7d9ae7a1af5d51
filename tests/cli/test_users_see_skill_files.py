"""`council skill install` / `uninstall` against a user's own edits (docs/spec/commands.md,
"council skill install"; README, "Slash-commands and an agent skill"): council never
overwrites or removes a file the user changed after council wrote it without `--force`, and
uninstalling one host leaves every other host's files. Tables over the hosts and the files
each gets, in both scopes, as the spec's table lists them."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from council.cli.app import cli
from council.hosts import host_names

CLAUDE = [
    ".claude/commands/debate.md",
    ".claude/commands/review.md",
    ".claude/skills/council/SKILL.md",
]
# host -> (files in the project scope, files in the user scope under HOME), from the spec
FILES = {
    "claude": (
        CLAUDE,
        CLAUDE,
    ),
    "codex": (
        [".agents/skills/council/SKILL.md", ".agents/skills/council-review/SKILL.md"],
        [".codex/skills/council/SKILL.md", ".codex/skills/council-review/SKILL.md"],
    ),
    "gemini": (
        [".gemini/commands/debate.toml", ".gemini/commands/review.toml"],
        [".gemini/commands/debate.toml", ".gemini/commands/review.toml"],
    ),
    "qwen": (
        [".qwen/commands/debate.toml", ".qwen/commands/review.toml"],
        [".qwen/commands/debate.toml", ".qwen/commands/review.toml"],
    ),
}
SCOPES = ("project", "user")
EDIT = "\n# my own line, added after council installed this\n"


class Place:
    """A project and a HOME, council run in the project as the user runs it."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.project, self.home = tmp_path / "project", tmp_path / "home"
        self.project.mkdir()
        self.home.mkdir()
        monkeypatch.chdir(self.project)
        monkeypatch.setenv("HOME", str(self.home))
        for name in ("XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"):
            monkeypatch.delenv(name, raising=False)

    def council(self, *args: str):
        return CliRunner().invoke(cli, ["skill", *args], prog_name="council")

    def files(self, host: str, scope: str) -> list[Path]:
        base = self.project if scope == "project" else self.home
        return [base / f for f in FILES[host][scope == "user"]]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    return Place(tmp_path, monkeypatch)


def test_the_table_has_every_host_council_installs_into():
    assert set(FILES) == set(host_names())


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("host", list(FILES))
def test_uninstalling_one_host_leaves_every_other_host_s_files(place, host, scope):
    assert place.council("install", "--host", "all", "--scope", scope).exit_code == 0
    others = {p: p.read_bytes() for h in FILES if h != host for p in place.files(h, scope)}
    gone = place.council("uninstall", "--host", host, "--scope", scope)
    assert gone.exit_code == 0, gone.output
    assert [p for p in place.files(host, scope) if p.exists()] == []
    assert {p: p.read_bytes() for p in others if p.exists()} == others
    # and council still knows them as its own: `all` removes them later
    rest = place.council("uninstall", "--host", "all", "--scope", scope)
    assert rest.exit_code == 0 and not any(p.exists() for p in others)


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("host", list(FILES))
def test_a_file_the_user_changed_after_council_wrote_it_is_neither_overwritten_nor_removed(
    place, host, scope
):
    assert place.council("install", "--host", host, "--scope", scope).exit_code == 0
    changed, *untouched = place.files(host, scope)
    mine = changed.read_text(encoding="utf-8") + EDIT
    changed.write_text(mine, encoding="utf-8")

    again = place.council("install", "--host", host, "--scope", scope)
    assert again.exit_code == 2, again.output
    assert "not overwriting files council did not write" in again.stderr
    assert str(changed.name) in again.stderr and "--force" in again.stderr
    assert changed.read_text(encoding="utf-8") == mine

    gone = place.council("uninstall", "--host", host, "--scope", scope)
    assert gone.exit_code == 0, gone.output
    assert "changed since council installed it (--force)" in gone.stderr
    assert changed.read_text(encoding="utf-8") == mine
    assert not any(p.exists() for p in untouched)

    forced = place.council("uninstall", "--host", host, "--scope", scope, "--force")
    assert forced.exit_code == 0 and not changed.exists()
