"""`council skill install` / `uninstall`: the `/debate` and `/review` slash-commands and the
agent skills in the IDE hosts' own places (`council.hosts`)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from council.cli.app import cli
from council.errors import ExitCode, UsageError


class HostChoice(click.Choice):
    """The hosts come from the vendor registry, read when a command runs (not at import)."""

    def __init__(self) -> None:
        super().__init__(["all"])

    def convert(self, value: str, param: click.Parameter | None, ctx: click.Context | None):
        from council.hosts import host_names

        self.choices = [*host_names(), "all"]
        return super().convert(value, param, ctx)


host_option = click.option(
    "--host",
    "host",
    type=HostChoice(),
    required=True,
    help="claude, codex, gemini, qwen, or all.",
)
scope_option = click.option(
    "--scope",
    type=click.Choice(["project", "user"]),
    default="project",
    show_default=True,
    help="This project (its git top level), or your user account.",
)
force_option = click.option(
    "--force", is_flag=True, help="Also overwrite (or remove) files council did not write."
)


def _targets(host: str) -> list[str]:
    from council.hosts import host_names

    return host_names() if host == "all" else [host]


def _project() -> Path:
    from council.context.paths import find_root

    return find_root(Path.cwd().resolve())


def _shown(path: Path) -> str:
    home = Path(os.environ.get("HOME", "~")).expanduser()
    cwd = Path.cwd()
    if path.is_relative_to(cwd):
        return str(path.relative_to(cwd))
    return "~/" + str(path.relative_to(home)) if path.is_relative_to(home) else str(path)


@cli.group()
def skill() -> None:
    """Install council into IDE hosts as /debate and /review commands and agent skills.

    Example: council skill install --host all --scope project
    """


@skill.command()
@host_option
@scope_option
@force_option
def install(host: str, scope: str, force: bool) -> ExitCode:
    """Write the /debate and /review commands (or skills) where each host reads them, and
    print what each host needs to let its model run council headless.

    Example: council skill install --host claude --scope user
    """
    from council.hosts import headless_setting, skipped_hosts
    from council.hosts import install as install_files

    targets = _targets(host)
    try:
        written, removed = install_files(targets, scope, _project(), os.environ, force=force)
    except OSError as exc:  # a race with `writable`'s check, a full disk
        raise UsageError(f"cannot write {exc.filename}: {exc.strerror}") from None
    for path in written:
        click.echo(f"wrote {_shown(path)}")
    for path in removed:
        click.echo(f"removed {_shown(path)}: council no longer installs it")
    skipped = dict(skipped_hosts(scope))
    if host == "all":
        for name, why in skipped.items():
            click.echo(f"skipped {name}: {why}")
    # A host asks before its model runs a command; headless (`-p`, `exec`) it refuses.
    for name in targets:
        if name not in skipped:
            click.echo(f"to let {name} run council headless: {headless_setting(name)}")
    return ExitCode.OK


@skill.command()
@host_option
@scope_option
@force_option
def uninstall(host: str, scope: str, force: bool) -> ExitCode:
    """Remove exactly the files `council skill install` wrote.

    Example: council skill uninstall --host all --scope project
    """
    from council.hosts import uninstall as uninstall_files

    try:
        removed, kept = uninstall_files(_targets(host), scope, _project(), os.environ, force=force)
    except OSError as exc:
        raise UsageError(f"cannot remove {exc.filename}: {exc.strerror}") from None
    for path in removed:
        click.echo(f"removed {_shown(path)}")
    for path in kept:
        click.echo(f"kept {_shown(path)}: changed since council installed it (--force)", err=True)
    if not removed and not kept:
        click.echo(f"nothing of council's installed for {host} in the {scope} scope", err=True)
    return ExitCode.OK
