"""`council schema`: the JSON Schemas council's files follow."""

from __future__ import annotations

import click

from council.cli.app import cli
from council.errors import ExitCode, UsageError

# `review` is listed although `council review` is not built yet: docs/spec/commands.md names
# it, and a script written against the spec is better told why there is no schema than that
# its word is not a choice.
SCHEMAS = ("result", "config", "review")


@cli.command()
@click.argument("name", type=click.Choice(SCHEMAS), default="result", required=False)
def schema(name: str) -> ExitCode:
    """Print a JSON Schema: `result` (default), the council.result/v1 that every --json
    output follows; `config`, the one council.yaml follows (draft 2020-12).

    Example: council schema config > council.schema.json
    """
    if name == "review":
        raise UsageError(
            "`council review` does not exist yet, so it has no schema; "
            "use `council schema result` or `council schema config`"
        )
    if name == "config":
        from council.config.validation import SCHEMA_FILE
    else:
        from council.debate.result import SCHEMA_FILE
    click.echo(SCHEMA_FILE.read_text(encoding="utf-8"), nl=False)
    return ExitCode.OK
