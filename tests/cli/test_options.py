"""`MultiValueOption`: `--files a.py b.py --rounds 3` as in the usage line, plus repeated and
comma-separated forms, pinned on a tiny demo command with click's CliRunner."""

from __future__ import annotations

from dataclasses import dataclass

import click
import pytest
from click.testing import CliRunner

from council.cli.options import MultiValueOption, flag_options
from council.options import option, switch


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
        (["q", "--files", "a.py", "b.py", "c.py", "--rounds", "3"], "q|a.py,b.py,c.py|3|False"),
        (["q", "--files", "a", "b", "c", "d", "e"], "q|a,b,c,d,e|2|False"),  # to the end
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


@dataclass(frozen=True, kw_only=True)
class DemoFlags:
    files: tuple[str, ...] = option("--files", "Files", default=(), several=True)
    proxies: tuple[str, ...] | None = option("--with", "Proxies", metavar="CLI[,CLI...]")
    models: tuple[str, ...] = option(
        "--model", "Model per CLI", default=(), pair=":", example=("codex", "gpt-5.2")
    )
    rounds: int | None = option("--rounds", "Rounds, {range}", low=2, high=5)
    cost: float | None = option("--cost", "Cost", low=0, above=True, metavar="USD")
    effort: str | None = option("--effort", "Effort", choices=("low", "high"))
    sim: bool = switch("--sim", "Simulate")


@click.command()
@flag_options(DemoFlags)
def generated(**given: object) -> None:
    click.echo(repr(DemoFlags(**given)))


def test_the_generated_options_give_the_values_the_flags_take():
    result = CliRunner().invoke(
        generated,
        [
            *("--files", "a.py", "b.py", "--with", "gemini, qwen", "--with", "kimi"),
            *("--model", "codex:x", "--rounds", "3", "--cost", "0.5", "--effort", "high", "--sim"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == repr(
        DemoFlags(
            files=("a.py", "b.py"),
            proxies=("gemini", "qwen", "kimi"),
            models=("codex:x",),
            rounds=3,
            cost=0.5,
            effort="high",
            sim=True,
        )
    )
    nothing = CliRunner().invoke(generated, [])
    assert nothing.output.strip() == repr(DemoFlags())  # a list not given is its default


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "6"], "'--rounds': 6 is not in the range 2<=x<=5"),
        (["--cost", "0"], "'--cost': 0.0 is not in the range x>0"),
        (["--cost", "nan"], "'nan' is not a finite number"),
        (["--effort", "max"], "'max' is not one of 'low', 'high'"),
    ],
)
def test_the_generated_options_refuse_what_the_declaration_bounds(args, message):
    result = CliRunner().invoke(generated, args)
    assert result.exit_code == 2 and message in result.output


def test_the_generated_help_says_the_declared_help_and_how_to_give_values():
    out = CliRunner().invoke(generated, ["--help"]).output
    assert "Rounds, 2 to 5." in out
    assert "Files (several after one flag, repeatable, or a,b)." in out
    assert "--model TEXT" in out and "Model per CLI, e.g. codex:gpt-5.2." in out
    assert "--with CLI[,CLI...]" in out and "--cost USD" in out
