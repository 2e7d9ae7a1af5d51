"""`--args-stdin`: what a user typed after `/debate`, read from stdin and split into words as
a shell splits them, with nothing of it ever expanded or run (docs/spec/commands.md,
"--args-stdin")."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from council.cli.typedargs import split_typed
from project import Project

HOSTILE = "Should we $(touch pwned) `touch pwned2` cache $HOME in * what's the risk?"


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("a b  c\n", ["a", "b", "c"]),
        ('"quoted words" --files a.py', ["quoted words", "--files", "a.py"]),
        ("'single $HOME' x", ["single $HOME", "x"]),
        ('"a \\"b\\" \\$c \\d"', ['a "b" $c \\d']),
        ("a\\ b c", ["a b", "c"]),
        ('"" x', ["", "x"]),
        ("$(rm -rf /) `id` $HOME ~ *.py", ["$(rm", "-rf", "/)", "`id`", "$HOME", "~", "*.py"]),
        ("what's the risk? --rounds 3", ["what's", "the", "risk?", "--rounds", "3"]),
        ("don't and won't", ["don't", "and", "won't"]),
        ("'it's' open", ["'it's'", "open"]),  # a quote left open: whitespace only
        ('say "hi', ["say", '"hi']),
        ("ends \\", ["ends", "\\"]),
        ("line one \\\nline two", ["line", "one", "line", "two"]),
        ("# not a comment", ["#", "not", "a", "comment"]),
    ],
)
def test_typed_arguments_split_as_a_shell_splits_words_and_expand_nothing(typed, words):
    assert split_typed(typed) == words


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def typed(project: Project, text: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        project.argv(*args),
        cwd=project.root,
        env=project.env(),
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_question_typed_with_shell_characters_then_flags_arrives_verbatim(project):
    done = typed(
        project,
        f"{HOSTILE} --files app.py --rounds 3\n",
        "debate",
        "--sim",
        "--json",
        "--args-stdin",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["question"] == HOSTILE and result["rounds"]["requested"] == 3
    saved = json.loads((project.record() / "result.json").read_text(encoding="utf-8"))
    assert saved["question"] == HOSTILE
    assert not list(project.root.parent.rglob("pwned*"))


def test_a_review_takes_its_flags_from_stdin(project):
    done = typed(project, "--files app.py --sim\n", "review", "--json", "--args-stdin")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["schema"] == "council.review/v1"


def test_typed_arguments_are_checked_as_typed_ones(project):
    refused = typed(project, "question --rounds 9\n", "debate", "--sim", "--args-stdin")
    assert refused.returncode == 2 and "--rounds" in refused.stderr
    flag = typed(project, "--files --sim\n", "review", "--args-stdin")
    assert flag.returncode == 2 and "--files" in flag.stderr
    twice = typed(project, "q\n", "debate", "--args-stdin", "--sim", "--args-stdin")
    assert twice.returncode == 2 and "--args-stdin given twice" in twice.stderr


def test_arguments_on_stdin_must_be_utf8(project):
    done = subprocess.run(
        project.argv("debate", "--sim", "--args-stdin"),
        cwd=project.root,
        env=project.env(),
        input=b"caf\xe9?\n",
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2 and b"not UTF-8" in done.stderr


def test_help_names_the_option():
    from click.testing import CliRunner

    from council.cli import cli

    for command in ("debate", "review"):
        shown = CliRunner().invoke(cli, [command, "--help"])
        assert "--args-stdin" in shown.output
