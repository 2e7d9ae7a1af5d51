"""The lead: runs one debate as shared/spec/protocol.md describes it, top to bottom.

`run_debate` is the protocol; the `Lead` methods are its phases. The lead is plain Python: it
calls a model only for the DECISION and, for rounds >= 4, the convergence check. It talks to
the seats only over the bus: a seat calls its CLI only when a DM starting with `ACTION:` tells
it to. Every call that has ended is stored in `state.json` at once, so `council resume` reuses
every reply already on disk and runs only what is missing.

Choices where the spec is silent (also in the README):
- A PROPOSAL that fails stops the run with exit 3 (state saved): challenging nothing is no
  debate. A failed RESPOND, CHALLENGE or REBUTTAL is recorded and the debate goes on.
- A seat whose CLI is missing or unusable at READY is dropped at once (a restart cannot
  install it); a seat that does not answer READY in time is restarted once, then dropped.
- Votes are asked from the challengers (critic and proxies); the advocate authored the
  position the DECISION weighs.
- Before the DECISION the lead waits for stragglers still inside their hard limit, so a late
  reply can still count and a hung one is recorded as `timeout`, not lost.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters import adapter_for, default_order
from council.adapters.base import Adapter, Status, Tool
from council.config import Config
from council.context import DebateContext, build_room, files_block, refresh_technical_context
from council.debate.bus import RECORD, Bus, Kind, Message, action_body
from council.debate.decision import (
    DecisionUnreadable,
    parse_convergence,
    parse_decision,
    raw_text_decision,
)
from council.debate.plan import DebatePlan, SeatPlan
from council.debate.seats import LEAD, Ask, SeatWorker
from council.debate.state import Contribution, DebateState
from council.errors import NoUsableCliError
from council.progress import Progress
from council.prompts import render, warm_up
from council.runner import CallFiles, CallOutcome, RetryPolicy, Timeouts, run_call
from council.runner.resolve import ToolCache, resolve_tool
from council.runs.record import Record

DECISION_WORDS = 700
CONVERGENCE_WORDS = 150
# A seat worker answers every ACTION by its hard limit; past this margin it is presumed dead.
_WORKER_MARGIN_S = 30.0


async def run_debate(lead: Lead) -> None:
    """PARSE + CONTEXT are done before the record exists (bad input leaves no record)."""
    plan = lead.plan
    async with lead.seated():  # SETUP + READY; SHUTDOWN on the way out, whatever happens
        await lead.proposal(round_no=1)  # PROPOSAL
        await lead.challenge_and_respond(round_no=2)  # CHALLENGE (parallel) + RESPOND
        round_no = 2
        for _ in range(plan.rounds - 3):  # rounds 4 and 5: extra CHALLENGE + RESPOND cycles
            if await lead.converged(round_no):
                lead.state.stopped_early = True
                break
            round_no += 1
            lead.refresh_context(round_no - 1)  # CONTEXT REFRESH
            await lead.challenge_and_respond(round_no)
        if plan.rounds >= 3:
            round_no += 1
            lead.refresh_context(round_no - 1)  # CONTEXT REFRESH
            await lead.rebuttal_and_final_summary(round_no)  # REBUTTAL || FINAL_SUMMARY
        await lead.wait_for_stragglers()
    await lead.decide(round_no)  # DECISION


@dataclass
class Pending:
    seat: SeatPlan
    stem: str
    phase: str
    round: int
    sent_at: float
    soft_s: float
    hard_s: float


class Lead:
    def __init__(
        self,
        plan: DebatePlan,
        context: DebateContext,
        record: Record,
        state: DebateState,
        progress: Progress,
        config: Config,
        *,
        environ: Mapping[str, str] | None = None,
        policy: RetryPolicy | None = None,
        grace_s: float = 3.0,
    ) -> None:
        self.plan = plan
        self.context = context
        self.record = record
        self.state = state
        self.progress = progress
        self.config = config
        self.environ = environ
        self.policy = policy
        self.grace_s = grace_s
        self.bus = Bus(record.append_transcript, first_seq=len(record.transcript()) + 1)
        self.workers: dict[str, SeatWorker] = {}
        self.scopes: dict[str, anyio.CancelScope] = {}
        self.ready: dict[str, Mapping[str, Any]] = {}
        self.stragglers: dict[str, Pending] = {}
        self.unseen_late: list[Contribution] = []  # late replies the advocate has not seen
        self.lead_tool: Tool | None = None
        self.tools = ToolCache()
        self.inbox: MemoryObjectReceiveStream[Message] | None = None
        self._tg: anyio.abc.TaskGroup | None = None
        self._warmed = False

    # -- the record -------------------------------------------------------------------

    def save(self) -> None:
        self.record.save_state(self.state)

    async def note(self, text: str, **meta: Any) -> None:
        await self.bus.send(
            Message(
                Kind.SYSTEM,
                LEAD,
                RECORD,
                text,
                round=self.state.round,
                phase=self.state.phase,
                meta=meta,
            )
        )

    async def warn(self, text: str) -> None:
        self.state.warn(text)
        self.progress.warn(text)
        await self.note(f"warning: {text}")
        self.save()

    async def enter(self, phase: str, round_no: int) -> None:
        self.state.phase, self.state.round = phase, round_no
        self.state.rounds_run = max(self.state.rounds_run, round_no)
        self.save()
        await self.note(f"phase {phase}", round_no=round_no)

    # -- SETUP + READY ------------------------------------------------------------------

    @asynccontextmanager
    async def seated(self) -> AsyncIterator[None]:
        await self.enter("SETUP", 0)
        self.inbox = self.bus.subscribe(LEAD)
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                # Not waited for: the first phase renders as soon as the seats are READY.
                tg.start_soon(anyio.to_thread.run_sync, warm_up, "proposal")
                for seat in self.plan.seats:
                    self._start_seat(seat)
                await self._await_ready()
                try:
                    yield
                finally:
                    with anyio.CancelScope(shield=True):
                        await self._shutdown()
                    tg.cancel_scope.cancel()
        finally:
            self.bus.close()
            self.inbox.close()

    def _start_seat(self, seat: SeatPlan) -> None:
        assert self._tg is not None
        adapter = adapter_for(seat.cli, self.config.clis)
        room = self.record.room(seat.name)
        build_room(room, self.context)
        worker = SeatWorker(
            seat,
            adapter,
            self.bus,
            record_dir=self.record.path,
            room=room,
            hard_factor=self.plan.hard_timeout_factor,
            policy=self.policy,
            grace_s=self.grace_s,
            environ=self.environ,
            tools=self.tools,
        )
        scope = anyio.CancelScope()
        self.workers[seat.name] = worker
        self.scopes[seat.name] = scope

        async def run() -> None:
            with scope:
                await worker.run()

        self._tg.start_soon(run)
        self.progress.seat(seat.name, phase="SETUP", state="starting")

    async def _await_ready(self) -> None:
        waiting = {seat.name: seat for seat in self.plan.seats}
        restarted: set[str] = set()
        due = {name: anyio.current_time() + self.plan.ready_timeout_s for name in waiting}
        lead_problem: list[str] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._resolve_lead, lead_problem)
            while waiting:
                timeout = max(0.0, min(due[n] for n in waiting) - anyio.current_time())
                message = await self._receive(timeout)
                if message is not None and message.kind is Kind.READY:
                    name = message.sender
                    if name not in waiting:
                        continue
                    seat = waiting.pop(name)
                    if message.meta.get("ok"):
                        self.ready[name] = message.meta
                        self._record_seat(seat, message.meta, "ready")
                        self.progress.seat(name, phase="READY", state="ready")
                    else:
                        await self._drop(seat, message.meta.get("problem") or "unusable")
                    continue
                for name in [n for n in waiting if due[n] <= anyio.current_time()]:
                    seat = waiting[name]
                    if name in restarted:
                        waiting.pop(name)
                        self.scopes[name].cancel()
                        await self._drop(
                            seat, f"no READY within {self.plan.ready_timeout_s:g}s (restarted once)"
                        )
                    else:
                        restarted.add(name)
                        await self.warn(f"{name} missed READY; restarting it once")
                        self.scopes[name].cancel()
                        self._start_seat(seat)
                        due[name] = anyio.current_time() + self.plan.ready_timeout_s
        if lead_problem:
            self.state.status = "failed"
            self.save()
            raise NoUsableCliError(lead_problem[0])
        if self.plan.advocate.name not in self.ready:
            await self._replace_advocate()
        self.progress.info(f"ready {len(self.ready)}/{len(self.plan.seats)}")
        await self.note(f"ready {len(self.ready)}/{len(self.plan.seats)}")

    async def _resolve_lead(self, problems: list[str]) -> None:
        if self.plan.lead is None:
            return
        resolved = await self.tools.resolve(adapter_for(self.plan.lead.cli, self.config.clis))
        if resolved.tool is None:
            problems.append(
                f"the lead's CLI ({self.plan.lead.cli}) cannot run: "
                f"{resolved.problem}; choose another with --lead, or --lead caller"
            )
            return
        self.lead_tool = resolved.tool
        self._record_seat(
            self.plan.lead,
            {"version": resolved.tool.version, "path": resolved.tool.command[0]},
            "ready",
        )

    def _record_seat(self, seat: SeatPlan, meta: Mapping[str, Any], status: str) -> None:
        self.state.seats[seat.name] = {
            "role": seat.role,
            "cli": seat.cli,
            "model": seat.model,
            "effort": seat.effort,
            "version": meta.get("version"),
            "path": meta.get("path"),
            "status": status,
            "problem": meta.get("problem"),
        }
        self.save()

    async def _drop(self, seat: SeatPlan, problem: str) -> None:
        self._record_seat(seat, {"problem": problem}, "dropped")
        self.progress.seat(seat.name, phase="READY", state="dropped")
        await self.warn(f"{seat.name} ({seat.cli}) dropped: {problem}")

    async def _replace_advocate(self) -> None:
        """A dropped advocate is replaced by the next installed CLI (protocol.md, READY)."""
        tried = {self.plan.advocate.cli}
        for cli in default_order():
            if cli in tried or self.plan.simulated:
                continue
            tried.add(cli)
            resolved = await resolve_tool(adapter_for(cli, self.config.clis))
            if resolved.tool is None:
                continue
            seat = replace(self.plan.advocate, cli=cli, model=None)
            self.plan = replace(self.plan, advocate=seat)
            self.state.plan = self.plan.to_json()
            await self.warn(f"the advocate is now {cli}")
            self._start_seat(seat)
            message = await self._receive(self.plan.ready_timeout_s)
            while message is not None and not (
                message.kind is Kind.READY and message.sender == seat.name
            ):
                message = await self._receive(self.plan.ready_timeout_s)
            if message is not None and message.meta.get("ok"):
                self.ready[seat.name] = message.meta
                self._record_seat(seat, message.meta, "ready")
                return
        self.state.status = "failed"
        self.save()
        raise NoUsableCliError(
            "no CLI left for the advocate seat: install one (see "
            f"`council doctor`), then `council resume {self.state.id}`"
        )

    async def _shutdown(self) -> None:
        live = [name for name in self.ready if name in self.workers]
        for name in live:
            await self.bus.send(Message(Kind.SHUTDOWN, LEAD, name, f"SHUTDOWN:{name}"))
        acked: set[str] = set()
        with anyio.move_on_after(self.grace_s + 5):
            while len(acked) < len(live):
                message = await self._receive(None)
                if message is None:
                    break
                if message.kind is Kind.SYSTEM and message.body.startswith("SHUTDOWN-ACK"):
                    acked.add(message.sender)
                else:
                    self._absorb(message)
        self.save()

    # -- asking seats -------------------------------------------------------------------

    async def _receive(self, within_s: float | None) -> Message | None:
        """The next message, or None at the end of the stream or after `within_s` (None: wait)."""
        assert self.inbox is not None
        with anyio.move_on_after(within_s):
            try:
                return await self.inbox.receive()
            except anyio.EndOfStream:
                return None
        return None

    def _seated(self, seats: tuple[SeatPlan, ...] | list[SeatPlan]) -> list[SeatPlan]:
        return [s for s in seats if s.name in self.ready]

    async def _ask(
        self, seat: SeatPlan, phase: str, round_no: int, template: str, limit: int, **values: Any
    ) -> Pending | Contribution:
        """Send one ACTION DM, or reuse the reply a previous run already stored."""
        stem = f"{seat.name}-r{round_no}"
        stored = self.state.contribution(stem)
        if stored is not None and stored.answered:
            await self.note(f"reused {stem} from the record", stem=stem)
            self.progress.seat(seat.name, phase=phase, state="reused", words=stored.words)
            return stored
        prompt = render(
            template,
            phase=phase,
            role=seat.role,
            round=round_no,
            question=self.plan.question,
            technical=self.state.technical,
            limit=limit,
            **values,
        )
        worker = self.workers[seat.name]
        soft = worker.soft_timeout_s
        await self.bus.send(
            Message(
                Kind.DM,
                LEAD,
                seat.name,
                action_body(phase, f"round={round_no} limit={limit}"),
                round=round_no,
                phase=phase,
                meta={"stem": stem, "prompt_file": f"{stem}-prompt.md", "limit": limit},
                payload=Ask(prompt=prompt, stem=stem, limit=limit),
            )
        )
        if not self._warmed and self._tg is not None:
            self._warmed = True  # the first CLI runs: compile the other templates meanwhile
            self._tg.start_soon(anyio.to_thread.run_sync, warm_up)
        self.progress.seat(
            seat.name,
            phase=phase,
            state="asked",
            started=anyio.current_time(),
            timeout_s=soft,
            words=None,
        )
        return Pending(
            seat,
            stem,
            phase,
            round_no,
            anyio.current_time(),
            soft,
            soft * self.plan.hard_timeout_factor,
        )

    async def _gather(
        self, asked: list[Pending | Contribution], *, progressive: bool
    ) -> list[Contribution]:
        """Wait for the asked seats. With `progressive`, move on when all but one answered
        and the missing one has run its soft timeout; it becomes a straggler."""
        done = {a.stem: a for a in asked if isinstance(a, Contribution)}
        pending = {a.stem: a for a in asked if isinstance(a, Pending)}
        while pending:
            now = anyio.current_time()
            # A worker that never answers (a bug) must not hang the debate.
            horizon = min(p.sent_at + p.hard_s + _WORKER_MARGIN_S for p in pending.values())
            if progressive and len(pending) == 1:  # all but one answered (or a lone seat)
                (last,) = pending.values()
                move_on_at = last.sent_at + last.soft_s
                if now >= move_on_at:
                    self.stragglers[last.stem] = last
                    pending.clear()
                    self.progress.info(
                        f"{last.phase} {last.seat.name} waiting {last.soft_s:.0f}/"
                        f"{last.hard_s:.0f}s: moving on with {len(done)}/{len(asked)} "
                        "(progressive wait)"
                    )
                    await self.note(
                        f"moving on without {last.seat.name} (progressive wait)", stem=last.stem
                    )
                    break
                horizon = min(horizon, move_on_at)
            elif now >= horizon:
                for stem, p in list(pending.items()):
                    if now >= p.sent_at + p.hard_s + _WORKER_MARGIN_S:
                        done[stem] = self._lost(p)
                        pending.pop(stem)
                continue
            message = await self._receive(max(0.0, horizon - now))
            if message is None:
                continue
            contribution = self._absorb(message)
            if contribution is not None and contribution.stem in pending:
                pending.pop(contribution.stem)
                done[contribution.stem] = contribution
        return [done[a.stem] for a in asked if a.stem in done]

    def _absorb(self, message: Message) -> Contribution | None:
        """Turn a seat's broadcast into a stored contribution (late ones included)."""
        if message.kind is not Kind.BROADCAST or "stem" not in message.meta:
            return None
        meta = message.meta
        seat = next((s for s in self.plan.seats if s.name == message.sender), None)
        if seat is None:  # a seat that has since been replaced
            return None
        status = meta["status"]
        late = meta["stem"] in self.stragglers
        if late:
            self.stragglers.pop(meta["stem"])
            if status == Status.OK:
                status = "late"
        contribution = Contribution(
            stem=meta["stem"],
            seat=seat.name,
            role=seat.role,
            phase=message.phase or "",
            round=message.round or 0,
            status=status,
            text=message.body,
            cli=meta["cli"],
            model=meta.get("model"),
            words=meta["words"],
            truncated=meta["truncated"],
            original_words=meta["original_words"],
            latency_s=meta["latency_s"],
            attempts=meta["attempts"],
            exit_code=meta["exit_code"],
            stderr_tail=meta.get("stderr_tail", ""),
            detail=meta.get("detail", ""),
            prompt_file=meta["prompt_file"],
            response_file=meta["response_file"],
        )
        self.state.store(contribution)
        self.save()
        self.progress.seat(seat.name, state=status, started=None, words=contribution.words)
        cut = f" (truncated from {contribution.original_words})" if contribution.truncated else ""
        shown = (
            f"{contribution.words} words{cut} {contribution.latency_s:.1f}s"
            if contribution.answered
            else contribution.detail
        )
        self.progress.info(f"{contribution.phase} {seat.name} {status} {shown}")
        self.progress.detail(f"  argv: {' '.join(meta.get('argv', []))}")
        self.progress.detail(
            f"  {meta['attempts']} attempt(s), {meta['latency_s']}s, exit {meta['exit_code']}"
        )
        if contribution.stderr_tail:
            self.progress.detail("  stderr: " + contribution.stderr_tail.replace("\n", "\n  "))
        if late:
            self.unseen_late.append(contribution)
        return contribution

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
        self.state.store(contribution)
        self.save()
        return contribution

    # -- the phases ---------------------------------------------------------------------

    def _words(self, key: str) -> int:
        return int(self.plan.words[key])

    def position(self) -> Contribution | None:
        """The advocate's latest answer: what the challengers debate."""
        mine = [
            c
            for c in self.state.contributions()
            if c.seat == self.plan.advocate.name and c.answered
        ]
        return mine[-1] if mine else None

    def round_block(self, round_no: int) -> str:
        """Built once per round and sent byte for byte to every challenger."""
        position = self.position()
        views = [c for c in self.state.contributions() if c.seat != self.plan.advocate.name]
        lines = [f"## Round {round_no} context", ""]
        if position is not None:
            lines += [
                f"### Position under debate (advocate, round {position.round}, {position.phase})",
                position.text,
                "",
            ]
        lines.append("### Views already received")
        for view in views:
            lines.append(
                f"- {view.seat} (round {view.round}, {view.status}): {_first_words(view.text, 40)}"
            )
        if not views:
            lines.append("(none yet)")
        return "\n".join(lines)

    async def proposal(self, round_no: int) -> None:
        await self.enter("PROPOSAL", round_no)
        asked = await self._ask(
            self.plan.advocate,
            "PROPOSAL",
            round_no,
            "proposal",
            self._words("proposal"),
            files=files_block(self.context),
        )
        (proposal,) = await self._gather([asked], progressive=False)
        if not proposal.answered:
            self.state.status = "failed"
            self.save()
            raise NoUsableCliError(
                f"the advocate ({self.plan.advocate.cli}) could not write the proposal: "
                f"{proposal.detail}; fix that, then `council resume {self.state.id}`"
            )

    async def challenge_and_respond(self, round_no: int) -> None:
        await self.enter("CHALLENGE", round_no)
        block = self.round_block(round_no)
        files = files_block(self.context)
        asks = []
        for seat in self._seated(self.plan.challengers):
            if seat.role == "critic":
                asks.append(
                    await self._ask(
                        seat,
                        "CHALLENGE",
                        round_no,
                        "challenge_critic",
                        self._words("challenge"),
                        round_block=block,
                        files=files,
                    )
                )
            else:
                asks.append(
                    await self._ask(
                        seat,
                        "CHALLENGE",
                        round_no,
                        "challenge_proxy",
                        self._words("proxy"),
                        round_block=block,
                    )
                )
        challenges = await self._gather(asks, progressive=True)
        await self.respond(round_no, challenges)

    async def respond(self, round_no: int, challenges: list[Contribution]) -> None:
        await self.enter("RESPOND", round_no)
        position = self.position()
        late, self.unseen_late = self.unseen_late, []
        asked = await self._ask(
            self.plan.advocate,
            "RESPOND",
            round_no,
            "respond",
            self._words("respond"),
            files=files_block(self.context),
            position=position.text if position else "",
            challenges=challenges,
            late=late,
        )
        await self._gather([asked], progressive=False)

    def refresh_context(self, round_no: int) -> None:
        """CONTEXT REFRESH: facts learned in round `round_no`, tagged [R<n>]."""
        texts = [c.text for c in self.state.contributions() if c.round == round_no and c.answered]
        self.state.technical = list(
            refresh_technical_context(self.state.technical, texts, round_no, limit=20)
        )
        self.save()

    async def rebuttal_and_final_summary(self, round_no: int) -> None:
        await self.enter("REBUTTAL", round_no)
        block = self.round_block(round_no)
        position = self.position()
        late, self.unseen_late = self.unseen_late, []
        views = [
            c
            for c in self.state.contributions()
            if c.seat != self.plan.advocate.name and c.answered
        ]
        asks = [
            await self._ask(
                self.plan.advocate,
                "FINAL_SUMMARY",
                round_no,
                "final_summary",
                self._words("final_summary"),
                position=position.text if position else "",
                views=views,
                late=late,
            )
        ]
        for seat in self._seated(self.plan.challengers):
            asks.append(
                await self._ask(
                    seat,
                    "REBUTTAL",
                    round_no,
                    "rebuttal",
                    self._words("rebuttal"),
                    round_block=block,
                )
            )
        await self._gather(asks, progressive=True)

    async def wait_for_stragglers(self) -> None:
        while self.stragglers:
            now = anyio.current_time()
            horizon = min(p.sent_at + p.hard_s + _WORKER_MARGIN_S for p in self.stragglers.values())
            message = await self._receive(max(0.0, horizon - now))
            if message is None and anyio.current_time() >= horizon:
                for stem, pending in list(self.stragglers.items()):
                    if anyio.current_time() >= pending.sent_at + pending.hard_s:
                        self.stragglers.pop(stem)
                        self._lost(pending)
            elif message is not None:
                self._absorb(message)

    # -- the lead's own calls ------------------------------------------------------------

    async def _call_lead(self, stem: str, prompt: str) -> CallOutcome:
        assert self.plan.lead is not None and self.lead_tool is not None
        seat = self.plan.lead
        adapter: Adapter = adapter_for(seat.cli, self.config.clis)
        soft = seat.soft_timeout_s or adapter.soft_timeout(seat.effort)
        room = self.record.room("lead")
        build_room(room, self.context)
        await self.note(f"lead calls {seat.cli}", stem=stem)
        outcome = await run_call(
            adapter,
            self.lead_tool,
            prompt,
            room=room,
            files=CallFiles(self.record.path, stem),
            timeouts=Timeouts(soft, soft * self.plan.hard_timeout_factor, self.grace_s),
            policy=self.policy,
            model=seat.model,
            effort=seat.effort,
            environ=self.environ,
        )
        self.state.calls[stem] = {
            "by": "lead",
            "status": outcome.status.value,
            "attempts": len(outcome.attempts),
            "latency_s": round(outcome.latency_s, 2),
            "detail": outcome.detail,
            "text": outcome.text,
        }
        self.save()
        return outcome

    async def converged(self, round_no: int) -> bool:
        """The convergence check before an extra cycle (rounds 4 and 5)."""
        if self.plan.lead is None:
            return False
        stem = f"lead-r{round_no}-convergence"
        stored = self.state.calls.get(stem)
        if stored and stored["status"] == "ok":
            text = stored["text"]
        else:
            await self.enter("CONVERGENCE", round_no)
            prompt = render(
                "convergence",
                round=round_no,
                question=self.plan.question,
                contributions=self.state.contributions(),
                limit=CONVERGENCE_WORDS,
            )
            outcome = await self._call_lead(stem, prompt)
            text = outcome.text if outcome.status is Status.OK else ""
        verdict = parse_convergence(text)
        if verdict is None:
            await self.warn(
                f"convergence check unreadable after round {round_no}; running the extra cycle"
            )
            return False
        converged, open_points = verdict
        self.progress.info(
            f"convergence after round {round_no}: "
            + ("no open blocking disagreement" if converged else f"{len(open_points)} open")
        )
        return converged

    async def decide(self, round_no: int) -> None:
        await self.enter("DECISION", round_no)
        contributions = self.state.contributions()
        voters = [s.name for s in self._seated(self.plan.challengers)]
        loops = find_loops(contributions, self.plan.advocate.name)
        challenges = [c for c in contributions if c.phase == "CHALLENGE" and c.answered]
        self.state.unchallenged = len(challenges) < self.plan.quorum
        if self.state.unchallenged:
            await self.warn(
                f"only {len(challenges)} challenge(s) for a quorum of "
                f"{self.plan.quorum}: the DECISION is unchallenged"
            )
        prompt = render(
            "decision",
            round=round_no,
            question=self.plan.question,
            technical=self.state.technical,
            contributions=contributions,
            loops=loops,
            voters=voters,
            limit=DECISION_WORDS,
        )
        synthesized = True
        if self.plan.lead is None:
            self.record.write_text("lead-decision-prompt.md", prompt)
            self.state.decision_prompt_file = "lead-decision-prompt.md"
            decision = None
        else:
            decision, synthesized = await self._synthesize(prompt, voters)
            decision["synthesized_by"] = f"lead ({self.plan.lead.cli})"
            decision["unchallenged"] = self.state.unchallenged
            _mark_loops(decision, loops)
        self.state.decision = decision
        self.state.status = (
            "degraded" if self.state.unchallenged or not synthesized else "completed"
        )
        self.save()

    async def _synthesize(self, prompt: str, voters: list[str]) -> tuple[dict[str, Any], bool]:
        stored = self.state.calls.get("lead-decision")
        if stored and stored["status"] == "ok":
            text = stored["text"]
        else:
            outcome = await self._call_lead("lead-decision", prompt)
            if outcome.status is not Status.OK:
                await self.warn(f"the DECISION could not be synthesized: {outcome.detail}")
                return raw_text_decision(
                    f"The lead could not synthesize a DECISION ({outcome.status.value}: "
                    f"{outcome.detail}). See the debate record below."
                ), False
            text = outcome.text
        try:
            decision, problems = parse_decision(text, voters)
        except DecisionUnreadable as first_problem:
            repair = render(
                "repair",
                question=self.plan.question,
                previous=text,
                problem=str(first_problem),
                voters=voters,
                limit=DECISION_WORDS,
            )
            outcome = await self._call_lead("lead-decision-repair", repair)
            try:
                decision, problems = parse_decision(outcome.text, voters)
            except DecisionUnreadable as second_problem:
                await self.warn(
                    f"the DECISION reply was not valid JSON ({second_problem}), "
                    "even after one repair: kept as raw text, confidence unknown"
                )
                return raw_text_decision(text), True
        for problem in problems:
            await self.warn(problem)
        return decision, True


