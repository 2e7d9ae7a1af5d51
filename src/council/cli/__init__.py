"""The `council` command line: the front end over the library.

This package parses flags, loads the config, calls the library and renders what it returns;
`council.cli.app.CouncilGroup` turns results and errors into exit codes. It imports no
subprocess or async machinery at module level, so `council --version` and `--help` start
fast; each command imports what it needs when it runs.
"""

from __future__ import annotations

import gc
import os
import sys

from council.cli import (  # noqa: F401 - each registers its commands
    adr,
    check,
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
    _standard_streams()
    cli.main(prog_name="council")


def _standard_streams() -> None:
    """Standard descriptors the caller closed (`council ... >&-`) point at /dev/null: else the
    first file council opens would take the number, and a result printed on stdout would land
    in a record's file (or, with no stream at all, the final flush raises)."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            mode = "r" if fd == 0 else "w"
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115


__all__ = ["cli", "main"]
