"""`council completion`: the shell completion script, from click's own completion support."""

from __future__ import annotations

import click

from council.cli.app import cli
from council.errors import ExitCode

SHELLS = ("bash", "zsh", "fish")
# click's convention: `_<PROG>_COMPLETE` set in the environment asks `council` for completions.
COMPLETE_VAR = "_COUNCIL_COMPLETE"


@cli.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> ExitCode:
    """Print the completion script of SHELL (bash, zsh or fish) for `council`.

    Enable it: bash `eval "$(council completion bash)"` in ~/.bashrc; zsh
    `eval "$(council completion zsh)"` in ~/.zshrc; fish
    `council completion fish > ~/.config/fish/completions/council.fish`.

    Example: eval "$(council completion bash)"
    """
    from click.shell_completion import get_completion_class

    completer = get_completion_class(shell)
    assert completer is not None  # click ships all three shells
    script = completer(cli, {}, "council", COMPLETE_VAR).source()
    click.echo(script, nl=not script.endswith("\n"))
    return ExitCode.OK
