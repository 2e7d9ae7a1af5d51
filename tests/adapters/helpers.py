"""Small helpers shared by the adapter tests."""

from __future__ import annotations

from council.adapters.warm import WorkerGone


def answer_calls(fakes, cli: str) -> list[dict]:
    """The recorded calls that asked for an answer (not the `--version` probe)."""
    return [c for c in fakes.calls(cli) if c["argv"] not in (["--version"], ["-V"])]


async def warm_calls(adapter, tool, launch, tmp_path, prompts: list[str]) -> list:
    """`prompts` asked one after another on one warm worker of `adapter`'s CLI, through the
    real runner: each call's outcome."""
    from council.runner import CallFiles, RetryPolicy, Timeouts, run_call
    from council.runner.warm import warm_worker

    room, record, tmp = (tmp_path / d for d in ("room", "record", "tmp"))
    for path in (room, record, tmp):
        path.mkdir(mode=0o700)
    async with warm_worker(
        adapter, tool, launch, seat="critic", room=room, tmp_dir=tmp, record_dir=record
    ) as worker:
        await worker.start()
        return [
            await run_call(
                adapter,
                tool,
                prompt,
                room=room,
                files=CallFiles(record, f"critic-r{n}"),
                timeouts=Timeouts(10, 15, 1),
                policy=RetryPolicy(),
                tmp_dir=tmp,
                warm=worker,
            )
            for n, prompt in enumerate(prompts, 1)
        ]


class Scripted:
    """A worker that answers each message council sends with the next of `answers`."""

    def __init__(self, answers: list[list[dict]]) -> None:
        self.answers = answers
        self.pending: list[dict] = []
        self.sent: list[dict] = []

    async def send(self, message) -> None:
        self.sent.append(dict(message))
        if self.answers and "id" in message:
            self.pending += self.answers.pop(0)

    async def receive(self) -> dict:
        if not self.pending:
            raise WorkerGone("stdout ended")
        return self.pending.pop(0)
