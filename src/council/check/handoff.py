"""`council debate --from <check-id>`: a check continued as a full debate, without asking its
seats again (docs/spec/protocol.md section 10, "From a check to a debate").

The debate takes the check's question, files (read again: the debate's context is its own)
and seats, the very seat plans, so each challenger is the seat that answered. Each
challenger's check answer is copied into the debate's record as its BLIND TAKE, under the stem
the debate would ask it under (`<seat>-r1`): the debate's lead finds it there and asks nothing
(`Dispatch.ask` reuses an answered call, as a resumed run does). The copy keeps its text and
figures and says where it came from (`copied_from`, `detail`); its timing is left out (the
call ran in the check, not in this run). The advocate's check answer is not reused: the
PROPOSAL is still asked, a full position of its own word limit, which the challengers'
CHALLENGE then weighs against their own first answers.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from council.check.plan import CheckPlan
from council.check.state import CheckState
from council.config import Config
from council.context import RunContext
from council.debate.flags import DebateFlags
from council.debate.plan import DebatePlan
from council.debate.protocol import DebateProtocol
from council.debate.state import DebateState
from council.errors import UsageError
from council.panel.contribution import Contribution
from council.panel.protocol import ENDED
from council.panel.seat import SeatPlan
from council.progress import Progress

BLIND_TAKE = "BLIND_TAKE"
# What the check decides for the debate, by the flag that would otherwise say it.
TAKEN_FROM_THE_CHECK = {
    "files": "--files",
    "diff": "--diff",
    "proxies": "--with",
    "advocate": "--advocate",
    "critic": "--critic",
}


class DebateFromCheck(DebateProtocol):
    """A debate whose record starts with the check's answers as its blind takes; any later
    process (a detached run, `council resume`) runs it as any debate, from its record."""

    def __init__(self, check: CheckState, plan: CheckPlan) -> None:
        self.source, self.source_plan = check, plan

    def resolve(
        self, flags: DebateFlags, config: Config, progress: Progress, cwd: Path
    ) -> DebatePlan:
        plan = super().resolve(flags, config, progress, cwd)
        seats = self.source_plan
        return replace(plan, advocate=seats.advocate, critic=seats.critic, proxies=seats.proxies)

    def new_state(
        self, shared: dict[str, Any], plan: DebatePlan, context: RunContext
    ) -> DebateState:
        state = super().new_state(shared, plan, context)
        for call in self.carried():
            state.store(call)
        return state

    def carried(self) -> list[Contribution]:
        """Each challenger's answered check call, as its debate BLIND TAKE."""
        calls = []
        for seat in self.source_plan.challengers:
            answer = self.source.contribution(f"{seat.name}-r1")
            if answer is None or not answer.answered:
                continue  # asked for its BLIND TAKE as in any debate
            calls.append(
                replace(
                    answer,
                    stem=f"{seat.name}-r1",  # the debate's BLIND TAKE stem (round 1)
                    phase=BLIND_TAKE,
                    round=1,
                    started_at=None,
                    spans=[],
                    prompt_file="",
                    response_file="",
                    copied_from=f"{self.source.id}/{answer.stem}",
                    detail=f"copied from {self.source.id}: its CHECK answer, not asked again",
                )
            )
        return calls

    def setup_line(self, plan: DebatePlan, context: RunContext, state: DebateState) -> str:
        copied = len(self.carried())
        return (
            f"{super().setup_line(plan, context, state)}; from {self.source.id}: {copied} "
            "blind take(s) copied, not asked again"
        )


def continued(flags: DebateFlags, config: Config, cwd: Path) -> tuple[DebateFromCheck, DebateFlags]:
    """The protocol and the flags of a debate continuing the check `flags.from_check` names;
    a `UsageError` when it names no ended check, or a flag says what the check decides."""
    from council.protocols import protocol_of
    from council.runs.store import find_run, read_state

    wanted = flags.from_check or ""
    for name, flag in TAKEN_FROM_THE_CHECK.items():
        if getattr(flags, name):
            raise UsageError(
                f"--from {wanted} debates the check's own question, files and seats: drop {flag}"
            )
    pad = Path(flags.scratchpad or config.scratchpad).expanduser()
    record = find_run((pad if pad.is_absolute() else cwd / pad).absolute(), wanted)
    kind = protocol_of(record).kind
    if kind != "check":
        raise UsageError(
            f"--from {wanted}: {record.id} is a {kind}, not a check; --from takes a check's id "
            "(council list shows them)"
        )
    try:
        check = CheckState.from_json(read_state(record), record.path)
        plan = CheckPlan.from_json(check.plan)
    except (TypeError, KeyError, AttributeError, ValueError):
        raise UsageError(f"--from {wanted}: {record.id}'s state.json is not a check's") from None
    if check.status not in ENDED:
        raise UsageError(
            f"--from {wanted}: {record.id} has not ended ({check.status}); wait for it "
            f"(council wait {record.id}) or resume it (council resume {record.id})"
        )
    given = replace(
        flags,
        question=check.question,
        files=plan.files,
        diff=plan.diff_ref,
        advocate=_spec(plan.advocate),
        critic=_spec(plan.critic),
        proxies=tuple(_spec(p) for p in plan.proxies),
        sim=flags.sim or plan.simulated,
        allow_outside=flags.allow_outside or plan.allow_outside,
        allow_secrets=flags.allow_secrets or plan.allow_secrets,
    )
    return DebateFromCheck(check, plan), given


def _spec(seat: SeatPlan) -> str:
    """A seat plan as a seat spec, `cli[:model][#effort]`."""
    model = f":{seat.model}" if seat.model else ""
    effort = f"#{seat.effort}" if seat.effort else ""
    return f"{seat.cli}{model}{effort}"
