"""Who sits in one seat: its name, role, CLI and how it is tuned; and the command line's way of
saying so (`cli[:model][#effort]`, `--model cli:model`, `--timeout cli=seconds`), which every
protocol reads the same way."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from council.adapters import adapter_for
from council.config import EFFORTS, Config
from council.errors import ConfigError, UsageError
from council.options import options_of
from council.panel.flags import RunFlags


@dataclass(frozen=True)
class SeatPlan:
    name: str  # advocate, critic, proxy-codex, proxy-codex-2, lead, reviewer-codex, ...
    role: str  # advocate | critic | proxy | lead | reviewer
    cli: str
    model: str | None = None
    effort: str | None = None
    soft_timeout_s: float | None = None  # None: the adapter's (or config's) default


@dataclass(frozen=True)
class SeatSpec:
    cli: str
    model: str | None = None
    effort: str | None = None


def unique_seat_name(base: str, taken: Sequence[str]) -> str:
    """`base` (`proxy-sim`), else the first of `base-2`, `base-3`, ... not taken: a second seat
    on the same CLI. Other CLIs whose names start the same (`sim-late`) take nothing."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def parse_seat_spec(text: str) -> SeatSpec:
    """`codex:gpt-5.3-codex#high` -> cli, model, effort (model and effort optional)."""
    spec, _, effort = text.strip().partition("#")
    cli, _, model = spec.partition(":")
    if not cli:
        raise UsageError(
            f"bad seat spec '{text}': expected cli[:model][#effort], e.g. codex:gpt-5.3-codex#high"
        )
    if effort and effort not in EFFORTS:
        raise UsageError(f"bad effort '{effort}' in '{text}': use one of {', '.join(EFFORTS)}")
    return SeatSpec(cli.strip().lower(), model.strip() or None, effort.strip() or None)


def check_cli_name(cli: str, config: Config) -> None:
    """A CLI name neither registered nor defined in council.yaml is a usage error."""
    try:
        adapter_for(cli, config.clis)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def cli_pairs(items: Sequence[str], sep: str, flag: str) -> dict[str, str]:
    """`--model codex:gpt-5.2,gemini:pro` (sep `:`) or `--timeout codex=900` (sep `=`),
    repeatable and comma-separated, by CLI name."""
    pairs = {}
    for item in (part for text in items for part in text.split(",") if part.strip()):
        key, found, value = item.partition(sep)
        if not found or not key.strip() or not value.strip():
            raise UsageError(
                f"bad {flag} value '{item}': expected cli{sep}value, "
                f"e.g. {'codex:gpt-5.2' if sep == ':' else 'codex=900'}"
            )
        pairs[key.strip().lower()] = value.strip()
    return pairs


def timeouts_by_cli(items: Sequence[str]) -> dict[str, float]:
    """`--timeout cli=SECONDS[,...]`: a positive number of seconds by CLI name."""
    return {cli: _seconds(value, cli) for cli, value in cli_pairs(items, "=", "--timeout").items()}


TIMEOUTS = options_of(RunFlags)["timeouts"]


def _seconds(value: str, cli: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    # NaN fails every comparison: it must be refused here, or it poisons the record.
    if not TIMEOUTS.within(seconds):
        raise UsageError(
            f"bad --timeout for {cli}: '{value}' is not a number of seconds from "
            f"{TIMEOUTS.range_text()}"
        )
    return seconds
