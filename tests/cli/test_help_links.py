"""Help texts point only at what an installed council has: a documentation file is named by
its URL at this version's tag (`council.docs_url`), never by a path of the source tree, which
a wheel does not hold."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import click

from council import REPOSITORY, docs_url
from council.cli import cli

SOURCE_PATH = re.compile(r"(?<![/\w.-])(?:docs|src|skill|prompts|scripts)/[\w./-]+")


def every_help(group: click.Group) -> dict[str, str]:
    texts = {}
    with click.Context(group, info_name="council") as ctx:
        texts["council"] = group.get_help(ctx)
        for name, command in group.commands.items():
            with click.Context(command, info_name=name, parent=ctx) as sub:
                texts[name] = command.get_help(sub)
    return texts


def test_no_help_text_names_a_file_of_the_source_tree():
    found = {
        name: SOURCE_PATH.findall(text.replace("\n", " ")) for name, text in every_help(cli).items()
    }
    assert not {name: paths for name, paths in found.items() if paths}


def test_the_lean_help_points_at_its_page_for_this_version():
    unwrapped = "".join(every_help(cli)["debate"].split())  # click wraps long lines
    assert docs_url("docs/lean.md") in unwrapped
    assert (Path(__file__).parents[2] / "docs" / "lean.md").is_file()


def test_the_documented_repository_is_the_one_the_package_names():
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert pyproject["project"]["urls"]["Repository"] == REPOSITORY
