"""`--diff REF`: the redacted diff plus the changed files, secret-named files left out of both,
and git's failures as usage errors."""

from __future__ import annotations

import os
import subprocess

import pytest

from context.tree import git, numbered, write
from council.context import context_json, files_block, gather_context, setup_report
from council.context.git import git_diff
from council.errors import UsageError


def test_the_diff_and_the_changed_files_join_the_context(repo):
    write(repo, "app.py", "def handler(event):\n    return event['body']\n")
    write(repo, "new/module.py", "VALUE = 1\n")
    git(repo, "add", "-N", "new/module.py")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None and "+    return event['body']" in ctx.diff
    assert [f.path for f in ctx.files] == ["app.py", "new/module.py"]
    assert ctx.diff_excerpt is not None and ctx.diff_excerpt.path == "git diff HEAD"
    assert files_block(ctx).startswith("### git diff HEAD\n```diff\ndiff --git a/app.py b/app.py\n")


def test_a_file_both_given_and_changed_is_sent_once_in_the_given_place(repo):
    write(repo, "app.py", "def handler(event):\n    return None\n")
    write(repo, "README.md", "# changed\n")
    ctx = gather_context(["README.md"], cwd=repo, diff_ref="HEAD")
    assert [f.path for f in ctx.files] == ["README.md", "app.py"]


def test_secrets_in_the_diff_are_redacted_by_the_changed_files_grammar(repo):
    write(repo, "deploy.yaml", "db:\n  password: first-Secret-1\n")
    git(repo, "add", "deploy.yaml")
    git(repo, "commit", "-q", "-m", "deploy")
    write(repo, "deploy.yaml", "db:\n  password: second-Secret-2\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None
    assert "first-Secret-1" not in ctx.diff and "second-Secret-2" not in ctx.diff
    assert "+  password: [REDACTED:password]" in ctx.diff
    assert ctx.diff_excerpt is not None and ctx.diff_excerpt.redactions == 2


def test_a_secret_named_changed_file_is_left_out_of_the_diff_with_a_warning(repo):
    write(repo, ".env", "DB_PASSWORD=Changed-Pa55\n")
    git(repo, "add", ".env")
    write(repo, "app.py", "x = 2\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None and ".env" not in ctx.diff and "Changed-Pa55" not in ctx.diff
    assert [f.path for f in ctx.files] == ["app.py"]
    assert "left .env out of the diff: it may hold secrets (--allow-secrets)" in ctx.warnings
    allowed = gather_context([], cwd=repo, diff_ref="HEAD", allow_secrets=True)
    assert allowed.diff is not None and "b/.env" in allowed.diff
    assert "Changed-Pa55" not in allowed.diff  # still redacted


def test_the_diff_counts_toward_the_total_before_the_files(repo):
    write(repo, "app.py", numbered(120))
    ctx = gather_context([], cwd=repo, diff_ref="HEAD", total_lines=100)
    assert ctx.diff_excerpt is not None
    assert (ctx.diff_excerpt.lines_sent, ctx.diff_excerpt.truncated) == (100, True)
    assert ctx.diff is not None and ctx.diff.endswith("the 100-line total was reached ...]")
    assert [f.lines_sent for f in ctx.files] == [0]
    assert ctx.total_lines_sent == 100
    assert ctx.warnings == (
        "git diff HEAD: cut to 100 lines, the 100-line total was reached",
        "app.py: not sent, the 100-line total was reached",
    )


def test_a_diff_of_exactly_the_total_is_sent_whole_with_no_warning_of_its_own(repo):
    write(repo, "app.py", numbered(120))
    size = gather_context([], cwd=repo, diff_ref="HEAD").diff_excerpt.lines_total
    ctx = gather_context([], cwd=repo, diff_ref="HEAD", total_lines=size)
    assert (ctx.diff_excerpt.lines_sent, ctx.diff_excerpt.truncated) == (size, False)
    assert "total was reached" not in ctx.diff
    assert ctx.warnings == (f"app.py: not sent, the {size}-line total was reached",)


def test_the_diff_works_from_a_subdirectory(repo):
    (repo / "sub").mkdir()
    write(repo, "app.py", "x = 3\n")
    ctx = gather_context([], cwd=repo / "sub", diff_ref="HEAD")
    assert [f.path for f in ctx.files] == ["app.py"]


@pytest.mark.parametrize("ref", ["no-such-branch", "--output=/tmp/council-pwned"])
def test_a_bad_ref_is_a_usage_error(repo, ref):
    with pytest.raises(UsageError) as caught:
        gather_context([], cwd=repo, diff_ref=ref)
    assert caught.value.exit_code == 2


def test_outside_a_repository_the_diff_is_a_usage_error(project):
    with pytest.raises(UsageError, match="git diff failed"):
        gather_context([], cwd=project, diff_ref="HEAD")


def test_the_report_and_the_result_say_what_the_diff_sent(repo):
    write(repo, "app.py", "KEY = 'ghp_" + "Zx9" * 12 + "'\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    report = setup_report(ctx)
    assert report[0] == "context: 1 file + git diff HEAD, 9 lines sent, 2 redactions"
    assert report[1] == "  git diff HEAD: 8 lines sent, 1 redaction (github-token 1)"
    data = context_json(ctx)
    assert data["diff"] == {"ref": "HEAD", "lines_sent": 8, "truncated": False, "redactions": 1}
    assert [f["path"] for f in data["files"]] == ["app.py"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand the repository to another user")
def test_a_repository_another_user_owns_is_named_with_gits_own_fix(tmp_path):
    repo = tmp_path / "theirs"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "a.py").write_text("x = 1\n")
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    with pytest.raises(UsageError) as refused:
        git_diff("HEAD", cwd=repo)
    assert str(refused.value) == (
        f"git diff failed: detected dubious ownership in repository at '{repo}'; if you "
        f"trust it: git config --global --add safe.directory {repo}"
    )
