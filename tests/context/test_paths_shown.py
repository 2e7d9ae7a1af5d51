"""Which directory is the project root, the name a shared file is shown under, and the
relative paths a room accepts (context/paths.py; docs/spec/protocol.md section 4)."""

from __future__ import annotations

import pytest

from context.tree import write
from council.context import gather_context
from council.context.paths import find_root, safe_relative
from council.errors import UsageError


def test_a_git_worktree_whose_dot_git_is_a_file_is_the_root(tmp_path):
    root = tmp_path / "wt"
    write(root, ".git", "gitdir: /elsewhere/.git/worktrees/wt\n")
    write(root, "pkg/deep/mod.py", "x = 1\n")
    assert find_root(root / "pkg" / "deep") == root.resolve()
    ctx = gather_context(["mod.py"], cwd=root / "pkg" / "deep")
    assert [f.path for f in ctx.files] == ["pkg/deep/mod.py"]


def test_the_nearest_git_top_level_above_is_the_root(tmp_path):
    (tmp_path / "outer" / ".git").mkdir(parents=True)
    (tmp_path / "outer" / "inner" / ".git").mkdir(parents=True)
    (tmp_path / "outer" / "inner" / "src").mkdir()
    assert find_root(tmp_path / "outer" / "inner" / "src") == (tmp_path / "outer" / "inner")


def test_a_link_inside_the_project_is_shown_by_the_name_typed(project):
    write(project, "pkg/real.py", "x = 1\n")
    (project / "alias.py").symlink_to(project / "pkg" / "real.py")
    (alias,) = gather_context(["alias.py"], cwd=project).files
    assert (alias.path, alias.text) == ("alias.py", "x = 1")


def test_a_file_named_from_outside_the_root_by_an_absolute_path_is_shown_relative(project):
    write(project, "pkg/a.py", "x = 1\n")
    (a,) = gather_context([str(project / "pkg" / "a.py")], cwd=project / "pkg").files
    assert a.path == "pkg/a.py"


@pytest.mark.parametrize("shown", ["/etc/passwd", "../x.py", "a/../../x.py", "", "."])
def test_a_path_that_could_leave_a_room_is_not_a_safe_relative_path(shown):
    with pytest.raises(ValueError, match="not a safe relative path"):
        safe_relative(shown)


def test_a_plain_relative_path_is_safe():
    assert str(safe_relative("pkg/a.py")) == "pkg/a.py"
    assert str(safe_relative("_outside/2/a.py")) == "_outside/2/a.py"


@pytest.mark.parametrize(
    "name",
    ["id_dsa", "id_ecdsa", "id_ecdsa.pub", "id_ed25519", "ID_ED25519_SK", "cert.p12", "Cert.PFX"],
)
def test_the_other_ssh_and_pkcs12_key_files_are_refused_by_name(project, name):
    write(project, f"keys/{name}", "key material\n")
    with pytest.raises(UsageError) as refused:
        gather_context([f"keys/{name}"], cwd=project)
    assert str(refused.value) == (
        f"cannot use 1 file: keys/{name}: may hold secrets (by its name) "
        "(pass --allow-secrets, or list it under redact.allow_files)"
    )
    allowed = gather_context([f"keys/{name}"], cwd=project, allow_secrets=True)
    assert [f.path for f in allowed.files] == [f"keys/{name}"]
