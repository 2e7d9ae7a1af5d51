"""The one message that refuses every bad path at once, as the user reads it on stderr: the
count, each path with its reason, the fix in parentheses where a flag or setting lifts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.context import gather_context
from council.errors import UsageError


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "app.py").write_text("A = 1\n", encoding="utf-8")
    return root


def refusal(file_args: list[str], cwd: Path) -> str:
    with pytest.raises(UsageError) as caught:
        gather_context(file_args, cwd=cwd)
    return str(caught.value)


def test_one_refused_path_is_one_file_with_its_reason_and_no_empty_fix(project):
    assert refusal(["nope.py", "app.py"], project) == "cannot use 1 file: nope.py: no such file"


def test_several_refused_paths_are_counted_and_listed_in_order_with_their_fixes(project):
    (project / ".env").write_text("X=1\n", encoding="utf-8")
    message = refusal(["docs", "nope.py", ".env"], project)
    assert message == (
        "cannot use 3 files: docs: is a directory (name the files inside it); "
        "nope.py: no such file; "
        ".env: may hold secrets (by its name) "
        "(pass --allow-secrets, or list it under redact.allow_files)"
    )


def test_a_symlink_loop_is_refused_by_that_name(project):
    (project / "loop.py").symlink_to(project / "back.py")
    (project / "back.py").symlink_to(project / "loop.py")
    assert (
        refusal(["loop.py"], project) == "cannot use 1 file: loop.py: cannot be read (symlink loop)"
    )


def test_an_allow_glob_lifts_only_the_secret_files_it_names(project):
    (project / "config").mkdir()
    (project / "keys").mkdir()
    (project / "config" / "dev.pem").write_text("x\n", encoding="utf-8")
    (project / "keys" / "server.pem").write_text("x\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        gather_context(
            ["config/dev.pem", "keys/server.pem"], cwd=project, allow_files=["config/*.pem"]
        )
    assert str(caught.value).startswith("cannot use 1 file: keys/server.pem: may hold secrets")
    allowed = gather_context(["config/dev.pem"], cwd=project, allow_files=["config/*.pem"])
    assert [f.path for f in allowed.files] == ["config/dev.pem"]
