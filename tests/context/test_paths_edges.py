"""The edges of the `--files` check (`check_paths`): names that are not UTF-8, files that
cannot be read, every bad path reported whatever kind comes first, the same file given twice,
outside files sharing a base name, and the safe defaults when a caller passes no flag."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from context.tree import write
from council.context import gather_context
from council.context.paths import check_paths, describe_refusals, is_secret_name
from council.errors import UsageError

NOT_UTF8 = os.fsdecode(b"caf\xe9.py")  # the name a shell passes for the bytes `caf\xe9.py`


@pytest.fixture
def root(project: Path) -> Path:
    """The project with two ordinary files, its path resolved (as `gather_context` passes it)."""
    write(project, "a.py", "A = 1\n")
    write(project, "b.py", "B = 2\n")
    return project.resolve()


def refusal(file_args: list[str], cwd: Path, **options) -> str:
    with pytest.raises(UsageError) as caught:
        gather_context(file_args, cwd=cwd, **options)
    return str(caught.value)


def judged(file_args: list[str], root: Path, **options) -> tuple[list[str], str]:
    """The names accepted and the one message for the refused, from the project's top."""
    accepted, refused = check_paths(file_args, cwd=root, root=root, **options)
    return [a.shown for a in accepted], describe_refusals(refused)


def make_unreadable(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mode 000; where the tests run as root (who reads anything), `os.access` answers for
    this file as it would for an ordinary user."""
    path.chmod(0)
    if os.access(path, os.R_OK):
        real_access = os.access
        locked = path.resolve()

        def access(p, mode, *args, **kwargs):
            if Path(p).resolve() == locked:
                return False
            return real_access(p, mode, *args, **kwargs)

        monkeypatch.setattr(os, "access", access)


def test_a_name_that_is_not_utf8_is_refused_and_shown_with_a_replacement_character(root):
    (root / NOT_UTF8).write_text("x = 1\n", encoding="utf-8")
    assert refusal([NOT_UTF8], root) == (
        "cannot use 1 file: caf\ufffd.py: its name is not valid UTF-8 (rename the file)"
    )


def test_a_file_the_user_cannot_read_is_refused_as_permission_denied(root, monkeypatch):
    make_unreadable(write(root, "locked.py", "L = 1\n"), monkeypatch)
    assert refusal(["locked.py"], root) == (
        "cannot use 1 file: locked.py: cannot be read (permission denied)"
    )


def test_a_name_holding_a_nul_character_is_refused_in_one_line_not_raised(root):
    # The MCP server's `files` is JSON, which can carry a NUL a shell cannot.
    assert refusal(["a.py\0.txt", "b.py"], root) == (
        "cannot use 1 file: a.py\\0.txt: holds a NUL character"
    )


def test_a_path_through_a_file_is_refused_with_the_systems_reason(root):
    assert refusal(["a.py/x.py"], root) == (
        "cannot use 1 file: a.py/x.py: cannot be read (Not a directory)"
    )


@pytest.mark.parametrize("kind", ["not utf-8", "symlink loop", "fifo", "unreadable"])
def test_the_paths_after_a_refused_one_are_still_checked(kind, root, monkeypatch):
    if kind == "not utf-8":
        bad = NOT_UTF8
    elif kind == "symlink loop":
        (root / "loop.py").symlink_to(root / "back.py")
        (root / "back.py").symlink_to(root / "loop.py")
        bad = "loop.py"
    elif kind == "fifo":
        os.mkfifo(root / "pipe")
        bad = "pipe"
    else:
        make_unreadable(write(root, "locked.py", "L = 1\n"), monkeypatch)
        bad = "locked.py"
    shown, message = judged([bad, "nope.py", "a.py"], root)
    assert shown == ["a.py"]
    assert message.startswith("cannot use 2 files: ")
    assert message.endswith("; nope.py: no such file")


def test_a_file_given_twice_is_sent_once_under_the_first_name_and_the_rest_still_are(root):
    accepted, refused = check_paths(["./a.py", "a.py", "b.py"], cwd=root, root=root)
    assert refused == []
    assert [(a.given, a.shown) for a in accepted] == [("./a.py", "a.py"), ("b.py", "b.py")]


def test_outside_files_sharing_a_base_name_each_get_their_own_folder(root, tmp_path):
    given = []
    for other in ("one", "two", "three"):
        write(tmp_path / other, "a.py", f"# {other}\n")
        given.append(f"../{other}/a.py")
    accepted, refused = check_paths(given, cwd=root, root=root, allow_outside=True)
    assert refused == []
    assert [a.shown for a in accepted] == ["_outside/a.py", "_outside/2/a.py", "_outside/3/a.py"]


def test_a_caller_passing_no_flag_gets_outside_and_secret_files_refused(root, tmp_path):
    write(tmp_path, "elsewhere/notes.py", "N = 1\n")
    write(root, ".env", "DEBUG=1\n")
    accepted, refused = check_paths(["../elsewhere/notes.py", ".env"], cwd=root, root=root)
    assert accepted == []
    assert [(r.given, r.reason) for r in refused] == [
        ("../elsewhere/notes.py", f"is outside the project root {root}"),
        (".env", "may hold secrets (by its name)"),
    ]


@pytest.mark.parametrize(("name", "glob"), [(".env", "[!.]*"), ("id_rsa", "????")])
def test_without_a_relative_path_only_the_base_name_is_tried_against_the_allow_globs(name, glob):
    # The glob does not cover the name: nothing else may be matched against it in its place.
    assert is_secret_name(name, [glob]) is True


@pytest.mark.parametrize("name", [".netrc", "_netrc", ".pgpass", ".git-credentials"])
def test_the_password_files_of_curl_postgres_and_git_are_refused_by_name(root, name):
    # Their lines are no `key = value`: no redaction grammar would find the password.
    write(root, name, "machine example.com login me password Xr7ZVF-s1Iw9\n")
    assert refusal([name], root) == (
        f"cannot use 1 file: {name}: may hold secrets (by its name) (pass --allow-secrets, "
        "or list it under redact.allow_files)"
    )
