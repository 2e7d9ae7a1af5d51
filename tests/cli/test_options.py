"""`MultiValueOption`: `--files a.py b.py --rounds 3` as in the usage line, plus repeated and
comma-separated forms, pinned on a tiny demo command with click's CliRunner."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from council.cli.options import MultiValueOption


@click.command()
@click.argument("question")
@click.option("--files", cls=MultiValueOption, metavar="F [F ...]", help="Files to share.")
@click.option("--rounds", type=int, default=2)
@click.option("--json", "as_json", is_flag=True)
def demo(question: str, files: tuple[str, ...], rounds: int, as_json: bool) -> None:
    click.echo(f"{question}|{','.join(files)}|{rounds}|{as_json}")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(demo, list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["q", "--files", "a.py", "b.py", "--rounds", "3"], "q|a.py,b.py|3|False"),
        (["q", "--files", "a.py", "--files", "b.py"], "q|a.py,b.py|2|False"),
        (["q", "--files", "a.py,b.py"], "q|a.py,b.py|2|False"),
        (["q", "--files", "a.py,b.py", "c.py", "--json"], "q|a.py,b.py,c.py|2|True"),
        (["q", "--files", "a.py", "b.py", "--files", "c.py,d.py"], "q|a.py,b.py,c.py,d.py|2|False"),
        (["q", "--files=a.py", "b.py"], "q|a.py,b.py|2|False"),
        (["q", "--files", "a.py,", ",b.py"], "q|a.py,b.py|2|False"),
        (["q"], "q||2|False"),
    ],
)
def test_files_collects_every_value_up_to_the_next_option(args, expected):
    assert run(*args) == (0, expected + "\n")


def test_the_usage_line_of_the_spec_parses_as_written():
    code, out = run("question", "--files", "a.py", "b.py", "--rounds", "3")
    assert (code, out) == (0, "question|a.py,b.py|3|False\n")


def test_a_positional_after_the_list_comes_after_a_double_dash():
    assert run("--files", "a.py", "b.py", "--", "the question") == (
        0,
        "the question|a.py,b.py|2|False\n",
    )


def test_the_values_keep_the_order_given_and_are_a_tuple():
    seen = {}

    @click.command()
    @click.option("--files", cls=MultiValueOption)
    def capture(files):
        seen["files"] = files

    CliRunner().invoke(capture, ["--files", "z.py", "a.py", "--files", "m.py"])
    assert seen["files"] == ("z.py", "a.py", "m.py")


def test_files_without_a_value_is_a_usage_error():
    code, out = run("q", "--files")
    assert code == 2
    assert "Option '--files' requires an argument." in out


def test_an_option_right_after_files_is_not_taken_as_a_file():
    code, out = run("q", "--files", "--rounds", "3")
    assert code == 2
    assert "Option '--files' requires an argument." in out


def test_the_help_shows_the_metavar():
    code, out = run("--help")
    assert code == 0
    assert "--files F [F ...]" in out


def test_a_single_value_option_cannot_be_declared():
    with pytest.raises(TypeError):
        MultiValueOption(["--files"], multiple=False)
