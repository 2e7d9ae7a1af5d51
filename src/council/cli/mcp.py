"""`council mcp`: serve council's tools to an IDE's agent over MCP (stdio)."""

from __future__ import annotations

import sys

import click

from council.cli.app import CliState, cli, collect_from_now
from council.errors import ExitCode, UsageError

# Into the Python that runs council: `pip install 'council[mcp]'` would fetch the unrelated
# PyPI project of that name.
INSTALL = f"{sys.executable} -m pip install 'mcp>=2'"


@cli.command()
@click.pass_obj
def mcp(state: CliState) -> ExitCode:
    """Serve council to an MCP host (Claude Code, Codex, Gemini CLI, ...) over stdio.

    Tools: debate, debate_start, debate_status, debate_result, debate_cancel; review,
    review_start, review_status, review_result, review_cancel; doctor. The host starts it
    in the project; stdout carries only the protocol. Needs the MCP SDK (the
    `mcp` extra: pip install -e '.[mcp]' in council's checkout).

    Example: claude mcp add council -- council mcp
    """
    try:
        from council.mcp.server import Settings, serve
    except ModuleNotFoundError as exc:
        # The SDK is an optional extra (pydantic comes with it); anything else is a bug.
        if (exc.name or "").split(".")[0] not in ("mcp", "mcp_types", "pydantic"):
            raise
        raise UsageError(f"the MCP server needs the MCP SDK: {INSTALL}") from None
    if sys.stdin.isatty():
        click.echo(
            "council mcp: serving MCP on stdin/stdout for an IDE host (Ctrl-C to stop); "
            "register it with e.g.: claude mcp add council -- council mcp",
            err=True,
        )
    collect_from_now()  # a long-lived process: the collector back on
    serve(
        Settings(
            config_path=state.config_path,
            council_args=state.global_args(),
            quiet=state.quiet,
            verbose=state.verbose,
        )
    )
    return ExitCode.OK
