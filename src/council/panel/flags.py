"""What every protocol's command line says about its run: `RunFlags`, the flags a debate and a
review share, each field the one declaration of its option (`council.options`). A protocol's
flags (`debate/flags.py`, `review/flags.py`) extend it with their own."""

from __future__ import annotations

from dataclasses import dataclass

from council import docs_url
from council.options import option, switch

MIN_TIMEOUT_S = 1
MAX_TIMEOUT_S = 86_400  # a day: anything longer is a typo, and `inf` would never end
EFFORTS = ("low", "medium", "high", "xhigh")  # what --effort takes (a seat spec takes more)


@dataclass(frozen=True, kw_only=True)
class RunFlags:
    """The command line as given; None means "not given"."""

    files: tuple[str, ...] = option(
        "--files",
        "Files the seats read, relative to the project",
        default=(),
        metavar="F [F ...]",
        several=True,
    )
    diff: str | None = option(
        "--diff", "Add `git diff REF` (e.g. main) and the files it changes", metavar="REF"
    )
    models: tuple[str, ...] = option(
        "--model",
        "Model per CLI",
        default=(),
        metavar="CLI:MODEL[,...]",
        pair=":",
        example=("codex", "gpt-5.2"),
    )
    effort: str | None = option(
        "--effort", "Reasoning effort where the CLI supports it", choices=EFFORTS
    )
    timeouts: tuple[str, ...] = option(
        "--timeout",
        "Soft timeout in seconds per CLI",
        default=(),
        metavar="CLI=SECONDS[,...]",
        pair="=",
        numbers=True,
        # As a config's `timeout_s`: under a second no CLI answers, and the plan keeps it, so
        # every resume of the run would fail the same way.
        low=MIN_TIMEOUT_S,
        high=MAX_TIMEOUT_S,
        example=("codex", 900),
    )
    sim: bool = switch("--sim", "Seat everyone on the offline simulator (replies are SIMULATED)")
    scratchpad: str | None = option(
        "--scratchpad", "Where records go (default .scratchpad)", metavar="DIR"
    )
    allow_outside: bool = switch("--allow-outside", "Allow files outside the project root")
    allow_secrets: bool = switch("--allow-secrets", "Allow secret-named files (redacted)")
    cold: bool = switch(
        "--cold",
        "No warm CLI workers: every call starts its CLI (less memory, slower)",
        tool=False,
    )
    no_lean: bool = switch(
        "--no-lean",
        "Run every CLI with its own tools and system prompt, even when the files are inlined "
        f"whole in the prompt (see {docs_url('docs/lean.md')})",
        tool=False,
    )
