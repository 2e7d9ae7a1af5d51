"""The after-call check of the user's project (context/guard.py): what changed of each path
(its content, its mode, its times), who is named for it, and what is never a seat's change
(council's own stdout and stderr in the project)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anyio
import pytest

from council.context.guard import CONTENT, MODE, TIMES, ProjectGuard, Seen

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("x = 1\n")
    (root / "README.md").write_text("# app\n")
    (root / "lib.py").write_text("y = 2\n")
    for argv in (["init", "-q"], ["add", "."], ["commit", "-qm", "start"]):
        subprocess.run([*GIT, *argv], cwd=root, check=True, capture_output=True)
    return root


def changes(guard: ProjectGuard, act) -> dict[str, set[str]]:
    before = guard.snapshot()
    act()
    return guard.snapshot().changed_since(before)


def later(path: Path) -> None:
    """Set a file's times a minute on, as `touch` would at a later moment."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns + 60 * 10**9, info.st_mtime_ns + 60 * 10**9))


def test_a_write_to_a_tracked_file_that_was_not_given_is_a_content_change(repo):
    guard = ProjectGuard(repo, ["app.py"])
    found = changes(guard, lambda: (repo / "lib.py").write_text("y = 3\n"))
    assert found == {"lib.py": {CONTENT}}


def test_a_same_size_write_to_a_given_file_is_a_content_change(repo):
    guard = ProjectGuard(repo, ["app.py"])
    found = changes(guard, lambda: (repo / "app.py").write_text("x = 2\n"))
    assert found == {"app.py": {CONTENT}}


@pytest.mark.parametrize("name", ["app.py", "lib.py"])  # given, and tracked only
def test_a_chmod_is_a_mode_change_not_a_content_change(repo, name):
    guard = ProjectGuard(repo, ["app.py"])
    found = changes(guard, lambda: (repo / name).chmod(0o755))
    assert found == {name: {MODE}}


@pytest.mark.parametrize("name", ["app.py", "README.md"])  # given, and tracked only
def test_a_touch_is_a_change_of_times_only(repo, name):
    guard = ProjectGuard(repo, ["app.py"])
    found = changes(guard, lambda: later(repo / name))
    assert found == {name: {TIMES}}


def test_a_new_file_and_a_deleted_one_are_content_changes(repo):
    guard = ProjectGuard(repo, ["app.py"])

    def act() -> None:
        (repo / "evil.txt").write_text("HACKED\n")
        (repo / "lib.py").unlink()

    assert changes(guard, act) == {"evil.txt": {CONTENT}, "lib.py": {CONTENT}}


def test_without_git_the_given_files_are_still_checked_for_all_three(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text("v = 1\n")
    guard = ProjectGuard(root, ["a.py", "b.py", "c.py"])

    def act() -> None:
        (root / "a.py").write_text("v = 2\n")
        (root / "b.py").chmod(0o600)
        later(root / "c.py")

    assert changes(guard, act) == {"a.py": {CONTENT}, "b.py": {MODE}, "c.py": {TIMES}}


def test_councils_own_output_file_in_the_project_is_never_a_change(repo):
    # `council debate ... 2> log.txt`: the file grows with every progress line
    log = repo / "log.txt"
    log.write_text("")
    guard = ProjectGuard(repo, ["app.py", "log.txt"])
    info = log.stat()
    guard.own_outputs = {(info.st_dev, info.st_ino)}
    assert changes(guard, lambda: log.write_text("[00:01] PROPOSAL advocate ok\n")) == {}
    # anything else still is
    assert changes(guard, lambda: (repo / "app.py").write_text("x = 22\n")) == {"app.py": {CONTENT}}


def test_unconfined_every_change_is_put_to_the_seats_whose_calls_were_in_flight():
    seen = Seen({"app.py": {CONTENT}, "lib.py": {MODE}}, others=["proxy-qwen"], confined=False)
    assert seen.warning("critic") == (
        "the project changed during critic's call (calls of proxy-qwen overlapped it): "
        "app.py, lib.py (mode)"
    )


def test_confined_a_content_change_is_put_outside_council_and_a_mode_change_to_the_seat():
    seen = Seen(
        {"app.py": {MODE}, "notes.md": {CONTENT}, "README.md": {TIMES}},
        others=[],
        confined=True,
    )
    assert seen.warning("critic") == (
        "file modes or times in the project changed during critic's call: app.py (mode), "
        "README.md (times); the project changed during the run, outside council (write "
        "confinement stops every seat's writes): notes.md"
    )


def test_confined_a_content_change_alone_names_no_seat():
    seen = Seen({"notes.md": {CONTENT}}, others=["advocate"], confined=True)
    warning = seen.warning("critic")
    assert warning is not None and "critic" not in warning and "advocate" not in warning


def test_a_renamed_file_is_reported_under_both_names(repo):
    guard = ProjectGuard(repo, ["app.py"])

    def act() -> None:
        subprocess.run([*GIT, "mv", "lib.py", "lib2.py"], cwd=repo, check=True)

    assert changes(guard, act) == {"lib.py": {CONTENT}, "lib2.py": {CONTENT}}


def test_a_warning_names_ten_paths_and_counts_the_rest():
    seen = Seen({f"f{i:02}.py": {CONTENT} for i in range(12)}, confined=False)
    assert seen.warning("critic") == (
        "the project changed during critic's call: "
        + ", ".join(f"f{i:02}.py" for i in range(10))
        + " (+2 more)"
    )
    assert Seen({}, confined=False).warning("critic") is None


def test_a_call_is_never_said_to_overlap_itself_only_the_calls_still_running(repo):
    guard = ProjectGuard(repo, ["app.py"])

    async def calls() -> tuple[list[str], list[str]]:
        async with guard.watch("advocate") as outer, guard.watch("critic") as inner:
            (repo / "lib.py").write_text("y = 4\n")
        return inner.others, outer.others

    inner, outer = anyio.run(calls)
    assert (inner, outer) == (["advocate"], [])
