"""What one seat call runs under and what it returns: its soft and hard limits, where its
files go in the record, and the outcome `run_call` hands back with each attempt it made."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from council.adapters.base import Status, Usage

DEFAULT_GRACE_S = 3.0


@dataclass(frozen=True)
class Timeouts:
    """Soft: the lead may move on. Hard: the call's tree is killed. Both from the call's start."""

    soft_s: float
    hard_s: float
    grace_s: float = DEFAULT_GRACE_S  # between SIGTERM and SIGKILL


@dataclass(frozen=True)
class CallFiles:
    """Where one call's files go: `<stem>-prompt.md`, `<stem>[-aN]-response.md` and `.err`."""

    record_dir: Path
    stem: str  # e.g. "proxy-codex-r2"

    @property
    def prompt(self) -> Path:
        return self.record_dir / f"{self.stem}-prompt.md"

    def _attempt_stem(self, attempt: int) -> str:
        return self.stem if attempt == 1 else f"{self.stem}-a{attempt}"

    def response(self, attempt: int) -> Path:
        return self.record_dir / f"{self._attempt_stem(attempt)}-response.md"

    def err(self, attempt: int) -> Path:
        return self.record_dir / f"{self._attempt_stem(attempt)}-response.err"

    def answer(self, attempt: int) -> Path:
        return self.record_dir / f"{self._attempt_stem(attempt)}-answer.txt"


@dataclass(frozen=True)
class Attempt:
    number: int
    status: Status
    exit_code: int | None
    duration_s: float
    detail: str
    argv: tuple[str, ...]
    response_file: Path
    err_file: Path
    killed: bool = False
    dropped_bytes: int = 0
    started_s: float = 0.0  # seconds after the call started
    usage: Usage | None = None
    served: tuple[str, ...] = ()  # the models the CLI said served it, the main one first
    warm: bool = False  # made on the seat's warm worker (its response file holds the
    # protocol's messages), not by a process of its own


@dataclass(frozen=True)
class Span:
    """When one attempt ran, for a timeline: seconds after the call started, and its status."""

    start_s: float
    duration_s: float
    status: str


@dataclass(frozen=True)
class CallOutcome:
    status: Status
    text: str
    detail: str
    latency_s: float
    exceeded_soft: bool  # still running when the soft timeout passed
    attempts: tuple[Attempt, ...] = field(default_factory=tuple)
    stderr_tail: str = ""
    started_at: float = 0.0  # Unix time the call started
    # Words of a long plain-text answer that memory did not keep (they are on disk only):
    # what the word limit's "original ~N words" adds to those of `text`.
    hidden_words: int = 0

    @property
    def exit_code(self) -> int | None:
        return self.attempts[-1].exit_code if self.attempts else None

    @property
    def usage(self) -> Usage | None:
        """What every attempt of the call cost together, as far as the CLI said."""
        reported = [a.usage for a in self.attempts if a.usage is not None]
        return sum(reported[1:], reported[0]) if reported else None

    @property
    def served(self) -> tuple[str, ...]:
        """The models that served the call as its CLI named them, the main one first: the
        last attempt's (the one whose answer or failure the call ends with); () when the CLI
        named none, never the model council asked for."""
        return self.attempts[-1].served if self.attempts else ()

    @property
    def spans(self) -> tuple[Span, ...]:
        return tuple(Span(a.started_s, a.duration_s, a.status.value) for a in self.attempts)
