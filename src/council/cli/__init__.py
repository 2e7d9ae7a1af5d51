"""The `council` command line: the front end over the library.

This package parses flags, loads the config, calls the library and renders what it returns;
`council.cli.app.CouncilGroup` turns results and errors into exit codes. It imports no
subprocess or async machinery at module level, so `council --version` and `--help` start
fast; each command imports what it needs when it runs.
"""

from __future__ import annotations

import gc

from council.cli import (  # noqa: F401 - each registers its commands
    completion,
    config,
    debate,
    doctor,
    init,
    mcp,
    review,
    runs,
    schema,
    skill,
)
from council.cli.app import cli


def main() -> None:
    # Start-up allocates much and frees little: collecting during the imports is wasted work
    # (~30 ms of a debate's start). `collect_from_now` turns the collector back on once a
    # command has loaded what it needs; the library itself never touches the collector.
    gc.disable()
    cli.main(prog_name="council")


__all__ = ["cli", "main"]
