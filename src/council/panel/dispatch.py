"""Asking seats and collecting their answers (docs/spec/protocol.md section 3, "Timeouts and
progressive wait"): one ACTION DM per call, the replies turned into stored contributions, the
progressive wait that moves on without a straggler, and the straggler's late answer when it
comes. The protocol names the template and its values; what every one of its prompts shares
(the question, the technical context, the labels) comes from its `values` callback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import TaskGroup

from council.panel.bus import Kind, Message, action_body
from council.panel.contribution import Contribution
from council.panel.journal import Journal
from council.panel.messages import LEAD, Ask, Reply
from council.panel.roster import Roster
from council.panel.seat import SeatPlan
from council.prompts import render, warm_up

# A seat worker answers every ACTION by its hard limit; past this margin it is presumed dead.
WORKER_MARGIN_S = 30.0


@dataclass
class Pending:
    seat: SeatPlan
    stem: str
    phase: str
    round: int
    sent_at: float
    soft_s: float
    hard_s: float


class Dispatch:
    def __init__(
        self,
        roster: Roster,
        journal: Journal,
        values: Callable[[], Mapping[str, Any]],
        *,
        closing: Callable[[str], Mapping[str, Any]] | None = None,
    ) -> None:
        """`values`: what every prompt of the protocol is rendered with; `closing`: reads a
        last contribution's closing line (`vote=True` asks) from the whole answer."""
        self.roster = roster
        self.journal = journal
        self.values = values
        self.closing = closing
        self.stragglers: dict[str, Pending] = {}
        self.unseen_late: list[Contribution] = []  # late replies the advocate has not seen
        # Replies that came in while the lead gathered another phase's (a blind take that
        # beat the proposal): the next gather of their stems finds them here.
        self.arrived: dict[str, Contribution] = {}
        self.background: TaskGroup | None = None  # set while the seats sit
        self._warmed = False

    def take_unseen_late(self) -> list[Contribution]:
        late, self.unseen_late = self.unseen_late, []
        return late

    async def ask(
        self,
        seat: SeatPlan,
        phase: str,
        round_no: int,
        template: str,
        limit: int,
        *,
        stem: str | None = None,
        vote: bool = False,
        whole: bool = False,
        **values: Any,
    ) -> Pending | Contribution:
        """Send one ACTION DM, or reuse the reply a previous run already stored. `stem` names
        the call's files (default `<seat>-r<round>`); `vote`: this is the seat's last
        contribution, which ends with its own `VOTE:` line; `whole`: the answer is never cut
        to `limit` (a JSON answer cut short is no answer)."""
        state, progress = self.journal.state, self.journal.progress
        stem = stem or f"{seat.name}-r{round_no}"
        stored = state.contribution(stem)
        if stored is not None and stored.answered:
            await self.journal.note(f"reused {stem} from the record", stem=stem)
            progress.seat(seat.name, phase=phase, state="reused", words=stored.words)
            return stored
        prompt = render(
            template,
            phase=phase,
            role=seat.role,
            round=round_no,
            limit=limit,
            vote=vote,
            **self.values(),
            **values,
        )
        ask = Ask(
            prompt=prompt,
            stem=stem,
            limit=None if whole else limit,
            vote=vote,
            inspect=self.closing if vote else None,
        )
        await self.journal.bus.send(
            Message(
                Kind.DM,
                LEAD,
                seat.name,
                action_body(phase, f"round={round_no} limit={limit}"),
                round=round_no,
                phase=phase,
                meta=ask.meta(),
                payload=ask,
            )
        )
        if not self._warmed and self.background is not None:
            self._warmed = True  # the first CLI runs: compile the other templates meanwhile
            self.background.start_soon(anyio.to_thread.run_sync, warm_up)
        soft = self.roster.ready[seat.name].timeout_s
        progress.seat(
            seat.name,
            phase=phase,
            state="asked",
            started=anyio.current_time(),
            timeout_s=soft,
            words=None,
        )
        hard = soft * self.roster.hard_timeout_factor
        return Pending(seat, stem, phase, round_no, anyio.current_time(), soft, hard)

    async def gather(
        self, asked: list[Pending | Contribution], *, progressive: bool
    ) -> list[Contribution]:
        """Wait for the asked seats. With `progressive`, move on when all but one answered
        and the missing one has run its soft timeout; it becomes a straggler."""
        done = {a.stem: a for a in asked if isinstance(a, Contribution)}
        pending = {a.stem: a for a in asked if isinstance(a, Pending)}
        for stem in [s for s in pending if s in self.arrived]:
            pending.pop(stem)
            done[stem] = self.arrived.pop(stem)
        while pending:
            now = anyio.current_time()
            # A worker that never answers (a bug) must not hang the debate.
            horizon = min(p.sent_at + p.hard_s + WORKER_MARGIN_S for p in pending.values())
            if progressive and len(pending) == 1:  # all but one answered (or a lone seat)
                (last,) = pending.values()
                move_on_at = last.sent_at + last.soft_s
                if now >= move_on_at:
                    self.stragglers[last.stem] = last
                    pending.clear()
                    self.journal.progress.info(
                        f"{last.phase} {last.seat.name} waiting {last.soft_s:g}/"
                        f"{last.hard_s:g}s: moving on with {len(done)}/{len(asked)} "
                        "(progressive wait)"
                    )
                    await self.journal.note(
                        f"moving on without {last.seat.name} (progressive wait)", stem=last.stem
                    )
                    break
                horizon = min(horizon, move_on_at)
            elif now >= horizon:
                for stem, p in list(pending.items()):
                    if now >= p.sent_at + p.hard_s + WORKER_MARGIN_S:
                        done[stem] = self._lost(p)
                        pending.pop(stem)
                continue
            message = await self.roster.receive(max(0.0, horizon - now))
            if message is None:
                continue
            contribution = self.absorb(message)
            if contribution is not None and contribution.stem in pending:
                pending.pop(contribution.stem)
                done[contribution.stem] = self.arrived.pop(contribution.stem)
        return [done[a.stem] for a in asked if a.stem in done]

    async def wait_for_stragglers(self) -> None:
        """Before the DECISION: a straggler inside its hard limit may still answer."""
        while self.stragglers:
            now = anyio.current_time()
            horizon = min(p.sent_at + p.hard_s + WORKER_MARGIN_S for p in self.stragglers.values())
            message = await self.roster.receive(max(0.0, horizon - now))
            if message is None and anyio.current_time() >= horizon:
                for stem, pending in list(self.stragglers.items()):
                    if anyio.current_time() >= pending.sent_at + pending.hard_s:
                        self.stragglers.pop(stem)
                        self._lost(pending)
            elif message is not None:
                self.absorb(message)

    def absorb(self, message: Message) -> Contribution | None:
        """Turn a seat's reply into a stored contribution (late ones included)."""
        if message.kind is not Kind.BROADCAST or not isinstance(message.payload, Reply):
            return None
        reply: Reply = message.payload
        seat = self.roster.seat(message.sender)
        if seat is None:  # a seat that has since been replaced
            return None
        late = self.stragglers.pop(reply.stem, None) is not None
        status = "late" if late and reply.answered else reply.status
        contribution = Contribution.of(reply, seat, message.phase or "", message.round or 0, status)
        self.journal.project_changed(reply.project_warning)
        self.journal.store(contribution)
        self._show(contribution, reply)
        if late:
            self.unseen_late.append(contribution)
        else:
            self.arrived[contribution.stem] = contribution
        return contribution

    def _show(self, contribution: Contribution, reply: Reply) -> None:
        progress = self.journal.progress
        seat = contribution.seat
        progress.seat(seat, state=contribution.status, started=None, words=contribution.words)
        cut = f" (truncated from {contribution.original_words})" if contribution.truncated else ""
        shown = (
            f"{contribution.words} words{cut} {contribution.latency_s:.1f}s"
            if contribution.answered
            else contribution.detail
        )
        progress.info(f"{contribution.phase} {seat} {contribution.status} {shown}")
        progress.detail(f"  argv: {' '.join(reply.argv)}")
        progress.detail(
            f"  {reply.attempts} attempt(s), {reply.latency_s}s, exit {reply.exit_code}"
        )
        if contribution.stderr_tail:
            progress.detail("  stderr: " + contribution.stderr_tail.replace("\n", "\n  "))

    def _lost(self, pending: Pending) -> Contribution:
        contribution = Contribution(
            stem=pending.stem,
            seat=pending.seat.name,
            role=pending.seat.role,
            phase=pending.phase,
            round=pending.round,
            status="error",
            text=f"{pending.seat.name} error: no answer from its worker",
            cli=pending.seat.cli,
            detail="no answer from its worker",
        )
        self.journal.store(contribution)
        return contribution
