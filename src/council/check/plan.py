"""What a check will do: its question, its options and its seats, which are a debate's (the
advocate, the critic and the proxies, seated as `debate/plan.resolve_plan` seats them from the
same flags, presets, config files and defaults), so a check can be continued as a debate by
the very same seats (`council debate --from`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from council.check.flags import CheckFlags
from council.config import Config, DebateSettings
from council.debate.flags import CALLER, DebateFlags
from council.debate.plan import DebatePlan, resolve_plan
from council.errors import UsageError
from council.panel.flags import RunFlags
from council.panel.seat import SeatPlan
from council.panel.setup import RunSetup

MAX_OPTIONS = 10


@dataclass(frozen=True, kw_only=True)
class CheckPlan(RunSetup):
    question: str
    options: tuple[str, ...] = ()
    advocate: SeatPlan
    critic: SeatPlan
    proxies: tuple[SeatPlan, ...] = ()
    limit: int = 150  # words each answer may have: a debate's BLIND TAKE's (`words.blind`)
    rounds: int = 1

    # A debate's own seats, challengers and labels (`the advocate`, `Seat A (critic)`, ...),
    # read from the same fields: a check continued as a debate names every seat as it did.
    seats = DebatePlan.seats
    challengers = DebatePlan.challengers
    labels = DebatePlan.labels

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckPlan:
        values = cls.known_fields(data)
        for key in ("advocate", "critic"):
            values[key] = SeatPlan(**values[key])
        values["proxies"] = tuple(SeatPlan(**p) for p in values.get("proxies", ()))
        values["options"] = tuple(values.get("options", ()))
        return cls(**values)


def resolve_check_plan(flags: CheckFlags, config: Config) -> CheckPlan:
    """The seats a debate with these flags would seat (no lead: a rule groups the answers),
    and the check's own settings."""
    # One line each: an option is a bullet of the prompt and a stance to match.
    options = tuple(dict.fromkeys(" ".join(o.split()) for o in flags.options or () if o.strip()))
    if len(options) == 1 or len(options) > MAX_OPTIONS:
        raise UsageError(
            f"--options takes 2 to {MAX_OPTIONS} answers to choose from, not {len(options)}; "
            "give them comma-separated (--options Redis,Postgres) or leave --options out"
        )
    shared = {f.name: getattr(flags, f.name) for f in fields(RunFlags)}
    debate = resolve_plan(
        DebateFlags(
            question=flags.question,
            proxies=flags.proxies,
            advocate=flags.advocate,
            critic=flags.critic,
            lead=CALLER,
            **shared,
        ),
        config,
    )
    setup = {f.name: getattr(debate, f.name) for f in fields(RunSetup) if f.name != "rounds"}
    limit = debate.words.get("blind") or DebateSettings().words["blind"]
    return CheckPlan(
        **setup,
        question=debate.question,
        options=options,
        advocate=debate.advocate,
        critic=debate.critic,
        proxies=debate.proxies,
        limit=int(limit),
    )
