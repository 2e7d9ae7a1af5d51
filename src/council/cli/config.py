"""`council config show`: the merged configuration, every value with where it came from."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from council.cli.app import CliState, cli
from council.errors import ExitCode

if TYPE_CHECKING:
    from council.config import Source, Sourced


@cli.group(name="config")
def config_group() -> None:
    """Inspect the configuration (council.yaml merged over the user's config.yaml).

    Example: council config show
    """


@config_group.command()
@click.option("--json", "as_json", is_flag=True, help="Print the values as JSON.")
@click.option("--preset", help="Show what this preset would set, too (a preset beats the files).")
@click.pass_obj
def show(state: CliState, as_json: bool, preset: str | None) -> ExitCode:
    """Print every setting as `key.path = value  (source)`. The source is the preset (with
    --preset), the project file, the user file, or the built-in default.

    Example: council config show --preset deep
    """
    import json

    from council.config import read_config
    from council.config.overlay import with_preset

    loaded = read_config(state.config_path)
    values = with_preset(loaded, preset) if preset else loaded.values
    if as_json:
        report = {
            "files": [{"path": str(f.path), "level": f.level.name.lower()} for f in loaded.files],
            "values": {
                key: {"value": v.value, "source": v.source.label, "from": v.source.where}
                for key, v in values.items()
            },
        }
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(_line(key, v) for key, v in values.items()))
    return ExitCode.OK


def _line(key: str, sourced: Sourced) -> str:
    return f"{key} = {_shown(sourced.value)}  ({_source(sourced.source)})"


def _shown(value: Any) -> str:
    import json

    if isinstance(value, str):
        return value if value and value.strip() == value else json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _source(source: Source) -> str:
    if source.where is None or source.label == "preset":
        return str(source)
    return f"{source.label}: {_short(Path(source.where))}"


def _short(path: Path) -> str:
    """./council.yaml for a file under the current directory, ~/... under the home."""
    absolute = path.absolute()
    for base, shown in ((Path.cwd(), "."), (Path.home(), "~")):
        if absolute.is_relative_to(base):
            return f"{shown}/{absolute.relative_to(base)}"
    return str(path)
