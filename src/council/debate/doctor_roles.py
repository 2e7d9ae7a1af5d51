"""The roles `council doctor --probe` checks: the CLIs a `council debate` with no flags seats
(the config's roles, else the default seats), found by the debate's own plan so the probe
never disagrees with a run."""

from __future__ import annotations

from council.config import Config
from council.debate.flags import DebateFlags
from council.debate.plan import resolve_plan
from council.doctor import RoleClis, SeatModels
from council.errors import CouncilError


def configured_roles(config: Config, usable: set[str]) -> tuple[RoleClis, SeatModels]:
    """The CLIs by role among `usable`, and the model and effort of each CLI's first seat."""
    try:
        plan = resolve_plan(
            DebateFlags(question="council doctor --probe"), config, lambda n: n in usable
        )
    except CouncilError:
        return {}, {}  # no AI CLI for the advocate: doctor says so already
    seated = {
        "advocate": (plan.advocate,),
        "critic": (plan.critic,),
        "lead": (plan.lead,) if plan.lead else (),
        "proxies": plan.proxies,
    }
    specs: SeatModels = {}
    for seats in seated.values():
        for seat in seats:
            specs.setdefault(seat.cli, (seat.model, seat.effort))
    return {role: tuple(s.cli for s in seats) for role, seats in seated.items()}, specs
