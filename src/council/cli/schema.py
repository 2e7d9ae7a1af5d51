"""`council schema`: the JSON Schemas council's files follow."""

from __future__ import annotations

import click

from council.cli.app import cli
from council.errors import ExitCode

SCHEMAS = ("result", "config", "review", "check")


@cli.command()
@click.argument("name", type=click.Choice(SCHEMAS), default="result", required=False)
def schema(name: str) -> ExitCode:
    """Print a JSON Schema: `result` (default), the council.result/v1 that every debate's
    --json output follows; `review`, the council.review/v1 of `council review --format json`;
    `check`, the council.check/v1 of `council check --json`; `config`, the one council.yaml
    follows (all draft 2020-12).

    Example: council schema config > council.schema.json
    """
    if name == "config":
        from council.config.validation import SCHEMA_FILE
    elif name == "review":
        from council.review.result import SCHEMA_FILE
    elif name == "check":
        from council.check.result import SCHEMA_FILE
    else:
        from council.debate.result import SCHEMA_FILE
    click.echo(SCHEMA_FILE.read_text(encoding="utf-8"), nl=False)
    return ExitCode.OK
