"""What council.yaml holds, as frozen objects, and the built-in defaults and presets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from council.adapters.base import CliSettings
from council.config.layers import DEFAULT_SOURCE, KeyPath, Source, Sourced

CONFIG_NAME = "council.yaml"
WORD_KEYS = ("proposal", "blind", "challenge", "proxy", "respond", "rebuttal", "final_summary")
# A review finding's severities, as `review.gate` keys them (review/findings.py's order).
SEVERITY_KEYS = ("low", "medium", "high", "critical")
EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class Roles:
    advocate: str | None = None
    critic: str | None = None
    lead: str | None = None
    proxies: tuple[str, ...] = ()


@dataclass(frozen=True)
class DebateSettings:
    rounds: int = 2
    quorum: int = 1
    words: Mapping[str, int] = field(
        default_factory=lambda: {
            "proposal": 300,
            "blind": 150,
            "challenge": 300,
            "proxy": 200,
            "respond": 300,
            "rebuttal": 200,
            "final_summary": 200,
        }
    )
    context_lines: int = 15
    file_lines: int = 500
    total_lines: int = 2000
    ready_timeout_s: float = 60.0
    hard_timeout_factor: float = 1.5
    blind: bool = True
    # Seats that keep their CLI running as a warm worker (runner/warm.py), in seat order.
    max_warm_seats: int = 4
    # A seat that echoed the canary or forged a fence (context/fences.py): its vote (a
    # reviewer's verdicts) still counts with a warning, or is left out.
    on_injection: str = "warn"
    # Stop asking new calls once the CLIs' reported cost reaches this (USD); None: no cap.
    max_cost: float | None = None


@dataclass(frozen=True)
class RunSettings:
    """What every run reads, a debate's or a review's: the context limits, the READY timeout,
    the hard-limit factor, the warm seats and the injection policy. Users write them under
    `debate:` in council.yaml (`debate.file_lines`, ...), the keys they always had, so this is
    a view of `DebateSettings` (`Config.run`), not a section of its own."""

    context_lines: int
    file_lines: int
    total_lines: int
    ready_timeout_s: float
    hard_timeout_factor: float
    max_warm_seats: int
    on_injection: str


@dataclass(frozen=True)
class Preset:
    """What `--preset NAME` sets over the config file. None (or empty): the preset leaves it."""

    name: str
    rounds: int | None = None
    effort: str | None = None  # every seat's
    quorum: int | None = None
    models: Mapping[str, str] = field(default_factory=dict)  # by CLI name
    efforts: Mapping[str, str] = field(default_factory=dict)  # by CLI name, over `effort`
    proxies: tuple[str, ...] | None = None  # (): no proxies, whatever roles.proxies says
    blind: bool | None = None


def builtin_presets() -> dict[str, Preset]:
    """quick, balanced and deep (docs/spec/config.md). deep seats every CLI on its vendor's
    strongest model and effort, as each registered adapter declares them; computed on each
    call because the registry can grow (a registered adapter joins deep at once)."""
    from council.adapters import registered

    adapters = registered()
    return {
        "quick": Preset("quick", rounds=2, effort="low", proxies=(), blind=False),
        "balanced": Preset("balanced", rounds=2, effort="high"),
        "deep": Preset(
            "deep",
            rounds=3,
            effort="xhigh",
            models={n: c.strongest_model for n, c in adapters.items() if c.strongest_model},
            efforts={n: c.strongest_effort for n, c in adapters.items() if c.strongest_effort},
        ),
    }


@dataclass(frozen=True)
class QuorumSettings:
    # off | vendor | family: what counts as one voice in the quorum of challenges and the
    # tally of votes (debate/votes.py); `debate.quorum` says how many are needed.
    distinct: str = "off"


@dataclass(frozen=True)
class ReviewSettings:
    # The gate rule by severity (majority | any | unanimous); a severity not named: majority.
    gate: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class AdrSettings:
    # Where `council adr` writes decisions; None: an existing decisions directory, else
    # docs/decisions.
    dir: str | None = None


@dataclass(frozen=True)
class RedactSettings:
    extra_patterns: tuple[str, ...] = ()
    allow_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    """The merged configuration. `files`: the files it was read from, highest precedence
    first; `origins`: the file each value given in one came from, by key path (a key path
    not in it holds the built-in default)."""

    files: tuple[Path, ...] = ()
    roles: Roles = field(default_factory=Roles)
    debate: DebateSettings = field(default_factory=DebateSettings)
    quorum: QuorumSettings = field(default_factory=QuorumSettings)
    presets: Mapping[str, Preset] = field(default_factory=builtin_presets)
    clis: Mapping[str, CliSettings] = field(default_factory=dict)
    scratchpad: str = ".scratchpad"
    redact: RedactSettings = field(default_factory=RedactSettings)
    review: ReviewSettings = field(default_factory=ReviewSettings)
    adr: AdrSettings = field(default_factory=AdrSettings)
    origins: Mapping[KeyPath, Source] = field(default_factory=dict)

    @property
    def run(self) -> RunSettings:
        """The settings both protocols share, read from the `debate:` keys users write."""
        debate = self.debate
        return RunSettings(
            context_lines=debate.context_lines,
            file_lines=debate.file_lines,
            total_lines=debate.total_lines,
            ready_timeout_s=debate.ready_timeout_s,
            hard_timeout_factor=debate.hard_timeout_factor,
            max_warm_seats=debate.max_warm_seats,
            on_injection=debate.on_injection,
        )

    def sourced(self, key: KeyPath) -> Sourced:
        """A top-level setting by key path (`debate.rounds`), with where it came from."""
        value: object = self
        for part in key.split("."):
            value = getattr(value, part)
        return Sourced(value, self.origins.get(key, DEFAULT_SOURCE))
