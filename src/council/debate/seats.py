"""A seat: an anyio task that owns one CLI and acts only on an `ACTION:` DM from the lead.

On start it resolves its CLI (`--version` probe) and reports READY with its tool report, or
READY with `ok: false` and the reason when the CLI cannot run. A reader loop drains its inbox
(broadcasts only inform; they are never acted on) and queues ACTION DMs for a worker loop that
makes one CLI call per DM and broadcasts one answer (or failure notice) per call. SHUTDOWN
cancels a call in flight, which kills its process tree, then the seat acknowledges.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream

from council.adapters.base import Adapter, Status, Tool
from council.debate.bus import Bus, Kind, Message
from council.debate.plan import SeatPlan
from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
from council.runner.resolve import ToolCache
from council.words import truncate

LEAD = "lead"


@dataclass(frozen=True)
class Ask:
    """What an ACTION DM carries besides its body (in memory, never in the transcript)."""

    prompt: str
    stem: str
    limit: int


_SECRET_FLAG = re.compile(r"(key|token|secret|password|passwd|auth)", re.IGNORECASE)


def mask_argv(argv: tuple[str, ...]) -> list[str]:
    """argv fit to show: a prompt passed as an argument is abbreviated, and the value of a
    flag that names a key, token, secret or password is masked."""
    shown: list[str] = []
    for arg in argv:
        previous = shown[-1] if shown else ""
        if previous.startswith("-") and "=" not in previous and _SECRET_FLAG.search(previous):
            shown.append("****")
        elif "=" in arg and arg.startswith("-") and _SECRET_FLAG.search(arg.split("=", 1)[0]):
            shown.append(arg.split("=", 1)[0] + "=****")
        elif len(arg) > 200 or "\n" in arg:
            shown.append(f"<prompt: {len(arg)} chars>")
        else:
            shown.append(arg)
    return shown


class SeatWorker:
    def __init__(
        self,
        plan: SeatPlan,
        adapter: Adapter,
        bus: Bus,
        *,
        record_dir: Path,
        room: Path,
        hard_factor: float,
        policy: RetryPolicy | None = None,
        grace_s: float = 3.0,
        environ: Mapping[str, str] | None = None,
        tools: ToolCache | None = None,
    ) -> None:
        self.plan = plan
        self.adapter = adapter
        self.bus = bus
        self.record_dir = record_dir
        self.room = room
        self.hard_factor = hard_factor
        self.policy = policy
        self.grace_s = grace_s
        self.environ = environ
        self.tools = tools or ToolCache()
        self.tool: Tool | None = None

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def soft_timeout_s(self) -> float:
        if self.plan.soft_timeout_s is not None:
            return self.plan.soft_timeout_s
        return self.adapter.soft_timeout(self.plan.effort or self.adapter.settings.effort)

    async def run(self) -> None:
        inbox = self.bus.subscribe(self.name)
        resolved = await self.tools.resolve(self.adapter)
        self.tool = resolved.tool
        await self.bus.send(
            Message(
                Kind.READY,
                self.name,
                LEAD,
                f"READY:{self.name}",
                meta=self._report(resolved.problem),
            )
        )
        if self.tool is None:
            self.bus.unsubscribe(self.name)
            return
        actions_in, actions_out = anyio.create_memory_object_stream[Message](64)
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._work, actions_out)
            async with inbox:
                async for message in inbox:
                    if message.kind is Kind.SHUTDOWN:
                        break
                    if message.action is not None:
                        await actions_in.send(message)
            tg.cancel_scope.cancel()
        with anyio.CancelScope(shield=True):
            await self.bus.send(Message(Kind.SYSTEM, self.name, LEAD, f"SHUTDOWN-ACK:{self.name}"))

    def _report(self, problem: str | None) -> dict:
        tool = self.tool
        return {
            "ok": tool is not None,
            "problem": problem,
            "cli": self.plan.cli,
            "path": tool.command[0] if tool else None,
            "version": tool.version if tool else None,
            "variant": tool.variant if tool else None,
            "model": self.plan.model or self.adapter.settings.model,
            "effort": self.plan.effort or self.adapter.settings.effort,
            "sandbox": self.adapter.sandbox,
            "timeout_s": self.soft_timeout_s,
        }

    async def _work(self, actions: MemoryObjectReceiveStream[Message]) -> None:
        async with actions:
            async for order in actions:
                await self._act(order)

    async def _act(self, order: Message) -> None:
        ask: Ask = order.payload
        assert self.tool is not None
        soft = self.soft_timeout_s
        outcome = await run_call(
            self.adapter,
            self.tool,
            ask.prompt,
            room=self.room,
            files=CallFiles(self.record_dir, ask.stem),
            timeouts=Timeouts(soft, soft * self.hard_factor, self.grace_s),
            policy=self.policy,
            model=self.plan.model,
            effort=self.plan.effort,
            environ=self.environ,
        )
        meta = {
            "stem": ask.stem,
            "cli": self.plan.cli,
            "model": self.plan.model or self.adapter.settings.model,
            "status": outcome.status.value,
            "latency_s": round(outcome.latency_s, 2),
            "exit_code": outcome.exit_code,
            "attempts": len(outcome.attempts),
            "stderr_tail": outcome.stderr_tail if outcome.status is not Status.OK else "",
            "detail": outcome.detail,
            "exceeded_soft": outcome.exceeded_soft,
            "prompt_file": CallFiles(self.record_dir, ask.stem).prompt.name,
            "response_file": (outcome.attempts[-1].response_file.name if outcome.attempts else ""),
            "argv": mask_argv(outcome.attempts[-1].argv) if outcome.attempts else [],
        }
        if outcome.status is Status.OK:
            cut = truncate(outcome.text, ask.limit)
            body = cut.text
            meta |= {
                "words": cut.words,
                "truncated": cut.truncated,
                "original_words": cut.original_words,
            }
        else:
            body = f"{self.name} {outcome.status.value}: {outcome.detail}"
            meta |= {"words": 0, "truncated": False, "original_words": 0}
        await self.bus.send(
            Message(
                Kind.BROADCAST,
                self.name,
                "*",
                body,
                round=order.round,
                phase=order.phase,
                meta=meta,
            )
        )
