"""The MCP server: council's tools over stdio (docs/spec/commands.md "council mcp").

Every run, a debate or a review, runs detached, as `council debate --detach` runs it: a
process of its own in a new session, its record in `.scratchpad/`. So a run outlives a host
that hangs up or restarts the server, and any tool (or `council wait` in a terminal) can
follow it from its record. The blocking `debate` and `review` tools start one and follow it;
the host cancelling that call cancels the run (it stays resumable). Status and cancel take
any run's id; a result tool only its own protocol's (its output schema is that one's).

The SDK's import is most of the time to `initialize`: council's own library (config,
protocols, runs) is imported by the tool call that needs it.

stdout is the protocol: the SDK serves it from a private copy of fd 1 and points fd 1 at
stderr, and council's own progress goes to stderr and the record's `progress.log`.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations

from council import __version__
from council.check.flags import CheckFlags
from council.debate.flags import DebateFlags
from council.errors import CouncilError, UsageError
from council.mcp.arguments import (
    DoctorTimeout,
    Question,
    RunId,
    Scratchpad,
    Since,
    refusing_unknown_arguments,
    takes_debate_arguments,
    takes_flag_arguments,
)
from council.mcp.replies import (
    Cancelled,
    CheckOutcome,
    ReviewOutcome,
    RunOutcome,
    RunStatus,
    SeatCounts,
    Started,
    reply,
    status_tool,
)
from council.question import checked_question
from council.review.flags import ReviewFlags

if TYPE_CHECKING:  # what a tool call needs is imported by the call: `initialize` comes first
    from council.config import Config
    from council.runs.record import Record

CANCEL_WAIT_S = 20.0  # as `council cancel`
T = TypeVar("T")

FAITHFUL = (
    " A failed seat is reported as failed: never stand in for a failed seat, and never answer "
    "the question yourself instead of council; tell the user what council returned."
)
FAITHFUL_REVIEW = (
    " A failed reviewer is reported as failed: never stand in for it, and never pass findings "
    "of your own off as council's; tell the user what council returned."
)
INSTRUCTIONS = (
    "council runs a structured debate between AI coding CLIs (claude, codex, gemini, ...) on a "
    "question about this project and returns one DECISION, or a cross-vendor code review that "
    "returns findings checked by the other reviewers and a gate's verdict. `debate` and "
    "`review` run one to its end; `debate_start`/`review_start` + `debate_status` + "
    "`debate_result`/`review_result` do the same a step at a time (status and cancel take "
    "any run's id). `check` is a cheap first look: one blind answer per seat, grouped into "
    "positions, with the agreement and whether a human is needed. Every run keeps its record "
    "in .scratchpad/<id>/." + FAITHFUL
)


@dataclass(frozen=True)
class Settings:
    """The global options `council mcp` was started with."""

    config_path: Path | None = None
    council_args: tuple[str, ...] = ()  # for the detached runs: --config, -v
    quiet: bool = False
    verbose: bool = False


class Council:
    """The tools and what they share: the settings, and how far a status tool has told each
    run's progress lines."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cursors: dict[str, int] = {}
        self.cursors_lock = threading.Lock()  # two status calls may run side by side

    # -- council's library, in a worker thread, its errors as tool errors --------------------

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` off the event loop (files, git, processes block), a `CouncilError`
        as the tool error a host shows its model: council's one-line message."""
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args))
        except CouncilError as exc:
            raise ToolError(str(exc)) from None

    def config(self) -> Config:
        # Per call, as each CLI command loads it: an edit to council.yaml applies to the next
        # tool call, and a broken file is that call's error, not a server that fails to start.
        from council.config import load_config

        return load_config(self.settings.config_path)

    def find(self, run_id: str, scratchpad: str | None) -> Record:
        from council.runs.store import find_run

        pad = scratchpad or self.config().scratchpad
        return find_run(Path(pad).expanduser().absolute(), run_id)

    def start(self, kind: str, flags: DebateFlags | ReviewFlags | CheckFlags) -> Record:
        from council.panel.run import detach
        from council.progress import Progress
        from council.protocols import PROTOCOLS

        progress = Progress(
            sys.stderr, quiet=self.settings.quiet, verbose=self.settings.verbose, live=False
        )
        return detach(
            PROTOCOLS[kind],
            flags,
            self.config(),
            progress,
            cwd=Path.cwd(),
            council_args=self.settings.council_args,
        )

    async def run(
        self, kind: str, flags: DebateFlags | ReviewFlags | CheckFlags, ctx: Context
    ) -> CallToolResult:
        """Start a run, tell the host its progress until it ends, return its result."""
        from council.mcp.follow import follow

        record = await self.call(self.start, kind, flags)
        told = 0

        async def tell(message: str) -> None:
            nonlocal told
            told += 1
            await ctx.report_progress(told, None, message)

        try:
            await follow(record, tell)
        except anyio.get_cancelled_exc_class():
            if host_cancelled(ctx):
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(stop, record)
            raise
        except CouncilError as exc:
            raise ToolError(str(exc)) from None
        from council.mcp.results import ENDED_REPLIES

        return await self.call(ENDED_REPLIES[kind], record)

    async def started(
        self, kind: str, flags: DebateFlags | ReviewFlags | CheckFlags
    ) -> CallToolResult:
        record = await self.call(self.start, kind, flags)
        text = (
            f"started {record.id} (record {record.display()}); follow it with {kind}_status, "
            f"then get its result with {kind}_result"
        )
        return reply(text, Started(id=record.id, record=record.display()))

    def result(self, kind: str, run_id: str, scratchpad: str | None) -> CallToolResult:
        from council.mcp.results import result_of

        return result_of(kind, self.find(run_id, scratchpad))

    # -- the tools ------------------------------------------------------------------------

    async def debate(
        self, flags: DebateFlags, ctx: Context
    ) -> Annotated[CallToolResult, RunOutcome]:
        """Run a council debate on a question and return its DECISION (Markdown), the status,
        the exit code and the record's path. Blocks until the run ends (minutes); sends a
        progress notification at every phase and at least every 15 s. With lead "caller" the
        result is the decision prompt: answer it yourself to write the DECISION."""
        return await self.run("debate", flags, ctx)

    async def check(
        self, flags: CheckFlags, ctx: Context
    ) -> Annotated[CallToolResult, CheckOutcome]:
        """A quick look before a debate: every seat answers the question once, blind and in
        parallel, ending with a POSITION line. Returns the positions with who holds each,
        the agreement (unanimous, majority, split, insufficient), needs_human, every answer,
        the exit code (8 split, 9 insufficient) and the record's path. Blocks until every
        seat answered (one call each); a split check can be debated in full with `council
        debate --from ID`."""
        return await self.run("check", flags, ctx)

    async def debate_start(
        self, flags: DebateFlags, ctx: Context
    ) -> Annotated[CallToolResult, Started]:
        """Start a council debate in the background and return its id and record at once;
        follow it with debate_status, get its DECISION with debate_result. Same arguments as
        debate."""
        return await self.started("debate", flags)

    async def review(
        self, flags: ReviewFlags, ctx: Context
    ) -> Annotated[CallToolResult, ReviewOutcome]:
        """Review code (files and/or `git diff REF`) with several AI CLIs: each reviews blind,
        then checks the others' findings. Returns the findings (Markdown, and as data) with
        who raised, confirmed and disputed each, the gate's verdict at fail_on (exit code 6
        when a finding blocks), every reviewer's status and the record's path. Blocks until
        the review ends (minutes); sends a progress notification at every phase and at least
        every 15 s."""
        return await self.run("review", flags, ctx)

    async def review_start(
        self, flags: ReviewFlags, ctx: Context
    ) -> Annotated[CallToolResult, Started]:
        """Start a council review in the background and return its id and record at once;
        follow it with review_status, get its findings with review_result. Same arguments as
        review."""
        return await self.started("review", flags)

    async def debate_status(
        self, id: RunId, since: Since = None, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, RunStatus]:
        """Where a run (a debate or a review) is: status, phase, seats ok/failed/waiting,
        elapsed time, and its progress lines since the last status call for it (or after the
        first `since`)."""
        return await self.call(self._status, id, since, scratchpad)

    async def review_status(
        self, id: RunId, since: Since = None, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, RunStatus]:
        """Where a run (a review or a debate) is: status, phase, reviewers ok/failed/waiting,
        elapsed time, and its progress lines since the last status call for it (or after the
        first `since`)."""
        return await self.call(self._status, id, since, scratchpad)

    def _status(self, run_id: str, since: int | None, scratchpad: str | None) -> CallToolResult:
        from council.protocols import protocol_of
        from council.runs.store import (
            new_progress_lines,
            read_state,
            seat_counts,
            status_line,
            summarize,
        )

        record = self.find(run_id, scratchpad)
        kind = protocol_of(record).kind
        state = read_state(record)
        summary = summarize(record, state)  # before the lines: those written before it ended
        counts = seat_counts(record, state)
        with self.cursors_lock:
            cursor = since if since is not None else self.cursors.get(record.id, 0)
            lines = new_progress_lines(record, cursor)
            cursor += len(lines)
            self.cursors[record.id] = cursor
        line = status_line(summary, counts)
        then = (
            f"still running: call {status_tool(kind)} again"
            if not summary.settled
            else f"ended: call {kind}_result for its result"
        )
        status = RunStatus(
            id=record.id,
            status=summary.status,
            running=not summary.settled,
            phase=summary.phase,
            round=summary.round,
            rounds=summary.rounds,
            seats=SeatCounts(**counts),
            status_line=line,
            lines=lines,
            since=cursor,
        )
        return reply("\n".join([line, *lines, then]), status)

    async def debate_result(
        self, id: RunId, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, RunOutcome]:
        """A debate's DECISION (Markdown), status, exit code and record path, as debate
        returns them; an error while the run still runs, or for a review's id."""
        return await self.call(self.result, "debate", id, scratchpad)

    async def review_result(
        self, id: RunId, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, ReviewOutcome]:
        """A review's findings (Markdown, and as data), gate verdict, reviewers, status, exit
        code and record path, as review returns them; an error while the review still runs,
        or for a debate's id."""
        return await self.call(self.result, "review", id, scratchpad)

    async def check_result(
        self, id: RunId, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, CheckOutcome]:
        """A check's positions, agreement, needs_human, answers, status, exit code and record
        path, as check returns them; an error while it still runs, or for another run's id."""
        return await self.call(self.result, "check", id, scratchpad)

    async def debate_cancel(
        self, id: RunId, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, Cancelled]:
        """Stop a running debate (or any run) as Ctrl-C would; it stays resumable (council
        resume ID)."""
        return await self._cancel(id, scratchpad)

    async def review_cancel(
        self, id: RunId, scratchpad: Scratchpad = None
    ) -> Annotated[CallToolResult, Cancelled]:
        """Stop a running review (or any run) as Ctrl-C would; it stays resumable (council
        resume ID)."""
        return await self._cancel(id, scratchpad)

    async def _cancel(self, run_id: str, scratchpad: str | None) -> CallToolResult:
        from council.protocols import protocol_of
        from council.runs.store import cancel_run, summarize

        record = await self.call(self.find, run_id, scratchpad)
        kind = (await self.call(protocol_of, record)).kind
        pid = await self.call(cancel_run, record, CANCEL_WAIT_S)
        status = (await self.call(summarize, record)).status
        if pid is None:
            text = f"cancelled {record.id} ({status}); resume with: council resume {record.id}"
        else:
            text = (
                f"{record.id} (process {pid}) is still stopping after {CANCEL_WAIT_S:g}s; "
                f"check with {status_tool(kind)}"
            )
        return reply(text, Cancelled(id=record.id, status=status, stopped=pid is None))

    async def doctor(self, timeout_s: DoctorTimeout = 10.0) -> CallToolResult:
        """Every CLI council knows: found or not, version, auth, default seat, read-only
        flags, and whether a debate can run here (the `council doctor --json` report)."""
        from council.doctor import report_json, run_doctor

        config = await self.call(self.config)
        report = report_json(await run_doctor(config, timeout_s))
        return reply(json.dumps(report, indent=2), report)


def stop(record: Record) -> None:
    """Cancel a run whose `debate` call the host cancelled; one that just ended is fine."""
    from council.runs.store import cancel_run

    with contextlib.suppress(UsageError):
        cancel_run(record, CANCEL_WAIT_S)


def host_cancelled(ctx: Context) -> bool:
    """Whether the host cancelled this call (`notifications/cancelled`) rather than hung up.

    Both cancel the tool; only the first is a reason to stop the run: a run outlives a host
    that goes away, to be followed after a reconnect. The SDK keeps the flag on the request's
    dispatch context, which the tool's `Context` does not expose: read through private names,
    and if they move, every cancellation counts as the host's (the run stays resumable)."""
    outbound = getattr(ctx.request_context.session, "_request_outbound", None)
    requested = getattr(outbound, "cancel_requested", None)
    return requested.is_set() if isinstance(requested, anyio.Event) else True


def build_server(settings: Settings) -> MCPServer:
    council = Council(settings)
    runs = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    stops = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    tools: list[tuple[Callable[..., Any], ToolAnnotations, str]] = [
        # (tool, its hints to the host, what its description adds about failed seats)
        (takes_debate_arguments(council.debate), runs, FAITHFUL),
        (takes_debate_arguments(council.debate_start), runs, FAITHFUL),
        (council.debate_status, reads, FAITHFUL),
        (council.debate_result, reads, FAITHFUL),
        (council.debate_cancel, stops, ""),
        (takes_flag_arguments(ReviewFlags, council.review), runs, FAITHFUL_REVIEW),
        (takes_flag_arguments(ReviewFlags, council.review_start), runs, FAITHFUL_REVIEW),
        (council.review_status, reads, FAITHFUL_REVIEW),
        (council.review_result, reads, FAITHFUL_REVIEW),
        (council.review_cancel, stops, ""),
        (
            takes_flag_arguments(
                CheckFlags, council.check, {"question": (Question, checked_question)}
            ),
            runs,
            FAITHFUL,
        ),
        (council.check_result, reads, FAITHFUL),
        (council.doctor, reads, ""),
    ]
    return MCPServer(
        name="council",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="INFO" if settings.verbose else "WARNING",
        tools=[
            refusing_unknown_arguments(
                Tool.from_function(
                    tool,
                    name=tool.__name__,
                    # One paragraph: the docstring's line breaks are the source's, not the host's.
                    description=" ".join((tool.__doc__ or "").split()) + faithful,
                    annotations=hints,
                )
            )
            for tool, hints, faithful in tools
        ],
    )


# What a host that went away (quit, crashed, restarted the server) leaves the server to meet:
# a write into its closed pipe, or the streams the SDK read it from, closed.
_HOST_GONE = (
    BrokenPipeError,
    ConnectionResetError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
)


def serve(settings: Settings) -> None:
    """Serve until the host closes stdin, or goes away altogether: a normal end either way
    (the runs it started are detached and go on)."""
    try:
        build_server(settings).run("stdio")
    except _HOST_GONE:
        _host_gone()
    except BaseExceptionGroup as group:  # the SDK's task groups wrap what they meet
        _, other = group.split(_HOST_GONE)
        if other is not None:
            raise
        _host_gone()


def _host_gone() -> None:
    """Nobody reads stdout any more: point it at /dev/null, so the interpreter's last flush
    meets no broken pipe either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
