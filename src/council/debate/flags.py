"""A debate's command line: `DebateFlags`, the run's shared flags (`panel/flags.py`) and the
debate's own, each field the one declaration of its option (`council.options`): `council
debate`'s options and the MCP `debate` tools' parameters are generated from it."""

from __future__ import annotations

from dataclasses import dataclass

from council.options import Option, option, options_of, switch
from council.panel.flags import RunFlags

CALLER = "caller"
SEAT_SPEC = "Seat spec cli[:model][#effort], e.g. codex:gpt-5.2#high"


@dataclass(frozen=True, kw_only=True)
class DebateFlags(RunFlags):
    """The command line as given; None means "not given"."""

    question: str
    proxies: tuple[str, ...] | None = option(
        "--with",
        "Proxy seats, CLI names; `auto` = every installed CLI not already seated",
        metavar="CLI[,CLI...]",
    )
    advocate: str | None = option("--advocate", SEAT_SPEC, metavar="SPEC")
    critic: str | None = option("--critic", SEAT_SPEC, metavar="SPEC")
    lead: str | None = option(
        "--lead",
        f"Who writes the DECISION: a seat spec, or `{CALLER}`: the calling agent, to whom "
        "the result is then the decision prompt to answer",
        metavar=f"SPEC|{CALLER}",
    )
    rounds: int | None = option("--rounds", "Rounds, {range} (default 2)", low=2, high=5)
    preset: str | None = option("--preset", "quick, balanced, deep, or a preset from the config")
    quorum: int | None = option("--quorum", "Challenges needed (default 1)", low=0)
    max_cost: float | None = option(
        "--max-cost",
        "Stop asking new calls once the cost the CLIs report reaches this many USD; the "
        "DECISION is then built from what exists (CLIs that report no cost are listed as "
        "unpriced)",
        metavar="USD",
        low=0,
        above=True,
    )
    from_check: str | None = option(
        "--from",
        "Continue a check (its id, a unique prefix, or last) as a full debate on its question, "
        "files and seats: the challengers' check answers are their BLIND TAKE, not asked again",
        metavar="CHECK-ID",
        tool=False,
    )
    no_blind: bool = switch(
        "--no-blind",
        "Skip the BLIND TAKE (each challenger's own first answer, beside the proposal)",
        tool=False,
    )


ROUNDS: Option = options_of(DebateFlags)["rounds"]