_STOP = frozenset(
    {
        "that",
        "this",
        "with",
        "from",
        "have",
        "will",
        "would",
        "should",
        "could",
        "their",
        "there",
        "about",
        "which",
        "when",
        "what",
        "into",
        "also",
        "than",
        "then",
        "them",
        "they",
        "your",
        "more",
        "most",
        "only",
        "just",
    }
)
_EVIDENCE = re.compile(r"[\w./-]+\.\w{1,5}\b|\b\w+\(\)|`[^`]+`|\b\d+(?:\.\d+)?\b")


def _first_words(text: str, count: int) -> str:
    words = " ".join(text.split()).split(" ")
    return " ".join(words[:count]) + (" ..." if len(words) > count else "")


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z'-]{3,}", text.lower()) if w not in _STOP}


def find_loops(contributions: list[Contribution], advocate: str) -> list[str]:
    """Disagreements a seat repeated in the next round without new evidence.

    Repeated: most of the later text's content words were already in the earlier one. New
    evidence: a file name, a call, a code span or a number the earlier text did not have.
    """
    loops = []
    by_seat: dict[str, list[Contribution]] = {}
    for c in contributions:
        if c.seat != advocate and c.answered and c.phase in ("CHALLENGE", "REBUTTAL"):
            by_seat.setdefault(c.seat, []).append(c)
    for seat, items in by_seat.items():
        for earlier, later in pairwise(items):
            before, after = _content_words(earlier.text), _content_words(later.text)
            if not after:
                continue
            overlap = len(before & after) / len(after)
            new_evidence = set(_EVIDENCE.findall(later.text)) - set(_EVIDENCE.findall(earlier.text))
            if overlap >= 0.7 and not new_evidence:
                loops.append(
                    f"{seat}, rounds {earlier.round}-{later.round}: {_first_words(later.text, 25)}"
                )
    return loops


def _mark_loops(decision: dict[str, Any], loops: list[str]) -> None:
    """Every repeated disagreement ends up ruled by the lead and marked `loop`."""
    if not loops:
        return
    marked = [d for d in decision["disagreements"] if d["loop"]]
    for point in loops[len(marked) :]:
        decision["disagreements"].append(
            {
                "point": point,
                "ruling": "Settled by the lead's recommendation above.",
                "reason": "Raised again in the next round without new evidence.",
                "loop": True,
            }
        )


__all__ = ["Lead", "find_loops", "run_debate"]
