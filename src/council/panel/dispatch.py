"""Asking seats and collecting their answers (docs/spec/protocol.md section 3, "Timeouts and
progressive wait"): one ACTION DM per call, the replies turned into stored contributions, the
progressive wait that moves on without a straggler, and the straggler's late answer when it
comes. The protocol names the template and its values; what every one of its prompts shares
(the question, the technical context, the labels) comes from its `values` callback.

A seat is asked only once it is READY: asked before, it is `Unready`, and its order goes out
the moment its READY comes in (`Roster.on_ready`), whichever phase the lead is gathering then;
the phase waits for it (a seat dropped at READY is never asked).

A seat has at most one ACTION in flight. A straggler asked for the next phase is `Busy`: the
phase asks it once its late answer is in, if the phase is still collecting then (its soft
timeout counts from that ask, and its prompt gets that late answer as `own_late`); when the
phase closes first, the seat sits it out, stored as `skipped` with the reason `busy`.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import TaskGroup

from council.panel.asked import BUSY, LATE, Asked, Busy, Order, Pending, Unready
from council.panel.bus import Kind, Message, action_body
from council.panel.contribution import SKIPPED, Contribution
from council.panel.journal import Journal
from council.panel.late import cut_short
from council.panel.messages import LEAD, Ask, Reply
from council.panel.roster import Roster
from council.panel.seat import SeatPlan
from council.prompts import render, warm_up


class Dispatch:
    def __init__(
        self,
        roster: Roster,
        journal: Journal,
        values: Callable[[], Mapping[str, Any]],
        *,
        closing: Callable[[str], Mapping[str, Any]] | None = None,
        watch: Callable[[str], Mapping[str, Any]] | None = None,
    ) -> None:
        """`values`: what every prompt of the protocol is rendered with; `closing`: reads a
        last contribution's closing line (`vote=True` asks) from the whole answer; `watch`:
        reads every whole answer (the run's injection watch, `Fences.inspect`)."""
        self.roster = roster
        self.journal = journal
        self.values = values
        self.closing = closing
        self.watch = watch
        self.stragglers: dict[str, Pending] = {}
        self.in_flight: dict[str, Pending] = {}  # seat name -> its one ACTION not yet answered
        self.unseen_late: list[Contribution] = []  # late replies the advocate has not seen
        # Replies that came in while the lead gathered another phase's (a blind take that
        # beat the proposal): the next gather of their stems finds them here.
        self.arrived: dict[str, Contribution] = {}
        self.background: TaskGroup | None = None  # set while the seats sit
        self.unready: dict[str, Unready] = {}  # seat name -> its order, sent once READY
        self.cut: set[str] = set()  # stems of calls cut short: an answer that comes is dropped
        # seat name -> the order withdrawn before its READY, and why (`late.cut_short`)
        self.withdrawn: dict[str, tuple[Order, str]] = {}
        roster.on_ready = self._ready
        self._warmed = False

    @asynccontextmanager
    async def seated(self) -> AsyncIterator[None]:
        """SETUP: the seats start and report READY while the protocol runs (each is asked
        once READY); SHUTDOWN on the way out, whatever happens."""
        await self.journal.enter("SETUP", 0)
        async with self.roster.sitting(absorb=self.absorb) as background:
            self.background = background
            yield

    def take_unseen_late(self) -> list[Contribution]:
        late, self.unseen_late = self.unseen_late, []
        return late

    def busy(self, seat: SeatPlan) -> bool:
        """The seat is still answering an ask (a straggler's late call runs until its hard
        limit): it has at most one ACTION in flight."""
        return seat.name in self.in_flight

    def seen(self, late: Contribution) -> None:
        """The protocol has read this late answer already (it is no longer unseen)."""
        self.unseen_late = [c for c in self.unseen_late if c.stem != late.stem]

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
        once_free: Callable[[Contribution], Awaitable[bool]] | None = None,
        **values: Any,
    ) -> Asked:
        """Send one ACTION DM, or reuse the reply a previous run already stored, or, when the
        seat is still answering an earlier ask, return it `Busy` for `gather` to ask once it
        is free. `stem` names the call's files (default `<seat>-r<round>`); `vote`: this is
        the seat's last contribution, which ends with its own `VOTE:` line; `whole`: the
        answer is never cut to `limit` (a JSON answer cut short is no answer); `once_free`:
        what the protocol does with a busy seat's late answer before it is asked (False: it
        is not asked after all)."""
        state, progress = self.journal.state, self.journal.progress
        stem = stem or f"{seat.name}-r{round_no}"
        stored = state.contribution(stem)
        if stored is not None and stored.answered:
            # A check's answer copied in by `debate --from` was never this run's call.
            where = f"check {stored.copied_from}" if stored.copied_from else "the record"
            await self.journal.note(f"reused {stem} from {where}", stem=stem)
            progress.seat(seat.name, phase=phase, state="reused", words=stored.words)
            return stored
        order = Order(seat, phase, round_no, template, limit, stem, vote, whole, values)
        if self.roster.starting(seat):
            self.unready[seat.name] = Unready(order)
            return self.unready[seat.name]
        earlier = self.in_flight.get(seat.name)
        if earlier is None:
            return await self._send(order)
        progress.info(
            f"{phase} {seat.name} busy: still answering its {earlier.phase}; asked once free"
        )
        await self.journal.note(
            f"{seat.name} is still answering its {earlier.phase}: asked for {phase} once free, "
            "if the phase is still collecting",
            stem=stem,
            seat=seat.name,
            status=BUSY,
        )
        return Busy(order, earlier, once_free)

    async def _ready(self, seat: SeatPlan) -> None:
        """The seat has reported READY: send what was asked of it meanwhile."""
        if (withdrawn := self.withdrawn.pop(seat.name, None)) is not None:
            order, detail = withdrawn
            await self.sit_out(seat, order.phase, order.round, order.stem, LATE, detail)
        waiting = self.unready.pop(seat.name, None)
        if waiting is not None:
            waiting.sent = await self._send(waiting.order)

    async def _send(self, order: Order, *, own_late: Contribution | None = None) -> Pending:
        """Render the prompt and send the ACTION DM. `own_late`: the seat's own answer that
        came after its phase had closed, so no prompt of that phase could quote it."""
        # The seat as it sits now: a dropped advocate's order goes to its replacement.
        seat = self.roster.seat(order.seat.name) or order.seat
        phase, round_no, limit = order.phase, order.round, order.limit
        shared = {**self.values(), **order.values}
        prompt = render(
            order.template,
            phase=phase,
            role=seat.role,
            round=round_no,
            limit=limit,
            vote=order.vote,
            own_late=own_late,
            **shared,
        )
        ask = Ask(
            prompt=prompt,
            stem=order.stem,
            limit=None if order.whole else limit,
            vote=order.vote,
            inspect=self._inspector(order.vote),
            lean_prompt=self.roster.lean_prompt(),
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
        self.journal.progress.seat(
            seat.name,
            phase=phase,
            state="asked",
            started=anyio.current_time(),
            timeout_s=soft,
            words=None,
        )
        hard = soft * self.roster.hard_timeout_factor
        pending = Pending(seat, order.stem, phase, round_no, anyio.current_time(), soft, hard)
        self.in_flight[seat.name] = pending
        return pending

    def _inspector(self, vote: bool) -> Callable[[str], Mapping[str, Any]] | None:
        """What reads an answer whole, before the word limit cuts it: the watch on every
        answer, the closing line's reader on a last contribution's."""
        readers = [r for r in (self.watch, self.closing if vote else None) if r is not None]
        if not readers:
            return None
        if len(readers) == 1:
            return readers[0]

        def both(answer: str) -> Mapping[str, Any]:
            found: dict[str, Any] = {}
            for read in readers:
                found |= read(answer)
            return found

        return both

    async def gather(self, asked: list[Asked], *, progressive: bool) -> list[Contribution]:
        """Wait for the asked seats. With `progressive`, move on when all but one answered
        and the missing one has run its soft timeout; it becomes a straggler.

        A seat not yet READY is asked the moment it is (the phase waits for its READY). The
        phase is collecting while a seat it asked has not answered (or, when every seat it
        would ask was busy, until the first of them is free). A busy seat is asked once its
        late answer is in, if the phase is still collecting then; a seat still busy when the
        phase closes sits it out (`skipped`, reason `busy`). Returns the answers of the seats
        that were asked, in the order asked."""
        done = {a.stem: a for a in asked if isinstance(a, Contribution)}
        pending = {a.stem: a for a in asked if isinstance(a, Pending)}
        unready = {a.seat.name: a for a in asked if isinstance(a, Unready)}
        busy = {a.seat.name: a for a in asked if isinstance(a, Busy)}
        stems = [a.stem for a in asked]
        opened = bool(done or pending or unready)  # a seat of this phase was asked (or reused)
        for name, waiting in list(busy.items()):
            late = self.journal.state.contribution(waiting.earlier.stem)
            if self.in_flight.get(name) is not waiting.earlier and late is not None:
                busy.pop(name)  # freed since it was asked: the phase has only begun
                opened |= await self._ask_freed(waiting, late, pending, collecting=True)
        while True:
            for name, waiting in list(unready.items()):
                if waiting.sent is not None:  # READY since: its order went out then
                    del unready[name]
                    pending[waiting.sent.stem] = waiting.sent
                elif not self.roster.starting(waiting.seat):  # dropped at READY: never asked
                    del unready[name]
            for stem in [s for s in pending if s in self.arrived]:
                pending.pop(stem)
                done[stem] = self.arrived.pop(stem)
            if not (pending or unready or (busy and not opened)):
                break
            now = anyio.current_time()
            # A worker that never answers (a bug) must not hang the debate.
            horizon = min(
                [p.lost_at for p in pending.values()] + [b.earlier.lost_at for b in busy.values()],
                default=math.inf,
            )
            if progressive and len(pending) == 1 and not unready:  # all but one answered
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
            if now >= horizon:
                for stem, p in list(pending.items()):
                    if now >= p.lost_at:
                        done[stem] = self._lost(p)
                        pending.pop(stem)
                for name, waiting in list(busy.items()):
                    if now >= waiting.earlier.lost_at:
                        self.stragglers.pop(waiting.earlier.stem, None)
                        freed = self._lost(busy.pop(name).earlier)
                        collecting = bool(pending or unready) or not opened
                        opened |= await self._ask_freed(waiting, freed, pending, collecting)
                continue
            within = None if horizon == math.inf else max(0.0, horizon - now)
            message = await self.roster.receive(within)
            if message is None:
                continue
            contribution = self.absorb(message)
            if contribution is None:
                continue  # a READY (its seat's order went out), or nothing for the lead
            if contribution.stem in pending:
                pending.pop(contribution.stem)
                done[contribution.stem] = self.arrived.pop(contribution.stem)
            waiting = busy.pop(contribution.seat, None)
            if waiting is not None:
                collecting = bool(pending or unready) or not opened
                opened |= await self._ask_freed(waiting, contribution, pending, collecting)
        for waiting in busy.values():
            await self._skip(waiting)
        return [done[stem] for stem in stems if stem in done]

    async def _ask_freed(
        self, waiting: Busy, late: Contribution, pending: dict[str, Pending], collecting: bool
    ) -> bool:
        """A busy seat is free (`late`: the answer that freed it): ask it if the phase is
        still collecting, else it sits the phase out. True when it was asked."""
        if not collecting:
            await self._skip(waiting)
            return False
        if waiting.once_free is not None and not await waiting.once_free(late):
            return False
        asked = await self._send(waiting.order, own_late=late if late.answered else None)
        pending[asked.stem] = asked
        return True

    async def _skip(self, waiting: Busy) -> None:
        """The phase closed while the seat was still answering its earlier ask: it sits the
        phase out, recorded in the state (so the result) and the transcript."""
        order, earlier = waiting.order, waiting.earlier
        detail = f"still answering its {earlier.phase} when {order.phase} closed"
        await self.sit_out(order.seat, order.phase, order.round, order.stem, BUSY, detail)

    async def sit_out(
        self, seat: SeatPlan, phase: str, round_no: int, stem: str, reason: str, detail: str
    ) -> None:
        """The seat sits `phase` out (`reason`: busy or late): a contribution with no text,
        no call, in the state (so the result) and the transcript, and a progress line."""
        skipped = Contribution(
            stem=stem,
            seat=seat.name,
            role=seat.role,
            phase=phase,
            round=round_no,
            status=SKIPPED,
            text="",
            cli=seat.cli,
            detail=detail,
            reason=reason,
        )
        self.journal.store(skipped)
        progress = self.journal.progress
        progress.seat(seat.name, phase=phase, state=SKIPPED, started=None, words=None)
        progress.info(f"{phase} {seat.name} {SKIPPED}: {reason} ({detail})")
        await self.journal.note(
            f"{seat.name} sits {phase} out: {detail}",
            stem=stem,
            seat=seat.name,
            status=SKIPPED,
            reason=reason,
        )

    async def cut_short(self, asked: list[Asked], *, why: str, grace_s: float) -> None:
        """These asks are of no use once `why` (a blind take once the PROPOSAL is in): each
        has `grace_s` to be in, and a seat not READY yet may still become READY and answer in
        it. A seat not READY by then is never asked; one still answering then is cancelled.
        Each sits the phase out, `skipped` with the reason `late`."""
        await cut_short(self, asked, why=why, grace_s=grace_s)

    async def not_asked(self, seat: SeatPlan, phase: str, round_no: int, first: str) -> None:
        """A resumed run whose `first` call is in does not ask `phase` (a blind take once
        the PROPOSAL is in): what the record holds of it stays; else it sits out, `late`."""
        stem = f"{seat.name}-r{round_no}"
        if self.journal.state.contribution(stem) is None:
            detail = f"not asked: {first} was in when the run resumed"
            await self.sit_out(seat, phase, round_no, stem, LATE, detail)

    async def wait_for_stragglers(self) -> None:
        """Before the DECISION: a straggler inside its hard limit may still answer."""
        while self.stragglers:
            now = anyio.current_time()
            horizon = min(p.lost_at for p in self.stragglers.values())
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
        if seat is None or reply.stem in self.cut:  # replaced since, or its call was cut short
            return None
        late = self.stragglers.pop(reply.stem, None) is not None
        if (flying := self.in_flight.get(seat.name)) is not None and flying.stem == reply.stem:
            del self.in_flight[seat.name]  # the seat is free for its next ACTION
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
        if self.in_flight.get(pending.seat.name) is pending:
            del self.in_flight[pending.seat.name]
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
