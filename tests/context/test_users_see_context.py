"""What a user reads of the context: the setup report's lines, `context.md`, the result's
`context` object, the warnings, the fence languages and the caps at their edges
(docs/spec/protocol.md section 4, docs/spec/outputs.md)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from context.tree import git, numbered, write
from council.context import (
    context_json,
    files_block,
    gather_context,
    render_context_md,
    setup_report,
)
from council.context.files import LINE_CHARS, language_of
from council.context.model import FileExcerpt, RunContext

# -- the fence's language, by file name ------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("a.py", "python"),
        ("stubs/a.pyi", "python"),
        ("web/app.js", "javascript"),
        ("web/app.mjs", "javascript"),
        ("web/App.jsx", "jsx"),
        ("web/app.ts", "typescript"),
        ("web/App.tsx", "tsx"),
        ("main.go", "go"),
        ("lib.rs", "rust"),
        ("Main.java", "java"),
        ("App.kt", "kotlin"),
        ("app.rb", "ruby"),
        ("index.php", "php"),
        ("Program.cs", "csharp"),
        ("x.c", "c"),
        ("x.h", "c"),
        ("x.cpp", "cpp"),
        ("run.sh", "bash"),
        ("q.sql", "sql"),
        ("README.md", "markdown"),
        ("docs/README.MD", "markdown"),
        ("data.json", "json"),
        ("ci.yaml", "yaml"),
        (".github/workflows/ci.yml", "yaml"),
        ("pyproject.toml", "toml"),
        ("setup.cfg", "ini"),
        ("page.html", "html"),
        ("main.tf", "hcl"),
        ("Dockerfile", "dockerfile"),
        ("deploy/Dockerfile", "dockerfile"),
        ("Makefile", "makefile"),
        ("justfile", "makefile"),
        (".env", "dotenv"),
        (".env.local", "dotenv"),
        ("deploy/prod.env", "dotenv"),
        ("notes.txt", ""),
        ("LICENSE", ""),
    ],
)
def test_each_file_is_fenced_in_its_language(path, language):
    assert language_of(path) == language


# -- the setup report ------------------------------------------------------------------------


def test_one_file_one_line_and_no_redaction_are_said_in_the_singular(project):
    write(project, "a.txt", "hello\n")
    report = setup_report(gather_context(["a.txt"], cwd=project))
    assert report[:2] == ["context: 1 file, 1 line sent, 0 redactions", "  a.txt: 1 line sent"]


def test_without_technical_facts_the_report_says_none(project):
    write(project, "a.txt", "hello\nworld\n")
    report = setup_report(gather_context(["a.txt"], cwd=project))
    assert report[-2:] == ["technical context (0 lines):", "  (none)"]


def test_the_redaction_kinds_of_a_file_are_listed_by_name_with_their_counts(project):
    write(
        project,
        "deploy.yaml",
        "db:\n  password: Hunter2-Secret9\n  api_key: 9f8e7d6c5b4a39281706f5e4\n"
        "cache:\n  password: An0ther-Secret-7\n",
    )
    report = setup_report(gather_context(["deploy.yaml"], cwd=project))
    assert report[1] == "  deploy.yaml: 5 lines sent, 3 redactions (api-key 1, password 2)"
    assert report[0] == "context: 1 file, 5 lines sent, 3 redactions"


def test_a_cut_diff_counts_as_truncated_in_the_report(repo):
    write(repo, "app.py", numbered(50))
    ctx = gather_context([], cwd=repo, diff_ref="HEAD", total_lines=20)
    report = setup_report(ctx)
    assert report[0] == "context: 1 file + git diff HEAD, 20 lines sent, 2 truncated, 0 redactions"
    assert report[1] == "  git diff HEAD: 20 of 57 lines sent (truncated)"
    assert report[2] == "  app.py: 0 of 50 lines sent (truncated)"


def test_a_redaction_in_the_diff_counts_in_the_report_total(repo):
    write(repo, "app.py", "KEY = 'ghp_" + "Zx9" * 12 + "'\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.total_redactions == 2  # once in the diff, once in the file
    assert context_json(ctx)["files"][0]["redactions"] == 1


# -- context.md ------------------------------------------------------------------------------


def test_context_md_of_a_run_without_files_says_so(project):
    md = render_context_md(gather_context([], cwd=project))
    assert md == (
        "# Context\n\n## Technical context\n\n(none)\n\n## Files\n\n(no files were given)\n"
    )


def test_context_md_lists_every_warning_as_a_bullet(project):
    (project / "a.bin").write_bytes(b"\0\1")
    write(project, "long.txt", "y" * (LINE_CHARS + 5) + "\n")
    md = render_context_md(gather_context(["a.bin", "long.txt"], cwd=project))
    assert md.endswith(
        "## Warnings\n\n- skipped a.bin: binary file\n"
        f"- long.txt: 1 line(s) cut at {LINE_CHARS:,} characters\n"
    )


def test_an_empty_file_is_an_empty_fence_in_context_md(project):
    write(project, "empty.py", "")
    block = files_block(gather_context(["empty.py"], cwd=project))
    assert block == "### empty.py\n```python\n```\n"


# -- the caps at their edges -----------------------------------------------------------------


def test_a_line_of_exactly_the_limit_is_sent_whole_and_one_more_is_cut(project):
    write(project, "edge.txt", "a" * LINE_CHARS + "\n" + "b" * (LINE_CHARS + 1) + "\n")
    ctx = gather_context(["edge.txt"], cwd=project)
    (edge,) = ctx.files
    first, second = edge.text.split("\n")
    assert first == "a" * LINE_CHARS
    assert second == "b" * LINE_CHARS + " [... 1 more characters of this line left out ...]"
    assert edge.truncated and edge.lines_sent == 2
    assert ctx.warnings == (f"edge.txt: 1 line(s) cut at {LINE_CHARS:,} characters",)
    assert edge.room_text == "a" * LINE_CHARS + "\n" + "b" * (LINE_CHARS + 1) + "\n"


def test_a_long_line_in_the_diff_is_cut_too(repo):
    write(repo, "app.py", "x = '" + "q" * 3000 + "'\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert ctx.diff is not None
    # The cut counts the diff's own `+` column: 3,007 characters, 1,007 left out.
    cut = (
        "+x = '" + "q" * (LINE_CHARS - 6) + " [... 1,007 more characters of this line left out ...]"
    )
    assert cut in ctx.diff.split("\n")


def test_a_file_that_exactly_fills_what_is_left_of_the_total_is_sent_whole(project):
    write(project, "a.py", numbered(60))
    write(project, "b.py", numbered(40))
    write(project, "c.py", numbered(5))
    ctx = gather_context(["a.py", "b.py", "c.py"], cwd=project, total_lines=100)
    _, b, c = ctx.files
    assert (b.lines_sent, b.truncated, b.text.split("\n")[-1]) == (40, False, "line 40")
    assert (c.lines_sent, c.truncated) == (0, True)
    assert c.text == "[... 5 more lines not sent: the 100-line total was reached ...]"
    assert ctx.warnings == ("c.py: not sent, the 100-line total was reached",)


def test_the_total_cut_keeps_the_files_order_given(project):
    write(project, "a.py", numbered(30, "a"))
    write(project, "b.py", numbered(30, "b"))
    ctx = gather_context(["b.py", "a.py"], cwd=project, total_lines=40)
    assert [(f.path, f.lines_sent) for f in ctx.files] == [("b.py", 30), ("a.py", 10)]
    assert ctx.files[1].text.split("\n")[-2:] == [
        "a 10",
        "[... 20 more lines not sent: the 40-line total was reached ...]",
    ]


def test_a_file_of_exactly_the_read_limit_is_read(project, monkeypatch):
    monkeypatch.setattr("council.context.files.MAX_READ_BYTES", 10)
    write(project, "ten.txt", "123456789\n")
    write(project, "eleven.txt", "1234567890\n")
    ctx = gather_context(["ten.txt", "eleven.txt"], cwd=project)
    assert [f.path for f in ctx.files] == ["ten.txt"]
    assert len(ctx.warnings) == 1 and ctx.warnings[0].startswith("skipped eleven.txt: ")


def test_a_bom_is_dropped_and_a_last_line_without_newline_still_counts(project):
    (project / "a.txt").write_bytes(b"\xef\xbb\xbffirst\nlast")
    (a,) = gather_context(["a.txt"], cwd=project).files
    assert (a.text, a.lines_total) == ("first\nlast", 2)
    (project / "b.txt").write_bytes(b"first\n\n")
    (b,) = gather_context(["b.txt"], cwd=project).files
    assert (b.text, b.lines_total) == ("first\n", 2)


# -- grammar follows the real file -----------------------------------------------------------


def test_a_link_to_a_yaml_file_is_redacted_by_the_yaml_rules(project):
    write(project, "conf/db.yaml", "db:\n  password: plainword\n")
    (project / "db-settings.txt").symlink_to(project / "conf" / "db.yaml")
    (linked,) = gather_context(["db-settings.txt"], cwd=project).files
    assert linked.path == "db-settings.txt"
    assert linked.text == "db:\n  password: [REDACTED:password]"


# -- the diff's changed files that cannot be shared ------------------------------------------


def test_a_changed_link_leading_out_of_the_project_is_left_out_with_a_warning(repo, tmp_path):
    target = write(tmp_path, "elsewhere/notes.py", "x = 1\n")
    os.symlink(target, repo / "notes.py")
    git(repo, "add", "notes.py")
    write(repo, "app.py", "x = 2\n")
    ctx = gather_context([], cwd=repo, diff_ref="HEAD")
    assert [f.path for f in ctx.files] == ["app.py"]
    assert ctx.warnings == (
        f"left out changed file notes.py: points outside the project root {repo.resolve()}",
    )


def test_a_changed_file_from_a_subdirectory_run_keeps_its_secret_file_out(repo):
    (repo / "sub").mkdir()
    write(repo, ".env", "DB_PASSWORD=Zq81-changed\n")
    git(repo, "add", ".env")
    write(repo, "app.py", "x = 2\n")
    ctx = gather_context([], cwd=repo / "sub", diff_ref="HEAD")
    assert ctx.diff is not None and "Zq81" not in ctx.diff and "b/.env" not in ctx.diff
    assert "left .env out of the diff: it may hold secrets (--allow-secrets)" in ctx.warnings


# -- a saved context -------------------------------------------------------------------------


def test_a_saved_context_with_fields_of_a_later_version_still_loads(tmp_path: Path):
    ctx = RunContext(
        root=tmp_path,
        files=(FileExcerpt("a.py", "x", 1, 1, False, 0),),
        diff=None,
        technical=("- Stack: Python",),
        warnings=(),
    )
    saved = {**ctx.to_json(), "added_later": 1}
    assert RunContext.from_json(saved) == ctx


def test_a_file_that_fails_to_read_is_skipped_with_the_systems_reason(project, monkeypatch):
    write(project, "a.py", "x = 1\n")
    write(project, "b.py", "y = 2\n")

    def failing(path: Path) -> str:
        if path.name == "a.py":
            raise OSError(errno.EIO, "Input/output error")
        return path.read_text(encoding="utf-8")

    monkeypatch.setattr("council.context.gather.read_text", failing)
    ctx = gather_context(["a.py", "b.py"], cwd=project)
    assert [f.path for f in ctx.files] == ["b.py"]
    assert ctx.warnings == ("skipped a.py: cannot be read (Input/output error)",)
