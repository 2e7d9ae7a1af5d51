"""Where `council adr` writes and under which name (docs/spec/commands.md "council adr",
"Number and name" and "Template"): the decisions directory, the next number and its padding,
the slug, and the template read from the directory's latest numbered record."""

from __future__ import annotations

from pathlib import Path

import pytest

from council.adr.layout import Layout, decisions_dir, layout_of, slug, template_of
from council.errors import UsageError

MADR_FM = "---\nstatus: accepted\n---\n\n# Use X\n\n## Context and Problem Statement\n\nWhy.\n"
MADR_2 = "# Use X\n\n* Status: accepted\n\n## Decision Outcome\n\nChosen option: X.\n"
NYGARD = "# 3. Use X\n\nDate: 2026-01-10\n\n## Status\n\nAccepted\n"


def decisions(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(
    ("existing", "chosen"),
    [
        ((), "docs/decisions"),
        (("docs/adr",), "docs/adr"),
        (("docs/decisions", "docs/adr"), "docs/adr"),
        (("doc/adr", "docs/architecture/decisions"), "doc/adr"),
        (("docs/architecture/decisions",), "docs/architecture/decisions"),
        (("docs/decisions", "doc/adr"), "docs/decisions"),
        (("docs/adr=file", "doc/adr"), "doc/adr"),  # a file of that name is no directory
    ],
)
def test_the_decisions_directory_is_the_first_the_project_has(tmp_path, existing, chosen):
    for each in existing:
        path = tmp_path / each.removesuffix("=file")
        if each.endswith("=file"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("not a directory")
        else:
            path.mkdir(parents=True)
    assert decisions_dir(tmp_path, None) == tmp_path / chosen


def test_a_given_directory_wins_and_is_read_from_the_current_directory(tmp_path):
    (tmp_path / "docs" / "adr").mkdir(parents=True)
    assert decisions_dir(tmp_path, "records") == tmp_path / "records"
    assert decisions_dir(tmp_path, str(tmp_path / "abs")) == tmp_path / "abs"
    (tmp_path / "notes.md").write_text("x")
    with pytest.raises(UsageError) as refused:
        decisions_dir(tmp_path, "notes.md")
    assert str(refused.value) == "notes.md is a file, not a decisions directory; give a directory"


# (the directory's files, the next number, its file name's width, template, front matter)
LAYOUTS = [
    ({}, 1, 4, "madr", True),
    ({"0001-a.md": MADR_FM, "0003-b.md": MADR_FM}, 4, 4, "madr", True),  # a gap
    ({"001-a.md": MADR_2, "002-b.md": MADR_2}, 3, 3, "madr", False),
    ({"1-a.md": NYGARD, "2-b.md": NYGARD}, 3, 1, "nygard", False),
    ({"9-a.md": MADR_FM, "10-b.md": NYGARD}, 11, 1, "nygard", False),  # by number, not name
    ({"0009-a.md": NYGARD, "0010-b.md": MADR_2}, 11, 4, "madr", False),
    ({"0002-a.md": MADR_FM, "0001-b.md": NYGARD}, 3, 4, "madr", True),  # the latest's form
    # Not numbered records: a README, a template, another extension, a directory.
    ({"README.md": NYGARD, "template.md": NYGARD, "0007-x.txt": NYGARD, "0005-y.md/z": "z"},
     1, 4, "madr", True),
    ({"0004-a.md": NYGARD, "README.md": MADR_FM}, 5, 4, "nygard", False),
]  # fmt: skip


@pytest.mark.parametrize(("files", "number", "width", "template", "front"), LAYOUTS)
def test_the_next_record_of_a_directory(tmp_path, files, number, width, template, front):
    directory = decisions(tmp_path / "adr", files) if files else tmp_path / "adr"
    layout = layout_of(directory)
    assert (layout.number, layout.width, layout.template, layout.front_matter) == (
        number,
        width,
        template,
        front,
    )


@pytest.mark.parametrize(
    ("text", "template"),
    [
        (MADR_FM, ("madr", True)),
        (MADR_2, ("madr", False)),
        (MADR_2 + "\n| a | b |\n|---|---|\n\n---\n", ("madr", False)),  # a table, a rule
        ("# X\n\n## Considered Options\n\n* a\n", ("madr", False)),
        ("# X\n\n## decision outcome\n", ("madr", False)),
        (NYGARD, ("nygard", False)),
        ("# Use X\n\n## Status\n\nok\n\n## Context\n\nc\n\n## Decision\n\nd\n", ("nygard", False)),
        ("# Use X\n\n## Status\n\nok\n\n## Context\n\nc\n", ("madr", True)),  # not all three
        ("Just some notes.\n", ("madr", True)),
        ("---\ntitle: x\n---\n# 4. Use X\n", ("nygard", False)),
    ],
)
def test_the_template_of_an_existing_record(text, template):
    assert template_of(text) == template


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Redis or Postgres for sessions?", "redis-or-postgres-for-sessions"),
        ("Café über Ärger", "cafe-uber-arger"),
        ("Use HTTP/2 in v3.1", "use-http-2-in-v3-1"),
        ("  --Why??  ", "why"),
        ("???", "decision"),
        ("", "decision"),
        # Cut at a word within 60 characters.
        ("Should this service cache every user session in Redis or in Postgres or in memory",
         "should-this-service-cache-every-user-session-in-redis-or-in"),
        ("x" * 70, "x" * 60),  # one word longer than that: cut inside it
        ("a" * 29 + " " + "b" * 30 + " c", "a" * 29 + "-" + "b" * 30),  # 60 exactly: kept
    ],
)  # fmt: skip
def test_the_slug_is_the_titles_words(title, expected):
    assert slug(title) == expected
    assert len(slug(title)) <= 60


@pytest.mark.parametrize(
    ("number", "width", "name"),
    [
        (3, 4, "0003-use-x.md"),
        (3, 1, "3-use-x.md"),
        (12, 3, "012-use-x.md"),
        (123, 2, "123-use-x.md"),
    ],
)
def test_the_file_name_is_the_padded_number_and_the_slug(tmp_path, number, width, name):
    layout = Layout(tmp_path, number, width, "madr", front_matter=True)
    assert layout.path("Use X?") == tmp_path / name
