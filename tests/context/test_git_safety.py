"""`--diff REF` runs git during CONTEXT, before any seat exists: no program the repository's
configuration names (a textconv filter, an external diff driver) may run, a ref that reads
as an option is refused before git sees it, and the diff reaches the seats as plain text
(docs/spec/protocol.md section 4; context/git.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from context.tree import git, write
from council.context import gather_context
from council.context.git import changed_names, git_diff
from council.errors import UsageError
from council.runner.local import LocalTimeout


def _commit(repo: Path, rel: str, text: str) -> None:
    write(repo, rel, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add {rel}")


def test_a_textconv_filter_the_repository_configures_never_runs(repo, tmp_path):
    ran = tmp_path / "textconv-ran"
    _commit(repo, ".gitattributes", "*.dat diff=conv\n")
    _commit(repo, "table.dat", "old row\n")
    # git runs the filter through the shell with the file's name appended: `cat` keeps the
    # diff the same, `touch` leaves the trace.
    git(repo, "config", "diff.conv.textconv", f"touch {ran}; cat")
    write(repo, "table.dat", "new row\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert not ran.exists()
    assert ctx.diff is not None and "-old row\n+new row" in ctx.diff


@pytest.mark.parametrize(
    "config",
    [
        [("diff.external", "touch {ran}; true")],
        [("diff.drv.command", "touch {ran}; true")],
    ],
    ids=["diff.external", "a diff driver's command"],
)
def test_an_external_diff_program_the_repository_configures_never_runs(repo, tmp_path, config):
    ran = tmp_path / "external-diff-ran"
    _commit(repo, ".gitattributes", "*.py diff=drv\n")
    for key, value in config:
        git(repo, "config", key, value.format(ran=ran))
    write(repo, "app.py", "def handler(event):\n    return None\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert not ran.exists()
    assert ctx.diff is not None and "+    return None" in ctx.diff


@pytest.mark.parametrize("key", ["color.ui", "color.diff"])
def test_the_diff_reaches_the_seats_without_colour_codes_whatever_the_config(repo, key):
    git(repo, "config", key, "always")
    write(repo, "app.py", "def handler(event):\n    return None\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None and "\x1b" not in ctx.diff
    assert "diff --git a/app.py b/app.py\n" in ctx.diff


def test_a_file_with_a_non_ascii_name_is_named_as_written_in_the_diff(repo):
    _commit(repo, "café.py", "x = 1\n")
    write(repo, "café.py", "x = 2\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None and "diff --git a/café.py b/café.py" in ctx.diff
    assert [f.path for f in ctx.files] == ["café.py"]


@pytest.mark.parametrize("take", [git_diff, changed_names], ids=["git_diff", "changed_names"])
@pytest.mark.parametrize("form", ["--output={out}", "-o{out}", "--output", ""])
def test_a_ref_that_reads_as_an_option_is_refused_before_git_runs(repo, tmp_path, take, form):
    out = tmp_path / "written-by-git"
    ref = form.format(out=out)
    with pytest.raises(UsageError) as refused:
        take(ref, cwd=repo)
    assert str(refused.value) == f"--diff {ref!r}: a git revision cannot start with '-'"
    assert refused.value.exit_code == 2
    assert not out.exists()


def test_a_debate_given_an_option_for_a_ref_writes_no_file(repo, tmp_path):
    out = tmp_path / "written-by-git"
    write(repo, "app.py", "x = 2\n")
    with pytest.raises(UsageError, match="a git revision cannot start with '-'"):
        gather_context([], cwd=repo, diff_ref=f"--output={out}")
    assert not out.exists()


def test_an_unknown_ref_is_named_in_gits_own_words(repo):
    with pytest.raises(UsageError) as refused:
        gather_context([], cwd=repo, diff_ref="no-such-branch")
    message = str(refused.value)
    assert message.startswith("git diff failed: ")
    assert "no-such-branch" in message and "fatal:" not in message


def test_without_git_on_path_the_diff_names_what_is_missing(repo, monkeypatch):
    monkeypatch.setenv("PATH", str(repo / "no-bin-here"))
    with pytest.raises(UsageError) as refused:
        gather_context([], cwd=repo, diff_ref="HEAD")
    assert str(refused.value) == "--diff needs git, which is not on PATH"


def test_the_diff_against_an_older_commit_holds_every_change_since(repo):
    first = git(repo, "rev-parse", "HEAD").strip()
    _commit(repo, "lib.py", "VALUE = 1\n")
    write(repo, "app.py", "def handler(event):\n    return 2\n")
    ctx = gather_context([], cwd=repo, diff_ref=first)
    assert ctx.diff is not None
    assert "+VALUE = 1" in ctx.diff and "+    return 2" in ctx.diff
    assert [f.path for f in ctx.files] == ["app.py", "lib.py"]
    assert ctx.diff_ref == first


def test_a_deleted_file_is_in_the_diff_but_not_among_the_files(repo):
    (repo / "README.md").unlink()
    write(repo, "app.py", "x = 1\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None and "-# demo" in ctx.diff
    assert [f.path for f in ctx.files] == ["app.py"]
    assert ctx.warnings == ()  # a deletion is no file that could not be shared


def test_an_unchanged_tree_gives_an_empty_diff_and_says_so(repo):
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert (ctx.diff, ctx.files) == ("", ())
    assert ctx.warnings == ("git diff HEAD is empty: nothing changed against HEAD",)


def test_a_secret_named_file_deep_in_the_tree_is_left_out_by_its_base_name(repo):
    write(repo, "deploy/prod/server.key", "KEYDATA-Zq81\n")
    write(repo, "app.py", "x = 2\n")
    git(repo, "add", "-N", "deploy/prod/server.key")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None and "server.key" not in ctx.diff and "KEYDATA" not in ctx.diff
    assert ctx.warnings == (
        "left deploy/prod/server.key out of the diff: it may hold secrets (--allow-secrets)",
    )
    allowed = gather_context([], cwd=repo, diff_ref="HEAD", allow_files=["deploy/prod/server.key"])
    assert allowed.diff is not None and "b/deploy/prod/server.key" in allowed.diff
    assert [f.path for f in allowed.files] == ["app.py", "deploy/prod/server.key"]


def test_a_changed_dotenv_in_a_subdirectory_is_left_out_of_the_diff(repo):
    _commit(repo, "services/api/.env", "API_TOKEN=Zq81-first\n")
    write(repo, "services/api/.env", "API_TOKEN=Zq81-second\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff == ""
    assert ctx.warnings == (
        "left services/api/.env out of the diff: it may hold secrets (--allow-secrets)",
        "git diff HEAD is empty: nothing changed against HEAD",
    )


def test_a_git_that_hangs_is_named_with_its_command_and_the_limit(repo, monkeypatch):
    def hangs(argv, **kwargs):
        raise LocalTimeout

    monkeypatch.setattr("council.context.git.run_local", hangs)
    with pytest.raises(UsageError) as refused:
        gather_context([], cwd=repo, diff_ref="HEAD")
    assert str(refused.value) == "git diff --name-only took over 30s"
