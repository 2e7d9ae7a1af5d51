"""`council skill uninstall --host NAME` takes back that host's files only (README, "Use it
from your IDE"): the other hosts' files stay, and so does council's record of them, so a
later uninstall of those still finds them. Installing again never overwrites a file the user
changed since council wrote it, unless --force."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from project import InProcessPlace


@dataclass(frozen=True)
class Ran:
    returncode: int
    stderr: str


class Project(InProcessPlace):
    """council run in-process (no process per command: these tests run install and
    uninstall a dozen times)."""

    def run(self, *args: str, **env: str) -> Ran:
        result = self.council(*args, **env)
        return Ran(result.exit_code, result.stderr)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    return Project(tmp_path, monkeypatch)


def files_under(root: Path, folder: str) -> list[str]:
    base = root / folder
    return sorted(str(p.relative_to(root)) for p in base.rglob("*") if p.is_file())


def test_uninstalling_one_host_leaves_the_others(project: Project):
    for host in ("claude", "gemini"):
        done = project.run("skill", "install", "--host", host, "--scope", "project")
        assert done.returncode == 0, done.stderr
    gemini = files_under(project.root, ".gemini")
    assert gemini and files_under(project.root, ".claude")
    gone = project.run("skill", "uninstall", "--host", "claude", "--scope", "project")
    assert gone.returncode == 0, gone.stderr
    assert not (project.root / ".claude").exists()
    assert files_under(project.root, ".gemini") == gemini
    again = project.run("skill", "uninstall", "--host", "gemini", "--scope", "project")
    assert again.returncode == 0, again.stderr
    assert not (project.root / ".gemini").exists()


def test_install_again_keeps_a_file_the_user_changed_unless_forced(project: Project):
    assert project.run("skill", "install", "--host", "claude").returncode == 0
    (first, *_) = files_under(project.root, ".claude")
    mine = project.root / first
    mine.write_text(mine.read_text() + "\nMy own note.\n")
    edited = mine.read_text()
    again = project.run("skill", "install", "--host", "claude")
    assert again.returncode == 2
    assert "not overwriting files council did not write: " in again.stderr
    assert str(mine) in again.stderr and again.stderr.rstrip().endswith("; add --force")
    assert mine.read_text() == edited
    assert project.run("skill", "install", "--host", "claude", "--force").returncode == 0
    assert mine.read_text() != edited


def test_the_user_scope_record_follows_xdg_data_home(project: Project, tmp_path: Path):
    # docs/spec/commands.md: the user scope's record is $XDG_DATA_HOME/council/installed.json.
    data = tmp_path / "xdg-data"
    done = project.run(
        "skill", "install", "--host", "claude", "--scope", "user", XDG_DATA_HOME=str(data)
    )
    assert done.returncode == 0, done.stderr
    assert (data / "council" / "installed.json").is_file()
    gone = project.run(
        "skill", "uninstall", "--host", "claude", "--scope", "user", XDG_DATA_HOME=str(data)
    )
    assert gone.returncode == 0, gone.stderr
    assert not (data / "council" / "installed.json").exists()


def test_install_over_identical_files_whose_record_is_gone_goes_through(project: Project):
    # Files copied by hand, or a deleted `.council/installed.json`: a target that already
    # holds exactly what council would write is nothing of the user's to protect.
    assert project.run("skill", "install", "--host", "claude", "--scope", "project").returncode == 0
    written = {p: (project.root / p).read_bytes() for p in files_under(project.root, ".claude")}
    (project.root / ".council" / "installed.json").unlink()
    again = project.run("skill", "install", "--host", "claude", "--scope", "project")
    assert again.returncode == 0, again.stderr
    assert "not overwriting" not in again.stderr
    assert {p: (project.root / p).read_bytes() for p in files_under(project.root, ".claude")} == (
        written
    )
    assert (project.root / ".council" / "installed.json").is_file()  # known again: uninstall works
    gone = project.run("skill", "uninstall", "--host", "claude", "--scope", "project")
    assert gone.returncode == 0, gone.stderr
    assert not (project.root / ".claude").exists()
