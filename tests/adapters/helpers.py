"""Small helpers shared by the adapter tests."""

from __future__ import annotations


def answer_calls(fakes, cli: str) -> list[dict]:
    """The recorded calls that asked for an answer (not the `--version` probe)."""
    return [c for c in fakes.calls(cli) if c["argv"] not in (["--version"], ["-V"])]
