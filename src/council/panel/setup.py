"""What every run's plan holds, debate or review: the files and diff it gathers, the context
limits, the timeouts' shape, warm workers and lean calls, where its record goes and what
redaction adds. A protocol's plan adds its seats and its own settings to these; the plan is
stored in `state.json` as its fields' names, so a record written before this class existed
loads the same."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from council.config import Config
from council.panel.flags import RunFlags

TUPLES = ("files", "extra_patterns", "allow_files")  # lists in JSON


@dataclass(frozen=True, kw_only=True)
class RunSetup:
    files: tuple[str, ...] = ()
    diff_ref: str | None = None
    rounds: int = 2  # a review's are its blind review and its cross-check
    file_lines: int = 500
    total_lines: int = 2000
    context_lines: int = 15
    ready_timeout_s: float = 60.0
    hard_timeout_factor: float = 1.5
    # Seats that keep their CLI running as a warm worker, in seat order (runner/warm.py);
    # 0: every call spawns its CLI (--cold).
    max_warm_seats: int = 0
    lean: bool = True  # False: --no-lean, no call runs lean (docs/lean.md)
    # What a suspect seat's vote does (context/fences.py): warn (counted) | exclude.
    on_injection: str = "warn"
    simulated: bool = False
    allow_outside: bool = False
    allow_secrets: bool = False
    scratchpad: str = ".scratchpad"
    extra_patterns: tuple[str, ...] = ()
    allow_files: tuple[str, ...] = ()

    def labels(self) -> dict[str, str]:
        """How prompts name each seat (docs/spec/protocol.md, "Anonymity")."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def known_fields(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """The stored plan's values this class has, the shared lists as tuples again."""
        values = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for key in TUPLES:
            if key in values:
                values[key] = tuple(values[key])
        return values


def shared_setup(flags: RunFlags, config: Config) -> dict[str, Any]:
    """The shared part of a plan, from the flags both commands have and the config."""
    limits = config.run
    return {
        "files": flags.files,
        "diff_ref": flags.diff,
        "file_lines": limits.file_lines,
        "total_lines": limits.total_lines,
        "context_lines": limits.context_lines,
        "ready_timeout_s": limits.ready_timeout_s,
        "hard_timeout_factor": limits.hard_timeout_factor,
        "max_warm_seats": 0 if flags.cold else limits.max_warm_seats,
        "lean": not flags.no_lean,
        "on_injection": limits.on_injection,
        "allow_outside": flags.allow_outside,
        "allow_secrets": flags.allow_secrets,
        "scratchpad": flags.scratchpad or config.scratchpad,
        "extra_patterns": config.redact.extra_patterns,
        "allow_files": config.redact.allow_files,
    }
