"""`council schema`: the JSON Schemas council's outputs follow."""

from __future__ import annotations

import click

from council.cli.app import cli


@cli.command()
def schema() -> None:
    """Print the council.result/v1 JSON Schema that every --json output follows.

    Example: council schema > council.result.schema.json
    """
    from council.debate.result import SCHEMA_FILE

    click.echo(SCHEMA_FILE.read_text(encoding="utf-8"), nl=False)
